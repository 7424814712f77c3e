//! The layer in front of rmcp's Streamable HTTP service: each `POST` body read with a limit,
//! a call's arguments kept as the text sent, its caller and session checked, and calls of one
//! session put in the order they arrived.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, RequestMetaObject};

use crate::auth::{Auth, Principal};
use crate::error::McpError;
use crate::lock::lock;
use crate::order::Arrivals;
use crate::sessions::{HttpSessions, session_named};
use crate::transport::{self, Incoming, RawCall};
use tool_runtime::Owner;

/// How long a request's body may take to arrive whole.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(60);

/// What the layer in front of rmcp shares.
pub(crate) struct Front {
    pub(crate) max_body: usize,
    pub(crate) max_args_bytes: usize,
    pub(crate) arrivals: Mutex<HashMap<String, Weak<Arrivals>>>,
    /// The tools, for the scopes each needs; and how callers are checked, if they are.
    pub(crate) ctx: Arc<tool_runtime::Ctx>,
    pub(crate) auth: Option<Arc<Auth>>,
    /// The sessions, for their owners; and the owners read, by session.
    pub(crate) sessions: Arc<HttpSessions>,
    pub(crate) owners: Mutex<HashMap<String, Owner>>,
    /// The tools whose arguments a client mirrors in `Mcp-Param-*` headers (SEP-2243).
    pub(crate) mirrored: std::collections::HashSet<String>,
}

impl Front {
    /// Whether MCP session `id` is `principal`'s (read from the store once, then kept).
    async fn owned_by(&self, id: &str, principal: &Principal) -> bool {
        let wanted = Owner::of(principal);
        if let Some(owner) = lock(&self.owners).get(id) {
            return *owner == wanted;
        }
        let sessions = Arc::clone(&self.sessions);
        let key = id.to_owned();
        let read = tokio::task::spawn_blocking(move || sessions.owner(&key)).await;
        match read {
            Ok(Ok(Some(owner))) => {
                let mine = owner == wanted;
                let mut owners = lock(&self.owners);
                if owners.len() >= 4096 {
                    owners.clear();
                }
                owners.insert(id.to_owned(), owner);
                mine
            }
            _ => false,
        }
    }

    /// Records `principal` as the owner of MCP session `id`, begun just now.
    async fn own(&self, id: &str, principal: &Principal) -> Result<(), McpError> {
        let sessions = Arc::clone(&self.sessions);
        let (key, owner) = (id.to_owned(), Owner::of(principal));
        let recorded = owner.clone();
        tokio::task::spawn_blocking(move || sessions.agent(&key, Some(&recorded)).map(drop))
            .await
            .map_err(|error| McpError::Protocol(error.to_string()))??;
        lock(&self.owners).insert(id.to_owned(), owner);
        Ok(())
    }

    fn arrivals(&self, key: String) -> Arc<Arrivals> {
        let mut map = lock(&self.arrivals);
        if let Some(arrivals) = map.get(&key).and_then(Weak::upgrade) {
            return arrivals;
        }
        if map.len() >= 1024 {
            map.retain(|_, arrivals| arrivals.strong_count() > 0);
        }
        let arrivals = Arrivals::new();
        map.insert(key, Arc::downgrade(&arrivals));
        arrivals
    }
}

/// Reads a `POST`'s body within the limit and hands a `tools/call`'s arguments on as text.
pub(crate) async fn front(
    State(front): State<Arc<Front>>,
    request: Request,
    next: Next,
) -> Response {
    // An MCP session is its owner's: anyone else's request for it is answered as for a session
    // that does not exist, word for word.
    let principal = request.extensions().get::<Principal>().cloned();
    if let Some(principal) = &principal
        && let Some(id) = request.headers().get("mcp-session-id")
    {
        let id = String::from_utf8_lossy(id.as_bytes()).into_owned();
        if !front.owned_by(&id, principal).await {
            return session_not_found();
        }
    }
    if request.method() == Method::DELETE {
        // rmcp accepts a session's end with 202; it is done, with nothing to say (204), as
        // clients expect of a DELETE.
        let mut response = next.run(request).await;
        if response.status() == StatusCode::ACCEPTED {
            *response.status_mut() = StatusCode::NO_CONTENT;
        }
        return response;
    }
    if request.method() != Method::POST || !is_json(request.headers()) {
        // rmcp answers what is not a JSON POST (405, 415) without reading it.
        return next.run(request).await;
    }
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    if let Some(length) = declared
        && length > front.max_body as u64
    {
        return too_large(Some(length), &front);
    }
    let (mut parts, body) = request.into_parts();
    let read = http_body_util::Limited::new(body, front.max_body).collect();
    let Ok(read) = tokio::time::timeout(BODY_TIMEOUT, read).await else {
        return jsonrpc_error(
            StatusCode::REQUEST_TIMEOUT,
            -32700,
            &format!(
                "the request body did not arrive whole within {} s",
                BODY_TIMEOUT.as_secs()
            ),
        );
    };
    let bytes = match read {
        Ok(collected) => collected.to_bytes(),
        Err(error) if error.is::<http_body_util::LengthLimitError>() => {
            return too_large(None, &front);
        }
        Err(error) => {
            return jsonrpc_error(
                StatusCode::BAD_REQUEST,
                -32700,
                &format!("the request body could not be read: {error}"),
            );
        }
    };
    match transport::parse_line(&bytes) {
        Incoming::Call(mut message, args, text) => {
            if let (Some(auth), Some(principal)) =
                (&front.auth, parts.extensions.get::<Principal>())
                && let Some(refused) = lacks_scopes(&front.ctx, auth, principal, &message)
            {
                return refused;
            }
            // A call of a tool whose arguments the client mirrors in headers carries its
            // arguments on, parsed, for rmcp to check the headers against; the tool still gets
            // the text the client sent. Other calls go on as the text read, arguments left out.
            let mut mirrored = false;
            if let ClientJsonRpcMessage::Request(request) = &mut message
                && let ClientRequest::CallToolRequest(call) = &mut request.request
                && front.mirrored.contains(call.params.name.as_ref())
                && let Ok(serde_json::Value::Object(arguments)) = serde_json::from_str(&args)
            {
                call.params.arguments = Some(arguments);
                mirrored = true;
            }
            let meta = call_meta(&message);
            let key = session_named(&parts.headers, meta).unwrap_or_default();
            let ticket = Arc::new(front.arrivals(key).ticket());
            parts.extensions.insert(RawCall { args, ticket });
            let body = if mirrored {
                match serde_json::to_vec(&message) {
                    Ok(body) => body,
                    Err(error) => {
                        return jsonrpc_error(
                            StatusCode::INTERNAL_SERVER_ERROR,
                            -32603,
                            &error.to_string(),
                        );
                    }
                }
            } else {
                text.into_bytes()
            };
            next.run(Request::from_parts(parts, Body::from(body))).await
        }
        Incoming::Answer(message) => match serde_json::to_string(&message) {
            Ok(text) => json_response(StatusCode::BAD_REQUEST, text),
            Err(error) => jsonrpc_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                -32603,
                &error.to_string(),
            ),
        },
        Incoming::RawAnswer(text) => json_response(StatusCode::BAD_REQUEST, text),
        // Over stdio a line without an id is passed over; a POST is answered all the same.
        Incoming::Skip(reason) => {
            let parses = serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).is_ok();
            let (code, kind) = if parses {
                (-32600, "invalid request")
            } else {
                (-32700, "parse error")
            };
            jsonrpc_error(StatusCode::BAD_REQUEST, code, &format!("{kind}: {reason}"))
        }
        Incoming::Ignore if bytes.trim_ascii().is_empty() => jsonrpc_error(
            StatusCode::BAD_REQUEST,
            -32700,
            "parse error: the request body is empty",
        ),
        Incoming::Message(message) => {
            let initialize = matches!(
                &message,
                ClientJsonRpcMessage::Request(request)
                    if matches!(request.request, ClientRequest::InitializeRequest(_))
            );
            let response = next
                .run(Request::from_parts(parts, Body::from(bytes)))
                .await;
            // A session begun by a caller whose token was checked is its caller's.
            match (
                initialize,
                principal,
                response.headers().get("mcp-session-id"),
            ) {
                (true, Some(principal), Some(id)) => {
                    let id = String::from_utf8_lossy(id.as_bytes()).into_owned();
                    match front.own(&id, &principal).await {
                        Ok(()) => response,
                        Err(error) => {
                            tool_runtime::text::note!("mcp: session {id}: {error}");
                            jsonrpc_error(
                                StatusCode::INTERNAL_SERVER_ERROR,
                                -32603,
                                "the session's owner could not be recorded",
                            )
                        }
                    }
                }
                _ => response,
            }
        }
        Incoming::Ignore => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
    }
}

/// The `403` of a call whose tool needs scopes the caller's token does not grant (checked
/// before its arguments are read), with the challenge that lets a client ask for them.
fn lacks_scopes(
    ctx: &tool_runtime::Ctx,
    auth: &Auth,
    principal: &Principal,
    message: &ClientJsonRpcMessage,
) -> Option<Response> {
    let ClientJsonRpcMessage::Request(request) = message else {
        return None;
    };
    let ClientRequest::CallToolRequest(call) = &request.request else {
        return None;
    };
    let tool = ctx.tools.get(&call.params.name)?;
    let needed: Vec<&str> = tool.definition().scopes().collect();
    if needed.iter().all(|scope| principal.has_scope(scope)) {
        return None;
    }
    let scopes = needed.join(" ");
    let message = format!(
        "forbidden: calling {} needs the scope {scopes}, which the token does not grant",
        tool_runtime::text::quote(&call.params.name)
    );
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": request.id,
        "error": {"code": -32003, "message": message},
    });
    let mut response = json_response(StatusCode::FORBIDDEN, body.to_string());
    if let Ok(value) = HeaderValue::from_str(&auth.insufficient_scope(&scopes)) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    Some(response)
}

/// What rmcp answers for a session it does not hold, to the byte.
fn session_not_found() -> Response {
    (StatusCode::NOT_FOUND, "Not Found: Session not found").into_response()
}

fn call_meta(message: &ClientJsonRpcMessage) -> Option<&RequestMetaObject> {
    match message {
        ClientJsonRpcMessage::Request(request) => match &request.request {
            ClientRequest::CallToolRequest(call) => call.params.meta.as_ref(),
            _ => None,
        },
        _ => None,
    }
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            value
                .split(';')
                .next()
                .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
        })
}

fn too_large(length: Option<u64>, front: &Front) -> Response {
    let size = match length {
        Some(length) => format!("the request body is {length} bytes, more than"),
        None => "the request body is more than".to_owned(),
    };
    jsonrpc_error(
        StatusCode::PAYLOAD_TOO_LARGE,
        -32600,
        &format!(
            "{size} the limit of {} bytes for one message; arguments may be {} bytes \
             (--max-args-bytes)",
            front.max_body, front.max_args_bytes
        ),
    )
}

fn jsonrpc_error(status: StatusCode, code: i64, message: &str) -> Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": code, "message": message},
    });
    json_response(status, body.to_string())
}

fn json_response(status: StatusCode, body: String) -> Response {
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}
