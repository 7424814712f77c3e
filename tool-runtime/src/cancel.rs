//! `Cancel`: a call's cancellation, which its host (or its deadline) triggers and its tool sees.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

/// The cancellation of a tool call: a host cancels it, an `async` tool sees it, and the call
/// answers `Error: <tool> was cancelled`.
///
/// A host puts one in the call's [`Exec`](crate::Exec) ([`Exec::with_cancel`](crate::Exec::with_cancel))
/// and keeps a clone to cancel with. A tool takes it as a context parameter (`cancel: Cancel`)
/// to stop cleanly: an `async` tool is stopped at its next `.await` whether it looks or not, so
/// it looks to finish what must not be cut (a file half written); a `#[tool(blocking)]` tool,
/// which nothing can stop from outside, checks [`Cancel::is_cancelled`] between steps.
///
/// It is a [`tokio_util`] cancellation token, so a host that has one (rmcp gives each request
/// one) passes it as it is: `Cancel::from(token)`.
///
/// ```
/// use tool_runtime::{Cancel, Ctx, Exec, tool};
///
/// /// Counts to a million, slowly.
/// #[tool]
/// async fn count(cancel: Cancel) -> String {
///     for n in 0..1_000_000u64 {
///         if cancel.is_cancelled() {
///             return format!("stopped at {n}");
///         }
///         tokio::task::yield_now().await;
///     }
///     "done".into()
/// }
///
/// let mut ctx = Ctx::new();
/// ctx.plugin::<Count>().unwrap();
/// let cancel = Cancel::new();
/// cancel.cancel();
/// let exec = Exec::new().with_cancel(cancel);
/// let out = ctx.tools.call("count", &exec, "{}").wait();
/// assert_eq!(out.text, "Error: count was cancelled");
/// ```
// In an `Arc`: every call takes one, and cloning a token itself locks its tree node.
#[derive(Clone, Default)]
pub struct Cancel(Arc<CancellationToken>);

impl Cancel {
    /// A cancellation that has not happened.
    pub fn new() -> Self {
        Cancel::default()
    }

    /// Cancels the call, and every call whose cancellation is a [`child`](Cancel::child) of
    /// this one.
    pub fn cancel(&self) {
        self.0.cancel();
    }

    /// Whether the call was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.0.is_cancelled()
    }

    /// Completes when the call is cancelled.
    pub fn cancelled(&self) -> impl Future<Output = ()> + Send + '_ {
        self.0.cancelled()
    }

    /// A cancellation of its own that this one also triggers: for one call of many a host
    /// cancels together, or a call with a deadline.
    #[must_use]
    pub fn child(&self) -> Cancel {
        Cancel(Arc::new(self.0.child_token()))
    }

    /// The token underneath, for code that takes a [`CancellationToken`].
    pub fn token(&self) -> &CancellationToken {
        &self.0
    }
}

impl From<CancellationToken> for Cancel {
    fn from(token: CancellationToken) -> Self {
        Cancel(Arc::new(token))
    }
}

impl fmt::Debug for Cancel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cancel")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}
