//! What a session publishes to the hub it was opened through.

use std::sync::Arc;

use tokio::sync::broadcast;

use crate::event::Event;

/// An event of one of a hub's sessions.
#[derive(Clone, Debug)]
pub struct HubEvent {
    /// The session's id.
    pub session: Arc<str>,
    /// The event.
    pub event: Arc<Event>,
}

/// How a session publishes to its hub.
pub(crate) struct HubLink {
    live: broadcast::Sender<HubEvent>,
}

impl HubLink {
    pub(crate) fn new(live: broadcast::Sender<HubEvent>) -> Self {
        HubLink { live }
    }

    pub(crate) fn publish(&self, session: &Arc<str>, event: &Arc<Event>) {
        // No receiver is not an error: nobody is watching.
        let _ = self.live.send(HubEvent {
            session: Arc::clone(session),
            event: Arc::clone(event),
        });
    }
}
