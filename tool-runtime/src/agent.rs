//! Agents: the owners of tool calls, each with its session.

use std::fmt;
use std::sync::Arc;

use crate::session::Session;

/// An agent: an id and the session its tools write to. Cloning is cheap and shares the session.
#[derive(Clone)]
pub struct Agent {
    id: Arc<str>,
    session: Session,
}

impl Agent {
    /// An agent with this id, writing to `session`.
    pub fn new(id: impl Into<Arc<str>>, session: Session) -> Self {
        Agent {
            id: id.into(),
            session,
        }
    }

    /// The agent's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The agent's session.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// This agent as one call of a batch sees it: its session's appends wait for the call's turn.
    pub(crate) fn in_turn(&self, turn: crate::session::Turn) -> Agent {
        Agent {
            id: Arc::clone(&self.id),
            session: self.session.in_turn(turn),
        }
    }
}

impl fmt::Debug for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Agent")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}
