//! An author's crate outside the workspace (`tests/author-crate`), depending on tool-runtime by
//! path only, builds and passes its own tests: constrained newtypes, parameter attributes and a
//! renamed tool type, called as a host calls them.

use std::path::Path;
use std::process::Command;

#[test]
fn an_outside_crate_builds_and_its_tools_hold_their_schemas() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let manifest = root.join("tests/author-crate/Cargo.toml");
    // The workspace's lock file, so the outside crate resolves the same versions, offline.
    std::fs::copy(
        root.join("Cargo.lock"),
        root.join("tests/author-crate/Cargo.lock"),
    )
    .unwrap();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["test", "--offline", "--quiet", "--manifest-path"])
        .arg(&manifest)
        .env("CARGO_TARGET_DIR", root.join("target/author-crate"))
        // The Python with the MCP SDK that `.ci/run` installs, for the crate's MCP client test.
        .env("AUTHOR_CRATE_PYTHON", test_support::python())
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    // Its test binaries: dispatch (3), tools (3), mcp (1), cuts (3), schemas (2), guarded (2),
    // owned (2).
    for passed in ["3 passed", "1 passed", "2 passed"] {
        assert!(stdout.contains(passed), "{stdout}");
    }
    // Its tools compile without a warning.
    assert!(!stderr.contains("warning"), "{stderr}");
}
