//! Side by side with the peers: one `todo_write` call with 3, 20 and 200 todos, the same rules
//! checked and the list kept, made through this framework and through the Rust libraries a host
//! would pick instead.
//!
//! - **In process**: `ctx.tools.call` against rig's tool (`rig-core`'s `Tool` in its
//!   `ToolAdapter`, found by name in a map and served the call inline with `serve_inline`: what
//!   its driver runs for a model's tool call, without the driver's queue).
//! - **MCP, in process**: rmcp's client, over an in-memory pipe, to this framework's MCP server
//!   (`tool_host::mcp::McpServer`) against an rmcp server with the same tool (`#[tool_router]`).
//! - **MCP over a pipe**: the same two servers in a child process on its standard input and
//!   output (this bench, run again as the server), each on rmcp's non-blocking pipes
//!   (`stdio_pipes`), rmcp's client here.
//!
//! Ratios are ours over the peer's: below 1.00 is ahead. Run with
//! `cargo bench -p tests --bench peers` (a filter runs the rows whose name has it: `process`,
//! `mcp`, `pipe`, `3 todos`, `pipe, 3 todos`).

use std::collections::HashMap;
use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use rig_core::effect::{EffectKind, Outcome};
use rig_core::serve::adapters::ToolAdapter;
use rig_core::serve::{ErasedHandler, serve_inline};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolRequestParams, ServerCapabilities, ServerConfig};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use tests::bench::{Args, KEEP, Todo, check, keep, measure, summary, todo_args};
use tool_host::mcp::McpServer;
use tool_runtime::{Agent, Ctx, Exec, Session};
use tool_todo::TodoWrite;

/// The environment variable that makes this bench a server: `ours` or `rmcp`.
const SERVE: &str = "PEERS_SERVE";

/// Rounds of a row: ours and the peer's measured in turn, so a drift of this machine during the
/// run falls on both.
const ROUNDS: usize = 3;

/// The medians of `ours` and `peer` over [`ROUNDS`] measured in turn.
fn measure_both(mut ours: impl FnMut(), mut peer: impl FnMut()) -> (f64, f64) {
    let mut times: (Vec<f64>, Vec<f64>) = (0..ROUNDS)
        .map(|_| (measure(&mut ours), measure(&mut peer)))
        .unzip();
    let median = |times: &mut Vec<f64>| {
        times.sort_by(f64::total_cmp);
        times[ROUNDS / 2]
    };
    (median(&mut times.0), median(&mut times.1))
}

fn report(name: &str, ours: f64, peer: f64) {
    tests::bench::report(name, ours, "peer", peer);
}

/// The lists a peer's tool keeps: every one, or (in process, as ours there) the last
/// [`KEEP`] at most.
#[derive(Clone, Default)]
struct Kept {
    lists: Arc<Mutex<Vec<Vec<Todo>>>>,
    bounded: bool,
}

impl Kept {
    /// Checks `todos` as `todo_write` does, keeps them, and answers.
    fn accept(&self, todos: Vec<Todo>) -> Result<String, &'static str> {
        check(&todos)?;
        let text = summary(&todos);
        let mut lists = self.lists.lock().unwrap();
        if self.bounded {
            keep(&mut lists, todos);
        } else {
            lists.push(todos);
        }
        Ok(text)
    }
}

/// The tool on rig.
mod on_rig {
    use rig_core::tool::{Tool, ToolContext};

    use super::{Args, Kept};

    /// A list the rules refuse.
    #[derive(Debug)]
    pub struct Refused(&'static str);

    impl std::fmt::Display for Refused {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }

    impl std::error::Error for Refused {}

    pub struct TodoWrite(pub Kept);

    impl Tool for TodoWrite {
        const NAME: &'static str = "todo_write";
        type Args = Args;
        type Output = String;
        type Error = Refused;

        fn description(&self) -> String {
            "Replaces the task list.".into()
        }

        fn parameters(&self) -> serde_json::Value {
            serde_json::to_value(schemars::schema_for!(Args)).unwrap()
        }

        async fn call(&self, _context: &mut ToolContext, args: Args) -> Result<String, Refused> {
            self.0.accept(args.todos).map_err(Refused)
        }
    }
}

/// The tool on rmcp.
#[derive(Clone)]
struct RmcpTodos {
    kept: Kept,
    #[expect(dead_code, reason = "read by the code `#[tool_handler]` writes")]
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl RmcpTodos {
    fn new(kept: Kept) -> Self {
        RmcpTodos {
            kept,
            tool_router: Self::tool_router(),
        }
    }

    /// Replaces the task list.
    #[tool(name = "todo_write")]
    async fn todo_write(&self, Parameters(args): Parameters<Args>) -> Result<String, String> {
        self.kept.accept(args.todos).map_err(str::to_owned)
    }
}

#[tool_handler]
impl ServerHandler for RmcpTodos {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// This framework's MCP server for `todo_write`, its calls kept in a session in memory.
fn our_server() -> McpServer {
    let mut ctx = Ctx::new();
    ctx.plugin::<TodoWrite>().unwrap();
    McpServer::new(Arc::new(ctx), Agent::new("bench", Session::in_memory())).unwrap()
}

/// Runs a future that never waits (a tool's call on rig) to its end.
fn ready<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut context = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return output;
        }
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

/// One `todo_write` call on rmcp's client, its arguments read from their text as the ones a
/// model sent would be.
fn call(runtime: &tokio::runtime::Runtime, client: &RunningService<RoleClient, ()>, args: &str) {
    let arguments = serde_json::from_str(black_box(args)).unwrap();
    let params = CallToolRequestParams::new("todo_write").with_arguments(arguments);
    let result = runtime.block_on(client.call_tool(params)).unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
}

fn in_process(n: usize) {
    let args = todo_args(n);
    let mut ctx = Ctx::new();
    ctx.plugin::<TodoWrite>().unwrap();
    let fresh = || Exec::for_agent(Agent::new("bench", Session::in_memory()));
    let mut exec = fresh();
    let mut calls = 0;
    let ours = || {
        calls += 1;
        if calls % KEEP == 0 {
            exec = fresh();
        }
        let out = ctx.tools.call("todo_write", &exec, black_box(&args)).wait();
        assert!(!out.is_error, "{}", out.text);
    };

    let kept = Kept {
        bounded: true,
        ..Kept::default()
    };
    let mut handlers = HashMap::new();
    handlers.insert(
        "todo_write".to_owned(),
        ErasedHandler::new(ToolAdapter::new(on_rig::TodoWrite(kept.clone()))),
    );
    let rig = || {
        let handler = &handlers[black_box("todo_write")];
        let call = EffectKind::ToolCall {
            name: "todo_write".into(),
            args: black_box(&args).clone(),
        };
        match ready(serve_inline(handler, call)) {
            Ok(Outcome::ToolResult { result }) => assert!(result.is_success()),
            other => panic!("{other:?}"),
        }
    };
    let (ours, rig) = measure_both(ours, rig);
    report(&format!("in process, {n} todos, against rig"), ours, rig);
}

fn mcp_in_process(n: usize) {
    let args = todo_args(n);
    let runtime = runtime();
    let connect = |server: Box<dyn FnOnce(tokio::io::DuplexStream, tokio::io::DuplexStream)>| {
        let (client_write, server_read) = tokio::io::duplex(1 << 16);
        let (server_write, client_read) = tokio::io::duplex(1 << 16);
        server(server_read, server_write);
        runtime
            .block_on(().serve((client_read, client_write)))
            .unwrap()
    };
    let handle = runtime.handle().clone();
    let ours_client = connect(Box::new(move |read, write| {
        handle.spawn(async move { our_server().serve_connection(read, write).await });
    }));
    let handle = runtime.handle().clone();
    let rmcp_client = connect(Box::new(move |read, write| {
        handle.spawn(async move {
            let running = RmcpTodos::new(Kept::default())
                .serve((read, write))
                .await
                .unwrap();
            running.waiting().await
        });
    }));
    let clients = [ours_client, rmcp_client];
    race(
        &format!("MCP in process, {n} todos"),
        &runtime,
        clients,
        &args,
    );
}

fn mcp_over_a_pipe(n: usize) {
    let args = todo_args(n);
    let runtime = runtime();
    let _entered = runtime.enter();
    let child = |which: &str| {
        let mut command = tokio::process::Command::new(std::env::current_exe().unwrap());
        command.env(SERVE, which);
        let transport = rmcp::transport::TokioChildProcess::new(command).unwrap();
        runtime.block_on(().serve(transport)).unwrap()
    };
    let ours_client = child("ours");
    let rmcp_client = child("rmcp");
    let clients = [ours_client, rmcp_client];
    race(
        &format!("MCP over a pipe, {n} todos"),
        &runtime,
        clients,
        &args,
    );
}

/// Calls on our server's client and the rmcp server's, measured in turn, reported, and the
/// connections closed.
fn race(
    name: &str,
    runtime: &tokio::runtime::Runtime,
    [ours_client, rmcp_client]: [RunningService<RoleClient, ()>; 2],
    args: &str,
) {
    let (ours, rmcp) = measure_both(
        || call(runtime, &ours_client, args),
        || call(runtime, &rmcp_client, args),
    );
    report(&format!("{name}, against rmcp"), ours, rmcp);
    runtime.block_on(ours_client.cancel()).unwrap();
    runtime.block_on(rmcp_client.cancel()).unwrap();
}

/// Serves `which` server on this process's standard input and output until the client leaves.
fn serve(which: &str) {
    // As `toolhost mcp` builds its runtime, and as `#[tokio::main]` does on two cores.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        match which {
            "ours" => our_server().serve_stdio().await.unwrap(),
            "rmcp" => {
                let running = RmcpTodos::new(Kept::default())
                    .serve(rmcp::transport::stdio_pipes())
                    .await
                    .unwrap();
                running.waiting().await.unwrap();
            }
            other => panic!("{SERVE}={other}: no such server"),
        }
    });
}

fn main() {
    if let Ok(which) = std::env::var(SERVE) {
        serve(&which);
        return;
    }
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    // A row runs when its name has the filter in it: `pipe`, `3 todos`, `pipe, 3 todos`.
    let wanted = |group: &str, n: usize| {
        let name = format!("{group}, {n} todos");
        filter.as_deref().is_none_or(|f| name.contains(f))
    };
    println!("{:<46} {:>12}", "benchmark", "median");
    for n in [3, 20, 200] {
        if wanted("in process", n) {
            in_process(n);
        }
        if wanted("mcp in process", n) {
            mcp_in_process(n);
        }
        if wanted("mcp over a pipe", n) {
            mcp_over_a_pipe(n);
        }
    }
}
