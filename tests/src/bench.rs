//! What the benchmarks share (`cargo bench -p tests`): the timing, the arguments of a
//! `todo_write` call, and the same call written by hand with plain derives, which is the floor
//! of the dispatch rows and the tool the peers serve.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::json;

/// Samples per figure: the figure is their median.
pub const SAMPLES: usize = 15;
/// About how long each sample runs its body.
pub const SAMPLE_TIME: Duration = Duration::from_millis(40);

/// Both sides of a dispatch row keep every list they accept (ours in the session's events), and
/// both let go of what they kept every `KEEP` calls: a run that kept millions of lists measured
/// the kernel's page faults for fresh memory more than the calls.
pub const KEEP: usize = 1024;

/// Median time of one run of `body`, in nanoseconds.
pub fn measure(mut body: impl FnMut()) -> f64 {
    // Warm up, and find how many runs fill a sample.
    let mut iterations = 1u64;
    loop {
        let start = Instant::now();
        for _ in 0..iterations {
            body();
        }
        if start.elapsed() >= SAMPLE_TIME / 4 || iterations > 1 << 30 {
            break;
        }
        iterations *= 2;
    }
    let iterations = iterations * 4;
    let mut samples: Vec<f64> = (0..SAMPLES)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..iterations {
                body();
            }
            start.elapsed().as_nanos() as f64 / iterations as f64
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[SAMPLES / 2]
}

/// A time for people: `612 ns`, `2.31 µs`, `1.20 ms`.
pub fn human(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

/// Prints a row: its name, our time, and the time it is held against (`floor`, `peer`), with
/// their ratio.
pub fn report(name: &str, ours: f64, against: &str, other: f64) {
    println!(
        "{name:<46} {:>12}  {against} {:>12}  ratio {:>5.2}",
        human(ours),
        human(other),
        ours / other
    );
}

/// The arguments of a `todo_write` call with `n` todos (one in progress when there are two or
/// more).
pub fn todo_args(n: usize) -> String {
    let todos: Vec<_> = (0..n)
        .map(|i| {
            let status = match i % 3 {
                0 => "completed",
                1 if i == 1 => "in_progress",
                _ => "pending",
            };
            json!({"content": format!("Step {i}: write the part of the parser that reads item {i}"), "status": status})
        })
        .collect();
    json!({ "todos": todos }).to_string()
}

/// A `todo_write` call's arguments, with plain derives.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct Args {
    /// The whole list.
    pub todos: Vec<Todo>,
}

/// One task.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct Todo {
    /// What to do.
    pub content: String,
    /// Where it stands.
    pub status: Status,
}

/// Where a task stands.
#[derive(Deserialize, schemars::JsonSchema, PartialEq, Eq, Clone, Copy)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Not started.
    Pending,
    /// Being worked on.
    InProgress,
    /// Done.
    Completed,
}

/// `todo_write`'s rules, checked by hand: no blank or repeated content, at most one task in
/// progress.
#[inline]
pub fn check(todos: &[Todo]) -> Result<(), &'static str> {
    if todos.iter().any(|t| t.content.trim().is_empty()) {
        return Err("a todo's content is blank");
    }
    let mut seen = HashSet::with_capacity(todos.len());
    if !todos.iter().all(|t| seen.insert(t.content.trim())) {
        return Err("two todos have the same content");
    }
    if todos
        .iter()
        .filter(|t| t.status == Status::InProgress)
        .count()
        > 1
    {
        return Err("more than one todo is in progress");
    }
    Ok(())
}

/// The answer to an accepted list: how many tasks stand where.
pub fn summary(todos: &[Todo]) -> String {
    let count = |status| todos.iter().filter(|t| t.status == status).count();
    format!(
        "Updated todo list: {} pending, {} in progress, {} completed",
        count(Status::Pending),
        count(Status::InProgress),
        count(Status::Completed)
    )
}

/// The floor of a dispatch row: the arguments read into the plain structs, the rules checked
/// and the list kept ([`keep`]).
#[inline]
pub fn call_kept(args: &str, kept: &mut Vec<Vec<Todo>>) -> bool {
    let Ok(args) = serde_json::from_str::<Args>(args) else {
        return false;
    };
    if check(&args.todos).is_err() {
        return false;
    }
    keep(kept, args.todos);
    true
}

/// Keeps `todos`, letting go of what was kept every [`KEEP`] lists.
#[inline]
pub fn keep(kept: &mut Vec<Vec<Todo>>, todos: Vec<Todo>) {
    if kept.len() == KEEP {
        kept.clear();
    }
    kept.push(todos);
}
