//! The author's small cuts served by a host of the author's own (`author-cuts`): over MCP to the
//! official Python client (`cuts_client.py`), and `schema` in a dialect one tool cannot take.

use std::path::Path;
use std::process::Command;

#[test]
fn the_python_sdk_client_calls_defaults_unit_results_and_a_panicking_tool() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = std::env::var_os("AUTHOR_CRATE_PYTHON").unwrap_or_else(|| "python3".into());
    let output = Command::new(&python)
        .arg(here.join("tests/cuts_client.py"))
        .env("AUTHOR_CUTS", env!("CARGO_BIN_EXE_author-cuts"))
        .output()
        .unwrap_or_else(|error| panic!("{}: {error}", python.to_string_lossy()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("author cuts mcp: all checks passed"),
        "{stdout}\n{stderr}"
    );
}

#[test]
fn schema_in_a_dialect_prints_every_tool_it_can_and_names_every_one_it_cannot() {
    let output = Command::new(env!("CARGO_BIN_EXE_author-cuts"))
        .args(["schema", "--dialect", "openai-strict"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    let printed: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let names: Vec<&str> = printed
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["page", "reset", "forget", "explode"]);
    // Strict mode: every property required, the defaulted ones taking null.
    let page = &printed[0]["function"]["parameters"];
    assert_eq!(page["required"], serde_json::json!(["size", "exact"]));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(
            "author-cuts: tool `tag` cannot be expressed in the openai-strict dialect"
        ),
        "{stderr}"
    );
}
