# syntax=docker/dockerfile:1
# gameengine server image (also runs the bots and the tournament runner):
#   docker build -t gameengine .
#   docker run -p 50051:50051 -v gedata:/data gameengine
# Runs from the source tree like `make run` (PYTHONPATH=/app:/app/protos), as uid 10001.

FROM python:3.11-slim-bookworm AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app
# Dependencies first, from pyproject.toml alone: this layer survives code changes.
COPY pyproject.toml ./
RUN python -m venv /opt/venv \
 && python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
      > /tmp/requirements.txt \
 && /opt/venv/bin/pip install -r /tmp/requirements.txt
COPY engines engines
COPY protos protos
COPY server server
COPY clients clients
COPY tools tools
# The engines' mypyc build (`make compiled`; bench/notes/mypyc.md), with gcc and the pinned mypy in this
# stage only (the runtime stage copies the .so files, not the compiler). Where neither can be had, the
# image runs the engines as pure Python; its start-up log line says which (`engines=`).
RUN (apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev && rm -rf /var/lib/apt/lists/*) \
      || echo "no gcc: the engines run as pure Python" \
 && python -m venv /opt/build \
 && /opt/build/bin/pip install setuptools "$(python -c "import tomllib; print(next(d for d in tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['test'] if d.startswith('mypy==')))")" \
 && /opt/build/bin/python tools/build_compiled.py --optional \
 && rm -rf build tools /opt/build
# Generated stubs, as `make stubs` does; then bytecode, since the root filesystem is read-only at run time.
RUN /opt/venv/bin/python -m grpc_tools.protoc -Iprotos --python_out=protos --pyi_out=protos \
      --grpc_python_out=protos --include_imports --include_source_info \
      --descriptor_set_out=protos/gameengine/descriptors.binpb \
      protos/gameengine/v1/*.proto protos/gameengine/storage/v1/*.proto \
 && /opt/venv/bin/python -m compileall -q engines protos server clients

FROM python:3.11-slim-bookworm
RUN groupadd --gid 10001 gameengine \
 && useradd --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin gameengine \
 && mkdir -m 0700 /data && chown 10001:10001 /data
COPY --from=build /opt/venv /opt/venv
COPY --from=build /app /app
WORKDIR /app
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONPATH=/app:/app/protos \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    GE_HOST=0.0.0.0 \
    GE_PORT=50051 \
    GE_METRICS_PORT=9464 \
    GE_DATA_DIR=/data
USER 10001:10001
VOLUME ["/data"]
EXPOSE 50051 8080 9464
# SIGTERM: NOT_SERVING, drain, snapshot, exit (server/main.py); allow the snapshot time.
STOPSIGNAL SIGTERM
# gRPC health (grpc.health.v1, service ""); Kubernetes uses its own grpc probes instead.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["python", "-c", "import os, sys, grpc; from grpc_health.v1 import health_pb2 as h, health_pb2_grpc as g; ch = grpc.insecure_channel('127.0.0.1:' + os.environ.get('GE_PORT', '50051')); sys.exit(0 if g.HealthStub(ch).Check(h.HealthCheckRequest(), timeout=2).status == h.HealthCheckResponse.SERVING else 1)"]
CMD ["python", "-m", "server.main"]
