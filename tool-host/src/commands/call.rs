//! `call`: one tool call from the command line.

use std::io::{self, IsTerminal, Read, Write};
use std::path::Path;
use std::process::ExitCode;

use tool_runtime::session::OpenMode;
use tool_runtime::{Agent, Ctx, Exec, Session};

use crate::HostError;

/// Runs `tool` with `args` (`-`: standard input) and prints the model-facing text.
pub(super) fn call(
    name: &str,
    ctx: &Ctx,
    store: &crate::store::Store,
    tool: &str,
    args: String,
    no_agent: bool,
    session: Option<&Path>,
) -> Result<ExitCode, HostError> {
    let mut stdout = io::stdout().lock();
    // An unknown tool is input the command cannot take, as for `schema`: exit status 2, with
    // the text a model would read, and no session opened for it.
    if ctx.tools.get(tool).is_none() {
        let output = ctx.tools.call(tool, &Exec::new(), "{}").wait();
        writeln!(stdout, "{}", output.text)?;
        return Ok(ExitCode::from(2));
    }
    let args = if args == "-" {
        read_args(io::stdin().lock(), ctx.tools.max_args_bytes())?
    } else {
        args
    };
    let exec = match (no_agent, session) {
        (true, _) => Exec::new(),
        (false, None) => Exec::for_agent(Agent::new(name, Session::in_memory())),
        (false, Some(path)) => {
            let session =
                super::open::open_session(name, store, &ctx.sessions, path, OpenMode::Write)?;
            Exec::for_agent(Agent::new(session.id().to_owned(), session))
        }
    };
    let output = ctx.tools.call(tool, &exec, &args).wait();
    // The call is done (and, when it succeeded, committed to the session): its outcome is the
    // exit status even if the text cannot be written, so a caller never retries a committed call
    // for want of its output.
    // Exact on a pipe; on a terminal, nothing the model could have sent may drive it.
    let text = if io::stdout().is_terminal() {
        tool_runtime::text::neutralize(&output.text)
    } else {
        output.text.as_str().into()
    };
    if let Err(error) = writeln!(stdout, "{text}").and_then(|()| stdout.flush()) {
        crate::note!(
            "{name}: the call {}, but its output could not be written: {error}",
            if output.is_error {
                "answered an error"
            } else {
                "succeeded"
            }
        );
    }
    Ok(if output.is_error {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// A call's arguments from `input`: at most `max` bytes of UTF-8, read with that bound, so a
/// larger input is refused without being read whole.
fn read_args(input: impl Read, max: usize) -> Result<String, HostError> {
    let mut bytes = Vec::new();
    input.take(max as u64 + 1).read_to_end(&mut bytes)?;
    if bytes.len() > max {
        return Err(HostError::Input(format!(
            "standard input holds more than the {max} bytes a call's arguments may have"
        )));
    }
    String::from_utf8(bytes).map_err(|error| {
        HostError::Input(format!(
            "the arguments on standard input are not UTF-8 (an invalid byte at offset {})",
            error.utf8_error().valid_up_to()
        ))
    })
}
