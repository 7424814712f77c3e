//! Deferred tools: what the first request's definitions cost a model's context with 200
//! runtime-defined tools deferred and not (tokens as OpenAI's o200k_base counts them), and what
//! one search takes against a linear scan of the same tools.
//!
//! `cargo bench -p tests --features tokens --bench deferral`

use std::hint::black_box;

use serde_json::{Value, json};
use tests::bench::{human, measure, report};
use tool_agent::search::{Mode, ToolIndex};
use tool_agent::{AgentLoop, Client, ClientConfig};
use tool_runtime::{Agent, Ctx, DynamicTool, Session};
use tool_todo::TodoWrite;
use tool_wire::Provider;

const VERBS: [&str; 8] = [
    "create", "update", "delete", "archive", "export", "list", "merge", "assign",
];
const THINGS: [&str; 25] = [
    "invoice",
    "customer",
    "lead",
    "contract",
    "quote",
    "payment",
    "refund",
    "account",
    "contact",
    "deployment",
    "alarm",
    "server",
    "volume",
    "backup",
    "certificate",
    "queue",
    "firewall",
    "page",
    "comment",
    "attachment",
    "template",
    "folder",
    "draft",
    "revision",
    "label",
];

/// 200 tools as an MCP server's would be: a verb for each thing, an id and a note each, and one
/// forecast among them; deferred or not.
fn tools(deferred: bool) -> Ctx {
    let mut ctx = Ctx::new();
    ctx.plugin::<TodoWrite>().unwrap();
    let mut made = 0;
    for thing in THINGS {
        for verb in VERBS {
            if made == 199 {
                break;
            }
            let name = format!("{verb}_{thing}");
            let description = format!(
                "{}s the {thing} of the given id, and says what became of it.",
                verb[..1].to_uppercase() + &verb[1..]
            );
            let schema = json!({
                "type": "object",
                "properties": {
                    "id": {"type": "string", "description": format!("The {thing}'s id")},
                    "note": {"type": "string", "description": "Why, for the record"}
                },
                "required": ["id"]
            });
            ctx.tool(tool(&name, &description, schema, deferred))
                .unwrap();
            made += 1;
        }
    }
    let forecast = json!({
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "The city"},
            "days": {"type": "integer", "minimum": 1, "maximum": 14, "default": 3}
        },
        "required": ["city"]
    });
    ctx.tool(tool(
        "weather_forecast",
        "Forecasts the weather of a city for the coming days.",
        forecast,
        deferred,
    ))
    .unwrap();
    ctx
}

fn tool(name: &str, description: &str, schema: Value, deferred: bool) -> DynamicTool {
    let builder = DynamicTool::builder(name, description, schema);
    let builder = if deferred {
        builder.deferred()
    } else {
        builder
    };
    builder.handler(|_, _| "done").unwrap()
}

/// The tokens of what a request's definitions put in the model's context: every entry but the
/// ones the provider holds back until its search finds them (`"defer_loading": true`).
fn context_tokens(definitions: &str) -> (usize, usize) {
    let entries: Vec<Value> = serde_json::from_str(definitions).unwrap();
    let shown: Vec<&Value> = entries
        .iter()
        .filter(|entry| entry.get("defer_loading") != Some(&json!(true)))
        .collect();
    let text = serde_json::to_string(&shown).unwrap();
    let tokens = tiktoken_rs::o200k_base_singleton()
        .encode_with_special_tokens(&text)
        .len();
    (shown.len(), tokens)
}

fn first_request(ctx: &Ctx, provider: Provider, mode: Mode) -> String {
    let mut config = ClientConfig::new(provider, "bench");
    config.api_key = Some("unused".into());
    let agent = Agent::new("bench", Session::in_memory());
    let agent_loop = AgentLoop::new(&ctx.tools, agent, Client::new(config).unwrap())
        .unwrap()
        .with_tool_search(mode)
        .unwrap();
    agent_loop.definitions().get().to_owned()
}

fn main() {
    let all = tools(false);
    let deferred = tools(true);
    println!("first request's definitions in the model's context, 200 tools and todo_write");
    println!(
        "{:<24} {:<10} {:>8} {:>8} {:>8} {:>8} {:>9}",
        "provider", "search", "tools", "tokens", "deferred", "tokens", "fewer"
    );
    for provider in [
        Provider::OpenAiChat,
        Provider::OpenAiResponses,
        Provider::Anthropic,
        Provider::Gemini,
    ] {
        for mode in [Mode::Native, Mode::Framework] {
            if mode == Mode::Native
                && !matches!(provider, Provider::OpenAiResponses | Provider::Anthropic)
            {
                continue;
            }
            let (tools, tokens) = context_tokens(&first_request(&all, provider, mode));
            let (shown, shown_tokens) = context_tokens(&first_request(&deferred, provider, mode));
            println!(
                "{:<24} {:<10} {tools:>8} {tokens:>8} {shown:>8} {shown_tokens:>8} {:>8.1}%",
                provider.name(),
                match mode {
                    Mode::Native => "native",
                    _ => "framework",
                },
                100.0 * (1.0 - shown_tokens as f64 / tokens as f64)
            );
        }
    }

    // One search: BM25 over the index, against the floor of reading every tool's name and
    // description for each of the query's words.
    let definitions: Vec<_> = deferred
        .tools
        .definitions()
        .filter(|definition| definition.deferred())
        .collect();
    let index = ToolIndex::new(definitions.iter().copied());
    let texts: Vec<(String, String)> = deferred
        .tools
        .definitions()
        .filter(|definition| definition.deferred())
        .map(|definition| {
            (
                definition.name().to_owned(),
                format!("{} {}", definition.name(), definition.description()).to_lowercase(),
            )
        })
        .collect();
    println!();
    for query in [
        "weather forecast for a city",
        "archive an invoice",
        "firewall",
    ] {
        let ours = measure(|| {
            let hits = index.search(black_box(query), 5);
            assert!(!hits.is_empty());
        });
        let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
        let floor = measure(|| {
            let mut hits: Vec<(usize, &str)> = texts
                .iter()
                .map(|(name, text)| {
                    let matched = words.iter().filter(|word| text.contains(word.as_str()));
                    (matched.count(), name.as_str())
                })
                .filter(|(matched, _)| *matched > 0)
                .collect();
            hits.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
            hits.truncate(5);
            assert!(!black_box(hits).is_empty());
        });
        report(
            &format!("search of 200 tools, {query:?}"),
            ours,
            "scan",
            floor,
        );
    }
    let build = measure(|| {
        black_box(ToolIndex::new(definitions.iter().copied()));
    });
    println!("index of 200 tools built in {}", human(build));
}
