//! The tests' Python (`test_support`'s), and the test scripts of this crate that print the port
//! they serve on.

#![allow(dead_code)]

use std::path::Path;
use std::process::Child;

pub use test_support::python;

/// A Python script of this crate's tests (`script`, from this crate's directory) started with
/// `arg`, and the port it prints first as `PORT <n>` (see [`test_support::python_with_port`]).
pub fn python_with_port(script: &str, arg: &Path, missing: &str) -> (Child, u16) {
    test_support::python_with_port(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join(script),
        arg,
        missing,
    )
}

/// `tests/mcp/sessionless.py`: the official Python MCP client with its defaults calling
/// todo_write at `url`; each session handle the server gave, with the list (JSON, `null` for
/// none) the store must hold for it.
pub fn sessionless(url: &str) -> Vec<(String, serde_json::Value)> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/sessionless.py");
    let output = std::process::Command::new(python())
        .arg(script)
        .arg(url)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let last = stdout.lines().last().unwrap_or_default();
    let expected: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(last).unwrap_or_else(|error| panic!("{error}: {stdout}\n{stderr}"));
    expected.into_iter().collect()
}

/// The list `toolhost replay … --format json` shows for `session` (a file, or an id with
/// `TOOLHOST_STORE` set to `store`), or what it said on standard error when it failed.
pub fn replayed(session: &str, store: Option<&str>) -> Result<serde_json::Value, String> {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_toolhost"));
    command.args(["replay", session, "--format", "json"]);
    if let Some(store) = store {
        command.env("TOOLHOST_STORE", store);
    }
    let output = command.output().unwrap();
    if output.status.success() {
        Ok(serde_json::from_slice(&output.stdout).unwrap())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}
