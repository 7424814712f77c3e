//! The PostgreSQL server stopped with `-m immediate` (a crash: no checkpoint, no goodbye) while
//! a session appends: the appends fail with a clear error, and once the server is back nothing
//! acknowledged is lost and the session reopens. Its own test binary, as it stops the server
//! the other tests use (cargo runs test binaries one at a time).

use std::process::Command;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tool_runtime::session::{Durability, OpenMode};
use tool_runtime::{Session, SessionError};
use tool_session_pg::PgStore;

fn pg_ctl(args: &str) {
    let data = std::env::var("TOOLHOST_TEST_PGDATA")
        .expect("TOOLHOST_TEST_PGDATA names the test server's data directory (`.ci/run` sets it)");
    let command = format!("cd / && pg_ctl -D '{data}' -w {args}");
    // The server runs as its own unprivileged user; as root, act as that user.
    let status = if is_root() {
        Command::new("su")
            .args(["postgres", "-s", "/bin/sh", "-c", &command])
            .status()
    } else {
        Command::new("sh").args(["-c", &command]).status()
    }
    .unwrap();
    assert!(status.success(), "pg_ctl {args}");
}

fn is_root() -> bool {
    // `id -u` rather than libc: the crate forbids unsafe code.
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|output| output.stdout.starts_with(b"0\n"))
}

#[test]
fn a_server_crash_fails_appends_clearly_and_loses_nothing_acknowledged() {
    let url = test_support::pg_url();
    let store = PgStore::connect(&url).unwrap();
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let id = format!("crash-{nanos:x}");
    let open = || -> Result<Session, SessionError> {
        Session::open(
            id.clone(),
            store.open_log(&id, OpenMode::Write, Durability::Fsync)?,
        )
    };
    let session = open().unwrap();
    let writer = {
        let session = session.clone();
        std::thread::spawn(move || {
            let mut acked = Vec::new();
            loop {
                match session.append("note/add", &acked.len()) {
                    Ok(seq) => acked.push(seq),
                    Err(error) => return (acked, error),
                }
            }
        })
    };
    std::thread::sleep(Duration::from_millis(300));
    pg_ctl("-m immediate stop");
    let (acked, error) = writer.join().unwrap();
    assert!(!acked.is_empty());
    let message = error.to_string();
    assert!(
        message.starts_with("session store: ")
            && message.contains("the connection was lost")
            && message.contains("reopen the session"),
        "{message}"
    );
    // Later appends fail the same way; none is claimed.
    assert!(session.append("note/add", &"late").is_err());
    drop(session);
    pg_ctl(&format!("-l '{}' start", server_log()));
    // The crashed backend's lease is gone with it; the session reopens.
    let deadline = Instant::now() + Duration::from_secs(30);
    let reopened = loop {
        match open() {
            Ok(session) => break session,
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(100)),
            Err(error) => panic!("{error}"),
        }
    };
    let seqs: Vec<u64> = reopened
        .events_from(1)
        .unwrap()
        .iter()
        .map(|event| event.seq)
        .collect();
    assert!(
        seqs.len() >= acked.len(),
        "every acknowledged event is there"
    );
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
    assert_eq!(
        reopened.append("note/add", &"after").unwrap(),
        seqs.len() as u64 + 1
    );
}

fn server_log() -> String {
    let data = std::env::var("TOOLHOST_TEST_PGDATA").unwrap();
    format!("{data}/../server.log")
}
