//! Benchmarks, each figure next to a floor measured in the same run, as a ratio.
//!
//! Run with `cargo bench -p tests --bench toolbench` (add a filter word to run some: `dispatch`,
//! `errors`, `constraints`, `dynamic`, `proxied`, `structured`, `append`, `replay`, `definitions`, `wire`). Each figure is the median of
//! 15 samples, each sample running the body for about 40 ms; the machine and results go into
//! BENCHMARKS.md.

use std::fs::{File, OpenOptions};
use std::hint::black_box;
use std::io::Write;
use std::os::unix::fs::FileExt;

use serde_json::json;
use tests::bench::{KEEP, measure, todo_args};
use tool_runtime::session::{Durability, GroupSync, JsonlLog, OpenMode};
use tool_runtime::{Agent, Ctx, Dialect, Exec, Session};
use tool_todo::TodoWrite;

fn report(name: &str, ns: f64, floor: f64) {
    tests::bench::report(name, ns, "floor", floor);
}

/// The floor: the same arguments into plain typed structs, checked by hand, and the list kept.
mod floor {
    pub use tests::bench::{Args, call_kept, keep};
}

/// A call to another MCP server's tool through `tool_host::toolsets` (checked here, forwarded on
/// rmcp's client), against the same call made with rmcp's client directly: the Python MCP SDK's
/// server of the agent tests, on a child's stdio.
mod proxied {
    use std::hint::black_box;
    use std::path::Path;

    use rmcp::ServiceExt;
    use rmcp::model::CallToolRequestParams;
    use rmcp::transport::TokioChildProcess;
    use tool_host::toolsets::{McpServer, Toolsets};
    use tool_runtime::{Ctx, Exec};

    pub fn run() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let venv = root.join("target/venv/bin/python3");
        let python = if venv.exists() {
            venv
        } else {
            "python3".into()
        };
        let script = root.join("tool-host/tests/agent/mcp_server.py");
        let command = format!("{} {} stdio /dev/null", python.display(), script.display());
        let toolsets = Toolsets::connect(vec![McpServer::command(&command).unwrap()]).unwrap();
        let tools = toolsets.registry(&Ctx::new().tools).unwrap();
        let exec = Exec::new();
        let args = r#"{"a": 2, "b": 3}"#;
        let proxied = super::measure(|| {
            let out = tools.call("add", &exec, black_box(args)).wait();
            assert_eq!(out.text, "5");
        });
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let client = runtime.block_on(async {
            let mut child = tokio::process::Command::new(&python);
            child.arg(&script).args(["stdio", "/dev/null"]);
            ().serve(TokioChildProcess::new(child).unwrap())
                .await
                .unwrap()
        });
        let direct = super::measure(|| {
            let arguments = serde_json::from_str(black_box(args)).unwrap();
            let params = CallToolRequestParams::new("add").with_arguments(arguments);
            let result = runtime.block_on(client.call_tool(params)).unwrap();
            assert_eq!(result.content.len(), 1);
        });
        super::report("proxied MCP call vs rmcp's client direct", proxied, direct);
        drop(toolsets);
        runtime.block_on(client.cancel()).unwrap();
    }
}

/// A tool with ten constrained arguments, and the same arguments' typed parse as its floor.
mod constrained {
    use schemars::JsonSchema;
    use serde::Deserialize;
    use tool_runtime::tool;

    #[derive(Deserialize)]
    #[allow(dead_code)]
    pub struct Floor {
        pub a: u32,
        pub b: u32,
        pub c: i64,
        pub d: String,
        pub e: String,
        pub f: Vec<String>,
        pub g: Vec<u8>,
        pub h: f64,
        pub i: Page,
        pub j: String,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    pub struct Page {
        #[schemars(range(min = 1, max = 100))]
        pub size: u32,
    }

    /// Ten constrained arguments.
    #[allow(clippy::too_many_arguments, clippy::needless_pass_by_value)]
    #[tool(allow_undocumented)]
    pub fn ten(
        #[schemars(range(min = 1, max = 10))] a: u32,
        #[schemars(range(max = 1000))] b: u32,
        #[schemars(range(min = -50, max = 50))] c: i64,
        #[schemars(length(min = 1, max = 40))] d: String,
        #[schemars(regex(pattern = "^[a-z ]+$"))] e: String,
        #[schemars(length(max = 8))] f: Vec<String>,
        #[schemars(length(min = 1, max = 8))] g: Vec<u8>,
        #[schemars(extend("exclusiveMinimum" = 0.0, "exclusiveMaximum" = 1.0))] h: f64,
        i: Page,
        #[schemars(length(max = 64))] j: String,
    ) -> &'static str {
        let _ = (a, b, c, d, e, f, g, h, i, j);
        "ok"
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    pub struct PlainPage {
        pub size: u32,
    }

    /// The same ten arguments without a keyword.
    #[allow(clippy::too_many_arguments, clippy::needless_pass_by_value)]
    #[tool(allow_undocumented)]
    pub fn plain(
        a: u32,
        b: u32,
        c: i64,
        d: String,
        e: String,
        f: Vec<String>,
        g: Vec<u8>,
        h: f64,
        i: PlainPage,
        j: String,
    ) -> &'static str {
        let _ = (a, b, c, d, e, f, g, h, i, j);
        "ok"
    }

    pub fn args() -> String {
        serde_json::json!({
            "a": 3, "b": 500, "c": -7, "d": "a short text", "e": "lowercase words only",
            "f": ["one", "two", "three"], "g": [1, 2, 3, 4], "h": 0.25, "i": {"size": 20},
            "j": "another string argument of middling length"
        })
        .to_string()
    }
}

/// A tool that returns data, and the same data serialized by hand as its floor.
mod data {
    use schemars::JsonSchema;
    use serde::Serialize;
    use tool_runtime::tool;

    #[derive(Serialize, JsonSchema)]
    pub struct Forecast {
        pub city: String,
        pub temp_c: f64,
        pub hourly: Vec<Hour>,
    }

    #[derive(Serialize, JsonSchema)]
    pub struct Hour {
        pub hour: u8,
        pub temp_c: f64,
        pub sky: String,
    }

    pub fn forecast_of(city: String) -> Forecast {
        Forecast {
            city,
            temp_c: 21.5,
            hourly: (0..24)
                .map(|hour| Hour {
                    hour,
                    temp_c: 15.0 + f64::from(hour) / 4.0,
                    sky: "partly cloudy".into(),
                })
                .collect(),
        }
    }

    /// Tells the weather.
    #[tool(allow_undocumented, type_name = "ForecastTool")]
    pub fn forecast(city: String) -> Forecast {
        forecast_of(city)
    }
}

fn wanted(filter: &Option<String>, group: &str) -> bool {
    filter.as_deref().is_none_or(|f| group.contains(f))
}

fn main() {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    println!(
        "{:<46} {:>12}  {:>18}  {:>11}",
        "benchmark", "median", "", ""
    );

    let mut ctx = Ctx::new();
    ctx.plugin::<TodoWrite>().unwrap();

    if wanted(&filter, "dispatch") {
        let fresh = || Exec::for_agent(Agent::new("bench", Session::in_memory()));
        for n in [3, 20, 200] {
            let args = todo_args(n);
            let mut exec = fresh();
            let mut calls = 0;
            let ours = measure(|| {
                calls += 1;
                if calls % KEEP == 0 {
                    exec = fresh();
                }
                let out = ctx.tools.call("todo_write", &exec, black_box(&args)).wait();
                assert!(!out.is_error);
            });
            let mut kept = Vec::with_capacity(KEEP);
            let floor = measure(|| assert!(floor::call_kept(black_box(&args), &mut kept)));
            report(&format!("dispatch todo_write, {n} todos"), ours, floor);
            if n == 3 {
                // The part of a call the floor has nothing for: the session event (its time, its
                // allocations, the lock, the latest-event map, the live stream), with no data.
                let mut session = Session::in_memory();
                let mut appends = 0;
                let event = measure(|| {
                    appends += 1;
                    if appends % KEEP == 0 {
                        session = Session::in_memory();
                    }
                    session.append_value("todo/write", ()).unwrap();
                });
                report("dispatch, its event alone (3 todos' floor)", event, floor);
                // The part of the floor any call has too: the arguments read into the same
                // types, and kept. Beside the event, a lower bound for a call's ratio.
                let mut parsed = Vec::with_capacity(KEEP);
                let parse = measure(|| {
                    let args: floor::Args = serde_json::from_str(black_box(&args)).unwrap();
                    floor::keep(&mut parsed, args.todos);
                });
                report(
                    "dispatch, the floor's parse alone (3 todos' floor)",
                    parse,
                    floor,
                );
            }
        }
    }
    // Alone with the filter `errors`.
    if wanted(&filter, "dispatch errors") {
        let mut kept = Vec::with_capacity(KEEP);
        let args = todo_args(20);
        let floor = measure(|| assert!(floor::call_kept(black_box(&args), &mut kept)));
        let exec = Exec::for_agent(Agent::new("bench", Session::in_memory()));
        let bad_status = args.replacen("\"pending\"", "\"done\"", 1);
        let schema_error = measure(|| {
            assert!(
                ctx.tools
                    .call("todo_write", &exec, black_box(&bad_status))
                    .wait()
                    .is_error
            )
        });
        report("dispatch, schema error (20 todos)", schema_error, floor);
        let duplicate = args
            .replacen("item 2\"", "item 0\"", 1)
            .replacen("Step 2:", "Step 0:", 1);
        let duplicate_error = measure(|| {
            assert!(
                ctx.tools
                    .call("todo_write", &exec, black_box(&duplicate))
                    .wait()
                    .is_error
            )
        });
        report(
            "dispatch, duplicate error (20 todos)",
            duplicate_error,
            floor,
        );
    }

    if wanted(&filter, "dynamic") {
        // The macro tool's own schema, served by a runtime-defined tool: the same checks, made
        // on a JSON value instead of typed arguments.
        use tool_runtime::DynamicTool;
        let mut ctx = Ctx::new();
        ctx.plugin::<constrained::Ten>().unwrap();
        let schema = ctx
            .tools
            .get("ten")
            .unwrap()
            .definition()
            .input_schema()
            .clone();
        let dynamic = DynamicTool::builder(
            "ten_at_run_time",
            "Ten constrained arguments.",
            schema.clone(),
        )
        .handler(|_, args: serde_json::Value| {
            black_box(&args);
            "ok"
        })
        .unwrap();
        ctx.tool(dynamic).unwrap();
        let text = DynamicTool::builder("ten_as_text", "Ten constrained arguments.", schema)
            .raw_handler(|_, args: &str| {
                black_box(args);
                "ok"
            })
            .unwrap();
        ctx.tool(text).unwrap();
        let args = constrained::args();
        let exec = Exec::new();
        let call = |tool: &str| {
            let out = ctx.tools.call(tool, &exec, black_box(&args)).wait();
            assert!(!out.is_error, "{}", out.text);
        };
        let macro_tool = measure(|| call("ten"));
        let runtime_defined = measure(|| call("ten_at_run_time"));
        report(
            "runtime-defined tool vs the macro tool",
            runtime_defined,
            macro_tool,
        );
        let as_text = measure(|| call("ten_as_text"));
        report(
            "runtime-defined tool of the text vs the macro tool",
            as_text,
            macro_tool,
        );
        let value_parse = measure(|| {
            black_box(serde_json::from_str::<serde_json::Value>(black_box(&args)).unwrap());
        });
        report(
            "runtime-defined tool vs its arguments' Value",
            runtime_defined,
            value_parse,
        );
    }

    if wanted(&filter, "proxied") {
        proxied::run();
    }

    if wanted(&filter, "constraints") {
        let mut ctx = Ctx::new();
        ctx.plugin::<constrained::Ten>().unwrap();
        ctx.plugin::<constrained::Plain>().unwrap();
        let args = constrained::args();
        let exec = Exec::new();
        let call = |tool: &str| {
            let out = ctx.tools.call(tool, &exec, black_box(&args)).wait();
            assert!(!out.is_error, "{}", out.text);
        };
        let ours = measure(|| call("ten"));
        let plain = measure(|| call("plain"));
        let floor = measure(|| {
            black_box(serde_json::from_str::<constrained::Floor>(black_box(&args)).unwrap());
        });
        report("dispatch, ten constrained arguments", ours, floor);
        report("dispatch, the same ten without keywords", plain, floor);
        report("keywords' share: constrained / without", ours, plain);
    }

    if wanted(&filter, "structured") {
        let mut ctx = Ctx::new();
        ctx.plugin::<data::ForecastTool>().unwrap();
        let args = r#"{"city": "Oslo"}"#;
        let exec = Exec::new();
        let ours = measure(|| {
            let out = ctx.tools.call("forecast", &exec, black_box(args)).wait();
            assert!(out.structured);
        });
        let floor = measure(|| {
            let forecast = data::forecast_of(black_box("Oslo").to_owned());
            black_box(serde_json::to_string(&forecast).unwrap());
        });
        report("dispatch, a tool returning a struct (24 rows)", ours, floor);
    }

    if wanted(&filter, "append") {
        let dir = std::env::temp_dir().join(format!("toolbench-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let args = todo_args(20);
        // The bytes one append writes, for the floor.
        let line = {
            let session = Session::in_memory();
            let exec = Exec::for_agent(Agent::new("b", session.clone()));
            ctx.tools.call("todo_write", &exec, &args).wait();
            let event = session.latest("todo/write").unwrap();
            let mut line = serde_json::to_vec(&*event).unwrap();
            line.push(b'\n');
            line
        };
        for (name, durability, sync) in [
            ("flush", Durability::Flush, false),
            ("fsync", Durability::Fsync, true),
            ("group", Durability::Group(GroupSync::new()), true),
        ] {
            let path = dir.join(format!("{name}.jsonl"));
            let _ = std::fs::remove_file(&path);
            let log = JsonlLog::open(&path, OpenMode::Write, durability).unwrap();
            let session = Session::open("b", log).unwrap();
            let exec = Exec::for_agent(Agent::new("b", session));
            let ours =
                measure(|| assert!(!ctx.tools.call("todo_write", &exec, &args).wait().is_error));
            let floor_path = dir.join(format!("{name}.floor"));
            let file: File = OpenOptions::new()
                .create(true)
                .truncate(true)
                .read(true)
                .write(true)
                .open(&floor_path)
                .unwrap();
            let mut offset = 0u64;
            let floor = measure(|| {
                file.write_all_at(&line, offset).unwrap();
                offset += line.len() as u64;
                if sync {
                    file.sync_data().unwrap();
                }
            });
            report(
                &format!("append todo_write (20 todos), {name}"),
                ours,
                floor,
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    if wanted(&filter, "replay") {
        let dir = std::env::temp_dir().join(format!("toolbench-replay-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("long.jsonl");
        {
            let log = JsonlLog::open(&path, OpenMode::Write, Durability::Flush).unwrap();
            let session = Session::open("long", log).unwrap();
            let exec = Exec::for_agent(Agent::new("long", session.clone()));
            let todos = todo_args(20);
            for i in 0..100_000u32 {
                if i % 10 == 0 {
                    ctx.tools.call("todo_write", &exec, &todos).wait();
                } else {
                    session
                        .append(
                            if i % 2 == 0 {
                                "message/user"
                            } else {
                                "tool/result"
                            },
                            &json!({"text": format!("event {i} of the log"), "n": i}),
                        )
                        .unwrap();
                }
            }
        }
        let size = std::fs::metadata(&path).unwrap().len();
        let ours = measure(|| {
            let log = JsonlLog::open(&path, OpenMode::Read, Durability::Flush).unwrap();
            let session = Session::open("long", log).unwrap();
            let list = tool_todo::current(&session).unwrap().unwrap();
            assert_eq!(list.len(), 20);
        });
        let floor = measure(|| {
            let bytes = std::fs::read(&path).unwrap();
            assert_eq!(bytes.split(|b| *b == b'\n').count(), 100_002);
        });
        report(
            &format!("replay 100,000 events ({:.1} MB)", size as f64 / 1e6),
            ours,
            floor,
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    if wanted(&filter, "definitions") {
        for dialect in [Dialect::OpenAi, Dialect::Anthropic, Dialect::Gemini] {
            let expected = ctx.tools.definitions_json(dialect).unwrap().to_owned();
            let ours = measure(|| {
                let mut request = String::with_capacity(expected.len());
                request.push_str(ctx.tools.definitions_json(dialect).unwrap());
                black_box(request);
            });
            let floor = measure(|| {
                let mut request = String::with_capacity(expected.len());
                request.push_str(black_box(&expected));
                black_box(request);
            });
            report(
                &format!("definitions for a request, {dialect}"),
                ours,
                floor,
            );
        }
    }
    if wanted(&filter, "wire") {
        // An Anthropic response with 20 tool_use blocks, each a todo list of three items, and
        // 20 results: reading the calls out and writing the results message, against a bare
        // `serde_json` parse of the same bytes.
        let blocks: Vec<serde_json::Value> = (0..20)
            .map(|i| {
                let todos: serde_json::Value = serde_json::from_str(&todo_args(3)).unwrap();
                json!({"type": "tool_use", "id": format!("toolu_{i:02}"), "name": "todo_write",
                       "input": todos})
            })
            .collect();
        let body = json!({"id": "msg_1", "type": "message", "role": "assistant",
                          "content": blocks, "stop_reason": "tool_use"})
        .to_string();
        let outputs: Vec<tool_runtime::ToolOutput> = (0..20)
            .map(|_| {
                tool_runtime::ToolOutput::success(
                    "Updated todo list: 2 pending, 1 in progress, 0 completed",
                )
            })
            .collect();
        let provider = tool_wire::Provider::Anthropic;
        let ours = measure(|| {
            let turn = provider.read_response(black_box(&body)).unwrap();
            let results = provider.results(&turn, &outputs);
            black_box((turn, results));
        });
        let floor = measure(|| {
            black_box(serde_json::from_str::<serde_json::Value>(black_box(&body)).unwrap());
        });
        report("wire: 20 calls read, 20 results written", ours, floor);

        // The same 20 calls streamed (Anthropic's server-sent events, each call's input in three
        // `input_json_delta` pieces), read event by event, against a bare `serde_json` parse of
        // each event's data: what any reader of the stream does at least.
        let mut events: Vec<(&str, String)> = vec![(
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
                   "role": "assistant", "content": [], "model": "claude",
                   "usage": {"input_tokens": 1000, "output_tokens": 1}}})
            .to_string(),
        )];
        for i in 0..20 {
            events.push((
                "content_block_start",
                json!({"type": "content_block_start", "index": i, "content_block":
                       {"type": "tool_use", "id": format!("toolu_{i:02}"), "name": "todo_write",
                        "input": {}}})
                .to_string(),
            ));
            let input = todo_args(3);
            let third = input.len() / 3;
            for piece in [
                &input[..third],
                &input[third..2 * third],
                &input[2 * third..],
            ] {
                events.push((
                    "content_block_delta",
                    json!({"type": "content_block_delta", "index": i,
                           "delta": {"type": "input_json_delta", "partial_json": piece}})
                    .to_string(),
                ));
            }
            events.push((
                "content_block_stop",
                json!({"type": "content_block_stop", "index": i}).to_string(),
            ));
        }
        events.push((
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"},
                   "usage": {"output_tokens": 600}})
            .to_string(),
        ));
        events.push(("message_stop", json!({"type": "message_stop"}).to_string()));
        let ours = measure(|| {
            let mut reader = provider.stream_reader();
            for (event, data) in &events {
                reader.push(event, black_box(data)).unwrap();
            }
            let turn = reader.finish().unwrap();
            assert_eq!(turn.calls.len(), 20);
            let results = provider.results(&turn, &outputs);
            black_box((turn, results));
        });
        let floor = measure(|| {
            for (_, data) in &events {
                black_box(serde_json::from_str::<serde_json::Value>(black_box(data)).unwrap());
            }
        });
        report("wire: the same 20 calls streamed", ours, floor);
    }
    std::io::stdout().flush().unwrap();
}
