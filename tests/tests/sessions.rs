//! Persisted sessions: the JSON Lines log, replay, torn tails, locks, the event streams, batches.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread;

use serde_json::{Value, json};
use tool_runtime::session::{Durability, GroupSync, JsonlLog, OpenMode, SessionDir};
use tool_runtime::{Agent, Ctx, Exec, Session, SessionError, ToolCall, tool};
use tool_todo::{Todo, TodoStatus, TodoWrite};

/// A fresh directory under the target directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let path =
            std::env::temp_dir().join(format!("tool-sessions-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    fn file(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn open(path: &Path, mode: OpenMode) -> Result<Session, SessionError> {
    let log = JsonlLog::open(path, mode, Durability::Fsync)?;
    Session::open("s", log)
}

fn write_list(ctx: &Ctx, session: &Session, items: &[(&str, &str)]) -> String {
    let list: Vec<Value> = items
        .iter()
        .map(|(content, status)| json!({"content": content, "status": status}))
        .collect();
    let exec = Exec::for_agent(Agent::new("a", session.clone()));
    ctx.tools
        .call("todo_write", &exec, &json!({ "todos": list }).to_string())
        .wait()
        .text
}

fn todo_ctx() -> Ctx {
    let mut ctx = Ctx::new();
    ctx.plugin::<TodoWrite>().unwrap();
    ctx
}

#[test]
fn a_reopened_session_continues_its_seqs_and_replays_its_list() {
    let dir = TempDir::new("reopen");
    let path = dir.file("s.jsonl");
    let ctx = todo_ctx();
    {
        let session = open(&path, OpenMode::Write).unwrap();
        write_list(&ctx, &session, &[("a", "pending")]);
        session.append("note/add", &"between").unwrap();
        write_list(&ctx, &session, &[("a", "completed"), ("b", "in_progress")]);
        session.append("note/add", &"after").unwrap();
    }
    let session = open(&path, OpenMode::Write).unwrap();
    assert_eq!(session.next_seq(), 5);
    assert_eq!(
        tool_todo::current(&session).unwrap(),
        Some(vec![
            Todo::new("a", TodoStatus::Completed),
            Todo::new("b", TodoStatus::InProgress)
        ])
    );
    assert_eq!(
        session
            .latest("note/add")
            .unwrap()
            .data::<String>()
            .unwrap(),
        "after"
    );
    assert_eq!(session.append("note/add", &"next").unwrap(), 5);
    let seqs: Vec<u64> = session
        .events_from(1)
        .unwrap()
        .iter()
        .map(|e| e.seq)
        .collect();
    assert_eq!(seqs, [1, 2, 3, 4, 5]);
}

#[test]
fn the_file_has_a_versioned_header_and_one_event_per_line() {
    let dir = TempDir::new("format");
    let path = dir.file("s.jsonl");
    let session = open(&path, OpenMode::Write).unwrap();
    session.append("x/y", &json!({"k": [1, 2]})).unwrap();
    let text = fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], r#"{"format":"tool-session","version":1}"#);
    let event: Value = serde_json::from_str(lines[1]).unwrap();
    let keys: Vec<&str> = event
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["seq", "kind", "data", "time"]);
    assert_eq!(event["data"], json!({"k": [1, 2]}));
    assert!(text.ends_with('\n'));
}

#[test]
fn files_are_created_0600_and_the_directory_0700() {
    let dir = TempDir::new("modes");
    let sessions = SessionDir::new(dir.file("sessions")).unwrap();
    let (session, _) = sessions.open("agent-1", OpenMode::Write).unwrap();
    session.append("x/y", &1).unwrap();
    let file_mode = fs::metadata(sessions.path_of("agent-1").unwrap())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(file_mode & 0o777, 0o600);
    let dir_mode = fs::metadata(sessions.path()).unwrap().permissions().mode();
    assert_eq!(dir_mode & 0o777, 0o700);
}

#[test]
fn session_ids_that_could_escape_the_directory_are_refused() {
    let dir = TempDir::new("ids");
    let sessions = SessionDir::new(dir.file("sessions")).unwrap();
    for id in [
        "",
        "../x",
        "/etc/passwd",
        "a/b",
        "a\0b",
        ".hidden",
        "..",
        "é",
        &"x".repeat(129),
    ] {
        match sessions.path_of(id) {
            Err(SessionError::InvalidId { .. }) => {}
            other => panic!("{id:?} gave {other:?}"),
        }
    }
    assert_eq!(
        sessions.path_of("agent_1.v2-x").unwrap(),
        sessions.path().join("agent_1.v2-x.jsonl")
    );
}

/// A log with a header and three events; returns the file's bytes and each line's start.
fn three_event_log(dir: &TempDir) -> (PathBuf, Vec<u8>, Vec<usize>) {
    let path = dir.file("three.jsonl");
    let session = open(&path, OpenMode::Write).unwrap();
    for i in 1..=3 {
        session
            .append("n/x", &json!({"i": i, "text": "ü — \"quoted\""}))
            .unwrap();
    }
    drop(session);
    let bytes = fs::read(&path).unwrap();
    let mut starts = vec![0];
    starts.extend(
        bytes
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .map(|(i, _)| i + 1),
    );
    (path, bytes, starts)
}

#[test]
fn a_log_cut_at_every_byte_of_its_last_event_opens_with_the_torn_tail_repaired() {
    let dir = TempDir::new("truncate");
    let (path, bytes, starts) = three_event_log(&dir);
    let last_start = starts[3];
    for cut in last_start..bytes.len() {
        fs::write(&path, &bytes[..cut]).unwrap();

        // Reading reports the torn tail and replays the complete events, changing nothing.
        let log = JsonlLog::open(&path, OpenMode::Read, Durability::Fsync).unwrap();
        let torn = log.torn_tail().cloned();
        let session = Session::open("s", log).unwrap();
        assert_eq!(session.next_seq(), 3, "cut at {cut}");
        if cut == last_start {
            assert_eq!(torn, None);
        } else {
            let torn = torn.expect("a torn tail");
            assert_eq!(
                (torn.line, torn.offset, torn.len, torn.repaired),
                (4, last_start as u64, (cut - last_start) as u64, false)
            );
        }
        assert_eq!(fs::read(&path).unwrap().len(), cut);

        // Writing cuts it off, and the log is usable again.
        let log = JsonlLog::open(&path, OpenMode::Write, Durability::Fsync).unwrap();
        assert_eq!(log.torn_tail().is_some(), cut != last_start);
        let session = Session::open("s", log).unwrap();
        assert_eq!(session.append("n/x", &json!({"i": 3})).unwrap(), 3);
        drop(session);
        let reopened = open(&path, OpenMode::Read).unwrap();
        let events = reopened.events_from(1).unwrap();
        assert_eq!(events.len(), 3);
        assert_eq!(events[2].data::<Value>().unwrap(), json!({"i": 3}));
    }
    // Cut inside the header: an empty session, and a writer writes a new header.
    fs::write(&path, &bytes[..10]).unwrap();
    assert_eq!(open(&path, OpenMode::Read).unwrap().next_seq(), 1);
    let session = open(&path, OpenMode::Write).unwrap();
    assert_eq!(session.append("n/x", &1).unwrap(), 1);
}

#[test]
fn damage_before_the_last_line_is_an_error_naming_file_and_line() {
    let dir = TempDir::new("corrupt");
    let (path, bytes, starts) = three_event_log(&dir);
    // Bytes cut out of the middle of event 2 (line 3), with event 3 after it.
    let mut damaged = bytes[..starts[2] + 10].to_vec();
    damaged.extend_from_slice(&bytes[starts[2] + 20..]);
    fs::write(&path, &damaged).unwrap();
    for mode in [OpenMode::Read, OpenMode::Write] {
        match JsonlLog::open(&path, mode, Durability::Fsync) {
            Err(SessionError::Corrupt { path: at, line, .. }) => {
                assert_eq!((at.as_path(), line), (path.as_path(), 3));
            }
            other => panic!("{other:?}"),
        }
    }
    // The writer left the file as it was.
    assert_eq!(fs::read(&path).unwrap(), damaged);
    let message = JsonlLog::open(&path, OpenMode::Read, Durability::Fsync)
        .unwrap_err()
        .to_string();
    assert!(
        message.starts_with(&format!(
            "session log {}: line 3: not an event",
            path.display()
        )),
        "{message}"
    );

    // A seq out of order is damage too.
    let mut reordered = bytes[..starts[1]].to_vec();
    reordered.extend_from_slice(&bytes[starts[2]..starts[3]]);
    reordered.extend_from_slice(&bytes[starts[1]..starts[2]]);
    fs::write(&path, &reordered).unwrap();
    let message = JsonlLog::open(&path, OpenMode::Read, Durability::Fsync)
        .unwrap_err()
        .to_string();
    assert_eq!(
        message,
        format!(
            "session log {}: line 2: expected seq 1, found 2",
            path.display()
        )
    );
}

#[test]
fn other_formats_and_newer_versions_are_refused_clearly() {
    let dir = TempDir::new("versions");
    let path = dir.file("s.jsonl");
    fs::write(&path, "{\"format\":\"tool-session\",\"version\":2}\n").unwrap();
    let message = JsonlLog::open(&path, OpenMode::Write, Durability::Fsync)
        .unwrap_err()
        .to_string();
    assert_eq!(
        message,
        format!(
            "session log {}: written in format version 2; this version reads version 1",
            path.display()
        )
    );
    fs::write(&path, "hello\n").unwrap();
    let message = JsonlLog::open(&path, OpenMode::Read, Durability::Fsync)
        .unwrap_err()
        .to_string();
    assert_eq!(
        message,
        format!(
            "{} is not a session log (line 1 is not a session log header); it was left untouched",
            path.display()
        )
    );
    assert_eq!(fs::read(&path).unwrap(), b"hello\n");
}

#[test]
fn a_second_writer_is_refused_and_readers_follow_the_writer() {
    let dir = TempDir::new("lock");
    let path = dir.file("s.jsonl");
    let writer = open(&path, OpenMode::Write).unwrap();
    writer.append("n/x", &1).unwrap();
    match open(&path, OpenMode::Write) {
        Err(SessionError::Locked { path: at }) => assert_eq!(at, path),
        other => panic!("{other:?}"),
    }
    let reader = open(&path, OpenMode::Read).unwrap();
    writer.append("n/x", &2).unwrap();
    let seen: Vec<u64> = reader
        .events_from(1)
        .unwrap()
        .iter()
        .map(|e| e.seq)
        .collect();
    assert_eq!(seen, [1, 2]);
    // Appending through a reader is refused, not silently dropped, and says why.
    assert!(matches!(
        reader.append("n/x", &3),
        Err(SessionError::ReadOnly { .. })
    ));
    drop(writer);
    assert!(open(&path, OpenMode::Write).is_ok());
}

#[test]
fn every_durability_policy_persists_what_it_acknowledged() {
    let dir = TempDir::new("durability");
    let group = GroupSync::new();
    for (name, durability) in [
        ("flush", Durability::Flush),
        ("fsync", Durability::Fsync),
        ("group", Durability::Group(group)),
    ] {
        let sessions = SessionDir::new(dir.file(name))
            .unwrap()
            .with_durability(durability);
        let writers: Vec<_> = (0..4)
            .map(|i| {
                sessions
                    .open(&format!("agent-{i}"), OpenMode::Write)
                    .unwrap()
                    .0
            })
            .collect();
        thread::scope(|scope| {
            for session in &writers {
                scope.spawn(move || {
                    for n in 0..25 {
                        session.append("n/x", &n).unwrap();
                    }
                });
            }
        });
        drop(writers);
        for i in 0..4 {
            let (session, torn) = sessions
                .open(&format!("agent-{i}"), OpenMode::Read)
                .unwrap();
            assert_eq!((session.next_seq(), torn), (26, None), "{name}");
        }
    }
}

#[test]
fn a_hub_streams_every_session_and_catches_up_a_subscriber_that_fell_behind() {
    let ctx = Ctx::new();
    let a = ctx
        .sessions
        .open("a", tool_runtime::session::MemoryLog::new())
        .unwrap();
    let mut all = ctx.sessions.subscribe();
    let b = ctx
        .sessions
        .open("b", tool_runtime::session::MemoryLog::new())
        .unwrap();
    assert!(
        ctx.sessions
            .open("a", tool_runtime::session::MemoryLog::new())
            .is_err()
    );
    // Far more than the live buffer holds.
    for i in 0..2000u64 {
        a.append("n/x", &i).unwrap();
        b.append("n/x", &i).unwrap();
    }
    let (mut from_a, mut from_b) = (Vec::new(), Vec::new());
    while let Some(event) = all.try_next().unwrap() {
        match &*event.session {
            "a" => from_a.push(event.event.seq),
            "b" => from_b.push(event.event.seq),
            other => panic!("{other}"),
        }
    }
    let expected: Vec<u64> = (1..=2000).collect();
    assert_eq!(from_a, expected);
    assert_eq!(from_b, expected);
    assert_eq!(ctx.sessions.sessions().len(), 2);
}

/// Appends its word, with a pause first for early calls, so later calls of a batch finish first.
#[tool(allow_undocumented)]
fn slow_note(agent: Agent, word: String, pause_ms: u64) -> String {
    thread::sleep(std::time::Duration::from_millis(pause_ms));
    agent
        .session()
        .append("note/add", &word)
        .unwrap()
        .to_string()
}

#[test]
fn a_batch_lands_in_the_model_order_however_its_calls_run() {
    let mut ctx = todo_ctx();
    ctx.plugin::<SlowNote>().unwrap();
    let session = Session::in_memory();
    let exec = Exec::for_agent(Agent::new("a", session.clone()));
    let calls: Vec<ToolCall> = (0..6)
        .map(|i| {
            ToolCall::new(
                "slow_note",
                json!({"word": format!("w{i}"), "pause_ms": (6 - i) * 15}).to_string(),
            )
            .with_id(format!("call_{i}"))
        })
        .chain([
            ToolCall::new("todo_write", r#"{"todos": []}"#),
            ToolCall::new("nope", "{}"),
        ])
        .collect();
    let outputs = ctx.tools.call_batch(&exec, &calls);
    let texts: Vec<&str> = outputs.iter().map(|o| o.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "1",
            "2",
            "3",
            "4",
            "5",
            "6",
            "Updated todo list: 0 pending, 0 in progress, 0 completed",
            "Error: unknown tool \"nope\"; available tools: todo_write, slow_note",
        ]
    );
    let words: Vec<String> = session
        .events_from(1)
        .unwrap()
        .iter()
        .filter(|e| e.kind == "note/add")
        .map(|e| e.data().unwrap())
        .collect();
    assert_eq!(words, ["w0", "w1", "w2", "w3", "w4", "w5"]);
}

#[test]
fn many_agents_times_many_calls_in_parallel_lose_nothing() {
    let ctx = Arc::new(todo_ctx());
    let dir = TempDir::new("parallel");
    let sessions = SessionDir::new(dir.file("s"))
        .unwrap()
        .with_durability(Durability::Group(GroupSync::new()));
    let agents = 8;
    let calls = 40;
    let opened: Vec<Session> = (0..agents)
        .map(|i| {
            sessions
                .open(&format!("agent-{i}"), OpenMode::Write)
                .unwrap()
                .0
        })
        .collect();
    thread::scope(|scope| {
        for session in &opened {
            for worker in 0..2 {
                let ctx = Arc::clone(&ctx);
                scope.spawn(move || {
                    for n in 0..calls / 2 {
                        let content = format!("task {worker}-{n}");
                        let text = write_list(&ctx, session, &[(content.as_str(), "in_progress")]);
                        assert_eq!(
                            text,
                            "Updated todo list: 0 pending, 1 in progress, 0 completed"
                        );
                        // A rejected call in between appends nothing.
                        let text = write_list(
                            &ctx,
                            session,
                            &[("x", "in_progress"), ("y", "in_progress")],
                        );
                        assert!(text.starts_with("Error: "));
                    }
                });
            }
        }
    });
    drop(opened);
    for i in 0..agents {
        let (session, torn) = sessions
            .open(&format!("agent-{i}"), OpenMode::Read)
            .unwrap();
        assert!(torn.is_none());
        let events = session.events_from(1).unwrap();
        let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, (1..=calls as u64).collect::<Vec<_>>());
        let mut contents: Vec<String> = events
            .iter()
            .map(|e| {
                e.data::<Value>().unwrap()["todos"][0]["content"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        let last = contents.last().cloned().unwrap();
        assert_eq!(
            tool_todo::current(&session).unwrap(),
            Some(vec![Todo::new(last, TodoStatus::InProgress)])
        );
        contents.sort();
        contents.dedup();
        assert_eq!(contents.len(), calls, "each accepted call exactly once");
    }
}

/// Resident memory of this process, in bytes.
fn resident() -> u64 {
    let statm = fs::read_to_string("/proc/self/statm").unwrap();
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

#[test]
fn reopening_a_long_session_keeps_only_its_state_in_memory() {
    let dir = TempDir::new("resource");
    let path = dir.file("long.jsonl");
    let ctx = todo_ctx();
    {
        let log = JsonlLog::open(&path, OpenMode::Write, Durability::Flush).unwrap();
        let session = Session::open("long", log).unwrap();
        for i in 0..100_000 {
            let first = format!("step {i}");
            write_list(
                &ctx,
                &session,
                &[
                    (first.as_str(), "in_progress"),
                    ("review", "pending"),
                    ("ship", "pending"),
                ],
            );
        }
    }
    let size = fs::metadata(&path).unwrap().len();
    assert!(size > 10_000_000, "{size}");
    // Warm up the allocator with one open, then hold ten reconnected sessions at once.
    drop(open(&path, OpenMode::Read).unwrap());
    let before = resident();
    let sessions: Vec<Session> = (0..10)
        .map(|_| open(&path, OpenMode::Read).unwrap())
        .collect();
    let grown = resident().saturating_sub(before);
    for session in &sessions {
        assert_eq!(session.next_seq(), 100_001);
        assert_eq!(
            tool_todo::current(session).unwrap().unwrap()[0].content,
            "step 99999"
        );
    }
    // Ten sessions of a 20 MB log hold far less than one copy of it: each keeps the latest list.
    assert!(
        grown < size / 10,
        "ten open sessions grew the process by {grown} bytes; the log is {size}"
    );
}

// Regression: reads started after a header of exactly this version's bytes, so a header line
// with another field in it (which the format allows) shifted every read. Found by fuzzing.
#[test]
fn a_header_with_more_fields_still_reads() {
    let dir = TempDir::new("header");
    let path = dir.file("s.jsonl");
    fs::write(
        &path,
        "{\"format\":\"tool-session\",\"version\":1,\"note\":\"written elsewhere\"}\n\
         {\"seq\":1,\"kind\":\"n/x\",\"data\":1,\"time\":\"2026-12-02T18:00:00.000000Z\"}\n",
    )
    .unwrap();
    for mode in [OpenMode::Read, OpenMode::Write] {
        let session = open(&path, mode).unwrap();
        let events = session.events_from(1).unwrap();
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].data::<u32>().unwrap(), 1);
    }
}

// Regression: the visitor ran under the session's lock, so a visitor that appended deadlocked,
// and a slow one (printing to a pipe) held up every append.
#[test]
fn a_visitor_runs_outside_the_lock_and_sees_the_events_there_when_it_began() {
    let dir = TempDir::new("visit");
    let session = open(&dir.file("s.jsonl"), OpenMode::Write).unwrap();
    for n in 1..=600u64 {
        session.append("n/x", &n).unwrap();
    }
    let mut seen = Vec::new();
    session
        .for_each_from(2, &mut |event| {
            seen.push(event.seq);
            session.append("n/seen", &event.seq).unwrap();
        })
        .unwrap();
    assert_eq!(seen, (2..=600).collect::<Vec<_>>());
    assert_eq!(session.next_seq(), 600 + 599 + 1);
    let all = session.events_from(1).unwrap();
    assert_eq!(all.len(), 1199);
    assert!(all.iter().enumerate().all(|(i, e)| e.seq == i as u64 + 1));
}

#[test]
fn a_session_open_twice_in_a_hub_says_so() {
    let ctx = Ctx::new();
    let _first = ctx
        .sessions
        .open("agent-1", tool_runtime::session::MemoryLog::new())
        .unwrap();
    match ctx
        .sessions
        .open("agent-1", tool_runtime::session::MemoryLog::new())
    {
        Err(error @ SessionError::AlreadyOpen { .. }) => {
            assert_eq!(error.to_string(), "session \"agent-1\" is open already");
        }
        other => panic!("{other:?}"),
    }
}

/// A value serde cannot encode as JSON: a map whose keys are not strings.
#[derive(Clone)]
struct Unencodable;

impl serde::Serialize for Unencodable {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry(&[1, 2], &3)?;
        map.end()
    }
}

#[test]
fn an_append_fails_when_its_value_cannot_be_encoded_on_every_log() {
    let dir = TempDir::new("unencodable");
    let file = open(&dir.file("s.jsonl"), OpenMode::Write).unwrap();
    for session in [Session::in_memory(), file] {
        let before = session.next_seq();
        for error in [
            session.append_value("x/y", Unencodable).unwrap_err(),
            session.append("x/y", &Unencodable).unwrap_err(),
        ] {
            assert!(
                matches!(&error, SessionError::Json(inner) if inner.to_string().contains("key must be a string")),
                "{error}"
            );
        }
        // Nothing was kept, in the log or in the session's state.
        assert_eq!(session.next_seq(), before);
        assert!(session.latest("x/y").is_none());
        assert!(session.events_from(1).unwrap().is_empty());
        assert_eq!(session.append_value("x/y", 1).unwrap(), before);
    }
}
