//! tool-host's features: a host that needs only the REPL and MCP (`default-features = false,
//! features = ["mcp"]`) links no database driver and no TLS; the default links all three parts.

use std::process::Command;

/// The crates tool-host links with `features` (normal dependencies, every one once).
fn linked(features: &[&str]) -> Vec<String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "tree",
            "--offline",
            "-p",
            "tool-host",
            "-e",
            "normal",
            "--prefix",
            "none",
        ])
        .args(features)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut crates: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_owned)
        .collect();
    crates.sort();
    crates.dedup();
    crates
}

const HEAVY: [&str; 5] = ["postgres", "tokio-postgres", "rustls", "ureq", "ring"];

#[test]
fn a_host_of_the_repl_and_mcp_links_no_database_driver_and_no_tls() {
    let mcp = linked(&["--no-default-features", "--features", "mcp"]);
    for heavy in HEAVY {
        assert!(!mcp.contains(&heavy.to_owned()), "{heavy} in {mcp:?}");
    }
    assert!(mcp.contains(&"rmcp".to_owned()));
    let all = linked(&[]);
    for heavy in ["postgres", "rustls", "ureq"] {
        assert!(
            all.contains(&heavy.to_owned()),
            "{heavy} missing from {all:?}"
        );
    }
    // The HTTP server is a feature of its own (`http`, on by default).
    for server in ["axum", "hyper"] {
        assert!(!mcp.contains(&server.to_owned()), "{server} in {mcp:?}");
        assert!(all.contains(&server.to_owned()), "{server} missing");
    }
    // Other MCP servers' tools in the agent are a feature of their own (`toolsets`): reqwest
    // comes with them alone.
    assert!(all.contains(&"reqwest".to_owned()), "reqwest missing");
    let agent = linked(&["--no-default-features", "--features", "agent"]);
    assert!(agent.contains(&"ureq".to_owned()));
    for client in ["reqwest", "rmcp"] {
        assert!(!agent.contains(&client.to_owned()), "{client} in {agent:?}");
        assert!(!mcp.contains(&client.to_owned()) || client == "rmcp");
    }
    assert!(mcp.len() < all.len());
    let bare = linked(&["--no-default-features"]);
    assert!(!bare.contains(&"rmcp".to_owned()));
}
