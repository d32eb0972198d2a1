"""Python SDK, bots and the tournament runner. Talks to the server only over gRPC."""
