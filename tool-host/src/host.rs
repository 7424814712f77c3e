//! [`Host`]: the `toolhost` command line, for any set of `#[tool]` plugins.

use std::ffi::OsString;
use std::fmt;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{CommandFactory, FromArgMatches};
use tool_runtime::{Ctx, Dialect, LoadError, Plugin};

use crate::HostError;
use crate::cli::{Cli, Command};
use crate::commands;

/// A host for `#[tool]` plugins: the command line of `toolhost` — `repl`, `call`, `replay`,
/// `schema`, `sizes`, `mcp` — serving the plugins it is given, with the host services it is
/// given.
///
/// An author who wrote their own tools serves them in a few lines; the `toolhost` binary is this,
/// with `todo_write`:
///
/// ```no_run
/// use tool_host::Host;
///
/// fn main() -> std::process::ExitCode {
///     Host::new("toolhost").plugin::<tool_todo::TodoWrite>().main()
/// }
/// ```
///
/// Plugins are loaded when the command runs, after every service is provided, so the order of
/// [`Host::plugin`] and [`Host::provide`] does not matter; a plugin that cannot be loaded (a
/// missing service, a second tool of one name) stops the host with the load error.
pub struct Host {
    name: &'static str,
    about: Option<&'static str>,
    version: Option<&'static str>,
    setup: Vec<Setup>,
    dialects: Vec<Dialect>,
}

/// One step of building the host's context: a service, a plugin, or a value (a tool, a
/// resource, a prompt).
enum Setup {
    Provide(Box<dyn FnOnce(&mut Ctx)>),
    Plugin(fn(&mut Ctx) -> Result<(), LoadError>),
    Tool(LoadTool),
}

/// Loads a tool value into the context.
type LoadTool = Box<dyn FnOnce(&mut Ctx) -> Result<(), LoadError>>;

impl Host {
    /// A host with no plugins yet, whose command line and messages go by `name`.
    pub fn new(name: &'static str) -> Self {
        Host {
            name,
            about: None,
            version: None,
            setup: Vec::new(),
            dialects: Vec::new(),
        }
    }

    /// What `--help` says the host is, in one line (default: "A host for `#[tool]` plugins.").
    #[must_use]
    pub fn about(mut self, about: &'static str) -> Self {
        self.about = Some(about);
        self
    }

    /// The host's version: what `--version` prints, and what MCP clients and servers read in
    /// `serverInfo` and `clientInfo` (default: this crate's version). Usually
    /// `env!("CARGO_PKG_VERSION")` of the host's own crate.
    #[must_use]
    pub fn version(mut self, version: &'static str) -> Self {
        self.version = Some(version);
        self
    }

    /// States the dialects this host sends definitions in: a plugin whose tool cannot render in
    /// one of them stops the host when it loads, naming the tool, the dialect and the construct
    /// (see [`ToolRegistry::require_dialects`](tool_runtime::ToolRegistry::require_dialects)).
    /// `mcp` requires its own dialect whatever is stated.
    #[must_use]
    pub fn dialects(mut self, dialects: &[Dialect]) -> Self {
        self.dialects.extend_from_slice(dialects);
        self
    }

    /// Serves the plugin `P` (a `#[tool]` function's generated type).
    #[must_use]
    pub fn plugin<P: Plugin>(mut self) -> Self {
        self.setup
            .push(Setup::Plugin(|ctx| ctx.plugin::<P>().map(drop)));
        self
    }

    /// Serves a tool value: one built at run time ([`DynamicTool`](tool_runtime::DynamicTool)),
    /// or any [`Tool`](tool_runtime::Tool) (see [`Ctx::tool`]). It loads with the plugins, in
    /// the order given.
    #[must_use]
    pub fn tool(mut self, tool: impl tool_runtime::Tool) -> Self {
        self.setup
            .push(Setup::Tool(Box::new(move |ctx| ctx.tool(tool).map(drop))));
        self
    }

    /// Serves a resource beside the tools (MCP's `resources/list` and `resources/read`); a
    /// second at one URI stops the host when it loads.
    #[must_use]
    pub fn resource(mut self, resource: tool_runtime::Resource) -> Self {
        self.setup.push(Setup::Tool(Box::new(move |ctx| {
            ctx.resources.add(resource).map(drop)
        })));
        self
    }

    /// Serves the resources a URI template matches (MCP's `resources/templates/list`).
    #[must_use]
    pub fn resource_template(mut self, template: tool_runtime::ResourceTemplate) -> Self {
        self.setup.push(Setup::Tool(Box::new(move |ctx| {
            ctx.resources.add_template(template).map(drop)
        })));
        self
    }

    /// Says changes of the resources' contents through `changes` (made with
    /// `ResourceChanges::default()` and kept by the host, or by what changes the contents): an
    /// MCP client subscribed to a URI hears `notifications/resources/updated` when it is
    /// `updated`. It is provided to the tools as well, as a host service
    /// (`Service<ResourceChanges>`).
    #[must_use]
    pub fn resource_changes(mut self, changes: tool_runtime::ResourceChanges) -> Self {
        self.setup.push(Setup::Provide(Box::new(move |ctx| {
            ctx.resources.set_changes(changes.clone());
            ctx.provide(changes);
        })));
        self
    }

    /// Offers a prompt (MCP's `prompts/list`, `prompts/get` and the completion of its
    /// arguments); a second of one name stops the host when it loads.
    #[must_use]
    pub fn prompt(mut self, prompt: tool_runtime::Prompt) -> Self {
        self.setup.push(Setup::Tool(Box::new(move |ctx| {
            ctx.prompts.add(prompt).map(drop)
        })));
        self
    }

    /// Adds a policy hook around every call the host dispatches — over MCP, in the agent loop,
    /// the REPL and `call` alike (see [`tool_runtime::hook`]); hooks run in the order added.
    #[must_use]
    pub fn hook(mut self, hook: impl tool_runtime::hook::Hook) -> Self {
        self.setup.push(Setup::Provide(Box::new(move |ctx| {
            ctx.tools.hook(hook);
        })));
        self
    }

    /// Provides a host service the plugins may inject (see [`Ctx::provide`]).
    #[must_use]
    pub fn provide<T: Send + Sync + 'static>(mut self, service: T) -> Self {
        self.setup.push(Setup::Provide(Box::new(move |ctx| {
            ctx.provide(service);
        })));
        self
    }

    /// The context the commands run with: every service provided, then every plugin loaded.
    pub fn ctx(self) -> Result<Ctx, LoadError> {
        self.build(|_| {})
    }

    fn build(self, configure: impl FnOnce(&mut Ctx)) -> Result<Ctx, LoadError> {
        let mut ctx = Ctx::new();
        configure(&mut ctx);
        ctx.tools.require_dialects(&self.dialects)?;
        let (services, plugins): (Vec<_>, Vec<_>) = self
            .setup
            .into_iter()
            .partition(|step| matches!(step, Setup::Provide(_)));
        for step in services.into_iter().chain(plugins) {
            match step {
                Setup::Provide(provide) => provide(&mut ctx),
                Setup::Plugin(load) => load(&mut ctx)?,
                Setup::Tool(load) => load(&mut ctx)?,
            }
        }
        Ok(ctx)
    }

    /// Runs the command line of this process and returns its exit status: 0 on success, 1 when
    /// a call's tool answered with an error, 2 for usage and input errors, 3 when a session (or
    /// anything else the host needs) fails.
    pub fn main(self) -> ExitCode {
        self.run(std::env::args_os())
    }

    /// Runs the command line `args` (the program's name first), as [`Host::main`] does.
    pub fn run<I, T>(self, args: I) -> ExitCode
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        let name = self.name;
        let version = self.version.unwrap_or(env!("CARGO_PKG_VERSION"));
        quiet_panics(name);
        let mut command = owned_by(Cli::command(), name)
            .name(name)
            .bin_name(name)
            .version(version);
        if let Some(about) = self.about {
            command = command.about(about).long_about(None);
        }
        let matches = match command.clone().try_get_matches_from(args) {
            Ok(matches) => matches,
            Err(error) => {
                let _ = error.print();
                return ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2));
            }
        };
        #[cfg_attr(not(feature = "toolsets"), allow(unused_mut))]
        let mut cli = match Cli::from_arg_matches(&matches) {
            Ok(cli) => cli,
            Err(error) => {
                let _ = error.print();
                return ExitCode::from(2);
            }
        };
        #[cfg(feature = "agent")]
        if let (Command::Agent(args), Some(("agent", agent))) =
            (&mut cli.command, matches.subcommand())
        {
            #[cfg(feature = "toolsets")]
            match crate::cli::mcp_servers(agent) {
                Ok(servers) => args.servers = servers,
                Err(error) => {
                    crate::note!("{name} agent: {error}");
                    return ExitCode::from(2);
                }
            }
            if let Some(subcommand) = command.find_subcommand("agent") {
                args.given = crate::cli::given_options(subcommand, agent);
            }
            args.reparse = Some(crate::cli::Reparse {
                command: command.clone(),
                name: name.to_owned(),
            });
        }
        // Exported from here on, and flushed when it drops, as the command returns.
        #[cfg(feature = "otel")]
        let _telemetry = match crate::telemetry::Telemetry::start(&crate::telemetry::Settings {
            endpoint: cli.otlp_endpoint.as_deref(),
            name,
            version,
        }) {
            Ok(telemetry) => telemetry,
            Err(error) => {
                crate::note!("{name}: {error}");
                return ExitCode::from(2);
            }
        };
        #[cfg(feature = "otel")]
        let trace_content = cli.otlp_content;
        let mcp_limits = match &cli.command {
            #[cfg(feature = "mcp")]
            Command::Mcp {
                max_args_bytes,
                max_result_bytes,
                tool_timeout,
                ..
            } => Some((*max_args_bytes, *max_result_bytes, *tool_timeout)),
            _ => None,
        };
        let mut host = self;
        if cli.mode == crate::cli::Mode::Plan {
            // The plan is written with todo_write, which is not read-only.
            host = host.hook(tool_runtime::hook::PlanMode::new().allow("todo_write"));
        }
        if mcp_limits.is_some() {
            host.dialects.push(Dialect::Mcp);
        }
        // (A resumed run whose provider its session names is checked as its loop starts.)
        #[cfg(feature = "agent")]
        if let Command::Agent(crate::cli::AgentArgs {
            provider: Some(provider),
            ..
        }) = &cli.command
        {
            host.dialects.push(provider.dialect());
        }
        #[cfg(feature = "agent")]
        let max_parallel = match &cli.command {
            Command::Agent(args) => Some(args.max_parallel),
            _ => None,
        };
        #[cfg(not(feature = "agent"))]
        let max_parallel: Option<usize> = None;
        let ctx = host.build(|ctx| {
            #[cfg(feature = "otel")]
            ctx.tools.set_trace_content(trace_content);
            if let Some(max) = max_parallel {
                ctx.tools.set_max_parallel(max);
            }
            if let Some((args, result, timeout)) = mcp_limits {
                ctx.tools.set_max_args_bytes(args);
                ctx.tools.set_max_result_bytes(result);
                ctx.tools.set_default_timeout(timeout);
            }
        });
        let result = ctx.map_err(HostError::from).and_then(|ctx| {
            // Only a command that keeps a session reaches the store: `schema`, `sizes` and
            // `call --no-agent` work whatever `--store` says.
            let uses_store = !matches!(
                cli.command,
                Command::Schema { .. } | Command::Sizes | Command::Call { no_agent: true, .. }
            );
            let store = match uses_store {
                true => crate::store::Store::connect(cli.store.as_deref())?,
                false => crate::store::Store::Files,
            };
            commands::run(
                commands::Named { name, version },
                &Arc::new(ctx),
                &store,
                cli.command,
            )
        });
        match result {
            Ok(code) => code,
            Err(error) if error.is_closed_output() => ExitCode::SUCCESS,
            Err(error) => {
                crate::note!("{name}: {error}");
                error.exit_code()
            }
        }
    }
}

/// A tool's panic reaches the model as an error text (the registry catches it); standard error
/// gets one line for it, `NAME: panicked at FILE:LINE:COL: MESSAGE`, not the default hook's
/// note and backtrace. With `RUST_BACKTRACE` set, the default hook stays, for whoever debugs.
fn quiet_panics(name: &'static str) {
    if std::env::var_os("RUST_BACKTRACE").is_some_and(|value| value != "0") {
        return;
    }
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("a panic without a message");
        let at = info
            .location()
            .map(|at| format!(" at {}:{}:{}", at.file(), at.line(), at.column()))
            .unwrap_or_default();
        // `note!` neutralizes: a message of several lines is one line here.
        crate::note!("{name}: panicked{at}: {message}");
    }));
}

impl fmt::Debug for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Host")
            .field("name", &self.name)
            .field("version", &self.version)
            .field("steps", &self.setup.len())
            .finish()
    }
}

/// `command` as the host called `name` owns it: its environment variables are `NAME_STORE`,
/// `NAME_AUTH_TOKENS`… (the name upper-cased, each other character than a letter or digit an
/// `_`) rather than `TOOLHOST_…`, and its help says `name` where it says `toolhost`.
fn owned_by(command: clap::Command, name: &str) -> clap::Command {
    if name == "toolhost" {
        return command;
    }
    let prefix: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    rename(command, name, &prefix)
}

fn rename(command: clap::Command, name: &str, prefix: &str) -> clap::Command {
    let said = |text: &clap::builder::StyledStr| text.to_string().replace("toolhost", name);
    let mut command = command.mut_args(|mut arg| {
        if let Some(rest) = arg
            .get_env()
            .and_then(|env| env.to_str())
            .and_then(|env| env.strip_prefix("TOOLHOST_"))
        {
            let env = format!("{prefix}_{rest}");
            arg = arg.env(env);
        }
        if let Some(help) = arg.get_help().map(said) {
            arg = arg.help(help);
        }
        if let Some(help) = arg.get_long_help().map(said) {
            arg = arg.long_help(help);
        }
        arg
    });
    if let Some(about) = command.get_about().map(said) {
        command = command.about(about);
    }
    if let Some(about) = command.get_long_about().map(said) {
        command = command.long_about(about);
    }
    command.mut_subcommands(|sub| rename(sub, name, prefix))
}
