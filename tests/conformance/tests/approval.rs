//! A `needs_approval` tool served over MCP, as the official Python MCP client meets it
//! (`approval.py`): over stdio the person is asked through the client's elicitation and the
//! tool runs only on their acceptance; a declined or dismissed question, a client with no
//! elicitation, and the stateless HTTP era (no server-to-client request) each get a refusal the
//! model can act on, and the tool does not run.

mod host;

use std::path::Path;

#[test]
fn a_tool_that_needs_approval_runs_only_when_the_person_asked_through_the_client_accepts() {
    let dir = host::Scratch::new("approval");
    let host = host::serve(&dir.0, &[]);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/approval.py");
    test_support::python_passes(
        &script,
        [
            ("CONFORMANCE_HOST", env!("CARGO_BIN_EXE_conformance-host")),
            ("CONFORMANCE_URL", host.url.as_str()),
        ],
        "approval: all checks passed",
    );
    drop(host);
}
