//! Why a session operation failed.

/// Why a session operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// The log's storage failed.
    #[error("session log {}: {source}", shown(path))]
    Io {
        /// The log file.
        path: std::path::PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// Another process has the session open for writing.
    #[error("session log {} is open for writing in another process", shown(path))]
    Locked {
        /// The log file.
        path: std::path::PathBuf,
    },
    /// A line of the log cannot be read. Only a torn last line is repaired; any other damage
    /// is this error, never a silent skip.
    #[error("session log {}: line {line}: {reason}", shown(path))]
    Corrupt {
        /// The log file.
        path: std::path::PathBuf,
        /// The 1-based line number.
        line: u64,
        /// What is wrong with it.
        reason: String,
    },
    /// The log was written in a format this version does not read.
    #[error("session log {}: {reason}", shown(path))]
    Format {
        /// The log file.
        path: std::path::PathBuf,
        /// What is wrong with the format.
        reason: String,
    },
    /// The file is not a session log (not a regular file, or no header where one must be): it
    /// is left as it was, byte for byte.
    #[error(
        "{} is not a session log ({reason}); it was left untouched",
        shown(path)
    )]
    NotALog {
        /// The file.
        path: std::path::PathBuf,
        /// What it is instead.
        reason: String,
    },
    /// A session log that became shorter than a reader of it had seen: truncated, or replaced,
    /// under it. What the reader took in is kept; what the file holds now is another log.
    #[error(
        "session log {}: the file was cut to {len} bytes under this reader, which had seen {seen}; \
         reopen the session",
        shown(path)
    )]
    Truncated {
        /// The log file.
        path: std::path::PathBuf,
        /// The file's length now.
        len: u64,
        /// The length the reader had seen.
        seen: u64,
    },
    /// A session log path that names a symbolic link, which a writer does not follow.
    #[error(
        "session log {} is a symbolic link; a session is written only through its real path",
        shown(path)
    )]
    SymbolicLink {
        /// The link.
        path: std::path::PathBuf,
    },
    /// A session directory path that names something else than a directory.
    #[error("session directory {} is not a directory", shown(path))]
    NotADirectory {
        /// The path.
        path: std::path::PathBuf,
    },
    /// Another process, on this host or another, holds the session's write lease (a
    /// database-backed store's counterpart of [`SessionError::Locked`]).
    #[error(
        "session {} is open for writing in another process",
        tool_text::neutralize(session)
    )]
    Leased {
        /// The session's id.
        session: String,
    },
    /// A session store other than a file (a database) failed: it could not be reached, it
    /// refused a statement, or the connection broke. What was acknowledged before is kept.
    #[error("session store: {reason}")]
    Store {
        /// What failed, as the store said it.
        reason: String,
    },
    /// An append to a log opened for reading.
    #[error("session log {} is open for reading only", shown(path))]
    ReadOnly {
        /// The log file.
        path: std::path::PathBuf,
    },
    /// One append could not be written or synced (a full disk, an I/O error). The log was cut
    /// back to its last complete event, so it is as it was before the append, and the next
    /// append tries again.
    #[error(
        "session log {}: the event could not be saved ({source}); the log is unchanged",
        shown(path)
    )]
    Write {
        /// The log file.
        path: std::path::PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The log file's length is not what its writer left: a process that ignored the lock wrote
    /// to it, or it was cut (a log rotation's copy-and-truncate). Nothing is written at the old
    /// end; later appends fail too. Reopen the session.
    #[error(
        "session log {} changed under its writer (it is {len} bytes, where {written} were \
         written): another process wrote to it or cut it; reopen the session",
        shown(path)
    )]
    Changed {
        /// The log file.
        path: std::path::PathBuf,
        /// Its length now.
        len: u64,
        /// The length its writer left.
        written: u64,
    },
    /// An event whose line would be longer than a log line may be.
    #[error(
        "session log {}: the event is {len} bytes, more than the {max} bytes a log line may have",
        shown(path)
    )]
    TooLarge {
        /// The log file.
        path: std::path::PathBuf,
        /// The event line's length.
        len: usize,
        /// The longest line a log may have.
        max: usize,
    },
    /// A session of this id is open in the hub already: two handles appending to one log would
    /// break its order.
    #[error("session {id:?} is open already")]
    AlreadyOpen {
        /// The session's id.
        id: String,
    },
    /// A session id that could name a file outside the session directory, or none.
    #[error("invalid session id {id:?}: {reason}")]
    InvalidId {
        /// The refused id.
        id: String,
        /// Why it is refused.
        reason: &'static str,
    },
    /// An earlier write or sync of this log failed and the log could not be cut back to its
    /// last complete event (or a grouped sync failed), so later appends could not be made
    /// durable in order. Reopen the session.
    #[error(
        "session log {}: an earlier write failed ({reason}); reopen the session",
        shown(path)
    )]
    Failed {
        /// The log file.
        path: std::path::PathBuf,
        /// The first failure.
        reason: String,
    },
    /// Event data could not be encoded as JSON.
    #[error("session event data: {0}")]
    Json(#[from] serde_json::Error),
}

/// A path as a message shows it: a file name can hold anything, escape sequences included, so it
/// is neutralized like every text a person reads.
pub(crate) fn shown(path: &std::path::Path) -> String {
    tool_text::neutralize(&path.display().to_string()).into_owned()
}
