"""The server data dir format (storage/v1/storage.proto); internal to the server, not an API."""
