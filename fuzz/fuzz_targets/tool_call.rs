//! Any bytes as one `todo_write` call's arguments: the call either succeeds and appends exactly
//! one event holding the list, or answers with an error text and appends nothing.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use tool_runtime::{Agent, Ctx, Exec, Session};

static CTX: LazyLock<Ctx> = LazyLock::new(|| {
    let mut ctx = Ctx::new();
    ctx.tools.set_max_args_bytes(64 * 1024);
    ctx.plugin::<tool_todo::TodoWrite>().unwrap();
    ctx
});

fuzz_target!(|data: &[u8]| {
    let Ok(args) = std::str::from_utf8(data) else {
        return;
    };
    let session = Session::in_memory();
    let exec = Exec::for_agent(Agent::new("fuzz", session.clone()));
    let out = CTX.tools.call("todo_write", &exec, args).wait();
    let appended = session.next_seq() - 1;
    if out.is_error {
        assert!(out.text.starts_with("Error: "), "{:?}", out.text);
        assert!(!out.text.contains('\n'), "{:?}", out.text);
        assert_eq!(appended, 0, "a rejected call appended");
    } else {
        assert!(
            out.text.starts_with("Updated todo list: "),
            "{:?}",
            out.text
        );
        assert_eq!(appended, 1);
        // The list kept is the list sent.
        let sent: serde_json::Value = serde_json::from_str(args).unwrap();
        let kept = tool_todo::current(&session).unwrap().unwrap();
        assert_eq!(serde_json::to_value(&kept).unwrap(), sent["todos"]);
    }
});
