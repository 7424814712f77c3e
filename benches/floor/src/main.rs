//! The floor of `benches/mcp-http.sh`: plain rmcp (its `#[tool_router]`, its Streamable HTTP
//! service in axum, stateless, JSON answers) serving `todo_write` with the rules toolhost checks
//! and the durability it gives: each accepted list appended as one JSON line to the file of the
//! agent session the `Agent-Session` header names, and `fdatasync`ed before the answer. Files
//! stay open between calls; a session's appends take turns. Given a `postgres://` URL instead of
//! a directory, each accepted list is one `INSERT` (its own transaction, `synchronous_commit`
//! on, as toolhost commits) through tokio-postgres, on one of 16 connections in turn.
//!
//! ```text
//! mcp-floor PORT SESSION_DIR
//! mcp-floor PORT postgres://…
//! ```

use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::Extension;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One task.
#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Todo {
    content: String,
    status: Status,
}

/// Where a task stands.
#[derive(Deserialize, Serialize, JsonSchema, PartialEq, Eq, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum Status {
    Pending,
    InProgress,
    Completed,
}

/// `todo_write`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Args {
    /// The COMPLETE task list, replacing any previous list.
    todos: Vec<Todo>,
}

/// The event line a call appends.
#[derive(Serialize)]
struct Line<'a> {
    time: u128,
    kind: &'static str,
    data: Data<'a>,
}

#[derive(Serialize)]
struct Data<'a> {
    todos: &'a [Todo],
}

/// The session files, kept open.
#[derive(Clone)]
struct Sessions {
    dir: PathBuf,
    open: Arc<Mutex<HashMap<String, Arc<Mutex<File>>>>>,
}

impl Sessions {
    /// The open file of a session, opened (for appending) on its first call.
    fn file(&self, name: &str) -> std::io::Result<Arc<Mutex<File>>> {
        let mut open = self
            .open
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(file) = open.get(name) {
            return Ok(Arc::clone(file));
        }
        let file = File::options()
            .create(true)
            .append(true)
            .open(self.dir.join(format!("{name}.jsonl")))?;
        let file = Arc::new(Mutex::new(file));
        open.insert(name.to_owned(), Arc::clone(&file));
        Ok(file)
    }
}

/// The PostgreSQL floor's connections, each with its insert prepared, taken in turn.
struct Database {
    clients: Vec<(tokio_postgres::Client, tokio_postgres::Statement)>,
    next: AtomicUsize,
}

const CONNECTIONS: usize = 16;

impl Database {
    async fn connect(url: &str) -> Result<Database, tokio_postgres::Error> {
        let mut clients = Vec::with_capacity(CONNECTIONS);
        for n in 0..CONNECTIONS {
            let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await?;
            tokio::spawn(connection);
            if n == 0 {
                client
                    .batch_execute(
                        "CREATE TABLE IF NOT EXISTS floor_events (
                            session_id text NOT NULL,
                            seq bigserial,
                            kind text NOT NULL,
                            data text NOT NULL,
                            time_ns bigint NOT NULL,
                            PRIMARY KEY (session_id, seq))",
                    )
                    .await?;
            }
            let insert = client
                .prepare(
                    "INSERT INTO floor_events (session_id, kind, data, time_ns) \
                     VALUES ($1, 'todo/write', $2, $3)",
                )
                .await?;
            clients.push((client, insert));
        }
        Ok(Database {
            clients,
            next: AtomicUsize::new(0),
        })
    }

    async fn insert(&self, session: &str, data: &str, time_ns: i64) -> Result<(), String> {
        let (client, insert) =
            &self.clients[self.next.fetch_add(1, Ordering::Relaxed) % self.clients.len()];
        client
            .execute(insert, &[&session, &data, &time_ns])
            .await
            .map(drop)
            .map_err(|error| error.to_string())
    }
}

/// Where accepted lists go.
#[derive(Clone)]
enum Store {
    Files(Sessions),
    Postgres(Arc<Database>),
}

#[derive(Clone)]
struct Floor {
    store: Store,
    #[expect(dead_code, reason = "read by the code `#[tool_handler]` writes")]
    tool_router: ToolRouter<Self>,
}

/// A session name a file may be named by: what toolhost takes.
fn valid_session(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.'))
        && !name.starts_with('.')
}

/// The spec's rules, in its order.
fn check(todos: &[Todo]) -> Result<[usize; 3], String> {
    if todos.iter().any(|todo| todo.content.trim().is_empty()) {
        return Err("Error: invalid todo: `content` must be a non-empty string".into());
    }
    for (i, todo) in todos.iter().enumerate() {
        let content = todo.content.trim();
        if todos[..i]
            .iter()
            .any(|earlier| earlier.content.trim() == content)
        {
            return Err(format!(
                "Error: invalid todos: duplicate content {content:?}"
            ));
        }
    }
    let mut counts = [0; 3];
    for todo in todos {
        counts[todo.status as usize] += 1;
    }
    if counts[1] > 1 {
        return Err(format!(
            "Error: invalid todos: at most one task may be in_progress, got {}",
            counts[1]
        ));
    }
    Ok(counts)
}

#[tool_router]
impl Floor {
    /// Record and update a structured task list for the current work.
    #[tool(name = "todo_write")]
    async fn todo_write(
        &self,
        Extension(parts): Extension<axum::http::request::Parts>,
        Parameters(args): Parameters<Args>,
    ) -> String {
        let counts = match check(&args.todos) {
            Ok(counts) => counts,
            Err(refusal) => return refusal,
        };
        let name = parts
            .headers
            .get("agent-session")
            .and_then(|value| value.to_str().ok())
            .unwrap_or("default");
        if !valid_session(name) {
            return "Error: invalid Agent-Session".into();
        }
        let since = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let line = Line {
            time: since.as_millis(),
            kind: "todo/write",
            data: Data { todos: &args.todos },
        };
        let written = match &self.store {
            Store::Files(sessions) => {
                let mut line = serde_json::to_vec(&line).expect("a list serializes");
                line.push(b'\n');
                match sessions.file(name) {
                    Ok(file) => tokio::task::spawn_blocking(move || {
                        let mut file = file.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                        file.write_all(&line)?;
                        file.sync_data()
                    })
                    .await
                    .expect("the append ran")
                    .map_err(|error| error.to_string()),
                    Err(error) => Err(error.to_string()),
                }
            }
            Store::Postgres(database) => {
                let data = serde_json::to_string(&line.data).expect("a list serializes");
                let time_ns = i64::try_from(since.as_nanos()).unwrap_or(i64::MAX);
                database.insert(name, &data, time_ns).await
            }
        };
        if let Err(error) = written {
            return format!("Error: could not record the todo list: {error}");
        }
        format!(
            "Updated todo list: {} pending, {} in progress, {} completed",
            counts[0], counts[1], counts[2]
        )
    }
}

#[tool_handler]
impl ServerHandler for Floor {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

#[tokio::main(worker_threads = 2)]
async fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let (Some(port), Some(place)) = (args.next(), args.next()) else {
        eprintln!("usage: mcp-floor PORT SESSION_DIR|postgres://…");
        std::process::exit(2);
    };
    let store = if place.starts_with("postgres://") || place.starts_with("postgresql://") {
        let database = Database::connect(&place)
            .await
            .map_err(|error| std::io::Error::other(error.to_string()))?;
        Store::Postgres(Arc::new(database))
    } else {
        Store::Files(Sessions {
            dir: PathBuf::from(place),
            open: Arc::default(),
        })
    };
    let service = StreamableHttpService::new(
        move || {
            Ok(Floor {
                store: store.clone(),
                tool_router: Floor::tool_router(),
            })
        },
        Arc::new(NeverSessionManager::default()),
        StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true),
    );
    let app = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    axum::serve(listener, app).await
}
