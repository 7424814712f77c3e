//! `toolhost` on the PostgreSQL store (`--store`, `TOOLHOST_STORE`): two processes on one
//! session (the second refused), a follower process that sees another's appends exactly once,
//! `replay --at`, and `sessions import/export` round trips byte for byte. Needs
//! `TOOLHOST_TEST_PG` (`.ci/run` starts a throwaway server).

use std::io::{BufRead, BufReader};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use tool_runtime::Session;
use tool_runtime::session::{Durability, OpenMode};
use tool_session_pg::PgStore;

use test_support::pg_url as url;
use test_support::unique;

fn toolhost(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolhost"));
    command
        .args(args)
        .env("TOOLHOST_STORE", url())
        .env("NO_COLOR", "1");
    command
}

fn run(args: &[&str]) -> Output {
    toolhost(args).output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn todo(content: &str, status: &str) -> String {
    format!(r#"{{"todos": [{{"content": "{content}", "status": "{status}"}}]}}"#)
}

#[test]
fn a_second_process_is_refused_while_the_first_holds_the_session() {
    let id = unique("two");
    // `toolhost mcp` holds the session for as long as it serves.
    let mut first = toolhost(&["mcp", "--session", &id])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(first.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    assert!(line.contains(&format!("session {id}")), "{line}");
    let second = run(&[
        "call",
        "todo_write",
        &todo("a", "pending"),
        "--session",
        &id,
    ]);
    assert_eq!(second.status.code(), Some(3));
    assert_eq!(
        text(&second.stderr),
        format!("toolhost: session {id} is open for writing in another process\n")
    );
    // The first one gone (its input closed), the session is free.
    drop(first.stdin.take());
    first.wait().unwrap();
    let third = run(&[
        "call",
        "todo_write",
        &todo("a", "pending"),
        "--session",
        &id,
    ]);
    assert!(third.status.success(), "{}", text(&third.stderr));
}

#[test]
fn a_follower_process_sees_every_event_of_a_writer_exactly_once() {
    let id = unique("followed");
    let store = PgStore::connect(&url()).unwrap();
    let writer = Session::open(
        id.clone(),
        store
            .open_log(&id, OpenMode::Write, Durability::Fsync)
            .unwrap(),
    )
    .unwrap();
    writer.append("note/add", &0).unwrap();
    let mut follower = toolhost(&["replay", &id, "--events", "--follow"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = BufReader::new(follower.stdout.take().unwrap()).lines();
    let reader = std::thread::spawn(move || {
        let mut seqs = Vec::new();
        for line in lines {
            let event: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
            seqs.push(event["seq"].as_u64().unwrap());
            if seqs.len() == 300 {
                break;
            }
        }
        seqs
    });
    // Appends while it starts, and after, in bursts.
    for index in 1..300 {
        writer.append("note/add", &index).unwrap();
        if index % 50 == 0 {
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    while !reader.is_finished() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    follower.kill().unwrap();
    follower.wait().unwrap();
    let seqs = reader.join().unwrap();
    assert_eq!(seqs, (1..=300).collect::<Vec<u64>>());
}

#[test]
fn replay_at_a_seq_shows_the_list_as_it_stood() {
    let id = unique("rewind");
    for (content, status) in [("a", "pending"), ("a", "in_progress"), ("a", "completed")] {
        let output = run(&[
            "call",
            "todo_write",
            &todo(content, status),
            "--session",
            &id,
        ]);
        assert!(output.status.success(), "{}", text(&output.stderr));
    }
    let at = |seq: &str| text(&run(&["replay", &id, "--format", "json", "--at", seq]).stdout);
    assert_eq!(at("0"), "null\n");
    assert_eq!(at("1"), "[{\"content\":\"a\",\"status\":\"pending\"}]\n");
    assert_eq!(
        at("2"),
        "[{\"content\":\"a\",\"status\":\"in_progress\"}]\n"
    );
    assert_eq!(at("3"), "[{\"content\":\"a\",\"status\":\"completed\"}]\n");
    let now = text(&run(&["replay", &id]).stdout);
    assert!(now.contains("1/1 done"), "{now}");
}

#[test]
fn sessions_import_and_export_round_trip_byte_for_byte() {
    let dir = std::env::temp_dir().join(unique("import"));
    std::fs::create_dir_all(&dir).unwrap();
    let id = unique("imported");
    let file = dir.join(format!("{id}.jsonl"));
    // A log written by the file store, with a hostile content and unusual key order.
    for list in [
        todo("Vérifier ✓", "pending"),
        r#"{"todos": [{"status": "in_progress", "content": "tab\there \"quoted\""}]}"#.to_owned(),
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_toolhost"))
            .args(["call", "todo_write", &list, "--session"])
            .arg(&file)
            .env_remove("TOOLHOST_STORE")
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", text(&output.stderr));
    }
    let imported = run(&["sessions", "import", file.to_str().unwrap()]);
    assert!(imported.status.success(), "{}", text(&imported.stderr));
    assert!(text(&imported.stdout).contains("2 events"));
    let exported = run(&["sessions", "export", &id]);
    assert!(exported.status.success(), "{}", text(&exported.stderr));
    assert_eq!(
        text(&exported.stdout),
        std::fs::read_to_string(&file).unwrap()
    );
    // It is listed, and a second import of the same session is refused.
    let listed = text(&run(&["sessions", "list"]).stdout);
    assert!(listed.contains(&format!("{id}\t2 events\t")), "{listed}");
    let again = run(&["sessions", "import", file.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(3));
    assert!(
        text(&again.stderr).contains("exists already"),
        "{}",
        text(&again.stderr)
    );
    // A file store has no `sessions`.
    let files = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["sessions", "list"])
        .env_remove("TOOLHOST_STORE")
        .output()
        .unwrap();
    assert_eq!(files.status.code(), Some(2));
}
