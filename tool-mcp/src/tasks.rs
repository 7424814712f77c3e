//! Tasks (MCP's tasks extension, SEP-2663): a call of a tool declared `#[tool(task)]`, from a
//! client that speaks the extension, is answered at once with a task's handle; the call goes on
//! in the background and the client polls `tasks/get` for its state, answers its questions with
//! `tasks/update` and stops it with `tasks/cancel`.
//!
//! A task's state is a log in the server's store (over HTTP the agent sessions' store, files or
//! PostgreSQL; over one connection, memory): `task/created` when it begins, `task/asked` with
//! every question it asked, `task/answers` with every answer the client sent, `task/status` when
//! it ends. Each write takes the log's writer lease and, within a process, its turn (what an
//! edit appends depends on what it read), so any replica answers `tasks/get`, and a
//! `tasks/update` or `tasks/cancel` landing on another replica than the one running the task
//! reaches it: the runner looks in the store for them every [`WATCH`], and at once when they
//! land on its own replica. The view `tasks/get` answers is computed from the log: the
//! questions asked and not answered yet are the task's `inputRequests`.
//!
//! Tasks are bound to their caller: under a checked token the log is named in the caller's
//! namespace, so another caller's `tasks/get` of the same id finds nothing (`-32602`, as for an
//! unknown id). A task is kept [`TTL`] from its start; past it, it is unknown.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rmcp::ErrorData;
use rmcp::model::{
    ClientCapabilities, DetailedTask, InputRequest, InputRequests, JsonObject, Task, TaskPayload,
    TaskStatus,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tool_runtime::{AskError, Asker, Question, Replying, Session};

use crate::error::McpError;
use crate::lock::lock;

/// How long a task is kept from its start (`ttlMs`).
pub const TTL: Duration = Duration::from_secs(3600);

/// How often a client is asked to poll (`pollIntervalMs`).
pub const POLL_INTERVAL: Duration = Duration::from_millis(500);

/// How often a task's runner looks in the store for what another replica wrote to it (answers,
/// cancellation).
pub const WATCH: Duration = Duration::from_millis(250);

/// How long a cancelled task's call has to stop before it is dropped.
const GRACE: Duration = Duration::from_secs(5);

const CREATED: &str = "task/created";
const ASKED: &str = "task/asked";
const ANSWERS: &str = "task/answers";
const STATUS: &str = "task/status";

/// What `task/created` records.
#[derive(Serialize, Deserialize)]
struct Created {
    tool: String,
    /// Milliseconds since the Unix epoch.
    at: u64,
    ttl_ms: u64,
}

/// What `task/status` records: how the task ended (or, for `working`, a message on the way).
#[derive(Serialize, Deserialize)]
struct Ended {
    status: TaskStatus,
    at: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    result: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<JsonObject>,
}

/// Where tasks' logs are kept, each edited by one writer at a time.
pub(crate) struct Logs {
    kept: Kept,
    /// A log's edits (what was read decides what is appended) one at a time in this process:
    /// a file store's session is shared by every call of the process that holds its file,
    /// where the lease orders only the writers of other processes (so two questions asked at
    /// once could each append the questions without the other's). Logs share a turn by the
    /// hash of their name.
    turns: [Mutex<()>; TURNS],
}

/// How many turns the logs share.
const TURNS: usize = 16;

enum Kept {
    /// In memory: one connection's server.
    Memory(Mutex<HashMap<String, Session>>),
    /// In the agent sessions' store of an HTTP endpoint.
    #[cfg(feature = "http")]
    Store(Arc<crate::sessions::HttpSessions>),
}

impl Logs {
    /// Logs in memory.
    pub(crate) fn memory() -> Self {
        Self::of(Kept::Memory(Mutex::default()))
    }

    /// Logs in the agent sessions' store `sessions`.
    #[cfg(feature = "http")]
    pub(crate) fn store(sessions: Arc<crate::sessions::HttpSessions>) -> Self {
        Self::of(Kept::Store(sessions))
    }

    fn of(kept: Kept) -> Self {
        Logs {
            kept,
            turns: std::array::from_fn(|_| Mutex::new(())),
        }
    }

    /// The log `name`, if it exists. Blocks.
    fn read(&self, name: &str) -> Result<Option<Session>, McpError> {
        match &self.kept {
            Kept::Memory(logs) => Ok(lock(logs).get(name).cloned()),
            #[cfg(feature = "http")]
            Kept::Store(sessions) => sessions.read(name),
        }
    }

    /// Writes what `edit` makes of log `name` (created if absent), under its writer's lease and
    /// in its turn. Blocks.
    fn write<T>(
        &self,
        name: &str,
        edit: impl FnOnce(&Session) -> Result<T, McpError>,
    ) -> Result<T, McpError> {
        use std::hash::BuildHasher as _;
        let turn = std::hash::BuildHasherDefault::<std::hash::DefaultHasher>::default()
            .hash_one(name) as usize
            % TURNS;
        match &self.kept {
            Kept::Memory(logs) => {
                let session = lock(logs)
                    .entry(name.to_owned())
                    .or_insert_with(Session::in_memory)
                    .clone();
                let _turn = lock(&self.turns[turn]);
                edit(&session)
            }
            #[cfg(feature = "http")]
            Kept::Store(sessions) => {
                let checkout = sessions.agent(name, None)?;
                let _turn = lock(&self.turns[turn]);
                edit(checkout.agent().session())
            }
        }
    }
}

/// A task running on this replica: what stops it and what wakes its questions.
struct Running {
    cancel: CancellationToken,
    nudge: tokio::sync::Notify,
}

/// The tasks of one server.
pub(crate) struct Tasks {
    logs: Logs,
    running: Mutex<HashMap<String, Arc<Running>>>,
}

/// A task's view, as `tasks/get` answers it.
struct View {
    task: DetailedTask,
    expired: bool,
}

impl Tasks {
    pub(crate) fn new(logs: Logs) -> Arc<Self> {
        Arc::new(Tasks {
            logs,
            running: Mutex::default(),
        })
    }

    /// A new task's id: `task-` and 32 hex digits from the system's random source.
    pub(crate) fn mint() -> Result<String, ErrorData> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).map_err(|error| {
            ErrorData::internal_error(
                format!("cannot begin a task: the system's random source failed: {error}"),
                None,
            )
        })?;
        let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
        Ok(format!("task-{hex}"))
    }

    /// The log of task `id` for a caller in `namespace` (empty for an unchecked one); `-32602`
    /// for an id this server never mints.
    pub(crate) fn log_name(id: &str, namespace: &str) -> Result<String, ErrorData> {
        let well_formed = id
            .strip_prefix("task-")
            .is_some_and(|hex| hex.len() == 32 && hex.bytes().all(|byte| byte.is_ascii_hexdigit()));
        if !well_formed {
            return Err(unknown(id));
        }
        Ok(if namespace.is_empty() {
            id.to_owned()
        } else {
            format!("{namespace}.{id}")
        })
    }

    /// Records task `id` (log `log`) of `tool` as begun, and keeps what stops it; returns the
    /// handle the client gets. Blocks: the task is in the store before its handle is given.
    pub(crate) fn create(
        self: &Arc<Self>,
        id: &str,
        log: &str,
        tool: &str,
        cancel: CancellationToken,
    ) -> Result<Task, McpError> {
        let at = now_ms();
        let created = Created {
            tool: tool.to_owned(),
            at,
            ttl_ms: TTL.as_millis() as u64,
        };
        self.logs.write(log, |session| {
            if session.latest(CREATED).is_some() {
                return Err(McpError::Protocol(format!("task {id} exists already")));
            }
            session.append(CREATED, &created)?;
            Ok(())
        })?;
        lock(&self.running).insert(
            log.to_owned(),
            Arc::new(Running {
                cancel,
                nudge: tokio::sync::Notify::new(),
            }),
        );
        Ok(base(id, TaskStatus::Working, &created, at))
    }

    /// How task `id` (log `log`) stands. Blocks.
    fn view(&self, id: &str, log: &str) -> Result<Option<View>, ErrorData> {
        let Some(session) = self.logs.read(log).map_err(internal)? else {
            return Ok(None);
        };
        Ok(view_of(id, &session))
    }

    /// `tasks/get`. Blocks.
    pub(crate) fn get(&self, id: &str, log: &str) -> Result<DetailedTask, ErrorData> {
        match self.view(id, log)? {
            Some(view) if !view.expired => Ok(view.task),
            _ => Err(unknown(id)),
        }
    }

    /// `tasks/update`: the client's answers to the task's questions, kept beside the earlier
    /// ones; answers to no question it asked, or to one answered already, are ignored. Blocks.
    pub(crate) fn update(
        &self,
        id: &str,
        log: &str,
        responses: BTreeMap<String, Value>,
    ) -> Result<(), ErrorData> {
        match self.view(id, log)? {
            Some(view) if !view.expired => {}
            _ => return Err(unknown(id)),
        }
        self.logs
            .write(log, |session| {
                let asked: BTreeMap<String, Value> = latest(session, ASKED).unwrap_or_default();
                let mut answers: BTreeMap<String, Value> =
                    latest(session, ANSWERS).unwrap_or_default();
                let before = answers.len();
                for (key, value) in responses {
                    if asked.contains_key(&key) && !answers.contains_key(&key) {
                        answers.insert(key, value);
                    }
                }
                if answers.len() > before {
                    session.append(ANSWERS, &answers)?;
                }
                Ok(())
            })
            .map_err(internal)?;
        if let Some(running) = lock(&self.running).get(log) {
            running.nudge.notify_waiters();
        }
        Ok(())
    }

    /// `tasks/cancel`: a task that has not ended is cancelled at once in the store, and its
    /// call stopped (here, or by the replica running it when it next looks); one that has
    /// ended stays as it is. Blocks.
    pub(crate) fn cancel(&self, id: &str, log: &str) -> Result<(), ErrorData> {
        match self.view(id, log)? {
            Some(view) if !view.expired => {
                if !view.task.status().is_terminal() {
                    self.end(log, TaskStatus::Cancelled, None, None)
                        .map_err(internal)?;
                }
            }
            _ => return Err(unknown(id)),
        }
        if let Some(running) = lock(&self.running).get(log) {
            running.cancel.cancel();
        }
        Ok(())
    }

    /// Records how the task of log `log` ended, unless it has ended already. Blocks.
    fn end(
        &self,
        log: &str,
        status: TaskStatus,
        result: Option<JsonObject>,
        error: Option<JsonObject>,
    ) -> Result<(), McpError> {
        self.logs.write(log, |session| {
            let ended = latest::<Ended>(session, STATUS);
            if ended.is_some_and(|ended| ended.status.is_terminal()) {
                return Ok(());
            }
            session.append(
                STATUS,
                &Ended {
                    status,
                    at: now_ms(),
                    result,
                    error,
                },
            )?;
            Ok(())
        })
    }

    /// Runs the rest of task `log`'s call, `call`, to its end and records that end: its result
    /// (`completed`, a tool's error among them), the server's failure (`failed`), or its
    /// cancellation. A cancelled call has [`GRACE`] to stop before it is dropped. Another
    /// replica's cancellation is seen within [`WATCH`].
    pub(crate) async fn finish(
        self: Arc<Self>,
        log: String,
        call: tokio::task::JoinHandle<Result<Option<rmcp::model::CallToolResult>, ErrorData>>,
    ) {
        let Some(running) = lock(&self.running).get(&log).cloned() else {
            return;
        };
        let watcher = self.watch(&log, &running);
        let mut call = std::pin::pin!(call);
        let ended = tokio::select! {
            ended = &mut call => Some(ended),
            () = async {
                running.cancel.cancelled().await;
                tokio::time::sleep(GRACE).await;
            } => None,
        };
        watcher.abort();
        if ended.is_none() {
            call.abort();
        }
        let (status, result, error) = if running.cancel.is_cancelled() {
            (TaskStatus::Cancelled, None, None)
        } else {
            match ended {
                Some(Ok(Ok(Some(result)))) => (
                    TaskStatus::Completed,
                    serde_json::to_value(&result)
                        .ok()
                        .and_then(|value| value.as_object().cloned()),
                    None,
                ),
                Some(Ok(Ok(None))) => (
                    TaskStatus::Failed,
                    None,
                    error_object(&ErrorData::internal_error(
                        "the call stopped at a question no one could answer",
                        None,
                    )),
                ),
                Some(Ok(Err(error))) => (TaskStatus::Failed, None, error_object(&error)),
                Some(Err(joined)) => (
                    TaskStatus::Failed,
                    None,
                    error_object(&ErrorData::internal_error(
                        format!("the call failed: {joined}"),
                        None,
                    )),
                ),
                None => (TaskStatus::Cancelled, None, None),
            }
        };
        let tasks = Arc::clone(&self);
        let written = {
            let log = log.clone();
            tokio::task::spawn_blocking(move || tasks.end(&log, status, result, error)).await
        };
        match written {
            Ok(Ok(())) => {}
            Ok(Err(error)) => {
                tool_runtime::text::note!("task {log}: its end was not recorded: {error}")
            }
            Err(error) => {
                tool_runtime::text::note!("task {log}: its end was not recorded: {error}")
            }
        }
        lock(&self.running).remove(&log);
    }

    /// Looks in the store every [`WATCH`] for what another replica wrote to task `log`: a
    /// cancellation stops its call, answers wake its questions.
    fn watch(self: &Arc<Self>, log: &str, running: &Arc<Running>) -> tokio::task::JoinHandle<()> {
        let tasks = Arc::clone(self);
        let running = Arc::clone(running);
        let log = log.to_owned();
        tokio::spawn(async move {
            let mut answered = 0;
            loop {
                tokio::time::sleep(WATCH).await;
                let tasks = Arc::clone(&tasks);
                let name = log.clone();
                let Ok(Ok(Some(session))) =
                    tokio::task::spawn_blocking(move || tasks.logs.read(&name)).await
                else {
                    continue;
                };
                if latest::<Ended>(&session, STATUS)
                    .is_some_and(|ended| ended.status == TaskStatus::Cancelled)
                {
                    running.cancel.cancel();
                    return;
                }
                let answers = latest::<BTreeMap<String, Value>>(&session, ANSWERS)
                    .map_or(0, |answers| answers.len());
                if answers > answered {
                    answered = answers;
                    running.nudge.notify_waiters();
                }
            }
        })
    }

    /// Where task `log`'s call asks: on the task.
    pub(crate) fn asker(
        self: &Arc<Self>,
        log: &str,
        capabilities: ClientCapabilities,
    ) -> Arc<OnTask> {
        Arc::new(OnTask {
            tasks: Arc::clone(self),
            log: log.to_owned(),
            capabilities,
            begun: tokio::sync::watch::channel(false).0,
        })
    }
}

/// Where a task's call asks: each question is recorded on the task (`input_required`, with the
/// question among its `inputRequests`) until the client's answer arrives with `tasks/update`.
pub(crate) struct OnTask {
    tasks: Arc<Tasks>,
    log: String,
    capabilities: ClientCapabilities,
    /// Whether the task is in the store yet (a call that detaches asks only once it is).
    begun: tokio::sync::watch::Sender<bool>,
}

impl OnTask {
    /// The task is in the store: its questions may be recorded.
    pub(crate) fn begun(&self) {
        self.begun.send_replace(true);
    }

    async fn ask_on_task(
        &self,
        key: &str,
        question: Question,
    ) -> Result<tool_runtime::Reply, AskError> {
        crate::rounds::can(&self.capabilities, &question)?;
        let request: InputRequest = crate::rounds::input_request(&question)?;
        let mut begun = self.begun.subscribe();
        let _ = begun.wait_for(|begun| *begun).await;
        let running = lock(&self.tasks.running).get(&self.log).cloned();
        let failed =
            |error: McpError| AskError::Failed(format!("the task's store failed: {error}"));
        // The question is recorded beside the others asked.
        {
            let tasks = Arc::clone(&self.tasks);
            let log = self.log.clone();
            let key = key.to_owned();
            let wire = serde_json::to_value(&request)
                .map_err(|error| AskError::Failed(error.to_string()))?;
            tokio::task::spawn_blocking(move || {
                tasks.logs.write(&log, |session| {
                    let mut asked: BTreeMap<String, Value> =
                        latest(session, ASKED).unwrap_or_default();
                    if asked.insert(key, wire).is_none() {
                        session.append(ASKED, &asked)?;
                    }
                    Ok(())
                })
            })
            .await
            .map_err(|error| AskError::Failed(error.to_string()))?
            .map_err(failed)?;
        }
        loop {
            let nudged = running.as_ref().map(|running| running.nudge.notified());
            let mut nudged = std::pin::pin!(async move {
                match nudged {
                    Some(nudged) => nudged.await,
                    None => std::future::pending().await,
                }
            });
            let tasks = Arc::clone(&self.tasks);
            let log = self.log.clone();
            let session = tokio::task::spawn_blocking(move || tasks.logs.read(&log))
                .await
                .map_err(|error| AskError::Failed(error.to_string()))?
                .map_err(failed)?;
            let sent = session
                .as_ref()
                .and_then(|session| latest::<BTreeMap<String, Value>>(session, ANSWERS))
                .and_then(|mut answers| answers.remove(key));
            if let Some(sent) = sent
                && let Some(reply) = crate::rounds::reply_of(&question, &sent)
            {
                return Ok(reply);
            }
            tokio::select! {
                () = &mut nudged => {}
                () = tokio::time::sleep(WATCH) => {}
            }
        }
    }
}

impl Asker for OnTask {
    fn ask<'a>(&'a self, key: &'a str, question: Question) -> Replying<'a> {
        Box::pin(self.ask_on_task(key, question))
    }
}

/// The view of task `id` from its log.
fn view_of(id: &str, session: &Session) -> Option<View> {
    let created: Created = latest(session, CREATED)?;
    let expired = now_ms() > created.at.saturating_add(created.ttl_ms);
    let ended: Option<Ended> = latest(session, STATUS);
    let asked: BTreeMap<String, Value> = latest(session, ASKED).unwrap_or_default();
    let answers: BTreeMap<String, Value> = latest(session, ANSWERS).unwrap_or_default();
    let at = ended.as_ref().map_or(created.at, |ended| ended.at);
    let payload = match ended {
        Some(Ended {
            status: TaskStatus::Completed,
            result,
            ..
        }) => TaskPayload::Completed {
            result: result.unwrap_or_default(),
        },
        Some(Ended {
            status: TaskStatus::Failed,
            error,
            ..
        }) => TaskPayload::Failed {
            error: error.unwrap_or_default(),
        },
        Some(Ended {
            status: TaskStatus::Cancelled,
            ..
        }) => TaskPayload::Cancelled,
        _ => {
            let waiting: InputRequests = asked
                .into_iter()
                .filter(|(key, _)| !answers.contains_key(key))
                .filter_map(|(key, request)| Some((key, serde_json::from_value(request).ok()?)))
                .collect();
            if waiting.is_empty() {
                TaskPayload::Working
            } else {
                TaskPayload::InputRequired {
                    input_requests: waiting,
                }
            }
        }
    };
    let task = base(id, payload.status(), &created, at);
    Some(View {
        task: DetailedTask::new(task, payload),
        expired,
    })
}

/// The base fields of task `id`.
fn base(id: &str, status: TaskStatus, created: &Created, updated: u64) -> Task {
    Task::new(id, status, timestamp(created.at), timestamp(updated))
        .with_ttl_ms(created.ttl_ms)
        .with_poll_interval_ms(POLL_INTERVAL.as_millis() as u64)
}

/// The latest event `kind` of `session`, read as `T`.
fn latest<T: serde::de::DeserializeOwned>(session: &Session, kind: &str) -> Option<T> {
    session
        .latest(kind)
        .and_then(|event| event.data::<T>().ok())
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_millis() as u64)
}

/// `ms` milliseconds since the epoch as RFC 3339 (ISO 8601), in UTC.
fn timestamp(ms: u64) -> String {
    humantime::format_rfc3339_millis(UNIX_EPOCH + Duration::from_millis(ms)).to_string()
}

/// A JSON-RPC error as a failed task's `error`.
fn error_object(error: &ErrorData) -> Option<JsonObject> {
    serde_json::to_value(error)
        .ok()
        .and_then(|value| value.as_object().cloned())
}

fn unknown(id: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!(
            "no task {} here: it was never begun for this caller, or it has expired",
            tool_runtime::text::neutralize(&id.chars().take(80).collect::<String>())
        ),
        None,
    )
}

fn internal(error: McpError) -> ErrorData {
    ErrorData::internal_error(format!("the task's store failed: {error}"), None)
}

#[cfg(all(test, feature = "http"))]
mod tests {
    use super::*;
    use tool_runtime::session::{SessionDir, SessionHub};

    /// Edits of one log at once, from threads of the process that holds its file, each see what
    /// the others appended: none is lost, as two questions a task asks at once are both kept.
    #[test]
    fn edits_of_a_file_log_at_once_lose_none() {
        let dir = std::env::temp_dir().join(format!("tool-mcp-turns-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let sessions = crate::sessions::HttpSessions::files(
            SessionHub::new(),
            SessionDir::new(dir.clone()).unwrap(),
        );
        let logs = Logs::store(Arc::new(sessions));
        std::thread::scope(|scope| {
            for n in 0..8 {
                let logs = &logs;
                scope.spawn(move || {
                    logs.write("task-turns", |session| {
                        let mut asked: BTreeMap<String, Value> =
                            latest(session, ASKED).unwrap_or_default();
                        // What was read is a while old by the time it is written.
                        std::thread::sleep(Duration::from_millis(5));
                        asked.insert(format!("question {n}"), Value::Null);
                        session.append(ASKED, &asked)?;
                        Ok(())
                    })
                    .unwrap();
                });
            }
        });
        let session = logs.read("task-turns").unwrap().unwrap();
        let asked: BTreeMap<String, Value> = latest(&session, ASKED).unwrap();
        assert_eq!(asked.len(), 8, "{asked:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
