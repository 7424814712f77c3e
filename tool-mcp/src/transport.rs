//! The MCP connection's transport: JSON-RPC messages as lines over any byte stream.
//!
//! It replaces rmcp's own line transport so that every request that carries an id gets an
//! answer, whatever its bytes:
//!
//! - A `tools/call`'s `arguments` are not parsed here: their raw text goes to the handler beside
//!   the request (in its extensions), and the runtime parses it as it parses every host's
//!   arguments. A lone surrogate, a number out of range, nesting past the parser's depth limit,
//!   a duplicate key, arguments over the size cap: each comes back as a tool result with
//!   `isError: true`, word for word what `toolhost call` prints.
//! - A line longer than [`MAX_LINE_BYTES_OVER_ARGS`] plus the size cap is not kept: the id is
//!   read from its first [`KEPT_PREFIX_BYTES`] bytes and the rest is counted and dropped. A
//!   `tools/call` gets a tool result with `isError: true` giving its size, any other request
//!   a JSON-RPC error.
//! - A line that is not JSON, or not a message of the protocol, is answered with a JSON-RPC
//!   error (`-32700` parse error, `-32600` invalid request) when its id can be read from it: the
//!   top-level members are read in order up to the first fault, so an `id` ahead of a syntax
//!   error or of the cut still counts.
//! - A line with no id to read (not a JSON object, no `id` member before the fault, or a reply
//!   to the server) is skipped, with one line on standard error: there is nothing to correlate
//!   an answer with, and answering what cannot be read can start an error storm with a peer
//!   that answers errors in turn. Non-standard notifications are ignored silently, as rmcp does.
//!
//! Each `tools/call` also gets a ticket in arrival order; the handler runs it in its turn.
//! Messages are written one per line, each under a lock shared by the transport's own answers
//! and rmcp's concurrent sends.

use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::io;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientJsonRpcMessage, ClientRequest, ContentBlock,
    ErrorData, JsonRpcRequest, RequestId, ServerJsonRpcMessage, ServerResult,
};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;
use tokio::task::JoinSet;

use crate::order::{Arrivals, Ticket};

/// How much longer than the arguments size cap a line may be: room for the rest of the message.
pub const MAX_LINE_BYTES_OVER_ARGS: usize = 64 * 1024;

/// How much of an over-long line is kept to read its id from.
pub const KEPT_PREFIX_BYTES: usize = 64 * 1024;

/// A line buffer larger than this is given back after its line.
const RETAINED_LINE_CAPACITY: usize = 1 << 20;

/// What the transport hands the handler beside a `tools/call` request, in its extensions.
#[derive(Clone, Debug)]
pub(crate) struct RawCall {
    /// The `arguments` member's JSON text exactly as the client sent it (`{}` when absent or
    /// `null`).
    pub(crate) args: Arc<str>,
    /// The call's place in the connection's arrival order.
    pub(crate) ticket: Arc<Ticket>,
}

/// rmcp's [`Transport`] for a server, over a byte stream read and written as JSON Lines.
pub struct LineTransport<R, W> {
    read: BufReader<R>,
    /// The line being read, without its newline.
    line: Vec<u8>,
    /// Set while the rest of an over-long line is being dropped.
    over_long: Option<OverLong>,
    max_args_bytes: usize,
    max_line_bytes: usize,
    writer: Writer<W>,
    /// The transport's own answers being written.
    answers: JoinSet<()>,
    arrivals: Arc<Arrivals>,
    /// The ids of the requests passed on and not answered yet.
    in_flight: InFlight,
    /// The protocol version the server answered `initialize` with, if it has.
    negotiated: Arc<std::sync::Mutex<Option<String>>>,
    /// The host's name, for notes.
    name: Arc<str>,
}

/// The ids of requests in flight, shared by the reading half (which adds them) and the writing
/// half (whose answers end them). rmcp keeps one answer per id, so a request whose id is in
/// flight already would run unanswered: it is refused instead.
#[derive(Clone, Default)]
struct InFlight(Arc<InFlightIds>);

#[derive(Default)]
struct InFlightIds {
    ids: std::sync::Mutex<std::collections::HashSet<RequestId>>,
    /// Told when an id ends.
    ended: tokio::sync::Notify,
}

impl InFlight {
    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::HashSet<RequestId>> {
        self.0
            .ids
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Records `id`; `false` if it is in flight already.
    fn start(&self, id: &RequestId) -> bool {
        self.lock().insert(id.clone())
    }

    fn end(&self, id: &RequestId) {
        self.lock().remove(id);
        self.0.ended.notify_waiters();
    }

    /// Waits until no request is in flight. Cancellation-safe.
    async fn settled(&self) {
        loop {
            let ended = self.0.ended.notified();
            let mut ended = std::pin::pin!(ended);
            // Registered before looking, so an end between the look and the wait is not missed.
            ended.as_mut().enable();
            if self.lock().is_empty() {
                return;
            }
            ended.await;
        }
    }
}

impl<R, W> fmt::Debug for LineTransport<R, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LineTransport")
            .field("max_args_bytes", &self.max_args_bytes)
            .field("max_line_bytes", &self.max_line_bytes)
            .finish_non_exhaustive()
    }
}

struct OverLong {
    prefix: Vec<u8>,
    len: usize,
}

enum LineRead {
    Line,
    OverLong(OverLong),
    Eof,
    Io(io::Error),
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// A transport reading messages from `read` and writing them to `write`, for calls whose
    /// arguments may be `max_args_bytes` long: a line may be [`MAX_LINE_BYTES_OVER_ARGS`] longer.
    pub fn new(read: R, write: W, max_args_bytes: usize) -> Self {
        LineTransport {
            read: BufReader::new(read),
            line: Vec::new(),
            over_long: None,
            max_args_bytes,
            max_line_bytes: max_args_bytes.saturating_add(MAX_LINE_BYTES_OVER_ARGS),
            writer: Writer(Arc::new(Mutex::new(Some(write)))),
            answers: JoinSet::new(),
            arrivals: Arrivals::new(),
            in_flight: InFlight::default(),
            negotiated: Arc::default(),
            name: "toolhost".into(),
        }
    }

    /// The same transport for the host called `name` (`toolhost` unless given), which its
    /// notes on standard error go by.
    #[must_use]
    pub fn with_name(mut self, name: &str) -> Self {
        self.name = name.into();
        self
    }

    /// Reads up to the next newline (or the end of input), never keeping more than the line
    /// limit. Cancellation-safe: nothing is awaited between taking bytes from the buffer and
    /// recording them, so a dropped read resumes where it stopped.
    async fn read_line(&mut self) -> LineRead {
        loop {
            let (consumed, ended) = {
                let available = match self.read.fill_buf().await {
                    Ok(available) => available,
                    Err(error) => return LineRead::Io(error),
                };
                if available.is_empty() {
                    // The end of input ends a last line that has no newline.
                    return match self.over_long.take() {
                        Some(over_long) => LineRead::OverLong(over_long),
                        None if self.line.is_empty() => LineRead::Eof,
                        None => LineRead::Line,
                    };
                }
                let newline = available.iter().position(|&b| b == b'\n');
                let body = &available[..newline.unwrap_or(available.len())];
                if let Some(over_long) = &mut self.over_long {
                    keep_prefix(&mut over_long.prefix, body);
                    over_long.len = over_long.len.saturating_add(body.len());
                } else if self.line.len().saturating_add(body.len()) > self.max_line_bytes {
                    let mut prefix = Vec::new();
                    keep_prefix(&mut prefix, &self.line);
                    keep_prefix(&mut prefix, body);
                    let len = self.line.len() + body.len();
                    release(&mut self.line);
                    self.over_long = Some(OverLong { prefix, len });
                } else {
                    self.line.extend_from_slice(body);
                }
                (
                    newline.map_or(available.len(), |at| at + 1),
                    newline.is_some(),
                )
            };
            self.read.consume(consumed);
            if ended {
                return match self.over_long.take() {
                    Some(over_long) => LineRead::OverLong(over_long),
                    None => LineRead::Line,
                };
            }
        }
    }

    /// Refuses a request whose id is in flight already, records the id of one passed on, and
    /// ends the id a cancellation names.
    fn check_in_flight(&mut self, incoming: Incoming) -> Incoming {
        let message = match &incoming {
            Incoming::Message(message) | Incoming::Call(message, ..) => message,
            _ => return incoming,
        };
        match message {
            ClientJsonRpcMessage::Request(request) if !self.in_flight.start(&request.id) => {
                Incoming::Answer(ServerJsonRpcMessage::error(
                    ErrorData::invalid_request(
                        format!(
                            "invalid request: a request with the id {} is in flight already",
                            one_line(&request.id.to_string())
                        ),
                        None,
                    ),
                    Some(request.id.clone()),
                ))
            }
            ClientJsonRpcMessage::Notification(notification) => {
                if let rmcp::model::ClientNotification::CancelledNotification(cancelled) =
                    &notification.notification
                    && let Some(id) = &cancelled.params.request_id
                {
                    self.in_flight.end(id);
                }
                incoming
            }
            _ => incoming,
        }
    }

    /// Writes a line the transport made itself (an answer whose id rmcp cannot carry).
    fn answer_raw(&mut self, mut line: String) {
        while self.answers.try_join_next().is_some() {}
        let writer = self.writer.clone();
        let name = Arc::clone(&self.name);
        line.push('\n');
        self.answers.spawn(async move {
            if let Err(error) = writer.write_whole(line.as_bytes()).await {
                tool_runtime::text::note!("{name} mcp: could not answer: {error}");
            }
        });
    }

    fn answer(&mut self, mut message: ServerJsonRpcMessage) {
        // In the shape rmcp gives the handler's results: a peer of a revision before
        // 2026-07-28 gets no `resultType`.
        let legacy = self
            .negotiated
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_deref()
            .is_none_or(|version| version < "2026-07-28");
        if legacy && let rmcp::model::JsonRpcMessage::Response(response) = &mut message {
            response.result.strip_result_type_for_legacy_peer();
        }
        // Written by a task of its own, so that `receive` stays cancellation-safe; `close`
        // waits for these.
        while self.answers.try_join_next().is_some() {}
        let writer = self.writer.clone();
        let name = Arc::clone(&self.name);
        self.answers.spawn(async move {
            if let Err(error) = writer.write_message(&message).await {
                tool_runtime::text::note!("{name} mcp: could not answer: {error}");
            }
        });
    }
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        if let Some(id) = answered_id(&item) {
            self.in_flight.end(id);
        }
        if let rmcp::model::JsonRpcMessage::Response(response) = &item
            && let ServerResult::InitializeResult(initialized) = &response.result
        {
            *self
                .negotiated
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) =
                Some(initialized.protocol_version.to_string());
        }
        let writer = self.writer.clone();
        async move { writer.write_message(&item).await }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            let incoming = match self.read_line().await {
                LineRead::Line => {
                    let incoming = parse_line(&self.line);
                    release(&mut self.line);
                    incoming
                }
                LineRead::OverLong(over_long) => {
                    over_long_line(&over_long, self.max_args_bytes, self.max_line_bytes)
                }
                // The input is over, but every request it brought is answered before the
                // connection ends: rmcp gives handlers a few seconds after the end of input, and
                // a call may be queued behind a slow one for longer.
                LineRead::Eof => {
                    self.in_flight.settled().await;
                    return None;
                }
                LineRead::Io(error) => {
                    tool_runtime::text::note!(
                        "{} mcp: reading the connection failed: {error}",
                        self.name
                    );
                    return None;
                }
            };
            let incoming = self.check_in_flight(incoming);
            match incoming {
                Incoming::Message(message) => return Some(message),
                Incoming::RawAnswer(line) => self.answer_raw(line),
                Incoming::Call(mut message, args, _) => {
                    if let ClientJsonRpcMessage::Request(JsonRpcRequest {
                        request: ClientRequest::CallToolRequest(call),
                        ..
                    }) = &mut message
                    {
                        call.extensions.insert(RawCall {
                            args,
                            ticket: Arc::new(self.arrivals.ticket()),
                        });
                    }
                    return Some(message);
                }
                Incoming::Answer(answer) => self.answer(answer),
                Incoming::Skip(reason) => {
                    tool_runtime::text::note!("{} mcp: skipped a line: {reason}", self.name);
                }
                Incoming::Ignore => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        while self.answers.join_next().await.is_some() {}
        let mut write = self.writer.0.lock().await;
        if let Some(mut write) = write.take() {
            write.shutdown().await?;
        }
        Ok(())
    }
}

/// The writing half, shared: one whole line per message.
struct Writer<W>(Arc<Mutex<Option<W>>>);

impl<W> Clone for Writer<W> {
    fn clone(&self) -> Self {
        Writer(Arc::clone(&self.0))
    }
}

impl<W: AsyncWrite + Unpin> Writer<W> {
    async fn write_message(&self, message: &ServerJsonRpcMessage) -> io::Result<()> {
        let mut line = serde_json::to_vec(message).map_err(io::Error::other)?;
        line.push(b'\n');
        self.write_whole(&line).await
    }

    /// Writes `line`, newline included, whole, then flushes.
    async fn write_whole(&self, line: &[u8]) -> io::Result<()> {
        let mut write = self.0.lock().await;
        let Some(write) = write.as_mut() else {
            return Err(io::Error::new(
                io::ErrorKind::NotConnected,
                "the connection is closed",
            ));
        };
        write.write_all(line).await?;
        write.flush().await
    }
}

/// Empties a line buffer, giving back a large one.
fn release(line: &mut Vec<u8>) {
    if line.capacity() > RETAINED_LINE_CAPACITY {
        *line = Vec::new();
    } else {
        line.clear();
    }
}

fn keep_prefix(prefix: &mut Vec<u8>, bytes: &[u8]) {
    let room = KEPT_PREFIX_BYTES.saturating_sub(prefix.len());
    prefix.extend_from_slice(&bytes[..room.min(bytes.len())]);
}

/// What one line is.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// A message for rmcp.
    Message(ClientJsonRpcMessage),
    /// A `tools/call` for rmcp, its raw arguments, and the message's text without them (what
    /// rmcp reads).
    Call(
        ClientJsonRpcMessage,
        Arc<str>,
        // Read by the HTTP layer alone.
        #[cfg_attr(not(feature = "http"), allow(dead_code))] String,
    ),
    /// The transport's own answer to a line it could not pass on.
    Answer(ServerJsonRpcMessage),
    /// A line with nothing to answer, and why it was not passed on.
    Skip(String),
    /// The transport's own answer, as a line: for an id rmcp's types cannot carry.
    RawAnswer(String),
    /// A notification ignored, as rmcp ignores non-standard ones.
    Ignore,
}

/// The id a message answers, if it is an answer.
fn answered_id(message: &ServerJsonRpcMessage) -> Option<&RequestId> {
    match message {
        rmcp::model::JsonRpcMessage::Response(response) => Some(&response.id),
        rmcp::model::JsonRpcMessage::Error(error) => error.id.as_ref(),
        _ => None,
    }
}

/// The answer to a request whose id is JSON-RPC's but not one rmcp carries (a fraction, an
/// integer beyond 64 bits, `null`): an invalid-request error echoing the id as it was sent.
fn unusable_id(raw: &RawValue) -> Incoming {
    Incoming::RawAnswer(format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{},\"error\":{{\"code\":-32600,\"message\":\"invalid \
         request: an id must be a string or an integer of at most 64 bits\"}}}}",
        raw.get()
    ))
}

/// UTF-8 byte order mark, which RFC 8259 lets a parser ignore.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

fn trimmed(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.strip_prefix(UTF8_BOM).unwrap_or(line)
}

pub(crate) fn parse_line(line: &[u8]) -> Incoming {
    let line = trimmed(line);
    if line.is_empty() {
        return Incoming::Ignore;
    }
    let Ok(text) = std::str::from_utf8(line) else {
        return unreadable(line, Fault::Parse, "the line is not UTF-8");
    };
    let members = match serde_json::from_str::<Members<'_>>(text) {
        Ok(members) => members,
        Err(error) => {
            let fault = match error.classify() {
                serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
                    Fault::Parse
                }
                _ => Fault::Invalid,
            };
            return unreadable(line, fault, &error.to_string());
        }
    };
    let id = members.get("id").and_then(request_id);
    let is_reply = members.get("result").is_some() || members.get("error").is_some();
    if let (Some(raw), None, false) = (members.get("id"), &id, is_reply)
        && members.get("method").is_some()
        && matches!(
            raw.get().as_bytes().first(),
            Some(b'-' | b'0'..=b'9' | b'n')
        )
    {
        return unusable_id(raw);
    }
    let method = members
        .get("method")
        .and_then(|raw| serde_json::from_str::<Cow<'_, str>>(raw.get()).ok());
    let answerable = if is_reply { None } else { id };
    if let Some(duplicate) = members.duplicate() {
        let reason = format!("duplicate member {}", quoted(duplicate));
        return invalid(answerable, line.len(), &reason);
    }
    if let (Some("tools/call"), Some(id)) = (method.as_deref(), answerable.clone()) {
        return tools_call(&members, id);
    }
    match serde_json::from_str::<ClientJsonRpcMessage>(text) {
        Ok(message) => Incoming::Message(message),
        Err(_)
            if members.get("id").is_none()
                && method
                    .as_deref()
                    .is_some_and(is_ignored_notification_without_id) =>
        {
            Incoming::Ignore
        }
        Err(_) if method.as_deref().is_some_and(is_non_standard_notification) => Incoming::Ignore,
        Err(error) => invalid(answerable, line.len(), &error.to_string()),
    }
}

/// A `tools/call` with an id: its arguments are taken out as text, and the rest is parsed as
/// rmcp parses the message, with empty arguments in their place.
fn tools_call(members: &Members<'_>, id: RequestId) -> Incoming {
    let Some(params) = members.get("params").filter(|raw| raw.get() != "null") else {
        return invalid(Some(id), 0, "tools/call has no params");
    };
    let params = match serde_json::from_str::<Members<'_>>(params.get()) {
        Ok(params) => params,
        Err(error) => return invalid(Some(id), 0, &format!("params: {error}")),
    };
    if let Some(duplicate) = params.duplicate() {
        let reason = format!("duplicate member {} in params", quoted(duplicate));
        return invalid(Some(id), 0, &reason);
    }
    let args: Arc<str> = match params.get("arguments") {
        Some(raw) if raw.get() != "null" => raw.get().into(),
        _ => "{}".into(),
    };
    let mut rebuilt_params = String::from("{");
    for (key, value) in params.0.iter().filter(|(key, _)| key != "arguments") {
        push_member(&mut rebuilt_params, key, value.get());
    }
    push_member(&mut rebuilt_params, "arguments", "{}");
    rebuilt_params.push('}');
    let mut message = String::from("{");
    for (key, value) in &members.0 {
        let value = if key == "params" {
            &rebuilt_params
        } else {
            value.get()
        };
        push_member(&mut message, key, value);
    }
    message.push('}');
    match serde_json::from_str::<ClientJsonRpcMessage>(&message) {
        Ok(ClientJsonRpcMessage::Request(request))
            if matches!(request.request, ClientRequest::CallToolRequest(_)) =>
        {
            Incoming::Call(ClientJsonRpcMessage::Request(request), args, message)
        }
        // rmcp takes a `tools/call` whose params do not fit for a request of its own kind:
        // refused, saying what does not fit.
        parsed => match serde_json::from_str::<CallToolRequestParams>(&rebuilt_params) {
            Err(error) => invalid(Some(id), 0, &format!("params: {error}")),
            Ok(_) => match parsed {
                Ok(parsed) => Incoming::Call(parsed, args, message),
                Err(error) => invalid(Some(id), 0, &error.to_string()),
            },
        },
    }
}

fn push_member(out: &mut String, key: &str, value: &str) {
    if !out.ends_with('{') {
        out.push(',');
    }
    out.push_str(&serde_json::to_string(key).unwrap_or_else(|_| "\"\"".to_owned()));
    out.push(':');
    out.push_str(value);
}

/// A line too long to keep: answered from its first bytes.
fn over_long_line(over_long: &OverLong, max_args_bytes: usize, max_line_bytes: usize) -> Incoming {
    let seen = Seen::read(trimmed(&over_long.prefix));
    let len = over_long.len;
    match seen.answerable() {
        Some(id) if seen.method.as_deref() == Some("tools/call") => {
            let text = format!(
                "Error: invalid arguments: the request is {len} bytes, more than the limit of \
                 {max_line_bytes} bytes for one message; arguments may be {max_args_bytes} \
                 bytes (--max-args-bytes)"
            );
            let result = CallToolResult::error(vec![ContentBlock::text(text)]);
            Incoming::Answer(ServerJsonRpcMessage::response(
                ServerResult::CallToolResult(result),
                id,
            ))
        }
        Some(id) => Incoming::Answer(ServerJsonRpcMessage::error(
            ErrorData::invalid_request(
                format!(
                    "invalid request: {len} bytes is more than the limit of {max_line_bytes} \
                     bytes for one message"
                ),
                None,
            ),
            Some(id),
        )),
        None => Incoming::Skip(format!(
            "{len} bytes is more than the limit of {max_line_bytes} bytes, and no request id \
             was found in its first {} bytes",
            over_long.prefix.len()
        )),
    }
}

#[derive(Clone, Copy)]
enum Fault {
    Parse,
    Invalid,
}

/// A line that is not a JSON object: answered if an id can be read from it.
fn unreadable(line: &[u8], fault: Fault, reason: &str) -> Incoming {
    let seen = Seen::read(line);
    match (seen.answerable(), fault) {
        (Some(id), Fault::Parse) => Incoming::Answer(ServerJsonRpcMessage::error(
            ErrorData::parse_error(format!("parse error: {}", one_line(reason)), None),
            Some(id),
        )),
        (id, _) => invalid(id, line.len(), reason),
    }
}

/// An invalid request: answered with its id, or skipped without one.
fn invalid(id: Option<RequestId>, len: usize, reason: &str) -> Incoming {
    match id {
        Some(id) => Incoming::Answer(ServerJsonRpcMessage::error(
            ErrorData::invalid_request(format!("invalid request: {}", one_line(reason)), None),
            Some(id),
        )),
        None => Incoming::Skip(format!(
            "{len} bytes with no request id to answer: {}",
            one_line(reason)
        )),
    }
}

fn request_id(raw: &RawValue) -> Option<RequestId> {
    serde_json::from_str(raw.get()).ok()
}

fn quoted(text: &str) -> String {
    one_line(&serde_json::to_string(text).unwrap_or_default())
}

/// The longest message text, in characters.
const MAX_MESSAGE_CHARS: usize = 200;

/// `text` as a message quotes it: on one line, nothing in it able to drive a terminal or hide,
/// cut to [`MAX_MESSAGE_CHARS`] characters.
fn one_line(text: &str) -> String {
    tool_runtime::text::excerpt(text, MAX_MESSAGE_CHARS)
}

/// The members of a JSON object in order, their values unparsed.
struct Members<'a>(Vec<(String, &'a RawValue)>);

impl<'a> Members<'a> {
    fn get(&self, key: &str) -> Option<&'a RawValue> {
        self.0
            .iter()
            .find_map(|(name, value)| (name == key).then_some(*value))
    }

    fn duplicate(&self) -> Option<&str> {
        let mut seen = std::collections::HashSet::with_capacity(self.0.len());
        self.0
            .iter()
            .find_map(|(key, _)| (!seen.insert(key.as_str())).then_some(key.as_str()))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Members<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MembersVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for MembersVisitor<'a> {
            type Value = Members<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members<'a>, A::Error> {
                let mut members = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    let value: &'de RawValue = map.next_value()?;
                    members.push((key, value));
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(MembersVisitor(std::marker::PhantomData))
    }
}

/// What the top-level members of a line said, up to its first fault.
#[derive(Debug, Default)]
struct Seen {
    id: Option<RequestId>,
    method: Option<String>,
    is_reply: bool,
}

impl Seen {
    fn read(line: &[u8]) -> Seen {
        let mut seen = Seen::default();
        let mut deserializer = serde_json::Deserializer::from_slice(line);
        // The walk stops at the first fault; what it saw before stays in `seen`.
        let _ = (&mut deserializer).deserialize_map(Walk(&mut seen));
        seen
    }

    /// The id to answer, unless there is none or the line is a reply.
    fn answerable(&self) -> Option<RequestId> {
        if self.is_reply { None } else { self.id.clone() }
    }
}

struct Walk<'s>(&'s mut Seen);

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match key.as_ref() {
                "id" if self.0.id.is_none() => {
                    let value: serde_json::Value = map.next_value()?;
                    self.0.id = serde_json::from_value(value).ok();
                }
                "method" if self.0.method.is_none() => {
                    let value: serde_json::Value = map.next_value()?;
                    self.0.method = value.as_str().map(str::to_owned);
                }
                "result" | "error" => {
                    self.0.is_reply = true;
                    map.next_value::<IgnoredAny>()?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

// rmcp's compatibility rule (`should_ignore_notification`): a message that does not parse is
// dropped silently when it is a notification of a method outside MCP (an LSP message, say), or
// any non-standard `notifications/...` method.

fn is_ignored_notification_without_id(method: &str) -> bool {
    !is_standard_method(method) || is_non_standard_notification(method)
}

fn is_non_standard_notification(method: &str) -> bool {
    method.starts_with("notifications/") && !is_standard_notification(method)
}

fn is_standard_method(method: &str) -> bool {
    matches!(
        method,
        "initialize"
            | "ping"
            | "server/discover"
            | "prompts/get"
            | "prompts/list"
            | "resources/list"
            | "resources/read"
            | "resources/subscribe"
            | "resources/unsubscribe"
            | "resources/templates/list"
            | "subscriptions/listen"
            | "tools/call"
            | "tools/list"
            | "completion/complete"
            | "elicitation/create"
            | "logging/setLevel"
            | "roots/list"
            | "sampling/createMessage"
    ) || is_standard_notification(method)
}

fn is_standard_notification(method: &str) -> bool {
    matches!(
        method,
        "notifications/cancelled"
            | "notifications/initialized"
            | "notifications/message"
            | "notifications/progress"
            | "notifications/prompts/list_changed"
            | "notifications/resources/list_changed"
            | "notifications/resources/updated"
            | "notifications/roots/list_changed"
            | "notifications/subscriptions/acknowledged"
            | "notifications/tools/list_changed"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call_line(args: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"todo_write","arguments":{args}}}}}"#
        )
    }

    fn raw_args(incoming: Incoming) -> String {
        match incoming {
            Incoming::Call(_, args, _) => args.to_string(),
            other => panic!("{other:?}"),
        }
    }

    fn answer(incoming: Incoming) -> serde_json::Value {
        match incoming {
            Incoming::Answer(answer) => serde_json::to_value(answer).unwrap(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn raw_values_skip_what_a_typed_parse_refuses() {
        let deep = format!("{}{}", "[".repeat(1000), "]".repeat(1000));
        for args in [
            r#"{"todos":"\ud83d"}"#,
            r#"{"todos":1e400}"#,
            r#"{"todos":[], "todos":[1]}"#,
            &format!(r#"{{"todos":{deep}}}"#),
        ] {
            assert_eq!(raw_args(parse_line(call_line(args).as_bytes())), args);
        }
    }

    #[test]
    fn absent_or_null_arguments_are_an_empty_object() {
        let line = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#;
        assert_eq!(raw_args(parse_line(line.as_bytes())), "{}");
        let line = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":null}}"#;
        assert_eq!(raw_args(parse_line(line.as_bytes())), "{}");
    }

    #[test]
    fn the_rest_of_a_call_is_parsed_as_rmcp_parses_it() {
        let line = "\u{feff}".to_owned() + &call_line(r#"{"a":1}"#) + "\r";
        match parse_line(line.as_bytes()) {
            Incoming::Call(
                ClientJsonRpcMessage::Request(JsonRpcRequest {
                    id,
                    request: ClientRequest::CallToolRequest(call),
                    ..
                }),
                args,
                _,
            ) => {
                assert_eq!(id, RequestId::Number(7));
                assert_eq!(call.params.name, "todo_write");
                assert_eq!(&*args, r#"{"a":1}"#);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_broken_line_with_an_id_is_answered_with_it() {
        let parse = answer(parse_line(
            br#"{"jsonrpc":"2.0","id":"x","method":"tools/ca"#,
        ));
        assert_eq!(parse["id"], "x");
        assert_eq!(parse["error"]["code"], -32700);
        let shape = answer(parse_line(
            br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{}}}"#,
        ));
        assert_eq!(shape["id"], 3);
        assert_eq!(shape["error"]["code"], -32600);
        assert!(
            shape["error"]["message"]
                .as_str()
                .unwrap()
                .contains("missing field `name`"),
            "{shape}"
        );
        let twice = answer(parse_line(
            br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"a","name":"b"}}"#,
        ));
        assert_eq!(twice["error"]["code"], -32600);
        let not_utf8 = answer(parse_line(b"{\"id\":5,\"method\":\"ping\",\"x\":\"\xff\"}"));
        assert_eq!(not_utf8["id"], 5);
    }

    #[test]
    fn what_has_no_id_is_skipped() {
        for line in [
            &b"not json"[..],
            b"[1,2]",
            br#"{"jsonrpc":"2.0","method":"ping""#,
            br#"{"jsonrpc":"2.0","id":1,"result":{"x":"#,
            br#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
        ] {
            assert!(
                matches!(parse_line(line), Incoming::Skip(_)),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        assert!(matches!(
            parse_line(br#"{"jsonrpc":"2.0","method":"$/lsp","params":[]}"#),
            Incoming::Ignore
        ));
        assert!(matches!(parse_line(b""), Incoming::Ignore));
    }

    #[test]
    fn messages_quote_control_characters_on_one_line() {
        let line = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\",\"na\\nme\":1,\"na\\nme\":2}}";
        let message = answer(parse_line(line.as_bytes()))["error"]["message"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(!message.chars().any(char::is_control), "{message}");
    }

    #[test]
    fn an_over_long_call_is_answered_from_its_prefix() {
        let over_long = OverLong {
            prefix: call_line("[").into_bytes(),
            len: 1 << 30,
        };
        let result = answer(over_long_line(&over_long, 100, 200));
        assert_eq!(result["id"], 7);
        assert_eq!(result["result"]["isError"], true);
        let text = result["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("1073741824 bytes"), "{text}");
        assert!(text.contains("--max-args-bytes"), "{text}");
    }
}
