//! `FromCall` is sealed: `#[tool]` reads context parameters by how they are spelled, so an
//! implementation for another type could never be used.
use tool_runtime::{FromCall, Invocation, ToolOutput};

struct Clock;

impl<'a> FromCall<'a> for Clock {
    fn from_call(_: &Invocation<'a>) -> Result<Self, ToolOutput> {
        Ok(Clock)
    }
}

fn main() {}
