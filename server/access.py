"""Optional authentication of creators: API keys from GE_CREATE_TOKENS / GE_CREATE_TOKENS_FILE.

When keys are configured, calls that create something (games today; registering players and
creating tournaments call `require_create_key` too) must carry one as gRPC metadata /
an HTTP header: `x-api-key: KEY` or `authorization: Bearer KEY`. Reading public views never
needs one. Only SHA-256 hashes are kept, compared in constant time; keys are never logged.
"""
from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable
from pathlib import Path

from . import limits
from .errors import Unauthenticated

_hashes: tuple[bytes, ...] = ()  # empty = creating is open to anyone
# gRPC invocation metadata or the web edge's headers: (key, value) pairs, or None.
Metadata = Iterable[tuple[str, str]] | None


def configure(tokens: str, tokens_file: str = "") -> int:
    """Install the keys (comma list and/or a file with one per line, `#` comments); returns how many."""
    keys = [t.strip() for t in tokens.split(",")]
    if tokens_file:
        keys += [line.split("#", 1)[0].strip() for line in Path(tokens_file).read_text().splitlines()]
    global _hashes
    _hashes = tuple(hashlib.sha256(k.encode()).digest() for k in keys if k)
    return len(_hashes)


def presented_keys(metadata: Metadata) -> list[str]:
    keys: list[str] = []
    for key, value in metadata or ():
        if key == "x-api-key":
            keys.append(value)
        elif key == "authorization" and value[:7].lower() == "bearer ":
            keys.append(value[7:].strip())
    return keys


def require_create_key(metadata: Metadata) -> None:
    """UNAUTHENTICATED unless creating is open or the metadata carries a configured key."""
    if not _hashes:
        return
    for key in presented_keys(metadata):
        if len(key.encode()) > limits.MAX_TOKEN_BYTES:
            continue
        digest = hashlib.sha256(key.encode()).digest()
        if any(hmac.compare_digest(digest, h) for h in _hashes):
            return
    raise Unauthenticated("creating needs an API key: send metadata 'x-api-key: KEY' "
                          "(or 'authorization: Bearer KEY') with one of the server's GE_CREATE_TOKENS",
                          rule="CREATE-KEY")
