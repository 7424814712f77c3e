//! `toolhost mcp` driven by a client nobody here wrote: the official Python MCP SDK's, pinned in
//! `tests/mcp/requirements.txt` and installed by `.ci/run`.

mod python;

use std::path::Path;
use std::process::Command;

use python::python;

#[test]
fn the_python_sdk_client_lists_and_calls_todo_write() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = python();
    let probe = Command::new(&python).args(["-c", "import mcp"]).output();
    match probe {
        Ok(output) if output.status.success() => {}
        _ => panic!(
            "the Python MCP client is missing: `bash .ci/run` installs it, or \
             `python3 -m venv target/venv && target/venv/bin/pip install -r {}`",
            here.join("tests/mcp/requirements.txt").display()
        ),
    }
    let output = Command::new(python)
        .arg(here.join("tests/mcp/client.py"))
        .env("TOOLHOST", env!("CARGO_BIN_EXE_toolhost"))
        .env(
            "SPEC_DESCRIPTION_FILE",
            here.join("../tool-todo/src/todo_write.description.txt"),
        )
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("python mcp client: all checks passed"),
        "{stdout}\n{stderr}"
    );
}
