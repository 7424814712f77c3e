//! `toolhost repl`: a person types tool calls and watches the checklist change.
//!
//! A line is a tool call, `NAME {json arguments}` (the JSON may run over several lines; the
//! prompt then shows the brackets still open, and an empty line drops the call), or a command:
//! `tools`, `schema NAME`, `list`, `help`, `quit`. After a call the REPL prints the exact
//! model-facing text, then redraws the checklist from the session's event stream — what any UI
//! subscribed to the session would see — not from the call's return value. Tab completes
//! commands and tool names; the lines typed are kept across runs. Ctrl-C drops the input being
//! typed; Ctrl-D drops a call being continued, and at the prompt leaves, as `quit` does.

use std::borrow::Cow;
use std::io::{self, IsTerminal, Write};
use std::path::Path;

use rustyline::completion::Completer;
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};
use tool_runtime::{Agent, Ctx, Exec, Subscription};
use tool_todo::{ChecklistStyle, checklist, neutralize};

/// The commands, as `help` lists them and Tab completes them.
const COMMANDS: [&str; 6] = ["tools", "schema", "list", "help", "quit", "exit"];

const HELP: &str = "\
Type a tool call as `NAME {json arguments}`; the JSON may span several lines (an empty line
drops a call whose brackets are still open). Tab completes commands and tool names.
Commands:
  tools         the loaded tools
  schema NAME   a tool's definition
  list          the session's current todo list
  help          this text
  quit, exit    leave (or Ctrl-D); Ctrl-C drops the input being typed";

/// The longest description summary `tools` shows, in characters.
const SUMMARY_CHARS: usize = 72;

/// Runs the REPL on the terminal until the person leaves. `session_path` is named in the
/// greeting; `history` keeps the lines typed, if given.
pub fn run(
    ctx: &Ctx,
    agent: &Agent,
    session_path: &Path,
    history: Option<&Path>,
) -> io::Result<()> {
    let mut editor: Editor<ReplHelper, DefaultHistory> = Editor::new().map_err(io::Error::other)?;
    editor.set_helper(Some(ReplHelper {
        words: COMMANDS
            .iter()
            .map(|command| (*command).to_owned())
            .chain(ctx.tools.names().map(str::to_owned))
            .collect(),
        tools: ctx.tools.names().map(str::to_owned).collect(),
    }));
    if let Some(history) = history {
        // A missing history file is a first run, not an error.
        let _ = editor.load_history(history);
    }
    let mut events = agent.session().subscribe();
    let mut out = io::stdout();
    writeln!(
        out,
        "toolhost repl: session {}",
        neutralize(&session_path.display().to_string())
    )?;
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
        let prompt = match open_brackets(&pending) {
            None => "toolhost> ".to_owned(),
            Some(open) => format!("{open} ...> "),
        };
        match editor.readline(&prompt) {
            Ok(line) => {
                if !pending.is_empty() && line.trim().is_empty() {
                    pending.clear();
                    writeln!(
                        out,
                        "(call dropped: an empty line ends a call not yet closed)"
                    )?;
                    continue;
                }
                pending.push_str(&line);
                pending.push('\n');
                if let Some(open) = open_brackets(&pending) {
                    if pending.len() == line.len() + 1 {
                        writeln!(
                            out,
                            "(the call goes on until `{open}` close; an empty line drops it)"
                        )?;
                    }
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
            Err(ReadlineError::Eof) if !pending.is_empty() => {
                pending.clear();
                writeln!(out, "(call dropped: its brackets never closed)")?;
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
            Ok(metadata) if !metadata.is_file() => crate::note!(
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
    // The name ends at a space or where the JSON starts: `todo_write{…}` is a call too.
    let (word, rest) = match input.find(|c: char| c.is_whitespace() || c == '{' || c == '[') {
        Some(at) => (&input[..at], input[at..].trim()),
        None => (input, ""),
    };
    match word {
        "quit" | "exit" => return Ok(false),
        "help" => writeln!(out, "{HELP}")?,
        "tools" => {
            for definition in ctx.tools.definitions() {
                let summary = definition.description().lines().next().unwrap_or("");
                writeln!(
                    out,
                    "{}  {}",
                    definition.name(),
                    neutralize(&summarize(summary, SUMMARY_CHARS))
                )?;
            }
        }
        "schema" if rest.is_empty() => writeln!(
            out,
            "usage: schema NAME, with NAME one of: {}",
            ctx.tools.names().collect::<Vec<_>>().join(", ")
        )?,
        "schema" => match ctx.tools.get(rest) {
            Some(tool) => {
                let json = serde_json::to_string_pretty(&tool.definition().to_json())
                    .map_err(io::Error::other)?;
                // Line by line: the JSON's own line breaks stay, what a string holds is escaped.
                for line in json.lines() {
                    writeln!(out, "{}", neutralize(line))?;
                }
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
        name if ctx.tools.get(name).is_none() => writeln!(
            out,
            "unknown command or tool {}; `help` lists the commands, `tools` the tools",
            neutralize(&tool_runtime::text::quote(name))
        )?,
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

/// `text` cut to at most `max` characters at a word boundary, with `…` where it was cut.
fn summarize(text: &str, max: usize) -> Cow<'_, str> {
    let Some((limit, _)) = text.char_indices().nth(max) else {
        return Cow::Borrowed(text);
    };
    let cut = text[..limit].rfind(char::is_whitespace).unwrap_or(limit);
    Cow::Owned(format!("{}…", text[..cut].trim_end()))
}

/// Draws the checklist for every `todo/write` event that arrived since the last call.
pub(crate) fn redraw(events: &mut Subscription, out: &mut impl Write) -> io::Result<()> {
    while let Some(event) = events.try_next().map_err(io::Error::other)? {
        if let Some(todos) = tool_todo::todos_of(&event) {
            let todos = todos.map_err(io::Error::other)?;
            write!(out, "{}", checklist(&todos, &style()))?;
        }
    }
    Ok(())
}

pub(crate) fn style() -> ChecklistStyle {
    let width = terminal_size::terminal_size().map(|(terminal_size::Width(w), _)| usize::from(w));
    ChecklistStyle::for_output(io::stdout().is_terminal(), width)
}

/// Whether the input so far is a whole entry: a command, or a call whose JSON has closed every
/// bracket it opened (outside strings).
pub fn is_complete(input: &str) -> bool {
    open_brackets(input).is_none()
}

/// The brackets a call's JSON has opened and not closed yet (outside strings), in the order they
/// were opened; `None` when the input is a whole entry. A bracket closed out of turn ends the
/// entry: the JSON parser then says what is wrong.
pub fn open_brackets(input: &str) -> Option<String> {
    let rest = input.trim_start();
    let at = rest.find(|c: char| c.is_whitespace() || c == '{' || c == '[')?;
    let json = rest[at..].trim_start();
    if !json.starts_with(['{', '[']) {
        return None;
    }
    let mut open = String::new();
    let (mut in_string, mut escaped) = (false, false);
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
            '{' | '[' => open.push(c),
            '}' | ']' => {
                let opener = if c == '}' { '{' } else { '[' };
                if open.pop() != Some(opener) {
                    return None;
                }
            }
            _ => {}
        }
    }
    (!open.is_empty()).then_some(open)
}

/// Tab completion: the first word from the commands and tool names, the word after `schema`
/// from the tool names.
struct ReplHelper {
    words: Vec<String>,
    tools: Vec<String>,
}

impl Completer for ReplHelper {
    type Candidate = String;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        let before = &line[..pos];
        let (start, choices) = match before.strip_prefix("schema ") {
            Some(rest) if !rest.contains(char::is_whitespace) => ("schema ".len(), &self.tools),
            _ if !before.contains(char::is_whitespace) => (0, &self.words),
            _ => return Ok((pos, Vec::new())),
        };
        let typed = &before[start..];
        let matches = choices
            .iter()
            .filter(|word| word.starts_with(typed))
            .map(|word| format!("{word} "))
            .collect();
        Ok((start, matches))
    }
}

impl Hinter for ReplHelper {
    type Hint = String;
}

impl Highlighter for ReplHelper {}

impl Validator for ReplHelper {}

impl Helper for ReplHelper {}

#[cfg(test)]
mod tests {
    use super::{is_complete as complete, open_brackets, summarize};

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

    #[test]
    fn what_is_open_is_said_in_order() {
        assert_eq!(
            open_brackets("todo_write {\"todos\": [\n").as_deref(),
            Some("{[")
        );
        assert_eq!(
            open_brackets("todo_write{\"todos\": [{\n").as_deref(),
            Some("{[{")
        );
        // Closed out of turn: the entry ends, and the parser says what is wrong.
        assert_eq!(open_brackets("todo_write {\"todos\": [}\n"), None);
        assert_eq!(open_brackets("tools\n"), None);
    }

    #[test]
    fn summaries_are_cut_at_a_word() {
        assert_eq!(summarize("short", 72), "short");
        assert_eq!(summarize("one two three", 9), "one two…");
        assert_eq!(summarize("abcdefghij", 4), "abcd…");
    }
}
