//! Compile tests and cross-crate integration tests for the `#[tool]` framework.

pub mod bench;
pub mod rooms;
pub mod sdk;

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

/// The guides' examples (`docs/`), compiled and run as doctests: one item per guide, so a
/// failure names its file.
#[cfg(doctest)]
pub mod guides {
    macro_rules! guides {
        ($($name:ident = $file:literal),* $(,)?) => {
            $(
                #[doc = include_str!(concat!("../../docs/", $file))]
                pub struct $name;
            )*
        };
    }
    guides! {
        Toolhost = "toolhost.md",
        Tools = "tools.md",
        Hosts = "hosts.md",
        Mcp = "mcp.md",
        Acp = "acp.md",
        Agent = "agent.md",
        Definitions = "definitions.md",
        Sessions = "sessions.md",
        Robustness = "robustness.md",
    }
}

/// Tools compiled under strict rustc lints and every clippy group (CI runs clippy with
/// `-D warnings`), so the code `#[tool]` generates stays quiet under them without allowing any.
#[deny(
    clippy::pedantic,
    clippy::nursery,
    clippy::all,
    unused_qualifications,
    unused_results,
    missing_docs
)]
pub mod strict {
    use tool_runtime::{Agent, Exec, Service, ToolError, tool};

    /// A host service.
    #[derive(Debug)]
    pub struct Greeting(pub String);

    /// Greets someone.
    #[allow(
        clippy::missing_errors_doc,
        reason = "the doc comment is the model's description"
    )]
    // The function is the author's, left as written: pedantic's by-value lint is theirs to settle
    // (the runtime hands every argument over as the function's own).
    #[allow(
        clippy::needless_pass_by_value,
        reason = "a tool receives its arguments by value"
    )]
    #[tool]
    pub fn greet(
        greeting: Service<Greeting>,
        agent: Option<Agent>,
        exec: &Exec,
        /// Who to greet.
        name: String,
        /// How many times.
        times: Option<u8>,
    ) -> Result<String, ToolError> {
        let _ = (agent, exec);
        Ok(format!("{} {name}", greeting.0).repeat(usize::from(times.unwrap_or(1))))
    }

    /// Waits, then answers.
    #[tool]
    pub async fn later(agent: Agent) -> String {
        std::future::ready(()).await;
        agent.id().to_owned()
    }
}
