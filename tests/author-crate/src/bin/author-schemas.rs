//! Tools from a JSON file read at run time (`AUTHOR_SCHEMAS`, else the crate's `tools.json`),
//! served with toolhost's command line by a host of the author's own.

use std::process::ExitCode;

fn main() -> ExitCode {
    let path = std::env::var("AUTHOR_SCHEMAS")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/tools.json").to_owned());
    let json = match std::fs::read_to_string(&path) {
        Ok(json) => json,
        Err(error) => {
            eprintln!("author-schemas: {path}: {error}");
            return ExitCode::from(2);
        }
    };
    let tools = match author_crate::schemas::tools(&json, &path) {
        Ok(tools) => tools,
        Err(error) => {
            eprintln!("author-schemas: {error}");
            return ExitCode::from(3);
        }
    };
    let mut host = tool_host::Host::new("author-schemas")
        .about("Rooms booked by tools read from a file.")
        .version("0.3.0");
    for tool in tools {
        host = host.tool(tool);
    }
    host.main()
}
