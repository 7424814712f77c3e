//! Any bytes as the arguments of runtime-defined tools: a handler of the text and a handler of
//! a value, given one schema, answer alike (the text checked as it is read, the value checked
//! after), and what todo_write's schema refuses the macro tool refuses, word for word.
//! Debug assertions hold the stream's answer to the value's on every call.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use tool_runtime::{Agent, Ctx, DynamicTool, Exec, Session, Tool};

static CTX: LazyLock<Ctx> = LazyLock::new(|| {
    let mut ctx = Ctx::new();
    ctx.tools.set_max_args_bytes(64 * 1024);
    ctx.plugin::<tool_todo::TodoWrite>().unwrap();
    let todo = tool_todo::TodoWrite.definition().input_schema().clone();
    let shapes = json!({
        "type": "object",
        "required": ["kind"],
        "properties": {
            "kind": {"enum": ["a", "b", 3]},
            "n": {"type": ["integer", "null"], "minimum": -5, "maximum": 5},
            "tags": {"type": "array", "items": {"type": "string", "maxLength": 3},
                     "uniqueItems": true, "maxItems": 4},
            "pair": {"type": "array", "prefixItems": [{"const": 1}, {"type": "boolean"}]},
            "either": {"anyOf": [{"type": "string"}, {"type": "object", "required": ["x"]}]},
        },
        "additionalProperties": {"type": "object", "properties": {"y": {"type": "number"}}},
    });
    for (name, schema) in [("todo", todo), ("shapes", shapes)] {
        let by_value = DynamicTool::builder(format!("{name}_value"), "By value.", schema.clone())
            .handler(|_, _: Value| "ok")
            .unwrap();
        let by_text = DynamicTool::builder(format!("{name}_text"), "By text.", schema)
            .raw_handler(|_, _: &str| "ok")
            .unwrap();
        ctx.tool(by_value).unwrap().tool(by_text).unwrap();
    }
    ctx
});

fuzz_target!(|data: &[u8]| {
    let Ok(args) = std::str::from_utf8(data) else {
        return;
    };
    let exec = Exec::for_agent(Agent::new("fuzz", Session::in_memory()));
    let call = |tool: &str| CTX.tools.call(tool, &exec, args).wait();
    for name in ["todo", "shapes"] {
        let by_value = call(&format!("{name}_value"));
        let by_text = call(&format!("{name}_text"));
        assert_eq!(by_text, by_value, "{name}: {args:?}");
        assert!(by_value.is_error || by_value.text == "ok", "{by_value:?}");
    }
    // What the schema refuses, the macro tool refuses (it refuses more: todo_write's rules past
    // its schema), in the same words but where a member is named twice and another fault comes
    // before it: the macro tool's typed parse stops at whichever it reads first, the
    // runtime-defined tool names the member named twice.
    let by_value = call("todo_value");
    if by_value.is_error {
        let by_macro = call("todo_write");
        assert!(by_macro.is_error, "{args:?}");
        let twice = serde_json::from_str::<Value>(args).is_ok()
            && serde_json::from_str::<tool_schema::validate::StrictValue>(args).is_err();
        if !twice {
            assert_eq!(by_macro, by_value, "{args:?}");
        }
    }
});
