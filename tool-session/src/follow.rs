//! The loop every event stream shares: what was read from a log first, then the live channel;
//! a subscriber that fell behind the channel catches up from the logs instead of losing events.

use tokio::sync::broadcast;

use crate::error::SessionError;

/// A stream that follows a live channel and catches up from logs.
pub(crate) trait Follow {
    type Item: Clone;

    fn live(&mut self) -> &mut broadcast::Receiver<Self::Item>;
    /// The next item read from a log, if any is waiting.
    fn pop_backlog(&mut self) -> Result<Option<Self::Item>, SessionError>;
    /// Takes a live item: the item to yield, or `None` when it was yielded already.
    fn accept(&mut self, item: Self::Item) -> Result<Option<Self::Item>, SessionError>;
    /// Reads what the channel dropped from the logs into the backlog.
    fn catch_up(&mut self) -> Result<(), SessionError>;
}

pub(crate) fn try_next<F: Follow>(stream: &mut F) -> Result<Option<F::Item>, SessionError> {
    use broadcast::error::TryRecvError;
    loop {
        if let Some(item) = stream.pop_backlog()? {
            return Ok(Some(item));
        }
        match stream.live().try_recv() {
            Ok(item) => {
                if let Some(item) = stream.accept(item)? {
                    return Ok(Some(item));
                }
            }
            Err(TryRecvError::Empty | TryRecvError::Closed) => return Ok(None),
            Err(TryRecvError::Lagged(_)) => stream.catch_up()?,
        }
    }
}

pub(crate) async fn next<F: Follow>(stream: &mut F) -> Result<F::Item, SessionError> {
    use broadcast::error::RecvError;
    loop {
        if let Some(item) = stream.pop_backlog()? {
            return Ok(item);
        }
        match stream.live().recv().await {
            Ok(item) => {
                if let Some(item) = stream.accept(item)? {
                    return Ok(item);
                }
            }
            Err(RecvError::Lagged(_)) => stream.catch_up()?,
            Err(RecvError::Closed) => {
                unreachable!("a stream holds its sender's owner, so the sender lives")
            }
        }
    }
}
