//! A tool's questions ([`tool_runtime::Ask`]) carried to an MCP client of the `initialize` era
//! as server-to-client requests: a form as `elicitation/create`, a message for the client's
//! model as `sampling/createMessage`, the roots as `roots/list`, each only when the client
//! declared it can answer.
#![allow(deprecated)] // Sampling is deprecated by SEP-2577 yet served to the clients that use it.

use rmcp::model::{CreateMessageRequestParams, ElicitRequestParams, ElicitationAction};
use rmcp::service::{ElicitationMode, Peer, RoleServer};
use serde_json::{Value, json};
use tool_runtime::{
    Answer, AskError, Asker, Form, NO_FORM, NO_MODEL, NO_ROOTS, Question, Reply, Replying, Role,
    Root, Sampled, Sampling,
};

/// Carries questions through the connection's client.
pub(crate) struct Live(pub(crate) Peer<RoleServer>);

impl Asker for Live {
    fn ask<'a>(&'a self, _key: &'a str, question: Question) -> Replying<'a> {
        Box::pin(async move {
            match question {
                Question::Person(form) => self.person(form).await.map(Reply::Person),
                Question::Model(sampling) => self.model(sampling).await.map(Reply::Model),
                Question::Roots => self.roots().await.map(Reply::Roots),
            }
        })
    }
}

impl Live {
    pub(crate) async fn person(&self, form: Form) -> Result<Answer, AskError> {
        if !self
            .0
            .supported_elicitation_modes()
            .contains(&ElicitationMode::Form)
        {
            return Err(AskError::Unsupported(NO_FORM));
        }
        let requested_schema = serde_json::from_value(form.schema).map_err(|error| {
            AskError::Failed(format!("the form's schema is not one MCP allows: {error}"))
        })?;
        let request = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: form.message,
            requested_schema,
        };
        let answer = self
            .0
            .create_elicitation(request)
            .await
            .map_err(|error| AskError::Failed(error.to_string()))?;
        Ok(match answer.action {
            ElicitationAction::Accept => {
                Answer::Accepted(answer.content.unwrap_or_else(|| json!({})))
            }
            ElicitationAction::Decline => Answer::Declined,
            _ => Answer::Dismissed,
        })
    }

    async fn model(&self, sampling: Sampling) -> Result<Sampled, AskError> {
        let offers = self
            .0
            .peer_info()
            .is_some_and(|client| client.capabilities.sampling.is_some());
        if !offers {
            return Err(AskError::Unsupported(NO_MODEL));
        }
        let params: CreateMessageRequestParams = serde_json::from_value(request_of(&sampling))
            .map_err(|error| AskError::Failed(error.to_string()))?;
        let result = self
            .0
            .create_message(params)
            .await
            .map_err(|error| AskError::Failed(error.to_string()))?;
        let wire = serde_json::to_value(&result).unwrap_or_default();
        Ok(sampled_of(&wire))
    }
}

impl Live {
    async fn roots(&self) -> Result<Vec<Root>, AskError> {
        let offers = self
            .0
            .peer_info()
            .is_some_and(|client| client.capabilities.roots.is_some());
        if !offers {
            return Err(AskError::Unsupported(NO_ROOTS));
        }
        let result = self
            .0
            .list_roots()
            .await
            .map_err(|error| AskError::Failed(error.to_string()))?;
        let wire = serde_json::to_value(&result).unwrap_or_default();
        roots_of(&wire).ok_or_else(|| AskError::Failed("the client's roots are malformed".into()))
    }
}

/// What the person did, read from an `ElicitResult`; `None` when it is not one.
pub(crate) fn answer_of(result: &Value) -> Option<Answer> {
    match result.get("action")?.as_str()? {
        "accept" => {
            let content = result.get("content").cloned().unwrap_or_else(|| json!({}));
            content.is_object().then_some(Answer::Accepted(content))
        }
        "decline" => Some(Answer::Declined),
        "cancel" => Some(Answer::Dismissed),
        _ => None,
    }
}

/// The roots of a `ListRootsResult`; `None` when it is not one.
pub(crate) fn roots_of(result: &Value) -> Option<Vec<Root>> {
    result
        .get("roots")?
        .as_array()?
        .iter()
        .map(|root| {
            Some(Root {
                uri: root.get("uri")?.as_str()?.to_owned(),
                name: root.get("name").and_then(Value::as_str).map(str::to_owned),
            })
        })
        .collect()
}

/// `sampling/createMessage`'s params for `sampling`.
pub(crate) fn request_of(sampling: &Sampling) -> Value {
    let messages: Vec<Value> = sampling
        .messages
        .iter()
        .map(|(role, text)| {
            let role = match role {
                Role::User => "user",
                Role::Assistant => "assistant",
            };
            json!({"role": role, "content": {"type": "text", "text": text}})
        })
        .collect();
    let mut params = json!({"messages": messages, "maxTokens": sampling.max_tokens});
    if let Some(system) = &sampling.system {
        params["systemPrompt"] = json!(system);
    }
    params
}

/// What the model wrote, read from a `CreateMessageResult`: its text parts joined.
pub(crate) fn sampled_of(result: &Value) -> Sampled {
    let text = match &result["content"] {
        Value::Array(parts) => parts
            .iter()
            .filter_map(|part| part["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        part => part["text"].as_str().unwrap_or_default().to_owned(),
    };
    Sampled {
        text,
        model: result["model"].as_str().unwrap_or_default().to_owned(),
        stop_reason: result["stopReason"].as_str().map(str::to_owned),
    }
}
