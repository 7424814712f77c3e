//! `conformance-client URL`: the framework's MCP client (the toolsets client behind
//! `toolhost agent --mcp`) as the conformance suite's client scenarios drive one. It reaches
//! the server at URL, lists its tools and calls the first with `{"a": 2, "b": 3}`, as the
//! suite's reference client does; the scenario (`MCP_CONFORMANCE_SCENARIO`) judges what it
//! sent. It exits 1 when the server cannot be had, printing why.

use std::process::ExitCode;

use tool_mcp::toolsets::{McpServer, Toolsets};
use tool_runtime::{Exec, ToolRegistry};

fn main() -> ExitCode {
    let Some(url) = std::env::args().nth(1) else {
        eprintln!("usage: conformance-client URL");
        return ExitCode::from(2);
    };
    let server = McpServer::http(url).unchecked();
    let toolsets = match Toolsets::connect_as(
        vec![server],
        "conformance-client",
        env!("CARGO_PKG_VERSION"),
    ) {
        Ok(toolsets) => toolsets,
        Err(error) => {
            eprintln!("conformance-client: {error}");
            return ExitCode::FAILURE;
        }
    };
    let first = toolsets.names().next().map(str::to_owned);
    if let Some(name) = first {
        let tools = match toolsets.registry(&ToolRegistry::default()) {
            Ok(tools) => tools,
            Err(error) => {
                eprintln!("conformance-client: {error}");
                return ExitCode::FAILURE;
            }
        };
        let out = tools
            .call(&name, &Exec::new(), r#"{"a": 2, "b": 3}"#)
            .wait();
        println!("{name}: {out}");
    }
    ExitCode::SUCCESS
}
