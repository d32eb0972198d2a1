"""A game's accepted moves in memory, compactly: each move's seat, move, idempotency key, referee
action and time in one container per field.

A list of `LogEntry` named tuples was one object per move that the cyclic collector tracks for
good (it untracks exact tuples of untracked items, never a named tuple), and a list of the moves
was still one reference per move: every full collection followed each of them for every game in
memory. Here a game's log is a few containers whatever its length, none of them tracked: the seats
and times as machine numbers, and the moves (in their wire form, server/moveprotos.py), keys and
referee actions packed (server/packed.py). Entries are made as `LogEntry`s when read, so readers see
the same tuples as before.
"""
from __future__ import annotations

from array import array
from collections.abc import Iterator
from typing import NamedTuple, overload

from engines.core import Move
from gameengine import codecs

from .moveprotos import move_from_wire, move_wire
from .packed import PackedBytes


class LogEntry(NamedTuple):
    """One accepted move, as the log hands it out."""
    seat: int
    move: Move
    key: str  # idempotency key ("" when none)
    by_referee: str  # "" for a seat's own move, else the referee action ("autoplay", ...)
    at: float


class MoveLog:
    """The accepted moves of one game, in order: index -> LogEntry (version = index + 1)."""

    __slots__ = ("_codec", "_seats", "_moves", "_keys", "_by_referee", "_at")

    def __init__(self, game: str) -> None:
        self._codec = codecs.codec(game)
        self._seats = array("h")
        self._moves = PackedBytes()
        self._keys = PackedBytes()
        self._by_referee = PackedBytes()
        self._at = array("d")

    def append(self, entry: LogEntry) -> None:
        self._seats.append(entry.seat)
        self._moves.append(move_wire(self._codec, entry.move))
        self._keys.append(entry.key.encode())
        self._by_referee.append(entry.by_referee.encode())
        self._at.append(entry.at)

    def __len__(self) -> int:
        return len(self._moves)

    def last_at(self) -> float:
        """When the last move was accepted (the log must not be empty): without building its entry."""
        return self._at[-1]

    def _entry(self, i: int) -> LogEntry:
        return LogEntry(self._seats[i], self._move(i), self._keys[i].decode(), self._by_referee[i].decode(),
                        self._at[i])

    def _move(self, i: int) -> Move:
        return move_from_wire(self._codec, self._moves[i])

    @overload
    def __getitem__(self, i: int) -> LogEntry: ...

    @overload
    def __getitem__(self, i: slice) -> list[LogEntry]: ...

    def __getitem__(self, i: int | slice) -> LogEntry | list[LogEntry]:
        if isinstance(i, slice):
            return [self._entry(j) for j in range(*i.indices(len(self._moves)))]
        if i < 0:
            i += len(self._moves)
        if not 0 <= i < len(self._moves):
            raise IndexError("move log index out of range")
        return self._entry(i)

    def __delitem__(self, i: slice) -> None:
        """Drop the entries from `i.start` on (a rolled-back write's: `del log[n:]`)."""
        if i.stop is not None or i.step is not None:
            raise ValueError("a move log is cut only at its end: del log[n:]")
        n = i.indices(len(self._moves))[0]
        del self._seats[n:], self._at[n:]
        self._moves.truncate(n)
        self._keys.truncate(n)
        self._by_referee.truncate(n)

    def __iter__(self) -> Iterator[LogEntry]:
        for i in range(len(self._moves)):
            yield self._entry(i)
