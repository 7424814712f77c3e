//! `Progress`: what a long call reports of itself while it runs, to whoever the host lets hear.

use std::fmt;
use std::sync::Arc;

/// One report of a call's progress: how far (`done`, which only grows), out of how much when
/// known, and what it is doing.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ProgressUpdate {
    /// The name of the tool reporting.
    pub tool: String,
    /// The call's id at its provider, when the host has one.
    pub call_id: Option<String>,
    /// How much is done: grows with every report, even when `total` is not known.
    pub done: f64,
    /// How much there is to do, when known.
    pub total: Option<f64>,
    /// What the tool is doing, for people.
    pub message: Option<String>,
}

/// Where a host hears progress: called on the tool's thread, so it should be quick (send it on).
pub type ProgressSink = Arc<dyn Fn(ProgressUpdate) + Send + Sync>;

/// A context parameter through which a tool reports its progress (`progress: Progress`).
///
/// The host decides who hears it: an MCP client that sent a `progressToken` receives
/// `notifications/progress`; a host that set no sink ([`Exec::with_progress`](crate::Exec::with_progress))
/// hears nothing, and reporting costs nothing.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use tool_runtime::{Ctx, Exec, Progress, tool};
///
/// /// Copies some files.
/// #[tool]
/// fn copy_files(
///     progress: Progress,
///     /// How many.
///     count: u32,
/// ) -> String {
///     for n in 1..=count {
///         progress.report(n, count, format!("copied file {n}"));
///     }
///     format!("copied {count} files")
/// }
///
/// let mut ctx = Ctx::new();
/// ctx.plugin::<CopyFiles>().unwrap();
/// let heard = Arc::new(Mutex::new(Vec::new()));
/// let sink = Arc::clone(&heard);
/// let exec = Exec::new().with_progress(move |update| sink.lock().unwrap().push(update.done));
/// ctx.tools.call("copy_files", &exec, r#"{"count": 3}"#).wait();
/// assert_eq!(*heard.lock().unwrap(), [1.0, 2.0, 3.0]);
/// ```
#[derive(Clone, Default)]
pub struct Progress(Option<Arc<Heard>>);

/// Who hears a call's reports, and which call it is.
struct Heard {
    sink: ProgressSink,
    tool: String,
    call_id: Option<String>,
}

impl Progress {
    /// The reports of a call of `tool`, heard by `sink` if there is one.
    pub(crate) fn new(sink: Option<&ProgressSink>, tool: &str, call_id: Option<&str>) -> Self {
        Progress(sink.map(|sink| {
            Arc::new(Heard {
                sink: Arc::clone(sink),
                tool: tool.to_owned(),
                call_id: call_id.map(str::to_owned),
            })
        }))
    }

    /// Reports that `done` of `total` is done, and what is being done (`""` for nothing).
    pub fn report(&self, done: impl Into<f64>, total: impl Into<f64>, message: impl Into<String>) {
        self.send(done.into(), Some(total.into()), message.into());
    }

    /// Reports that `done` is done, of a total not known, and what is being done.
    pub fn report_without_total(&self, done: impl Into<f64>, message: impl Into<String>) {
        self.send(done.into(), None, message.into());
    }

    fn send(&self, done: f64, total: Option<f64>, message: String) {
        if let Some(heard) = &self.0 {
            (heard.sink)(ProgressUpdate {
                tool: heard.tool.clone(),
                call_id: heard.call_id.clone(),
                done,
                total,
                message: (!message.is_empty()).then_some(message),
            });
        }
    }

    /// Whether anyone hears the reports: a tool can skip working out a message no one reads.
    pub fn is_heard(&self) -> bool {
        self.0.is_some()
    }
}

impl fmt::Debug for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Progress")
            .field("tool", &self.0.as_ref().map(|heard| &heard.tool))
            .field("heard", &self.is_heard())
            .finish()
    }
}
