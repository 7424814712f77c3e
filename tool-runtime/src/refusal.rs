//! Every text the runtime answers a model with on a tool's behalf: the shared argument-error
//! format (`invalid arguments: <path>: <problem>`), an unknown tool, a context parameter the call
//! cannot fill, a panic. The sentence frames live here and nowhere else; the problems inside an
//! argument error (`expected …, got …`) come from [`args::check`](crate::args), in the schema's
//! words.

use std::any::Any;
use std::fmt;

use crate::output::ToolOutput;
use crate::session::Session;
use crate::text::quote;

/// `invalid arguments: <path>: <problem>`, or without the path for the arguments as a whole.
pub(crate) fn invalid_args(path: &str, problem: impl fmt::Display) -> ToolOutput {
    if path.is_empty() {
        ToolOutput::error(format_args!("invalid arguments: {problem}"))
    } else {
        ToolOutput::error(format_args!("invalid arguments: {path}: {problem}"))
    }
}

/// The arguments are not JSON: serde_json's message, with its position.
pub(crate) fn malformed_args(error: &serde_json::Error) -> ToolOutput {
    invalid_args("", format_args!("malformed JSON: {error}"))
}

/// The arguments are over the host's cap.
pub(crate) fn args_too_large(len: usize, max: usize) -> ToolOutput {
    invalid_args(
        "",
        format_args!("{len} bytes is more than the limit of {max} bytes"),
    )
}

/// No tool has this name.
pub(crate) fn unknown_tool<'a>(name: &str, available: impl Iterator<Item = &'a str>) -> ToolOutput {
    let available: Vec<&str> = available.collect();
    let available = if available.is_empty() {
        "none".to_owned()
    } else {
        available.join(", ")
    };
    ToolOutput::error(format_args!(
        "unknown tool {}; available tools: {available}",
        quote(name)
    ))
}

/// The tool takes an `Agent` and the call has no owning agent.
pub(crate) fn requires_agent(tool: &str) -> ToolOutput {
    ToolOutput::error(format_args!("{tool} requires an owning agent session"))
}

/// The tool takes a `Service<T>` the host does not provide.
pub(crate) fn missing_service(tool: &str, service: &str) -> ToolOutput {
    ToolOutput::error(format_args!(
        "{tool} needs the host service `{service}`, which this host does not provide"
    ))
}

/// The tool panicked: its panic message, when it has one.
pub(crate) fn panicked(tool: &str, payload: &(dyn Any + Send)) -> ToolOutput {
    let message = panic_message(payload);
    ToolOutput::error(format_args!("{tool} panicked: {message}"))
}

/// A panic's message, when it has one.
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("no message")
}

/// The host cancelled the call.
pub(crate) fn cancelled(tool: &str) -> ToolOutput {
    ToolOutput::error(format_args!("{tool} was cancelled"))
}

/// The call ran past its deadline.
pub(crate) fn timed_out(tool: &str, after: std::time::Duration) -> ToolOutput {
    ToolOutput::error(format_args!(
        "{tool} timed out after {}",
        tool_text::seconds(after)
    ))
}

/// A deadline could not be kept: the runtime that polls the call has no timer.
pub(crate) fn no_timer(tool: &str) -> ToolOutput {
    ToolOutput::error(format_args!(
        "{tool} has a timeout, and the tokio runtime running it has no timer (build it with `enable_time`)"
    ))
}

/// The result is over the host's cap: it is dropped, and the model is told so.
pub(crate) fn result_too_large(tool: &str, size: usize, max: usize) -> ToolOutput {
    ToolOutput::error(format_args!(
        "{tool} returned {size} bytes, more than the limit of {max} bytes; the result was dropped"
    ))
}

/// A successful result over the host's cap, of a call that recorded events in its session: the
/// call ran and what it did is kept, so the model is told that, not that it failed (which would
/// invite it to do the work again).
pub(crate) fn ran_result_too_large(tool: &str, size: usize, max: usize) -> ToolOutput {
    ToolOutput::success(format!(
        "{tool} ran and its work is recorded, but its result of {size} bytes is more than the \
         limit of {max} bytes; the result was dropped"
    ))
}

/// `output`, or the note that replaces it when it is larger than `max` bytes. `recorded` is
/// the call's session and the seq its next event had before the call.
pub(crate) fn capped(
    tool: &str,
    output: ToolOutput,
    max: usize,
    recorded: Option<(&Session, u64)>,
) -> ToolOutput {
    let size = output.size();
    if size <= max {
        return output;
    }
    match recorded {
        Some((session, before)) if !output.is_error && session.next_seq() > before => {
            ran_result_too_large(tool, size, max)
        }
        _ => result_too_large(tool, size, max),
    }
}
