//! `ToolFuture`: a call's result, ready at once or awaited, with panics caught.

use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use crate::cancel::Cancel;
use crate::session::Session;

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

    /// The same result, `hook` told of a panic of the tool's with its message before the panic
    /// is answered as any panic is (`<tool> panicked: …`).
    pub(crate) fn telling_panics(self, hook: crate::exec::PanicHook) -> Self {
        match self.0 {
            Inner::Pending { tool, mut future } => ToolFuture(Inner::Pending {
                tool,
                future: Box::pin(std::future::poll_fn(move |cx| {
                    match catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
                        Ok(poll) => poll,
                        Err(payload) => {
                            hook(crate::refusal::panic_message(payload.as_ref()));
                            std::panic::resume_unwind(payload)
                        }
                    }
                })),
            }),
            ready => ToolFuture(ready),
        }
    }

    /// A result computed by `work`, a synchronous tool that blocks (`#[tool(blocking)]`): awaited
    /// on a tokio runtime, it runs on the runtime's blocking threads, so the executor goes on
    /// with other calls meanwhile; waited for, it runs where [`ToolFuture::wait`] drives it.
    pub fn blocking(work: impl FnOnce() -> ToolOutput + Send + 'static) -> Self {
        ToolFuture::boxed(async move {
            match tokio::runtime::Handle::try_current() {
                Ok(handle) => match handle.spawn_blocking(work).await {
                    Ok(output) => output,
                    // The panic goes on to this future's poll, which answers it with the
                    // tool's name.
                    Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
                    Err(_) => ToolOutput::error("the call was cancelled with its runtime"),
                },
                Err(_) => work(),
            }
        })
    }

    /// Blocks the current thread until the result is ready, for a synchronous host.
    ///
    /// Synchronous tools are ready at once. An `async` tool is driven on a tokio runtime, so one
    /// that uses tokio's timers or sockets works too, from any thread:
    ///
    /// - outside any runtime, on a current-thread runtime this thread keeps for it;
    /// - on a thread of a multi-threaded runtime (a worker, the thread in its `block_on`, a
    ///   `spawn_blocking` thread), on that runtime, the thread stepping out of it while it blocks
    ///   (`block_in_place`);
    /// - on a thread of a current-thread runtime, which may be the one thread driving it, on a
    ///   thread and a runtime of its own: the call's own timers and sockets work, but a resource
    ///   the host's runtime drives (a socket it opened) waits until the call is over.
    ///
    /// An async host should `.await` the call instead.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tool_runtime::{Ctx, Exec, tool};
    ///
    /// /// Waits, then answers.
    /// #[tool]
    /// async fn nap(
    ///     /// How long, in milliseconds.
    ///     ms: u64,
    /// ) -> String {
    ///     tokio::time::sleep(Duration::from_millis(ms)).await;
    ///     format!("slept {ms} ms")
    /// }
    ///
    /// let mut ctx = Ctx::new();
    /// ctx.plugin::<Nap>().unwrap();
    /// // A synchronous host, no runtime of its own.
    /// let out = ctx.tools.call("nap", &Exec::new(), r#"{"ms": 5}"#).wait();
    /// assert_eq!(out.text, "slept 5 ms");
    /// ```
    pub fn wait(mut self) -> ToolOutput {
        use tokio::runtime::{Handle, RuntimeFlavor};

        let tool = match &mut self.0 {
            Inner::Ready(output) => {
                return output
                    .take()
                    .unwrap_or_else(|| ToolOutput::error("the call's result was taken already"));
            }
            Inner::Pending { tool, .. } => *tool,
        };
        match Handle::try_current() {
            // No runtime here: one of this thread's own.
            Err(_) => block_on_local(self),
            // A multi-threaded runtime's thread (a worker, its `block_on`, a `spawn_blocking`
            // thread): the thread steps out of the runtime while it blocks on it.
            Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => {
                tokio::task::block_in_place(|| handle.block_on(self))
            }
            // A single-threaded runtime's thread may be the one that drives it, which cannot
            // block: the call runs on a thread of its own, with a runtime of its own.
            Ok(_) => std::thread::scope(|scope| {
                scope
                    .spawn(|| block_on_local(self))
                    .join()
                    .unwrap_or_else(|payload| refusal::panicked(tool, payload.as_ref()))
            }),
        }
    }

    /// The same result, replaced by a note that says so when it is larger than `max` bytes; for
    /// a result that is ready.
    pub(crate) fn capped(
        mut self,
        tool: &str,
        max: usize,
        recorded: Option<(&Session, u64)>,
    ) -> Self {
        if let Inner::Ready(output) = &mut self.0
            && let Some(ready) = output.take()
        {
            *output = Some(refusal::capped(tool, ready, max, recorded));
        }
        self
    }

    /// The result if it is ready without waiting, else the future as it was.
    pub(crate) fn into_ready(self) -> Result<ToolOutput, Self> {
        match self.0 {
            Inner::Ready(Some(output)) => Ok(output),
            inner => Err(ToolFuture(inner)),
        }
    }

    /// Whether the result is ready without waiting (a synchronous tool's).
    pub(crate) fn is_ready(&self) -> bool {
        matches!(self.0, Inner::Ready(_))
    }

    /// The same call, answered `Error: <tool> was cancelled` as soon as `cancel` is, and
    /// `Error: <tool> timed out after …` when `timeout` passes first, which cancels `cancel`
    /// for the tool to see. Once the call is cancelled its answer is that it was, even when the
    /// tool returned something of its own after seeing it.
    ///
    /// What is cut is dropped: an `async` tool stops at the `.await` it is in; a blocking one
    /// keeps its thread until it returns (nothing can stop a thread from outside), and its
    /// result is thrown away.
    pub(crate) fn guarded(
        self,
        tool: &'a str,
        cancel: Cancel,
        timeout: Option<Duration>,
        max_result_bytes: usize,
        recorded: Option<(&'a Session, u64)>,
    ) -> Self {
        // Both named: a panic in the tool, or in the guard, is answered with the tool's name.
        let mut inner = self.named(tool);
        ToolFuture::boxed(async move {
            let mut deadline = match timeout {
                // A runtime without a timer panics here: said in words instead.
                Some(after) => match catch_unwind(|| tokio::time::sleep(after)) {
                    Ok(sleep) => Some((Box::pin(sleep), after)),
                    Err(_) => return refusal::no_timer(tool),
                },
                None => None,
            };
            let mut cancelled = std::pin::pin!(cancel.cancelled());
            std::future::poll_fn(|cx| {
                // Cancelled first: a tool that saw its cancellation and returned early is
                // answered for as cancelled, whichever of the two is noticed first.
                if cancelled.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(refusal::cancelled(tool));
                }
                if let Poll::Ready(output) = Pin::new(&mut inner).poll(cx) {
                    if cancel.is_cancelled() {
                        return Poll::Ready(refusal::cancelled(tool));
                    }
                    return Poll::Ready(refusal::capped(tool, output, max_result_bytes, recorded));
                }
                if let Some((sleep, after)) = &mut deadline
                    && sleep.as_mut().poll(cx).is_ready()
                {
                    cancel.cancel();
                    return Poll::Ready(refusal::timed_out(tool, *after));
                }
                Poll::Pending
            })
            .await
        })
        .named(tool)
    }

    pub(crate) fn named(mut self, name: &'a str) -> Self {
        if let Inner::Pending { tool, .. } = &mut self.0 {
            *tool = name;
        }
        self
    }
}

/// Drives `future` on this thread's own runtime.
fn block_on_local(future: ToolFuture<'_>) -> ToolOutput {
    LOCAL_RUNTIME.with(|runtime| match runtime {
        Some(runtime) => runtime.block_on(future),
        // No runtime could be built: the future may still need none.
        None => pollster::block_on(future),
    })
}

thread_local! {
    /// The runtime `wait` drives async tools on, on a thread that is in no runtime's context.
    static LOCAL_RUNTIME: Option<tokio::runtime::Runtime> = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .ok();
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
