"""gRPC edge, store, auth, referee and metrics. Imports engines/ and gameengine (stubs, codecs) only."""
