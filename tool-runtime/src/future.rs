//! `ToolFuture`: a call's result, ready at once or awaited, with panics caught.

use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::output::ToolOutput;
use crate::refusal;

/// The result of a call: ready at once for a synchronous tool, a future for an `async` one.
///
/// Await it in an async host, or call [`ToolFuture::wait`] in a synchronous one. A panic inside
/// the tool comes back as an error output.
#[must_use = "a tool call does nothing until its result is awaited or waited for"]
pub struct ToolFuture<'a>(Inner<'a>);

enum Inner<'a> {
    Ready(Option<ToolOutput>),
    Pending {
        tool: &'a str,
        future: Pin<Box<dyn Future<Output = ToolOutput> + Send + 'a>>,
    },
}

impl<'a> ToolFuture<'a> {
    /// A result that is ready now.
    pub fn ready(output: ToolOutput) -> Self {
        ToolFuture(Inner::Ready(Some(output)))
    }

    /// A result computed by `future`.
    pub fn boxed(future: impl Future<Output = ToolOutput> + Send + 'a) -> Self {
        ToolFuture(Inner::Pending {
            tool: "",
            future: Box::pin(future),
        })
    }

    /// Blocks the current thread until the result is ready.
    ///
    /// Synchronous tools are ready at once. An `async` tool that needs a runtime (tokio's timers
    /// or sockets) must be awaited inside that runtime instead.
    pub fn wait(self) -> ToolOutput {
        match self.0 {
            Inner::Ready(Some(output)) => output,
            _ => pollster::block_on(self),
        }
    }

    pub(crate) fn named(mut self, name: &'a str) -> Self {
        if let Inner::Pending { tool, .. } = &mut self.0 {
            *tool = name;
        }
        self
    }
}

impl Future for ToolFuture<'_> {
    type Output = ToolOutput;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolOutput> {
        match &mut self.0 {
            Inner::Ready(output) => {
                Poll::Ready(output.take().expect("ToolFuture polled after completion"))
            }
            Inner::Pending { tool, future } => {
                match catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
                    Ok(poll) => poll,
                    Err(payload) => {
                        let output = refusal::panicked(tool, payload.as_ref());
                        self.0 = Inner::Ready(None);
                        Poll::Ready(output)
                    }
                }
            }
        }
    }
}

impl fmt::Debug for ToolFuture<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Inner::Ready(output) => f.debug_tuple("Ready").field(output).finish(),
            Inner::Pending { tool, .. } => f
                .debug_struct("Pending")
                .field("tool", tool)
                .finish_non_exhaustive(),
        }
    }
}
