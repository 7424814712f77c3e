//! The providers' official Python SDKs, through `tests/wire/sdk.py`: the reference the wire
//! tests hold each provider's format to.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// The Python with the SDKs (`test_support`'s).
pub use test_support::python;

/// Runs `sdk.py MODE` with `input` (JSON) on its standard input and returns what it printed.
///
/// # Panics
///
/// When the script fails: the SDKs are missing, or it refused what it was given.
pub fn run(mode: &str, input: Option<&serde_json::Value>) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("wire/sdk.py");
    let mut child = Command::new(python())
        .arg(script)
        .arg(mode)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    if let Some(input) = input {
        stdin
            .write_all(input.to_string().as_bytes())
            .expect("sdk.py reads its input");
    }
    drop(stdin);
    let output = child.wait_with_output().expect("sdk.py runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "sdk.py {mode} failed (the SDKs are installed by `.ci/run`, from tests/wire/requirements.txt):\n{stdout}\n{stderr}"
    );
    stdout
}
