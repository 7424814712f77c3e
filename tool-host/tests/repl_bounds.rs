//! The REPL is bounded and linear: a piped line past the size of a call is dropped without being
//! held, a call of many lines is scanned once, the history file is read only when it is a
//! regular file (a FIFO is refused at once) and recalled neutralized, and results keep their
//! lines and tabs as layout with every other control character escaped.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use tool_host::repl::Entry;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("repl-bounds-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `toolhost repl` on a session in `dir`, its state (history) there too, fed `input` on a pipe;
/// under `ulimit -v` of `limit_kib` when given. Killed after 60 s.
fn repl(dir: &std::path::Path, input: &[u8], limit_kib: Option<u64>) -> Output {
    let mut command = match limit_kib {
        Some(kib) => {
            let mut command = Command::new("sh");
            command
                .arg("-c")
                .arg(format!("ulimit -v {kib}; exec \"$0\" \"$@\""))
                .arg(env!("CARGO_BIN_EXE_toolhost"));
            command
        }
        None => Command::new(env!("CARGO_BIN_EXE_toolhost")),
    };
    let mut child = command
        .args(["repl", "--session"])
        .arg(dir.join("s.jsonl"))
        .env("XDG_STATE_HOME", dir.join("state"))
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("the REPL ran past 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    writer.join().unwrap();
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_piped_line_past_the_size_of_a_call_is_dropped_without_being_held() {
    let dir = scratch("long");
    // 512 MiB on one line, under 256 MiB of address space: read and dropped a piece at a time.
    let mut input = b"todo_write {\"todos\": [{\"content\": \"".to_vec();
    input.resize(512 << 20, b'x');
    input.extend_from_slice(b"\", \"status\": \"pending\"}]}\n");
    input.extend_from_slice(b"todo_write {\"todos\": []}\n");
    let output = repl(&dir, &input, Some(256 * 1024));
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(
        stdout.contains(
            "(call dropped: a line of 536870937 bytes is longer than the 1114112 bytes a call \
             may have)"
        ),
        "{stdout}"
    );
    // The REPL went on to the next line.
    assert!(
        stdout.contains("Updated todo list: 0 pending, 0 in progress, 0 completed"),
        "{stdout}"
    );
}

#[test]
fn a_call_of_many_lines_is_scanned_once() {
    let mut entry = Entry::default();
    let mut total = 0;
    entry.push_line("todo_write {\"todos\": [");
    total += "todo_write {\"todos\": [\n".len();
    for n in 0..20_000 {
        let line = format!(
            "{{\"content\": \"task {n} with a }} and a [ in it\", \"status\": \"pending\"}},"
        );
        entry.push_line(&line);
        total += line.len() + 1;
        assert_eq!(entry.open(), Some("{["));
    }
    entry.push_line("{\"content\": \"last\", \"status\": \"pending\"}]}");
    total += "{\"content\": \"last\", \"status\": \"pending\"}]}\n".len();
    assert_eq!(entry.open(), None);
    // Every byte once: a rescan from the start at each line would be 20,000 times more.
    assert_eq!(entry.scanned(), total);
    assert_eq!(entry.len(), total);
}

#[test]
fn a_paste_of_many_lines_is_one_call() {
    let dir = scratch("paste");
    let mut input = String::from("todo_write {\"todos\": [\n");
    for n in 0..20_000 {
        input.push_str(&format!(
            "{{\"content\": \"task {n}\", \"status\": \"pending\"}},\n"
        ));
    }
    input.push_str("{\"content\": \"last\", \"status\": \"in_progress\"}]}\n");
    let output = repl(&dir, input.as_bytes(), None);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(
        // Read as one call: every todo reached the tool, which takes at most 1,000.
        text(&output.stdout).contains("Error: invalid todos: at most 1000 todos, got 20001"),
        "{}",
        text(&output.stdout)
    );
}

#[test]
fn a_history_that_is_a_fifo_is_refused_at_once() {
    let dir = scratch("fifo");
    let state = dir.join("state/toolhost");
    std::fs::create_dir_all(&state).unwrap();
    let fifo = state.join("repl-history");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let output = repl(&dir, b"todo_write {\"todos\": []}\n", None);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains("is not a regular file; it was not loaded"),
        "{}",
        text(&output.stderr)
    );
    assert!(text(&output.stdout).contains("Updated todo list"));
}

/// Answers a table.
#[tool_runtime::tool]
fn table() -> String {
    "name\tstatus\nbuild\tdone\u{1b}[2J\r".into()
}

#[test]
fn results_keep_their_lines_and_tabs_and_escape_the_rest() {
    let mut ctx = tool_runtime::Ctx::new();
    ctx.plugin::<Table>().unwrap();
    let session = tool_runtime::Session::in_memory();
    let agent = tool_runtime::Agent::new("a", session.clone());
    let mut events = session.subscribe();
    let mut out = Vec::new();
    tool_host::repl::handle_line(&ctx, &agent, &mut events, "table", &mut out).unwrap();
    assert_eq!(text(&out), "name\tstatus\nbuild\tdone\\u{1b}[2J\\r\n");
}
