//! `replay`: a session log's current todo list, or its events.

use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use tool_runtime::SessionHub;
use tool_runtime::session::OpenMode;
use tool_wire::Usage;

use crate::HostError;
use crate::cli::Format;
use crate::store::Store;

/// What `replay` prints.
pub(super) enum View {
    /// Every event as JSON Lines, and with `follow` each one appended from then on.
    Events { follow: bool },
    /// The todo list in `format`: the current one, or as it stood after seq `at`.
    List { format: Format, at: Option<u64> },
    /// The tokens the session's model responses took, summed.
    Usage,
}

/// The kind of the event an agent loop records each model response's usage in (tool-agent's
/// `USAGE_EVENT`, which a host without the agent reads too).
const USAGE_EVENT: &str = "agent/usage";

/// The kind of the event an agent loop records each call's output in.
const RESULT_EVENT: &str = "agent/result";

/// `3 requests, 3021 tokens in (21 cached), 153 out (9 reasoning), 4 tool calls`.
pub(crate) fn usage_line(requests: u64, usage: &Usage, tool_calls: u64) -> String {
    format!(
        "{requests} request{}, {} tokens in ({} cached), {} out ({} reasoning), {tool_calls} tool \
         call{}",
        if requests == 1 { "" } else { "s" },
        usage.input,
        usage.cached,
        usage.output,
        usage.reasoning,
        if tool_calls == 1 { "" } else { "s" },
    )
}

/// Whose eyes a replay is made with (`--owner`).
pub(super) struct AsOwner {
    pub(super) subject: String,
    pub(super) issuer: Option<String>,
}

/// Prints the session at `file` (its id, on a database store) as `view` says; with `owner`,
/// only a session that owner began, another answered as one that does not exist.
pub(super) fn replay(
    name: &str,
    store: &Store,
    hub: &SessionHub,
    file: &Path,
    view: View,
    owner: Option<&AsOwner>,
) -> Result<ExitCode, HostError> {
    let session = super::open::open_session(name, store, hub, file, OpenMode::Read)?;
    if let Some(owner) = owner {
        let theirs = session
            .latest(crate::OWNER_EVENT)
            .and_then(|event| event.data::<crate::Owner>().ok())
            .is_some_and(|recorded| recorded.is(&owner.subject, owner.issuer.as_deref()));
        if !theirs {
            return Err(not_found(store, file));
        }
    }
    let mut stdout = io::stdout().lock();
    let (format, at) = match view {
        View::Events { follow } => {
            // Subscribed before the log is read through: the log gives the events before the
            // subscription's first seq, streamed a chunk at a time, and the subscription the
            // ones after, with no gap and no repeat.
            let mut live = session.subscribe();
            let first_live = live.next_seq();
            let mut result = Ok(());
            session.for_each_from(1, &mut |event| {
                if result.is_ok() && event.seq < first_live {
                    result = write_event(&mut stdout, &event);
                }
            })?;
            result?;
            if !follow {
                return Ok(ExitCode::SUCCESS);
            }
            // A database's follower takes the appends in as it is told of them; a file is
            // polled below.
            #[cfg(feature = "postgres")]
            let _follower = match store {
                Store::Postgres(pg) => Some(pg.follow(vec![session.clone()])?),
                Store::Files => None,
            };
            loop {
                stdout.flush()?;
                std::thread::sleep(FOLLOW_POLL);
                if matches!(store, Store::Files) {
                    session.refresh()?;
                }
                // A followed log that cannot be read on (damaged rows) stops the follower.
                #[cfg(feature = "postgres")]
                if let Some(failure) = _follower.as_ref().and_then(|f| f.take_failure()) {
                    return Err(failure.into());
                }
                while let Some(event) = live.try_next()? {
                    write_event(&mut stdout, &event)?;
                }
            }
        }
        View::List { format, at } => (format, at),
        View::Usage => {
            let (mut requests, mut usage, mut calls) = (0, Usage::default(), 0);
            let mut unread = None;
            session.for_each_from(1, &mut |event| match event.kind.as_str() {
                USAGE_EVENT => match event.data::<Usage>() {
                    Ok(used) => {
                        requests += 1;
                        usage += used;
                    }
                    Err(error) => {
                        unread.get_or_insert(error);
                    }
                },
                RESULT_EVENT => calls += 1,
                _ => {}
            })?;
            if let Some(error) = unread {
                return Err(HostError::Input(format!(
                    "{}: a usage event cannot be read: {error}",
                    file.display()
                )));
            }
            writeln!(stdout, "{}", usage_line(requests, &usage, calls))?;
            return Ok(ExitCode::SUCCESS);
        }
    };
    let list = || match at {
        Some(seq) => tool_todo::at(&session, seq).map_err(HostError::from),
        None => tool_todo::current_in(&session, file).map_err(HostError::from),
    };
    match format {
        Format::Json => match at {
            None => {
                let todos = tool_todo::current_json(&session)?;
                writeln!(stdout, "{}", todos.as_deref().unwrap_or("null"))?;
            }
            Some(_) => writeln!(stdout, "{}", serde_json::to_string(&list()?)?)?,
        },
        Format::Acp => match list()? {
            Some(todos) => {
                let notification =
                    tool_todo::acp::plan_notification(session.id().to_owned(), &todos);
                let message = serde_json::json!({
                    "jsonrpc": "2.0",
                    "method": "session/update",
                    "params": notification,
                });
                writeln!(stdout, "{message}")?;
            }
            None => crate::note!("{name}: the session has no todo list"),
        },
        Format::Text => match list()? {
            Some(todos) => write!(stdout, "{}", tool_todo::checklist(&todos, &stdout_style()))?,
            None => writeln!(stdout, "(no todo list)")?,
        },
    }
    Ok(ExitCode::SUCCESS)
}

/// The error of a session that does not exist, word for word as opening it gives.
fn not_found(store: &Store, file: &Path) -> HostError {
    #[cfg(feature = "postgres")]
    if let Store::Postgres(pg) = store {
        return crate::store::missing(pg, &file.to_string_lossy()).into();
    }
    #[cfg(not(feature = "postgres"))]
    let Store::Files = store;
    tool_runtime::SessionError::Io {
        path: file.to_path_buf(),
        source: io::Error::from_raw_os_error(libc::ENOENT),
    }
    .into()
}

fn write_event(out: &mut impl Write, event: &tool_runtime::Event) -> io::Result<()> {
    serde_json::to_writer(&mut *out, event).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

/// How often a follower looks for new events between notifications.
const FOLLOW_POLL: std::time::Duration = std::time::Duration::from_millis(50);

/// The checklist style for standard output: colour and the terminal's width on a terminal only.
fn stdout_style() -> tool_todo::ChecklistStyle {
    let is_terminal = io::stdout().is_terminal();
    let width = terminal_size::terminal_size().map(|(terminal_size::Width(w), _)| usize::from(w));
    tool_todo::ChecklistStyle::for_output(is_terminal, width)
}
