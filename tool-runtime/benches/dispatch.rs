//! The cost of a dispatch, and of an append to an in-memory session, as built: `cargo bench -p
//! tool-runtime --bench dispatch` with the `tracing` feature (the default: an `execute_tool` and
//! a `session.append` span) and `--no-default-features` without it;
//! `benches/tracing-overhead.sh` runs both builds alternately and prints the ratios. No
//! subscriber is installed.

use std::hint::black_box;
use std::time::{Duration, Instant};

use tool_runtime::{Ctx, Exec, Session, tool};

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
    // A fresh session every 4096 events: a memory log keeps them all.
    let mut session = Session::in_memory();
    let mut kept = 0;
    let append = || {
        if kept == 4096 {
            session = Session::in_memory();
            kept = 0;
        }
        kept += 1;
        black_box(
            session
                .append("note/add", black_box("a line to note"))
                .unwrap(),
        );
    };
    let tracing = if cfg!(feature = "tracing") {
        "with tracing"
    } else {
        "without tracing"
    };
    println!("dispatch {tracing}: {:.1} ns", measure(call));
    println!("append {tracing}: {:.1} ns", measure(append));
}

/// The median over `SAMPLES` samples of the time of one `run`, each sample long enough to time.
fn measure(mut run: impl FnMut()) -> f64 {
    let mut iterations = 1u64;
    loop {
        let start = Instant::now();
        for _ in 0..iterations {
            run();
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
                run();
            }
            start.elapsed().as_nanos() as f64 / iterations as f64
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[SAMPLES / 2]
}
