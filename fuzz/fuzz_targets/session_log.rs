//! Any bytes as a session log file: opening it either replays events (seqs from 1 without gaps,
//! the same events however they are read, a file a writer can append to) or fails with a clear
//! error about the log — never a panic, never an I/O error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_runtime::session::{Durability, JsonlLog, OpenMode};
use tool_runtime::{Session, SessionError};

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("fuzz-session-log-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s.jsonl");
    std::fs::write(&path, data).unwrap();
    match JsonlLog::open(&path, OpenMode::Read, Durability::Flush) {
        Err(
            SessionError::Corrupt { .. } | SessionError::Format { .. } | SessionError::NotALog { .. },
        ) => {}
        Err(other) => panic!("unexpected error: {other}"),
        Ok(log) => {
            let torn = log.torn_tail().is_some();
            let session = Session::open("fuzz", log).unwrap();
            let events = session.events_from(1).unwrap();
            let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
            assert_eq!(seqs, (1..session.next_seq()).collect::<Vec<_>>());
            for event in &events {
                assert_eq!(session.latest(&event.kind).unwrap().seq >= event.seq, true);
            }
            // A writer repairs the file and can append after the last event.
            let log = JsonlLog::open(&path, OpenMode::Write, Durability::Flush).unwrap();
            assert_eq!(log.torn_tail().is_some(), torn);
            let writer = Session::open("fuzz", log).unwrap();
            let seq = writer.append("fuzz/x", &1).unwrap();
            assert_eq!(seq, events.len() as u64 + 1);
            drop(writer);
            let reopened = Session::open(
                "fuzz",
                JsonlLog::open(&path, OpenMode::Read, Durability::Flush).unwrap(),
            )
            .unwrap();
            let again = reopened.events_from(1).unwrap();
            assert_eq!(&again[..events.len()], &events[..]);
        }
    }
});
