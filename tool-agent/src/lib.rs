//! The agent loop for `#[tool]` hosts: a model on any provider calls the host's tools until it
//! answers.
//!
//! - [`Client`] talks to a provider's HTTP API (rustls), streamed ([`sse`]) or not, with
//!   bounded retries for rate limits and failures;
//! - [`request::body`] writes each provider's request: the model, the conversation, the tools'
//!   definitions in the provider's dialect;
//! - [`Conversation`] keeps the messages in the agent's session (`agent/messages` events), so a
//!   resumed session goes on where it stopped, and compacts them to a budget without ever
//!   splitting a call from its result, restating the todo list after
//!   (`tool_todo::restatement`);
//! - [`search`]: tools [deferred](tool_runtime::Definition::deferred) stay out of the requests
//!   until a search of the model's finds them (BM25, here), then load for the rest of the
//!   session;
//! - [`AgentLoop`] runs one prompt: request, calls run as one batch
//!   ([`ModelTurn::run`](tool_wire::ModelTurn::run)), results back, until the model answers without calls.
//!
//! The calls and results themselves are [`tool_wire`]'s: pure data, the same for any
//! host that does its own HTTP.
//!
//! ```no_run
//! use tool_agent::{AgentLoop, Client, ClientConfig};
//! use tool_wire::Provider;
//! use tool_runtime::{Agent, Ctx, Session};
//!
//! let mut ctx = Ctx::new();
//! ctx.plugin::<tool_todo::TodoWrite>().unwrap();
//! let agent = Agent::new("a", Session::in_memory());
//! let config = ClientConfig::new(Provider::Anthropic, "claude-sonnet-4-5").key_from_env();
//! let mut agent_loop = AgentLoop::new(&ctx.tools, agent, Client::new(config)?)?;
//! let answer = agent_loop.prompt("Plan a release of this crate.", &mut ())?;
//! println!("{answer}");
//! # Ok::<(), tool_agent::AgentError>(())
//! ```
//!
//! # The room
//!
//! It uses `tool-runtime` (the tools, the session), `tool-wire` (each provider's format),
//! `tool-todo` (the list restated when a conversation is compacted) and ureq for HTTP; no MCP
//! (other servers' tools arrive as runtime-defined tools, from `tool-mcp`'s toolsets) and no
//! command line (`tool-host`).

pub mod approval;
pub mod client;
pub mod conversation;
mod error;
mod observer;
pub mod preview;
pub mod request;
pub mod search;
mod secret;
pub mod sse;

use serde_json::value::RawValue;
use tool_runtime::{Agent, Cancel, Exec, ToolOutput, ToolRegistry};
use tool_wire::{ModelTurn, Provider};

pub use client::{Client, ClientConfig, Deadline};
pub use conversation::{Compaction, Conversation, Role};
pub use error::AgentError;
pub use observer::{Observer, Retry};
pub use request::RequestOptions;

/// The kind of the session event that records one model response's token usage
/// ([`Usage`](tool_wire::Usage), as JSON).
pub const USAGE_EVENT: &str = "agent/usage";

/// The kind of the session event that records where a run stopped at a budget:
/// `{"budget": "requests" | "tokens" | "tool calls", "limit": N}`.
pub const STOPPED_EVENT: &str = "agent/stopped";

/// Limits on one run of a loop (everything its prompts do, from [`AgentLoop::new`]); `None`
/// is no limit. A run that reaches one stops before the request or the calls that would pass
/// it, with [`AgentError::Budget`], and records [`STOPPED_EVENT`]; the session goes on from
/// there with a larger budget.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Budget {
    /// The most input and output tokens, as the provider reports them.
    pub tokens: Option<u64>,
    /// The most requests to the provider.
    pub requests: Option<u64>,
    /// The most tool calls.
    pub tool_calls: Option<u64>,
}

/// What a loop has used so far: requests, tokens, tool calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Used {
    /// Requests the provider answered.
    pub requests: u64,
    /// The tokens of those answers.
    pub usage: tool_wire::Usage,
    /// Tool calls run.
    pub tool_calls: u64,
}

/// One agent's loop: its tools, its session (where the conversation and the tools' events are
/// kept) and a client for its model.
pub struct AgentLoop<'t> {
    tools: Tools<'t>,
    /// Asked before each request for a new set of tools ([`AgentLoop::with_tool_updates`]).
    updates: Option<Box<dyn FnMut() -> Option<ToolRegistry> + 't>>,
    agent: Agent,
    client: Client,
    conversation: Conversation,
    definitions: Box<RawValue>,
    /// Of the definitions' bytes, those the model's context holds (not the ones a provider
    /// keeps back until its search finds them).
    shown_bytes: usize,
    /// The search and the tools it loaded, when some tools are deferred.
    deferral: Option<Deferral>,
    /// How deferred tools are searched, whether any are now or only after the tools change.
    tool_search: search::Mode,
    max_turns: u32,
    context_budget: Option<usize>,
    max_tokens: u32,
    deadline: Option<std::time::Duration>,
    budget: Budget,
    used: Used,
    approval: approval::ApprovalPolicy,
    /// The turn whose calls wait for decisions, when the run is paused.
    paused: Option<Paused>,
}

/// A turn paused for decisions: its calls, the outputs it has, the calls still pending.
struct Paused {
    turn: ModelTurn,
    /// The seq of the model turn's event.
    seq: u64,
    outputs: Vec<Option<ToolOutput>>,
    pending: Vec<approval::PendingCall>,
}

impl std::fmt::Debug for AgentLoop<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentLoop")
            .field("agent", &self.agent)
            .field("client", &self.client)
            .field("max_turns", &self.max_turns)
            .field("context_budget", &self.context_budget)
            .field("deadline", &self.deadline)
            .finish_non_exhaustive()
    }
}

impl<'t> AgentLoop<'t> {
    /// A loop for `agent` with `tools`, on `client`'s model, going on with the conversation
    /// the agent's session holds. Calls of a turn whose results were never recorded (the last
    /// host stopped between the two) are answered first, so the provider sees every call
    /// paired: each with the output recorded for it as it finished, or, when it had none,
    /// `Error: ` [`conversation::INTERRUPTED`] (the model can check and call again).
    ///
    /// At most 50 model turns per prompt, no compaction, 8192 tokens per answer, no deadline.
    pub fn new(tools: &'t ToolRegistry, agent: Agent, client: Client) -> Result<Self, AgentError> {
        let provider = client.config().provider;
        let deferral = Deferral::of(
            tools,
            None,
            agent.session(),
            search::Mode::default(),
            provider,
        )?;
        let (definitions, shown_bytes) = offered(tools, deferral.as_ref(), provider.dialect())?;
        let mut conversation = Conversation::open(agent.session().clone(), provider)?;
        let mut paused = None;
        if let Some((turn, outputs)) = conversation.unanswered()? {
            match approval::last_pending(agent.session())? {
                // Paused for decisions: the calls that ran keep their outputs, the pending ones
                // wait (a call whose output was recorded is pending no more).
                Some(pending) => {
                    let recorded = conversation.recorded();
                    let outputs: Vec<Option<ToolOutput>> = outputs
                        .into_iter()
                        .enumerate()
                        .map(|(index, output)| recorded.contains(&index).then_some(output))
                        .collect();
                    let still: Vec<approval::PendingCall> = pending
                        .calls
                        .into_iter()
                        .filter(|call| outputs.get(call.index).is_some_and(Option::is_none))
                        .collect();
                    paused = Some(Paused {
                        turn,
                        seq: pending.turn,
                        outputs,
                        pending: still,
                    });
                }
                None => conversation.push(Role::Results, provider.results(&turn, &outputs))?,
            }
        }
        Ok(AgentLoop {
            tools: Tools::Borrowed(tools),
            updates: None,
            agent,
            client,
            conversation,
            definitions,
            shown_bytes,
            deferral,
            tool_search: search::Mode::default(),
            max_turns: 50,
            context_budget: None,
            max_tokens: 8192,
            deadline: None,
            budget: Budget::default(),
            used: Used::default(),
            approval: approval::ApprovalPolicy::new(),
            paused,
        })
    }

    /// At most `turns` model turns per prompt: past them, [`AgentError::MaxTurns`] (with 0, a
    /// prompt is refused so before it is recorded).
    pub fn with_max_turns(mut self, turns: u32) -> Self {
        self.max_turns = turns;
        self
    }

    /// Compact the conversation before a request whose estimated size (conversation and
    /// definitions) passes `tokens` ([`Conversation::compact`]).
    pub fn with_context_budget(mut self, tokens: Option<usize>) -> Self {
        self.context_budget = tokens;
        self
    }

    /// The most tokens one answer may have (sent to Anthropic, which requires it).
    pub fn with_max_tokens(mut self, tokens: u32) -> Self {
        self.max_tokens = tokens;
        self
    }

    /// At most `limit` for one prompt, from when it is sent: its requests, their retries and the
    /// tools' calls (cancelled when it passes). Past it, [`AgentError::Deadline`].
    pub fn with_deadline(mut self, limit: Option<std::time::Duration>) -> Self {
        self.deadline = limit;
        self
    }

    /// Tools that may change while the loop runs (another MCP server's, whose list changed):
    /// `updates` is asked before each request and returns the whole new set when there is one
    /// (`None`: the same tools). The next request carries the new definitions; calls already
    /// made ran on the tools they were made to.
    pub fn with_tool_updates(mut self, updates: impl FnMut() -> Option<ToolRegistry> + 't) -> Self {
        self.updates = Some(Box::new(updates));
        self
    }

    /// The definitions the next request carries, in the provider's dialect: a JSON array (with
    /// deferred tools, see [`search`]).
    pub fn definitions(&self) -> &RawValue {
        &self.definitions
    }

    /// The tools the next request offers.
    pub fn tools(&self) -> &ToolRegistry {
        self.tools.get()
    }

    /// How deferred tools are searched ([`search::Mode`]; by default the provider's own search
    /// where it has one). Fails as [`AgentLoop::new`] does, when a deferred tool the request
    /// now carries cannot be rendered in the provider's dialect.
    pub fn with_tool_search(mut self, mode: search::Mode) -> Result<Self, AgentError> {
        let provider = self.provider();
        self.tool_search = mode;
        if let Some(deferral) = &mut self.deferral {
            deferral.search_by(mode, provider);
            (self.definitions, self.shown_bytes) =
                offered(self.tools.get(), Some(deferral), provider.dialect())?;
        }
        Ok(self)
    }

    /// Which calls wait for a person's decision ([`approval`]); by default a tool that says it
    /// needs approval and a destructive one.
    pub fn with_approval(mut self, policy: approval::ApprovalPolicy) -> Self {
        self.approval = policy;
        self
    }

    /// The calls waiting for a decision, each with the decision it has so far (the session's,
    /// which another process may have written), when the run is paused.
    pub fn pending(&self) -> Result<Vec<approval::Waiting>, AgentError> {
        let Some(paused) = &self.paused else {
            return Ok(Vec::new());
        };
        let decisions = approval::decisions(self.agent.session(), paused.seq)?;
        Ok(paused
            .pending
            .iter()
            .map(|call| (call.clone(), decisions.get(&call.id).cloned()))
            .collect())
    }

    /// Decides on the pending call `id`: edited arguments are checked against the tool's schema
    /// first, and refused as a call with them would be ([`AgentError::Edit`]), nothing
    /// recorded.
    pub fn decide(&mut self, id: &str, decision: approval::Decision) -> Result<(), AgentError> {
        let Some(paused) = &self.paused else {
            return Err(AgentError::NotPending(id.to_owned()));
        };
        let Some(call) = paused.pending.iter().find(|call| call.id == id) else {
            return Err(AgentError::NotPending(id.to_owned()));
        };
        if let approval::Decision::ApproveWith { args } = &decision
            && let Some(refused) = self.refusal(&call.name, args)
        {
            return Err(AgentError::Edit {
                id: id.to_owned(),
                refused,
            });
        }
        if !approval::decide(self.agent.session(), id, &decision)? {
            return Err(AgentError::NotPending(id.to_owned()));
        }
        Ok(())
    }

    /// What a call of `tool` with `args` would be refused with, before it runs.
    fn refusal(&self, tool: &str, args: &str) -> Option<String> {
        let tool = self.tools().get(tool)?;
        tool.check_args(args).map(|refused| refused.text)
    }

    /// Goes on with a paused run once every pending call is decided: the approved ones run
    /// (once), the denied ones answer their reason, and the model is sent the turn's results;
    /// then the loop goes on until it answers, as [`AgentLoop::prompt`] does. `Ok(None)` when
    /// the run was not paused; [`AgentError::Paused`] while a call is undecided (or its edited
    /// arguments were refused, which sets its decision aside).
    pub fn resume(&mut self, observer: &mut dyn Observer) -> Result<Option<String>, AgentError> {
        let Some(mut paused) = self.paused.take() else {
            return Ok(None);
        };
        let span = self.invoke_span();
        let _entered = span.enter();
        let session = self.agent.session().clone();
        let decisions = approval::decisions(&session, paused.seq)?;
        let mut undecided = Vec::new();
        let mut runs: Vec<(usize, String)> = Vec::new();
        for call in &paused.pending {
            match decisions.get(&call.id) {
                None => undecided.push(call.clone()),
                Some(approval::Decision::Deny { reason }) => {
                    paused.outputs[call.index] = Some(approval::denied(reason));
                }
                Some(approval::Decision::Approve) => runs.push((call.index, call.args.clone())),
                Some(approval::Decision::ApproveWith { args }) => {
                    match self.refusal(&call.name, args) {
                        Some(refused) => {
                            // Set aside: asked again.
                            session.append(
                                approval::DECISION_EVENT,
                                &approval::Decided {
                                    turn: paused.seq,
                                    id: call.id.clone(),
                                    decision: None,
                                    refused: Some(refused),
                                },
                            )?;
                            undecided.push(call.clone());
                        }
                        None => runs.push((call.index, args.clone())),
                    }
                }
            }
        }
        if !undecided.is_empty() {
            let calls = undecided.iter().map(|call| call.id.clone()).collect();
            // Nothing ran; the decisions are read again on the next resume.
            self.paused = Some(paused);
            return Err(AgentError::Paused { calls });
        }
        // An approved call of a tool this run does not offer (its toolset not attached, say)
        // is not answered "unknown tool": the run stops as it is, for a run that offers it.
        if let Some(call) = paused
            .pending
            .iter()
            .find(|call| runs.iter().any(|(index, _)| *index == call.index))
            .filter(|call| self.tools().get(&call.name).is_none())
        {
            let error = AgentError::Unoffered {
                id: call.id.clone(),
                tool: call.name.clone(),
            };
            self.paused = Some(paused);
            return Err(error);
        }
        // The approved calls are this run's calls: its budget of calls holds them too (nothing
        // runs past it; the turn stays paused for a run with more).
        if let Some(limit) = self.budget.tool_calls
            && self.used.tool_calls + runs.len() as u64 > limit
        {
            let stopped = format!(
                "{} ran; the paused turn's {} approved calls were not run",
                self.used.tool_calls,
                runs.len()
            );
            self.paused = Some(paused);
            return Err(self.stop("tool calls", "--max-tool-calls", limit, &stopped));
        }
        self.used.tool_calls += runs.len() as u64;
        let deadline = self.deadline.map(Deadline::after);
        let outputs = self.run_calls(deadline.as_ref(), &paused.turn, &runs)?;
        for (index, output) in outputs {
            paused.outputs[index] = Some(output);
        }
        let outputs: Vec<ToolOutput> = paused
            .outputs
            .into_iter()
            .map(|output| output.unwrap_or_else(|| ToolOutput::error(conversation::INTERRUPTED)))
            .collect();
        observer.results(&paused.turn, &outputs);
        let provider = self.provider();
        self.conversation
            .push(Role::Results, provider.results(&paused.turn, &outputs))?;
        self.turns(observer, deadline.as_ref()).map(Some)
    }

    /// Runs the calls of `turn` at `runs` (their index, the arguments to run them with), as one
    /// batch, recording each output as soon as it has it.
    fn run_calls(
        &self,
        deadline: Option<&Deadline>,
        turn: &ModelTurn,
        runs: &[(usize, String)],
    ) -> Result<Vec<(usize, ToolOutput)>, AgentError> {
        if runs.is_empty() {
            return Ok(Vec::new());
        }
        let calls: Vec<tool_runtime::ToolCall> = runs
            .iter()
            .map(|(index, args)| {
                let call = &turn.calls[*index];
                tool_runtime::ToolCall::new(call.name.clone(), args.clone())
                    .with_id(call.id.clone())
            })
            .collect();
        let unrecorded = std::sync::Mutex::new(None);
        let conversation = &self.conversation;
        let tools = self.tools();
        let outputs = run_within(deadline, Exec::for_agent(self.agent.clone()), |exec| {
            tools.call_batch_with(exec, &calls, &|at, output| {
                let index = runs[at].0;
                if let Err(error) = conversation.record(index, &turn.calls[index], output) {
                    let mut first = unrecorded.lock().unwrap_or_else(|p| p.into_inner());
                    first.get_or_insert(error);
                }
            })
        });
        if let Some(error) = unrecorded.into_inner().unwrap_or_else(|p| p.into_inner()) {
            return Err(error);
        }
        Ok(runs.iter().map(|(index, _)| *index).zip(outputs).collect())
    }

    /// Limits on the run: tokens, requests, tool calls ([`Budget`]).
    pub fn with_budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// What the run has used so far.
    pub fn used(&self) -> Used {
        self.used
    }

    /// Stops the run at `what`'s budget: records where in the session, and says so.
    fn stop(
        &self,
        what: &'static str,
        flag: &'static str,
        limit: u64,
        stopped: &str,
    ) -> AgentError {
        let recorded = self.agent.session().append(
            STOPPED_EVENT,
            &serde_json::json!({"budget": what, "limit": limit}),
        );
        match recorded {
            Err(error) => error.into(),
            Ok(_) => AgentError::Budget {
                what,
                flag,
                limit,
                stopped: stopped.to_owned(),
            },
        }
    }

    /// The conversation so far.
    pub fn conversation(&self) -> &Conversation {
        &self.conversation
    }

    /// The provider.
    pub fn provider(&self) -> Provider {
        self.conversation.provider()
    }

    /// Sends `prompt` and runs the model's calls, turn after turn, until it answers without
    /// calls; returns that answer's text. Everything is appended to the session as it
    /// happens: the prompt, each model turn, the tools' own events, each call's output as soon
    /// as it has it, each turn's results.
    pub fn prompt(
        &mut self,
        prompt: &str,
        observer: &mut dyn Observer,
    ) -> Result<String, AgentError> {
        if let Some(paused) = &self.paused {
            return Err(AgentError::Paused {
                calls: paused.pending.iter().map(|call| call.id.clone()).collect(),
            });
        }
        if self.max_turns == 0 {
            return Err(AgentError::MaxTurns(0));
        }
        let span = self.invoke_span();
        let _entered = span.enter();
        let deadline = self.deadline.map(Deadline::after);
        self.conversation.push_prompt(prompt)?;
        self.turns(observer, deadline.as_ref())
    }

    /// The span of one run of the loop (a prompt, or a resumed pause): OpenTelemetry's
    /// `invoke_agent`, with the provider, the model and the session as the conversation's id.
    fn invoke_span(&self) -> tracing::Span {
        tracing::info_span!(
            "invoke_agent",
            otel.name = "invoke_agent",
            gen_ai.operation.name = "invoke_agent",
            gen_ai.provider.name = provider_name(self.provider()),
            gen_ai.request.model = self.client.config().model.as_str(),
            gen_ai.conversation.id = self.agent.session().id(),
        )
    }

    /// Requests and the model's calls, turn after turn, until it answers without calls.
    fn turns(
        &mut self,
        observer: &mut dyn Observer,
        deadline: Option<&Deadline>,
    ) -> Result<String, AgentError> {
        let provider = self.provider();
        for turn_number in 0..self.max_turns {
            if let Some(deadline) = deadline
                && deadline.remaining().is_none()
            {
                return Err(deadline.reached(if turn_number == 0 {
                    "no request was sent"
                } else {
                    "the model's calls ran until it; no request was sent after them"
                }));
            }
            if let Some(updates) = &mut self.updates
                && let Some(tools) = updates()
            {
                // Without deferred tools until now, what was loaded is the session's to say.
                let loaded = self.deferral.take().map(|deferral| deferral.loaded);
                self.deferral = Deferral::of(
                    &tools,
                    loaded,
                    self.agent.session(),
                    self.tool_search,
                    provider,
                )?;
                (self.definitions, self.shown_bytes) =
                    offered(&tools, self.deferral.as_ref(), provider.dialect())?;
                self.tools = Tools::Owned(Box::new(tools));
            }
            let definition_tokens = self.shown_bytes.div_ceil(conversation::BYTES_PER_TOKEN);
            if let Some(budget) = self.context_budget
                && let Some(compaction) = self.conversation.compact(budget, definition_tokens)?
            {
                observer.compacted(&compaction);
            }
            if let Some(limit) = self.budget.requests
                && self.used.requests >= limit
            {
                return Err(self.stop(
                    "requests",
                    "--max-requests",
                    limit,
                    "no request was sent after it",
                ));
            }
            if let Some(limit) = self.budget.tokens
                && self.used.usage.total() >= limit
            {
                return Err(self.stop(
                    "tokens",
                    "--token-budget",
                    limit,
                    &format!(
                        "{} were used; no request was sent after them",
                        self.used.usage.total()
                    ),
                ));
            }
            let options = RequestOptions {
                model: &self.client.config().model,
                tools: &self.definitions,
                stream: self.client.config().stream,
                max_tokens: self.max_tokens,
            };
            let body = request::body(provider, &options, self.conversation.messages());
            let chat = tracing::info_span!(
                "chat",
                otel.name = tracing::field::Empty,
                otel.kind = "client",
                gen_ai.operation.name = "chat",
                gen_ai.provider.name = provider_name(provider),
                gen_ai.request.model = options.model,
                gen_ai.conversation.id = self.agent.session().id(),
                gen_ai.response.id = tracing::field::Empty,
                gen_ai.response.model = tracing::field::Empty,
                gen_ai.response.finish_reasons = tracing::field::Empty,
                gen_ai.usage.input_tokens = tracing::field::Empty,
                gen_ai.usage.output_tokens = tracing::field::Empty,
                error.type = tracing::field::Empty,
                otel.status_code = tracing::field::Empty,
            );
            if !chat.is_disabled() {
                chat.record("otel.name", format!("chat {}", options.model));
            }
            let sent = chat.in_scope(|| self.client.send_until(&body, observer, deadline));
            let mut turn = match sent {
                Ok(turn) => turn,
                Err(error) => {
                    chat.record("error.type", "provider_error");
                    chat.record("otel.status_code", "error");
                    return Err(error);
                }
            };
            if let Some(id) = &turn.response_id {
                chat.record("gen_ai.response.id", id.as_str());
            }
            if let Some(model) = &turn.response_model {
                chat.record("gen_ai.response.model", model.as_str());
            }
            if let Some(reason) = &turn.stop_reason {
                chat.record("gen_ai.response.finish_reasons", reason.as_str());
            }
            if let Some(usage) = &turn.usage {
                // As integers: OpenTelemetry has no unsigned ones.
                chat.record("gen_ai.usage.input_tokens", signed(usage.input));
                chat.record("gen_ai.usage.output_tokens", signed(usage.output));
            }
            drop(chat);
            self.used.requests += 1;
            self.conversation
                .push(Role::Model, std::mem::take(&mut turn.message))?;
            // The provider's own searches: what they found is loaded, as a search of ours.
            if let Some(deferral) = &mut self.deferral {
                for search in &turn.searches {
                    deferral.load(self.tools.get(), &self.agent, &search.query, &search.tools)?;
                }
            }
            if let Some(usage) = turn.usage {
                self.used.usage += usage;
                self.agent.session().append(USAGE_EVENT, &usage)?;
            }
            if turn.calls.is_empty() {
                return Ok(turn.text);
            }
            if let Some(limit) = self.budget.tool_calls
                && self.used.tool_calls + turn.calls.len() as u64 > limit
            {
                // The calls are answered, so the conversation goes on from here when the run
                // is resumed with a larger budget: none of them ran.
                let outputs: Vec<ToolOutput> = turn
                    .calls
                    .iter()
                    .map(|_| {
                        ToolOutput::error(format!(
                            "not run: the run reached its budget of {limit} tool calls"
                        ))
                    })
                    .collect();
                self.conversation
                    .push(Role::Results, provider.results(&turn, &outputs))?;
                return Err(self.stop(
                    "tool calls",
                    "--max-tool-calls",
                    limit,
                    &format!(
                        "{} ran; the model's next {} were not run",
                        self.used.tool_calls,
                        turn.calls.len()
                    ),
                ));
            }
            self.used.tool_calls += turn.calls.len() as u64;
            observer.calls(&turn);
            // Each call as the policy has it: run now, denied now, or waiting for a person.
            let mut outputs: Vec<Option<ToolOutput>> = vec![None; turn.calls.len()];
            let mut runs = Vec::new();
            let mut pending = Vec::new();
            let loaded_before = self.deferral.as_ref().map(|deferral| deferral.loaded.len());
            for (index, call) in turn.calls.iter().enumerate() {
                // The search, and a call of a deferred tool not loaded: answered here.
                if let Some(deferral) = &mut self.deferral {
                    if deferral.native.is_none() && call.name == search::SEARCH_TOOL {
                        outputs[index] =
                            Some(deferral.search(self.tools.get(), &self.agent, &call.args)?);
                        continue;
                    }
                    if self.tools.get().get(&call.name).is_none() {
                        outputs[index] = Some(deferral.unknown(self.tools.get(), &call.name));
                        continue;
                    }
                    if deferral.hides(self.tools.get(), &call.name) {
                        outputs[index] = Some(search::not_loaded(&call.name));
                        continue;
                    }
                }
                let rule = self
                    .tools()
                    .get(&call.name)
                    .map_or(approval::Approve::Auto, |tool| {
                        self.approval.rule(tool.definition())
                    });
                match rule {
                    approval::Approve::Auto => runs.push((index, call.args.clone())),
                    approval::Approve::Never => {
                        outputs[index] = Some(approval::denied(&format!(
                            "{} is not run without a person's approval, and this run asks none",
                            call.name
                        )));
                    }
                    approval::Approve::Ask => {
                        let definition = self.tools().get(&call.name).map(|tool| tool.definition());
                        pending.push(approval::PendingCall {
                            index,
                            id: call.id.clone(),
                            name: call.name.clone(),
                            args: call.args.clone(),
                            why: definition
                                .map(|definition| self.approval.why(definition))
                                .unwrap_or_default(),
                            schema: definition.map(|definition| definition.input_schema().clone()),
                        });
                    }
                }
            }
            if loaded_before != self.deferral.as_ref().map(|deferral| deferral.loaded.len()) {
                (self.definitions, self.shown_bytes) =
                    offered(self.tools.get(), self.deferral.as_ref(), provider.dialect())?;
            }
            if !pending.is_empty() {
                // Recorded before the others run: a host stopped meanwhile resumes paused.
                let seq = self.conversation.last_model_seq().unwrap_or_default();
                self.agent.session().append(
                    approval::PENDING_EVENT,
                    &approval::Pending {
                        turn: seq,
                        calls: pending.clone(),
                    },
                )?;
                for (index, output) in self.run_calls(deadline, &turn, &runs)? {
                    outputs[index] = Some(output);
                }
                for (index, output) in outputs.iter().enumerate() {
                    if let Some(output) = output
                        && !runs.iter().any(|(ran, _)| *ran == index)
                    {
                        self.conversation
                            .record(index, &turn.calls[index], output)?;
                    }
                }
                let calls = pending.iter().map(|call| call.id.clone()).collect();
                self.paused = Some(Paused {
                    turn,
                    seq,
                    outputs,
                    pending,
                });
                return Err(AgentError::Paused { calls });
            }
            for (index, output) in self.run_calls(deadline, &turn, &runs)? {
                outputs[index] = Some(output);
            }
            let outputs: Vec<ToolOutput> = outputs
                .into_iter()
                .map(|output| output.unwrap_or_else(|| ToolOutput::error("the call was not run")))
                .collect();
            observer.results(&turn, &outputs);
            self.conversation
                .push(Role::Results, provider.results(&turn, &outputs))?;
        }
        Err(AgentError::MaxTurns(self.max_turns))
    }
}

/// A provider as OpenTelemetry's `gen_ai.provider.name` names it.
fn provider_name(provider: Provider) -> &'static str {
    match provider {
        Provider::OpenAiChat | Provider::OpenAiResponses => "openai",
        Provider::Anthropic => "anthropic",
        Provider::Gemini => "gcp.gemini",
        _ => provider.name(),
    }
}

/// A loop's tools: the host's, or a set that replaced them.
enum Tools<'t> {
    Borrowed(&'t ToolRegistry),
    Owned(Box<ToolRegistry>),
}

impl Tools<'_> {
    fn get(&self) -> &ToolRegistry {
        match self {
            Tools::Borrowed(tools) => tools,
            Tools::Owned(tools) => tools,
        }
    }
}

/// A run's deferred tools: their index, the search tool that searches it, the tools loaded.
struct Deferral {
    index: search::ToolIndex,
    /// The search tool, as the one tool of a registry of its own: its calls' arguments are
    /// checked as any tool's.
    search: ToolRegistry,
    /// The query of the search tool's last call that was not refused (its handler's).
    asked: search::Asked,
    /// The tools loaded, in the order loaded.
    loaded: Vec<String>,
    /// The provider's own search tool, when it has one and the mode uses it.
    native: Option<&'static str>,
    /// Whether that search takes deferred tools in groups (OpenAI Responses' namespaces).
    grouped: bool,
}

impl Deferral {
    /// The deferral of `tools` searched by `mode`, if any of them is deferred, with `loaded`
    /// loaded (when `None`, those `session` says were loaded).
    fn of(
        tools: &ToolRegistry,
        loaded: Option<Vec<String>>,
        session: &tool_runtime::Session,
        mode: search::Mode,
        provider: Provider,
    ) -> Result<Option<Self>, AgentError> {
        if !tools.definitions().any(tool_runtime::Definition::deferred) {
            return Ok(None);
        }
        if tools.get(search::SEARCH_TOOL).is_some() {
            return Err(AgentError::SearchNamed(search::SEARCH_TOOL));
        }
        let index = search::ToolIndex::new(
            tools
                .definitions()
                .filter(|definition| definition.deferred()),
        );
        let asked = search::Asked::default();
        let mut search = ToolRegistry::default();
        search
            .register(search::search_tool(&asked))
            .expect("the search tool's schema is one the runtime enforces");
        let loaded = match loaded {
            Some(loaded) => loaded,
            None => search::loaded(session)?,
        };
        let mut deferral = Deferral {
            index,
            search,
            asked,
            loaded,
            native: None,
            grouped: false,
        };
        deferral.search_by(mode, provider);
        Ok(Some(deferral))
    }

    /// Searched by `mode` on `provider`.
    fn search_by(&mut self, mode: search::Mode, provider: Provider) {
        self.native = mode.native(provider);
        self.grouped = self.native.is_some() && provider == Provider::OpenAiResponses;
    }

    /// Whether a request offers `definition`'s tool to the model (in this framework's search):
    /// one not deferred, or loaded.
    fn offers(&self, definition: &tool_runtime::Definition) -> bool {
        !definition.deferred() || self.loaded.iter().any(|name| name == definition.name())
    }

    /// What a call of `name`, which `tools` does not have, answers: the unknown-tool error
    /// naming the tools offered (not the deferred ones waiting for a search), and this
    /// framework's search when it is offered.
    fn unknown(&self, tools: &ToolRegistry, name: &str) -> ToolOutput {
        let unknown = tools.unknown(name, |definition| self.offers(definition));
        if self.native.is_some() {
            return unknown;
        }
        let text = unknown
            .text
            .strip_prefix("Error: ")
            .unwrap_or(&unknown.text);
        ToolOutput::error(format!(
            "{text}; more are found with {}",
            search::SEARCH_TOOL
        ))
    }

    /// Whether `name`, a tool of `tools`, is deferred and not loaded.
    fn hides(&self, tools: &ToolRegistry, name: &str) -> bool {
        tools
            .get(name)
            .is_some_and(|tool| !self.offers(tool.definition()))
    }

    /// Answers a call of the search tool with `args`: the deferred tools of `tools` it finds
    /// are loaded, and recorded in `agent`'s session.
    fn search(
        &mut self,
        tools: &ToolRegistry,
        agent: &Agent,
        args: &str,
    ) -> Result<ToolOutput, AgentError> {
        let output = self
            .search
            .call(search::SEARCH_TOOL, &Exec::new(), args)
            .wait();
        let Some(query) = self.asked.take() else {
            // Refused: the model reads why.
            return Ok(output);
        };
        let hits: Vec<String> = self
            .index
            .search(&query.text, query.limit)
            .iter()
            .map(|hit| hit.name.to_owned())
            .collect();
        self.load(tools, agent, &query.text, &hits)?;
        let found: Vec<&tool_runtime::Definition> = hits
            .iter()
            .filter_map(|name| tools.get(name))
            .map(|tool| tool.definition())
            .collect();
        Ok(ToolOutput::success(search::answer(&query.text, &found)))
    }

    /// Loads the deferred tools of `tools` among `found`, found by a search of `query` (a
    /// provider's search may name others: they are not loaded): recorded in `agent`'s session
    /// (when there are any), offered from the next request.
    fn load(
        &mut self,
        tools: &ToolRegistry,
        agent: &Agent,
        query: &str,
        found: &[String],
    ) -> Result<(), AgentError> {
        let found: Vec<String> = found
            .iter()
            .filter(|name| {
                tools
                    .get(name)
                    .is_some_and(|tool| tool.definition().deferred())
            })
            .cloned()
            .collect();
        if found.is_empty() {
            return Ok(());
        }
        agent.session().append(
            search::LOADED_EVENT,
            &search::Loaded {
                query: query.to_owned(),
                tools: found.clone(),
            },
        )?;
        for tool in &found {
            if !self.loaded.contains(tool) {
                self.loaded.push(tool.clone());
            }
        }
        Ok(())
    }
}

/// The definitions a request offers in `dialect`: every tool's, or, with deferred tools, those
/// not deferred, those loaded and the search tool's; or, where the provider searches, every
/// tool's, the deferred ones marked `"defer_loading": true`, and the provider's search tool.
/// With the bytes of them the model's context holds: all but the ones marked.
fn offered(
    tools: &ToolRegistry,
    deferral: Option<&Deferral>,
    dialect: tool_runtime::Dialect,
) -> Result<(Box<RawValue>, usize), AgentError> {
    let mut held_back = 0;
    let json = match deferral {
        None => tools.definitions_json(dialect)?.to_owned(),
        Some(Deferral {
            native: Some(native),
            grouped,
            ..
        }) => {
            let mut out = String::from("[");
            // A group's name and description, and its tools' entries.
            let mut groups: Vec<(&str, &str, String)> = Vec::new();
            for definition in tools.definitions() {
                let json = definition.json(dialect)?;
                if !definition.deferred() {
                    out.push_str(json);
                    out.push(',');
                    continue;
                }
                // `{…}` with one member more, last: the rest byte for byte as rendered.
                let entry = format!(r#"{},"defer_loading":true}}"#, &json[..json.len() - 1]);
                held_back += entry.len() + 1;
                match definition.namespace().filter(|_| *grouped) {
                    Some((name, description)) => {
                        let at = match groups.iter().position(|group| group.0 == name) {
                            Some(at) => at,
                            None => {
                                groups.push((name, description, String::new()));
                                groups.len() - 1
                            }
                        };
                        let entries = &mut groups[at].2;
                        if !entries.is_empty() {
                            entries.push(',');
                        }
                        entries.push_str(&entry);
                    }
                    None => {
                        out.push_str(&entry);
                        out.push(',');
                    }
                }
            }
            for (name, description, entries) in groups {
                let head = serde_json::json!({
                    "type": "namespace",
                    "name": name,
                    "description": description,
                })
                .to_string();
                out.push_str(&head[..head.len() - 1]);
                out.push_str(r#","tools":["#);
                out.push_str(&entries);
                out.push_str("]},");
            }
            out.push_str(native);
            out.push(']');
            out
        }
        Some(deferral) => {
            let mut out = String::from("[");
            for definition in tools
                .definitions()
                .filter(|definition| deferral.offers(definition))
            {
                out.push_str(definition.json(dialect)?);
                out.push(',');
            }
            let search = deferral.search.definitions_json(dialect)?;
            out.push_str(&search[1..]);
            out
        }
    };
    let shown = json.len() - held_back;
    Ok((
        RawValue::from_string(json).expect("the definitions are a JSON array"),
        shown,
    ))
}

/// Runs `calls` with `exec`, cancelled at `deadline` if they are still running then.
fn run_within<T>(deadline: Option<&Deadline>, exec: Exec, calls: impl FnOnce(&Exec) -> T) -> T {
    let Some(deadline) = deadline else {
        return calls(&exec);
    };
    let left = deadline.remaining().unwrap_or_default();
    let cancel = Cancel::new();
    let exec = exec.with_cancel(cancel.clone());
    let (done, finished) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            // Disconnected: the calls are done.
            if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(left) {
                cancel.cancel();
            }
        });
        let result = calls(&exec);
        drop(done);
        result
    })
}

/// A count as OpenTelemetry's signed integer (a `u64` would reach it as text).
fn signed(count: u64) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_context_holds_the_definitions_a_provider_does_not_hold_back() {
        let mut ctx = tool_runtime::Ctx::new();
        ctx.plugin::<tool_todo::TodoWrite>().unwrap();
        for name in ["a", "b", "c"] {
            let tool = tool_runtime::DynamicTool::builder(
                name,
                "A tool.",
                serde_json::json!({"type": "object"}),
            )
            .deferred()
            .handler(|_, _| "")
            .unwrap();
            ctx.tool(tool).unwrap();
        }
        let dialect = Provider::Anthropic.dialect();
        let todo = ctx
            .tools
            .get("todo_write")
            .unwrap()
            .definition()
            .json(dialect);
        let todo = todo.unwrap().len();
        for (mode, deferred_sent) in [(search::Mode::Native, 3), (search::Mode::Framework, 0)] {
            let session = tool_runtime::Session::in_memory();
            let deferral = Deferral::of(
                &ctx.tools,
                Some(Vec::new()),
                &session,
                mode,
                Provider::Anthropic,
            )
            .unwrap()
            .unwrap();
            let (json, shown) = offered(&ctx.tools, Some(&deferral), dialect).unwrap();
            let entries: Vec<serde_json::Value> = serde_json::from_str(json.get()).unwrap();
            let marked = entries
                .iter()
                .filter(|entry| entry["defer_loading"] == true)
                .count();
            assert_eq!(marked, deferred_sent, "{mode:?}");
            assert_eq!(entries.len(), 2 + deferred_sent, "{mode:?}");
            // `[`, todo_write's, `,`, the search tool's, `]`.
            let search = entries.last().unwrap().to_string().len();
            assert_eq!(shown, todo + search + 3, "{mode:?}: {}", json.get());
        }
    }
}
