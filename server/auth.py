"""Per-seat bearer tokens. Only SHA-256 hashes are stored, compared in constant time."""
from __future__ import annotations

import hashlib
import hmac
import secrets


def secret(nbytes: int = 24) -> str:
    """A URL-safe random string that does not start with "-": tokens and invite codes go on command
    lines (`python -m clients.bot --player-token TOKEN`), where argparse takes "-..." for an option."""
    while True:
        s = secrets.token_urlsafe(nbytes)
        if not s.startswith("-"):
            return s


def mint() -> tuple[str, str]:
    """A new (token, hash) pair; the token is shown once, at creation."""
    token = secret()
    return token, token_hash(token)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def seat_of(token: str, hashes: list[str]) -> int | None:
    """The seat whose hash matches, else None. Empty token = spectator (None)."""
    if not token:
        return None
    h = token_hash(token)
    found = None
    for seat, stored in enumerate(hashes):
        if hmac.compare_digest(h, stored):
            found = seat
    return found
