//! A directory of session logs: one JSON Lines file per session id.

use std::fs;
use std::io;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::SessionError;
use crate::jsonl::{Durability, JsonlLog, OpenMode, TornTail};
use crate::session::Session;

/// A directory of session logs, one `<id>.jsonl` file per session.
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("tool-runtime-doc-{}", std::process::id()));
/// use tool_session::{OpenMode, SessionDir};
///
/// let sessions = SessionDir::new(&dir).unwrap();
/// let (session, torn) = sessions.open("agent-1", OpenMode::Write).unwrap();
/// assert!(torn.is_none());
/// session.append("note/add", &"kept").unwrap();
/// drop(session);
///
/// let (session, _) = sessions.open("agent-1", OpenMode::Read).unwrap();
/// assert_eq!(session.next_seq(), 2);
/// assert!(sessions.path_of("../escape").is_err());
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Clone, Debug)]
pub struct SessionDir {
    path: PathBuf,
    durability: Durability,
}

impl SessionDir {
    /// The directory at `path`, created (mode `0700`) if absent. Appends use
    /// [`Durability::Fsync`] unless [`SessionDir::with_durability`] says otherwise.
    pub fn new(path: impl Into<PathBuf>) -> Result<Self, SessionError> {
        let path = path.into();
        if fs::metadata(&path).is_ok_and(|metadata| !metadata.is_dir()) {
            return Err(SessionError::NotADirectory { path });
        }
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&path)
            .map_err(|source| match source.kind() {
                io::ErrorKind::AlreadyExists | io::ErrorKind::NotADirectory => {
                    SessionError::NotADirectory { path: path.clone() }
                }
                _ => SessionError::Io {
                    path: path.clone(),
                    source,
                },
            })?;
        Ok(SessionDir {
            path,
            durability: Durability::default(),
        })
    }

    /// The same directory, its logs appending under `durability`.
    #[must_use]
    pub fn with_durability(mut self, durability: Durability) -> Self {
        self.durability = durability;
        self
    }

    /// The directory's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file of session `id`. An id is 1 to 128 ASCII letters, digits, `.`, `_` or `-`, not
    /// starting with `.`, so it cannot name a file outside the directory.
    pub fn path_of(&self, id: &str) -> Result<PathBuf, SessionError> {
        check_id(id)?;
        Ok(self.path.join(format!("{id}.jsonl")))
    }

    /// Opens the log of session `id` (creating it when writing).
    pub fn open_log(&self, id: &str, mode: OpenMode) -> Result<JsonlLog, SessionError> {
        JsonlLog::open(self.path_of(id)?, mode, self.durability.clone())
    }

    /// Creates a new session whose id starts with `prefix` (`<prefix>-<time>-<process>-<n>`),
    /// its file created exclusively: a name that exists already, whatever it is (a log, a file,
    /// a link planted there), is never opened; another name is tried. Returns the id and the log.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("tool-runtime-create-{}", std::process::id()));
    /// use tool_session::SessionDir;
    ///
    /// let sessions = SessionDir::new(&dir).unwrap();
    /// let (first, _) = sessions.create("repl").unwrap();
    /// let (second, _) = sessions.create("repl").unwrap();
    /// assert!(first.starts_with("repl-") && first != second);
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn create(&self, prefix: &str) -> Result<(String, JsonlLog), SessionError> {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let millis = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_millis());
        let mut attempts = 0;
        loop {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let id = format!("{prefix}-{millis}-{}-{n}", std::process::id());
            let path = self.path_of(&id)?;
            match JsonlLog::open(&path, OpenMode::Create, self.durability.clone()) {
                Err(SessionError::Io { source, .. })
                    if source.kind() == io::ErrorKind::AlreadyExists && attempts < 100 =>
                {
                    attempts += 1;
                }
                Err(SessionError::Io { source, .. })
                    if source.kind() == io::ErrorKind::AlreadyExists =>
                {
                    return Err(SessionError::Io { path, source });
                }
                result => return result.map(|log| (id, log)),
            }
        }
    }

    /// Opens session `id`, replayed from its log, with the torn tail found on the way.
    pub fn open(
        &self,
        id: &str,
        mode: OpenMode,
    ) -> Result<(Session, Option<TornTail>), SessionError> {
        let log = self.open_log(id, mode)?;
        let torn = log.torn_tail().cloned();
        Ok((Session::open(id, log)?, torn))
    }
}

fn check_id(id: &str) -> Result<(), SessionError> {
    let invalid = |reason| {
        Err(SessionError::InvalidId {
            id: id.to_owned(),
            reason,
        })
    };
    if id.is_empty() {
        return invalid("it is empty");
    }
    if id.len() > 128 {
        return invalid("it is longer than 128 bytes");
    }
    if id.starts_with('.') {
        return invalid("it starts with `.`");
    }
    if !id
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-')
    {
        return invalid("only ASCII letters, digits, `.`, `_` and `-` may appear in it");
    }
    Ok(())
}
