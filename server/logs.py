"""structlog JSON logs, one line per event, to stderr. A call's fields (its request id, peer, game,
seat: `bind`) go on every line written while it runs."""
from __future__ import annotations

import contextvars
import logging
import sys
from collections.abc import MutableMapping
from typing import Any

import structlog

# One mapping per call, replaced (never changed in place) by each `bind`, so a task started during a
# call sees the fields of that moment and its own binds stay its own: contextvars' copy semantics.
_FIELDS: contextvars.ContextVar[dict[str, Any]] = contextvars.ContextVar("log_fields", default={})  # noqa: B039


_level = logging.NOTSET  # configure()'s: lines below it are not written (before it: every line)


def enabled(level: int) -> bool:
    """Whether a line at `level` is written (a caller may skip building one that is not)."""
    return level >= _level


def bind(**fields: Any) -> None:
    """Fields for every line this call (this asyncio task and what it starts) writes from now on."""
    _FIELDS.set({**_FIELDS.get(), **fields})


def fields() -> dict[str, Any]:
    """The fields bound so far in this context."""
    return dict(_FIELDS.get())


def _merge_fields(logger: Any, method: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    bound = _FIELDS.get()
    return {**bound, **event} if bound else event


def configure(level: str = "info") -> None:
    global _level
    _level = getattr(logging, level.upper(), logging.INFO)
    structlog.configure(
        processors=[
            _merge_fields,  # request_id and peer of the RPC (server/observe.py), game and seat (edge.note)
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(_level),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )
