//! Any bytes as lines typed into the REPL: each is handled without a panic, and what the REPL
//! prints carries no control character that could drive the terminal.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use tool_runtime::{Agent, Ctx, Session};

static CTX: LazyLock<Ctx> = LazyLock::new(|| {
    let mut ctx = Ctx::new();
    ctx.plugin::<tool_todo::TodoWrite>().unwrap();
    ctx
});

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let agent = Agent::new("fuzz", Session::in_memory());
    let mut events = agent.session().subscribe();
    let mut out = Vec::new();
    for line in text.split('\n') {
        let _ = tool_host::repl::is_complete(line);
        let _ = tool_host::repl::open_brackets(line);
        if tool_host::repl::handle_line(&CTX, &agent, &mut events, line.trim(), &mut out).is_err() {
            break;
        }
    }
    let printed = String::from_utf8(out).unwrap();
    for c in printed.chars() {
        assert!(c == '\n' || !c.is_control(), "{c:?} printed");
    }
});
