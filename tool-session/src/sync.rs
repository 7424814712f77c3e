//! Grouped fsync: several appends, one fsync each round, every append acknowledged only once it
//! is durable.

use std::fmt;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::Duration;

use crate::error::SessionError;

/// A grouped-fsync policy shared by the logs that use it (every session of a host, typically).
///
/// An append writes its line, then waits: the first waiter becomes the round's leader, waits
/// `window` for company, syncs every file written since the last round once, and wakes every
/// append it covered. Under load, many appends (of one session or of many) share each fsync; a
/// lone append costs one fsync plus `window`.
///
/// A failed sync fails every append it covered and every later one through this group: the
/// files' state is then unknown, and the host must reopen the sessions.
#[derive(Clone)]
pub struct GroupSync {
    inner: Arc<Inner>,
}

struct Inner {
    state: Mutex<State>,
    changed: Condvar,
    window: Duration,
}

#[derive(Default)]
struct State {
    /// Files written since the last round began.
    pending: Vec<(Arc<File>, PathBuf)>,
    /// The last ticket handed out.
    issued: u64,
    /// Every ticket up to this one is durable.
    synced: u64,
    syncing: bool,
    failure: Option<(PathBuf, String)>,
}

impl GroupSync {
    /// A group whose leader syncs at once, grouping the appends that arrived while the previous
    /// round was syncing.
    pub fn new() -> Self {
        GroupSync::with_window(Duration::ZERO)
    }

    /// A group whose leader waits `window` before syncing, to gather more appends per fsync.
    pub fn with_window(window: Duration) -> Self {
        GroupSync {
            inner: Arc::new(Inner {
                state: Mutex::new(State::default()),
                changed: Condvar::new(),
                window,
            }),
        }
    }

    /// Registers a write to `file` that must become durable; returns its ticket.
    pub(crate) fn enqueue(&self, file: &Arc<File>, path: &Path) -> Result<u64, SessionError> {
        let mut state = self.lock();
        if let Some((path, reason)) = &state.failure {
            return Err(SessionError::Failed {
                path: path.clone(),
                reason: reason.clone(),
            });
        }
        if !state
            .pending
            .iter()
            .any(|(pending, _)| Arc::ptr_eq(pending, file))
        {
            state.pending.push((Arc::clone(file), path.to_path_buf()));
        }
        state.issued += 1;
        Ok(state.issued)
    }

    /// Waits until `ticket`'s write is durable, leading a round when none is under way.
    pub(crate) fn wait(&self, ticket: u64) -> Result<(), SessionError> {
        let mut state = self.lock();
        loop {
            if let Some((path, reason)) = &state.failure {
                return Err(SessionError::Failed {
                    path: path.clone(),
                    reason: reason.clone(),
                });
            }
            if state.synced >= ticket {
                return Ok(());
            }
            if state.syncing {
                state = self
                    .inner
                    .changed
                    .wait(state)
                    .unwrap_or_else(|p| p.into_inner());
                continue;
            }
            state.syncing = true;
            if !self.inner.window.is_zero() {
                drop(state);
                thread::sleep(self.inner.window);
                state = self.lock();
            }
            let files = std::mem::take(&mut state.pending);
            let through = state.issued;
            drop(state);
            let result = files.iter().try_for_each(|(file, path)| {
                file.sync_data()
                    .map_err(|error| (path.clone(), error.to_string()))
            });
            state = self.lock();
            state.syncing = false;
            match result {
                Ok(()) => state.synced = state.synced.max(through),
                Err(failure) => state.failure = Some(failure),
            }
            self.inner.changed.notify_all();
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.inner.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Default for GroupSync {
    fn default() -> Self {
        GroupSync::new()
    }
}

impl fmt::Debug for GroupSync {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GroupSync")
            .field("window", &self.inner.window)
            .finish_non_exhaustive()
    }
}
