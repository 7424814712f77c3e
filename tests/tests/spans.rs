//! The `execute_tool` span of every dispatch, seen by a subscriber that records spans: its
//! OpenTelemetry GenAI attributes, its outcome, its parent across a batch's threads, and no
//! argument or result text.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

use serde_json::{Value, json};
use tool_runtime::{Agent, Ctx, DynamicTool, Exec, Session, ToolCall};
use tool_todo::TodoWrite;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

#[derive(Clone, Debug)]
struct Recorded {
    name: &'static str,
    metadata: &'static Metadata<'static>,
    fields: BTreeMap<String, String>,
    parent: Option<u64>,
}

#[derive(Default)]
struct Recorder {
    spans: Mutex<BTreeMap<u64, Recorded>>,
    next: AtomicU64,
}

thread_local! {
    static ENTERED: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

struct Fields<'f>(&'f mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().to_owned(), value.to_string());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

impl Subscriber for &'static Recorder {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, attrs: &Attributes<'_>) -> Id {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let mut fields = BTreeMap::new();
        attrs.record(&mut Fields(&mut fields));
        let parent = match attrs.parent() {
            Some(parent) => Some(parent.into_u64()),
            None if attrs.is_contextual() => {
                ENTERED.with(|entered| entered.borrow().last().copied())
            }
            None => None,
        };
        self.spans.lock().unwrap().insert(
            id,
            Recorded {
                name: attrs.metadata().name(),
                metadata: attrs.metadata(),
                fields,
                parent,
            },
        );
        Id::from_u64(id)
    }

    fn record(&self, span: &Id, values: &Record<'_>) {
        if let Some(recorded) = self.spans.lock().unwrap().get_mut(&span.into_u64()) {
            values.record(&mut Fields(&mut recorded.fields));
        }
    }

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, _: &Event<'_>) {}

    fn enter(&self, span: &Id) {
        ENTERED.with(|entered| entered.borrow_mut().push(span.into_u64()));
    }

    fn exit(&self, _: &Id) {
        ENTERED.with(|entered| entered.borrow_mut().pop());
    }

    fn current_span(&self) -> tracing_core::span::Current {
        let entered = ENTERED.with(|entered| entered.borrow().last().copied());
        match entered.and_then(|id| Some((id, self.spans.lock().unwrap().get(&id)?.metadata))) {
            Some((id, metadata)) => tracing_core::span::Current::new(Id::from_u64(id), metadata),
            None => tracing_core::span::Current::none(),
        }
    }
}

fn recorder() -> &'static Recorder {
    static RECORDER: OnceLock<&'static Recorder> = OnceLock::new();
    RECORDER.get_or_init(|| {
        let recorder: &'static Recorder = Box::leak(Box::default());
        tracing::subscriber::set_global_default(recorder).unwrap();
        recorder
    })
}

fn spans_of(tool: &str) -> Vec<Recorded> {
    recorder()
        .spans
        .lock()
        .unwrap()
        .values()
        .filter(|span| span.fields.get("gen_ai.tool.name").map(String::as_str) == Some(tool))
        .cloned()
        .collect()
}

const LIST: &str = r#"{"todos": [{"content": "a secret plan", "status": "in_progress"}]}"#;

#[test]
fn each_dispatch_is_an_execute_tool_span_with_genai_attributes_and_its_caller_s_parent() {
    let recorder = recorder();
    let mut ctx = Ctx::new();
    ctx.plugin::<TodoWrite>().unwrap();
    let failing = DynamicTool::builder("broken", "Breaks.", json!({"type": "object"}))
        .async_handler(|_, _: Value| async { Err::<String, _>(tool_runtime::ToolError::new("no")) })
        .unwrap();
    ctx.tool(failing).unwrap();
    let agent = Agent::new("spans", Session::in_memory());

    // A call with its id: the span's attributes, and nothing of the arguments or the result.
    let mut exec = Exec::for_agent(agent.clone());
    exec.call_id = Some("call_1".into());
    assert!(!ctx.tools.call("todo_write", &exec, LIST).wait().is_error);
    let spans = spans_of("todo_write");
    assert_eq!(spans.len(), 1);
    let fields = &spans[0].fields;
    assert_eq!(spans[0].name, "execute_tool");
    assert_eq!(fields["otel.name"], "execute_tool todo_write");
    assert_eq!(fields["gen_ai.operation.name"], "execute_tool");
    assert_eq!(fields["gen_ai.tool.call.id"], "call_1");
    assert!(!fields.contains_key("error.type"));
    let everything = format!("{:?}", recorder.spans.lock().unwrap());
    assert!(!everything.contains("secret plan"), "{everything}");
    assert!(!everything.contains("Updated todo list"), "{everything}");

    // An async tool's failure, awaited by a synchronous host.
    assert!(ctx.tools.call("broken", &Exec::new(), "{}").wait().is_error);
    assert_eq!(spans_of("broken")[0].fields["error.type"], "tool_error");

    // A batch under the caller's span: every call's span is its child, whatever thread ran it.
    let outer = tracing::info_span!("invoke_agent");
    let outer_id = outer.id().unwrap().into_u64();
    let calls: Vec<ToolCall> = (0..6)
        .map(|i| ToolCall::new("todo_write", LIST).with_id(format!("batch_{i}")))
        .collect();
    let outputs = outer.in_scope(|| ctx.tools.call_batch(&Exec::for_agent(agent), &calls));
    assert!(outputs.iter().all(|out| !out.is_error));
    let batch: Vec<Recorded> = spans_of("todo_write")
        .into_iter()
        .filter(|span| span.fields["gen_ai.tool.call.id"].starts_with("batch_"))
        .collect();
    assert_eq!(batch.len(), 6);
    assert!(
        batch.iter().all(|span| span.parent == Some(outer_id)),
        "{batch:?}"
    );
}

/// A provider that answers each request on its own connection with the next of `replies`.
fn provider(replies: Vec<Value>) -> u16 {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for reply in replies {
            let (stream, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(stream);
            let mut length = 0;
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = value.trim().parse().unwrap();
                }
                if line == "\r\n" {
                    break;
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let body = reply.to_string();
            write!(
                reader.get_mut(),
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
                 connection: close\r\n\r\n{body}",
                body.len()
            )
            .unwrap();
        }
    });
    port
}

#[test]
fn an_agent_run_is_an_invoke_agent_span_with_a_chat_span_per_request_and_its_tools_under_it() {
    use tool_agent::{AgentLoop, Client, ClientConfig};
    use tool_wire::Provider;
    let recorder = recorder();
    let usage = |input: u64, output: u64| json!({"input_tokens": input, "output_tokens": output});
    let port = provider(vec![
        json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
               "content": [{"type": "tool_use", "id": "toolu_span", "name": "todo_write",
                            "input": {"todos": [{"content": "Trace it", "status": "in_progress"}]}}],
               "stop_reason": "tool_use", "usage": usage(120, 30)}),
        json!({"id": "msg_2", "type": "message", "role": "assistant", "model": "claude-test",
               "content": [{"type": "text", "text": "Traced."}],
               "stop_reason": "end_turn", "usage": usage(180, 5)}),
    ]);
    let mut ctx = Ctx::new();
    ctx.plugin::<TodoWrite>().unwrap();
    let mut config = ClientConfig::new(Provider::Anthropic, "claude-test");
    config.base_url = Some(format!("http://127.0.0.1:{port}"));
    config.api_key = Some("ak-test".into());
    let session = Session::in_memory();
    let session_id = session.id().to_owned();
    let agent = Agent::new("traced", session);
    let mut agent_loop = AgentLoop::new(&ctx.tools, agent, Client::new(config).unwrap()).unwrap();
    assert_eq!(agent_loop.prompt("Trace it", &mut ()).unwrap(), "Traced.");

    let spans = recorder.spans.lock().unwrap().clone();
    let (&run_id, run) = spans
        .iter()
        .find(|(_, span)| {
            span.name == "invoke_agent"
                && span.fields.get("gen_ai.conversation.id") == Some(&session_id)
        })
        .expect("an invoke_agent span");
    assert_eq!(run.fields["gen_ai.provider.name"], "anthropic");
    assert_eq!(run.fields["gen_ai.request.model"], "claude-test");
    let chats: Vec<&Recorded> = spans
        .values()
        .filter(|span| span.name == "chat" && span.parent == Some(run_id))
        .collect();
    assert_eq!(chats.len(), 2);
    assert_eq!(chats[0].fields["otel.name"], "chat claude-test");
    assert_eq!(
        chats[0].fields["gen_ai.response.finish_reasons"],
        "tool_use"
    );
    let tokens = |span: &Recorded, key: &str| span.fields[key].parse::<u64>().unwrap();
    assert_eq!(
        chats
            .iter()
            .map(|chat| tokens(chat, "gen_ai.usage.input_tokens"))
            .sum::<u64>(),
        300
    );
    assert_eq!(
        chats
            .iter()
            .map(|chat| tokens(chat, "gen_ai.usage.output_tokens"))
            .sum::<u64>(),
        35
    );
    let tool = spans
        .values()
        .find(|span| {
            span.fields.get("gen_ai.tool.call.id").map(String::as_str) == Some("toolu_span")
        })
        .expect("the call's span");
    assert_eq!(tool.parent, Some(run_id));
}
