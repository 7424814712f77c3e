//! `conformance-host mcp --http` judged by the official MCP conformance suite, in both protocol
//! eras: every scenario whose fixtures it serves passes every check.

mod host;

use test_support::conformance;

/// The scenarios of the fixtures this host serves (tools of every content kind, resources and
/// templates, prompts and their completions, caching hints, questions in rounds, tasks — the
/// tasks extension's scenarios run with `--suite all`), beside those of any server (its
/// lifecycle, ping, the listing, the streams, the headers, DNS-rebinding protection).
const SERVED: &[&str] = &[
    "server-initialize",
    "server-stateless",
    "server-session-lifecycle",
    "ping",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-error",
    "tools-call-with-progress",
    "server-sse-multiple-streams",
    "server-sse-polling",
    "dns-rebinding-protection",
    "http-header-validation",
    "http-custom-header-server-validation",
    "tools-call-with-logging",
    "logging-set-level",
    "resources-list",
    "resources-read-text",
    "resources-read-binary",
    "resources-templates-read",
    "resources-subscribe",
    "resources-unsubscribe",
    "sep-2164-resource-not-found",
    "prompts-list",
    "prompts-get-simple",
    "prompts-get-with-args",
    "prompts-get-embedded-resource",
    "prompts-get-with-image",
    "completion-complete",
    "caching",
    "json-schema-2020-12",
    "tools-call-elicitation",
    "tools-call-sampling",
    "elicitation-sep1034-defaults",
    "elicitation-sep1330-enums",
    "input-required-result-basic-elicitation",
    "input-required-result-basic-sampling",
    "input-required-result-basic-list-roots",
    "input-required-result-request-state",
    "input-required-result-multiple-input-requests",
    "input-required-result-multi-round",
    "input-required-result-missing-input-response",
    "input-required-result-result-type",
    "input-required-result-unsupported-methods",
    "input-required-result-tampered-state",
    "input-required-result-capability-check",
    "input-required-result-ignore-extra-params",
    "input-required-result-validate-input",
    "input-required-result-non-tool-request",
    "tasks-lifecycle",
    "tasks-capability-negotiation",
    "tasks-wire-fields",
    "tasks-request-state-removal",
    "tasks-mrtr-input",
    "tasks-request-headers",
    "tasks-dispatch-and-envelope",
    "tasks-status-notifications",
    "tasks-required-task-error",
    "tasks-mrtr-composition",
];

#[test]
fn the_conformance_suite_passes_the_fixture_host_on_every_scenario_it_serves() {
    let dir = host::Scratch::new("suite");
    let host = host::serve(&dir.0, &[]);
    let runs = [
        ("fixtures-2026-07-28", &["--requirements", "2026-07-28"][..]),
        ("fixtures-2025-11-25", &["--requirements", "2025-11-25"][..]),
        ("fixtures-all", &["--suite", "all"][..]),
    ];
    let mut results = Vec::new();
    for (name, args) in runs {
        let run = conformance::server(&host.url, args);
        results.push((name, run));
    }
    drop(host);
    for (name, run) in &results {
        conformance::hold(name, run, SERVED);
    }
}
