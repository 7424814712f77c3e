//! The author's tools served as `author-host mcp` (toolhost's command line on a host of the
//! author's own) and driven by the official Python MCP client (`mcp_client.py`).

use std::path::Path;
use std::process::Command;

#[test]
fn the_python_sdk_client_sees_schemas_annotations_structured_results_progress_and_cancellation() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The Python with the MCP SDK: the workspace's test run names it, else the first on PATH.
    let python = std::env::var_os("AUTHOR_CRATE_PYTHON").unwrap_or_else(|| "python3".into());
    let output = Command::new(&python)
        .arg(here.join("tests/mcp_client.py"))
        .env("AUTHOR_HOST", env!("CARGO_BIN_EXE_author-host"))
        .output()
        .unwrap_or_else(|error| panic!("{}: {error}", python.to_string_lossy()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("author host mcp: all checks passed"),
        "{stdout}\n{stderr}"
    );
}
