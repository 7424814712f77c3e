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

#[test]
fn the_host_goes_by_its_own_name_everywhere() {
    let state = std::env::temp_dir().join(format!("author-cuts-state-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&state);
    let host = env!("CARGO_BIN_EXE_author-cuts");
    let help = Command::new(host).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    assert!(help.contains("Usage: author-cuts"), "{help}");
    assert!(help.starts_with("The author's small cuts, served."), "{help}");
    let version = Command::new(host).arg("--version").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&version.stdout), "author-cuts 7.1.0\n");
    let sub_help = |command: &str| {
        let help = Command::new(host).args([command, "--help"]).output().unwrap();
        String::from_utf8_lossy(&help.stdout).into_owned()
    };
    let (mcp_help, repl_help) = (sub_help("mcp"), sub_help("repl"));
    assert!(repl_help.contains("Usage: author-cuts repl"), "{repl_help}");
    for text in [&help, &mcp_help, &repl_help] {
        assert!(!text.contains("toolhost"), "{text}");
    }
    // The REPL's greeting and prompt, and the default session directory.
    let mut repl = Command::new(host)
        .arg("repl")
        .env("XDG_STATE_HOME", &state)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = repl.stdin.take().unwrap();
        writeln!(stdin, "reset").unwrap();
    }
    let out = repl.wait_with_output().unwrap();
    let out = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.starts_with(&format!(
            "author-cuts repl: session {}",
            state.join("author-cuts/sessions").display()
        )),
        "{out}"
    );
    assert!(!out.contains("toolhost"), "{out}");
    // MCP's serverInfo.
    let mut mcp = Command::new(host)
        .args(["mcp", "--session-dir"])
        .arg(state.join("mcp"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = mcp.stdin.take().unwrap();
        writeln!(
            stdin,
            "{}",
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "names", "version": "1"}}})
        )
        .unwrap();
    }
    let output = mcp.wait_with_output().unwrap();
    let answer: serde_json::Value =
        serde_json::from_slice(output.stdout.split(|&b| b == b'\n').next().unwrap()).unwrap();
    assert_eq!(answer["result"]["serverInfo"]["name"], "author-cuts", "{answer}");
    assert_eq!(answer["result"]["serverInfo"]["version"], "7.1.0", "{answer}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.starts_with("author-cuts mcp: session "), "{stderr}");
}
