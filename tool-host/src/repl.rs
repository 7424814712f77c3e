//! `toolhost repl`: a person types tool calls and watches the checklist change.
//!
//! A line is a tool call, `NAME {json arguments}` (the JSON may run over several lines), or a
//! command: `tools`, `schema NAME`, `list`, `help`, `quit`. After a call the REPL prints the exact
//! model-facing text, then redraws the checklist from the session's event stream — what any UI
//! subscribed to the session would see — not from the call's return value. Ctrl-C drops the
//! input being typed; Ctrl-D (or `quit`) leaves.

use std::io::{self, IsTerminal, Write};
use std::path::Path;

use rustyline::DefaultEditor;
use rustyline::error::ReadlineError;
use tool_runtime::{Agent, Ctx, Exec, Subscription};
use tool_todo::{ChecklistStyle, checklist, neutralize};

const HELP: &str = "\
Type a tool call as `NAME {json arguments}`; the JSON may span several lines.
Commands:
  tools         the loaded tools
  schema NAME   a tool's definition
  list          the session's current todo list
  help          this text
  quit          leave (or Ctrl-D); Ctrl-C drops the input being typed";

/// Runs the REPL on the terminal until the person leaves. `session_path` is named in the
/// greeting; `history` keeps the lines typed, if given.
pub fn run(
    ctx: &Ctx,
    agent: &Agent,
    session_path: &Path,
    history: Option<&Path>,
) -> io::Result<()> {
    let mut editor = DefaultEditor::new().map_err(io::Error::other)?;
    if let Some(history) = history {
        // A missing history file is a first run, not an error.
        let _ = editor.load_history(history);
    }
    let mut events = agent.session().subscribe();
    let mut out = io::stdout();
    writeln!(out, "toolhost repl: session {}", session_path.display())?;
    writeln!(
        out,
        "Type `help` for commands, or a tool call such as `todo_write {{\"todos\": []}}`."
    )?;
    if let Some(todos) =
        crate::current_todos(agent.session(), session_path).map_err(io::Error::other)?
    {
        write!(out, "{}", checklist(&todos, &style()))?;
    }
    let mut pending = String::new();
    loop {
        let prompt = if pending.is_empty() {
            "toolhost> "
        } else {
            "...> "
        };
        match editor.readline(prompt) {
            Ok(line) => {
                pending.push_str(&line);
                pending.push('\n');
                if !is_complete(&pending) {
                    continue;
                }
                let input = std::mem::take(&mut pending);
                let input = input.trim();
                if input.is_empty() {
                    continue;
                }
                let _ = editor.add_history_entry(input);
                if !handle_line(ctx, agent, &mut events, input, &mut out)? {
                    break;
                }
            }
            Err(ReadlineError::Interrupted) => {
                if pending.is_empty() {
                    writeln!(out, "(Ctrl-D or `quit` leaves)")?;
                } else {
                    pending.clear();
                    writeln!(out, "(input dropped)")?;
                }
            }
            Err(ReadlineError::Eof) => break,
            Err(error) => return Err(io::Error::other(error)),
        }
    }
    if let Some(history) = history {
        if let Some(parent) = history.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        // rustyline writes the history with `File::create`, which follows a link: one planted
        // where the history goes would have its target overwritten.
        match std::fs::symlink_metadata(history) {
            Ok(metadata) if !metadata.is_file() => eprintln!(
                "toolhost: the REPL history {} is not a regular file; it was not written",
                history.display()
            ),
            _ => {
                let _ = editor.save_history(history);
            }
        }
    }
    Ok(())
}

/// Runs one whole input (a command or a call) and writes what the REPL shows for it to `out`;
/// `false` means leave. What it writes carries no control character from model output.
pub fn handle_line(
    ctx: &Ctx,
    agent: &Agent,
    events: &mut Subscription,
    input: &str,
    out: &mut impl Write,
) -> io::Result<bool> {
    let (word, rest) = match input.split_once(char::is_whitespace) {
        Some((word, rest)) => (word, rest.trim()),
        None => (input, ""),
    };
    match word {
        "quit" | "exit" => return Ok(false),
        "help" => writeln!(out, "{HELP}")?,
        "tools" => {
            for definition in ctx.tools.definitions() {
                let summary = definition.description().lines().next().unwrap_or("");
                let summary: String = summary.chars().take(72).collect();
                writeln!(out, "{}  {}", definition.name(), neutralize(&summary))?;
            }
        }
        "schema" => match ctx.tools.get(rest) {
            Some(tool) => {
                let json = serde_json::to_string_pretty(&tool.definition().to_json())
                    .map_err(io::Error::other)?;
                writeln!(out, "{}", neutralize(&json))?;
            }
            None => writeln!(
                out,
                "no tool named {:?}; `tools` lists them",
                neutralize(rest)
            )?,
        },
        "list" => match tool_todo::current(agent.session()).map_err(io::Error::other)? {
            Some(todos) => write!(out, "{}", checklist(&todos, &style()))?,
            None => writeln!(out, "(no todo list yet)")?,
        },
        name => {
            let args = if rest.is_empty() { "{}" } else { rest };
            let exec = Exec::for_agent(agent.clone());
            let output = ctx.tools.call(name, &exec, args).wait();
            // The model-facing text as it is, but for what could drive the terminal.
            writeln!(out, "{}", neutralize(&output.text))?;
            redraw(events, out)?;
        }
    }
    Ok(true)
}

/// Draws the checklist for every `todo/write` event that arrived since the last call.
fn redraw(events: &mut Subscription, out: &mut impl Write) -> io::Result<()> {
    while let Some(event) = events.try_next().map_err(io::Error::other)? {
        if let Some(todos) = tool_todo::todos_of(&event) {
            let todos = todos.map_err(io::Error::other)?;
            write!(out, "{}", checklist(&todos, &style()))?;
        }
    }
    Ok(())
}

fn style() -> ChecklistStyle {
    let width = terminal_size::terminal_size().map(|(terminal_size::Width(w), _)| usize::from(w));
    ChecklistStyle::for_output(io::stdout().is_terminal(), width)
}

/// Whether the input so far is a whole entry: a command, or a call whose JSON has closed every
/// bracket it opened (outside strings).
pub fn is_complete(input: &str) -> bool {
    let rest = input.trim_start();
    let json = match rest.split_once(char::is_whitespace) {
        Some((_, json)) => json.trim_start(),
        None => return true,
    };
    if !json.starts_with(['{', '[']) {
        return true;
    }
    let (mut depth, mut in_string, mut escaped) = (0i64, false, false);
    for c in json.chars() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => depth += 1,
            '}' | ']' => depth -= 1,
            _ => {}
        }
    }
    depth <= 0
}

#[cfg(test)]
mod tests {
    use super::is_complete as complete;

    #[test]
    fn a_call_is_complete_when_its_brackets_close() {
        assert!(complete("tools\n"));
        assert!(complete("todo_write {\"todos\": []}\n"));
        assert!(!complete("todo_write {\"todos\": [\n"));
        assert!(!complete(
            "todo_write {\"todos\": [{\"content\": \"a } ] \\\" {\"\n"
        ));
        assert!(complete(
            "todo_write {\"todos\": [{\"content\": \"a } ] \\\" {\"}]}\n"
        ));
        assert!(complete("todo_write not json\n"));
    }
}
