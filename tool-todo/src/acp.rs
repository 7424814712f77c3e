//! Todo lists as ACP plans, for editors that speak the Agent Client Protocol (Zed and others).
//!
//! Each `todo/write` event becomes a `session/update` notification with `sessionUpdate: "plan"`
//! whose entries are the whole list, in order: ACP clients replace the plan whole on every update.
//! An empty list is an empty plan, which is how ACP clears one.
//!
//! **Priority.** ACP requires a `priority` on every plan entry and todos have none: every entry
//! gets [`PRIORITY`], `medium`, as the other ACP bridges do (ACP clients do not show it). This is
//! the one place that rule lives.
//!
//! A [`PlanBridge`] follows one session: on load or resume it gives the current plan once
//! (replayed from the log), then one notification per `todo/write` event.

use agent_client_protocol::v1::schema::{
    Plan, PlanEntry, PlanEntryPriority, PlanEntryStatus, SessionId, SessionNotification,
    SessionUpdate,
};
use tool_runtime::{Event, Session, SessionError, Subscription};

use crate::{Todo, TodoStatus};

/// The priority every plan entry gets: todos have none, and ACP requires one.
pub const PRIORITY: PlanEntryPriority = PlanEntryPriority::Medium;

/// The ACP plan of a todo list: one entry per todo, in order.
///
/// ```
/// use tool_todo::{Todo, TodoStatus, acp};
/// let plan = acp::plan(&[Todo::new("Plan", TodoStatus::InProgress)]);
/// assert_eq!(serde_json::to_value(&plan).unwrap(), serde_json::json!({
///     "entries": [{"content": "Plan", "priority": "medium", "status": "in_progress"}]
/// }));
/// ```
pub fn plan(todos: &[Todo]) -> Plan {
    Plan::new(
        todos
            .iter()
            .map(|todo| {
                let status = match todo.status {
                    TodoStatus::Pending => PlanEntryStatus::Pending,
                    TodoStatus::InProgress => PlanEntryStatus::InProgress,
                    TodoStatus::Completed => PlanEntryStatus::Completed,
                };
                PlanEntry::new(todo.content.clone(), PRIORITY, status)
            })
            .collect(),
    )
}

/// The `session/update` notification that shows `todos` as the plan of ACP session
/// `session_id`.
pub fn plan_notification(session_id: impl Into<SessionId>, todos: &[Todo]) -> SessionNotification {
    SessionNotification::new(session_id, SessionUpdate::Plan(plan(todos)))
}

/// The notification for a session event: `Some` for a `todo/write` event, `None` for any other.
pub fn event_notification(
    session_id: impl Into<SessionId>,
    event: &Event,
) -> Option<Result<SessionNotification, serde_json::Error>> {
    crate::todos_of(event).map(|todos| todos.map(|todos| plan_notification(session_id, &todos)))
}

/// Follows one session and gives the plan notifications an ACP client needs.
#[derive(Debug)]
pub struct PlanBridge {
    session_id: SessionId,
    events: Subscription,
}

/// Why a bridge could not produce a notification.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    /// The session's log could not be read.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// A `todo/write` event's data is not a todo list.
    #[error("a todo/write event cannot be read: {0}")]
    Data(#[from] serde_json::Error),
}

impl PlanBridge {
    /// A bridge for `session`, known to the ACP client as `session_id`. Events appended from
    /// now on become notifications.
    pub fn new(session_id: impl Into<SessionId>, session: &Session) -> Self {
        PlanBridge {
            session_id: session_id.into(),
            events: session.subscribe(),
        }
    }

    /// The current plan, for a client that loads or resumes the session: `None` when the session
    /// has no list yet.
    pub fn current(&self) -> Result<Option<SessionNotification>, BridgeError> {
        Ok(crate::current(self.events.session())?
            .map(|todos| plan_notification(self.session_id.clone(), &todos)))
    }

    /// The notifications for the events appended since the last call, without waiting.
    pub fn pending(&mut self) -> Result<Vec<SessionNotification>, BridgeError> {
        let mut out = Vec::new();
        while let Some(event) = self.events.try_next()? {
            if let Some(notification) = event_notification(self.session_id.clone(), &event) {
                out.push(notification?);
            }
        }
        Ok(out)
    }

    /// Waits for the next plan notification.
    pub async fn next(&mut self) -> Result<SessionNotification, BridgeError> {
        loop {
            let event = self.events.next().await?;
            if let Some(notification) = event_notification(self.session_id.clone(), &event) {
                return Ok(notification?);
            }
        }
    }
}
