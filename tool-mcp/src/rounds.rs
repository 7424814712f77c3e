//! A tool's questions ([`tool_runtime::Ask`]) in MCP's stateless era (2026-07-28), which has
//! no server-to-client requests: the call is answered in rounds (SEP-2322). A question the
//! client has not answered yet stops the call; the server answers `tools/call` with an
//! `InputRequiredResult` naming every question the call was waiting on, and a `requestState`
//! sealing the answers it had read. The client retries the call with its `inputResponses` and
//! that state; the tool runs again from the start and reads each answer by its key.
//!
//! The state is sealed (HMAC-SHA256, rmcp's `RequestStateCodec`) and bound to the tool, its
//! arguments and the caller, so a client can neither forge earlier answers nor carry them to
//! another call; any replica that holds the same key continues a round. It lives an hour.
#![allow(deprecated)] // Sampling is deprecated by SEP-2577 yet served to the clients that use it.

use crate::lock::lock;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    ClientCapabilities, InputRequest, InputRequests, RequestStateCodec, SealOptions,
};
use serde_json::{Value, json};
use tool_runtime::{
    Answer, AskError, Asker, NO_FORM, NO_MODEL, NO_ROOTS, Question, Reply, Replying,
};

use crate::asking::{answer_of, request_of, roots_of, sampled_of};

/// How long a round's state may be sent back.
const STATE_TTL: Duration = Duration::from_secs(3600);

/// The key that seals a server's round states: one per process unless the host gives one
/// (replicas behind one endpoint share it).
#[derive(Clone)]
pub(crate) struct StateKey(pub(crate) Arc<RequestStateCodec>);

impl StateKey {
    /// A key from the system's random source.
    pub(crate) fn random() -> Result<Self, getrandom::Error> {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key)?;
        Ok(StateKey(Arc::new(RequestStateCodec::new_unchecked(
            key.to_vec(),
        ))))
    }

    /// The key `secret` (at least 32 bytes).
    pub(crate) fn of(secret: &[u8]) -> Result<Self, String> {
        RequestStateCodec::try_new(secret.to_vec())
            .map(|codec| StateKey(Arc::new(codec)))
            .map_err(|error| error.to_string())
    }
}

/// The questions of one attempt of a call, and the answers it can read.
pub(crate) struct Rounds {
    capabilities: ClientCapabilities,
    /// The answers sent back: sealed in the state, then this round's `inputResponses`.
    answers: BTreeMap<String, Value>,
    /// The answers the call read, for the next round's state.
    read: Mutex<BTreeMap<String, Value>>,
    /// The questions it waits on.
    waiting: Mutex<InputRequests>,
    asked: tokio::sync::Notify,
}

/// Why a round's state was refused.
#[derive(Debug)]
pub(crate) struct BadState(pub(crate) String);

impl Rounds {
    /// The round of a call: the client's `capabilities`, its sealed `state` (opened with
    /// `key`, bound to `binding`) and its `responses`.
    pub(crate) fn open(
        key: &StateKey,
        binding: &[u8],
        capabilities: ClientCapabilities,
        state: Option<&str>,
        responses: Option<&BTreeMap<String, Value>>,
    ) -> Result<Self, BadState> {
        let mut answers: BTreeMap<String, Value> = match state {
            None => BTreeMap::new(),
            Some(state) => {
                let opened = key.0.open_with(state, binding).map_err(|error| {
                    BadState(format!(
                        "requestState was not issued by this server for this call ({error}); \
                         call the tool again without it"
                    ))
                })?;
                serde_json::from_slice(&opened)
                    .map_err(|error| BadState(format!("requestState is malformed ({error})")))?
            }
        };
        if let Some(responses) = responses {
            answers.extend(responses.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        Ok(Rounds {
            capabilities,
            answers,
            read: Mutex::default(),
            waiting: Mutex::default(),
            asked: tokio::sync::Notify::new(),
        })
    }

    /// Resolves once the call asked a question the client has not answered.
    pub(crate) async fn asked(&self) {
        self.asked.notified().await;
    }

    /// The questions the call waits on and the state that carries what it read, sealed with
    /// `key` and bound to `binding`.
    pub(crate) fn input_required(
        &self,
        key: &StateKey,
        binding: &[u8],
    ) -> rmcp::model::InputRequiredResult {
        let waiting = std::mem::take(&mut *lock(&self.waiting));
        let read = lock(&self.read);
        let payload = serde_json::to_vec(&*read).unwrap_or_default();
        let state = key.0.seal_with(
            &payload,
            &SealOptions::new().associated_data(binding).ttl(STATE_TTL),
        );
        rmcp::model::InputRequiredResult::new(Some(waiting), Some(state))
    }

    /// The client's answer to `question`, when it sent one that answers it.
    fn answer(&self, key: &str, question: &Question) -> Option<Reply> {
        let sent = self.answers.get(key)?;
        let reply = reply_of(question, sent)?;
        lock(&self.read).insert(key.to_owned(), sent.clone());
        Some(reply)
    }
}

impl Asker for Rounds {
    fn ask<'a>(&'a self, key: &'a str, question: Question) -> Replying<'a> {
        Box::pin(async move {
            can(&self.capabilities, &question)?;
            if let Some(reply) = self.answer(key, &question) {
                return Ok(reply);
            }
            // Unanswered (or answered with something that is no answer): asked again. The call
            // stops here; the server answers with the questions.
            let request = input_request(&question)?;
            lock(&self.waiting).insert(key.to_owned(), request);
            self.asked.notify_one();
            std::future::pending().await
        })
    }
}

/// Whether a client of `caps` can answer `question`; [`AskError::Unsupported`] when not.
pub(crate) fn can(caps: &ClientCapabilities, question: &Question) -> Result<(), AskError> {
    match question {
        Question::Person(_) => {
            let form = caps
                .elicitation
                .as_ref()
                .is_some_and(|e| e.form.is_some() || e.url.is_none());
            if form {
                Ok(())
            } else {
                Err(AskError::Unsupported(NO_FORM))
            }
        }
        Question::Model(_) if caps.sampling.is_none() => Err(AskError::Unsupported(NO_MODEL)),
        Question::Roots if caps.roots.is_none() => Err(AskError::Unsupported(NO_ROOTS)),
        _ => Ok(()),
    }
}

/// The reply `sent` gives to `question`, when it is one: an answer that does not fit the form,
/// or is no answer of the kind asked, is none (the question is asked again).
pub(crate) fn reply_of(question: &Question, sent: &Value) -> Option<Reply> {
    Some(match question {
        Question::Person(form) => match answer_of(sent)? {
            Answer::Accepted(content) if form.misfit(&content).is_some() => return None,
            answer => Reply::Person(answer),
        },
        Question::Model(_) => {
            sent.get("content")?;
            Reply::Model(sampled_of(sent))
        }
        Question::Roots => Reply::Roots(roots_of(sent)?),
    })
}

/// `question` as the request the client fulfils.
pub(crate) fn input_request(question: &Question) -> Result<InputRequest, AskError> {
    let wire = match question {
        Question::Person(form) => json!({
            "method": "elicitation/create",
            "params": {"mode": "form", "message": form.message, "requestedSchema": form.schema},
        }),
        Question::Model(sampling) => {
            json!({"method": "sampling/createMessage", "params": request_of(sampling)})
        }
        Question::Roots => json!({"method": "roots/list", "params": {}}),
    };
    serde_json::from_value(wire)
        .map_err(|error| AskError::Failed(format!("the question is not one MCP allows: {error}")))
}
