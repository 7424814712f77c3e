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
    name: &str,
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
        load_history(name, &mut editor, history);
    }
    // A person at a terminal types through the line editor; a pipe is read a bounded line at a
    // time.
    let mut piped = (!io::stdin().is_terminal()).then(|| io::BufReader::new(io::stdin()));
    let mut events = agent.session().subscribe();
    let mut out = io::stdout();
    writeln!(
        out,
        "{} repl: session {}",
        neutralize(name),
        neutralize(&session_path.display().to_string())
    )?;
    // An example call of a tool this host has.
    let example = match ctx.tools.names().next() {
        _ if ctx.tools.get("todo_write").is_some() => Some("todo_write {\"todos\": []}".to_owned()),
        Some(first) => Some(format!("{first} {{}}")),
        None => None,
    };
    match example {
        Some(example) => writeln!(
            out,
            "Type `help` for commands, or a tool call such as `{example}`."
        )?,
        None => writeln!(out, "Type `help` for commands.")?,
    }
    if let Some(todos) =
        tool_todo::current_in(agent.session(), session_path).map_err(io::Error::other)?
    {
        write!(out, "{}", checklist(&todos, &style()))?;
    }
    // A call may be as long as the arguments the registry takes, and its name.
    let max_entry = ctx.tools.max_args_bytes().saturating_add(MAX_NAME_BYTES);
    let mut entry = Entry::default();
    loop {
        let prompt = match entry.open() {
            None => format!("{}> ", neutralize(name)),
            Some(open) => format!("{open} ...> "),
        };
        let read = match &mut piped {
            Some(reader) => read_bounded_line(reader, max_entry),
            None => editor.readline(&prompt).map_err(Read::from),
        };
        match read {
            Ok(line) => {
                if !entry.is_empty() && line.trim().is_empty() {
                    entry.clear();
                    writeln!(
                        out,
                        "(call dropped: an empty line ends a call not yet closed)"
                    )?;
                    continue;
                }
                if entry.len().saturating_add(line.len()) >= max_entry {
                    entry.clear();
                    writeln!(
                        out,
                        "(call dropped: it is longer than the {max_entry} bytes a call may have)"
                    )?;
                    continue;
                }
                let first = entry.is_empty();
                entry.push_line(&line);
                if let Some(open) = entry.open() {
                    if first {
                        writeln!(
                            out,
                            "(the call goes on until `{open}` close; an empty line drops it)"
                        )?;
                    }
                    continue;
                }
                let input = entry.take();
                let input = input.trim();
                if input.is_empty() {
                    continue;
                }
                let _ = editor.add_history_entry(tool_runtime::text::neutralize_layout(input));
                if !handle_line(ctx, agent, &mut events, input, &mut out)? {
                    break;
                }
            }
            Err(Read::TooLong(len)) => {
                entry.clear();
                writeln!(
                    out,
                    "(call dropped: a line of {len} bytes is longer than the {max_entry} bytes a \
                     call may have)"
                )?;
            }
            Err(Read::NotUtf8) => {
                entry.clear();
                writeln!(out, "(call dropped: a line that is not UTF-8)")?;
            }
            Err(Read::Line(ReadlineError::Interrupted)) => {
                if entry.is_empty() {
                    writeln!(out, "(Ctrl-D or `quit` leaves)")?;
                } else {
                    entry.clear();
                    writeln!(out, "(input dropped)")?;
                }
            }
            Err(Read::Line(ReadlineError::Eof)) if !entry.is_empty() => {
                entry.clear();
                writeln!(out, "(call dropped: its brackets never closed)")?;
            }
            Err(Read::Line(ReadlineError::Eof)) => break,
            Err(Read::Line(error)) => return Err(io::Error::other(error)),
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
                "{name}: the REPL history {} is not a regular file; it was not written",
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
                "no tool named {}; `tools` lists them",
                neutralize(&tool_runtime::text::quote(rest))
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
            // The model-facing text as it is, its lines and tabs as layout, but for what could
            // drive the terminal.
            writeln!(
                out,
                "{}",
                tool_runtime::text::neutralize_layout(&output.text)
            )?;
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
    let mut scan = Scan::default();
    scan.feed(input);
    scan.open().map(str::to_owned)
}

/// The longest tool name a call may start with, beyond its arguments, in bytes.
const MAX_NAME_BYTES: usize = 64 * 1024;

/// An entry being typed, a line at a time: its text, and its brackets as scanned so far, so a
/// call of many lines is read once, never again from its start at each line.
#[derive(Debug, Default)]
pub struct Entry {
    text: String,
    scan: Scan,
}

impl Entry {
    /// Adds a line (without its newline).
    pub fn push_line(&mut self, line: &str) {
        self.scan.feed(line);
        self.scan.feed("\n");
        self.text.push_str(line);
        self.text.push('\n');
    }

    /// The brackets opened and not closed yet, in order; `None` when the entry is whole.
    pub fn open(&self) -> Option<&str> {
        self.scan.open()
    }

    /// The entry's length in bytes.
    pub fn len(&self) -> usize {
        self.text.len()
    }

    /// Whether nothing is typed yet.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// How many bytes have been scanned for brackets, in all: the entry's length, however many
    /// lines it came in.
    pub fn scanned(&self) -> usize {
        self.scan.scanned
    }

    /// The entry's text, leaving it empty.
    pub fn take(&mut self) -> String {
        self.scan = Scan::default();
        std::mem::take(&mut self.text)
    }

    /// Drops what was typed.
    pub fn clear(&mut self) {
        self.take();
    }
}

/// Where the scan of an entry is: before its name, in it, between it and its JSON, in the JSON,
/// or done (the entry is whole: no JSON, or a bracket closed out of turn).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
enum Phase {
    #[default]
    Lead,
    Name,
    Gap,
    Json,
    Done,
}

/// The bracket scan of an entry, fed a piece at a time.
#[derive(Clone, Debug, Default)]
struct Scan {
    phase: Phase,
    open: String,
    in_string: bool,
    escaped: bool,
    scanned: usize,
}

impl Scan {
    fn feed(&mut self, text: &str) {
        self.scanned += text.len();
        for c in text.chars() {
            match self.phase {
                Phase::Done => return,
                Phase::Lead if c.is_whitespace() => {}
                Phase::Lead | Phase::Name | Phase::Gap if c == '{' || c == '[' => {
                    self.phase = Phase::Json;
                    self.json(c);
                }
                Phase::Lead => self.phase = Phase::Name,
                Phase::Name if c.is_whitespace() => self.phase = Phase::Gap,
                Phase::Name => {}
                Phase::Gap if c.is_whitespace() => {}
                Phase::Gap => self.phase = Phase::Done,
                Phase::Json => self.json(c),
            }
        }
    }

    fn json(&mut self, c: char) {
        if self.in_string {
            match (self.escaped, c) {
                (true, _) => self.escaped = false,
                (false, '\\') => self.escaped = true,
                (false, '"') => self.in_string = false,
                _ => {}
            }
            return;
        }
        match c {
            '"' => self.in_string = true,
            '{' | '[' => self.open.push(c),
            '}' | ']' => {
                let opener = if c == '}' { '{' } else { '[' };
                if self.open.pop() != Some(opener) {
                    self.open.clear();
                    self.phase = Phase::Done;
                }
            }
            _ => {}
        }
    }

    fn open(&self) -> Option<&str> {
        (self.phase == Phase::Json && !self.open.is_empty()).then_some(self.open.as_str())
    }
}

/// What reading a line gave instead of one.
enum Read {
    /// The line editor's end, interruption or failure.
    Line(ReadlineError),
    /// A piped line longer than the bound, of this many bytes (read and dropped).
    TooLong(usize),
    /// A piped line that is not UTF-8.
    NotUtf8,
}

impl From<ReadlineError> for Read {
    fn from(error: ReadlineError) -> Self {
        Read::Line(error)
    }
}

/// The next line of `reader`, without its line ending, holding at most `max` bytes of it: the
/// rest of a longer line is read and dropped, and said.
fn read_bounded_line(reader: &mut impl io::BufRead, max: usize) -> Result<String, Read> {
    let mut line = Vec::new();
    let mut len = 0usize;
    loop {
        let available = reader
            .fill_buf()
            .map_err(|error| Read::Line(ReadlineError::Io(error)))?;
        if available.is_empty() {
            if len == 0 {
                return Err(Read::Line(ReadlineError::Eof));
            }
            break;
        }
        let newline = available.iter().position(|&b| b == b'\n');
        let body = &available[..newline.unwrap_or(available.len())];
        if len.saturating_add(body.len()) <= max {
            line.extend_from_slice(body);
        } else {
            line = Vec::new();
        }
        len = len.saturating_add(body.len());
        let consumed = newline.map_or(available.len(), |at| at + 1);
        reader.consume(consumed);
        if newline.is_some() {
            break;
        }
    }
    if len > max {
        return Err(Read::TooLong(len));
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    String::from_utf8(line).map_err(|_| Read::NotUtf8)
}

/// The largest history file read, in bytes: past it, only its last entries are kept.
const MAX_HISTORY_BYTES: u64 = 1 << 20;

/// Loads the history at `path` into `editor`: a regular file only (a FIFO, a device or a link is
/// refused, said on standard error, never waited on), its last [`MAX_HISTORY_BYTES`] at most,
/// each entry neutralized, since the line editor draws an entry recalled as it is.
fn load_history(name: &str, editor: &mut Editor<ReplHelper, DefaultHistory>, path: &Path) {
    use std::io::{Read as _, Seek as _};
    use std::os::unix::fs::OpenOptionsExt;

    let file = std::fs::OpenOptions::new()
        .read(true)
        // Neither follows a link nor waits for a FIFO's writer.
        .custom_flags(libc_flags())
        .open(path);
    let mut file = match file {
        Ok(file) => file,
        // A missing history file is a first run, not an error.
        Err(error) if error.kind() == io::ErrorKind::NotFound => return,
        Err(error) => {
            crate::note!(
                "{name}: the REPL history {} cannot be read ({error}); it was not loaded",
                path.display()
            );
            return;
        }
    };
    let len = match file.metadata() {
        Ok(metadata) if metadata.is_file() => metadata.len(),
        _ => {
            crate::note!(
                "{name}: the REPL history {} is not a regular file; it was not loaded",
                path.display()
            );
            return;
        }
    };
    let skip = len.saturating_sub(MAX_HISTORY_BYTES);
    let mut bytes = Vec::new();
    if file.seek(io::SeekFrom::Start(skip)).is_err()
        || file
            .take(MAX_HISTORY_BYTES)
            .read_to_end(&mut bytes)
            .is_err()
    {
        return;
    }
    let text = String::from_utf8_lossy(&bytes);
    let mut lines = text.lines();
    if skip > 0 {
        // Begun mid-entry: the first line is a part.
        lines.next();
    }
    for line in lines.filter(|line| *line != "#V2") {
        let entry = unescape_history(line);
        let _ = editor.add_history_entry(tool_runtime::text::neutralize_layout(&entry));
    }
}

/// An entry of rustyline's history file, whose format escapes a backslash and a newline.
fn unescape_history(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (c, chars.clone().next()) {
            ('\\', Some('n')) => {
                out.push('\n');
                chars.next();
            }
            ('\\', Some('\\')) => {
                out.push('\\');
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

/// `O_NOFOLLOW | O_NONBLOCK`.
fn libc_flags() -> i32 {
    libc::O_NOFOLLOW | libc::O_NONBLOCK
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
