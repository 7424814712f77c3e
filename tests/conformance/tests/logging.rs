//! What a tool logs through its `Logger`, as the official Python MCP client hears it over stdio
//! (`log_messages.py`): every message in order while the call runs, none below the level the client
//! set with `logging/setLevel`.

use std::path::Path;
use std::process::Command;

#[test]
fn the_python_sdk_client_hears_what_a_tool_logs_from_the_level_it_set() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/log_messages.py");
    let output = Command::new(test_support::python())
        .arg(script)
        .env("CONFORMANCE_HOST", env!("CARGO_BIN_EXE_conformance-host"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("logging: all checks passed"),
        "{stdout}\n{stderr}"
    );
}
