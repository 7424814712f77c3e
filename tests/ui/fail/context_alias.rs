use tool_runtime::{Agent, tool};

type Boss = Agent;

/// Names the owner.
#[tool]
fn owner(
    /// The owner.
    agent: Boss,
) -> String {
    agent.id().to_owned()
}

fn main() {}
