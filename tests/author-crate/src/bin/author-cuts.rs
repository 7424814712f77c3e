//! The author's small cuts behind toolhost's command line: `author-cuts mcp`, `author-cuts schema`.

use std::process::ExitCode;

use author_crate::cuts;

fn main() -> ExitCode {
    tool_host::Host::new("author-cuts")
        .plugin::<cuts::Page>()
        .plugin::<cuts::Reset>()
        .plugin::<cuts::Forget>()
        .plugin::<cuts::Explode>()
        .plugin::<cuts::Tag>()
        .main()
}
