//! A tool's questions in the stateless era, as the official Python MCP client meets them
//! (`rounds.py`): rounds answered by the client's callbacks, a round continued on another
//! replica that holds the same state secret, and states refused when tampered with, sealed by
//! another key, or carried to another call.

mod host;

use std::path::Path;
use std::process::Command;

#[test]
fn a_round_of_questions_continues_on_any_replica_with_the_secret_and_nowhere_else() {
    let dir = host::Scratch::new("rounds");
    let secret = dir.0.join("state-secret");
    std::fs::write(&secret, "a secret the replicas share, 32 bytes or more\n").unwrap();
    let shared = ["--state-secret".as_ref(), secret.as_os_str()];
    let a = host::serve(&dir.0, &shared);
    let b = host::serve(&dir.0, &shared);
    let stranger = host::serve(&dir.0, &[]);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rounds.py");
    test_support::python_passes(
        &script,
        [
            ("REPLICA_A", a.url.as_str()),
            ("REPLICA_B", b.url.as_str()),
            ("STRANGER", stranger.url.as_str()),
        ],
        "rounds: all checks passed",
    );
    drop((a, b, stranger));
}

#[test]
fn a_state_secret_shorter_than_32_bytes_is_refused_at_start() {
    let dir = host::Scratch::new("short-secret");
    let secret = dir.0.join("state-secret");
    std::fs::write(&secret, "too short\n").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_conformance-host"))
        .args(["mcp", "--http", "127.0.0.1:0", "--state-secret"])
        .arg(&secret)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("the state secret: request state signing key is too short"),
        "{stderr}"
    );
}
