"""A bare gRPC echo service on the same framework and settings as the game server:
the framework's own ceiling, against which MakeMove throughput is reported."""
from __future__ import annotations

import os

import grpc

ECHO = "/bench.Echo/Echo"


async def echo(request: bytes, context) -> bytes:
    return request


async def serve(port: int) -> None:
    server = grpc.aio.server(options=[("grpc.max_concurrent_streams", 1000)])
    handler = grpc.method_handlers_generic_handler("bench.Echo", {
        "Echo": grpc.unary_unary_rpc_method_handler(echo)})
    server.add_generic_rpc_handlers((handler,))
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    await server.wait_for_termination()


if __name__ == "__main__":
    import uvloop  # the same event loop as the game server's default
    uvloop.run(serve(int(os.environ["GE_PORT"])))
