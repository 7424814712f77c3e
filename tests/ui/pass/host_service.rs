use std::sync::Mutex;

use tool_runtime::{Ctx, Exec, Plugin, Service, ServiceKey, tool};

struct Clock(Mutex<u64>);

/// Ticks the host's clock.
#[tool]
fn tick(clock: Service<Clock>, by: u64) -> String {
    let mut now = clock.0.lock().unwrap();
    *now += by;
    now.to_string()
}

fn main() {
    // A tool injects the services it takes, and nothing else.
    assert_eq!(Tick::INJECT, &[ServiceKey::of::<Clock>()]);
    let mut ctx = Ctx::new();
    ctx.provide(Clock(Mutex::new(40)));
    ctx.plugin::<Tick>().unwrap();
    assert_eq!(ctx.tools.call("tick", &Exec::new(), r#"{"by": 2}"#).wait().text, "42");
}
