//! Any bytes as a file a writer opens as a session log (`toolhost call|mcp|repl --session FILE`):
//! the writer either refuses it and leaves every byte as it was, or takes it as a log, cutting
//! at most a torn last line that is provably the start of the header or of the next event, and
//! appends after the last event. Readers and writers reach the same verdict on the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_runtime::session::{Durability, JsonlLog, OpenMode};
use tool_runtime::{Session, SessionError};

const HEADER: &[u8] = b"{\"format\":\"tool-session\",\"version\":1}\n";

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("fuzz-session-writer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s.jsonl");
    std::fs::write(&path, data).unwrap();
    let read_verdict = JsonlLog::open(&path, OpenMode::Read, Durability::Flush).map(|log| {
        let session = Session::open("fuzz", log).unwrap();
        session.next_seq()
    });
    match JsonlLog::open(&path, OpenMode::Write, Durability::Flush) {
        Err(
            error @ (SessionError::NotALog { .. }
            | SessionError::Corrupt { .. }
            | SessionError::Format { .. }),
        ) => {
            // Refused: not one byte changed, and a reader refuses it too.
            assert_eq!(std::fs::read(&path).unwrap(), data, "{error}");
            assert!(read_verdict.is_err(), "a reader took what a writer refused: {error}");
            assert!(!error.to_string().chars().any(char::is_control), "{error}");
        }
        Err(other) => panic!("unexpected error: {other}"),
        Ok(log) => {
            let torn = log.torn_tail().map_or(0, |torn| torn.len as usize);
            let next_seq = read_verdict.expect("a reader refused what a writer took");
            let session = Session::open("fuzz", log).unwrap();
            assert_eq!(session.next_seq(), next_seq);
            let kept = std::fs::read(&path).unwrap();
            if data.len() == torn {
                // Nothing complete: empty, or a torn header; the writer wrote the header.
                assert!(HEADER.starts_with(data));
                assert_eq!(kept, HEADER);
            } else {
                // Only the torn tail was cut, and it was the start of the next event's line.
                assert_eq!(kept, &data[..data.len() - torn]);
                let expected = format!("{{\"seq\":{next_seq},\"kind\":\"");
                let tail = &data[data.len() - torn..];
                assert!(
                    expected.as_bytes().starts_with(tail) || tail.starts_with(expected.as_bytes())
                );
            }
            assert_eq!(session.append("fuzz/x", &1).unwrap(), next_seq);
            drop(session);
            let reopened = Session::open(
                "fuzz",
                JsonlLog::open(&path, OpenMode::Read, Durability::Flush).unwrap(),
            )
            .unwrap();
            assert_eq!(reopened.next_seq(), next_seq + 1);
        }
    }
});
