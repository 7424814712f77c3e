//! A provider's HTTP API: where requests go, how they are authenticated, and what happens when
//! the provider is busy or gone.

use std::fmt;
use std::io::{self, Read};
use std::time::{Duration, Instant, SystemTime};

use tool_runtime::text::{neutralize, quote};
use tool_wire::{ModelTurn, Provider, WireError};
use ureq::http::{HeaderMap, StatusCode};

use crate::error::AgentError;
use crate::observer::{Observer, Retry};
use crate::secret::{Redacting, Secret, shown_url};
use crate::sse;
use tool_runtime::text::seconds;

/// The largest response body read, streamed or not, in bytes.
const MAX_BODY_BYTES: u64 = sse::MAX_BYTES;
/// The most of an error response's body read for its message, in bytes.
const MAX_ERROR_BODY_BYTES: u64 = 64 * 1024;
/// The first wait between attempts; it doubles per attempt, up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
/// The longest wait the client picks itself (a provider's `retry-after` may ask for more).
const MAX_BACKOFF: Duration = Duration::from_secs(8);
/// Timeouts past this are no timeouts (ureq adds them to the time, which must not overflow).
const NO_TIMEOUT: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

/// Where and how to reach a provider.
#[derive(Clone)]
#[non_exhaustive]
pub struct ClientConfig {
    /// The provider's API.
    pub provider: Provider,
    /// The model, as the provider names it (`gpt-4.1`, `claude-sonnet-4-5`, `gemini-2.5-pro`).
    pub model: String,
    /// The API's base URL, by each official SDK's convention: OpenAI's includes `/v1`
    /// (`http://localhost:11434/v1` for Ollama), Anthropic's and Gemini's are the host. `None`:
    /// the provider's own ([`default_base_url`]).
    pub base_url: Option<String>,
    /// The API key; `None` sends no credentials (a local OpenAI-compatible server).
    pub api_key: Option<String>,
    /// Stream responses (server-sent events), passing text to the observer as it comes.
    pub stream: bool,
    /// Attempts after the first for a request the provider answered 408, 409, 429 or 5xx, or
    /// that could not reach it.
    pub max_retries: u32,
    /// The longest wait before a retry: a provider asking for a longer one (`retry-after`) is
    /// not waited for, and the error says what it asked.
    pub max_retry_wait: Duration,
    /// How long connecting may take.
    pub connect_timeout: Duration,
    /// How long the provider may send nothing: before it starts answering, and between the
    /// bytes of its answer.
    pub idle_timeout: Duration,
    /// How long one request may take, from sending it to the last byte of its answer (a
    /// streamed one too); `None`: as long as the provider keeps sending.
    pub request_timeout: Option<Duration>,
}

impl ClientConfig {
    /// A configuration for `model` on `provider`: its hosted API, no key, not streamed, 3
    /// retries waiting at most 60 s each, 30 s to connect, 10 minutes of silence at most (as
    /// the official SDKs' default timeout), 30 minutes per request.
    pub fn new(provider: Provider, model: impl Into<String>) -> Self {
        ClientConfig {
            provider,
            model: model.into(),
            base_url: None,
            api_key: None,
            stream: false,
            max_retries: 3,
            max_retry_wait: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(600),
            request_timeout: Some(Duration::from_secs(1800)),
        }
    }

    /// This configuration with the key from the provider's environment variable
    /// ([`key_variable`]), if it is set and not empty.
    pub fn key_from_env(mut self) -> Self {
        self.api_key = std::env::var(key_variable(self.provider))
            .ok()
            .filter(|key| !key.is_empty());
        self
    }
}

impl fmt::Debug for ClientConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientConfig")
            .field("provider", &self.provider)
            .field("model", &self.model)
            .field("base_url", &self.base_url.as_deref().map(shown_url))
            .field("api_key", &self.api_key.as_ref().map(|_| "…"))
            .field("stream", &self.stream)
            .field("max_retries", &self.max_retries)
            .field("idle_timeout", &self.idle_timeout)
            .field("request_timeout", &self.request_timeout)
            .finish_non_exhaustive()
    }
}

/// The environment variable a provider's key is read from: `OPENAI_API_KEY` (both OpenAI
/// APIs), `ANTHROPIC_API_KEY`, `GEMINI_API_KEY`.
pub fn key_variable(provider: Provider) -> &'static str {
    match provider {
        Provider::Anthropic => "ANTHROPIC_API_KEY",
        Provider::Gemini => "GEMINI_API_KEY",
        _ => "OPENAI_API_KEY",
    }
}

/// The provider's hosted API, the base URL its official SDK uses.
pub fn default_base_url(provider: Provider) -> &'static str {
    match provider {
        Provider::Anthropic => "https://api.anthropic.com",
        Provider::Gemini => "https://generativelanguage.googleapis.com",
        _ => "https://api.openai.com/v1",
    }
}

/// When a run must stop: a time, and how long after its start it is (which messages name).
#[derive(Clone, Copy, Debug)]
pub struct Deadline {
    /// `None` when too far to be reached.
    at: Option<Instant>,
    limit: Duration,
}

impl Deadline {
    /// The deadline `limit` from now.
    pub fn after(limit: Duration) -> Self {
        Deadline {
            at: Instant::now().checked_add(limit.min(NO_TIMEOUT)),
            limit,
        }
    }

    /// How long after its start the deadline is.
    pub fn limit(&self) -> Duration {
        self.limit
    }

    /// The time left, `None` once the deadline has passed.
    pub fn remaining(&self) -> Option<Duration> {
        match self.at {
            Some(at) => at
                .checked_duration_since(Instant::now())
                .filter(|left| !left.is_zero()),
            None => Some(NO_TIMEOUT),
        }
    }

    /// Whether waiting `wait` keeps within the deadline.
    fn allows(&self, wait: Duration) -> bool {
        self.remaining().is_some_and(|left| wait < left)
    }

    /// The error of a run stopped at the deadline, saying what it was doing.
    pub fn reached(&self, doing: impl Into<String>) -> AgentError {
        AgentError::Deadline {
            limit: self.limit,
            doing: doing.into(),
        }
    }
}

/// A client for one provider's API: sends a request body, retries what is worth retrying,
/// and reads the answer — streamed or not — into a [`ModelTurn`].
pub struct Client {
    config: ClientConfig,
    url: String,
    http: ureq::Agent,
    secret: Secret,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("config", &self.config)
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A client for `config`. The provider's hosted API needs a key: without one this is
    /// [`AgentError::MissingKey`]; a server at another base URL may do without. A base URL must
    /// be an `http://` or `https://` URL without credentials or a query
    /// ([`AgentError::BaseUrl`]).
    ///
    /// The key is sent to the base URL's origin only, and taken out of everything the provider
    /// sends back (`[redacted]` in its place): its errors, the model's text, calls and messages.
    pub fn new(config: ClientConfig) -> Result<Self, AgentError> {
        if config.api_key.is_none() && config.base_url.is_none() {
            return Err(AgentError::MissingKey {
                variable: key_variable(config.provider),
                provider: config.provider,
            });
        }
        let base = config
            .base_url
            .as_deref()
            .unwrap_or(default_base_url(config.provider))
            .trim_end_matches('/');
        check_base_url(base, config.provider)?;
        let model = config
            .model
            .strip_prefix("models/")
            .unwrap_or(&config.model);
        let url = match (config.provider, config.stream) {
            (Provider::OpenAiResponses, _) => format!("{base}/responses"),
            (Provider::Anthropic, _) => format!("{base}/v1/messages"),
            (Provider::Gemini, false) => format!("{base}/v1beta/models/{model}:generateContent"),
            (Provider::Gemini, true) => {
                format!("{base}/v1beta/models/{model}:streamGenerateContent?alt=sse")
            }
            _ => format!("{base}/chat/completions"),
        };
        let http = ureq::Agent::config_builder()
            .http_status_as_error(false)
            // A redirect is answered as an error, never followed: a key must not go to another
            // origin (ureq keeps every header but `authorization` on a redirect), and an API
            // that moved is a base URL to change, not one to trust per request.
            .max_redirects(0)
            .timeout_connect(Some(config.connect_timeout.min(NO_TIMEOUT)))
            .timeout_recv_response(Some(config.idle_timeout.min(NO_TIMEOUT)))
            .timeout_per_read(Some(config.idle_timeout.min(NO_TIMEOUT)))
            .timeout_per_call(config.request_timeout.map(|limit| limit.min(NO_TIMEOUT)))
            .user_agent(concat!("toolhost/", env!("CARGO_PKG_VERSION")))
            .build()
            .new_agent();
        let secret = Secret::new(config.api_key.as_deref());
        Ok(Client {
            config,
            url,
            http,
            secret,
        })
    }

    /// The client's configuration.
    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    /// Where requests go.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Sends one request body and reads the model's turn, passing its text to `observer` as it
    /// comes (in one piece when not streamed).
    ///
    /// A 408, 409, 429 or 5xx answer, or a provider that cannot be reached, is retried up to
    /// [`ClientConfig::max_retries`] times, after the wait the provider asks for
    /// (`retry-after-ms`, `retry-after` in seconds or as a date) or else 0.5 s doubling up to
    /// 8 s; a provider that says `x-should-retry: false` is not retried. A stream cut midway is
    /// not retried: its text was already shown.
    ///
    /// A redirect is not followed: it is [`AgentError::Redirect`], naming where it points, so
    /// the key is only ever sent to the base URL's origin.
    ///
    /// Each request is bounded by the timeouts of the configuration
    /// ([`ClientConfig::idle_timeout`], [`ClientConfig::request_timeout`]): one that passes
    /// them is [`AgentError::Timeout`], retried as a provider that cannot be reached is.
    pub fn send(&self, body: &[u8], observer: &mut dyn Observer) -> Result<ModelTurn, AgentError> {
        self.send_until(body, observer, None)
    }

    /// [`Client::send`], within `deadline`: the requests, their answers and the waits between
    /// them stop there ([`AgentError::Deadline`]), and a retry whose wait would pass it is not
    /// made.
    pub fn send_until(
        &self,
        body: &[u8],
        observer: &mut dyn Observer,
        deadline: Option<&Deadline>,
    ) -> Result<ModelTurn, AgentError> {
        self.attempt(body, observer, deadline)
            .map_err(|error| self.redact_error(error))
    }

    fn attempt(
        &self,
        body: &[u8],
        observer: &mut dyn Observer,
        deadline: Option<&Deadline>,
    ) -> Result<ModelTurn, AgentError> {
        let attempts = self.config.max_retries.saturating_add(1);
        let mut attempt = 0;
        loop {
            attempt += 1;
            let left = match deadline {
                Some(deadline) => Some(
                    deadline
                        .remaining()
                        .ok_or_else(|| deadline.reached("no request was sent"))?,
                ),
                None => None,
            };
            let failure = match self.post(body, left) {
                Ok(response) if response.status().is_success() => {
                    return self.read(response, observer, deadline);
                }
                Ok(response) if response.status().is_redirection() => {
                    return Err(self.redirect(&response));
                }
                Ok(response) => Failure::status(response),
                Err(ureq::Error::Timeout(ureq::Timeout::Global))
                    if let Some(deadline) = deadline =>
                {
                    return Err(deadline.reached(format!("no answer yet from {}", self.url)));
                }
                Err(ureq::Error::Timeout(kind)) => Failure::Timeout(self.timeout_message(kind)),
                Err(
                    error @ (ureq::Error::Io(_)
                    | ureq::Error::HostNotFound
                    | ureq::Error::ConnectionFailed
                    | ureq::Error::Protocol(_)),
                ) => Failure::Transport(error.to_string()),
                Err(error) => {
                    return Err(AgentError::Request {
                        url: shown_url(&self.url),
                        message: error.to_string(),
                    });
                }
            };
            let wait = failure.wait(attempt, self.config.max_retry_wait);
            let give_up = attempt >= attempts || !failure.retryable();
            match (give_up, wait) {
                (false, Ok(wait)) if deadline.is_some_and(|deadline| !deadline.allows(wait)) => {
                    let last = failure.into_error(self, attempt, None).to_string();
                    return Err(deadline
                        .expect("checked")
                        .reached(format!("its next retry would pass it; {last}")));
                }
                (false, Ok(wait)) => {
                    let retry = Retry {
                        attempt,
                        wait,
                        reason: self.secret.redact(&failure.reason()).into_owned(),
                    };
                    // An event of the request's `chat` span, for a trace to show the retries.
                    tracing::info!(
                        http.request.resend_count = i64::from(attempt),
                        toolhost.retry.wait_ms = i64::try_from(wait.as_millis()).unwrap_or(i64::MAX),
                        error.type = retry.reason.as_str(),
                        "retry",
                    );
                    observer.retrying(&retry);
                    std::thread::sleep(wait);
                }
                (_, asked) => return Err(failure.into_error(self, attempt, asked.err())),
            }
        }
    }

    /// What a timeout of ureq's means, with the option that sets it.
    fn timeout_message(&self, kind: ureq::Timeout) -> String {
        match kind {
            ureq::Timeout::PerCall => format!(
                "the request took longer than {} (--request-timeout)",
                seconds(self.config.request_timeout.unwrap_or(NO_TIMEOUT))
            ),
            ureq::Timeout::PerRead | ureq::Timeout::RecvResponse | ureq::Timeout::RecvBody => {
                format!(
                    "the provider sent nothing for {} (--idle-timeout)",
                    seconds(self.config.idle_timeout)
                )
            }
            ureq::Timeout::Connect | ureq::Timeout::Resolve => format!(
                "connecting took longer than {}",
                seconds(self.config.connect_timeout)
            ),
            other => format!("timed out ({other})"),
        }
    }

    /// The error of an answer whose body could not be read to its end.
    fn body_error(&self, error: ureq::Error, deadline: Option<&Deadline>) -> AgentError {
        match error {
            ureq::Error::Timeout(ureq::Timeout::Global) if let Some(deadline) = deadline => {
                deadline.reached(format!("the answer from {} was still coming", self.url))
            }
            ureq::Error::Timeout(kind) => AgentError::Timeout {
                url: shown_url(&self.url),
                message: self.timeout_message(kind),
                attempts: 1,
            },
            ureq::Error::Io(error) => match into_ureq(error) {
                Ok(error) => self.body_error(error, deadline),
                Err(error) => AgentError::Body(error.to_string()),
            },
            other => AgentError::Body(other.to_string()),
        }
    }

    fn post(
        &self,
        body: &[u8],
        left: Option<Duration>,
    ) -> Result<ureq::http::Response<ureq::Body>, ureq::Error> {
        let mut request = self
            .http
            .post(&self.url)
            .config()
            .timeout_global(left)
            .build()
            .header("content-type", "application/json");
        if self.config.stream {
            request = request.header("accept", "text/event-stream");
        }
        if let Some(key) = &self.config.api_key {
            request = match self.config.provider {
                Provider::Anthropic => request.header("x-api-key", key),
                Provider::Gemini => request.header("x-goog-api-key", key),
                _ => request.header("authorization", format!("Bearer {key}")),
            };
        }
        if self.config.provider == Provider::Anthropic {
            request = request.header("anthropic-version", "2023-06-01");
        }
        request.send(body)
    }

    /// The error with the key taken out of every text the provider had a hand in.
    fn redact_error(&self, error: AgentError) -> AgentError {
        let redact = |text: String| self.secret.redact(&text).into_owned();
        match error {
            AgentError::Status {
                provider,
                status,
                reason,
                message,
                attempts,
                retry_after,
            } => AgentError::Status {
                provider,
                status,
                reason,
                message: redact(message),
                attempts,
                retry_after,
            },
            AgentError::Redirect {
                provider,
                status,
                reason,
                location,
            } => AgentError::Redirect {
                provider,
                status,
                reason,
                location: location.map(redact),
            },
            AgentError::Transport {
                url,
                message,
                attempts,
            } => AgentError::Transport {
                url,
                message: redact(message),
                attempts,
            },
            AgentError::Request { url, message } => AgentError::Request {
                url,
                message: redact(message),
            },
            AgentError::Body(message) => AgentError::Body(redact(message)),
            AgentError::Deadline { limit, doing } => AgentError::Deadline {
                limit,
                doing: redact(doing),
            },
            AgentError::Wire(WireError::Provider(message)) => {
                AgentError::Wire(WireError::Provider(redact(message)))
            }
            other => other,
        }
    }

    fn redirect(&self, response: &ureq::http::Response<ureq::Body>) -> AgentError {
        let status = response.status();
        let location = response
            .headers()
            .get("location")
            .map(|value| quote_long(&String::from_utf8_lossy(value.as_bytes())));
        AgentError::Redirect {
            provider: self.config.provider,
            status: status.as_u16(),
            reason: status.canonical_reason().unwrap_or(""),
            location,
        }
    }

    fn read(
        &self,
        response: ureq::http::Response<ureq::Body>,
        observer: &mut dyn Observer,
        deadline: Option<&Deadline>,
    ) -> Result<ModelTurn, AgentError> {
        let provider = self.config.provider;
        let is_stream = response
            .headers()
            .get("content-type")
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.starts_with("text/event-stream"));
        let mut body = response.into_body();
        if !(self.config.stream && is_stream) {
            let text = body
                .with_config()
                .limit(MAX_BODY_BYTES)
                .read_to_string()
                .map_err(|error| self.body_error(error, deadline))?;
            let mut turn = provider.read_response(&self.secret.redact(&text))?;
            self.secret.redact_turn(&mut turn);
            if !turn.text.is_empty() {
                observer.text(&turn.text);
            }
            return Ok(turn);
        }
        let mut reader = provider.stream_reader();
        let mut shown = Redacting::new(&self.secret, observer);
        // The same bound as a plain body's, on the bytes as they come (after any gzip).
        for event in sse::events(body.into_reader()).max_bytes(MAX_BODY_BYTES) {
            let event = match event {
                Ok(event) => event,
                Err(sse::SseError::Read(error)) => {
                    return Err(match into_ureq(error) {
                        Ok(error) => self.body_error(error, deadline),
                        Err(error) => sse::SseError::Read(error).into(),
                    });
                }
                Err(error) => return Err(error.into()),
            };
            if let Some(text) = reader.push(&event.event, &self.secret.redact(&event.data))? {
                shown.text(&text);
            }
            if reader.is_done() {
                break;
            }
        }
        shown.flush();
        let mut turn = reader.finish()?;
        self.secret.redact_turn(&mut turn);
        Ok(turn)
    }
}

/// The ureq error an I/O error of a body's reader carries, if it is one.
fn into_ureq(error: io::Error) -> Result<ureq::Error, io::Error> {
    if error
        .get_ref()
        .is_some_and(|inner| inner.is::<ureq::Error>())
    {
        let inner = error.into_inner().expect("checked");
        Ok(*inner.downcast::<ureq::Error>().expect("checked"))
    } else {
        Err(error)
    }
}

/// A failed attempt.
enum Failure {
    /// The provider answered with an error status.
    Status {
        status: StatusCode,
        message: String,
        retry_after: Option<Duration>,
        should_retry: Option<bool>,
    },
    /// The provider could not be reached, or the connection broke.
    Transport(String),
    /// A timeout passed (says which).
    Timeout(String),
}

impl Failure {
    fn status(response: ureq::http::Response<ureq::Body>) -> Self {
        let status = response.status();
        let headers = response.headers();
        let retry_after = retry_after(headers, SystemTime::now());
        let should_retry = headers
            .get("x-should-retry")
            .and_then(|value| value.to_str().ok())
            .and_then(|value| match value {
                "true" => Some(true),
                "false" => Some(false),
                _ => None,
            });
        let mut text = String::new();
        let _ = response
            .into_body()
            .into_reader()
            .take(MAX_ERROR_BODY_BYTES)
            .read_to_string(&mut text);
        Failure::Status {
            status,
            message: error_message(&text),
            retry_after,
            should_retry,
        }
    }

    fn retryable(&self) -> bool {
        match self {
            Failure::Transport(_) | Failure::Timeout(_) => true,
            Failure::Status {
                should_retry: Some(should),
                ..
            } => *should,
            Failure::Status { status, .. } => {
                matches!(status.as_u16(), 408 | 409 | 429) || status.is_server_error()
            }
        }
    }

    /// The wait before the next attempt, or the wait the provider asked for when it is longer
    /// than `max`.
    fn wait(&self, attempt: u32, max: Duration) -> Result<Duration, Duration> {
        match self {
            Failure::Status {
                retry_after: Some(asked),
                ..
            } if *asked > max => Err(*asked),
            Failure::Status {
                retry_after: Some(asked),
                ..
            } => Ok(*asked),
            _ => Ok(FIRST_BACKOFF
                .saturating_mul(1 << (attempt - 1).min(16))
                .min(MAX_BACKOFF)),
        }
    }

    fn reason(&self) -> String {
        match self {
            Failure::Status {
                status, message, ..
            } => format!("{status}: {message}"),
            Failure::Transport(message) | Failure::Timeout(message) => message.clone(),
        }
    }

    fn into_error(self, client: &Client, attempts: u32, asked: Option<Duration>) -> AgentError {
        match self {
            Failure::Status {
                status, message, ..
            } => AgentError::Status {
                provider: client.config.provider,
                status: status.as_u16(),
                reason: status.canonical_reason().unwrap_or(""),
                message,
                attempts,
                retry_after: asked,
            },
            Failure::Transport(message) => AgentError::Transport {
                url: shown_url(&client.url),
                message,
                attempts,
            },
            Failure::Timeout(message) => AgentError::Timeout {
                url: shown_url(&client.url),
                message,
                attempts,
            },
        }
    }
}

/// Refuses a base URL that cannot be one, or that carries what must not be sent or shown.
fn check_base_url(base: &str, provider: Provider) -> Result<(), AgentError> {
    let refuse = |reason: String| AgentError::BaseUrl {
        url: shown_url(base),
        reason,
    };
    // Anywhere in it: a password may hold `/`, `?` or `#`, which a URL parser reads as the
    // end of the authority.
    if base.contains('@') {
        return Err(refuse(format!(
            "it carries credentials (`user:password@`); give the key in {} instead",
            key_variable(provider)
        )));
    }
    let uri: ureq::http::Uri = base
        .parse()
        .map_err(|error| refuse(format!("it is not a URL ({error})")))?;
    if !matches!(uri.scheme_str(), Some("http" | "https")) {
        return Err(refuse("it is not an http:// or https:// URL".to_owned()));
    }
    let Some(authority) = uri.authority() else {
        return Err(refuse("it names no host".to_owned()));
    };
    if authority.as_str().contains('@') {
        return Err(refuse(format!(
            "it carries credentials (`user:password@`); give the key in {} instead",
            key_variable(provider)
        )));
    }
    if uri.query().is_some() {
        return Err(refuse(
            "it has a query (`?…`); each request's path and query are added to it".to_owned(),
        ));
    }
    Ok(())
}

/// The wait a response asks for: `retry-after-ms` (OpenAI's), else `retry-after` as seconds or
/// as an HTTP date. A wait too long for a [`Duration`] is [`Duration::MAX`]: longer than any
/// client waits.
fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let header = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    let seconds = |seconds: f64| {
        (seconds.is_finite() && seconds >= 0.0)
            .then(|| Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX))
    };
    if let Some(wait) = header("retry-after-ms")
        .and_then(|value| value.trim().parse::<f64>().ok())
        .and_then(|millis| seconds(millis / 1000.0))
    {
        return Some(wait);
    }
    let value = header("retry-after")?.trim();
    if let Ok(number) = value.parse::<f64>() {
        return seconds(number);
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

/// The message of a provider's error body (`{"error": {"message": …}}` for all of them, in a
/// list for some of Gemini's), else the body itself, cut and quoted.
fn error_message(body: &str) -> String {
    let value: Option<serde_json::Value> = serde_json::from_str(body).ok();
    let error = value.as_ref().map(|value| match value {
        serde_json::Value::Array(items) => items.first().unwrap_or(value),
        _ => value,
    });
    let message = error
        .and_then(|error| error.get("error"))
        .and_then(|error| error.get("message").or(Some(error)))
        .and_then(serde_json::Value::as_str);
    match message {
        Some(message) => quote_long(message),
        None if body.trim().is_empty() => "(no body)".to_owned(),
        None => quote_long(body.trim()),
    }
}

/// A provider's text, quoted so control characters cannot reach a terminal (escaped as JSON
/// escapes them, and what else could hide or reorder text [`neutralize`]d), cut at 500
/// characters.
fn quote_long(text: &str) -> String {
    let quoted = match text.char_indices().nth(500) {
        None => serde_json::to_string(text).unwrap_or_else(|_| quote(text)),
        Some((cut, _)) => {
            let mut quoted = serde_json::to_string(&text[..cut]).unwrap_or_else(|_| quote(text));
            quoted.insert(quoted.len() - 1, '…');
            quoted
        }
    };
    neutralize(&quoted).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, value.parse().unwrap());
        }
        map
    }

    #[test]
    fn retry_after_reads_milliseconds_seconds_and_dates() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        assert_eq!(
            retry_after(
                &headers(&[("retry-after-ms", "250"), ("retry-after", "9")]),
                now
            ),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            retry_after(&headers(&[("retry-after", "2")]), now),
            Some(Duration::from_secs(2))
        );
        assert_eq!(
            retry_after(&headers(&[("retry-after", "0.5")]), now),
            Some(Duration::from_millis(500))
        );
        let later = httpdate::fmt_http_date(now + Duration::from_secs(30));
        assert_eq!(
            retry_after(&headers(&[("retry-after", &later)]), now),
            Some(Duration::from_secs(30))
        );
        let earlier = httpdate::fmt_http_date(now - Duration::from_secs(30));
        assert_eq!(
            retry_after(&headers(&[("retry-after", &earlier)]), now),
            Some(Duration::ZERO)
        );
        // Regression: `retry-after-ms: 1e30` overflowed `Duration::from_secs_f64`, a panic.
        for huge in [
            ("retry-after-ms", "1e30"),
            ("retry-after", "1e30"),
            ("retry-after", "18446744073709551616"),
        ] {
            assert_eq!(
                retry_after(&headers(&[huge]), now),
                Some(Duration::MAX),
                "{huge:?}"
            );
        }
        assert_eq!(
            retry_after(
                &headers(&[("retry-after-ms", "NaN"), ("retry-after", "2")]),
                now
            ),
            Some(Duration::from_secs(2))
        );
        for junk in ["-1", "NaN", "inf", "soon", "1e400"] {
            assert_eq!(
                retry_after(&headers(&[("retry-after", junk)]), now),
                None,
                "{junk}"
            );
        }
        assert_eq!(retry_after(&headers(&[]), now), None);
    }

    #[test]
    fn durations_read_as_people_write_them_and_a_far_deadline_is_none() {
        assert_eq!(seconds(Duration::from_millis(500)), "500 ms");
        assert_eq!(seconds(Duration::from_secs(2)), "2 s");
        assert_eq!(seconds(Duration::from_millis(2500)), "2.5 s");
        assert_eq!(seconds(Duration::from_millis(1001)), "1.001 s");
        // Too far to be an Instant: never reached, no panic.
        let far = Deadline::after(Duration::MAX);
        assert!(far.remaining().is_some_and(|left| left > NO_TIMEOUT / 2));
        assert!(Deadline::after(Duration::ZERO).remaining().is_none());
        let mut config = ClientConfig::new(Provider::Anthropic, "m");
        config.base_url = Some("http://127.0.0.1:1".into());
        config.idle_timeout = Duration::MAX;
        config.request_timeout = Some(Duration::MAX);
        config.connect_timeout = Duration::MAX;
        assert!(Client::new(config).is_ok());
    }

    #[test]
    fn backoff_doubles_up_to_its_cap_and_long_asks_are_refused() {
        let transport = Failure::Transport("refused".into());
        let max = Duration::from_secs(60);
        let waits: Vec<_> = (1..=6).map(|a| transport.wait(a, max).unwrap()).collect();
        assert_eq!(
            waits,
            [500, 1000, 2000, 4000, 8000, 8000].map(Duration::from_millis)
        );
        let asked = Failure::Status {
            status: StatusCode::TOO_MANY_REQUESTS,
            message: String::new(),
            retry_after: Some(Duration::from_secs(3600)),
            should_retry: None,
        };
        assert_eq!(asked.wait(1, max), Err(Duration::from_secs(3600)));
        assert!(asked.retryable());
    }

    #[test]
    fn which_statuses_are_retried() {
        let status = |code: u16, should_retry| Failure::Status {
            status: StatusCode::from_u16(code).unwrap(),
            message: String::new(),
            retry_after: None,
            should_retry,
        };
        for code in [408, 409, 429, 500, 502, 503, 504, 529] {
            assert!(status(code, None).retryable(), "{code}");
        }
        for code in [400, 401, 403, 404, 413, 422] {
            assert!(!status(code, None).retryable(), "{code}");
        }
        assert!(!status(503, Some(false)).retryable());
        assert!(status(400, Some(true)).retryable());
    }

    #[test]
    fn error_messages_come_from_each_providers_error_shape() {
        assert_eq!(
            error_message(r#"{"error": {"message": "Invalid key", "type": "auth"}}"#),
            r#""Invalid key""#
        );
        assert_eq!(
            error_message(
                r#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#
            ),
            r#""Overloaded""#
        );
        assert_eq!(
            error_message(
                r#"[{"error": {"code": 429, "message": "Quota", "status": "RESOURCE_EXHAUSTED"}}]"#
            ),
            r#""Quota""#
        );
        assert_eq!(error_message(r#"{"error": "plain"}"#), r#""plain""#);
        assert_eq!(error_message(""), "(no body)");
        assert_eq!(error_message("<html>\x1b[31m"), r#""<html>\u001b[31m""#);
        assert_eq!(error_message("a\u{202e}b"), r#""a\u{202e}b""#);
        assert_eq!(error_message(&"x".repeat(600)).chars().count(), 503);
    }
}
