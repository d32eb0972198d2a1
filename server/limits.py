"""Bounds on caller-supplied text, and the one way to quote such text in a message or a log line.

Every string a caller sends has a documented maximum length in UTF-8 bytes (README "Limits");
beyond it the request is INVALID_ARGUMENT and nothing is looked up or stored. Messages and log
lines carry at most QUOTE_CHARS characters of caller text (`quote`), so a long value can neither
flood the log nor push a status trailer past a client's metadata limit (issue 15 item 9).
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from .errors import InvalidArgument

MAX_GAME_ID_BYTES = 128
MAX_TOKEN_BYTES = 128  # seat tokens, player tokens, API keys
MAX_IDEMPOTENCY_KEY_BYTES = 128
MAX_NAME_BYTES = 64  # player and tournament names
MAX_INVITE_CODE_BYTES = 64
MAX_REASON_BYTES = 256  # free text such as AdjudicateGame.reason
QUOTE_CHARS = 40  # caller text quoted in a message or log line
MAX_MESSAGE_CHARS = 400  # a refusal's sentence, whatever it quotes


def quote(text: object, limit: int = QUOTE_CHARS) -> str:
    """`text` as a message may show it: whole when short, else a prefix and its full size."""
    s = text if isinstance(text, str) else repr(text)
    if len(s) <= limit:
        return s
    return f"{s[:limit]}…(+{len(s.encode()) - len(s[:limit].encode())} bytes)"


def clip(message: str) -> str:
    """A refusal sentence bounded in size, for whatever caller text it ended up quoting."""
    return quote(message, MAX_MESSAGE_CHARS)


def unechoed(message: str, texts: Iterable[str]) -> str:
    """`message` with each long string of `texts` (the caller's: proto_strings of its request) that it
    repeats shown by its quote: a refusal may name the unknown word it was sent (an option, a district),
    whole or cut (Python's own errors cut a repr at 200 characters)."""
    if len(message) <= QUOTE_CHARS:
        return message
    echoes = sorted(((n, form, text) for text in {t for t in texts if len(t) > QUOTE_CHARS}
                     for form in (text, repr(text)[1:-1])  # as it is, and as a repr escapes it
                     if (n := _echoed(message, form))), reverse=True)
    for n, form, text in echoes:  # the longest echo first: another text may share its start
        message = message.replace(form[:n], quote(text))
    return message


def _echoed(message: str, text: str) -> int:
    """The length of the longest start of `text` over QUOTE_CHARS long that `message` holds, or 0."""
    if text[:QUOTE_CHARS + 1] not in message:
        return 0
    low, high = QUOTE_CHARS + 1, len(text)  # text[:low] is in it; find the longest such
    while low < high:
        mid = (low + high + 1) // 2
        if text[:mid] in message:
            low = mid
        else:
            high = mid - 1
    return low


def proto_strings(message: Any) -> Iterator[str]:
    """Every string field of a protobuf message (None: none), its nested messages' too."""
    if not hasattr(message, "ListFields"):
        return
    for field, value in message.ListFields():
        values = value if field.is_repeated else (value,)
        for v in values:
            if isinstance(v, str):
                yield v
            else:
                yield from proto_strings(v)


def bounded(field: str, value: str, limit: int, rule: str = "LIMIT") -> str:
    """`value` if it fits in `limit` UTF-8 bytes, else INVALID_ARGUMENT naming the field and the bound
    (citing `rule`: LIMIT, or the service's own rule, e.g. the lobby's LOBBY-0)."""
    if len(value) > limit or len(value.encode()) > limit:  # cheap test first: a char is >= 1 byte
        refusal = InvalidArgument(f"{field} is {len(value.encode())} bytes; the maximum is {limit}", rule=rule)
        refusal.paced = True  # sending it again at once would be the same refusal
        raise refusal
    return value
