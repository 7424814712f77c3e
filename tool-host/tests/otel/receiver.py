"""An OTLP/HTTP receiver for the telemetry tests, decoding with OpenTelemetry's own protobuf types
(the `opentelemetry-proto` package).

Usage: receiver.py RECORDS

It listens on 127.0.0.1 (a free port, printed first as `PORT <n>`) and takes OTLP/HTTP requests
with protobuf bodies at /v1/traces and /v1/metrics, as an OpenTelemetry Collector does. Each
request is decoded with ExportTraceServiceRequest / ExportMetricsServiceRequest and appended to
RECORDS as one JSON line: its path, its content type, and its spans or metrics flattened (ids in
hex, attributes as a map, each with its resource's `service.name`). A body that does not decode
is answered 400 and recorded with the error. It runs until its standard input closes.
"""

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest, ExportMetricsServiceResponse)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest, ExportTraceServiceResponse)
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

LOCK = threading.Lock()


def value(any_value):
    kind = any_value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [value(v) for v in any_value.array_value.values]
    if kind == "kvlist_value":
        return attributes(any_value.kvlist_value.values)
    if kind == "bytes_value":
        return any_value.bytes_value.hex()
    return getattr(any_value, kind)


def attributes(pairs):
    return {pair.key: value(pair.value) for pair in pairs}


def spans_of(request):
    out = []
    for resource_spans in request.resource_spans:
        resource = attributes(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                out.append({
                    "service": resource.get("service.name"),
                    "resource": resource,
                    "scope": scope_spans.scope.name,
                    "trace_id": span.trace_id.hex(),
                    "span_id": span.span_id.hex(),
                    "parent_span_id": span.parent_span_id.hex(),
                    "name": span.name,
                    "kind": Span.SpanKind.Name(span.kind),
                    "status": Status.StatusCode.Name(span.status.code),
                    "start": span.start_time_unix_nano,
                    "end": span.end_time_unix_nano,
                    "attributes": attributes(span.attributes),
                    "events": [{"name": event.name, "attributes": attributes(event.attributes)}
                               for event in span.events],
                })
    return out


def points(metric):
    kind = metric.WhichOneof("data")
    data = getattr(metric, kind)
    out = []
    for point in data.data_points:
        entry = {"kind": kind, "attributes": attributes(point.attributes)}
        if kind == "histogram":
            entry.update(count=point.count, sum=point.sum)
        elif point.WhichOneof("value") == "as_int":
            entry["value"] = point.as_int
        else:
            entry["value"] = point.as_double
        out.append(entry)
    return out


def metrics_of(request):
    out = []
    for resource_metrics in request.resource_metrics:
        resource = attributes(resource_metrics.resource.attributes)
        for scope_metrics in resource_metrics.scope_metrics:
            for metric in scope_metrics.metrics:
                out.append({
                    "service": resource.get("service.name"),
                    "name": metric.name,
                    "unit": metric.unit,
                    "points": points(metric),
                })
    return out


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        record = {"path": self.path, "content_type": self.headers.get("content-type")}
        try:
            if self.path == "/v1/traces":
                request = ExportTraceServiceRequest.FromString(body)
                record["spans"] = spans_of(request)
                answer = ExportTraceServiceResponse()
            elif self.path == "/v1/metrics":
                request = ExportMetricsServiceRequest.FromString(body)
                record["metrics"] = metrics_of(request)
                answer = ExportMetricsServiceResponse()
            else:
                self.send_response(404)
                self.end_headers()
                return
        except Exception as error:  # a body that does not decode: recorded, answered 400
            record["error"] = repr(error)
            self.write(record)
            self.send_response(400)
            self.end_headers()
            return
        self.write(record)
        payload = answer.SerializeToString()
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def write(self, record):
        with LOCK, open(sys.argv[1], "a") as records:
            records.write(json.dumps(record) + "\n")


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"PORT {server.server_address[1]}", flush=True)
    sys.stdin.read()


if __name__ == "__main__":
    main()
