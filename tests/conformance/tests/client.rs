//! The framework's MCP client (the toolsets client behind `toolhost agent --mcp`, through the
//! `conformance-client` binary) judged by the official conformance suite's client scenarios,
//! in both protocol eras: every scenario it serves passes every check, OAuth's among them (the
//! authorization code flow, the person's browser played by a request whose redirect is read).

use std::path::Path;

use test_support::conformance;

/// What the client serves: the lifecycle of each era, a tool call, SSE's reconnection after a
/// stream ends (`retry`), forms answered with their defaults, the stateless era's `_meta` and
/// headers (standard ones, arguments mirrored in `Mcp-Param-*`, tools whose headers are
/// invalid), rounds of questions with their state, schemas kept as written, and OAuth:
/// metadata discovery in each of its forms, registration (dynamic, by metadata document,
/// pre-registered), the token endpoint's ways of authenticating, scopes (from the challenge,
/// from the metadata, none, stepped up when a call needs more), the retry limit, the resource and
/// issuer checks, offline access, an authorization server that moves; and the grants with no
/// browser (the client's secret or private-key JWT, a workload's identity token, an enterprise
/// ID token exchanged for an ID-JAG), and DPoP-bound tokens (proofs at the token endpoint and
/// on every request, nonces from either server).
const SERVED: &[&str] = &[
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-retry-limit",
    "auth/scope-step-up",
    "auth/authorization-server-migration",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/iss-supported",
    "auth/iss-not-advertised",
    "auth/iss-supported-missing",
    "auth/iss-wrong-issuer",
    "auth/iss-unexpected",
    "auth/iss-normalized",
    "auth/metadata-issuer-mismatch",
    "auth/client-credentials-basic",
    "auth/client-credentials-jwt",
    "auth/wif-jwt-bearer",
    "auth/enterprise-managed-authorization",
    "auth/dpop",
    "auth/dpop-nonce",
    "initialize",
    "tools_call",
    "sse-retry",
    "elicitation-sep1034-client-defaults",
    "request-metadata",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
    "json-schema-2020-12-preservation",
];

#[test]
fn the_conformance_suite_passes_the_framework_client_on_every_scenario_it_serves() {
    let client = Path::new(env!("CARGO_BIN_EXE_conformance-client"));
    for (name, revision) in [
        ("client-2025-11-25", "2025-11-25"),
        ("client-2026-07-28", "2026-07-28"),
    ] {
        let run = conformance::client(client, &["--requirements", revision]);
        conformance::hold(name, &run, SERVED);
    }
}
