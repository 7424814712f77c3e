//! The PostgreSQL store against bare statements on the same driver, as ratios.
//!
//! `TOOLHOST_TEST_PG=postgres://… cargo bench -p tool-session-pg --bench pg`. Each latency is
//! the median of 300 runs; throughput runs 2 s per figure.

use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use postgres::{Client, NoTls};
use tool_runtime::Session;
use tool_runtime::session::{Durability, OpenMode};
use tool_session_pg::PgStore;

const RUNS: usize = 300;

fn unique(name: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("bench-{name}-{nanos:x}")
}

fn median(mut body: impl FnMut()) -> Duration {
    for _ in 0..20 {
        body();
    }
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            body();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[RUNS / 2]
}

fn report(name: &str, time: Duration, floor: Duration) {
    println!(
        "{name:<58} {:>9.1} µs  floor {:>9.1} µs  ratio {:>5.2}",
        time.as_secs_f64() * 1e6,
        floor.as_secs_f64() * 1e6,
        time.as_secs_f64() / floor.as_secs_f64()
    );
}

fn main() {
    let url = std::env::var("TOOLHOST_TEST_PG").expect("TOOLHOST_TEST_PG: a postgres:// URL");
    let store = PgStore::connect(&url).unwrap();
    let mut bare = Client::connect(&url, NoTls).unwrap();
    bare.batch_execute(
        "CREATE TABLE IF NOT EXISTS bench_bare (session_id text, seq bigint, kind text, \
         data text, time_ns bigint, PRIMARY KEY (session_id, seq))",
    )
    .unwrap();
    let data = r#"{"todos":[{"content":"Write the parser","status":"in_progress"}]}"#;

    // Append latency per policy, against one bare INSERT committing on its own.
    for (policy, durability, commit) in [
        ("Fsync (synchronous_commit = on)", Durability::Fsync, "on"),
        ("Flush (synchronous_commit = off)", Durability::Flush, "off"),
    ] {
        let id = unique("append");
        let session = Session::open(
            id.clone(),
            store.open_log(&id, OpenMode::Write, durability).unwrap(),
        )
        .unwrap();
        let raw = serde_json::value::RawValue::from_string(data.to_owned()).unwrap();
        let time = median(|| {
            session.append("todo/write", &raw).unwrap();
        });
        bare.batch_execute(&format!("SET synchronous_commit = {commit}"))
            .unwrap();
        let bare_id = unique("bare");
        let mut seq = 0i64;
        let statement = bare
            .prepare("INSERT INTO bench_bare VALUES ($1, $2, 'todo/write', $3, 0)")
            .unwrap();
        let floor = median(|| {
            seq += 1;
            bare.execute(&statement, &[&bare_id, &seq, &data]).unwrap();
        });
        report(&format!("append, {policy}"), time, floor);
    }

    // Appends per second with concurrent sessions (one writer each, Fsync): PostgreSQL's group
    // commit shares WAL flushes between them.
    let mut single = 0.0;
    for sessions in [1usize, 8, 64] {
        let barrier = Arc::new(Barrier::new(sessions));
        let threads: Vec<_> = (0..sessions)
            .map(|_| {
                let store = store.clone();
                let barrier = Arc::clone(&barrier);
                std::thread::spawn(move || {
                    let id = unique("many");
                    let session = Session::open(
                        id.clone(),
                        store
                            .open_log(&id, OpenMode::Write, Durability::Fsync)
                            .unwrap(),
                    )
                    .unwrap();
                    barrier.wait();
                    let start = Instant::now();
                    let mut count = 0u64;
                    while start.elapsed() < Duration::from_secs(2) {
                        session.append("note/add", &count).unwrap();
                        count += 1;
                    }
                    count
                })
            })
            .collect();
        let total: u64 = threads.into_iter().map(|t| t.join().unwrap()).sum();
        let per_second = total as f64 / 2.0;
        if sessions == 1 {
            single = per_second;
        }
        println!(
            "appends/s, {sessions:>2} concurrent sessions (Fsync)              {per_second:>9.0}  \
             x{:.1} of one session",
            per_second / single
        );
    }

    // Opening a session of 100,000 events and getting the current list, against the bare
    // query for its last event.
    let id = unique("long");
    let mut client = Client::connect(&url, NoTls).unwrap();
    client
        .execute(
            "INSERT INTO toolhost_events (session_id, seq, kind, data, time_ns) \
             SELECT $1, n, CASE WHEN n % 10 = 0 THEN 'todo/write' ELSE 'note/add' END, \
                    CASE WHEN n % 10 = 0 THEN $2 ELSE n::text END, n \
             FROM generate_series(1, 100000) AS n",
            &[&id, &data],
        )
        .unwrap();
    client.batch_execute("ANALYZE toolhost_events").unwrap();
    let time = median(|| {
        let session = Session::open(
            id.clone(),
            store
                .open_log(&id, OpenMode::Read, Durability::Fsync)
                .unwrap(),
        )
        .unwrap();
        assert!(tool_todo::current(&session).unwrap().is_some());
    });
    let statement = client
        .prepare(
            "SELECT seq, kind, data, time_ns FROM toolhost_events WHERE session_id = $1 \
             ORDER BY seq DESC LIMIT 1",
        )
        .unwrap();
    let connected = |client: &mut Client| {
        client.query_one(&statement, &[&id]).unwrap();
    };
    let floor = median(|| {
        let mut fresh = Client::connect(&url, NoTls).unwrap();
        let statement = fresh
            .prepare(
                "SELECT seq, kind, data, time_ns FROM toolhost_events WHERE session_id = $1 \
                 ORDER BY seq DESC LIMIT 1",
            )
            .unwrap();
        fresh.query_one(&statement, &[&id]).unwrap();
    });
    let query_only = median(|| connected(&mut client));
    report(
        "open 100,000 events + current list (vs connect + SELECT)",
        time,
        floor,
    );
    println!(
        "  (the bare SELECT alone, on an open connection: {:.1} µs)",
        query_only.as_secs_f64() * 1e6
    );
}
