//! The command line: `toolhost <command>` and its options.

use std::path::PathBuf;

#[cfg(any(feature = "agent", feature = "http"))]
use clap::Args;
use clap::{Parser, Subcommand, ValueEnum};
use tool_runtime::Dialect;
#[cfg(feature = "agent")]
use tool_wire::Provider;

#[cfg(feature = "mcp")]
use crate::mcp;

/// A host for `#[tool]` plugins.
#[derive(Parser, Debug)]
#[command(version)]
pub(crate) struct Cli {
    /// Where sessions are kept: a `postgres://` URL, where `--session` then takes a session id
    /// (the lease, followers and durability are PostgreSQL's). Default: a JSON Lines file per
    /// session.
    #[arg(long, global = true, env = "TOOLHOST_STORE", value_name = "URL")]
    pub(crate) store: Option<String>,
    /// `plan`: only read-only tools run (and todo_write, the plan itself); any other call is
    /// answered that plan mode does not run it.
    #[arg(long, global = true, value_enum, default_value_t = Mode::Default)]
    pub(crate) mode: Mode,
    /// Export traces and metrics over OTLP/HTTP (protobuf bodies) to this base URL, as
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` does (which works too): `/v1/traces` and `/v1/metrics`
    /// under it. See the `tool_host::telemetry` docs for the spans and metrics.
    #[cfg(feature = "otel")]
    #[arg(long, global = true, value_name = "URL")]
    pub(crate) otlp_endpoint: Option<String>,
    /// Record each tool call's arguments and result in its span. Off by default: they may hold
    /// secrets.
    #[cfg(feature = "otel")]
    #[arg(
        long,
        global = true,
        env = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT",
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub(crate) otlp_content: bool,
    #[command(subcommand)]
    pub(crate) command: Command,
}

// Parsed once per process: the size of its largest variant (`mcp` with every HTTP option) costs
// nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand, Debug)]
pub(crate) enum Command {
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
    /// Exit status: 0 when the call succeeded, 1 when the tool answered with an error, 2 for a
    /// usage or input error (an unknown tool, standard input over the cap or not UTF-8), 3 when
    /// the session could not be opened. The status is the call's outcome even when the text
    /// cannot be written (a closed standard output): a call that succeeded was committed.
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
    /// Serve the tools over MCP on standard input and output, or over Streamable HTTP.
    ///
    /// On stdio the connection is one agent session, persisted as a JSON Lines file: a new one
    /// in the session directory, or the one `--session` names. With `--http`, each MCP session
    /// (protocol 2025-03-26 to 2025-11-25, `initialize`) is an agent session of its own id, and a
    /// stateless request (2026-07-28) names its session with the `Agent-Session` header or
    /// `_meta` `agentSession` (one that names none runs in a session begun for it, whose name
    /// the answer's `_meta` `agentSession` carries); on PostgreSQL any number of replicas serve
    /// one store.
    /// Messages go to standard error.
    #[cfg(feature = "mcp")]
    Mcp {
        #[cfg(feature = "http")]
        #[command(flatten)]
        http: HttpArgs,
        /// Where new sessions are kept. Default: `$XDG_STATE_HOME/<host>/sessions`, or
        /// `~/.local/state/<host>/sessions`, `<host>` being this program's name.
        #[arg(long, value_name = "DIR")]
        session_dir: Option<PathBuf>,
        /// Resume the session persisted in this file (created if absent). Not with `--http`.
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
        /// The largest result of one call (its text and images), in bytes; a larger one is
        /// dropped and the model reads an error that says so.
        #[arg(
            long,
            value_name = "BYTES",
            default_value_t = tool_runtime::DEFAULT_MAX_RESULT_BYTES
        )]
        max_result_bytes: usize,
        /// How long a call of an `async` or blocking tool may run when its tool declares no
        /// timeout (`30s`, `2m`); past it the call answers that it timed out. Default: no limit.
        #[arg(long, value_name = "DURATION", value_parser = parse_timeout)]
        tool_timeout: Option<std::time::Duration>,
    },
    /// Run an agent: a model on a provider's API calls the tools until it answers.
    ///
    /// With `--prompt`, that one prompt is answered and the model's final text printed on
    /// standard output (exit status 0); without it, an interactive chat that draws the checklist
    /// as the list changes. The conversation is kept in the session, so `--session FILE` goes on
    /// with an earlier one. Keys come from OPENAI_API_KEY (openai, openai-responses),
    /// ANTHROPIC_API_KEY, GEMINI_API_KEY. Exit status: 1 when the provider could not be reached
    /// or answered an error (after retries) or the model passed --max-turns, 2 for usage errors
    /// (a missing key), 3 when the session could not be opened or written.
    #[cfg(feature = "agent")]
    Agent(AgentArgs),
    /// Decide on the calls a paused agent run waits for: with no call named (and no `--all`),
    /// list them (each with its tool, its arguments and why it asks) and decide nothing. Named
    /// calls (or `--all` of the undecided ones) are approved, one with edited arguments, or
    /// denied with a reason the model reads; a call is decided once. `agent --session` then
    /// resumes the run.
    #[cfg(feature = "agent")]
    Approve {
        /// The session: its file, or its id on a database store.
        session: PathBuf,
        /// The calls' ids, as the pause printed them.
        calls: Vec<String>,
        /// Decide every call not decided yet.
        #[arg(long, conflicts_with = "calls")]
        all: bool,
        /// Deny them, with this reason.
        #[arg(long, value_name = "REASON", conflicts_with = "args")]
        deny: Option<String>,
        /// Approve the one call named with these arguments instead (a JSON object), checked
        /// against the tool's schema at once.
        #[arg(long, value_name = "JSON")]
        args: Option<String>,
    },
    /// Print the current todo list of a session log, or its events.
    ///
    /// A torn last line (an interrupted append) is reported on standard error and skipped; any
    /// other damage, or a file that is not a session log, is an error (exit status 3).
    Replay {
        /// The session's JSON Lines file.
        file: PathBuf,
        /// `text`: the checklist; `json`: the `todos` array as the session keeps it (compact
        /// JSON; `null` when the session has no list); `acp`: the ACP `session/update`
        /// notification of the list as a plan.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Print every event as JSON Lines instead, streamed from the file.
        #[arg(long, conflicts_with = "format")]
        events: bool,
        /// With `--events`: go on printing each event as another process appends it, until
        /// interrupted (a follower: live through PostgreSQL's notifications, or by polling a file).
        #[arg(long, requires = "events")]
        follow: bool,
        /// Print the tokens the session's model responses took instead (the provider's usage,
        /// summed), and its requests.
        #[arg(long, conflicts_with_all = ["events", "at", "format"])]
        usage: bool,
        /// The list as it stood after event SEQ (rewinding a conversation restores the plan
        /// with it).
        #[arg(long, value_name = "SEQ", conflicts_with = "events")]
        at: Option<u64>,
        /// Replay as this owner would see it: a session another owner began (over an HTTP
        /// endpoint that checks its callers) is refused as one that does not exist.
        #[arg(long, value_name = "SUBJECT")]
        owner: Option<String>,
        /// With `--owner`: the owner's issuer (`static` for a tokens file's).
        #[arg(long, value_name = "ISSUER", requires = "owner")]
        issuer: Option<String>,
    },
    /// The sessions of a database store (`--store postgres://…`): list them, import JSON Lines
    /// logs, export one as JSON Lines (the round trip is byte for byte).
    #[cfg(feature = "postgres")]
    Sessions {
        #[command(subcommand)]
        action: SessionsAction,
    },
}

/// What `toolhost sessions` does.
#[cfg(feature = "postgres")]
#[derive(Subcommand, Debug)]
pub(crate) enum SessionsAction {
    /// Every session: its id, its number of events, its last event's time.
    List {
        /// Only the sessions of this owner (the subject of the token that began them over an
        /// HTTP endpoint that checks its callers).
        #[arg(long, value_name = "SUBJECT")]
        owner: Option<String>,
        /// With `--owner`: only an owner of this issuer (`static` for a tokens file's).
        #[arg(long, value_name = "ISSUER", requires = "owner")]
        issuer: Option<String>,
    },
    /// Copy JSON Lines session logs into the store, each as the session its file is named for
    /// (`agent-1.jsonl` → `agent-1`), which must not exist there yet.
    Import {
        /// The logs.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Print a session as a JSON Lines log.
    Export {
        /// The session's id.
        id: String,
    },
}

/// What `toolhost agent` is asked.
#[cfg(feature = "agent")]
#[derive(Args, Debug)]
pub(crate) struct AgentArgs {
    /// The provider's API: openai (Chat Completions, and any OpenAI-compatible server),
    /// openai-responses, anthropic, gemini. Needed unless `--session` names a session whose
    /// run recorded it: a resumed run takes the options its session recorded (all but its
    /// secrets, which come from the environment again), each one given anew replacing its
    /// recorded value (any `--mcp…` option, all the recorded servers).
    #[arg(long, value_parser = parse_provider)]
    pub(crate) provider: Option<Provider>,
    /// The model, as the provider names it (needed as `--provider` is).
    #[arg(long)]
    pub(crate) model: Option<String>,
    /// The API's base URL. OpenAI's includes `/v1` (`http://localhost:11434/v1` for a local
    /// Ollama); Anthropic's and Gemini's are the host. Default: the provider's own.
    #[arg(long, value_name = "URL")]
    pub(crate) base_url: Option<String>,
    /// Where the new session is kept. Default: as for `mcp`.
    #[arg(long, value_name = "DIR")]
    pub(crate) session_dir: Option<PathBuf>,
    /// Go on with the conversation in this session file (created if absent).
    #[arg(long, value_name = "FILE", conflicts_with = "session_dir")]
    pub(crate) session: Option<PathBuf>,
    /// Answer this one prompt, print the model's final text and exit.
    #[arg(long, value_name = "TEXT")]
    pub(crate) prompt: Option<String>,
    /// Stream the model's responses (server-sent events): text shows as it is written.
    #[arg(long)]
    pub(crate) stream: bool,
    /// The most model turns for one prompt (at least 1).
    #[arg(long, value_name = "N", default_value_t = 50, value_parser = parse_turns)]
    pub(crate) max_turns: u32,
    /// Compact the conversation when it passes this many tokens (estimated as JSON bytes /
    /// 4): older turns are dropped, never a call without its result, and the todo list is
    /// restated. Default: never.
    #[arg(long, value_name = "TOKENS")]
    pub(crate) context_budget: Option<usize>,
    /// The most tokens one answer may have (Anthropic requires a limit).
    #[arg(long, value_name = "TOKENS", default_value_t = 8192)]
    pub(crate) max_tokens: u32,
    /// Retries of a request that was rate limited, failed on the provider's side, timed out or
    /// could not reach it.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub(crate) max_retries: u32,
    /// How long one request may take, from sending it to the last byte of the answer (a
    /// streamed one too).
    #[arg(long, value_name = "DURATION", default_value = "30m", value_parser = parse_timeout)]
    pub(crate) request_timeout: std::time::Duration,
    /// How long the provider may send nothing: before it starts answering, and between the
    /// bytes of its answer.
    #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = parse_timeout)]
    pub(crate) idle_timeout: std::time::Duration,
    /// How long one prompt may take in all: its requests, retries, waits and the tools' calls
    /// (with `--prompt`, the whole run). Default: no deadline.
    #[arg(long, value_name = "DURATION", value_parser = parse_timeout)]
    pub(crate) deadline: Option<std::time::Duration>,
    /// Stop the run before a request once the provider has reported this many input and
    /// output tokens for it (exit status 4; the session says where it stopped).
    #[arg(long, value_name = "TOKENS")]
    pub(crate) token_budget: Option<u64>,
    /// Stop the run before its request number N + 1 (exit status 4).
    #[arg(long, value_name = "N")]
    pub(crate) max_requests: Option<u64>,
    /// Stop the run before a turn whose calls would pass N tool calls in all; they are
    /// answered as not run (exit status 4).
    #[arg(long, value_name = "N")]
    pub(crate) max_tool_calls: Option<u64>,
    /// How deferred tools are searched: by the provider's own search where it has one
    /// (Anthropic's BM25 tool search, OpenAI Responses' tool_search) and this host's
    /// search_tools elsewhere, the same with Anthropic's regex search, or by search_tools on
    /// every provider.
    #[arg(
        long,
        value_name = "native|native-regex|framework",
        default_value = "native",
        value_parser = |text: &str| text.parse::<tool_agent::search::Mode>()
    )]
    pub(crate) tool_search: tool_agent::search::Mode,
    /// What becomes of a call that needs a person's decision (a tool that says so, or a
    /// destructive one): `ask` pauses the run until it is decided, in the chat or with
    /// `approve`; `auto` runs it; `never` answers it as not approved. `TOOL=RULE` sets one
    /// tool's rule, whatever it declares. Repeat for several.
    #[arg(long, value_name = "[TOOL=]ask|auto|never")]
    pub(crate) approve: Vec<String>,
    /// Show the model a head-and-tail preview of a result over TOKENS (estimated as bytes / 4)
    /// and keep the whole in the session, where the `read_result` tool reads it on;
    /// `TOOL=TOKENS` sets one tool's limit. Repeat for several.
    #[arg(long, value_name = "[TOOL=]TOKENS")]
    pub(crate) max_result_tokens: Vec<String>,
    /// The most calls of one model turn that run at once (their results keep the turn's
    /// order; an exclusive tool's call runs alone, a serial tool's never beside its own).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 4,
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256)
    )]
    pub(crate) max_parallel: usize,
    /// An MCP server whose tools the model may call too: a command (`'python3 server.py'`,
    /// speaking MCP on its standard input and output) or a Streamable HTTP URL. Repeat it for
    /// more servers; each `--mcp-…` option applies to the `--mcp` before it. A call's arguments
    /// are checked against the tool's schema here, before they are sent.
    #[cfg(feature = "toolsets")]
    #[arg(
        long = "mcp",
        value_name = "COMMAND|URL",
        help_heading = "Other MCP servers' tools"
    )]
    pub(crate) mcp: Vec<String>,
    /// The server's tools are offered with this prefix to their names.
    #[cfg(feature = "toolsets")]
    #[arg(long, value_name = "PREFIX", help_heading = "Other MCP servers' tools")]
    pub(crate) mcp_prefix: Vec<String>,
    /// Only these of the server's tools are offered (names as the server gives them,
    /// comma-separated).
    #[cfg(feature = "toolsets")]
    #[arg(long, value_name = "TOOLS", help_heading = "Other MCP servers' tools")]
    pub(crate) mcp_allow: Vec<String>,
    /// These of the server's tools are not offered (comma-separated).
    #[cfg(feature = "toolsets")]
    #[arg(long, value_name = "TOOLS", help_heading = "Other MCP servers' tools")]
    pub(crate) mcp_deny: Vec<String>,
    /// Whether the server's tools are deferred, kept from the model until a search of its
    /// finds them: `always`, `never`, or past a number of tools [default: 20].
    #[cfg(feature = "toolsets")]
    #[arg(
        long,
        value_name = "always|never|N",
        value_parser = |text: &str| text.parse::<crate::toolsets::Defer>(),
        help_heading = "Other MCP servers' tools"
    )]
    pub(crate) mcp_defer: Vec<crate::toolsets::Defer>,
    /// How long one call to the server may run [default: 2m].
    #[cfg(feature = "toolsets")]
    #[arg(long, value_name = "DURATION", value_parser = parse_timeout, help_heading = "Other MCP servers' tools")]
    pub(crate) mcp_timeout: Vec<std::time::Duration>,
    /// The HTTP server is sent `Authorization: Bearer` with the token this environment
    /// variable holds.
    #[cfg(feature = "toolsets")]
    #[arg(long, value_name = "VAR", help_heading = "Other MCP servers' tools")]
    pub(crate) mcp_bearer_env: Vec<String>,
    /// When the HTTP server asks for a token, authorize as an OAuth client: the authorization
    /// URL is printed on standard error for you to open, and a listener on a free loopback port
    /// takes your browser back (within 5 minutes). The client registers itself with the
    /// server's authorization server.
    #[cfg(feature = "toolsets")]
    #[arg(long, action = clap::ArgAction::Count, help_heading = "Other MCP servers' tools")]
    pub(crate) mcp_oauth: u8,
    /// When the HTTP server asks for a token, authorize as the OAuth client ID with the secret
    /// the environment variable VAR holds (the client credentials grant: no browser).
    #[cfg(feature = "toolsets")]
    #[arg(long, value_name = "ID=VAR", help_heading = "Other MCP servers' tools")]
    pub(crate) mcp_client_secret_env: Vec<String>,
    /// When the HTTP server asks for a token, authorize as the OAuth client ID with a JWT
    /// signed by the private key in FILE (PEM: P-256 or P-384, RSA, Ed25519; the client
    /// credentials grant with `private_key_jwt`: no browser).
    #[cfg(feature = "toolsets")]
    #[arg(
        long,
        value_name = "ID=FILE",
        help_heading = "Other MCP servers' tools"
    )]
    pub(crate) mcp_client_key: Vec<String>,
    /// When the HTTP server asks for a token, present the workload identity token (a JWT) in
    /// FILE, read again for each token, as the OAuth client ID (the JWT bearer grant: no
    /// browser).
    #[cfg(feature = "toolsets")]
    #[arg(
        long,
        value_name = "ID=FILE",
        help_heading = "Other MCP servers' tools"
    )]
    pub(crate) mcp_workload_token: Vec<String>,
    /// The server's tools whose schema cannot be enforced here are offered all the same,
    /// their arguments checked by the server alone (each is named on standard error).
    #[cfg(feature = "toolsets")]
    #[arg(long, action = clap::ArgAction::Count, help_heading = "Other MCP servers' tools")]
    pub(crate) mcp_unchecked: u8,
    /// The servers, each with its options (from the `--mcp…` options, in order).
    #[cfg(feature = "toolsets")]
    #[arg(skip)]
    pub(crate) servers: Vec<crate::toolsets::McpServer>,
    /// The options given on the command line, as a session records them ([`given_options`]).
    #[arg(skip)]
    pub(crate) given: Vec<Given>,
    /// How these options are read again from a session's record.
    #[arg(skip)]
    pub(crate) reparse: Option<Reparse>,
}

/// An option of `agent` as it was given: its id, its place on the command line, its words.
#[cfg(feature = "agent")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Given {
    pub(crate) id: String,
    pub(crate) at: usize,
    pub(crate) words: Vec<String>,
}

/// The options of one run that a session does not record: its prompt and its session.
#[cfg(feature = "agent")]
const NOT_RECORDED: &[&str] = &["prompt", "session", "session_dir"];

/// The options of `agent` (the subcommand `command`) given on the command line, in their order,
/// each as its words (`--name` and its value): all but a run's own ([`NOT_RECORDED`]).
#[cfg(feature = "agent")]
pub(crate) fn given_options(command: &clap::Command, matches: &clap::ArgMatches) -> Vec<Given> {
    let mut given = Vec::new();
    for arg in command.get_arguments() {
        let id = arg.get_id().as_str();
        let Some(long) = arg.get_long() else {
            continue;
        };
        if NOT_RECORDED.contains(&id)
            || matches.value_source(id) != Some(clap::parser::ValueSource::CommandLine)
        {
            continue;
        }
        let mut places = matches.indices_of(id).into_iter().flatten();
        if arg.get_action().takes_values() {
            let Ok(Some(occurrences)) = matches.try_get_raw_occurrences(id) else {
                continue;
            };
            for values in occurrences {
                // `--name=value`: a value that starts with `-` reads back as itself.
                let mut words = Vec::new();
                let mut at = usize::MAX;
                for value in values {
                    at = at.min(places.next().unwrap_or(usize::MAX));
                    words.push(format!("--{long}={}", value.to_string_lossy()));
                }
                given.push(Given {
                    id: id.to_owned(),
                    at,
                    words,
                });
            }
        } else {
            for at in places {
                given.push(Given {
                    id: id.to_owned(),
                    at,
                    words: vec![format!("--{long}")],
                });
            }
        }
    }
    given.sort_by_key(|option| option.at);
    given
}

/// The options `recorded` with those `given` now in their place: each option given replaces its
/// recorded occurrences, and any `--mcp…` option all the recorded ones (a server is described by
/// its options together). The words, in order.
#[cfg(feature = "agent")]
pub(crate) fn merged(recorded: &[Given], given: &[Given]) -> Vec<String> {
    let group = |id: &str| if id.starts_with("mcp") { "mcp" } else { id }.to_owned();
    let replaced: Vec<String> = given.iter().map(|option| group(&option.id)).collect();
    recorded
        .iter()
        .filter(|option| !replaced.contains(&group(&option.id)))
        .chain(given)
        .flat_map(|option| option.words.iter().cloned())
        .collect()
}

/// Reads `agent`'s options again, from a session's record: the host's command line parser.
#[cfg(feature = "agent")]
#[derive(Clone)]
pub(crate) struct Reparse {
    pub(crate) command: clap::Command,
    pub(crate) name: String,
}

#[cfg(feature = "agent")]
impl std::fmt::Debug for Reparse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Reparse")
    }
}

#[cfg(feature = "agent")]
impl Reparse {
    /// `agent`'s options from `words` (its options, as [`given_options`] records them).
    pub(crate) fn parse(&self, words: &[String]) -> Result<AgentArgs, String> {
        use clap::FromArgMatches as _;
        let line = [self.name.clone(), "agent".to_owned()]
            .into_iter()
            .chain(words.iter().cloned());
        let matches = self
            .command
            .clone()
            .try_get_matches_from(line)
            .map_err(|error| {
                // clap's first line (`error: …`), without its usage and help lines.
                let text = error.to_string();
                text.lines().next().unwrap_or_default().to_owned()
            })?;
        let Some(("agent", agent)) = matches.subcommand() else {
            return Err("not an agent command".to_owned());
        };
        #[cfg_attr(not(feature = "toolsets"), allow(unused_mut))]
        let mut args = AgentArgs::from_arg_matches(agent).map_err(|error| error.to_string())?;
        #[cfg(feature = "toolsets")]
        {
            args.servers = mcp_servers(agent)?;
        }
        if let Some(command) = self.command.find_subcommand("agent") {
            args.given = given_options(command, agent);
        }
        args.reparse = Some(self.clone());
        Ok(args)
    }
}

/// The options that say how a server's token is had: a server takes one of them.
#[cfg(feature = "toolsets")]
const AUTHORIZE: &[&str] = &[
    "mcp-oauth",
    "mcp-client-secret-env",
    "mcp-client-key",
    "mcp-workload-token",
];

/// The servers `--mcp` names, each with the `--mcp-…` options that follow it.
#[cfg(feature = "toolsets")]
pub(crate) fn mcp_servers(
    matches: &clap::ArgMatches,
) -> Result<Vec<crate::toolsets::McpServer>, String> {
    use crate::toolsets::McpServer;
    let specs: Vec<(usize, String)> = given(matches, "mcp");
    let mut servers: Vec<McpServer> = specs
        .iter()
        .map(|(_, spec)| McpServer::parse(spec).map_err(|error| error.to_string()))
        .collect::<Result<_, _>>()?;
    let split = |list: &str| -> Vec<String> {
        list.split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(str::to_owned)
            .collect()
    };
    // Each option, in order: the server it applies to (the last `--mcp` before it), once for
    // the ones a server takes once (the ways to authorize: one of them, once).
    let mut seen: Vec<(&str, usize, &str)> = Vec::new();
    let mut apply = |option: &'static str,
                     once: bool,
                     position: usize,
                     set: &dyn Fn(McpServer) -> Result<McpServer, String>|
     -> Result<(), String> {
        let server = specs
            .iter()
            .rposition(|(at, _)| *at < position)
            .ok_or_else(|| {
                format!("--{option} applies to the --mcp before it, and there is none")
            })?;
        let kind = if AUTHORIZE.contains(&option) {
            "authorize"
        } else {
            option
        };
        if once
            && let Some((earlier, _, _)) =
                seen.iter().find(|(_, at, k)| *at == server && *k == kind)
        {
            return Err(if *earlier == option {
                format!(
                    "--{option} is given twice for the --mcp server {}",
                    specs[server].1
                )
            } else {
                format!(
                    "--{earlier} and --{option} are two ways to authorize to the --mcp server \
                     {}: give one",
                    specs[server].1
                )
            });
        }
        seen.push((option, server, kind));
        servers[server] = set(servers[server].clone())?;
        Ok(())
    };
    for (at, prefix) in given::<String>(matches, "mcp_prefix") {
        apply("mcp-prefix", true, at, &|server| {
            Ok(server.prefix(prefix.clone()))
        })?;
    }
    for (at, list) in given::<String>(matches, "mcp_allow") {
        apply("mcp-allow", true, at, &|server| {
            Ok(server.allow(split(&list)))
        })?;
    }
    for (at, list) in given::<String>(matches, "mcp_deny") {
        apply("mcp-deny", false, at, &|server| {
            Ok(server.deny(split(&list)))
        })?;
    }
    for (at, timeout) in given::<std::time::Duration>(matches, "mcp_timeout") {
        apply("mcp-timeout", true, at, &|server| {
            Ok(server.timeout(timeout))
        })?;
    }
    for (at, var) in given::<String>(matches, "mcp_bearer_env") {
        apply("mcp-bearer-env", true, at, &|server| {
            server.bearer_env(&var).map_err(|error| error.to_string())
        })?;
    }
    for (at, _) in given::<u8>(matches, "mcp_oauth") {
        apply("mcp-oauth", true, at, &|server| {
            let label = server.label();
            let oauth = crate::toolsets::OAuth::loopback(move |url| {
                tool_runtime::text::note!(
                    "to let the agent use the MCP server {label}, open this URL and authorize it:\n  {url}"
                );
            })
            .map_err(|error| format!("--mcp-oauth: no loopback port for the browser: {error}"))?;
            server.oauth(oauth).map_err(|error| error.to_string())
        })?;
    }
    // The grants with no browser: ID=VALUE each.
    let pair = |option: &str, value: &str| -> Result<(String, String), String> {
        match value.split_once('=') {
            Some((id, rest)) if !id.is_empty() && !rest.is_empty() => {
                Ok((id.to_owned(), rest.to_owned()))
            }
            _ => Err(format!("--{option} takes ID=VALUE, not `{value}`")),
        }
    };
    for (at, value) in given::<String>(matches, "mcp_client_secret_env") {
        let (id, var) = pair("mcp-client-secret-env", &value)?;
        apply("mcp-client-secret-env", true, at, &|server| {
            let secret = std::env::var(&var).map_err(|_| {
                format!("--mcp-client-secret-env: the environment variable {var} is not set")
            })?;
            let oauth = crate::toolsets::OAuth::client_secret(id.clone(), secret);
            server.oauth(oauth).map_err(|error| error.to_string())
        })?;
    }
    for (at, value) in given::<String>(matches, "mcp_client_key") {
        let (id, file) = pair("mcp-client-key", &value)?;
        apply("mcp-client-key", true, at, &|server| {
            let pem = std::fs::read(&file)
                .map_err(|error| format!("--mcp-client-key: {file}: {error}"))?;
            // The key's own kind says how it signs.
            let oauth = ["ES256", "ES384", "RS256", "EdDSA"]
                .into_iter()
                .find_map(|algorithm| {
                    crate::toolsets::OAuth::client_key(id.clone(), &pem, algorithm).ok()
                })
                .ok_or_else(|| {
                    format!(
                        "--mcp-client-key: {file} holds no private key that signs ES256, \
                         ES384, RS256 or EdDSA"
                    )
                })?;
            server.oauth(oauth).map_err(|error| error.to_string())
        })?;
    }
    for (at, value) in given::<String>(matches, "mcp_workload_token") {
        let (id, file) = pair("mcp-workload-token", &value)?;
        apply("mcp-workload-token", true, at, &|server| {
            let read = file.clone();
            let oauth = crate::toolsets::OAuth::workload(id.clone(), move || {
                std::fs::read_to_string(&read).map_err(|error| format!("{read}: {error}"))
            });
            server.oauth(oauth).map_err(|error| error.to_string())
        })?;
    }
    for (at, defer) in given::<crate::toolsets::Defer>(matches, "mcp_defer") {
        apply("mcp-defer", true, at, &|server| Ok(server.defer(defer)))?;
    }
    for (at, _) in given::<u8>(matches, "mcp_unchecked") {
        apply("mcp-unchecked", false, at, &|server| Ok(server.unchecked()))?;
    }
    Ok(servers)
}

/// Each value of the option `id` given on the command line, with its place among the
/// arguments (a flag's once per time it is given).
#[cfg(feature = "toolsets")]
fn given<T: Clone + Send + Sync + 'static>(
    matches: &clap::ArgMatches,
    id: &str,
) -> Vec<(usize, T)> {
    if matches.value_source(id) != Some(clap::parser::ValueSource::CommandLine) {
        return Vec::new();
    }
    let positions = matches.indices_of(id).into_iter().flatten();
    match matches.get_many::<T>(id) {
        Some(values) if values.len() == positions.clone().count() => {
            positions.zip(values.cloned()).collect()
        }
        // A counted flag has one value for all its places.
        Some(mut values) => {
            let value = values.next().cloned();
            positions
                .filter_map(|at| value.clone().map(|value| (at, value)))
                .collect()
        }
        None => Vec::new(),
    }
}

/// What the host runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Mode {
    /// Every tool.
    Default,
    /// Read-only tools, and todo_write.
    Plan,
}

/// How `replay` prints the list.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum Format {
    /// The checklist.
    Text,
    /// The `todos` array.
    Json,
    /// The ACP `session/update` notification showing the list as the session's plan.
    Acp,
}

/// `toolhost mcp --http` and its options.
#[cfg(feature = "http")]
#[derive(Args, Debug)]
pub(crate) struct HttpArgs {
    /// Serve Streamable HTTP on this address: `PORT` (on 127.0.0.1), `IP:PORT` or
    /// `localhost:PORT`; port 0 takes a free one. The address served is printed on standard
    /// error. An address other machines reach needs `--auth-issuer`, `--auth-jwks` or
    /// `--auth-tokens`.
    #[arg(long, value_name = "ADDR", value_parser = mcp::http::parse_addr, conflicts_with = "session")]
    pub(crate) http: Option<std::net::SocketAddr>,
    /// The endpoint's path.
    #[arg(long, value_name = "PATH", default_value = "/mcp", requires = "http")]
    pub(crate) http_path: String,
    /// Serve browser pages of this origin (`https://app.example.com:443`, `:*` for any port)
    /// besides loopback ones; any other `Origin` is refused (403). May be repeated.
    #[arg(long, value_name = "ORIGIN", requires = "http")]
    pub(crate) allow_origin: Vec<String>,
    /// Serve requests whose `Host` is this name (or `name:port`) besides loopback names and
    /// the address bound; any other is refused (403). May be repeated.
    #[arg(long, value_name = "HOST", requires = "http")]
    pub(crate) allow_host: Vec<String>,
    /// Take access tokens (JWTs) of this OAuth authorization server (`iss`); its metadata
    /// names its keys unless `--auth-jwks` does. The endpoint's protected-resource metadata
    /// names it, so clients find it from a `401`.
    #[arg(
        long,
        value_name = "URL",
        env = "TOOLHOST_AUTH_ISSUER",
        requires = "http"
    )]
    pub(crate) auth_issuer: Option<String>,
    /// The issuer's keys: a JWKS URL.
    #[arg(
        long,
        value_name = "URL",
        env = "TOOLHOST_AUTH_JWKS",
        requires = "http"
    )]
    pub(crate) auth_jwks: Option<String>,
    /// The audience a token must name (`aud`). Default: the resource's URL (`--auth-resource`).
    #[arg(
        long,
        value_name = "AUDIENCE",
        env = "TOOLHOST_AUTH_AUDIENCE",
        requires = "http"
    )]
    pub(crate) auth_audience: Option<String>,
    /// Take the tokens of this file: a line per token, `TOKEN SUBJECT [SCOPE…]`. Tokens are
    /// read from a file, never from the command line.
    #[arg(
        long,
        value_name = "FILE",
        env = "TOOLHOST_AUTH_TOKENS",
        requires = "http"
    )]
    pub(crate) auth_tokens: Option<PathBuf>,
    /// Take the tokens file even where others than its owner may read it (by default such a
    /// file is refused, as ssh refuses such a private key: its tokens are secrets).
    #[arg(long, requires = "auth_tokens")]
    pub(crate) auth_tokens_readable_by_others: bool,
    /// The endpoint's public URL, as clients reach it (behind a proxy). Default: the address
    /// served and `--http-path`.
    #[arg(
        long,
        value_name = "URL",
        env = "TOOLHOST_AUTH_RESOURCE",
        requires = "http"
    )]
    pub(crate) auth_resource: Option<String>,
    /// A scope the resource knows, as its metadata says. May be repeated.
    #[arg(long, value_name = "SCOPE", requires = "http")]
    pub(crate) auth_scope: Vec<String>,
    /// Seal the state of stateless calls' rounds (a tool's questions to the person or the
    /// client's model, answered by retrying the call) with the secret in this file, at least
    /// 32 bytes: replicas behind one endpoint given the same file continue each other's
    /// rounds. Default: a key of the process's own.
    #[arg(
        long,
        value_name = "FILE",
        env = "TOOLHOST_STATE_SECRET",
        requires = "http"
    )]
    pub(crate) state_secret: Option<PathBuf>,
    /// On SIGTERM or Ctrl-C, how long calls in flight may finish before they are cancelled.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = humantime::parse_duration, requires = "http")]
    pub(crate) shutdown_grace: std::time::Duration,
}

#[cfg(feature = "agent")]
fn parse_provider(name: &str) -> Result<Provider, String> {
    Provider::from_name(name).ok_or_else(|| {
        format!("unknown provider {name:?}: openai, openai-responses, anthropic or gemini")
    })
}

/// A number of turns as `--max-turns` takes it: at least one, which a prompt needs.
#[cfg(feature = "agent")]
fn parse_turns(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(0) => Err("a prompt needs at least one turn: give --max-turns 1 or more".to_owned()),
        Ok(turns) => Ok(turns),
        Err(error) => Err(error.to_string()),
    }
}

fn parse_dialect(name: &str) -> Result<Dialect, String> {
    name.parse()
}

/// A timeout as `--tool-timeout` takes it: a humantime duration longer than zero.
#[cfg(any(feature = "mcp", feature = "agent"))]
fn parse_timeout(text: &str) -> Result<std::time::Duration, String> {
    match humantime::parse_duration(text) {
        Ok(duration) if !duration.is_zero() => Ok(duration),
        Ok(_) => Err("a timeout must be longer than zero".to_owned()),
        Err(error) => Err(format!("{error} (write it as `30s`, `500ms`, `2m`)")),
    }
}
