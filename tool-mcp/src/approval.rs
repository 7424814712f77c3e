//! A tool that needs a person's approval for each call (`#[tool(needs_approval)]`), served over
//! MCP: the server asks the person through the client (`elicitation/create`, a form of no
//! fields: accept or decline) before the call runs, and never runs it unasked: in the
//! `initialize` era as an `elicitation/create` request, in the stateless era as a round
//! (`InputRequiredResult`). A client that cannot ask (it declared no form elicitation) gets a
//! refusal the model can act on.

use serde_json::json;
use tool_runtime::{Answer, AskError, Asker, Form, Question, Reply, ToolOutput};

/// How much of the arguments the person is shown, at most.
const SHOWN: usize = 2000;

/// The key of the approval among a call's questions (the stateless era's rounds name them).
pub(crate) const KEY: &str = "io.toolhost/approval";

/// Asks the person, through `asker`, whether the call of `tool` with `args` may run: `Ok`
/// when they accepted, else the answer the call gives instead.
pub(crate) async fn ask(asker: &dyn Asker, tool: &str, args: &str) -> Result<(), ToolOutput> {
    let shown = shown(args);
    let message = format!(
        "{} asks to run with these arguments:\n{shown}\nAllow this call?",
        tool_runtime::text::quote(tool)
    );
    let form = Form::new(message, json!({"type": "object", "properties": {}}));
    match asker.ask(KEY, Question::Person(form)).await {
        Ok(Reply::Person(Answer::Accepted(_))) => Ok(()),
        Ok(Reply::Person(Answer::Declined)) => Err(ToolOutput::error(format!(
            "not approved: the person declined this call of {tool}"
        ))),
        // Dismissed, and any answer of another kind: not an acceptance.
        Ok(_) => Err(ToolOutput::error(format!(
            "not approved: the person dismissed the request to run {tool}; ask them before \
             calling it again"
        ))),
        Err(AskError::Unsupported(_)) => Err(cannot_ask(tool)),
        Err(AskError::Failed(error)) => Err(ToolOutput::error(format!(
            "not approved: the person could not be asked about {tool} ({error})"
        ))),
    }
}

/// The refusal of a client that cannot ask a person.
fn cannot_ask(tool: &str) -> ToolOutput {
    ToolOutput::error(format!(
        "not approved: {tool} runs only when a person approves each call, and this client \
         cannot ask one (it offers no form elicitation); ask the user to approve it in a client \
         that can, or to do it themselves"
    ))
}

/// The arguments as the person reads them: their text, cut at [`SHOWN`] bytes, with nothing
/// in them that could pass for a line of the question.
fn shown(args: &str) -> String {
    let text = tool_runtime::text::neutralize(args);
    if text.len() <= SHOWN {
        return text.into_owned();
    }
    let mut end = SHOWN;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes in all)", &text[..end], args.len())
}
