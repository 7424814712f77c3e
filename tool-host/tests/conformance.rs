//! `toolhost mcp --http` (todo_write alone) judged by the official MCP conformance suite, in
//! both protocol eras: every scenario that needs no fixture tool passes every check. The
//! fixture scenarios run against `conformance-host` (`tests/conformance`).

mod http;

use http::HttpServer;
use test_support::conformance;

/// The scenarios a server of todo_write alone serves: the lifecycle of each era, ping, the
/// listing, the SSE streams, the headers of the stateless era, DNS-rebinding protection, and
/// the answer to a read of a resource that does not exist.
const SERVED: &[&str] = &[
    "server-initialize",
    "server-session-lifecycle",
    "ping",
    "tools-list",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
    "http-header-validation",
    "logging-set-level",
    "sep-2164-resource-not-found",
];

#[test]
fn the_conformance_suite_passes_toolhost_on_every_scenario_it_serves() {
    let dir = std::env::temp_dir().join(format!("toolhost-conformance-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let server = HttpServer::start(&["--session-dir", dir.to_str().unwrap()]);
    for (name, args) in [
        ("toolhost-2026-07-28", &["--requirements", "2026-07-28"][..]),
        ("toolhost-2025-11-25", &["--requirements", "2025-11-25"][..]),
        ("toolhost-all", &["--suite", "all"][..]),
    ] {
        let run = conformance::server(&server.url, args);
        conformance::hold(name, &run, SERVED);
    }
    let (status, stderr) = server.stop();
    assert!(status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
