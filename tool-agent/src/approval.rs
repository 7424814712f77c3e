//! Calls a person decides on: which ones ([`ApprovalPolicy`]), and how the decisions are kept.
//!
//! A call that needs approval does not run. The loop runs the turn's other calls, records the
//! pending ones as a [`PENDING_EVENT`] of the session and stops with
//! [`AgentError::Paused`]. A decision — approve, approve with edited
//! arguments (checked against the tool's schema again), deny with a reason the model reads — is a
//! [`DECISION_EVENT`], written by this process ([`AgentLoop::decide`](crate::AgentLoop::decide))
//! or by any other that opens the session ([`decide`]: `toolhost approve`). The loop resumes
//! where it paused ([`AgentLoop::resume`](crate::AgentLoop::resume)): approved calls run once,
//! denied ones answer their reason, and the conversation goes on.
//!
//! An ACP editor is asked with `session/request_permission`: with the `acp` feature,
//! `acp::permission_request` is the request for a pending call and `acp::decision` the decision
//! its answer is.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use tool_runtime::{Definition, Session, ToolOutput};

use crate::AgentError;

/// The kind of the session event that records the calls of a turn waiting for a decision.
pub const PENDING_EVENT: &str = "agent/pending";

/// The kind of the session event that records a decision on one pending call.
pub const DECISION_EVENT: &str = "agent/decision";

/// What a policy does with a call that needs a decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Approve {
    /// A person decides: the run pauses.
    Ask,
    /// It runs, approved by the policy.
    Auto,
    /// It does not run: the model reads that it was not approved.
    Never,
}

/// Which calls need a decision, and what becomes of them: a tool that says so
/// (`#[tool(needs_approval)]`) and, unless told otherwise, a destructive one; then `default`
/// (ask), or the tool's own rule.
#[derive(Clone, Debug)]
pub struct ApprovalPolicy {
    default: Approve,
    destructive: bool,
    per_tool: HashMap<String, Approve>,
}

impl Default for ApprovalPolicy {
    fn default() -> Self {
        ApprovalPolicy {
            default: Approve::Ask,
            destructive: true,
            per_tool: HashMap::new(),
        }
    }
}

impl ApprovalPolicy {
    /// Asks for tools that need approval and destructive ones.
    pub fn new() -> Self {
        ApprovalPolicy::default()
    }

    /// What becomes of a call that needs a decision.
    #[must_use]
    pub fn default_to(mut self, approve: Approve) -> Self {
        self.default = approve;
        self
    }

    /// Whether a tool declared destructive needs a decision (it does unless told not).
    #[must_use]
    pub fn destructive_asks(mut self, asks: bool) -> Self {
        self.destructive = asks;
        self
    }

    /// `tool`'s calls: `approve`, whatever the tool declares.
    #[must_use]
    pub fn tool(mut self, tool: impl Into<String>, approve: Approve) -> Self {
        self.per_tool.insert(tool.into(), approve);
        self
    }

    /// What becomes of a call of the tool `definition` describes.
    pub fn rule(&self, definition: &Definition) -> Approve {
        if let Some(&own) = self.per_tool.get(definition.name()) {
            return own;
        }
        let needs = definition.needs_approval()
            || (self.destructive && definition.annotations().destructive() == Some(true));
        if needs { self.default } else { Approve::Auto }
    }

    /// Why a call of the tool `definition` describes waits for a decision, in words for the
    /// person who decides.
    pub fn why(&self, definition: &Definition) -> String {
        if self.per_tool.contains_key(definition.name()) {
            format!("the run's rule for {} asks", definition.name())
        } else if definition.needs_approval() {
            "the tool needs approval".to_owned()
        } else {
            "the tool may be destructive".to_owned()
        }
    }
}

/// One call waiting for a decision.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PendingCall {
    /// Its place in the model's turn.
    pub index: usize,
    /// The call's id.
    pub id: String,
    /// The tool.
    pub name: String,
    /// The arguments the model sent.
    pub args: String,
    /// Why it waits ([`ApprovalPolicy::why`]).
    #[serde(default)]
    pub why: String,
    /// The tool's input schema when the call paused, which edited arguments are checked
    /// against by whoever decides ([`decide`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<serde_json::Value>,
}

impl PendingCall {
    /// What a call with `args` would be refused with by the tool's schema as it was when the
    /// call paused (`Error: invalid arguments: …`); `None` when they pass, or when no schema was
    /// kept that this framework can check.
    pub fn refusal(&self, args: &str) -> Option<String> {
        use tool_runtime::Tool as _;
        let schema = self.schema.clone()?;
        let tool = tool_runtime::DynamicTool::builder(self.name.clone(), "", schema)
            .handler(|_, _| "")
            .ok()?;
        tool.check_args(args).map(|refused| refused.text)
    }
}

/// A pending call and the decision it has so far.
pub type Waiting = (PendingCall, Option<Decision>);

/// The pending calls of a turn, as [`PENDING_EVENT`] keeps them.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Pending {
    /// The seq of the model turn's event.
    pub(crate) turn: u64,
    pub(crate) calls: Vec<PendingCall>,
}

/// A decision on a pending call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Decision {
    /// Run it as the model sent it.
    Approve,
    /// Run it with these arguments (a JSON object's text), checked against the schema again.
    ApproveWith {
        /// The edited arguments.
        args: String,
    },
    /// Do not run it: the model reads `Error: not approved: ` and the reason.
    Deny {
        /// Why, for the model.
        reason: String,
    },
}

/// A decision as [`DECISION_EVENT`] keeps it. `refused` is the reason a decision was set aside
/// (edited arguments the schema refuses): the call is pending again.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Decided {
    pub(crate) turn: u64,
    pub(crate) id: String,
    #[serde(flatten)]
    pub(crate) decision: Option<Decision>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) refused: Option<String>,
}

/// The answer a denied call gives the model.
pub(crate) fn denied(reason: &str) -> ToolOutput {
    ToolOutput::error(format!("not approved: {reason}"))
}

/// The pending calls of `session`'s last pause, each with the decision it has so far: `None`
/// when the session is not paused.
pub fn pending(session: &Session) -> Result<Option<Vec<Waiting>>, AgentError> {
    let Some(paused) = last_pending(session)? else {
        return Ok(None);
    };
    let decisions = decisions(session, paused.turn)?;
    Ok(Some(
        paused
            .calls
            .into_iter()
            .map(|call| {
                let decision = decisions.get(&call.id).cloned();
                (call, decision)
            })
            .collect(),
    ))
}

/// Records `decision` on the pending call `id` of `session`'s last pause, from any process that
/// has the session open (the run itself need not be). `Ok(false)` when no such call is pending.
/// A call is decided once ([`AgentError::Decided`] after that); edited arguments the tool's
/// schema refuses are not recorded ([`AgentError::Edit`], with the text a call with them would
/// answer).
pub fn decide(session: &Session, id: &str, decision: &Decision) -> Result<bool, AgentError> {
    let Some(paused) = last_pending(session)? else {
        return Ok(false);
    };
    let Some(call) = paused.calls.iter().find(|call| call.id == id) else {
        return Ok(false);
    };
    if let Some(earlier) = decisions(session, paused.turn)?.remove(id) {
        return Err(AgentError::Decided {
            id: id.to_owned(),
            decision: earlier.to_string(),
        });
    }
    if let Decision::ApproveWith { args } = decision
        && let Some(refused) = call.refusal(args)
    {
        return Err(AgentError::Edit {
            id: id.to_owned(),
            refused,
        });
    }
    session.append(
        DECISION_EVENT,
        &Decided {
            turn: paused.turn,
            id: id.to_owned(),
            decision: Some(decision.clone()),
            refused: None,
        },
    )?;
    Ok(true)
}

impl std::fmt::Display for Decision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Decision::Approve => f.write_str("approved"),
            Decision::ApproveWith { args } => write!(f, "approved with the arguments {args}"),
            Decision::Deny { reason } => write!(f, "denied: {reason}"),
        }
    }
}

/// The last pause of `session` whose turn has not been answered since.
pub(crate) fn last_pending(session: &Session) -> Result<Option<Pending>, AgentError> {
    let Some(event) = session.latest(PENDING_EVENT) else {
        return Ok(None);
    };
    let pending: Pending = event
        .data()
        .map_err(|error| AgentError::Conversation(format!("event {}: {error}", event.seq)))?;
    // Answered since: a message followed the turn (its results, at least).
    let answered = session
        .latest(crate::conversation::MESSAGES_KIND)
        .is_none_or(|latest| latest.seq != pending.turn);
    Ok((!answered).then_some(pending))
}

/// The decisions on the calls of the turn at `turn`, the latest for each call.
pub(crate) fn decisions(
    session: &Session,
    turn: u64,
) -> Result<HashMap<String, Decision>, AgentError> {
    let mut out = HashMap::new();
    let mut unread = None;
    session.for_each_from(turn, &mut |event| {
        if event.kind != DECISION_EVENT {
            return;
        }
        match event.data::<Decided>() {
            Ok(decided) if decided.turn == turn => match (decided.decision, decided.refused) {
                (_, Some(_)) => {
                    out.remove(&decided.id);
                }
                (Some(decision), None) => {
                    out.insert(decided.id, decision);
                }
                (None, None) => {}
            },
            Ok(_) => {}
            Err(error) => {
                unread.get_or_insert(AgentError::Conversation(format!(
                    "event {}: {error}",
                    event.seq
                )));
            }
        }
    })?;
    match unread {
        Some(error) => Err(error),
        None => Ok(out),
    }
}

/// A pending call asked of an editor over the Agent Client Protocol: the
/// `session/request_permission` request an ACP bridge sends, and the decision its answer is.
#[cfg(feature = "acp")]
pub mod acp {
    use agent_client_protocol::v1::schema::{
        PermissionOption, PermissionOptionKind, RequestPermissionOutcome, RequestPermissionRequest,
        RequestPermissionResponse, SessionId, ToolCallUpdate, ToolCallUpdateFields, ToolKind,
    };
    use tool_runtime::Definition;

    use super::{Decision, PendingCall};

    /// The option that approves the call.
    pub const APPROVE: &str = "approve";
    /// The option that denies it.
    pub const DENY: &str = "deny";

    /// The `session/request_permission` request for `call`: the tool's title (or name) and
    /// kind as the editor shows them, the arguments as its raw input, and two options, approve
    /// once and deny once.
    pub fn permission_request(
        session_id: impl Into<SessionId>,
        call: &PendingCall,
        definition: Option<&Definition>,
    ) -> RequestPermissionRequest {
        let title = definition
            .and_then(|definition| definition.annotations().title())
            .unwrap_or(&call.name)
            .to_owned();
        let kind = match definition.map(Definition::annotations) {
            Some(hints) if hints.read_only() == Some(true) => ToolKind::Read,
            Some(hints) if hints.destructive() == Some(true) => ToolKind::Delete,
            Some(hints) if hints.open_world() == Some(true) => ToolKind::Fetch,
            _ => ToolKind::Other,
        };
        let raw_input = serde_json::from_str(&call.args)
            .unwrap_or_else(|_| serde_json::Value::String(call.args.clone()));
        RequestPermissionRequest::new(
            session_id,
            ToolCallUpdate::new(
                call.id.clone(),
                ToolCallUpdateFields::new()
                    .title(title)
                    .kind(kind)
                    .raw_input(raw_input),
            ),
            vec![
                PermissionOption::new(APPROVE, "Approve", PermissionOptionKind::AllowOnce),
                PermissionOption::new(DENY, "Deny", PermissionOptionKind::RejectOnce),
            ],
        )
    }

    /// The decision the editor's answer is: the approve option approves; the deny option, an
    /// option this bridge did not offer, or a cancelled prompt deny, with a reason the model
    /// reads.
    pub fn decision(response: &RequestPermissionResponse) -> Decision {
        match &response.outcome {
            RequestPermissionOutcome::Selected(selected)
                if selected.option_id.to_string() == APPROVE =>
            {
                Decision::Approve
            }
            RequestPermissionOutcome::Selected(_) => Decision::Deny {
                reason: "the user declined in the editor".to_owned(),
            },
            _ => Decision::Deny {
                reason: "the prompt was cancelled before the call was approved".to_owned(),
            },
        }
    }
}
