//! What a tool logs while it runs ([`Logger`]), for the host to pass on (MCP's
//! `notifications/message`).

use std::fmt;
use std::sync::Arc;

/// How severe a log message is: syslog's levels (RFC 5424), as MCP names them, least severe
/// first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Detail for debugging.
    Debug,
    /// Something worth knowing.
    Info,
    /// Normal but significant.
    Notice,
    /// Something may be wrong.
    Warning,
    /// Something failed.
    Error,
    /// A part failed.
    Critical,
    /// Action is needed at once.
    Alert,
    /// Nothing works.
    Emergency,
}

impl LogLevel {
    /// Every level, least severe first.
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// Its name: `debug`, `info`, … `emergency`.
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }
}

impl fmt::Display for LogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One message a tool logged.
#[derive(Clone, Debug, PartialEq)]
pub struct LogMessage {
    /// The tool that logged it.
    pub tool: String,
    /// The provider's id of the call, when the host has one.
    pub call_id: Option<String>,
    /// How severe it is.
    pub level: LogLevel,
    /// What was logged: text, or any JSON value.
    pub data: serde_json::Value,
}

/// Who hears the messages the tools log (see [`Exec::with_log`](crate::Exec::with_log)).
pub type LogSink = Arc<dyn Fn(LogMessage) + Send + Sync>;

/// Where a tool logs while it runs: a context parameter, like [`Progress`](crate::Progress).
/// The host passes each message on to whoever follows the call (an MCP client, as
/// `notifications/message` at the level it asked for); where nobody does, logging costs a
/// branch.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use tool_runtime::{Ctx, Exec, LogLevel, Logger, tool};
///
/// /// Imports the rows of a file.
/// #[tool]
/// fn import(log: Logger, rows: u32) -> String {
///     log.info(format!("importing {rows} rows"));
///     log.log(LogLevel::Warning, serde_json::json!({"skipped": 1}));
///     format!("imported {} rows", rows - 1)
/// }
///
/// let mut ctx = Ctx::new();
/// ctx.plugin::<Import>().unwrap();
/// let heard = Arc::new(Mutex::new(Vec::new()));
/// let into = Arc::clone(&heard);
/// let exec = Exec::new().with_log(move |message| into.lock().unwrap().push(message));
/// ctx.tools.call("import", &exec, r#"{"rows": 3}"#).wait();
/// let heard = heard.lock().unwrap();
/// assert_eq!(heard[0].level, LogLevel::Info);
/// assert_eq!(heard[0].data, "importing 3 rows");
/// assert_eq!(heard[1].data["skipped"], 1);
/// ```
#[derive(Clone, Default)]
pub struct Logger(Option<Arc<Heard>>);

struct Heard {
    sink: LogSink,
    tool: String,
    call_id: Option<String>,
}

impl Logger {
    /// The messages of a call of `tool`, heard by `sink` if there is one.
    pub(crate) fn new(sink: Option<&LogSink>, tool: &str, call_id: Option<&str>) -> Self {
        Logger(sink.map(|sink| {
            Arc::new(Heard {
                sink: Arc::clone(sink),
                tool: tool.to_owned(),
                call_id: call_id.map(str::to_owned),
            })
        }))
    }

    /// Logs `data` (text, or any JSON value) at `level`.
    pub fn log(&self, level: LogLevel, data: impl Into<serde_json::Value>) {
        if let Some(heard) = &self.0 {
            (heard.sink)(LogMessage {
                tool: heard.tool.clone(),
                call_id: heard.call_id.clone(),
                level,
                data: data.into(),
            });
        }
    }

    /// Logs `data` at [`LogLevel::Debug`].
    pub fn debug(&self, data: impl Into<serde_json::Value>) {
        self.log(LogLevel::Debug, data);
    }

    /// Logs `data` at [`LogLevel::Info`].
    pub fn info(&self, data: impl Into<serde_json::Value>) {
        self.log(LogLevel::Info, data);
    }

    /// Logs `data` at [`LogLevel::Warning`].
    pub fn warning(&self, data: impl Into<serde_json::Value>) {
        self.log(LogLevel::Warning, data);
    }

    /// Logs `data` at [`LogLevel::Error`].
    pub fn error(&self, data: impl Into<serde_json::Value>) {
        self.log(LogLevel::Error, data);
    }

    /// Whether anyone hears the messages: a tool can skip working out one no one reads.
    pub fn is_heard(&self) -> bool {
        self.0.is_some()
    }
}

impl fmt::Debug for Logger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Logger")
            .field("tool", &self.0.as_ref().map(|heard| &heard.tool))
            .finish()
    }
}
