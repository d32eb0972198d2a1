"""A game's events in memory, compactly: each as its encoded event message, with its version and
the one seat that may see it.

A live game used to keep every event as an `Event` with its data dict (and the lists in it), a few
objects per event that the cyclic collector scanned at every full collection. Here a game's events
are three containers, whatever their number, none of which the collector tracks: the versions and
seats as machine integers and the encoded messages packed (server/packed.py). Streams and MakeMove
responses send the encoded message as it is; `Event`s are decoded only when asked for (tests, old-format import).
"""
from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator

from engines.core import PUBLIC, Event
from gameengine import codecs

from .packed import PackedBytes

_PUBLIC_SEAT = -1  # `to` of an event every seat and spectator may see


class EventLog:
    """The events of one game, in order: index -> (version, to, encoded message)."""

    __slots__ = ("game", "_versions", "_seats", "_wires")

    def __init__(self, game: str):
        self.game = game
        self._versions = array("q")
        self._seats = array("b")
        self._wires = PackedBytes()

    def __len__(self) -> int:
        return len(self._wires)

    def extend(self, version: int, events: Iterable[Event]) -> None:
        """Append the events a write made at `version`, encoded with the game's codec."""
        codec = codecs.codec(self.game)
        for e in events:
            self._versions.append(version)
            self._seats.append(_PUBLIC_SEAT if e.to is PUBLIC else e.to)
            self._wires.append(codec.event_to_proto(e).SerializeToString())

    def truncate(self, n: int) -> None:
        """Keep the first `n` events (a rolled-back write's are dropped)."""
        del self._versions[n:], self._seats[n:]
        self._wires.truncate(n)

    def version(self, i: int) -> int:
        return self._versions[i]

    def wire(self, i: int) -> bytes:
        """Event `i` as the game's encoded Event message, exactly as clients receive it."""
        return self._wires[i]

    def visible_to(self, i: int, seat: int | None) -> bool:
        to = self._seats[i]
        return to == _PUBLIC_SEAT or to == seat

    def wires_from(self, first: int, seat: int | None) -> list[bytes]:
        """The encoded events from index `first` on that `seat` may see (a move's answer)."""
        seats, wires = self._seats, self._wires
        return [wires[i] for i in range(first, len(wires)) if seats[i] == _PUBLIC_SEAT or seats[i] == seat]

    def wires_at(self, version: int, seat: int | None) -> list[bytes]:
        """The encoded events made at `version` that `seat` may see (a replayed move's answer)."""
        return [self._wires[i] for i, v in enumerate(self._versions) if v == version and self.visible_to(i, seat)]

    def event(self, i: int) -> Event:
        codec = codecs.codec(self.game)
        kind, data = codec.event_from_proto(codec.Event.FromString(self._wires[i]))
        to = self._seats[i]
        return Event(kind, data, PUBLIC if to == _PUBLIC_SEAT else to)

    def __iter__(self) -> Iterator[tuple[int, Event]]:
        """(version, Event) for every event, decoded."""
        for i in range(len(self._wires)):
            yield self._versions[i], self.event(i)
