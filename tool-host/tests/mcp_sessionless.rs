//! The official Python MCP client with its defaults (2026-07-28, stateless, no `Agent-Session`
//! header) calls todo_write over `toolhost mcp --http`: each call that names no session runs in
//! one the server begins, the handle in the result's `_meta` continues it, and no two callers'
//! lists mix in the store. (On PostgreSQL through two replicas: `mcp_http_replicas.rs`.)

mod http;
mod python;

use http::{HttpServer, tool_result};

#[test]
fn the_python_sdk_default_client_calls_todo_write_with_no_header() {
    let dir = Scratch::new("default");
    let server = HttpServer::start(&["--session-dir", dir.path()]);
    let expected = python::sessionless(&server.url);
    assert_eq!(expected.len(), 3 + 16, "{expected:?}");
    // Each handle is one file of the session directory, holding the list its caller wrote
    // and no other; nothing else was begun (the unknown tool began no session).
    let mut files: Vec<String> = std::fs::read_dir(&dir.0)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut named: Vec<String> = expected
        .iter()
        .map(|(handle, _)| format!("{handle}.jsonl"))
        .collect();
    named.sort();
    assert_eq!(files, named);
    for (handle, list) in &expected {
        let file = dir.0.join(format!("{handle}.jsonl"));
        assert_eq!(
            python::replayed(file.to_str().unwrap(), None),
            Ok(list.clone()),
            "{handle}"
        );
    }
    let (status, stderr) = server.stop();
    assert!(status.success(), "{stderr}");
}

#[test]
fn a_call_naming_its_session_gets_no_handle_and_keeps_its_name() {
    // (A tool that takes no session, called with none, runs without one: the author crate's
    // `mcp_client.py`.)
    let dir = Scratch::new("named");
    let server = HttpServer::start(&["--session-dir", dir.path()]);
    let message = server.call(
        "named",
        1,
        r#"{"todos":[{"content":"a","status":"pending"}]}"#,
    );
    assert_eq!(
        tool_result(&message),
        (
            "Updated todo list: 1 pending, 0 in progress, 0 completed".to_owned(),
            false
        )
    );
    assert!(message["result"].get("_meta").is_none(), "{message}");
    let files: Vec<_> = std::fs::read_dir(&dir.0).unwrap().collect();
    assert_eq!(files.len(), 1);
    assert!(dir.0.join("named.jsonl").exists());
}

/// A directory of its own under the system's temporary one, removed when dropped.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!(
            "toolhost-sessionless-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
