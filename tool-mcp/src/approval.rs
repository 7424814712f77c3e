//! A tool that needs a person's approval for each call (`#[tool(needs_approval)]`), served over
//! MCP: the server asks the person through the client (`elicitation/create`, a form of no
//! fields: accept or decline) before the call runs, and never runs it unasked. A client that
//! cannot ask (it declared no form elicitation, or the request is of the stateless era, which
//! has no server-to-client requests) gets a refusal the model can act on.

use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema};
use rmcp::service::{Peer, RoleServer};
use tool_runtime::ToolOutput;

/// How much of the arguments the person is shown, at most.
const SHOWN: usize = 2000;

/// Asks the person whether the call of `tool` with `args` may run: `Ok` when they accepted,
/// else the answer the call gives instead.
pub(crate) async fn ask(peer: &Peer<RoleServer>, tool: &str, args: &str) -> Result<(), ToolOutput> {
    let can_ask = peer
        .supported_elicitation_modes()
        .contains(&rmcp::service::ElicitationMode::Form);
    if !can_ask {
        return Err(cannot_ask(tool));
    }
    let shown = shown(args);
    let message = format!(
        "{} asks to run with these arguments:\n{shown}\nAllow this call?",
        tool_runtime::text::quote(tool)
    );
    let request = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema: ElicitationSchema::new(std::collections::BTreeMap::new()),
    };
    match peer.create_elicitation(request).await {
        Ok(answer) => match answer.action {
            ElicitationAction::Accept => Ok(()),
            ElicitationAction::Decline => Err(ToolOutput::error(format!(
                "not approved: the person declined this call of {tool}"
            ))),
            // Cancel, and any answer of a later revision: not an acceptance.
            _ => Err(ToolOutput::error(format!(
                "not approved: the person dismissed the request to run {tool}; ask them before \
                 calling it again"
            ))),
        },
        Err(error) => Err(ToolOutput::error(format!(
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
