//! Trace context in MCP requests: W3C `traceparent` and `tracestate` in `_meta`, read by the
//! server and written by the client.

use opentelemetry::propagation::{Extractor, TextMapPropagator};
use opentelemetry::trace::TraceContextExt as _;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use serde_json::{Map, Value};
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

/// W3C trace context in an MCP request's `_meta`.
struct Meta<'a>(&'a Map<String, Value>);

impl Extractor for Meta<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(Value::as_str)
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

#[cfg(feature = "toolsets")]
struct MetaMut<'a>(&'a mut Map<String, Value>);

#[cfg(feature = "toolsets")]
impl opentelemetry::propagation::Injector for MetaMut<'_> {
    fn set(&mut self, key: &str, value: String) {
        self.0.insert(key.to_owned(), Value::String(value));
    }
}

/// Makes `span` a child of the caller's span named in `meta` (`traceparent`, `tracestate`) or,
/// when `meta` names none, in the HTTP request's `headers`. A context that is absent or does not
/// parse leaves `span` where it is.
pub(crate) fn adopt_remote_parent(
    span: &tracing::Span,
    meta: &Map<String, Value>,
    headers: Option<&ureq::http::HeaderMap>,
) {
    if span.is_disabled() {
        return;
    }
    let propagator = TraceContextPropagator::new();
    let context = if meta.contains_key("traceparent") {
        propagator.extract(&Meta(meta))
    } else if let Some(headers) = headers {
        propagator.extract(&opentelemetry_http::HeaderExtractor(headers))
    } else {
        return;
    };
    if context.span().span_context().is_remote() {
        // Fails only when the span has no OpenTelemetry layer, and then there is no trace.
        let _ = span.set_parent(context);
    }
}

/// Writes `span`'s trace context into an MCP request's `_meta`, when it is being traced.
#[cfg(feature = "toolsets")]
pub(crate) fn inject(span: &tracing::Span, meta: &mut Map<String, Value>) {
    if span.is_disabled() {
        return;
    }
    let context: opentelemetry::Context = span.context();
    if context.span().span_context().is_valid() {
        TraceContextPropagator::new().inject_context(&context, &mut MetaMut(meta));
    }
}
