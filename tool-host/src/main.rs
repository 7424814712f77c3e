//! `toolhost`: the reference host for `#[tool]` plugins.
//!
//! - `toolhost schema [TOOL]` prints the normalized definitions as JSON.
//! - `toolhost call TOOL ARGS [--no-agent] [--session FILE]` runs one call in a fresh agent
//!   session, or in a persisted one, and prints the exact model-facing text.
//! - `toolhost replay FILE [--format text|json] [--events]` prints a session log's current todo
//!   list, or its events.
//! - `toolhost mcp [--session-dir DIR | --session FILE]` serves the tools over MCP on stdio.

use tool_host::mcp;

use std::fmt;
use std::io::{self, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use std::sync::Arc;

use tool_runtime::session::{Durability, JsonlLog, OpenMode, SessionDir};
use tool_runtime::{Agent, Ctx, Definition, Dialect, Exec, LoadError, Session, SessionError};

/// The reference host for `#[tool]` plugins.
#[derive(Parser, Debug)]
#[command(name = "toolhost", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the tools' definitions as JSON, in a provider's dialect.
    Schema {
        /// Print only this tool's definition, as one object; without it, an array of all.
        tool: Option<String>,
        /// The dialect: neutral (`{"name", "description", "input_schema"}`, the normalized
        /// schema), openai, openai-strict, openai-responses, anthropic, gemini or mcp.
        #[arg(long, default_value = "neutral", value_parser = parse_dialect)]
        dialect: Dialect,
    },
    /// Print the size of each tool's definition in each dialect: bytes of compact JSON, bytes of
    /// verbatim texts (descriptions) in it, the bytes of structure beyond them, and tokens
    /// (o200k_base) when built with `--features tokens`.
    Sizes,
    /// Run one tool call in a fresh agent session and print the model-facing text.
    ///
    /// Exit status: 0 when the call succeeded, 1 when the tool answered with an error, 3 when the
    /// session could not be opened.
    Call {
        /// The tool's name.
        tool: String,
        /// The call's arguments as JSON, or `-` to read them from standard input.
        args: String,
        /// Make the call with no owning agent session.
        #[arg(long, conflicts_with = "session")]
        no_agent: bool,
        /// Run the call in the session persisted in this JSON Lines file, created if absent.
        #[arg(long, value_name = "FILE")]
        session: Option<PathBuf>,
    },
    /// Type tool calls and watch the todo list change: a readline REPL on a session.
    Repl {
        /// Where the new session is kept. Default: as for `mcp`.
        #[arg(long, value_name = "DIR")]
        session_dir: Option<PathBuf>,
        /// Work on the session persisted in this file (created if absent).
        #[arg(long, value_name = "FILE", conflicts_with = "session_dir")]
        session: Option<PathBuf>,
    },
    /// Serve the tools over MCP on standard input and output.
    ///
    /// The connection is one agent session, persisted as a JSON Lines file: a new one in the
    /// session directory, or the one `--session` names. Messages go to standard error.
    Mcp {
        /// Where new sessions are kept. Default: `$XDG_STATE_HOME/toolhost/sessions`, or
        /// `~/.local/state/toolhost/sessions`.
        #[arg(long, value_name = "DIR")]
        session_dir: Option<PathBuf>,
        /// Resume the session persisted in this file (created if absent).
        #[arg(long, value_name = "FILE", conflicts_with = "session_dir")]
        session: Option<PathBuf>,
        /// The largest arguments of one call, in bytes; larger ones get an error result. At
        /// most 268435456 (256 MiB), the most one message on the connection may carry besides
        /// its 64 KiB envelope.
        #[arg(
            long,
            value_name = "BYTES",
            default_value_t = tool_runtime::DEFAULT_MAX_ARGS_BYTES,
            value_parser = clap::builder::RangedU64ValueParser::<usize>::new()
                .range(0..=mcp::MAX_ARGS_BYTES_CEILING as u64),
        )]
        max_args_bytes: usize,
    },
    /// Print the current todo list of a session log, or its events.
    ///
    /// A torn last line (an interrupted append) is reported on standard error and skipped; any
    /// other damage is an error (exit status 3).
    Replay {
        /// The session's JSON Lines file.
        file: PathBuf,
        /// `text`: the checklist; `json`: the `todos` array as the model sent it (`null` when the
        /// session has no list); `acp`: the ACP `session/update` notification of the list as a
        /// plan.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Print every event as JSON Lines instead.
        #[arg(long, conflicts_with = "format")]
        events: bool,
    },
}

/// How `replay` prints the list.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum Format {
    Text,
    Json,
    /// The ACP `session/update` notification showing the list as the session's plan.
    Acp,
}

/// Loads the plugins this host serves.
fn load() -> Result<Ctx, LoadError> {
    let mut ctx = Ctx::new();
    ctx.plugin::<tool_todo::TodoWrite>()?;
    Ok(ctx)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let ctx = match load() {
        Ok(ctx) => Arc::new(ctx),
        Err(error) => {
            eprintln!("toolhost: {error}");
            return ExitCode::FAILURE;
        }
    };
    match run(&ctx, cli.command) {
        Ok(code) => code,
        // A reader that closed the pipe (`toolhost schema | head`) wanted no more.
        Err(Failure::Io(error)) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("toolhost: {error}");
            error.exit_code()
        }
    }
}

/// What stops a subcommand.
enum Failure {
    Io(io::Error),
    Mcp(String),
    Load(LoadError),
    Dialect(tool_runtime::DialectError),
    Session(SessionError),
    /// The latest todo list of a log cannot be read.
    List(tool_host::ListError),
    /// Input the command cannot take (exit status 2).
    Input(String),
}

impl Failure {
    /// 2 for input the command cannot take, 3 for a session that cannot be opened or read (and
    /// every other failure of the host).
    fn exit_code(&self) -> ExitCode {
        match self {
            Failure::Input(_) => ExitCode::from(2),
            _ => ExitCode::from(3),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Io(error) => error.fmt(f),
            Failure::Mcp(error) => error.fmt(f),
            Failure::Load(error) => error.fmt(f),
            Failure::Dialect(error) => error.fmt(f),
            Failure::Session(error) => error.fmt(f),
            Failure::List(error) => error.fmt(f),
            Failure::Input(message) => f.write_str(message),
        }
    }
}

impl From<io::Error> for Failure {
    fn from(error: io::Error) -> Self {
        Failure::Io(error)
    }
}

impl From<tool_runtime::DialectError> for Failure {
    fn from(error: tool_runtime::DialectError) -> Self {
        Failure::Dialect(error)
    }
}

impl From<LoadError> for Failure {
    fn from(error: LoadError) -> Self {
        Failure::Load(error)
    }
}

impl From<SessionError> for Failure {
    fn from(error: SessionError) -> Self {
        Failure::Session(error)
    }
}

impl From<serde_json::Error> for Failure {
    fn from(error: serde_json::Error) -> Self {
        Failure::Io(error.into())
    }
}

/// `toolhost mcp`: one connection on stdio, one persisted agent session.
fn serve_mcp(
    ctx: &Arc<Ctx>,
    session_dir: Option<PathBuf>,
    file: Option<PathBuf>,
) -> Result<ExitCode, Failure> {
    let (session, path) = open_or_create(session_dir, file, "mcp")?;
    eprintln!("toolhost mcp: session {}", path.display());
    let agent = Agent::new(session.id().to_owned(), session);
    let server = mcp::McpServer::new(Arc::clone(ctx), agent).map_err(Failure::Mcp)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime
        .block_on(server.serve_stdio())
        .map_err(Failure::Mcp)?;
    Ok(ExitCode::SUCCESS)
}

/// The session in `file`, or a new one (its id starting with `prefix`) in the session directory;
/// with the file's path.
fn open_or_create(
    session_dir: Option<PathBuf>,
    file: Option<PathBuf>,
    prefix: &str,
) -> Result<(Session, PathBuf), Failure> {
    match file {
        Some(path) => Ok((open_session(&path, OpenMode::Write)?, path)),
        None => {
            let dir = SessionDir::new(session_dir.unwrap_or_else(default_session_dir))?;
            let (id, log) = dir.create(prefix)?;
            let path = log.path().to_path_buf();
            Ok((Session::open(id, log)?, path))
        }
    }
}

/// `$XDG_STATE_HOME/toolhost/sessions`, else `~/.local/state/toolhost/sessions`, else
/// `./toolhost-sessions`.
fn default_session_dir() -> PathBuf {
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".local/state")));
    match state {
        Some(state) => state.join("toolhost/sessions"),
        None => PathBuf::from("toolhost-sessions"),
    }
}

/// Opens the session persisted at `path`, reporting a torn tail on standard error.
fn open_session(path: &Path, mode: OpenMode) -> Result<Session, SessionError> {
    let log = JsonlLog::open(path, mode, Durability::default())?;
    if let Some(torn) = log.torn_tail() {
        eprintln!("toolhost: warning: {torn}");
    }
    let id = path.file_stem().map_or_else(
        || "session".into(),
        |stem| stem.to_string_lossy().into_owned(),
    );
    Session::open(id, log)
}

fn run(ctx: &Arc<Ctx>, command: Command) -> Result<ExitCode, Failure> {
    if let Command::Mcp {
        session_dir,
        session,
        max_args_bytes,
    } = command
    {
        let mut ctx = load()?;
        ctx.tools.set_max_args_bytes(max_args_bytes);
        return serve_mcp(&Arc::new(ctx), session_dir, session);
    }
    if let Command::Repl {
        session_dir,
        session,
    } = command
    {
        let (session, path) = open_or_create(session_dir, session, "repl")?;
        let agent = Agent::new(session.id().to_owned(), session);
        let history = default_session_dir()
            .parent()
            .map(|state| state.join("repl-history"));
        tool_host::repl::run(ctx, &agent, &path, history.as_deref())?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut stdout = io::stdout().lock();
    match command {
        Command::Mcp { .. } | Command::Repl { .. } => unreachable!("run above"),
        Command::Schema {
            tool: None,
            dialect,
        } => {
            let all: serde_json::Value =
                serde_json::from_str(ctx.tools.definitions_json(dialect)?)?;
            writeln!(stdout, "{}", pretty(&all))?;
        }
        Command::Sizes => sizes(ctx, &mut stdout)?,
        Command::Schema {
            tool: Some(name),
            dialect,
        } => match ctx.tools.get(&name) {
            Some(tool) => writeln!(stdout, "{}", pretty(tool.definition().render(dialect)?))?,
            None => {
                let available: Vec<_> = ctx.tools.names().collect();
                eprintln!(
                    "toolhost: unknown tool `{name}`; available tools: {}",
                    available.join(", ")
                );
                return Ok(ExitCode::from(2));
            }
        },
        Command::Replay {
            file,
            format,
            events,
        } => {
            let session = open_session(&file, OpenMode::Read)?;
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
            } else {
                let current = || tool_host::current_todos(&session, &file).map_err(Failure::List);
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
                        None => eprintln!("toolhost: the session has no todo list"),
                    },
                    Format::Text => match current()? {
                        Some(todos) => {
                            let style = stdout_style();
                            write!(stdout, "{}", tool_todo::checklist(&todos, &style))?;
                        }
                        None => writeln!(stdout, "(no todo list)")?,
                    },
                }
            }
        }
        Command::Call {
            tool,
            args,
            no_agent,
            session,
        } => {
            let args = if args == "-" {
                read_args(io::stdin().lock(), ctx.tools.max_args_bytes())?
            } else {
                args
            };
            let exec = match (no_agent, session) {
                (true, _) => Exec::new(),
                (false, None) => Exec::for_agent(Agent::new("toolhost", Session::in_memory())),
                (false, Some(path)) => {
                    let session = open_session(&path, OpenMode::Write)?;
                    Exec::for_agent(Agent::new(session.id().to_owned(), session))
                }
            };
            let output = ctx.tools.call(&tool, &exec, &args).wait();
            // The call is done (and, when it succeeded, committed to the session): its outcome
            // is the exit status even if the text cannot be written, so a caller never retries a
            // committed call for want of its output.
            if let Err(error) = writeln!(stdout, "{}", output.text).and_then(|()| stdout.flush()) {
                eprintln!(
                    "toolhost: the call {}, but its output could not be written: {error}",
                    if output.is_error {
                        "answered an error"
                    } else {
                        "succeeded"
                    }
                );
            }
            return Ok(if output.is_error {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            });
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A call's arguments from `input`: at most `max` bytes of UTF-8, read with that bound, so a
/// larger input is refused without being read whole.
fn read_args(input: impl Read, max: usize) -> Result<String, Failure> {
    let mut bytes = Vec::new();
    input.take(max as u64 + 1).read_to_end(&mut bytes)?;
    if bytes.len() > max {
        return Err(Failure::Input(format!(
            "standard input holds more than the {max} bytes a call's arguments may have"
        )));
    }
    String::from_utf8(bytes).map_err(|error| {
        Failure::Input(format!(
            "the arguments on standard input are not UTF-8 (an invalid byte at offset {})",
            error.utf8_error().valid_up_to()
        ))
    })
}

/// The checklist style for standard output: colour and the terminal's width on a terminal only.
fn stdout_style() -> tool_todo::ChecklistStyle {
    let is_terminal = io::stdout().is_terminal();
    let width = terminal_size::terminal_size().map(|(terminal_size::Width(w), _)| usize::from(w));
    tool_todo::ChecklistStyle::for_output(is_terminal, width)
}

fn parse_dialect(name: &str) -> Result<Dialect, String> {
    name.parse()
}

/// The sizes table: see `Command::Sizes`.
fn sizes(ctx: &Ctx, out: &mut impl Write) -> Result<(), Failure> {
    writeln!(
        out,
        "{:<16} {:<17} {:>6} {:>6} {:>9} {:>6}",
        "tool", "dialect", "bytes", "texts", "structure", "tokens"
    )?;
    for definition in ctx.tools.definitions() {
        let texts = verbatim_bytes(definition);
        for dialect in Dialect::ALL {
            let json = match definition.json(dialect) {
                Ok(json) => json,
                Err(error) => {
                    writeln!(
                        out,
                        "{:<16} {:<17} {error}",
                        definition.name(),
                        dialect.name()
                    )?;
                    continue;
                }
            };
            writeln!(
                out,
                "{:<16} {:<17} {:>6} {:>6} {:>9} {:>6}",
                definition.name(),
                dialect.name(),
                json.len(),
                texts,
                json.len() - texts,
                tokens(json).map_or_else(|| "-".to_owned(), |n| n.to_string())
            )?;
        }
    }
    Ok(())
}

/// The bytes of the verbatim texts in a definition: its description and every description in
/// its schema, as they stand in the JSON.
fn verbatim_bytes(definition: &Definition) -> usize {
    fn in_schema(value: &serde_json::Value) -> usize {
        match value {
            serde_json::Value::Object(object) => object
                .iter()
                .map(|(key, value)| match (key.as_str(), value) {
                    ("description", serde_json::Value::String(text)) => json_len(text),
                    _ => in_schema(value),
                })
                .sum(),
            serde_json::Value::Array(items) => items.iter().map(in_schema).sum(),
            _ => 0,
        }
    }
    json_len(definition.description()) + in_schema(definition.input_schema())
}

/// The length of a string's JSON escape, without its quotes.
fn json_len(text: &str) -> usize {
    serde_json::to_string(text).map_or(0, |quoted| quoted.len() - 2)
}

#[cfg(feature = "tokens")]
fn tokens(text: &str) -> Option<usize> {
    Some(
        tiktoken_rs::o200k_base_singleton()
            .encode_with_special_tokens(text)
            .len(),
    )
}

#[cfg(not(feature = "tokens"))]
fn tokens(_: &str) -> Option<usize> {
    None
}

fn pretty(value: &serde_json::Value) -> String {
    serde_json::to_string_pretty(value).expect("a JSON value serializes")
}
