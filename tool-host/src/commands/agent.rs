//! `toolhost agent`: a model on a provider's API calls the host's tools.

use std::io::{self, BufRead, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;

use rustyline::DefaultEditor;
use rustyline::error::ReadlineError;
use tool_agent::{AgentError, AgentLoop, Client, ClientConfig, Compaction, Observer, Retry};
use tool_runtime::text::neutralize;
use tool_runtime::wire::ModelTurn;
use tool_runtime::{Agent, Ctx, Subscription, ToolOutput};

use crate::HostError;
use crate::cli::AgentArgs;

pub(crate) fn agent(
    host: super::Named,
    ctx: &Arc<Ctx>,
    store: &crate::store::Store,
    #[cfg_attr(not(feature = "toolsets"), allow(unused_mut))] mut args: AgentArgs,
) -> Result<ExitCode, HostError> {
    let name = host.name;
    let mut config = ClientConfig::new(args.provider, args.model).key_from_env();
    config.base_url = args.base_url;
    config.stream = args.stream;
    config.max_retries = args.max_retries;
    config.request_timeout = Some(args.request_timeout);
    config.idle_timeout = args.idle_timeout;
    let client = Client::new(config)?;
    #[cfg(feature = "toolsets")]
    let mut toolsets = match args.servers.is_empty() {
        true => None,
        false => {
            let servers = std::mem::take(&mut args.servers);
            let toolsets = crate::toolsets::Toolsets::connect_as(servers, name, host.version)
                .map_err(|error| HostError::Mcp(error.to_string()))?;
            for skipped in toolsets.skipped() {
                crate::note!("{name} agent: {skipped}");
            }
            Some(toolsets)
        }
    };
    // The host's tools, and with previews `read_result` and the hook that shows them.
    let previewed = match previews(&args.max_result_tokens)? {
        Some(preview) => {
            let mut tools = ctx.tools.clone();
            tools.register(tool_agent::preview::ReadResult)?;
            tools.hook(preview);
            Some(tools)
        }
        None => None,
    };
    let base = previewed.as_ref().unwrap_or(&ctx.tools);
    #[cfg(feature = "toolsets")]
    let with_servers = toolsets
        .as_ref()
        .map(|toolsets| toolsets.registry(base))
        .transpose()?;
    #[cfg(feature = "toolsets")]
    let tools = with_servers.as_ref().unwrap_or(base);
    #[cfg(not(feature = "toolsets"))]
    let tools = base;
    // A session this run makes, in a file, and nothing is recorded in: no file is left behind.
    let created = matches!(store, crate::store::Store::Files)
        && args.session.as_ref().is_none_or(|path| !path.exists());
    let (session, path) = super::open_or_create(
        name,
        store,
        &ctx.sessions,
        args.session_dir,
        args.session,
        "agent",
    )?;
    crate::note!("{name} agent: session {}", path.display());
    let agent = Agent::new(session.id().to_owned(), session);
    let ran = AgentLoop::new(tools, agent.clone(), client)
        .map_err(HostError::from)
        .and_then(|agent_loop| {
            #[cfg(feature = "toolsets")]
            let agent_loop = match toolsets.as_mut() {
                Some(toolsets) => agent_loop.with_tool_updates(|| {
                    let (tools, errors) = toolsets.update(base)?;
                    for error in errors {
                        crate::note!("{name} agent: {error}");
                    }
                    tools
                        .inspect_err(|error| {
                            crate::note!("{name} agent: the changed tools are not offered: {error}")
                        })
                        .ok()
                }),
                None => agent_loop,
            };
            let mut budget = tool_agent::Budget::default();
            budget.tokens = args.token_budget;
            budget.requests = args.max_requests;
            budget.tool_calls = args.max_tool_calls;
            let agent_loop = agent_loop
                .with_budget(budget)
                .with_max_turns(args.max_turns)
                .with_context_budget(args.context_budget)
                .with_max_tokens(args.max_tokens)
                .with_deadline(args.deadline);
            run(name, &agent, agent_loop, args.prompt)
        });
    if created && agent.session().next_seq() == 1 {
        std::fs::remove_file(&path)?;
    }
    ran
}

/// The preview hook `--max-result-tokens` asks for: a default limit, and tools' own.
fn previews(limits: &[String]) -> Result<Option<tool_agent::preview::ResultPreview>, HostError> {
    if limits.is_empty() {
        return Ok(None);
    }
    let mut default = None;
    let mut per_tool = Vec::new();
    for limit in limits {
        let (tool, tokens) = match limit.rsplit_once('=') {
            Some((tool, tokens)) => (Some(tool.trim()), tokens),
            None => (None, limit.as_str()),
        };
        let tokens: usize = tokens
            .trim()
            .parse()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| {
                HostError::Input(format!(
                    "--max-result-tokens {limit}: expected TOKENS or TOOL=TOKENS, TOKENS a number \
                 above 0"
                ))
            })?;
        match tool {
            Some(tool) => per_tool.push((tool.to_owned(), tokens)),
            None => default = Some(tokens),
        }
    }
    // Tools named alone are previewed; the others never (a limit beyond any result).
    let mut preview = tool_agent::preview::ResultPreview::new(default.unwrap_or(usize::MAX / 8));
    for (tool, tokens) in per_tool {
        preview = preview.for_tool(tool, tokens);
    }
    Ok(Some(preview))
}

fn run(
    name: &str,
    agent: &Agent,
    mut agent_loop: AgentLoop<'_>,
    prompt: Option<String>,
) -> Result<ExitCode, HostError> {
    let mut shown = Shown {
        name,
        chat: prompt.is_none(),
        events: agent.session().subscribe(),
        out: io::stdout(),
    };
    let ran = match prompt {
        Some(prompt) => agent_loop
            .prompt(&prompt, &mut shown)
            .map_err(HostError::from)
            .and_then(|answer| {
                let mut out = io::stdout().lock();
                writeln!(out, "{}", printable(&answer))?;
                out.flush()?;
                Ok(ExitCode::SUCCESS)
            }),
        None => chat(name, agent, &mut agent_loop, &mut shown),
    };
    let used = agent_loop.used();
    if used.requests > 0 {
        crate::note!(
            "{name} agent: {}",
            super::replay::usage_line(used.requests, &used.usage, used.tool_calls)
        );
    }
    ran
}

/// The interactive chat: a prompt per line (a readline editor on a terminal), until `quit`,
/// `exit` or the end of input. A turn the provider stops is reported and the chat goes on.
fn chat(
    name: &str,
    agent: &Agent,
    agent_loop: &mut AgentLoop<'_>,
    shown: &mut Shown<'_>,
) -> Result<ExitCode, HostError> {
    if let Some(todos) =
        tool_todo::current(agent.session()).map_err(|error| HostError::Input(error.to_string()))?
    {
        write!(
            shown.out,
            "{}",
            tool_todo::checklist(&todos, &crate::repl::style())
        )?;
    }
    let mut lines = Lines::new()?;
    while let Some(line) = lines.next()? {
        let line = line.trim();
        match line {
            "" => continue,
            "quit" | "exit" => break,
            _ => {}
        }
        match agent_loop.prompt(line, shown) {
            Ok(_) => writeln!(shown.out)?,
            Err(error @ AgentError::Session(_)) => return Err(error.into()),
            Err(error) if error.is_budget() => return Err(error.into()),
            Err(error) => {
                writeln!(shown.out)?;
                crate::note!("{name} agent: {error}");
            }
        }
        shown.out.flush()?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Prompts typed on a terminal, or read line by line from a pipe.
enum Lines {
    Editor(Box<DefaultEditor>),
    Piped(io::Lines<io::StdinLock<'static>>),
}

impl Lines {
    fn new() -> Result<Self, HostError> {
        if io::stdin().is_terminal() {
            let editor = DefaultEditor::new().map_err(io::Error::other)?;
            Ok(Lines::Editor(Box::new(editor)))
        } else {
            Ok(Lines::Piped(io::stdin().lock().lines()))
        }
    }

    fn next(&mut self) -> Result<Option<String>, HostError> {
        match self {
            Lines::Editor(editor) => loop {
                match editor.readline("you> ") {
                    Ok(line) => {
                        let _ = editor.add_history_entry(line.as_str());
                        return Ok(Some(line));
                    }
                    Err(ReadlineError::Interrupted) => continue,
                    Err(ReadlineError::Eof) => return Ok(None),
                    Err(error) => return Err(io::Error::other(error).into()),
                }
            },
            Lines::Piped(lines) => Ok(lines.next().transpose()?),
        }
    }
}

/// What the person sees of the loop: in a chat, the model's text as it comes and the
/// checklist whenever the list changes; with `--prompt`, only the final text on standard
/// output. Calls, retries and compactions are noted on standard error.
struct Shown<'n> {
    name: &'n str,
    chat: bool,
    events: Subscription,
    out: io::Stdout,
}

impl Observer for Shown<'_> {
    fn text(&mut self, text: &str) {
        if self.chat {
            let _ = write!(self.out, "{}", printable(text));
            let _ = self.out.flush();
        }
    }

    fn calls(&mut self, turn: &ModelTurn) {
        if self.chat && !turn.text.is_empty() {
            let _ = writeln!(self.out);
        }
        for call in &turn.calls {
            crate::note!("{} agent: calling {}", self.name, call.name);
        }
    }

    fn results(&mut self, turn: &ModelTurn, outputs: &[ToolOutput]) {
        for (call, output) in turn.calls.iter().zip(outputs) {
            if output.is_error {
                crate::note!("{} agent: {}: {}", self.name, call.name, output.text);
            }
        }
        if self.chat {
            let _ = crate::repl::redraw(&mut self.events, &mut self.out);
        }
    }

    fn retrying(&mut self, retry: &Retry) {
        crate::note!(
            "{} agent: {}; retrying in {:.1} s (attempt {} failed)",
            self.name,
            retry.reason,
            retry.wait.as_secs_f64(),
            retry.attempt
        );
    }

    fn compacted(&mut self, compaction: &Compaction) {
        crate::note!(
            "{} agent: compacted the conversation: {} messages dropped, about {} → {} tokens{}",
            self.name,
            compaction.dropped_messages,
            compaction.tokens_before,
            compaction.tokens_after,
            if compaction.restated {
                ", todo list restated"
            } else {
                ""
            }
        );
    }
}

/// The model's text made safe for a terminal, its line breaks kept.
fn printable(text: &str) -> String {
    text.split('\n')
        .map(neutralize)
        .collect::<Vec<_>>()
        .join("\n")
}
