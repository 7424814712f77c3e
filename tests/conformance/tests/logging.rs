//! What a tool logs through its `Logger`, as the official Python MCP client hears it over stdio
//! (`log_messages.py`): every message in order while the call runs, none below the level the client
//! set with `logging/setLevel`.

use std::path::Path;

#[test]
fn the_python_sdk_client_hears_what_a_tool_logs_from_the_level_it_set() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/log_messages.py");
    test_support::python_passes(
        &script,
        [("CONFORMANCE_HOST", env!("CARGO_BIN_EXE_conformance-host"))],
        "logging: all checks passed",
    );
}
