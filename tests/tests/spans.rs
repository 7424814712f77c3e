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
