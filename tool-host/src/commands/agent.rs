//! `toolhost agent`: a model on a provider's API calls the host's tools.

use std::io::{self, BufRead, IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use rustyline::DefaultEditor;
use rustyline::error::ReadlineError;
use tool_agent::approval::{ApprovalPolicy, Approve, Decision};
use tool_agent::{AgentError, AgentLoop, Client, ClientConfig, Compaction, Observer, Retry};
use tool_runtime::text::neutralize;
use tool_runtime::{Agent, Ctx, Subscription, ToolOutput};
use tool_wire::ModelTurn;

use crate::HostError;
use crate::cli::AgentArgs;

/// The kind of the session event that records a run's options (`{"args": [WORD…]}`), all but
/// its secrets, so that `agent --session` resumes it with nothing else given.
pub const CONFIG_EVENT: &str = "agent/config";

pub(crate) fn agent(
    host: super::named::Named,
    ctx: &Arc<Ctx>,
    store: &crate::store::Store,
    args: AgentArgs,
) -> Result<ExitCode, HostError> {
    let name = host.name;
    // A session this run makes, in a file, and nothing is recorded in: no file is left behind.
    let created = matches!(store, crate::store::Store::Files)
        && args.session.as_ref().is_none_or(|path| !path.exists());
    // A new session's run is checked before anything is written: its provider, its key.
    let early = match created || args.session.is_none() {
        true => Some(Client::new(
            client_config(&args).ok_or_else(no_run_to_resume)?,
        )?),
        false => None,
    };
    let (session, path) = super::open::open_or_create(
        name,
        store,
        &ctx.sessions,
        args.session_dir.clone(),
        args.session.clone(),
        "agent",
    )?;
    let mut kept = 0;
    let ran = configured(name, &session, args).and_then(|(args, record)| {
        crate::note!("{name} agent: session {}", path.display());
        let start = Start {
            client: early,
            record,
        };
        run_agent(host, ctx, &session, &path, args, start, &mut kept)
    });
    super::open::discard_if_unused(store, created, &session, &path, kept)?;
    ran
}

/// The provider's client `args` say, when they name the provider and the model.
fn client_config(args: &AgentArgs) -> Option<ClientConfig> {
    let mut config = ClientConfig::new(args.provider?, args.model.clone()?).key_from_env();
    config.base_url = args.base_url.clone();
    config.stream = args.stream;
    config.max_retries = args.max_retries;
    config.request_timeout = Some(args.request_timeout);
    config.idle_timeout = args.idle_timeout;
    Some(config)
}

fn no_run_to_resume() -> HostError {
    HostError::Input(
        "--provider and --model are needed: this session recorded no run to resume".to_owned(),
    )
}

/// The run's options: those given, and for what was not given, those its session recorded
/// (a resumed run); with their words when the session does not record them yet.
fn configured(
    name: &str,
    session: &tool_runtime::Session,
    args: AgentArgs,
) -> Result<(AgentArgs, Option<Vec<String>>), HostError> {
    let given_anew = args.provider.is_some() && args.model.is_some();
    // What a record that cannot be used comes to: set aside for options given anew (said), else
    // the command stops saying how to go on.
    let unusable = |seq: u64, why: String| -> Result<(), HostError> {
        let said = format!("the options this session recorded (event {seq}) cannot be read: {why}");
        if given_anew {
            crate::note!("{name} agent: {said}; the options given are taken instead");
            Ok(())
        } else {
            Err(HostError::Input(format!(
                "{said}; give the run's options anew (--provider, --model and the rest)"
            )))
        }
    };
    let recorded: Option<(u64, Vec<String>)> = match session.latest(CONFIG_EVENT) {
        Some(event) => {
            let words = event
                .data::<serde_json::Value>()
                .map_err(|error| error.to_string())
                .and_then(|data| {
                    serde_json::from_value::<Vec<String>>(data["args"].clone())
                        .map_err(|error| error.to_string())
                });
            match words {
                Ok(words) => Some((event.seq, words)),
                Err(why) => {
                    unusable(event.seq, why)?;
                    None
                }
            }
        }
        None => None,
    };
    let mut args = match (&recorded, &args.reparse) {
        (Some((seq, words)), Some(reparse)) => {
            let merged = reparse.parse(words).and_then(|was| {
                let words = crate::cli::merged(&was.given, &args.given);
                reparse.parse(&words).map(|now| (words, now))
            });
            match merged {
                Ok((words, mut now)) => {
                    // What the record adds is said: a session's options are run as given.
                    let typed: Vec<String> =
                        args.given.iter().flat_map(|o| o.words.clone()).collect();
                    if words != typed {
                        crate::note!(
                            "{name} agent: resuming with the options its session recorded: {}",
                            neutralize(&words.join(" "))
                        );
                    }
                    now.prompt = args.prompt;
                    now.session = args.session;
                    now.session_dir = args.session_dir;
                    now
                }
                Err(why) => {
                    unusable(*seq, why)?;
                    args
                }
            }
        }
        _ => args,
    };
    if args.provider.is_none() || args.model.is_none() {
        return Err(no_run_to_resume());
    }
    let words: Vec<String> = args
        .given
        .iter()
        .flat_map(|option| option.words.iter().cloned())
        .collect();
    args.given.clear();
    let record = (recorded.map(|(_, words)| words).as_ref() != Some(&words)).then_some(words);
    Ok((args, record))
}

/// What a run starts with: its provider's client when it is made already (a new session's),
/// and its options' words when its session does not record them yet.
struct Start {
    client: Option<Client>,
    record: Option<Vec<String>>,
}

/// The run (on the `Start`'s client when it is made already), its options `record`ed in its session
/// (`kept` counts it) once it ran to its answer or its pause.
fn run_agent(
    host: super::named::Named,
    ctx: &Arc<Ctx>,
    session: &tool_runtime::Session,
    path: &Path,
    #[cfg_attr(not(feature = "toolsets"), allow(unused_mut))] mut args: AgentArgs,
    Start { client, record }: Start,
    kept: &mut u64,
) -> Result<ExitCode, HostError> {
    let name = host.name;
    // A new session's client is made before it (no record can change its options).
    let client = match client {
        Some(client) => client,
        None => Client::new(client_config(&args).ok_or_else(no_run_to_resume)?)?,
    };
    #[cfg(feature = "toolsets")]
    let mut toolsets = match args.servers.is_empty() {
        true => None,
        false => {
            let servers = std::mem::take(&mut args.servers);
            let toolsets = crate::toolsets::Toolsets::connect_as(servers, name, host.version)
                .map_err(|error| match error {
                    // A name given wrong on the command line: its usage, not the server.
                    crate::toolsets::ToolsetError::NoSuchTools { .. } => {
                        HostError::Input(error.to_string())
                    }
                    other => HostError::Mcp(other.to_string()),
                })?;
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
    // A rule for a tool there is not is a mistake to say, naming the tools there are.
    for (option, rules) in [
        ("--approve", &args.approve),
        ("--max-result-tokens", &args.max_result_tokens),
    ] {
        for rule in rules {
            if let Some((tool, _)) = rule.split_once('=')
                && tools.get(tool.trim()).is_none()
            {
                let names: Vec<&str> = tools.names().collect();
                return Err(HostError::Input(format!(
                    "{option} {rule}: there is no tool {}; the tools are: {}",
                    tool_runtime::text::quote(tool.trim()),
                    names.join(", ")
                )));
            }
        }
    }
    // A paused turn's approved call of a tool this run does not offer stops it here, before
    // anything is recorded: the session keeps the options of the run that had it.
    if let Some(waiting) = tool_agent::approval::pending(session)? {
        for (call, decision) in waiting {
            let approved = matches!(
                decision,
                Some(Decision::Approve | Decision::ApproveWith { .. })
            );
            if approved && tools.get(&call.name).is_none() {
                return Err(AgentError::Unoffered {
                    id: call.id,
                    tool: call.name,
                }
                .into());
            }
        }
    }
    let agent = Agent::new(session.id().to_owned(), session.clone());
    let agent_loop = AgentLoop::new(tools, agent.clone(), client)?;
    let ran = (|| {
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
            .with_deadline(args.deadline)
            .with_tool_search(args.tool_search)?;
        let agent_loop = agent_loop.with_approval(approval_policy(&args.approve)?);
        run(name, &agent, agent_loop, args.prompt, path)
    })();
    // The options of a run that ran to its answer or its pause (not of one that failed: a
    // provider out of reach, a budget spent), after what it recorded: host's bookkeeping, not
    // a step of the run (no span of its own in the run's trace).
    let went = match &ran {
        Ok(_) => true,
        Err(HostError::Agent(error)) => error.is_paused(),
        Err(_) => false,
    };
    if let Some(words) = record.filter(|_| went) {
        let data = serde_json::json!({ "args": words });
        tracing::subscriber::with_default(tracing::subscriber::NoSubscriber::default(), || {
            session.append(CONFIG_EVENT, &data)
        })?;
        *kept = 1;
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
    path: &Path,
) -> Result<ExitCode, HostError> {
    let mut shown = Shown {
        name,
        chat: prompt.is_none(),
        events: agent.session().subscribe(),
        out: io::stdout(),
    };
    let mut pause = Pause { name, path };
    let ran = match prompt {
        Some(prompt) => {
            // A paused run goes on first; with --prompt, nobody is asked.
            let resumed = pause
                .settle(&mut agent_loop, &mut shown, None)
                .and_then(|answer| answer.map(|answer| print_answer(&answer)).transpose());
            resumed.and_then(|_| {
                agent_loop
                    .prompt(&prompt, &mut shown)
                    .map_err(|error| pause.said(error))
                    .and_then(|answer| print_answer(&answer))
            })
        }
        None => chat(name, agent, &mut agent_loop, &mut shown, &mut pause),
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

fn print_answer(answer: &str) -> Result<ExitCode, HostError> {
    let mut out = io::stdout().lock();
    writeln!(out, "{}", printable(answer))?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// A run paused for decisions: asked in the chat, or said how to decide.
struct Pause<'p> {
    name: &'p str,
    path: &'p Path,
}

impl Pause<'_> {
    /// Goes on with a paused run: each undecided call asked on `lines` (when there are lines
    /// to ask on), then resumed. The resumed run's answer, or `None` when it was not paused.
    fn settle(
        &mut self,
        agent_loop: &mut AgentLoop<'_>,
        shown: &mut Shown<'_>,
        mut lines: Option<&mut Lines>,
    ) -> Result<Option<String>, HostError> {
        loop {
            match agent_loop.resume(shown) {
                Ok(answer) => return Ok(answer),
                Err(error) if error.is_paused() => {}
                Err(error) => return Err(error.into()),
            }
            let Some(lines) = lines.as_deref_mut() else {
                return Err(self.said_pending(agent_loop)?);
            };
            for (call, decision) in agent_loop.pending()? {
                if decision.is_some() {
                    continue;
                }
                loop {
                    writeln!(
                        shown.out,
                        "{} wants to run: {} {}",
                        self.name,
                        call.name,
                        printable(&call.args)
                    )?;
                    writeln!(
                        shown.out,
                        "approve it? y (yes), n (no), e (edit the arguments)"
                    )?;
                    shown.out.flush()?;
                    let Some(answer) = lines.next()? else {
                        return Err(self.said_pending(agent_loop)?);
                    };
                    let decision = match answer.trim() {
                        "y" | "yes" => Decision::Approve,
                        "n" | "no" => {
                            writeln!(shown.out, "why not? (the model reads it)")?;
                            shown.out.flush()?;
                            let reason = lines.next()?.unwrap_or_default();
                            let reason = reason.trim();
                            Decision::Deny {
                                reason: if reason.is_empty() {
                                    "the user declined".to_owned()
                                } else {
                                    reason.to_owned()
                                },
                            }
                        }
                        "e" | "edit" => {
                            writeln!(shown.out, "the arguments, as one line of JSON:")?;
                            shown.out.flush()?;
                            let Some(args) = lines.next()? else {
                                return Err(self.said_pending(agent_loop)?);
                            };
                            Decision::ApproveWith {
                                args: args.trim().to_owned(),
                            }
                        }
                        _ => continue,
                    };
                    match agent_loop.decide(&call.id, decision) {
                        Ok(()) => break,
                        Err(error @ AgentError::Edit { .. }) => {
                            writeln!(shown.out, "{error}")?;
                        }
                        Err(error) => return Err(error.into()),
                    }
                }
            }
        }
    }

    /// The error of a run that stopped paused, after saying on standard error what waits and
    /// how to decide.
    fn said(&self, error: AgentError) -> HostError {
        if error.is_paused() {
            self.tell(&error);
        }
        error.into()
    }

    fn said_pending(&self, agent_loop: &AgentLoop<'_>) -> Result<HostError, HostError> {
        let calls = agent_loop
            .pending()?
            .into_iter()
            .filter(|(_, decision)| decision.is_none())
            .map(|(call, _)| call.id)
            .collect();
        Ok(self.said(AgentError::Paused { calls }))
    }

    fn tell(&self, error: &AgentError) {
        let session = self.path.display();
        crate::note!("{} agent: {error}", self.name);
        crate::note!(
            "{} agent: see them with `{} approve {session}`, decide with `{} approve {session} CALL_ID…|--all [--deny REASON]`, then go on with `{} agent --session {session}`",
            self.name,
            self.name,
            self.name,
            self.name
        );
    }
}

/// `toolhost approve`: lists the calls a paused run waits for, or decides on them.
pub(crate) fn approve(
    name: &str,
    session: &tool_runtime::Session,
    calls: &[String],
    all: bool,
    deny: Option<String>,
    args: Option<String>,
) -> Result<ExitCode, HostError> {
    let Some(pending) = tool_agent::approval::pending(session)? else {
        return Err(HostError::Input(
            "no run of this session waits for a decision".to_owned(),
        ));
    };
    if calls.is_empty() && !all {
        if deny.is_some() || args.is_some() {
            return Err(HostError::Input(
                "name the calls to decide, or --all for every undecided one".to_owned(),
            ));
        }
        let mut out = io::stdout().lock();
        for (call, decision) in &pending {
            writeln!(
                out,
                "{}: {} {}",
                printable(&call.id),
                printable(&call.name),
                printable(&call.args)
            )?;
            if !call.why.is_empty() {
                writeln!(out, "  asks because {}", printable(&call.why))?;
            }
            match decision {
                Some(decision) => writeln!(out, "  {}", printable(&decision.to_string()))?,
                None => writeln!(out, "  undecided")?,
            }
        }
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    if deny
        .as_deref()
        .is_some_and(|reason| reason.trim().is_empty())
    {
        return Err(HostError::Input(
            "--deny takes a reason, which the model reads".to_owned(),
        ));
    }
    let chosen: Vec<String> = if all {
        pending
            .iter()
            .filter(|(_, decision)| decision.is_none())
            .map(|(call, _)| call.id.clone())
            .collect()
    } else {
        let mut named: Vec<String> = Vec::new();
        for id in calls {
            if !named.contains(id) {
                named.push(id.clone());
            }
        }
        named
    };
    if all && chosen.is_empty() {
        crate::note!("{name} approve: every waiting call is decided already");
        return Ok(ExitCode::SUCCESS);
    }
    if args.is_some() && chosen.len() != 1 {
        return Err(HostError::Input(
            "--args edits one call: name it".to_owned(),
        ));
    }
    // Every call named is checked before any is decided: all of them are, or none.
    for id in &chosen {
        match pending.iter().find(|(call, _)| &call.id == id) {
            None => {
                return Err(HostError::Input(format!(
                    "no call {id} waits for a decision"
                )));
            }
            Some((_, Some(decision))) => {
                return Err(HostError::Input(
                    AgentError::Decided {
                        id: id.clone(),
                        decision: decision.to_string(),
                    }
                    .to_string(),
                ));
            }
            Some((call, None)) => {
                if let Some(edited) = &args
                    && let Some(refused) = call.refusal(edited)
                {
                    return Err(HostError::Input(
                        AgentError::Edit {
                            id: id.clone(),
                            refused,
                        }
                        .to_string(),
                    ));
                }
            }
        }
    }
    for id in &chosen {
        let decision = match (&deny, &args) {
            (Some(reason), _) => Decision::Deny {
                reason: reason.clone(),
            },
            (None, Some(args)) => Decision::ApproveWith { args: args.clone() },
            (None, None) => Decision::Approve,
        };
        match tool_agent::approval::decide(session, id, &decision) {
            Ok(true) => {}
            Ok(false) => {
                return Err(HostError::Input(format!(
                    "no call {id} waits for a decision"
                )));
            }
            Err(error @ (AgentError::Decided { .. } | AgentError::Edit { .. })) => {
                return Err(HostError::Input(error.to_string()));
            }
            Err(error) => return Err(error.into()),
        }
        let said = match &decision {
            Decision::Deny { .. } => "denied",
            Decision::ApproveWith { .. } => "approved with edited arguments",
            _ => "approved",
        };
        crate::note!("{name} approve: {id} {said}");
    }
    Ok(ExitCode::SUCCESS)
}

/// The policy `--approve` says.
fn approval_policy(rules: &[String]) -> Result<ApprovalPolicy, HostError> {
    let read = |rule: &str| match rule.trim() {
        "ask" => Ok(Approve::Ask),
        "auto" => Ok(Approve::Auto),
        "never" => Ok(Approve::Never),
        other => Err(HostError::Input(format!(
            "--approve {other}: expected ask, auto or never (or TOOL=ask|auto|never)"
        ))),
    };
    let mut policy = ApprovalPolicy::new();
    for rule in rules {
        policy = match rule.split_once('=') {
            Some((tool, rule)) => policy.tool(tool.trim(), read(rule)?),
            None => policy.default_to(read(rule)?),
        };
    }
    Ok(policy)
}

/// The interactive chat: a prompt per line (a readline editor on a terminal), until `quit`,
/// `exit` or the end of input. A turn the provider stops is reported and the chat goes on.
fn chat(
    name: &str,
    agent: &Agent,
    agent_loop: &mut AgentLoop<'_>,
    shown: &mut Shown<'_>,
    pause: &mut Pause<'_>,
) -> Result<ExitCode, HostError> {
    let mut lines = Lines::new()?;
    // A paused run goes on before any prompt is read (its text shows as it comes).
    if pause.settle(agent_loop, shown, Some(&mut lines))?.is_some() {
        writeln!(shown.out)?;
    }
    if let Some(todos) =
        tool_todo::current(agent.session()).map_err(|error| HostError::Input(error.to_string()))?
    {
        write!(
            shown.out,
            "{}",
            tool_todo::checklist(&todos, &crate::repl::style())
        )?;
    }
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
            Err(error) if error.is_paused() => {
                writeln!(shown.out)?;
                if pause.settle(agent_loop, shown, Some(&mut lines))?.is_some() {
                    writeln!(shown.out)?;
                }
            }
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
