//! What can stop an agent loop.

use std::fmt;
use std::time::Duration;

use tool_runtime::{DialectError, SessionError};
use tool_wire::{Provider, WireError};

use crate::sse::SseError;

/// Why a turn could not be completed. Tool failures are not here: the model reads those.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// The provider's hosted API needs a key and none was given.
    #[error(
        "{variable} is not set: the {provider} API needs a key (a server at another --base-url may not)"
    )]
    MissingKey {
        /// The variable the key is read from.
        variable: &'static str,
        /// The provider.
        provider: Provider,
    },
    /// The base URL cannot be used: not an `http://` or `https://` URL, or one with credentials
    /// or a query (shown without them).
    #[error("--base-url {url} cannot be used: {reason}")]
    BaseUrl {
        /// The URL, its credentials and query replaced by `…`.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The provider answered with an error status (after any retries).
    #[error(
        "the {provider} API answered {status}{}{reason}: {message}{}",
        if reason.is_empty() { "" } else { " " },
        Tries(*attempts, *retry_after)
    )]
    Status {
        /// The provider.
        provider: Provider,
        /// The HTTP status.
        status: u16,
        /// The status's reason phrase.
        reason: &'static str,
        /// The provider's error message, quoted.
        message: String,
        /// How many requests were made.
        attempts: u32,
        /// The wait the provider asked for, when it was longer than the client waits.
        retry_after: Option<Duration>,
    },
    /// The provider answered with a redirect, which is not followed: the key goes to the base
    /// URL's origin only.
    #[error(
        "the {provider} API answered {status}{}{reason}, {}; redirects are not followed, so that no key goes to another origin: give the URL it ends at as --base-url",
        if reason.is_empty() { "" } else { " " },
        match location {
            Some(location) => format!("a redirect to {location}"),
            None => "a redirect without a location".to_owned(),
        }
    )]
    Redirect {
        /// The provider.
        provider: Provider,
        /// The HTTP status.
        status: u16,
        /// The status's reason phrase.
        reason: &'static str,
        /// Where it points, quoted.
        location: Option<String>,
    },
    /// The provider could not be reached (after any retries).
    #[error("could not reach {url}: {message}{}", Tries(*attempts, None))]
    Transport {
        /// The request's URL.
        url: String,
        /// What failed.
        message: String,
        /// How many requests were made.
        attempts: u32,
    },
    /// A request passed a timeout (after any retries): the provider was silent too long, or its
    /// answer took too long.
    #[error("no whole answer from {url}: {message}{}", Tries(*attempts, None))]
    Timeout {
        /// The request's URL.
        url: String,
        /// Which timeout, and how long it is.
        message: String,
        /// How many requests were made.
        attempts: u32,
    },
    /// The run reached its deadline ([`Deadline`](crate::client::Deadline)).
    #[error("the run reached its deadline (--deadline {}): {doing}", tool_runtime::text::seconds(*limit))]
    Deadline {
        /// How long the run was given.
        limit: Duration,
        /// What it was doing.
        doing: String,
    },
    /// The request could not be made at all (a malformed base URL).
    #[error("cannot send a request to {url}: {message}")]
    Request {
        /// The request's URL.
        url: String,
        /// What is wrong.
        message: String,
    },
    /// The response body could not be read.
    #[error("the response could not be read: {0}")]
    Body(String),
    /// The response is not the provider's shape.
    #[error("the provider's response could not be read: {0}")]
    Wire(#[from] WireError),
    /// A streamed response broke off or is not server-sent events.
    #[error("the streamed response could not be read: {0}")]
    Stream(#[from] SseError),
    /// The tools cannot be written in the provider's dialect.
    #[error(transparent)]
    Dialect(#[from] DialectError),
    /// The session could not be read or appended to.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The session's conversation was held with another provider, whose messages this one
    /// cannot read.
    #[error(
        "the session's conversation was held with the {found} API; continue it with --provider {found}"
    )]
    OtherProvider {
        /// The provider the conversation was held with.
        found: String,
    },
    /// The session's conversation events cannot be read.
    #[error("the session's conversation cannot be read: {0}")]
    Conversation(String),
    /// The model kept calling tools past the turn limit.
    #[error("the model was still calling tools after {0} turns; stopped (raise --max-turns)")]
    MaxTurns(u32),
    /// The run paused: these calls (their ids) wait for a person's decision
    /// ([`approval`](crate::approval)).
    #[error("the run is paused: {} call{} wait{} for a decision ({})", calls.len(),
        if calls.len() == 1 { "" } else { "s" }, if calls.len() == 1 { "s" } else { "" },
        calls.join(", "))]
    Paused {
        /// The pending calls' ids.
        calls: Vec<String>,
    },
    /// No call of that id waits for a decision.
    #[error("no call {0} waits for a decision")]
    NotPending(String),
    /// An approved call waits for a tool this run does not offer: nothing ran.
    #[error(
        "the approved call {id} is of the tool {tool}, which this run does not offer: resume \
         the run with the tools it had (its MCP servers, say)"
    )]
    Unoffered {
        /// The call's id.
        id: String,
        /// Its tool.
        tool: String,
    },
    /// The call is decided already: a decision is not changed.
    #[error("call {id} is decided already ({decision}): a decision is not changed")]
    Decided {
        /// The call's id.
        id: String,
        /// The decision it has, in words (`approved`, `denied: REASON`).
        decision: String,
    },
    /// Edited arguments the tool's schema refuses: the decision is not recorded.
    #[error("the arguments for call {id} are refused: {refused}")]
    Edit {
        /// The call's id.
        id: String,
        /// The refusal a call with them would answer.
        refused: String,
    },
    /// A tool of the run is named as the search tool a run with deferred tools offers
    /// ([`SEARCH_TOOL`](crate::search::SEARCH_TOOL)).
    #[error(
        "a tool is named {0}, as the search tool a run with deferred tools offers: rename it, or \
         defer none"
    )]
    SearchNamed(&'static str),
    /// The run reached one of its budgets ([`Budget`](crate::Budget)), before the request or
    /// the calls that would have passed it.
    #[error("the run reached its budget of {limit} {what} ({flag} {limit}): {stopped}")]
    Budget {
        /// What is counted: `requests`, `tokens`, `tool calls`.
        what: &'static str,
        /// The option that sets it.
        flag: &'static str,
        /// The budget.
        limit: u64,
        /// Where the run stopped.
        stopped: String,
    },
}

impl AgentError {
    /// Whether the error is in what the loop was asked (a missing key, a base URL that cannot
    /// be used, a paused call's tool the run does not offer), found before anything was sent:
    /// a usage error.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            AgentError::MissingKey { .. }
                | AgentError::BaseUrl { .. }
                | AgentError::Unoffered { .. }
        )
    }

    /// Whether the run paused for decisions.
    pub fn is_paused(&self) -> bool {
        matches!(self, AgentError::Paused { .. })
    }

    /// Whether the run stopped at one of its budgets.
    pub fn is_budget(&self) -> bool {
        matches!(self, AgentError::Budget { .. })
    }

    /// Whether the error is the session's: it could not be read or appended to, or the
    /// conversation it holds is damaged.
    pub fn is_session(&self) -> bool {
        matches!(self, AgentError::Session(_) | AgentError::Conversation(_))
    }
}

/// ` (after 4 attempts; it asked to wait 3600 s)`, or nothing for a first attempt.
struct Tries(u32, Option<Duration>);

impl fmt::Display for Tries {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tries(attempts, Some(asked)) => write!(
                f,
                " (after {attempts} attempt{}; it asked to wait {} s, longer than the client waits)",
                if *attempts == 1 { "" } else { "s" },
                asked.as_secs_f64().ceil()
            ),
            Tries(1, None) => Ok(()),
            Tries(attempts, None) => write!(f, " (after {attempts} attempts)"),
        }
    }
}
