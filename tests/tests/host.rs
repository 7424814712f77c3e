//! `tool_host::Host` serving tools of an author's own, as the README shows.

use std::process::ExitCode;

use tool_host::Host;
use tool_runtime::{Exec, LoadError, Service, ToolError, tool};

/// How many sides a die may have, set by the host.
pub struct MaxSides(pub u32);

/// Rolls a die.
#[tool]
pub fn roll(
    max: Service<MaxSides>,
    /// How many sides the die has.
    sides: u32,
) -> Result<String, ToolError> {
    if sides == 0 || sides > max.0 {
        return Err(ToolError::new(format!("a die has 1 to {} sides", max.0)));
    }
    Ok(format!("rolled a {sides}-sided die"))
}

#[test]
fn a_host_serves_its_plugins_with_its_services_whatever_the_order() {
    let ctx = Host::new("dice")
        .plugin::<Roll>()
        .plugin::<tool_todo::TodoWrite>()
        .provide(MaxSides(100))
        .ctx()
        .unwrap();
    assert_eq!(
        ctx.tools.names().collect::<Vec<_>>(),
        ["roll", "todo_write"]
    );
    let out = ctx
        .tools
        .call("roll", &Exec::new(), r#"{"sides": 1000}"#)
        .wait();
    assert_eq!(out.text, "Error: a die has 1 to 100 sides");
}

#[test]
fn a_plugin_that_cannot_be_loaded_stops_the_host() {
    match Host::new("dice").plugin::<Roll>().ctx() {
        Err(LoadError::MissingService { plugin, .. }) => assert_eq!(plugin, "roll"),
        other => panic!("{other:?}"),
    }
    let code = Host::new("dice")
        .plugin::<Roll>()
        .run(["dice", "call", "roll", r#"{"sides": 6}"#]);
    assert_eq!(code, ExitCode::from(3));
}

#[test]
fn the_command_line_is_the_hosts() {
    let host = || Host::new("dice").plugin::<Roll>().provide(MaxSides(6));
    assert_eq!(
        host().run(["dice", "call", "roll", r#"{"sides": 6}"#]),
        ExitCode::SUCCESS
    );
    assert_eq!(
        host().run(["dice", "call", "roll", r#"{"sides": 7}"#]),
        ExitCode::FAILURE
    );
    assert_eq!(
        host().run(["dice", "call", "nope", "{}"]),
        ExitCode::from(2)
    );
    assert_eq!(host().run(["dice", "bogus"]), ExitCode::from(2));
}

/// Keeps settings: a map, which Gemini cannot declare.
#[tool(allow_undocumented)]
fn settings(values: std::collections::HashMap<String, String>) -> String {
    values.len().to_string()
}

#[test]
fn a_host_that_states_its_dialects_stops_on_a_tool_that_cannot_render_in_one() {
    use tool_runtime::Dialect;
    let error = Host::new("dice")
        .plugin::<Settings>()
        .dialects(&[Dialect::Anthropic, Dialect::Gemini])
        .ctx()
        .unwrap_err();
    assert!(
        matches!(&error, LoadError::Dialect(e) if e.tool == "settings" && e.dialect == Dialect::Gemini),
        "{error}"
    );
    assert_eq!(
        Host::new("dice")
            .plugin::<Settings>()
            .dialects(&[Dialect::Anthropic, Dialect::Gemini])
            .run(["dice", "sizes"]),
        ExitCode::from(3)
    );
    // Stating none, it serves.
    let ctx = Host::new("dice").plugin::<Settings>().ctx().unwrap();
    assert_eq!(ctx.tools.names().collect::<Vec<_>>(), ["settings"]);
}
