//! Subscriptions to resources, as the official Python MCP client meets them over stdio
//! (`subscriptions.py`): a change the host says reaches a subscribed client, and only while it
//! is subscribed.

use std::path::Path;
use std::process::Command;

#[test]
fn the_python_sdk_client_hears_the_changes_of_the_resources_it_subscribed_to() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/subscriptions.py");
    let output = Command::new(test_support::python())
        .arg(script)
        .env("CONFORMANCE_HOST", env!("CARGO_BIN_EXE_conformance-host"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("subscriptions: all checks passed"),
        "{stdout}\n{stderr}"
    );
}
