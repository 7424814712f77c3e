//! Subscriptions to resources, as the official Python MCP client meets them over stdio
//! (`subscriptions.py`): a change the host says reaches a subscribed client, and only while it
//! is subscribed.

use std::path::Path;

#[test]
fn the_python_sdk_client_hears_the_changes_of_the_resources_it_subscribed_to() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/subscriptions.py");
    test_support::python_passes(
        &script,
        [("CONFORMANCE_HOST", env!("CARGO_BIN_EXE_conformance-host"))],
        "subscriptions: all checks passed",
    );
}
