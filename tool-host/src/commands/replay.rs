//! `replay`: a session log's current todo list, or its events.

use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use tool_runtime::SessionHub;
use tool_runtime::session::OpenMode;

use crate::HostError;
use crate::cli::Format;

/// Prints the list of the log at `file` in `format`, or every event with `events`.
pub(super) fn replay(
    name: &str,
    hub: &SessionHub,
    file: &Path,
    format: Format,
    events: bool,
) -> Result<ExitCode, HostError> {
    let session = super::open_session(name, hub, file, OpenMode::Read)?;
    let mut stdout = io::stdout().lock();
    if events {
        let mut result = Ok(());
        session.for_each_from(1, &mut |event| {
            if result.is_ok() {
                result = serde_json::to_writer(&mut stdout, &event)
                    .map_err(io::Error::from)
                    .and_then(|()| stdout.write_all(b"\n"));
            }
        })?;
        result?;
        return Ok(ExitCode::SUCCESS);
    }
    let current = || crate::current_todos(&session, file);
    match format {
        Format::Json => {
            let todos = tool_todo::current_json(&session)?;
            writeln!(stdout, "{}", todos.as_deref().unwrap_or("null"))?;
        }
        Format::Acp => match current()? {
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
        Format::Text => match current()? {
            Some(todos) => write!(stdout, "{}", tool_todo::checklist(&todos, &stdout_style()))?,
            None => writeln!(stdout, "(no todo list)")?,
        },
    }
    Ok(ExitCode::SUCCESS)
}

/// The checklist style for standard output: colour and the terminal's width on a terminal only.
fn stdout_style() -> tool_todo::ChecklistStyle {
    let is_terminal = io::stdout().is_terminal();
    let width = terminal_size::terminal_size().map(|(terminal_size::Width(w), _)| usize::from(w));
    tool_todo::ChecklistStyle::for_output(is_terminal, width)
}
