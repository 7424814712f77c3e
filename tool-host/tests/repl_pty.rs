//! `toolhost repl` as a person uses it: the real binary in a pseudo-terminal, typed at, with the
//! screen it shows read back through a terminal emulator (vt100).

use std::io::{Read, Write};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

struct Terminal {
    parser: vt100::Parser,
    bytes: mpsc::Receiver<Vec<u8>>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
}

impl Terminal {
    fn start(args: &[&str]) -> Terminal {
        let state = std::env::temp_dir().join(format!("repl-state-{}", std::process::id()));
        Terminal::start_with_state(args, &state)
    }

    /// A REPL whose state directory (where its history is kept) is `state`.
    fn start_with_state(args: &[&str], state: &std::path::Path) -> Terminal {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: 50,
                cols: 100,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_toolhost"));
        command.args(args);
        command.env("TERM", "xterm-256color");
        command.env("LANG", "C.UTF-8");
        command.env_remove("NO_COLOR");
        command.env("XDG_STATE_HOME", state);
        let child = pair.slave.spawn_command(command).unwrap();
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().unwrap();
        let writer = pair.master.take_writer().unwrap();
        let (tx, bytes) = mpsc::channel();
        std::thread::spawn(move || {
            let _master = pair.master;
            let mut buffer = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buffer) {
                if n == 0 || tx.send(buffer[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Terminal {
            parser: vt100::Parser::new(
                std::num::NonZeroU16::new(50).unwrap(),
                std::num::NonZeroU16::new(100).unwrap(),
                0,
            ),
            bytes,
            writer,
            child,
        }
    }

    fn screen(&self) -> String {
        self.parser.screen().contents()
    }

    /// Waits until the screen shows `text`.
    fn wait_for(&mut self, text: &str) {
        self.wait_for_times(text, 1);
    }

    /// Waits until the screen shows `text` at least `times` times.
    fn wait_for_times(&mut self, text: &str, times: usize) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.screen().matches(text).count() < times {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "the screen never showed {text:?}:\n{}",
                self.screen()
            );
            if let Ok(bytes) = self
                .bytes
                .recv_timeout(left.min(Duration::from_millis(100)))
            {
                self.parser.process(&bytes);
            }
        }
    }

    /// Waits (20 s at most) for the REPL to exit, and whether it exited successfully.
    fn exited_successfully(&mut self) -> bool {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.success();
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                panic!("the REPL did not exit:\n{}", self.screen());
            }
            if let Ok(bytes) = self.bytes.recv_timeout(Duration::from_millis(50)) {
                self.parser.process(&bytes);
            }
        }
    }

    fn type_line(&mut self, line: &str) {
        self.writer.write_all(line.as_bytes()).unwrap();
        self.writer.write_all(b"\r").unwrap();
        self.writer.flush().unwrap();
    }

    fn press(&mut self, key: &[u8]) {
        self.writer.write_all(key).unwrap();
        self.writer.flush().unwrap();
    }
}

#[test]
fn a_person_types_calls_and_watches_the_checklist() {
    let dir = std::env::temp_dir().join(format!("repl-pty-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let file = dir.join("person.jsonl");
    std::fs::create_dir_all(&dir).unwrap();
    let mut term = Terminal::start(&["repl", "--session", file.to_str().unwrap()]);
    term.wait_for(&format!("toolhost repl: session {}", file.display()));
    term.wait_for("toolhost> ");

    // A call over two lines, with hostile content in it.
    term.type_line(r#"todo_write {"todos": ["#);
    term.wait_for("...> ");
    term.type_line(r#"{"content": "Plan", "status": "completed"}, {"content": "Wipe\u001b[2J\u001b[H it", "status": "in_progress"}, {"content": "Ship", "status": "pending"}]}"#);
    term.wait_for("Updated todo list: 1 pending, 1 in progress, 1 completed");
    term.wait_for("Todos: 1/3 done");
    let screen = term.screen();
    assert!(screen.contains("✓ Plan"), "{screen}");
    assert!(screen.contains("▶ Wipe\\u{1b}[2J\\u{1b}[H it"), "{screen}");
    assert!(screen.contains("○ Ship"), "{screen}");
    // The hostile content cleared nothing: the greeting is still on the screen.
    assert!(screen.contains("toolhost repl: session"), "{screen}");
    // The in-progress todo is highlighted (bold), on a terminal with colour.
    let row = screen
        .lines()
        .position(|line| line.contains("▶ Wipe"))
        .unwrap();
    let cell = term.parser.screen().cell(row as u16, 4).unwrap();
    assert!(cell.bold(), "the in-progress line is not highlighted");

    // An error the model would see, verbatim.
    term.type_line(r#"todo_write {"todos": [{"content": "a", "status": "done"}]}"#);
    term.wait_for(
        r#"todos[0].status: expected one of "pending", "in_progress", "completed", got "done""#,
    );

    // Ctrl-C drops a half-typed call.
    term.type_line(r#"todo_write {"todos": ["#);
    term.wait_for_times("...> ", 2);
    term.press(b"\x03");
    term.wait_for("(input dropped)");
    term.wait_for_times("toolhost> ", 4);

    term.type_line("tools");
    term.wait_for("todo_write  Record and update a structured task list");
    term.wait_for_times("toolhost> ", 5);
    term.type_line("list");
    term.wait_for_times("Todos: 1/3 done", 2);
    // A key pressed before the prompt is back may be read before the line editor takes the
    // terminal, and lost when it does.
    term.wait_for_times("toolhost> ", 6);

    // Ctrl-D leaves.
    term.press(b"\x04");
    assert!(term.exited_successfully());

    // The session kept the accepted call only.
    let log = std::fs::read_to_string(&file).unwrap();
    assert_eq!(log.lines().count(), 2, "{log}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A REPL on a new session in a directory of its own, and that directory.
fn start_in_dir(name: &str) -> (Terminal, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("repl-pty-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let term = Terminal::start(&["repl", "--session-dir", dir.to_str().unwrap()]);
    (term, dir)
}

// Regressions, as a new user met them: `schema` printed its JSON on one line with literal `\n`
// sequences; `tools` cut descriptions mid-word; an unbalanced call swallowed every later line;
// `?` was taken for a tool; `todo_write{…}` without a space was a tool name; `schema` alone
// looked for a tool named ""; `help` did not list `exit`; Ctrl-D during a continuation left
// silently, dropping the call; every start left a session file behind.
#[test]
fn a_new_user_is_told_what_to_do() {
    let (mut term, dir) = start_in_dir("new-user");
    term.wait_for("toolhost> ");

    term.type_line("schema todo_write");
    term.wait_for(r#"  "name": "todo_write","#);
    assert!(!term.screen().contains(r#"{\n"#), "{}", term.screen());

    term.type_line("tools");
    term.wait_for(
        "todo_write  Record and update a structured task list for the current work. Send the…",
    );

    term.type_line(r#"todo_write {"todos": [{"content": "a","#);
    term.wait_for("(the call goes on until `{[{` close; an empty line drops it)");
    term.wait_for("{[{ ...> ");
    term.type_line("");
    term.wait_for("(call dropped: an empty line ends a call not yet closed)");

    term.type_line("?");
    term.wait_for(r#"unknown command or tool "?"; `help` lists the commands, `tools` the tools"#);

    term.type_line(r#"todo_write{"todos": [{"content": "Tight", "status": "pending"}]}"#);
    term.wait_for("Updated todo list: 1 pending, 0 in progress, 0 completed");

    term.type_line("schema");
    term.wait_for("usage: schema NAME, with NAME one of: todo_write");

    term.type_line("help");
    term.wait_for("quit, exit    leave (or Ctrl-D)");

    term.type_line(r#"todo_write {"todos": ["#);
    term.wait_for("{[ ...> ");
    term.press(b"\x04");
    term.wait_for("(call dropped: its brackets never closed)");

    // Tab completes a command, then a tool name.
    term.press(b"sch\t");
    term.wait_for("toolhost> schema ");
    term.press(b"to\t");
    term.wait_for("toolhost> schema todo_write ");
    term.press(b"\x03");
    term.wait_for("(Ctrl-D or `quit` leaves)");

    term.type_line("quit");
    assert!(term.exited_successfully());
    // The session had an event: its file stays.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    std::fs::remove_dir_all(&dir).unwrap();

    // One with none leaves nothing behind.
    let (mut term, dir) = start_in_dir("empty");
    term.wait_for("toolhost> ");
    term.type_line("quit");
    assert!(term.exited_successfully());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_history_is_kept_across_runs() {
    let state = std::env::temp_dir().join(format!("repl-history-state-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&state);
    let sessions = state.join("sessions");
    let args = ["repl", "--session-dir", sessions.to_str().unwrap()];

    let mut term = Terminal::start_with_state(&args, &state);
    term.wait_for("toolhost> ");
    term.type_line("tools");
    term.wait_for("todo_write  Record");
    term.wait_for_times("toolhost> ", 2);
    term.type_line("quit");
    assert!(term.exited_successfully());

    // A second run: the up arrow brings back the lines typed in the first, latest first.
    let mut term = Terminal::start_with_state(&args, &state);
    term.wait_for("toolhost> ");
    term.press(b"\x1b[A");
    term.wait_for("toolhost> quit");
    term.press(b"\x1b[A");
    term.wait_for("toolhost> tools");
    term.press(b"\r");
    term.wait_for("todo_write  Record");
    term.wait_for_times("toolhost> ", 2);
    term.type_line("quit");
    assert!(term.exited_successfully());
    assert!(state.join("toolhost/repl-history").is_file());
    std::fs::remove_dir_all(&state).unwrap();
}

#[test]
fn a_recalled_history_entry_cannot_drive_the_terminal() {
    let state = std::env::temp_dir().join(format!("repl-hostile-history-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&state);
    std::fs::create_dir_all(state.join("toolhost")).unwrap();
    // A history planted with an entry that clears the screen and retitles the window.
    std::fs::write(
        state.join("toolhost/repl-history"),
        "#V2\ntodo_write \u{1b}[2J\u{1b}]0;pwned\u{7}\n",
    )
    .unwrap();
    let file = state.join("s.jsonl");
    let mut term =
        Terminal::start_with_state(&["repl", "--session", file.to_str().unwrap()], &state);
    term.wait_for("toolhost> ");
    // Up: the entry is drawn at the prompt, escaped.
    term.press(b"\x1b[A");
    term.wait_for("todo_write \\u{1b}[2J\\u{1b}]0;pwned\\u{7}");
    let screen = term.screen();
    assert!(screen.contains("toolhost repl: session"), "{screen}");
    term.press(b"\x04");
}
