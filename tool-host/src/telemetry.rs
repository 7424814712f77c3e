//! OpenTelemetry: a host's spans and the metrics read from them, exported over OTLP/HTTP.
//!
//! `toolhost --otlp-endpoint http://collector:4318 …`, or the standard
//! `OTEL_EXPORTER_OTLP_ENDPOINT` (and its per-signal `…_TRACES_ENDPOINT`, `…_METRICS_ENDPOINT`),
//! turns it on for any command; nothing is exported, and no subscriber installed, without one.
//! Traces go to `/v1/traces` and metrics to `/v1/metrics` under the endpoint, as protobuf bodies
//! (OTLP's default transport), batched on the SDK's own threads: a call never waits for the
//! collector. What is still queued is sent when the command ends. `OTEL_EXPORTER_OTLP_HEADERS`,
//! `OTEL_EXPORTER_OTLP_TIMEOUT`, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES` and
//! `OTEL_METRIC_EXPORT_INTERVAL` mean what OpenTelemetry says; `OTEL_SDK_DISABLED=true` turns it
//! all off.
//!
//! # Spans
//!
//! Named and attributed after OpenTelemetry's GenAI and MCP semantic conventions:
//!
//! | span | from | attributes |
//! | --- | --- | --- |
//! | `invoke_agent` | an agent run | `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.conversation.id` (the session) |
//! | `chat {model}` (client) | each request to the provider | `gen_ai.response.id`, `gen_ai.response.model`, `gen_ai.response.finish_reasons`, `gen_ai.usage.input_tokens`, `gen_ai.usage.output_tokens`; a `retry` event per retry |
//! | `execute_tool {tool}` | each dispatch | `gen_ai.tool.name`, `gen_ai.tool.call.id`, `error.type` |
//! | `tools/call {tool}` (server) | each MCP `tools/call` served | `mcp.method.name`, `jsonrpc.request.id`, `network.transport` |
//! | `tools/call {tool}` (client) | each call to another MCP server's tool | `mcp.method.name`, `gen_ai.tool.name` |
//! | `session.append` | each event kept | `toolhost.session.store`, `toolhost.session.seq` |
//!
//! A call's arguments and result (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`) are
//! recorded only with `--otlp-content` (or `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`):
//! they may hold what the model should see and an operator should not.
//!
//! # Trace context across MCP
//!
//! A served `tools/call` whose `_meta` carries W3C `traceparent` (and `tracestate`), or whose HTTP
//! request carries them as headers, is a child of the caller's span; a call to another MCP
//! server's tool sends its own span's context in `_meta`. One trace then runs from the agent
//! through the model and the tool to the server's tool and back.
//!
//! # Metrics
//!
//! | metric | unit | attributes |
//! | --- | --- | --- |
//! | `gen_ai.client.token.usage` | `{token}` | `gen_ai.token.type` (`input`, `output`), provider, models |
//! | `gen_ai.client.operation.duration` | `s` | `gen_ai.operation.name` (`chat`), provider, models, `error.type` |
//! | `toolhost.tool.calls` | `{call}` | `gen_ai.tool.name`, `toolhost.tool.outcome` (`ok`, `error`) |
//! | `toolhost.tool.duration` | `s` | the same |
//! | `toolhost.session.append.duration` | `s` | `toolhost.session.store` (`files`, `postgres`) |

use std::collections::HashMap;
use std::time::{Duration, Instant};

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram, Meter, MeterProvider as _};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, WithExportConfig as _, WithHttpConfig as _};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Level, Subscriber};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::{Context as LayerContext, Layer, SubscriberExt as _};
use tracing_subscriber::registry::LookupSpan;

/// How long one export may take unless `OTEL_EXPORTER_OTLP_TIMEOUT` says (OpenTelemetry's
/// default).
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// The exporters of a running command; dropping it sends what is queued and stops them.
pub(crate) struct Telemetry {
    traces: SdkTracerProvider,
    metrics: SdkMeterProvider,
    /// The host's name, for its notes.
    name: &'static str,
}

/// What a command line asked for.
pub(crate) struct Settings<'a> {
    /// `--otlp-endpoint`: the base URL, under which `/v1/traces` and `/v1/metrics` are.
    pub(crate) endpoint: Option<&'a str>,
    /// The host's name and version: the default `service.name` and `service.version`.
    pub(crate) name: &'static str,
    pub(crate) version: &'a str,
}

impl Telemetry {
    /// Starts exporting when the command line or the environment names an endpoint (and
    /// `OTEL_SDK_DISABLED` is not `true`), and installs the subscriber that feeds the exporters.
    /// `None` when nothing was asked. An endpoint that is not a URL, or a protocol other than
    /// `http/protobuf`, is an error.
    pub(crate) fn start(settings: &Settings<'_>) -> Result<Option<Telemetry>, String> {
        if env("OTEL_SDK_DISABLED").is_some_and(|value| value.eq_ignore_ascii_case("true")) {
            return Ok(None);
        }
        let from_env = [
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
        ]
        .into_iter()
        .any(|name| env(name).is_some());
        if settings.endpoint.is_none() && !from_env {
            return Ok(None);
        }
        for name in [
            "OTEL_EXPORTER_OTLP_PROTOCOL",
            "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
            "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
        ] {
            if let Some(protocol) = env(name)
                && protocol != "http/protobuf"
            {
                return Err(format!(
                    "{name}={protocol}: this host exports OTLP over http/protobuf only"
                ));
            }
        }
        let endpoint = |signal: &str| {
            settings
                .endpoint
                .map(|base| format!("{}/v1/{signal}", base.trim_end_matches('/')))
        };
        let client = UreqClient::new(timeout()?);
        let resource = resource(settings.name, settings.version);

        let mut spans = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_http_client(client.clone());
        if let Some(endpoint) = endpoint("traces") {
            spans = spans.with_endpoint(endpoint);
        }
        let spans = spans.build().map_err(|error| error.to_string())?;
        let traces = SdkTracerProvider::builder()
            .with_batch_exporter(spans)
            .with_resource(resource.clone())
            .build();

        let mut measures = opentelemetry_otlp::MetricExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_http_client(client);
        if let Some(endpoint) = endpoint("metrics") {
            measures = measures.with_endpoint(endpoint);
        }
        let measures = measures.build().map_err(|error| error.to_string())?;
        let metrics = SdkMeterProvider::builder()
            .with_reader(PeriodicReader::builder(measures).build())
            .with_resource(resource)
            .build();

        let scope = env!("CARGO_PKG_NAME");
        let subscriber = tracing_subscriber::registry()
            .with(
                tracing_opentelemetry::layer()
                    .with_tracer(traces.tracer(scope))
                    .with_tracked_inactivity(false)
                    .with_filter(ours()),
            )
            .with(SpanMetrics::new(&metrics.meter(scope)).with_filter(ours()));
        if tracing::subscriber::set_global_default(subscriber).is_err() {
            crate::note!(
                "{}: a tracing subscriber was already installed; its spans are not exported",
                settings.name
            );
        }
        Ok(Some(Telemetry {
            traces,
            metrics,
            name: settings.name,
        }))
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        if let Err(error) = self.traces.shutdown() {
            crate::note!("{}: the traces were not all exported: {error}", self.name);
        }
        if let Err(error) = self.metrics.shutdown() {
            crate::note!("{}: the metrics were not all exported: {error}", self.name);
        }
    }
}

/// An environment variable's value, unless it is unset or empty.
fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|value| !value.is_empty())
}

/// `OTEL_EXPORTER_OTLP_TIMEOUT` (milliseconds), or 10 s.
fn timeout() -> Result<Duration, String> {
    match env("OTEL_EXPORTER_OTLP_TIMEOUT") {
        None => Ok(DEFAULT_TIMEOUT),
        Some(millis) => millis.parse().map(Duration::from_millis).map_err(|_| {
            format!("OTEL_EXPORTER_OTLP_TIMEOUT={millis}: expected a whole number of milliseconds")
        }),
    }
}

/// `service.name` and `service.version` are the host's unless the environment names the
/// service (`OTEL_SERVICE_NAME`, or `service.name` in `OTEL_RESOURCE_ATTRIBUTES`).
fn resource(name: &'static str, version: &str) -> Resource {
    let named = env("OTEL_SERVICE_NAME").is_some()
        || env("OTEL_RESOURCE_ATTRIBUTES").is_some_and(|attributes| {
            attributes
                .split(',')
                .any(|pair| pair.trim_start().starts_with("service.name="))
        });
    let mut resource = Resource::builder();
    if !named {
        resource = resource.with_service_name(name);
    }
    resource
        .with_attribute(KeyValue::new("service.version", version.to_owned()))
        .build()
}

/// The spans exported: everything at INFO and above but the libraries' own (the HTTP stacks',
/// rmcp's, the database driver's), which would bury a run's spans.
fn ours() -> Targets {
    let quiet = [
        "rmcp",
        "hyper",
        "hyper_util",
        "h2",
        "reqwest",
        "tower",
        "axum",
        "rustls",
        "ureq",
        "ureq_proto",
        "tokio_postgres",
        "postgres",
        "opentelemetry",
        "opentelemetry_sdk",
        "opentelemetry_otlp",
        "opentelemetry_http",
    ];
    quiet.into_iter().fold(
        Targets::new().with_default(Level::INFO),
        |targets, target| targets.with_target(target, tracing::level_filters::LevelFilter::OFF),
    )
}

/// The exporter's HTTP client: the ureq (rustls on ring) the agent's requests use. It follows no
/// redirect (`OTEL_EXPORTER_OTLP_HEADERS` may hold a token) and reads at most 4 MiB of answer.
#[derive(Clone, Debug)]
struct UreqClient(ureq::Agent);

impl UreqClient {
    fn new(timeout: Duration) -> Self {
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .max_redirects(0)
            .http_status_as_error(false)
            .build();
        UreqClient(config.into())
    }
}

#[async_trait::async_trait]
impl opentelemetry_http::HttpClient for UreqClient {
    async fn send_bytes(
        &self,
        request: opentelemetry_http::Request<opentelemetry_http::Bytes>,
    ) -> Result<
        opentelemetry_http::Response<opentelemetry_http::Bytes>,
        opentelemetry_http::HttpError,
    > {
        // The SDK exports on threads of its own, which may block.
        let response = self.0.run(request.map(|body| body.to_vec()))?;
        let (parts, mut body) = response.into_parts();
        let body = body.with_config().limit(4 << 20).read_to_vec()?;
        Ok(opentelemetry_http::Response::from_parts(parts, body.into()))
    }
}

/// The metrics, read from the spans as they close: their attributes and how long they were
/// open. The spans' makers (tool-runtime, tool-agent) need no metrics API.
struct SpanMetrics {
    token_usage: Histogram<u64>,
    operation_duration: Histogram<f64>,
    tool_calls: Counter<u64>,
    tool_duration: Histogram<f64>,
    append_duration: Histogram<f64>,
}

impl SpanMetrics {
    fn new(meter: &Meter) -> Self {
        // The bucket boundaries OpenTelemetry's GenAI conventions advise.
        let seconds = vec![
            0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
        ];
        let tokens = (0..14).map(|power| 4f64.powi(power)).collect();
        SpanMetrics {
            token_usage: meter
                .u64_histogram("gen_ai.client.token.usage")
                .with_unit("{token}")
                .with_description("Number of input and output tokens used")
                .with_boundaries(tokens)
                .build(),
            operation_duration: meter
                .f64_histogram("gen_ai.client.operation.duration")
                .with_unit("s")
                .with_description("GenAI operation duration")
                .with_boundaries(seconds)
                .build(),
            tool_calls: meter
                .u64_counter("toolhost.tool.calls")
                .with_unit("{call}")
                .with_description("Tool calls dispatched, by tool and outcome")
                .build(),
            tool_duration: meter
                .f64_histogram("toolhost.tool.duration")
                .with_unit("s")
                .with_description("How long a tool call took, by tool and outcome")
                .with_boundaries(vec![
                    0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 10.0, 60.0,
                ])
                .build(),
            append_duration: meter
                .f64_histogram("toolhost.session.append.duration")
                .with_unit("s")
                .with_description("How long keeping one session event took, by store")
                .with_boundaries(vec![
                    0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                    0.25, 0.5, 1.0,
                ])
                .build(),
        }
    }
}

/// Which spans give metrics.
#[derive(Clone, Copy, PartialEq)]
enum Measured {
    Chat,
    Tool,
    Append,
}

/// What a measured span recorded, kept in its extensions until it closes.
struct Seen {
    measured: Measured,
    opened: Instant,
    strings: HashMap<&'static str, String>,
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
}

/// The attributes a metric is broken down by.
const KEPT: [&str; 7] = [
    "gen_ai.provider.name",
    "gen_ai.request.model",
    "gen_ai.response.model",
    "gen_ai.tool.name",
    "error.type",
    "toolhost.session.store",
    "gen_ai.operation.name",
];

impl Visit for Seen {
    fn record_str(&mut self, field: &Field, value: &str) {
        if let Some(name) = KEPT.into_iter().find(|name| *name == field.name()) {
            self.strings.insert(name, value.to_owned());
        }
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        match field.name() {
            "gen_ai.usage.input_tokens" => self.input_tokens = Some(value),
            "gen_ai.usage.output_tokens" => self.output_tokens = Some(value),
            _ => {}
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        if let Ok(value) = u64::try_from(value) {
            self.record_u64(field, value);
        }
    }

    fn record_debug(&mut self, _field: &Field, _value: &dyn std::fmt::Debug) {}
}

impl Seen {
    fn attributes(&self, names: &[&'static str]) -> Vec<KeyValue> {
        names
            .iter()
            .filter_map(|name| {
                let value = self.strings.get(name)?;
                Some(KeyValue::new(*name, value.clone()))
            })
            .collect()
    }
}

impl<S> Layer<S> for SpanMetrics
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attributes: &Attributes<'_>, id: &Id, context: LayerContext<'_, S>) {
        let metadata = attributes.metadata();
        let measured = match (metadata.target(), metadata.name()) {
            (target, "chat") if target.starts_with("tool_agent") => Measured::Chat,
            (target, "execute_tool") if target.starts_with("tool_runtime") => Measured::Tool,
            (target, "session.append") if target.starts_with("tool_session") => Measured::Append,
            _ => return,
        };
        let mut seen = Seen {
            measured,
            opened: Instant::now(),
            strings: HashMap::new(),
            input_tokens: None,
            output_tokens: None,
        };
        attributes.record(&mut seen);
        if let Some(span) = context.span(id) {
            span.extensions_mut().insert(seen);
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, context: LayerContext<'_, S>) {
        if let Some(span) = context.span(id)
            && let Some(seen) = span.extensions_mut().get_mut::<Seen>()
        {
            values.record(seen);
        }
    }

    fn on_close(&self, id: Id, context: LayerContext<'_, S>) {
        let Some(span) = context.span(&id) else {
            return;
        };
        let Some(seen) = span.extensions_mut().remove::<Seen>() else {
            return;
        };
        let seconds = seen.opened.elapsed().as_secs_f64();
        match seen.measured {
            Measured::Chat => {
                let mut attributes = seen.attributes(&[
                    "gen_ai.operation.name",
                    "gen_ai.provider.name",
                    "gen_ai.request.model",
                    "gen_ai.response.model",
                ]);
                for (kind, count) in [("input", seen.input_tokens), ("output", seen.output_tokens)]
                {
                    if let Some(count) = count {
                        let mut attributes = attributes.clone();
                        attributes.push(KeyValue::new("gen_ai.token.type", kind));
                        self.token_usage.record(count, &attributes);
                    }
                }
                attributes.extend(seen.attributes(&["error.type"]));
                self.operation_duration.record(seconds, &attributes);
            }
            Measured::Tool => {
                let mut attributes = seen.attributes(&["gen_ai.tool.name", "error.type"]);
                let outcome = match seen.strings.contains_key("error.type") {
                    true => "error",
                    false => "ok",
                };
                attributes.push(KeyValue::new("toolhost.tool.outcome", outcome));
                self.tool_calls.add(1, &attributes);
                self.tool_duration.record(seconds, &attributes);
            }
            Measured::Append => {
                let attributes = seen.attributes(&["toolhost.session.store", "error.type"]);
                self.append_duration.record(seconds, &attributes);
            }
        }
    }
}
