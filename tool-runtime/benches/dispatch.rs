//! The cost of a dispatch as built: `cargo bench -p tool-runtime --bench dispatch` with the
//! `tracing` feature (the default) and `--no-default-features` without it;
//! `benches/tracing-overhead.sh` runs both and prints the ratio. No subscriber is installed.

use std::hint::black_box;
use std::time::{Duration, Instant};

use tool_runtime::{Ctx, Exec, tool};

/// Notes a line.
#[tool(allow_undocumented)]
fn note(text: String, count: u32) -> String {
    format!("{count} × {text}")
}

const SAMPLES: usize = 31;
const SAMPLE_TIME: Duration = Duration::from_millis(40);

fn main() {
    let mut ctx = Ctx::new();
    ctx.plugin::<Note>().unwrap();
    let exec = Exec::new();
    let args = r#"{"text": "a line to note", "count": 3}"#;
    let call = || {
        let out = ctx.tools.call("note", &exec, black_box(args)).wait();
        assert!(!out.is_error);
        black_box(out);
    };
    let mut iterations = 1u64;
    loop {
        let start = Instant::now();
        for _ in 0..iterations {
            call();
        }
        if start.elapsed() >= SAMPLE_TIME {
            break;
        }
        iterations *= 2;
    }
    let mut samples: Vec<f64> = (0..SAMPLES)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..iterations {
                call();
            }
            start.elapsed().as_nanos() as f64 / iterations as f64
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    let tracing = if cfg!(feature = "tracing") {
        "with tracing"
    } else {
        "without tracing"
    };
    println!("dispatch {tracing}: {:.1} ns", samples[SAMPLES / 2]);
}
