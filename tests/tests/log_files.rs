//! Session log files as an attacker leaves them: files that are not logs, links, special files,
//! unbounded lines, damage that looks like a torn tail, and writes that fail. A writer only ever
//! cuts bytes that are provably a torn append; everything else is refused and left as it was.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Command;

use tool_runtime::session::{Durability, JsonlLog, MAX_LINE_BYTES, OpenMode, SessionDir};
use tool_runtime::{Session, SessionError};

const HEADER: &str = "{\"format\":\"tool-session\",\"version\":1}\n";

/// A fresh directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let path =
            std::env::temp_dir().join(format!("tool-log-files-{name}-{}", std::process::id()));
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

fn open(path: &Path, mode: OpenMode) -> Result<JsonlLog, SessionError> {
    JsonlLog::open(path, mode, Durability::Flush)
}

fn event_line(seq: u64) -> String {
    format!(
        "{{\"seq\":{seq},\"kind\":\"n/x\",\"data\":{seq},\"time\":\"2026-01-01T00:00:00.000000Z\"}}\n"
    )
}

// Regression: a file without a newline was taken for a torn line 1 and cut to nothing.
#[test]
fn a_file_that_is_not_a_log_is_refused_and_left_as_it_was() {
    let dir = TempDir::new("not-a-log");
    for content in [
        &b"my notes, no newline"[..],
        b"-----BEGIN OPENSSH PRIVATE KEY-----",
        b"{\"format\":\"tool-session\",\"version\":1} trailing",
        b"{\"format\":\"tool-sessionX",
        b"hello\nworld\n",
        b"\xff\xfe binary",
    ] {
        let path = dir.file("notes.txt");
        fs::write(&path, content).unwrap();
        for mode in [OpenMode::Write, OpenMode::Read] {
            match open(&path, mode) {
                Err(SessionError::NotALog { path: at, .. }) => assert_eq!(at, path),
                other => panic!("{content:?} as {mode:?}: {other:?}"),
            }
            assert_eq!(fs::read(&path).unwrap(), content, "{content:?} as {mode:?}");
        }
    }
}

#[test]
fn a_torn_header_is_the_only_first_line_a_writer_cuts() {
    let dir = TempDir::new("torn-header");
    let path = dir.file("s.jsonl");
    for cut in 1..HEADER.len() - 1 {
        fs::write(&path, &HEADER[..cut]).unwrap();
        let log = open(&path, OpenMode::Write).unwrap();
        assert!(log.torn_tail().unwrap().repaired, "{cut}");
        drop(log);
        assert_eq!(fs::read_to_string(&path).unwrap(), HEADER);
    }
}

// Regression: any incomplete last line was cut, whatever it held.
#[test]
fn an_incomplete_last_line_that_is_not_the_next_event_is_damage_not_a_torn_append() {
    let dir = TempDir::new("torn-event");
    let path = dir.file("s.jsonl");
    let complete = format!("{HEADER}{}{}", event_line(1), event_line(2));
    // What an interrupted append of event 3 can leave: cut, and the events kept.
    for torn in ["{", "{\"seq\":3", "{\"seq\":3,\"kind\":\"n/x\",\"da"] {
        fs::write(&path, format!("{complete}{torn}")).unwrap();
        let session = Session::open("s", open(&path, OpenMode::Write).unwrap()).unwrap();
        assert_eq!(session.next_seq(), 3);
        drop(session);
        assert_eq!(fs::read_to_string(&path).unwrap(), complete, "{torn}");
    }
    // Anything else is refused, by writers and readers alike, and nothing is cut.
    for damage in [
        "my notes",
        "{\"seq\":2,\"kind\"",
        "{\"seq\":30",
        "\u{1b}[2J",
    ] {
        let bytes = format!("{complete}{damage}");
        fs::write(&path, &bytes).unwrap();
        for mode in [OpenMode::Write, OpenMode::Read] {
            match open(&path, mode) {
                Err(SessionError::Corrupt {
                    line: 4, reason, ..
                }) => {
                    assert!(reason.contains("not an interrupted append"), "{reason}");
                }
                other => panic!("{damage:?} as {mode:?}: {other:?}"),
            }
        }
        assert_eq!(fs::read_to_string(&path).unwrap(), bytes);
    }
}

// Regression: a writer followed a link and truncated its target.
#[test]
fn a_writer_never_follows_a_symbolic_link() {
    let dir = TempDir::new("symlink");
    let target = dir.file("precious.txt");
    fs::write(&target, "do not touch").unwrap();
    let link = dir.file("s.jsonl");
    symlink(&target, &link).unwrap();
    match open(&link, OpenMode::Write) {
        Err(SessionError::SymbolicLink { path }) => assert_eq!(path, link),
        other => panic!("{other:?}"),
    }
    // Even a link to a real log: a writer names the file itself.
    let real = dir.file("real.jsonl");
    drop(open(&real, OpenMode::Write).unwrap());
    let to_log = dir.file("to-log.jsonl");
    symlink(&real, &to_log).unwrap();
    assert!(matches!(
        open(&to_log, OpenMode::Write),
        Err(SessionError::SymbolicLink { .. })
    ));
    // A reader follows it: reading cannot damage anything.
    assert!(open(&to_log, OpenMode::Read).is_ok());
    // A dangling link is not created through either.
    let dangling = dir.file("dangling.jsonl");
    symlink(dir.file("nowhere"), &dangling).unwrap();
    assert!(matches!(
        open(&dangling, OpenMode::Write),
        Err(SessionError::SymbolicLink { .. })
    ));
    assert!(!dir.file("nowhere").exists());
    assert_eq!(fs::read_to_string(&target).unwrap(), "do not touch");
}

#[test]
fn a_new_log_is_created_exclusively() {
    let dir = TempDir::new("exclusive");
    let target = dir.file("target.txt");
    fs::write(&target, "kept").unwrap();
    let planted = dir.file("planted.jsonl");
    symlink(&target, &planted).unwrap();
    let existing = dir.file("existing.jsonl");
    fs::write(&existing, "kept too").unwrap();
    for path in [&planted, &existing] {
        match open(path, OpenMode::Create) {
            Err(SessionError::Io { source, .. }) => {
                assert_eq!(source.kind(), std::io::ErrorKind::AlreadyExists);
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(fs::read_to_string(&target).unwrap(), "kept");
    assert_eq!(fs::read_to_string(&existing).unwrap(), "kept too");

    let sessions = SessionDir::new(&dir.0).unwrap();
    let (id, log) = sessions.create("mcp").unwrap();
    assert_eq!(log.path(), sessions.path_of(&id).unwrap());
    assert_eq!(fs::read_to_string(log.path()).unwrap(), HEADER);
}

// Regression: a FIFO hung the open forever; /dev/zero was read until memory ran out.
#[test]
fn special_files_are_refused_at_open_without_blocking() {
    let dir = TempDir::new("special");
    let fifo = dir.file("fifo.jsonl");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    for (path, kind) in [
        (fifo.as_path(), "a FIFO"),
        (Path::new("/dev/zero"), "a character device"),
        (dir.0.as_path(), "a directory"),
    ] {
        for mode in [OpenMode::Read, OpenMode::Write] {
            match open(path, mode) {
                Err(SessionError::NotALog { reason, .. }) => {
                    assert_eq!(reason, format!("it is {kind}, not a regular file"));
                }
                other => panic!("{path:?} as {mode:?}: {other:?}"),
            }
        }
    }
}

// Regression: a torn tail of any length was read into memory whole.
#[test]
fn a_line_longer_than_the_limit_is_refused_without_reading_it_whole() {
    let dir = TempDir::new("long");
    let path = dir.file("s.jsonl");
    let mut bytes = format!("{HEADER}{}", event_line(1)).into_bytes();
    let keep = bytes.len() as u64;
    fs::write(&path, &bytes).unwrap();
    // A sparse tail of 8 GiB of zeros: no disk, and no newline.
    let file = fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(keep + (8 << 30)).unwrap();
    drop(file);
    for mode in [OpenMode::Read, OpenMode::Write] {
        match open(&path, mode) {
            Err(SessionError::Corrupt {
                line: 3, reason, ..
            }) => assert_eq!(
                reason,
                format!("longer than the {MAX_LINE_BYTES} bytes a log line may have")
            ),
            other => panic!("{mode:?}: {other:?}"),
        }
    }
    assert_eq!(fs::metadata(&path).unwrap().len(), keep + (8 << 30));
    // A writer refuses an event it could not read back.
    bytes.truncate(keep as usize);
    fs::write(&path, &bytes).unwrap();
    let session = Session::open("s", open(&path, OpenMode::Write).unwrap()).unwrap();
    let huge = "x".repeat(MAX_LINE_BYTES);
    assert!(matches!(
        session.append("n/x", &huge),
        Err(SessionError::TooLarge { .. })
    ));
    assert_eq!(session.append("n/x", &2).unwrap(), 2);
}

// Regression: a time that passed open's quick check failed only later readers.
#[test]
fn a_log_has_one_verdict_however_it_is_read() {
    let dir = TempDir::new("verdict");
    let path = dir.file("s.jsonl");
    let bad_time = "{\"seq\":1,\"kind\":\"n/x\",\"data\":1,\"time\":\"xxxxxxxxxxxxxxxxxxxxZ\"}\n";
    fs::write(&path, format!("{HEADER}{bad_time}{}", event_line(2))).unwrap();
    for mode in [OpenMode::Read, OpenMode::Write] {
        match open(&path, mode) {
            Err(SessionError::Corrupt {
                line: 2, reason, ..
            }) => {
                assert!(reason.starts_with("bad time"), "{reason}");
            }
            other => panic!("{mode:?}: {other:?}"),
        }
    }
}

#[test]
fn what_an_error_quotes_from_a_log_cannot_drive_a_terminal() {
    let dir = TempDir::new("quoted");
    let path = dir.file("s.jsonl");
    let hostile =
        "{\"seq\":1,\"kind\":\"n/x\",\"data\":1,\"time\":\"\\u001b]52;c;aGk=\\u0007\\u001b[2J\"}\n";
    fs::write(&path, format!("{HEADER}{hostile}")).unwrap();
    let message = open(&path, OpenMode::Read).unwrap_err().to_string();
    assert!(!message.chars().any(char::is_control), "{message:?}");
    assert!(message.contains("line 2"), "{message}");
    assert!(message.contains("\\u{1b}]52"), "{message}");
}

#[test]
fn a_session_directory_that_is_a_file_says_so() {
    match SessionDir::new("/dev/null") {
        Err(error) => assert_eq!(
            error.to_string(),
            "session directory /dev/null is not a directory"
        ),
        Ok(_) => panic!("/dev/null is a session directory"),
    }
}

// Regression (an attack round): anything after a valid event start was taken for a torn
// append and cut, NULs and invalid UTF-8 included.
#[test]
fn bytes_no_append_can_leave_are_never_cut() {
    let dir = TempDir::new("not-torn");
    let path = dir.file("s.jsonl");
    let complete = format!("{HEADER}{}", event_line(1));
    let start = "{\"seq\":2,\"kind\":\"";
    for damage in [
        format!("{start}\u{0}"),
        format!("{start}k\"}}}}GARBAGE"),
        format!("{start}k\",\"data\":1}}"),
        format!("{start}k\",\"data\":x"),
    ] {
        let mut bytes = complete.clone().into_bytes();
        bytes.extend_from_slice(damage.as_bytes());
        fs::write(&path, &bytes).unwrap();
        assert!(
            matches!(
                open(&path, OpenMode::Write),
                Err(SessionError::Corrupt { line: 3, .. })
            ),
            "{damage:?}"
        );
        assert_eq!(fs::read(&path).unwrap(), bytes, "{damage:?}");
    }
    let mut bytes = complete.clone().into_bytes();
    bytes.extend_from_slice(start.as_bytes());
    bytes.extend_from_slice(b"k\xff\xfe");
    fs::write(&path, &bytes).unwrap();
    assert!(open(&path, OpenMode::Write).is_err());
    assert_eq!(fs::read(&path).unwrap(), bytes);
    // A character cut in the middle is what a torn append can leave: it is cut off.
    let mut bytes = complete.clone().into_bytes();
    bytes.extend_from_slice(start.as_bytes());
    bytes.extend_from_slice(&"ü".as_bytes()[..1]);
    fs::write(&path, &bytes).unwrap();
    assert!(open(&path, OpenMode::Write).unwrap().torn_tail().is_some());
    assert_eq!(fs::read_to_string(&path).unwrap(), complete);
}

// Regression (an attack round): a writer appended at the end it remembered after the file was
// cut under it (copy-and-truncate), leaving a hole of NULs that made the log unreadable.
#[test]
fn a_writer_notices_a_file_changed_under_it() {
    let dir = TempDir::new("changed");
    let path = dir.file("s.jsonl");
    let session = Session::open("s", open(&path, OpenMode::Write).unwrap()).unwrap();
    session.append("n/x", &1).unwrap();
    fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(0)
        .unwrap();
    match session.append("n/x", &2) {
        Err(error @ SessionError::Changed { .. }) => {
            assert!(error.to_string().ends_with("reopen the session"), "{error}");
        }
        other => panic!("{other:?}"),
    }
    assert!(session.append("n/x", &3).is_err());
    assert_eq!(fs::metadata(&path).unwrap().len(), 0);
}

// Regression (an attack round): opening took time quadratic in the number of kinds.
#[test]
fn many_kinds_open_in_linear_time() {
    let dir = TempDir::new("kinds");
    let path = dir.file("s.jsonl");
    let mut text = String::from(HEADER);
    for seq in 1..=50_000u64 {
        text.push_str(&format!(
            "{{\"seq\":{seq},\"kind\":\"k/{seq}\",\"data\":0,\"time\":\"2026-01-01T00:00:00.000000Z\"}}\n"
        ));
    }
    fs::write(&path, text).unwrap();
    let session = Session::open("s", open(&path, OpenMode::Read).unwrap()).unwrap();
    assert_eq!(session.next_seq(), 50_001);
    assert_eq!(session.latest("k/49999").unwrap().seq, 49_999);
}
