//! Real processes: a writer killed with SIGKILL at random moments, and two processes contending
//! for one session's lock.
//!
//! The child side of each test is this test binary run again with an environment variable set,
//! so the child is a real process running the real runtime.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use std::{env, fs, thread};

use serde_json::json;
use tool_runtime::session::{Durability, GroupSync, JsonlLog, OpenMode};
use tool_runtime::{Agent, Ctx, Exec, Session, SessionError};
use tool_todo::TodoWrite;

const CHILD_LOG: &str = "TOOL_CRASH_CHILD_LOG";
const CHILD_POLICY: &str = "TOOL_CRASH_CHILD_POLICY";
/// Kills per durability policy.
const ROUNDS: u32 = 40;

fn durability(name: &str) -> Durability {
    match name {
        "flush" => Durability::Flush,
        "fsync" => Durability::Fsync,
        "group" => Durability::Group(GroupSync::new()),
        other => panic!("unknown policy {other}"),
    }
}

/// The child: appends todo lists through `todo_write` until killed, printing `ack <seq>` after
/// each acknowledged call.
#[test]
fn child_appender() {
    let (Ok(path), Ok(policy)) = (env::var(CHILD_LOG), env::var(CHILD_POLICY)) else {
        return; // Run as a test of its own: nothing to do.
    };
    let mut ctx = Ctx::new();
    ctx.plugin::<TodoWrite>().unwrap();
    let log = JsonlLog::open(&path, OpenMode::Write, durability(&policy)).unwrap();
    let session = Session::open("child", log).unwrap();
    let exec = Exec::for_agent(Agent::new("child", session.clone()));
    let mut stdout = std::io::stdout().lock();
    loop {
        let seq = session.next_seq();
        let args = json!({"todos": [{"content": format!("item {seq}"), "status": "in_progress"},
                                     {"content": "x".repeat((seq % 300) as usize + 1), "status": "pending"}]});
        let out = ctx
            .tools
            .call("todo_write", &exec, &args.to_string())
            .wait();
        assert!(!out.is_error, "{}", out.text);
        writeln!(stdout, "ack {seq}").unwrap();
        stdout.flush().unwrap();
    }
}

/// The child: holds the session's write lock until its standard input closes.
#[test]
fn child_lock_holder() {
    let Ok(path) = env::var(CHILD_LOG) else {
        return;
    };
    if env::var(CHILD_POLICY).is_ok() {
        return;
    }
    let _log = JsonlLog::open(&path, OpenMode::Write, Durability::Fsync).unwrap();
    println!("locked");
    let mut rest = Vec::new();
    std::io::stdin().read_to_end(&mut rest).unwrap();
}

fn spawn_child(test: &str, envs: &[(&str, &str)]) -> Child {
    let mut command = Command::new(env::current_exe().unwrap());
    command
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    for (key, value) in envs {
        command.env(key, value);
    }
    command.spawn().unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = env::temp_dir().join(format!("tool-crash-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// A small deterministic-per-run generator for the kill moments.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// The seq of an `ack <seq>` line (libtest may have written `test … ... ` before it). A line cut
/// short by the kill is no acknowledgement.
fn ack(line: &str) -> Option<u64> {
    line.split_once("ack ")
        .and_then(|(_, seq)| seq.parse().ok())
}

fn check_after_kill(path: &Path, acked: u64, torn: &mut u32) -> u64 {
    // Reading replays every complete event; nothing after the torn tail is invented.
    let log = JsonlLog::open(path, OpenMode::Read, Durability::Flush).unwrap();
    *torn += u32::from(log.torn_tail().is_some());
    let session = Session::open("check", log).unwrap();
    let kept = session.next_seq() - 1;
    assert!(kept >= acked, "acknowledged {acked} events, found {kept}");
    for event in session.events_from(1).unwrap() {
        let data: serde_json::Value = event.data().unwrap();
        assert_eq!(data["todos"][0]["content"], format!("item {}", event.seq));
    }
    let current = tool_todo::current(&session).unwrap().unwrap();
    assert_eq!(current[0].content, format!("item {kept}"));
    // Writing repairs the torn tail, and the file is usable again.
    let log = JsonlLog::open(path, OpenMode::Write, Durability::Fsync).unwrap();
    let session = Session::open("check", log).unwrap();
    assert_eq!(session.next_seq(), kept + 1);
    kept
}

#[test]
fn every_acknowledged_append_survives_sigkill() {
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    let mut rng = Rng(seed);
    let dir = scratch("kill");
    for policy in ["fsync", "group", "flush"] {
        let path = dir.join(format!("{policy}.jsonl"));
        let path_text = path.to_str().unwrap().to_owned();
        let mut total = 0;
        let mut torn = 0;
        for round in 0..ROUNDS {
            let mut child = spawn_child(
                "child_appender",
                &[(CHILD_LOG, &path_text), (CHILD_POLICY, policy)],
            );
            let stdout = child.stdout.take().unwrap();
            let wanted = 1 + rng.below(40);
            let mut acked = total;
            let mut lines = BufReader::new(stdout).lines();
            for line in lines.by_ref() {
                let line = line.unwrap();
                if let Some(seq) = ack(&line) {
                    acked = seq;
                    if acked - total >= wanted {
                        break;
                    }
                }
            }
            thread::sleep(Duration::from_micros(rng.below(2000)));
            child.kill().unwrap();
            // Acks the child printed before it died count too.
            for line in lines.map_while(Result::ok) {
                if let Some(seq) = ack(&line) {
                    acked = seq;
                }
            }
            child.wait().unwrap();
            assert!(
                acked > total,
                "{policy} round {round}: the child acknowledged nothing (seed {seed})"
            );
            total = check_after_kill(&path, acked, &mut torn);
        }
        eprintln!(
            "{policy}: {ROUNDS} kills, {total} events kept, {torn} torn tails repaired (seed {seed})"
        );
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_second_process_cannot_write_a_locked_session_but_can_read_it() {
    let dir = scratch("lock");
    let path = dir.join("s.jsonl");
    {
        let writer = JsonlLog::open(&path, OpenMode::Write, Durability::Fsync).unwrap();
        let session = Session::open("s", writer).unwrap();
        session.append("n/x", &1).unwrap();
    }
    let mut child = spawn_child("child_lock_holder", &[(CHILD_LOG, path.to_str().unwrap())]);
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    // libtest writes `test child_lock_holder ... ` before the child's own output on the line.
    assert!(lines.any(|line| line.unwrap().ends_with("locked")));
    match JsonlLog::open(&path, OpenMode::Write, Durability::Fsync) {
        Err(SessionError::Locked { path: at }) => assert_eq!(at, path),
        other => panic!("{other:?}"),
    }
    let reader = Session::open(
        "s",
        JsonlLog::open(&path, OpenMode::Read, Durability::Fsync).unwrap(),
    )
    .unwrap();
    assert_eq!(reader.next_seq(), 2);
    // The lock goes with the process.
    drop(child.stdin.take());
    child.wait().unwrap();
    assert!(JsonlLog::open(&path, OpenMode::Write, Durability::Fsync).is_ok());
    fs::remove_dir_all(&dir).unwrap();
}
