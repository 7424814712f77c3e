//! The author's small cuts behind toolhost's command line: `author-cuts mcp`, `author-cuts schema`.

use std::process::ExitCode;

use author_crate::cuts;

fn main() -> ExitCode {
    tool_host::Host::new("author-cuts")
        .about("The author's small cuts, served.")
        .version("7.1.0")
        .plugin::<cuts::Page>()
        .plugin::<cuts::Reset>()
        .plugin::<cuts::Forget>()
        .plugin::<cuts::Explode>()
        .plugin::<cuts::Tag>()
        .main()
}
