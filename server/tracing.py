"""Optional OpenTelemetry tracing of gRPC calls, off by default.

On with GE_OTEL=1, or when the standard OTEL_TRACES_EXPORTER / OTEL_EXPORTER_OTLP_ENDPOINT
variables are set (OTEL_TRACES_EXPORTER=none keeps it off). Needs the `otel` extra:
`pip install -e '.[otel]'` (opentelemetry-sdk, -instrumentation-grpc, -exporter-otlp).
Spans go to OTLP (OTEL_EXPORTER_OTLP_ENDPOINT, default localhost:4317) or, with
OTEL_TRACES_EXPORTER=console, to stderr beside the logs; OTEL_SERVICE_NAME names the service (default
gameengine). The server's span carries the gRPC method and status; incoming
`traceparent` metadata joins the caller's trace."""
from __future__ import annotations

import os
import sys

import grpc
import structlog

from .config import Config

log = structlog.get_logger("gameengine")


def enabled(cfg: Config) -> bool:
    exporter = os.environ.get("OTEL_TRACES_EXPORTER", "")
    if exporter == "none":
        return False
    return cfg.otel in ("1", "true") or bool(exporter) or \
        bool(os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))


def interceptors(cfg: Config) -> list[grpc.aio.ServerInterceptor]:
    """The grpc.aio server interceptors that trace calls ([] when tracing is off)."""
    if not enabled(cfg):
        return []
    try:
        from opentelemetry import trace
        from opentelemetry.instrumentation.grpc import aio_server_interceptor
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor
    except ImportError as e:
        raise SystemExit(f"tracing is on (GE_OTEL / OTEL_*) but OpenTelemetry is not installed: {e}; "
                         "pip install -e '.[otel]'") from None
    os.environ.setdefault("OTEL_SERVICE_NAME", "gameengine")
    provider = TracerProvider(resource=Resource.create())
    if os.environ.get("OTEL_TRACES_EXPORTER", "otlp") == "console":
        provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter(out=sys.stderr)))  # beside the logs
    else:
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    log.info("tracing", exporter=os.environ.get("OTEL_TRACES_EXPORTER", "otlp"))
    # opentelemetry-instrumentation-grpc's factory is unannotated; it returns a grpc.aio.ServerInterceptor
    interceptor: grpc.aio.ServerInterceptor = aio_server_interceptor(  # type: ignore[no-untyped-call]
        tracer_provider=provider)
    return [interceptor]
