//! A PostgreSQL session store: every host opens any session, one host writes it at a time, any
//! other follows it live, and nothing acknowledged is lost when a host dies.
//!
//! [`PgStore`] connects (creating or migrating its schema, versioned) and opens sessions as
//! [`PgLog`]s, the runtime's [`Log`] — no tool changes, no runtime dependency on a database.
//!
//! - **Events** are rows of `toolhost_events`, keyed by `(session_id, seq)`, the data's JSON text
//!   kept byte for byte (`text`, not `jsonb`, which reorders keys) and the time in nanoseconds.
//!   [`Log::recover`] asks the database for the next seq and the latest event of each kind (an
//!   index on `(session_id, kind, seq)`), without reading the log.
//! - **One writer across hosts**: opening for writing takes a lease, a session-level advisory
//!   lock held by the writer's own connection. A second writer gets
//!   [`SessionError::Leased`] (`session … is open for writing in another process`, the words of
//!   the file lock). When the writer dies — killed, or its connection cut — PostgreSQL ends its
//!   backend and the lock is free; the next writer recovers from what was committed, seqs
//!   continuing. The key `(session_id, seq)` is the fence: a writer that lost its lease cannot
//!   write a seq another has written (a unique violation, reported as `Leased`). A writer never
//!   reconnects by itself: its lease lives exactly as long as its connection.
//! - **Followers** ([`PgStore::follow`]): a session opened for reading on any host is told of
//!   appends by `LISTEN`/`NOTIFY` (sent by the writer's store within 2 ms of the commit, the
//!   appends of those 2 ms in one statement, off the commit path: a `NOTIFY` inside the
//!   transaction would serialize every session's commits on PostgreSQL's notification lock; an
//!   append only queues its seq, without waking the notifier's thread but for the first of a
//!   window, and the notification's own commit waits for no WAL flush), and reads
//!   them by seq from the last one it has ([`Session::refresh`]): after a missed notification,
//!   a reconnect or any gap it catches up, and never takes a seq twice.
//! - **Durability**, as the file store means it: an append is acknowledged once committed.
//!   [`Durability::Fsync`] and [`Durability::Group`] commit with `synchronous_commit = on` (the
//!   commit is flushed to the server's WAL before it returns; concurrent commits of many
//!   sessions share one WAL flush, PostgreSQL's group commit); [`Durability::Flush`] with
//!   `synchronous_commit = off` (it survives the host's crash, and the server's unless the
//!   server itself crashes in the next few hundred milliseconds — as a flushed file survives a
//!   process, not a machine).
//!
//! # Past one PostgreSQL
//!
//! Every statement names one session (`WHERE session_id = $1`), so the table partitions by
//! session id (`PARTITION BY HASH (session_id)`) with no change here, and a distributed
//! PostgreSQL such as Citus distributes it on `session_id` (`create_distributed_table(
//! 'toolhost_events', 'session_id')`): a session's rows, its advisory lock and its statements
//! all live on one worker. Followers may read from replicas (a read-only URL for
//! [`PgStore::follow`]'s sessions): a replica lags, and a follower then catches up by seq when it
//! sees the rows; notifications are sent by the primary only, so the follower's `LISTEN`
//! connection stays on the primary (or it relies on its periodic catch-up).
//!
//! # Under a network partition
//!
//! The lease is the writer's connection. If a partition cuts a writer off, its appends fail
//! (nothing unacknowledged is claimed); the server ends the backend when TCP keepalives give up
//! (`tcp_keepalives_*`), and only then can another host take the session. Until then a second
//! writer is refused: never two writers, at the cost of waiting for the server to notice. A
//! writer cut off whose commit reached the server may not have heard the acknowledgement: the
//! event is there though the append failed (acknowledged implies committed, not the converse).
//! If a stale writer's commit could ever race a new writer's — it cannot while the lock is held
//! by a live backend — the primary key refuses the second row for the same seq.
//!
//! # The room
//!
//! A store, nothing more: it implements `tool-session`'s [`Log`] on the blocking `postgres`
//! client and uses nothing else of the framework's, so a host adds PostgreSQL without its tools
//! knowing.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use postgres::error::SqlState;
use postgres::fallible_iterator::FallibleIterator;
use postgres::{Client, NoTls, Statement};
use serde_json::value::RawValue;
use tool_session::{Ack, Durability, Log, MAX_LINE_BYTES, OpenMode, Recovered};
use tool_session::{Event, Session, SessionError, SessionHub};

/// The schema version this crate writes.
pub const SCHEMA_VERSION: i32 = 1;

/// The channel appends are announced on: `NOTIFY toolhost_events, '<seq> <session id>'`.
pub const CHANNEL: &str = "toolhost_events";

/// Events read per query when a log is read through.
const PAGE: i64 = 1024;

/// How long the notifier gathers appends before it tells followers of them: what a follower
/// may wait beyond the commit.
const NOTIFY_WINDOW: Duration = Duration::from_millis(2);

/// How often a follower catches up even without a notification.
const FOLLOW_TICK: Duration = Duration::from_millis(500);

const MIGRATE: &str = "
CREATE TABLE IF NOT EXISTS toolhost_schema (version integer NOT NULL);
CREATE TABLE IF NOT EXISTS toolhost_events (
    session_id text NOT NULL,
    seq bigint NOT NULL CHECK (seq > 0),
    kind text NOT NULL,
    data text NOT NULL,
    time_ns bigint NOT NULL,
    PRIMARY KEY (session_id, seq)
);
CREATE INDEX IF NOT EXISTS toolhost_events_kind ON toolhost_events (session_id, kind, seq);
";

/// The latest event of each kind of a session, by a skip scan of the `(session_id, kind, seq)`
/// index: one probe per kind, however long the session (a plain `DISTINCT ON (kind)` reads
/// every row of the session).
const LATEST_PER_KIND: &str = "
WITH RECURSIVE kinds(kind) AS (
    (SELECT kind FROM toolhost_events WHERE session_id = $1 ORDER BY kind LIMIT 1)
    UNION ALL
    SELECT (SELECT e.kind FROM toolhost_events e
            WHERE e.session_id = $1 AND e.kind > kinds.kind ORDER BY e.kind LIMIT 1)
    FROM kinds WHERE kinds.kind IS NOT NULL
)
SELECT latest.*
FROM kinds CROSS JOIN LATERAL (
    SELECT seq, kind, time_ns, octet_length(data) AS len,
        CASE WHEN octet_length(data) <= 67108864 THEN data END AS data
    FROM toolhost_events e
    WHERE e.session_id = $1 AND e.kind = kinds.kind ORDER BY seq DESC LIMIT 1
) latest
WHERE kinds.kind IS NOT NULL";

/// A PostgreSQL database holding sessions.
#[derive(Clone)]
pub struct PgStore {
    config: postgres::Config,
    /// The URL without its password, for messages.
    shown: String,
    /// Announces appends to followers, off the appends' commit path; started by the first
    /// writer.
    notifier: Arc<OnceLock<Notices>>,
    /// Connections of closed logs, their leases released, kept for the next logs opened.
    idle: Arc<Mutex<Vec<Conn>>>,
}

/// How many connections of closed logs a store keeps for the next.
const IDLE_CONNECTIONS: usize = 32;

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore")
            .field("url", &self.shown)
            .finish_non_exhaustive()
    }
}

/// A session as [`PgStore::sessions`] lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionInfo {
    /// The session's id.
    pub id: String,
    /// How many events it holds (its last seq).
    pub events: u64,
    /// When its last event was appended.
    pub last: SystemTime,
}

impl PgStore {
    /// Connects to the database at `url` (`postgres://user@host:port/db`, or key=value
    /// settings) and creates or migrates the session schema. A schema written by a newer
    /// version is refused.
    pub fn connect(url: &str) -> Result<Self, SessionError> {
        let config: postgres::Config = url.parse().map_err(|error| SessionError::Store {
            reason: format!("{}: {error}", shown_url(url)),
        })?;
        let store = PgStore {
            config,
            shown: shown_url(url),
            notifier: Arc::new(OnceLock::new()),
            idle: Arc::new(Mutex::new(Vec::new())),
        };
        let conn = Conn::open(&store)?;
        let migrated = conn.run(|client| -> Result<Option<i32>, postgres::Error> {
            let mut transaction = client.transaction()?;
            // One migration at a time, whichever host runs it.
            transaction.execute("SELECT pg_advisory_xact_lock(7358001)", &[])?;
            transaction.batch_execute(MIGRATE)?;
            let version: Option<i32> = transaction
                .query_opt("SELECT max(version) FROM toolhost_schema", &[])?
                .and_then(|row| row.get(0));
            if version.is_none() {
                transaction.execute(
                    "INSERT INTO toolhost_schema (version) VALUES ($1)",
                    &[&SCHEMA_VERSION],
                )?;
            }
            transaction.commit()?;
            Ok(version)
        });
        match migrated
            .map_err(|error| store.lost(&error))?
            .map_err(|error| store.error(&error))?
        {
            Some(version) if version > SCHEMA_VERSION => Err(SessionError::Store {
                reason: format!(
                    "{}: the session schema is version {version}, newer than this version \
                     reads ({SCHEMA_VERSION})",
                    store.shown
                ),
            }),
            _ => Ok(store),
        }
    }

    /// The database's URL, without its password.
    pub fn url(&self) -> &str {
        &self.shown
    }

    /// Opens session `id`'s log: for writing ([`OpenMode::Write`], or [`OpenMode::Create`] for
    /// a session that must not exist yet) under the session's lease, or for reading
    /// ([`OpenMode::Read`]: no lease, following another writer).
    pub fn open_log(
        &self,
        id: &str,
        mode: OpenMode,
        durability: Durability,
    ) -> Result<PgLog, SessionError> {
        let conn = self.idle_or_new()?;
        let commit = match durability {
            Durability::Flush => "off",
            _ => "on",
        };
        let lease_id = id.to_owned();
        let leased = conn
            .run(move |client| -> Result<bool, postgres::Error> {
                client.synchronous_commit(commit)?;
                if mode == OpenMode::Read {
                    return Ok(true);
                }
                let lease = client.prepared(TAKE_LEASE)?;
                Ok(client.query_one(&lease, &[&lease_id])?.get(0))
            })
            .map_err(|error| self.lost(&error))?
            .map_err(|error| self.error(&error))?;
        if !leased {
            return Err(SessionError::Leased {
                session: id.to_owned(),
            });
        }
        let notify = (mode != OpenMode::Read).then(|| self.notifier());
        let log = PgLog {
            store: self.clone(),
            id: id.to_owned(),
            mode,
            conn: Mutex::new(conn),
            notify,
            held: Arc::new(AtomicBool::new(mode != OpenMode::Read)),
        };
        if mode == OpenMode::Create && log.recover()?.next_seq != 1 {
            return Err(SessionError::Store {
                reason: format!("session {} exists already", id),
            });
        }
        Ok(log)
    }

    /// A connection a closed log left, else a new one.
    fn idle_or_new(&self) -> Result<Conn, SessionError> {
        loop {
            let idle = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
            match idle {
                Some(conn) if conn.is_closed() => continue,
                Some(conn) => return Ok(conn),
                None => return Conn::open(self),
            }
        }
    }

    /// Keeps the connection of a closed log for the next, its lease on session `leased`
    /// released first; a connection that cannot release it is closed, which does.
    fn keep_idle(&self, conn: Conn, leased: Option<String>) {
        let released = match leased {
            None => true,
            Some(id) => matches!(
                conn.run(move |client| {
                    let release = client.prepared(RELEASE_LEASE)?;
                    client
                        .query_one(&release, &[&id])
                        .map(|row| row.get::<_, bool>(0))
                }),
                Ok(Ok(true))
            ),
        };
        if released && !conn.is_closed() {
            let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
            if idle.len() < IDLE_CONNECTIONS {
                idle.push(conn);
            }
        }
    }

    /// Opens session `id` through `hub` (so `hub.subscribe()` sees it), as
    /// [`PgStore::open_log`] opens its log.
    pub fn open(
        &self,
        hub: &SessionHub,
        id: &str,
        mode: OpenMode,
        durability: Durability,
    ) -> Result<Session, SessionError> {
        let log = self.open_log(id, mode, durability)?;
        hub.open(id.to_owned(), log)
    }

    /// Follows `sessions` (opened for reading) live: a thread listens for appends on
    /// [`CHANNEL`] and takes each session's new events in ([`Session::refresh`]), and catches
    /// up every half second and after a reconnect whatever it was not told of. It stops when
    /// the returned [`Follower`] is dropped.
    pub fn follow(&self, sessions: Vec<Session>) -> Result<Follower, SessionError> {
        let stop = Arc::new(AtomicBool::new(false));
        let errors = Arc::new(Mutex::new(None));
        let failed = Arc::new(Mutex::new(None));
        let (listening, listened) = mpsc::sync_channel(1);
        let thread = {
            let store = self.clone();
            let stop = Arc::clone(&stop);
            let errors = Arc::clone(&errors);
            let failed = Arc::clone(&failed);
            std::thread::Builder::new()
                .name("toolhost-pg-follower".into())
                .spawn(move || {
                    // Connected here, on the follower's own thread: see [`Conn`].
                    match store.listener() {
                        Ok(client) => {
                            let _ = listening.send(Ok(()));
                            let errors = (&*errors, &*failed);
                            store.follow_loop(client, &sessions, &stop, errors);
                        }
                        Err(error) => {
                            let _ = listening.send(Err(error));
                        }
                    }
                })
                .map_err(|error| SessionError::Store {
                    reason: format!("cannot start a follower: {error}"),
                })?
        };
        match listened.recv() {
            Ok(Ok(())) => {}
            Ok(Err(error)) => return Err(error),
            Err(_) => {
                return Err(SessionError::Store {
                    reason: format!("{}: the follower's thread ended", self.shown),
                });
            }
        }
        Ok(Follower {
            stop,
            errors,
            failed,
            thread: Some(thread),
        })
    }

    /// A connection listening on [`CHANNEL`], made on the calling thread (a thread of this
    /// crate's own, never a runtime's).
    fn listener(&self) -> Result<Client, SessionError> {
        let mut client = self.connect_here()?;
        client
            .batch_execute(&format!("LISTEN {CHANNEL}"))
            .map_err(|error| self.error(&error))?;
        Ok(client)
    }

    fn follow_loop(
        &self,
        mut client: Client,
        sessions: &[Session],
        stop: &AtomicBool,
        (errors, failed): (&Mutex<Option<SessionError>>, &Mutex<Option<SessionError>>),
    ) {
        let refresh_all = || {
            for session in sessions {
                if let Err(error) = session.refresh() {
                    // A log that cannot be read on is a failure its reader must hear of (the
                    // first one is kept); the last error of any kind is told too.
                    *errors.lock().unwrap_or_else(|e| e.into_inner()) = Some(SessionError::Store {
                        reason: format!("following session {}: {error}", session.id()),
                    });
                    let mut failure = failed.lock().unwrap_or_else(|e| e.into_inner());
                    if failure.is_none() {
                        *failure = Some(error);
                    }
                }
            }
        };
        refresh_all();
        while !stop.load(Ordering::Relaxed) {
            let broken = {
                let mut notifications = client.notifications();
                let first = notifications.timeout_iter(FOLLOW_TICK).next().map(|_| ());
                match first {
                    // Told of an append, or a tick: take in what else is waiting, then refresh.
                    Ok(_) => {
                        let mut waiting = notifications.iter();
                        loop {
                            match waiting.next() {
                                Ok(Some(_)) => {}
                                Ok(None) => break false,
                                Err(_) => break true,
                            }
                        }
                    }
                    Err(_) => true,
                }
            };
            refresh_all();
            if broken || client.is_closed() {
                // Reconnect with backoff; catch up on whatever happened meanwhile.
                let mut wait = Duration::from_millis(100);
                loop {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    std::thread::sleep(wait);
                    match self.listener() {
                        Ok(c) => {
                            client = c;
                            break;
                        }
                        Err(error) => {
                            *errors.lock().unwrap_or_else(|e| e.into_inner()) = Some(error);
                            wait = (wait * 2).min(Duration::from_secs(5));
                        }
                    }
                }
                refresh_all();
            }
        }
    }

    /// The notifier's queue, starting it on first use: a thread with its own connection that
    /// sends `NOTIFY` for the appends queued within [`NOTIFY_WINDOW`] of the first, the latest
    /// seq per session, in one statement.
    ///
    /// A `NOTIFY` in the appending transaction would take PostgreSQL's global notification lock
    /// at every commit, serializing the commits of all sessions (no group commit); sent after
    /// the commit, it costs the append nothing. A notification lost (the notifier's connection
    /// down) delays a follower until its next catch-up tick, never loses an event.
    fn notifier(&self) -> Notices {
        self.notifier
            .get_or_init(|| {
                let notices = Notices::new();
                let queue = Arc::clone(&notices.0);
                // Without the store's own handle, so the thread ends with the last handle.
                let store = PgStore {
                    notifier: Arc::new(OnceLock::new()),
                    ..self.clone()
                };
                let _ = std::thread::Builder::new()
                    .name("toolhost-pg-notifier".into())
                    .spawn(move || store.notify_loop(&queue));
                notices
            })
            .clone()
    }

    fn notify_loop(&self, queue: &NoticeQueue) {
        let mut client: Option<Client> = None;
        // Ends when every handle (every writer's, and the store's own) is gone.
        while queue.wait_for_notices() {
            // What else is appended in the next moment goes in the same statement: one writer
            // appending without pause would otherwise have a `NOTIFY` sent per append, a second
            // statement beside each of its own on the server. The writers queue theirs
            // meanwhile without waking this thread.
            std::thread::sleep(NOTIFY_WINDOW);
            let payloads: Vec<String> = queue
                .take()
                .into_iter()
                .map(|(id, seq)| format!("{seq} {id}"))
                .collect();
            if client.as_ref().is_none_or(Client::is_closed) {
                // A notification need not outlive a crash (a follower catches up on its own), so
                // its commit does not wait for the WAL to reach the disk: the notifier adds no
                // flush of its own beside the appends'.
                client = self.connect_here().ok().and_then(|mut connected| {
                    connected
                        .batch_execute("SET synchronous_commit = off")
                        .ok()
                        .map(|()| connected)
                });
            }
            if let Some(connected) = client.as_mut()
                && connected
                    .execute(
                        "SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload",
                        &[&CHANNEL, &payloads],
                    )
                    .is_err()
            {
                client = None;
            }
        }
    }

    /// Copies every event of `source` into a new session `id`, in one transaction: a session
    /// of that id already there (or open for writing) is refused, and an import that fails or is
    /// killed midway leaves nothing. Returns the number of events copied.
    pub fn import(&self, id: &str, source: &dyn Log) -> Result<u64, SessionError> {
        /// Events sent to the database per statement, and the most bytes of data they carry.
        const CHUNK: usize = 512;
        const CHUNK_BYTES: usize = 8 << 20;
        let conn = Conn::open(self)?;
        let session = id.to_owned();
        let (leased, exists) = self.run(&conn, move |client| {
            client.batch_execute("BEGIN; SET LOCAL synchronous_commit = on")?;
            let leased: bool = client
                .query_one(
                    "SELECT pg_try_advisory_xact_lock(hashtextextended($1, 7358001))",
                    &[&session],
                )?
                .get(0);
            let exists = client
                .query_opt(
                    "SELECT 1 FROM toolhost_events WHERE session_id = $1 LIMIT 1",
                    &[&session],
                )?
                .is_some();
            Ok((leased, exists))
        })?;
        if !leased {
            return Err(SessionError::Leased {
                session: id.to_owned(),
            });
        }
        if exists {
            return Err(SessionError::Store {
                reason: format!("session {id} exists already"),
            });
        }
        let mut count = 0u64;
        let mut chunk: Vec<Event> = Vec::with_capacity(CHUNK);
        let mut bytes = 0;
        let mut failed = None;
        let flush = |chunk: &mut Vec<Event>| -> Result<(), SessionError> {
            let events = std::mem::take(chunk);
            let session = id.to_owned();
            self.run(&conn, move |client| {
                let mut seqs = Vec::with_capacity(events.len());
                let mut kinds = Vec::with_capacity(events.len());
                let mut data = Vec::with_capacity(events.len());
                let mut times = Vec::with_capacity(events.len());
                for event in &events {
                    seqs.push(event.seq as i64);
                    kinds.push(event.kind.as_str());
                    data.push(event.raw_data().map(RawValue::get).unwrap_or("null"));
                    times.push(nanos_of(event.time));
                }
                client.execute(
                    "INSERT INTO toolhost_events (session_id, seq, kind, data, time_ns) \
                     SELECT $1, * FROM unnest($2::bigint[], $3::text[], $4::text[], $5::bigint[])",
                    &[&session, &seqs, &kinds, &data, &times],
                )
            })
            .map(drop)
        };
        source.for_each_from(1, &mut |event| {
            let len = event.raw_data().map_or(0, |data| data.get().len());
            if event.seq >= MAX_SEQ || len > MAX_LINE_BYTES {
                failed = Some(SessionError::Store {
                    reason: format!(
                        "session {id} event {}: out of the range a session holds",
                        event.seq
                    ),
                });
                return ControlFlow::Break(());
            }
            bytes += len;
            chunk.push(event);
            count += 1;
            if chunk.len() == CHUNK || bytes > CHUNK_BYTES {
                bytes = 0;
                if let Err(error) = flush(&mut chunk) {
                    failed = Some(error);
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        })?;
        if let Some(error) = failed {
            return Err(error);
        }
        if !chunk.is_empty() {
            flush(&mut chunk)?;
        }
        self.run(&conn, |client| client.batch_execute("COMMIT"))?;
        Ok(count)
    }

    /// The data of the latest event of `kind` in each session that has one (at most 64 KiB of
    /// it; a larger one is passed over), by session id.
    pub fn latest_of_kind(&self, kind: &str) -> Result<HashMap<String, String>, SessionError> {
        let conn = Conn::open(self)?;
        let kind = kind.to_owned();
        let rows = self.run(&conn, move |client| {
            client.query(
                "SELECT DISTINCT ON (session_id) session_id, data FROM toolhost_events \
                 WHERE kind = $1 AND octet_length(data) <= 65536 \
                 ORDER BY session_id, seq DESC",
                &[&kind],
            )
        })?;
        Ok(rows
            .iter()
            .map(|row| (row.get::<_, String>(0), row.get::<_, String>(1)))
            .collect())
    }

    /// Every session in the database, by id.
    pub fn sessions(&self) -> Result<Vec<SessionInfo>, SessionError> {
        let conn = Conn::open(self)?;
        let rows = conn
            .run(|client| {
                client.query(
                    "SELECT session_id, count(*), min(time_ns), max(time_ns) FROM toolhost_events \
                     GROUP BY session_id ORDER BY session_id",
                    &[],
                )
            })
            .map_err(|error| self.lost(&error))?
            .map_err(|error| self.error(&error))?;
        rows.iter()
            .map(|row| {
                let id: String = row.get(0);
                let events = row.get::<_, i64>(1);
                let earliest = row.get::<_, i64>(2);
                let last = checked_time(&id, events, earliest)
                    .and_then(|_| checked_time(&id, events, row.get(3)))?;
                Ok(SessionInfo {
                    id,
                    events: events.try_into().unwrap_or(0),
                    last,
                })
            })
            .collect()
    }

    /// A connection on the calling thread: for this crate's own threads (the follower's, the
    /// notifier's), which are in no async runtime. Everything else connects through [`Conn`].
    fn connect_here(&self) -> Result<Client, SessionError> {
        self.config
            .connect(NoTls)
            .map_err(|error| self.error(&error))
    }

    fn error(&self, error: &postgres::Error) -> SessionError {
        SessionError::Store {
            reason: format!("{}: {}", self.shown, describe(error)),
        }
    }

    /// Runs `job` on `conn`, its errors said as this store's.
    fn run<R: Send + 'static>(
        &self,
        conn: &Conn,
        job: impl FnOnce(&mut Db) -> Result<R, postgres::Error> + Send + 'static,
    ) -> Result<R, SessionError> {
        conn.run(job)
            .map_err(|gone| self.lost(&gone))?
            .map_err(|error| self.error(&error))
    }

    /// The error for a connection whose thread is gone.
    fn lost(&self, gone: &ConnGone) -> SessionError {
        SessionError::Store {
            reason: format!(
                "{}: the connection was lost ({gone}); what was acknowledged is kept; reopen the \
                 session",
                self.shown
            ),
        }
    }
}

/// A running follower; dropping it stops it.
pub struct Follower {
    stop: Arc<AtomicBool>,
    errors: Arc<Mutex<Option<SessionError>>>,
    failed: Arc<Mutex<Option<SessionError>>>,
    thread: Option<JoinHandle<()>>,
}

impl Follower {
    /// The last error the follower met (a lost connection it is reconnecting, a refresh that
    /// failed), taken.
    pub fn take_error(&self) -> Option<SessionError> {
        self.errors.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Why a followed session cannot be followed on, if it cannot: its log could not be read
    /// (damaged rows, a gap), which waiting will not mend, unlike a lost connection the follower
    /// reconnects. Taken.
    pub fn take_failure(&self) -> Option<SessionError> {
        self.failed.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

impl std::fmt::Debug for Follower {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Follower").finish_non_exhaustive()
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A handle on the notifier's queue: a writer announces its appends through it. The notifier
/// thread ends once every handle is gone.
struct Notices(Arc<NoticeQueue>);

/// The appends not yet announced, and whether the notifier waits for one.
#[derive(Default)]
struct NoticeQueue {
    state: Mutex<NoticeState>,
    ready: Condvar,
}

#[derive(Default)]
struct NoticeState {
    /// Per session, the latest seq appended since the last `NOTIFY`.
    pending: std::collections::BTreeMap<String, u64>,
    /// The notifier is asleep until an append comes.
    waiting: bool,
    /// How many handles there are.
    handles: usize,
}

impl Notices {
    fn new() -> Self {
        let queue = NoticeQueue::default();
        queue.lock().handles = 1;
        Notices(Arc::new(queue))
    }

    /// Queues an append's announcement, waking the notifier only if it waits for one: the
    /// appends of a window cost a lock each, not a thread's wake-up.
    fn announce(&self, session: &str, seq: u64) {
        let mut state = self.0.lock();
        match state.pending.get_mut(session) {
            Some(latest) => *latest = seq,
            None => {
                state.pending.insert(session.to_owned(), seq);
            }
        }
        if std::mem::take(&mut state.waiting) {
            drop(state);
            self.0.ready.notify_one();
        }
    }
}

impl Clone for Notices {
    fn clone(&self) -> Self {
        self.0.lock().handles += 1;
        Notices(Arc::clone(&self.0))
    }
}

impl Drop for Notices {
    fn drop(&mut self) {
        let mut state = self.0.lock();
        state.handles -= 1;
        if state.handles == 0 {
            drop(state);
            self.0.ready.notify_one();
        }
    }
}

impl NoticeQueue {
    fn lock(&self) -> MutexGuard<'_, NoticeState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until an append is queued: true then, false once every handle is gone and
    /// nothing is left to announce.
    fn wait_for_notices(&self) -> bool {
        let mut state = self.lock();
        while state.pending.is_empty() {
            if state.handles == 0 {
                return false;
            }
            state.waiting = true;
            state = self.ready.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        state.waiting = false;
        true
    }

    /// The appends queued, taken.
    fn take(&self) -> std::collections::BTreeMap<String, u64> {
        std::mem::take(&mut self.lock().pending)
    }
}

/// One session's events in PostgreSQL.
pub struct PgLog {
    store: PgStore,
    id: String,
    mode: OpenMode,
    conn: Mutex<Conn>,
    /// The notifier's queue (writers only).
    notify: Option<Notices>,
    /// Whether the writer's lease is held now ([`Lease`] lets it go between appends).
    held: Arc<AtomicBool>,
}

/// A writer's lease on its session, shared with its log ([`PgLog::lease`]): let go between
/// bursts of appends and taken again, so that another process (a replica behind the same load
/// balancer) may write the session meanwhile, while this one keeps the session open.
///
/// A log whose lease is let go refuses to append ([`SessionError::Leased`]) until
/// [`Lease::retake`] says nobody wrote the session meanwhile; when somebody did, the log's view
/// is stale and the session is to be opened again.
#[derive(Clone)]
pub struct Lease {
    store: PgStore,
    id: String,
    conn: Conn,
    held: Arc<AtomicBool>,
}

impl std::fmt::Debug for Lease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lease")
            .field("session", &self.id)
            .field("held", &self.held.load(Ordering::Acquire))
            .finish()
    }
}

impl Lease {
    /// Lets the lease go; the log keeps its connection. Blocks for a round trip.
    pub fn release(&self) -> Result<(), SessionError> {
        if !self.held.swap(false, Ordering::AcqRel) {
            return Ok(());
        }
        let id = self.id.clone();
        self.store.run(&self.conn, move |client| {
            let release = client.prepared(RELEASE_LEASE)?;
            client.query_one(&release, &[&id]).map(drop)
        })
    }

    /// Takes the lease again, and tells whether the session's last seq is still `last_seq`
    /// (`true`: nobody wrote it meanwhile, the log may append on) or not (`false`: the log's
    /// view is stale; it keeps the lease until it is dropped). [`SessionError::Leased`] while
    /// another process holds it. Blocks for a round trip.
    pub fn retake(&self, last_seq: u64) -> Result<bool, SessionError> {
        let held = self.held.load(Ordering::Acquire);
        let id = self.id.clone();
        let (leased, last): (bool, i64) = self.store.run(&self.conn, move |client| {
            if held {
                // Taken twice, it would need letting go twice.
                let last = client.prepared(LAST_SEQ)?;
                return Ok((true, client.query_one(&last, &[&id])?.get(0)));
            }
            let retake = client.prepared(RETAKE_LEASE)?;
            let row = client.query_one(&retake, &[&id])?;
            Ok((row.get(0), row.get(1)))
        })?;
        if !leased {
            return Err(SessionError::Leased {
                session: self.id.clone(),
            });
        }
        self.held.store(true, Ordering::Release);
        Ok(u64::try_from(last).ok() == Some(last_seq))
    }
}

impl std::fmt::Debug for PgLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgLog")
            .field("store", &self.store)
            .field("id", &self.id)
            .field("mode", &self.mode)
            .finish_non_exhaustive()
    }
}

/// The columns an event is read from: its data only when it is within the bound an event may
/// have (a larger one is named by its length, never fetched).
const EVENT_COLUMNS: &str = "seq, kind, time_ns, octet_length(data) AS len, \
     CASE WHEN octet_length(data) <= 67108864 THEN data END AS data";

impl Drop for PgLog {
    /// The log's connection goes back to its store for the next log, the lease released (a
    /// round trip, off an async worker as every statement is).
    fn drop(&mut self) {
        let conn = self
            .conn
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let leased = self.held.load(Ordering::Acquire).then(|| self.id.clone());
        let store = self.store.clone();
        tool_session::blocking(move || store.keep_idle(conn, leased));
    }
}

impl PgLog {
    /// The writer's lease of this log, to let go and take again between appends; `None` for a
    /// log opened for reading.
    pub fn lease(&self) -> Option<Lease> {
        (self.mode != OpenMode::Read).then(|| Lease {
            store: self.store.clone(),
            id: self.id.clone(),
            conn: self.conn.lock().unwrap_or_else(|e| e.into_inner()).clone(),
            held: Arc::clone(&self.held),
        })
    }

    /// The error for a read that expected seq `expected` and found `found`.
    fn gap(&self, expected: u64, found: u64) -> SessionError {
        SessionError::Store {
            reason: match expected {
                1 => format!("session {}: its first event is {found}, not 1", self.id),
                _ => format!(
                    "session {}: event {found} follows event {}: the events between are missing",
                    self.id,
                    expected - 1
                ),
            },
        }
    }

    /// The session's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Runs `job` on the connection; a reader whose connection broke gets a new one first (a
    /// writer's lease is its connection, so a writer never does).
    fn run<R: Send + 'static>(
        &self,
        job: impl FnOnce(&mut Db) -> Result<R, postgres::Error> + Send + 'static,
    ) -> Result<R, SessionError> {
        let mut conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        if conn.is_closed() && self.mode == OpenMode::Read {
            *conn = Conn::open(&self.store)?;
        }
        match conn.run(job) {
            Ok(Ok(done)) => Ok(done),
            Ok(Err(error)) => Err(self.error(&error, conn.is_closed())),
            Err(gone) => Err(self.store.lost(&gone)),
        }
    }

    fn error(&self, error: &postgres::Error, closed: bool) -> SessionError {
        if error.code() == Some(&SqlState::UNIQUE_VIOLATION) {
            return SessionError::Leased {
                session: self.id.clone(),
            };
        }
        if error.is_closed() || closed {
            return SessionError::Store {
                reason: format!(
                    "{}: the connection was lost ({}); what was acknowledged is kept; reopen \
                     the session",
                    self.store.shown,
                    describe(error)
                ),
            };
        }
        self.store.error(error)
    }

    /// The event a row of [`EVENT_COLUMNS`] holds, checked as a log file's line is: a seq in
    /// range, a time a log can hold, data within the bound and JSON.
    fn event_of(&self, row: &postgres::Row) -> Result<Event, SessionError> {
        let seq: i64 = row.get("seq");
        let damaged = |what: String| SessionError::Store {
            reason: format!("session {} event {seq}: {what}", self.id),
        };
        let seq = u64::try_from(seq)
            .ok()
            .filter(|seq| (1..MAX_SEQ).contains(seq))
            .ok_or_else(|| damaged("the seq is out of range".into()))?;
        let time = checked_time(&self.id, seq as i64, row.get("time_ns"))?;
        let len: i32 = row.get("len");
        let Some(data) = row.get::<_, Option<String>>("data") else {
            return Err(damaged(format!(
                "its data is {len} bytes, more than the {MAX_LINE_BYTES} bytes an event may have"
            )));
        };
        let data = RawValue::from_string(data)
            .map_err(|error| damaged(format!("the data is not JSON: {error}")))?;
        Ok(Event::new(seq, row.get::<_, String>("kind"), data, time))
    }
}

/// Takes session `$1`'s writer lease, if no other connection holds it.
const TAKE_LEASE: &str = "SELECT pg_try_advisory_lock(hashtextextended($1, 7358001))";

/// Takes session `$1`'s writer lease again, and reads its last seq.
const RETAKE_LEASE: &str = "SELECT pg_try_advisory_lock(hashtextextended($1, 7358001)), \
     (SELECT coalesce(max(seq), 0) FROM toolhost_events WHERE session_id = $1)";

/// Session `$1`'s last seq.
const LAST_SEQ: &str = "SELECT coalesce(max(seq), 0) FROM toolhost_events WHERE session_id = $1";

/// Releases session `$1`'s writer lease.
const RELEASE_LEASE: &str = "SELECT pg_advisory_unlock(hashtextextended($1, 7358001))";

/// Appends one event.
const INSERT_EVENT: &str = "INSERT INTO toolhost_events (session_id, seq, kind, data, time_ns) \
     VALUES ($1, $2, $3, $4, $5)";

/// Session `$1`'s count of events and its first and last seq.
const SEQ_RANGE: &str = "SELECT count(*), coalesce(min(seq), 1), coalesce(max(seq), 0) \
     FROM toolhost_events WHERE session_id = $1";

/// Seqs are below this: `i64::MAX` itself would leave no next seq to write.
const MAX_SEQ: u64 = i64::MAX as u64;

impl Log for PgLog {
    fn store(&self) -> &'static str {
        "postgres"
    }

    fn append(&mut self, event: &Arc<Event>) -> Result<Ack, SessionError> {
        if self.mode == OpenMode::Read {
            return Err(SessionError::Store {
                reason: format!("session {} is open for reading only", self.id),
            });
        }
        if !self.held.load(Ordering::Acquire) {
            return Err(SessionError::Leased {
                session: self.id.clone(),
            });
        }
        let len = event.raw_data()?.get().len();
        if len > MAX_LINE_BYTES {
            return Err(SessionError::Store {
                reason: format!(
                    "session {}: an event of {len} bytes is more than the {MAX_LINE_BYTES} bytes \
                     an event may have",
                    self.id
                ),
            });
        }
        let seq = i64::try_from(event.seq)
            .ok()
            .filter(|&seq| (seq as u64) < MAX_SEQ)
            .ok_or_else(|| SessionError::Store {
                reason: format!("session {}: seq {} is out of range", self.id, event.seq),
            })?;
        let time = nanos_of(event.time);
        let (id, event) = (self.id.clone(), Arc::clone(event));
        self.run(move |client| {
            let data = event.raw_data().map(RawValue::get).unwrap_or("null");
            let insert = client.prepared(INSERT_EVENT)?;
            client.execute(&insert, &[&id, &seq, &event.kind, &data, &time])
        })?;
        if let Some(notify) = &self.notify {
            notify.announce(&self.id, seq as u64);
        }
        Ok(Ack::durable())
    }

    fn for_each_from(
        &self,
        seq: u64,
        visit: &mut dyn FnMut(Event) -> ControlFlow<()>,
    ) -> Result<(), SessionError> {
        let mut next = seq.max(1);
        // Seqs go up by one from the one asked for (rows past the end are none): a gap is
        // damage, as one writer writes a session, each seq after the last.
        loop {
            let Ok(from) = i64::try_from(next) else {
                return Ok(());
            };
            let id = self.id.clone();
            let rows = self.run(move |client| {
                client.query(
                    &format!(
                        "SELECT {EVENT_COLUMNS} FROM toolhost_events \
                         WHERE session_id = $1 AND seq >= $2 ORDER BY seq LIMIT $3"
                    ),
                    &[&id, &from, &PAGE],
                )
            })?;
            let full = rows.len() as i64 == PAGE;
            for row in &rows {
                let event = self.event_of(row)?;
                if event.seq != next {
                    return Err(self.gap(next, event.seq));
                }
                next = event.seq + 1;
                if visit(event).is_break() {
                    return Ok(());
                }
            }
            if !full {
                return Ok(());
            }
        }
    }

    fn recover(&self) -> Result<Recovered, SessionError> {
        let id = self.id.clone();
        // The seqs are checked whole as a file's are when it opens: 1 to the last, none missing
        // (by the primary key's index, not the rows), in the snapshot the latest are read in.
        let (count, first, last, rows) = self.run(move |client| {
            let seq_range = client.prepared(SEQ_RANGE)?;
            let latest = client.prepared(LATEST_PER_KIND)?;
            let mut transaction = client
                .build_transaction()
                .isolation_level(postgres::IsolationLevel::RepeatableRead)
                .read_only(true)
                .start()?;
            let seqs = transaction.query_one(&seq_range, &[&id])?;
            let rows = transaction.query(&latest, &[&id])?;
            transaction.commit()?;
            Ok((
                seqs.get::<_, i64>(0),
                seqs.get::<_, i64>(1),
                seqs.get::<_, i64>(2),
                rows,
            ))
        })?;
        let latest = rows
            .iter()
            .map(|row| self.event_of(row))
            .collect::<Result<Vec<_>, _>>()?;
        if first != 1 || count != last {
            return Err(SessionError::Store {
                reason: format!(
                    "session {}: its events are not seqs 1 to {last} without a gap: {count} \
                     events, the first {first}",
                    self.id
                ),
            });
        }
        let next_seq = latest.iter().map(|event| event.seq).max().unwrap_or(0) + 1;
        Ok(Recovered::new(next_seq, latest))
    }

    fn latest_at(&self, kind: &str, seq: u64) -> Result<Option<Event>, SessionError> {
        let seq = i64::try_from(seq).unwrap_or(i64::MAX);
        let (id, kind) = (self.id.clone(), kind.to_owned());
        let row = self.run(move |client| {
            client.query_opt(
                &format!(
                    "SELECT {EVENT_COLUMNS} FROM toolhost_events \
                     WHERE session_id = $1 AND kind = $2 AND seq <= $3 ORDER BY seq DESC LIMIT 1"
                ),
                &[&id, &kind, &seq],
            )
        })?;
        row.map(|row| self.event_of(&row)).transpose()
    }

    fn follows_another_writer(&self) -> bool {
        self.mode == OpenMode::Read
    }
}

/// A connection to the database, with a thread of its own.
///
/// The `postgres` client drives a tokio runtime of its own with `block_on` on the thread that
/// calls it, which panics on a thread already inside a runtime: an async host's worker, a
/// current-thread runtime's `block_on`, a task being dropped. A caller in no runtime runs its
/// statements on its own thread (no hop, the driver's own cost); a caller in a runtime sends them
/// to the connection's thread. The client is connected and closed (a writer's lease released) on
/// that thread, wherever its last handle is dropped.
#[derive(Clone)]
struct Conn {
    client: Arc<Mutex<Option<Db>>>,
    jobs: mpsc::Sender<Job>,
}

/// A connection's client, with the statements it has prepared (each once per connection: a
/// statement run by its text is parsed again each time, a round trip of its own) and the
/// `synchronous_commit` it was last set to.
struct Db {
    client: Client,
    prepared: HashMap<&'static str, Statement>,
    commit: Option<&'static str>,
}

impl Db {
    /// The statement of `sql`, prepared on this connection the first time it is asked for.
    fn prepared(&mut self, sql: &'static str) -> Result<Statement, postgres::Error> {
        if let Some(statement) = self.prepared.get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.client.prepare(sql)?;
        self.prepared.insert(sql, statement.clone());
        Ok(statement)
    }

    /// Sets `synchronous_commit` for the connection's next commits, unless it is set so.
    fn synchronous_commit(&mut self, commit: &'static str) -> Result<(), postgres::Error> {
        if self.commit != Some(commit) {
            self.commit = None;
            self.client
                .batch_execute(&format!("SET synchronous_commit = {commit}"))?;
            self.commit = Some(commit);
        }
        Ok(())
    }
}

impl std::ops::Deref for Db {
    type Target = Client;

    fn deref(&self) -> &Client {
        &self.client
    }
}

impl std::ops::DerefMut for Db {
    fn deref_mut(&mut self) -> &mut Client {
        &mut self.client
    }
}

type Job = Box<dyn FnOnce() + Send>;

/// A connection's thread ended (it panicked, or could not run).
#[derive(Debug)]
struct ConnGone;

impl std::fmt::Display for ConnGone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("its thread ended")
    }
}

fn lock_client(client: &Mutex<Option<Db>>) -> MutexGuard<'_, Option<Db>> {
    client.lock().unwrap_or_else(|e| e.into_inner())
}

impl Conn {
    /// Connects to `store`'s database on the connection's new thread.
    fn open(store: &PgStore) -> Result<Conn, SessionError> {
        let config = store.config.clone();
        let (jobs, queue) = mpsc::channel::<Job>();
        let (connected, ready) = mpsc::sync_channel(1);
        let client: Arc<Mutex<Option<Db>>> = Arc::new(Mutex::new(None));
        let owned = Arc::clone(&client);
        std::thread::Builder::new()
            .name("toolhost-pg".into())
            .spawn(move || {
                match config.connect(NoTls) {
                    Ok(connected_client) => {
                        *lock_client(&owned) = Some(Db {
                            client: connected_client,
                            prepared: HashMap::new(),
                            commit: None,
                        });
                        let _ = connected.send(Ok(()));
                    }
                    Err(error) => {
                        let _ = connected.send(Err(error));
                        return;
                    }
                }
                // Until the last handle is gone; then the client is closed here.
                for job in queue {
                    job();
                }
                let client = lock_client(&owned).take();
                drop(client);
            })
            .map_err(|error| SessionError::Store {
                reason: format!("{}: cannot start a connection: {error}", store.shown),
            })?;
        match ready.recv() {
            Ok(Ok(())) => Ok(Conn { client, jobs }),
            Ok(Err(error)) => Err(store.error(&error)),
            Err(_) => Err(store.lost(&ConnGone)),
        }
    }

    /// Runs `job` on the client: on this thread when it is in no async runtime, else on the
    /// connection's thread, waiting for the result.
    fn run<R: Send + 'static>(
        &self,
        job: impl FnOnce(&mut Db) -> R + Send + 'static,
    ) -> Result<R, ConnGone> {
        if tokio::runtime::Handle::try_current().is_err() {
            let mut client = lock_client(&self.client);
            return client.as_mut().map(job).ok_or(ConnGone);
        }
        let (done, result) = mpsc::sync_channel(1);
        let client = Arc::clone(&self.client);
        self.jobs
            .send(Box::new(move || {
                let out = lock_client(&client).as_mut().map(job);
                let _ = done.send(out);
            }))
            .map_err(|_| ConnGone)?;
        result.recv().ok().flatten().ok_or(ConnGone)
    }

    fn is_closed(&self) -> bool {
        lock_client(&self.client)
            .as_ref()
            .is_none_or(|db| db.is_closed())
    }
}

/// The time of an event of a session, checked: a log holds times from 1970 on.
fn checked_time(id: &str, seq: i64, nanos: i64) -> Result<SystemTime, SessionError> {
    if nanos < 0 {
        return Err(SessionError::Store {
            reason: format!(
                "session {id} event {seq}: its time ({nanos} ns from 1970) is before 1970"
            ),
        });
    }
    Ok(time_of(nanos))
}

fn nanos_of(time: SystemTime) -> i64 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(since) => i64::try_from(since.as_nanos()).unwrap_or(i64::MAX),
        Err(before) => -i64::try_from(before.duration().as_nanos()).unwrap_or(i64::MAX),
    }
}

fn time_of(nanos: i64) -> SystemTime {
    if nanos >= 0 {
        UNIX_EPOCH + Duration::from_nanos(nanos.unsigned_abs())
    } else {
        UNIX_EPOCH - Duration::from_nanos(nanos.unsigned_abs())
    }
}

/// A driver error with the server's own message when there is one.
fn describe(error: &postgres::Error) -> String {
    match error.as_db_error() {
        Some(db) => format!("{} ({})", db.message(), db.code().code()),
        None => error.to_string(),
    }
}

/// `url` without its password: in the userinfo (`postgres://me:secret@…`, everything to the
/// last `@`, which may follow a `?` or `/` of the password's), in the query (`?password=…`, its
/// name percent-decoded as the driver decodes it), or a `password=…` setting of the key=value
/// form.
fn shown_url(url: &str) -> String {
    let is_password = |key: &str| percent_decoded(key.trim()).eq_ignore_ascii_case("password");
    let Some(scheme) = url.find("://") else {
        return url
            .split(' ')
            .map(|setting| match setting.split_once('=') {
                Some((key, _)) if is_password(key) => format!("{key}=***"),
                _ => setting.to_owned(),
            })
            .collect::<Vec<_>>()
            .join(" ");
    };
    let (head, rest) = url.split_at(scheme + 3);
    let mut shown = head.to_owned();
    let rest = match rest.rfind('@') {
        Some(at) => {
            let credentials = &rest[..at];
            match credentials.split_once(':') {
                Some((user, _)) => {
                    shown.push_str(user);
                    shown.push_str(":***");
                }
                None => shown.push_str(credentials),
            }
            &rest[at..]
        }
        None => rest,
    };
    let (base, query) = match rest.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (rest, None),
    };
    shown.push_str(base);
    if let Some(query) = query {
        shown.push('?');
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((key, _)) if is_password(key) => format!("{key}=***"),
                _ => pair.to_owned(),
            })
            .collect();
        shown.push_str(&pairs.join("&"));
    }
    shown
}

/// `text` with its `%XX` escapes decoded (bytes that are not UTF-8 as U+FFFD).
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[at], bytes.get(at + 1), bytes.get(at + 2)) {
            (b'%', Some(&high), Some(&low)) if hex(high).is_some() && hex(low).is_some() => {
                out.push((hex(high).unwrap_or(0) * 16 + hex(low).unwrap_or(0)) as u8);
                at += 3;
            }
            (byte, _, _) => {
                out.push(byte);
                at += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_not_shown() {
        assert_eq!(
            shown_url("postgres://me:secret@db:5432/x"),
            "postgres://me:***@db:5432/x"
        );
        assert_eq!(shown_url("postgres://me@db/x"), "postgres://me@db/x");
        assert_eq!(shown_url("host=db user=me"), "host=db user=me");
        assert_eq!(
            shown_url("postgres://me@db/x?sslmode=disable&password=secret&a=b"),
            "postgres://me@db/x?sslmode=disable&password=***&a=b"
        );
        assert_eq!(
            shown_url("postgres://me:pw@db/x?password=secret"),
            "postgres://me:***@db/x?password=***"
        );
        assert_eq!(
            shown_url("host=db password=secret user=me"),
            "host=db password=*** user=me"
        );
        // A password holding `?`, `/` or `@` of its own; a query key percent-encoded.
        assert_eq!(
            shown_url("postgres://me:se?cr/et@A@127.0.0.1:1/db"),
            "postgres://me:***@127.0.0.1:1/db"
        );
        assert_eq!(
            shown_url("postgres://h/db?%70assword=s1&pass%77ord=s2&user=u"),
            "postgres://h/db?%70assword=***&pass%77ord=***&user=u"
        );
    }

    #[test]
    fn the_data_bound_in_sql_is_the_log_line_bound() {
        assert_eq!(MAX_LINE_BYTES, 67_108_864);
        assert!(EVENT_COLUMNS.contains(&MAX_LINE_BYTES.to_string()));
        assert!(LATEST_PER_KIND.contains(&MAX_LINE_BYTES.to_string()));
    }

    /// The notifier is told each session's latest seq, woken only when it waits, and its
    /// loop ends once every handle is gone, with nothing left unannounced.
    #[test]
    fn notices_reach_the_notifier_and_end_with_the_last_handle() {
        let notices = Notices::new();
        let queue = Arc::clone(&notices.0);
        let (taken, seen) = mpsc::channel();
        let notifier = std::thread::spawn(move || {
            while queue.wait_for_notices() {
                std::thread::sleep(Duration::from_millis(1));
                taken.send(queue.take()).unwrap();
            }
        });
        let writer = notices.clone();
        for seq in 1..=100 {
            writer.announce("a", seq);
            notices.announce("b", seq * 2);
        }
        drop(writer);
        drop(notices);
        notifier.join().unwrap();
        let mut latest = std::collections::BTreeMap::new();
        for batch in seen.try_iter() {
            assert!(!batch.is_empty());
            for (session, seq) in batch {
                let before = latest.insert(session, seq);
                assert!(before.is_none_or(|before| before < seq));
            }
        }
        assert_eq!(
            latest,
            [("a".to_owned(), 100), ("b".to_owned(), 200)].into()
        );
    }

    #[test]
    fn times_round_trip_to_the_nanosecond() {
        for nanos in [0, 1, 1_764_720_000_123_456_789, -5] {
            assert_eq!(nanos_of(time_of(nanos)), nanos);
        }
    }
}
