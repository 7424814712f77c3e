//! The author's tools behind toolhost's command line: `author-host mcp`, `author-host call`, …

use std::process::ExitCode;

fn main() -> ExitCode {
    tool_host::Host::new("author-host")
        .plugin::<author_crate::WeatherTool>()
        .plugin::<author_crate::Outlook>()
        .plugin::<author_crate::Nap>()
        .plugin::<author_crate::Tally>()
        .plugin::<author_crate::Survey>()
        .plugin::<author_crate::Chart>()
        .plugin::<author_crate::BumpTool>()
        .plugin::<author_crate::Whoami>()
        .main()
}
