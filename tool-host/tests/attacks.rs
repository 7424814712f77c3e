//! `toolhost` as an attacker runs it: files that are not session logs, special files, endless
//! input, a log crafted to drive the terminal, a closed stdout, a full disk. Each test names the
//! hole it closes.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};

const HEADER: &str = "{\"format\":\"tool-session\",\"version\":1}\n";
const LIST: &str = r#"{"todos": [{"content": "Plan", "status": "in_progress"}]}"#;

fn command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolhost"));
    command
        .args(args)
        .env("LANG", "C.UTF-8")
        .env_remove("LC_ALL")
        .env_remove("LC_CTYPE");
    command
}

fn toolhost(args: &[&str]) -> Output {
    command(args).output().expect("toolhost runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A fresh directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let path =
            std::env::temp_dir().join(format!("toolhost-attack-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).unwrap();
        Scratch(path)
    }

    fn file(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Waits for `child` at most `limit`, killing it (and failing) if it hangs.
fn wait_at_most(mut child: Child, limit: Duration) -> (ExitStatus, String, String) {
    let (done, waited) = mpsc::channel();
    let mut out = child.stdout.take();
    let mut err = child.stderr.take();
    let id = child.id();
    let waiter = thread::spawn(move || {
        let mut stdout = String::new();
        let mut stderr = String::new();
        if let Some(out) = &mut out {
            out.read_to_string(&mut stdout).unwrap();
        }
        if let Some(err) = &mut err {
            err.read_to_string(&mut stderr).unwrap();
        }
        let status = child.wait().unwrap();
        let _ = done.send((status, stdout, stderr));
    });
    match waited.recv_timeout(limit) {
        Ok(result) => {
            waiter.join().unwrap();
            result
        }
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &id.to_string()]).status();
            panic!("toolhost did not finish within {limit:?}");
        }
    }
}

// Regression: a file with no newline was cut to nothing and given a header, even when the call
// itself was refused; through a link, the link's target was.
#[test]
fn call_leaves_a_file_that_is_not_a_session_log_untouched() {
    let dir = Scratch::new("not-a-log");
    let notes = dir.file("notes.txt");
    fs::write(&notes, "ssh-ed25519 AAAA my key, no newline").unwrap();
    let link = dir.file("link.jsonl");
    std::os::unix::fs::symlink(&notes, &link).unwrap();
    for (path, says) in [
        (
            &notes,
            "is not a session log (it does not start with a session log header)",
        ),
        (&link, "is a symbolic link"),
    ] {
        for args in [LIST, "{\"todos\": 5}"] {
            let output = toolhost(&[
                "call",
                "todo_write",
                args,
                "--session",
                path.to_str().unwrap(),
            ]);
            assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
            assert!(stderr(&output).contains(says), "{}", stderr(&output));
            assert!(output.stdout.is_empty());
        }
    }
    assert_eq!(
        fs::read_to_string(&notes).unwrap(),
        "ssh-ed25519 AAAA my key, no newline"
    );
}

// Regression: `replay` of a file that is not a log called it "an interrupted append".
#[test]
fn replay_says_what_is_not_a_session_log() {
    let dir = Scratch::new("replay-not-a-log");
    let notes = dir.file("notes.txt");
    fs::write(&notes, "remember the milk").unwrap();
    let output = toolhost(&["replay", notes.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(3));
    assert_eq!(
        stderr(&output),
        format!(
            "toolhost: {} is not a session log (it does not start with a session log header); it \
             was left untouched\n",
            notes.display()
        )
    );
}

// Regression: `replay /dev/zero` read until allocation failed; a FIFO hung forever.
#[test]
fn replay_refuses_special_files_at_once() {
    let dir = Scratch::new("special");
    let fifo = dir.file("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    for path in [Path::new("/dev/zero"), fifo.as_path()] {
        let child = command(&["replay", path.to_str().unwrap()])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (status, _, stderr) = wait_at_most(child, Duration::from_secs(20));
        assert_eq!(status.code(), Some(3), "{stderr}");
        assert!(stderr.contains("not a regular file"), "{stderr}");
    }
}

// Regression: a log with a multi-GB torn tail aborted with an allocation failure.
#[test]
fn replay_of_a_huge_torn_tail_is_an_error_within_a_memory_limit() {
    let dir = Scratch::new("huge-tail");
    let log = dir.file("s.jsonl");
    let output = toolhost(&[
        "call",
        "todo_write",
        LIST,
        "--session",
        log.to_str().unwrap(),
    ]);
    assert!(output.status.success());
    let len = fs::metadata(&log).unwrap().len();
    // 6 GiB of a sparse tail without a newline: no disk, and more than the memory allowed.
    let file = fs::OpenOptions::new().write(true).open(&log).unwrap();
    file.set_len(len + (6 << 30)).unwrap();
    drop(file);
    for args in [&["replay"][..], &["replay", "--events"]] {
        // At most 1 GiB of address space.
        let output = Command::new("sh")
            .args(["-c", "ulimit -v 1048576; exec \"$0\" \"$@\""])
            .arg(env!("CARGO_BIN_EXE_toolhost"))
            .args(args)
            .arg(&log)
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(3),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains("line 3: longer than the 67108864 bytes a log line may have"),
            "{}",
            stderr(&output)
        );
    }
}

// Regression: `call -` read standard input to its end before the size cap applied, and
// non-UTF-8 input exited 3 as if the session had failed.
#[test]
fn call_reads_standard_input_with_a_bound_and_refuses_what_is_not_text() {
    let mut child = command(&["call", "todo_write", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // More than the 1 MiB cap, and the pipe stays open: reading to the end would never end.
    let feeder = thread::spawn(move || {
        let chunk = vec![b' '; 1 << 16];
        for _ in 0..64 {
            if stdin.write_all(&chunk).is_err() {
                return;
            }
        }
        thread::sleep(Duration::from_secs(30));
    });
    let (status, stdout, stderr) = wait_at_most(child, Duration::from_secs(20));
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert_eq!(
        stderr,
        "toolhost: standard input holds more than the 1048576 bytes a call's arguments may have\n"
    );
    assert!(stdout.is_empty());
    drop(feeder);

    let mut child = command(&["call", "todo_write", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"{\"todos\": [{\"content\": \"\xff\", \"status\": \"pending\"}]}")
        .unwrap();
    let (status, _, stderr) = wait_at_most(child, Duration::from_secs(20));
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert_eq!(
        stderr,
        "toolhost: the arguments on standard input are not UTF-8 (an invalid byte at offset 24)\n"
    );
}

// Regression: a closed stdout after a committed call exited 3, so a caller retried it and the
// event was appended twice.
#[test]
fn a_committed_call_is_reported_as_committed_when_stdout_is_gone() {
    let dir = Scratch::new("closed-stdout");
    let log = dir.file("s.jsonl");
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let output = command(&[
        "call",
        "todo_write",
        LIST,
        "--session",
        log.to_str().unwrap(),
    ])
    .stdout(writer)
    .stderr(Stdio::piped())
    .output()
    .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output)
            .starts_with("toolhost: the call succeeded, but its output could not be written: "),
        "{}",
        stderr(&output)
    );
    let events = fs::read_to_string(&log).unwrap();
    assert_eq!(events.lines().count(), 2, "{events}");
}

// Regression: an ESC sequence in a crafted log's latest status reached the terminal raw through
// the deserializer's error, which named neither the file nor the line.
#[test]
fn nothing_read_from_a_log_reaches_the_terminal_raw() {
    let dir = Scratch::new("hostile-log");
    let log = dir.file("s.jsonl");
    let hostile =
        json!({"todos": [{"content": "x", "status": "\u{1b}]52;c;aGVsbG8=\u{7}\u{1b}[2J"}]});
    let line = json!({"seq": 1, "kind": "todo/write", "data": hostile, "time": "2026-01-01T00:00:00.000000Z"});
    fs::write(&log, format!("{HEADER}{line}\n")).unwrap();
    // One verdict: every way of reading the log, and a writer, refuses it alike.
    for args in [
        &["replay", "--format", "text"][..],
        &["replay", "--format", "json"],
        &["replay", "--format", "acp"],
        &["replay", "--events"],
    ] {
        let output = command(args).arg(&log).output().unwrap();
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(3), "{args:?}: {err}");
        assert!(!err.chars().any(|c| c.is_control() && c != '\n'), "{err:?}");
        assert!(
            err.starts_with(&format!(
                "toolhost: session log {}: line 2: ",
                log.display()
            )),
            "{err}"
        );
        assert!(err.contains("\\u{1b}]52"), "{err}");
    }
    let output = toolhost(&[
        "call",
        "todo_write",
        LIST,
        "--session",
        log.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    assert_eq!(fs::read_to_string(&log).unwrap().lines().count(), 2);

    // The REPL reads the same list when it starts on the session.
    let output = command(&["repl", "--session", log.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "{err}");
    assert!(!err.chars().any(|c| c.is_control() && c != '\n'), "{err:?}");
    assert!(
        err.contains("line 2: the todo list cannot be read"),
        "{err}"
    );
}

// Regression (an attack round): a file name carrying escape sequences reached the terminal
// through every message that named the file.
#[test]
fn a_file_name_cannot_drive_the_terminal() {
    let dir = Scratch::new("hostile-name");
    let name = dir.file("evil\u{1b}]0;PWNED\u{7}\u{1b}[2J\u{202e}.jsonl");
    fs::write(&name, "not a log").unwrap();
    let output = toolhost(&["replay", name.to_str().unwrap()]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(3));
    assert!(
        !err.chars()
            .any(|c| (c.is_control() && c != '\n') || c == '\u{202e}'),
        "{err:?}"
    );
    assert!(err.contains("evil\\u{1b}]0;PWNED"), "{err}");
}

// Regression (an attack round): a standard error that could not be written made a committed
// call panic (exit status 101).
#[test]
fn a_committed_call_keeps_its_status_when_nothing_can_be_written() {
    let dir = Scratch::new("full-stderr");
    let log = dir.file("s.jsonl");
    let full = || {
        fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    let output = command(&[
        "call",
        "todo_write",
        LIST,
        "--session",
        log.to_str().unwrap(),
    ])
    .stdout(full())
    .stderr(full())
    .output()
    .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(fs::read_to_string(&log).unwrap().lines().count(), 2);
}

// Regression: `--session-dir /dev/null` said "File exists".
#[test]
fn a_session_directory_that_is_not_one_says_so() {
    let output = toolhost(&["mcp", "--session-dir", "/dev/null"]);
    assert_eq!(output.status.code(), Some(3));
    assert_eq!(
        stderr(&output),
        "toolhost: session directory /dev/null is not a directory\n"
    );
}

// Regression: after one failed write (a full disk), every later call on the connection failed
// with "an earlier write failed … reopen the session", even the first. A file size limit
// (`ulimit -f`, with SIGXFSZ ignored) makes the write fail as a full disk does: the event does
// not fit, and an event that fits goes in on the same connection.
#[test]
fn a_failed_write_is_not_a_dead_session() {
    let dir = Scratch::new("full-disk");
    let log = dir.file("s.jsonl");
    let mut child = Command::new("sh")
        .args([
            "-c",
            "trap '' XFSZ; ulimit -f 16; exec \"$0\" mcp --session \"$1\"",
            env!("CARGO_BIN_EXE_toolhost"),
            log.to_str().unwrap(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let big: Vec<Value> = (0..400)
        .map(|i| json!({"content": format!("task number {i} of a long plan"), "status": "pending"}))
        .collect();
    let call = |id: u64, todos: &Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": "todo_write", "arguments": {"todos": todos}}})
        .to_string()
    };
    let lines = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
        call(2, &Value::Array(big)),
        call(3, &json!([{"content": "small", "status": "in_progress"}])),
    ];
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (answers, answered) = mpsc::channel();
    thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout).lines() {
            let message: Value = serde_json::from_str(&line.unwrap()).unwrap();
            if answers.send(message).is_err() {
                return;
            }
        }
    });
    let mut texts = std::collections::HashMap::new();
    for line in &lines {
        writeln!(stdin, "{line}").unwrap();
        // One call at a time, so the small one comes after the failed one.
        if line.contains("tools/call") {
            let answer = answered.recv_timeout(Duration::from_secs(20)).unwrap();
            texts.insert(
                answer["id"].as_u64().unwrap(),
                (
                    answer["result"]["isError"].clone(),
                    answer["result"]["content"][0]["text"]
                        .as_str()
                        .unwrap()
                        .to_owned(),
                ),
            );
        } else if line.contains("initialize\"") {
            answered.recv_timeout(Duration::from_secs(20)).unwrap();
        }
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let (failed, first) = &texts[&2];
    assert_eq!(failed, &json!(true));
    assert!(
        first.starts_with("Error: could not record the todo list: session log ")
            && first.contains("the event could not be saved (File too large")
            && first.ends_with("the log is unchanged"),
        "{first}"
    );
    assert!(!first.contains("reopen"), "{first}");
    assert_eq!(
        texts[&3],
        (
            json!(false),
            "Updated todo list: 0 pending, 1 in progress, 0 completed".to_owned()
        )
    );
    // The log holds its header and the one event that fitted, and reads cleanly.
    let output = toolhost(&["replay", log.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "Todos: 0/1 done\n  ▶ small\n"
    );
    assert_eq!(fs::read_to_string(&log).unwrap().lines().count(), 2);
}

// A sibling of the planted session link: the REPL's history was written with `File::create`,
// through a link planted where the history goes.
#[test]
fn the_repl_history_is_not_written_through_a_link() {
    let dir = Scratch::new("history-link");
    let state = dir.file("state");
    fs::create_dir_all(state.join("toolhost")).unwrap();
    let target = dir.file("precious.txt");
    fs::write(&target, "precious").unwrap();
    let history = state.join("toolhost/repl-history");
    std::os::unix::fs::symlink(&target, &history).unwrap();
    let mut child = command(&["repl", "--session", dir.file("s.jsonl").to_str().unwrap()])
        .env("XDG_STATE_HOME", &state)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"list\nquit\n")
        .unwrap();
    let (status, _, stderr) = wait_at_most(child, Duration::from_secs(20));
    assert!(status.success(), "{stderr}");
    assert!(
        stderr.contains("is not a regular file; it was not written"),
        "{stderr}"
    );
    assert_eq!(fs::read_to_string(&target).unwrap(), "precious");
}

// Regression: `replay --events` read the whole log into memory (185 MB of memory for a 185 MB
// log). It streams now: a 160 MB log replays within 96 MB of address space.
#[test]
fn replay_events_streams_the_log() {
    let dir = Scratch::new("stream");
    let log = dir.file("s.jsonl");
    let mut file = std::io::BufWriter::new(fs::File::create(&log).unwrap());
    file.write_all(HEADER.as_bytes()).unwrap();
    let padding = "x".repeat(1000);
    let events = 160_000u64;
    for seq in 1..=events {
        writeln!(
            file,
            "{{\"seq\":{seq},\"kind\":\"n/x\",\"data\":\"{padding}\",\"time\":\"2026-01-01T00:00:00.000000Z\"}}"
        )
        .unwrap();
    }
    drop(file);
    assert!(fs::metadata(&log).unwrap().len() > 160_000_000);
    let output = Command::new("sh")
        .args([
            "-c",
            "ulimit -v 98304; exec \"$0\" replay --events \"$1\" | wc -l",
        ])
        .arg(env!("CARGO_BIN_EXE_toolhost"))
        .arg(&log)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        events.to_string(),
        "{}",
        stderr(&output)
    );
}
