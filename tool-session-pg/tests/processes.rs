//! The store's promises across processes: a writer killed mid-appends loses nothing it
//! acknowledged and another process takes its session over; many processes appending to many
//! sessions at once leave every log contiguous. The writers are this test binary run again as a
//! child (`child_writer` does the child's work when `TOOLHOST_CHILD` says so).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tool_runtime::session::{Durability, OpenMode};
use tool_runtime::{Session, SessionError};
use tool_session_pg::PgStore;

use test_support::pg_url as url;
use test_support::unique;

fn open(store: &PgStore, id: &str, mode: OpenMode) -> Result<Session, SessionError> {
    Session::open(id.to_owned(), store.open_log(id, mode, Durability::Fsync)?)
}

/// This binary again, running `child_writer` with `task`.
fn child(task: &str) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args(["--exact", "child_writer", "--nocapture", "--test-threads=1"])
        .env("TOOLHOST_CHILD", task);
    command
}

/// The child's side. `append <id>`: append to session `id` forever, printing `acked <seq>`
/// after each acknowledged append. `many <n> <id>…`: append `n` events to each session, round
/// robin, then print `done`. Run as a plain test (no `TOOLHOST_CHILD`), it has nothing to do.
#[test]
fn child_writer() {
    let Ok(task) = std::env::var("TOOLHOST_CHILD") else {
        return;
    };
    let store = PgStore::connect(&url()).unwrap();
    let words: Vec<&str> = task.split(' ').collect();
    match words.as_slice() {
        ["append", id] => {
            let session = open(&store, id, OpenMode::Write).unwrap();
            loop {
                let seq = session.append("note/add", &"x".repeat(100)).unwrap();
                println!("acked {seq}");
            }
        }
        ["many", count, ids @ ..] => {
            let count: usize = count.parse().unwrap();
            let sessions: Vec<Session> = ids
                .iter()
                .map(|id| open(&store, id, OpenMode::Write).unwrap())
                .collect();
            for round in 0..count {
                for session in &sessions {
                    session.append("note/add", &round).unwrap();
                }
            }
            println!("done");
        }
        _ => panic!("unknown child task {task:?}"),
    }
}

#[test]
fn a_killed_writer_loses_nothing_acknowledged_and_another_process_takes_over() {
    let store = PgStore::connect(&url()).unwrap();
    let id = unique("killed");
    let mut writer = child(&format!("append {id}"))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut acked = Vec::new();
    let mut lines = BufReader::new(writer.stdout.take().unwrap()).lines();
    while acked.len() < 200 {
        let line = lines.next().unwrap().unwrap();
        if let Some(seq) = line.strip_prefix("acked ") {
            acked.push(seq.parse::<u64>().unwrap());
        }
    }
    // While it lives, its lease holds.
    let refused = open(&store, &id, OpenMode::Write).err().unwrap();
    assert_eq!(
        refused.to_string(),
        format!("session {id} is open for writing in another process")
    );
    // SIGKILL, mid-appends.
    writer.kill().unwrap();
    writer.wait().unwrap();
    // The database frees the lease when it sees the connection gone.
    let deadline = Instant::now() + Duration::from_secs(30);
    let session = loop {
        match open(&store, &id, OpenMode::Write) {
            Ok(session) => break session,
            Err(SessionError::Leased { .. }) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(error) => panic!("{error}"),
        }
    };
    let seqs: Vec<u64> = session
        .events_from(1)
        .unwrap()
        .iter()
        .map(|event| event.seq)
        .collect();
    let last = *acked.last().unwrap();
    assert!(
        seqs.len() as u64 >= last,
        "every acknowledged event is there"
    );
    assert_eq!(
        seqs,
        (1..=seqs.len() as u64).collect::<Vec<_>>(),
        "contiguous"
    );
    assert_eq!(
        session.append("note/add", &"after").unwrap(),
        seqs.len() as u64 + 1,
        "seqs continue"
    );
}

#[test]
fn eight_processes_appending_to_twenty_five_sessions_each_leave_every_log_contiguous() {
    let store = PgStore::connect(&url()).unwrap();
    const PROCESSES: usize = 8;
    const SESSIONS: usize = 25;
    const EVENTS: u64 = 12;
    let ids: Vec<Vec<String>> = (0..PROCESSES)
        .map(|p| {
            (0..SESSIONS)
                .map(|s| unique(&format!("many-{p}-{s}")))
                .collect()
        })
        .collect();
    let children: Vec<_> = ids
        .iter()
        .map(|ids| {
            child(&format!("many {EVENTS} {}", ids.join(" ")))
                .stdout(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success());
        assert!(String::from_utf8_lossy(&output.stdout).contains("done"));
    }
    let listed = store.sessions().unwrap();
    for id in ids.iter().flatten() {
        let session = open(&store, id, OpenMode::Read).unwrap();
        let events = session.events_from(1).unwrap();
        let seqs: Vec<u64> = events.iter().map(|event| event.seq).collect();
        assert_eq!(seqs, (1..=EVENTS).collect::<Vec<_>>(), "{id}");
        let rounds: Vec<u64> = events.iter().map(|event| event.data().unwrap()).collect();
        assert_eq!(rounds, (0..EVENTS).collect::<Vec<_>>(), "{id}");
        assert!(
            listed
                .iter()
                .any(|info| &info.id == id && info.events == EVENTS),
            "{id} is listed"
        );
    }
}
