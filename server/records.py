"""A game in memory (GameRecord) and the typed records that change it.

Every change to a game is a record: `Created` makes the game; each later write is one or
more records committed together by the one write path, `Store.commit` (server/store.py):
check the version, apply each record (rolling everything back if one fails), record the
idempotency key (part of applying a `MoveMade`), journal every record in one write, and only
then acknowledge. Recovery folds the same records in the same `apply`, so a game rebuilt from
its records is the game that was acknowledged.

On disk a record is a `JournalRecord` of gameengine/storage/v1/storage.proto: moves and options
in the game's own proto messages (gameengine/codecs), referee records typed. Nothing in the
data dir is pickled.

How to add a record kind (e.g. a seat join, a lobby or tournament record):
1. storage.proto: a message for it and a new field of `JournalRecord.write` (next free number).
2. Here: a frozen dataclass with `FIELD` = that field's name, `encode(game) -> message`,
   `decode(msg, game)` (classmethod) and `apply(rec, at) -> list[Event]`. `apply` checks before
   it changes anything and raises to refuse; if it changes a GameRecord field that
   `GameRecord.savepoint` does not cover yet, add that field there (rollback restores it).
   Add the class to KINDS and to the `Write` union.
3. GameCore (server/service.py): a method that builds the record and calls `store.commit`.
The journal, snapshots, recovery, `python -m server.store verify|repair` and the old-format
import handle every kind in KINDS with no further code. A kind that changes a game (a seat join,
a seat reservation) is exactly the three steps above. Records about something that is not one
game (a player registration, a lobby entry, a tournament) take the subject's id in
`JournalRecord.game_id` (e.g. "player/<id>", "tournament/<id>": game ids are hex, so they cannot
clash), start with their own creation kind, and keep their own `seq`; the one extra line is in
`Store._redo`/`Store.create`, choosing the dict a creation lands in.
"""
from __future__ import annotations

import pickle
import struct
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from google.protobuf import any_pb2
from google.protobuf.message import Message

from engines import registry
from engines.core import Event, Game, IllegalMove, Move
from gameengine import codecs
from gameengine.storage.v1 import storage_pb2 as spb
from gameengine.v1 import common_pb2

from . import participation, tournament_records, wire
from .eventlog import EventLog
from .movelog import LogEntry, MoveLog
from .moveprotos import move_from_wire, move_proto, move_wire
from .participation import PlayerNotified, PlayerRegistered, Seating, SeatingChanged


class FormatError(ValueError):
    """A payload whose CRC holds but that is not a record this server can read."""


def _unpack(codec: codecs.Codec, stored: any_pb2.Any, cls: type[Message]) -> Message:
    """A game's own message kept as google.protobuf.Any; another type is a FormatError."""
    try:
        return codec.unpack(stored, cls)
    except ValueError as e:
        raise FormatError(str(e)) from None


_OPTIONS: dict[tuple[str, str, bytes], dict[str, Any]] = {}  # (game, type url, encoding) -> options
_OPTIONS_KEPT = 4096  # games share a few option sets; restore decodes one per game


def _options(codec: codecs.Codec, stored: any_pb2.Any) -> dict[str, Any]:
    """A creation record's options, decoded once per distinct encoding."""
    key = (codec.game_id, stored.type_url, stored.value)
    found = _OPTIONS.get(key)
    if found is None:
        found = codec.options_from_proto(_unpack(codec, stored, codec.Options))
        if len(_OPTIONS) < _OPTIONS_KEPT:
            _OPTIONS[key] = found
    return dict(found)


# ---- referee state: typed, not a dict of strings ---------------------------------

@dataclass(frozen=True)
class Clock:
    bank_ms: tuple[int, ...]
    turn: int  # the seat being charged, -1 for none
    since: float  # Unix seconds at which `turn` started to be charged


@dataclass(frozen=True)
class Adjudication:
    scores: tuple[float, ...]
    ranks: tuple[int, ...]
    winners: tuple[int, ...]
    confidence: float
    reason: str

    def outcome(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "ranks": list(self.ranks), "winners": list(self.winners),
                "adjudicated": True, "confidence": self.confidence}


@dataclass
class RefereeState:
    clock: Clock | None = None
    forfeited: dict[int, str] = field(default_factory=dict)  # seat -> reason
    adjudication: Adjudication | None = None

    def copy(self) -> RefereeState:
        return RefereeState(self.clock, dict(self.forfeited), self.adjudication)


# ---- the game in memory ---------------------------------------------------------------

@dataclass
class GameRecord:
    game_id: str
    game: str
    seats: int
    options: dict[str, Any]
    seed: int
    token_hashes: list[str]
    referee: dict[str, Any]  # the RefereeOptions of the creation
    created: float
    state: Any  # engine state: derived from the records, never stored
    version: int = 0  # accepted moves
    seq: int = 0  # journaled records after `Created` (the redo guard)
    log: MoveLog = field(init=False)  # compactly: server/movelog.py
    events: EventLog = field(init=False)  # (version, to, encoded event) per event, compactly
    idem: dict[str, int] = field(default_factory=dict)  # scoped idempotency key -> version it produced
    referee_state: RefereeState = field(default_factory=RefereeState)
    seating: Seating | None = None  # open or reserved seats (server/participation.py)
    # Every journaled record of the game, each as a length-delimited field 1: exactly the wire
    # form of a storage GameHistory, so a snapshot writes it as it is.
    history: bytearray = field(default_factory=bytearray, repr=False)
    # A game restored from a snapshot is folded without its engine (`restored`): `state` and
    # `events` are left unset and made from these, in order, when first read (`__getattr__`).
    # Each is (version, seat, move, events): a move for the engine to apply (seat, move), or
    # events a record made at that version (move None). None once settled (or never deferred).
    pending: list[Pending] | None = field(default=None, repr=False)
    over_when_saved: bool | None = None  # the engine's is_over when the snapshot was written (or hibernated)
    # A game nobody touched for GE_HIBERNATE_AFTER_S keeps its engine state pickled (`hibernate`): bytes
    # the cyclic collector never visits, instead of the state's lists; `state` thaws it when first read.
    hibernated: bytes | None = field(default=None, repr=False)
    engine: Game = field(init=False, repr=False, compare=False)  # read ~10 times a move

    # None of these methods reads `__dict__`: CPython 3.11 keeps an instance's attributes without a dict
    # until something asks for it, and then makes one. After a restore of 100,000 games (frozen out of
    # the collector's reach), one sweep that asked made 100,000 dicts, and every full collection took
    # ~55 ms to visit them (tests/storage/test_sweeps.py).
    def __post_init__(self) -> None:
        self.log = MoveLog(self.game)
        self.events = EventLog(self.game)
        self.engine = engine_of(self.game)

    @classmethod
    def restored(cls, created: Created, game_id: str, over_when_saved: bool) -> GameRecord:
        """A game to fold from a snapshot without its engine: new_state and every move wait for
        the first read of `state` or `events` (restore does not replay 100k games at start-up)."""
        rec = cls(game_id=game_id, game=created.game, seats=created.seats, options=dict(created.options),
                  seed=created.seed, token_hashes=list(created.token_hashes), referee=dict(created.referee),
                  created=created.created, state=None, seating=created.seating, pending=[],
                  over_when_saved=over_when_saved)
        del rec.state, rec.events
        return rec

    def __getattr__(self, name: str) -> Any:  # only for attributes not set: a restored or hibernated game's
        if name in ("state", "events") and self.pending is not None:
            self.settle()
            return object.__getattribute__(self, name)
        if name == "state" and self.hibernated is not None:
            return self.wake(pickle.loads(self.hibernated))
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def asleep(self) -> bool:
        """The engine state is not in memory: the game is restored and not settled, or hibernated.
        `over_when_saved` is kept exactly then (`wake` clears it)."""
        return self.over_when_saved is not None

    def wake(self, state: Any) -> Any:
        """`state` as the game's engine state in memory: neither hibernated nor answered from the snapshot."""
        self.state = state
        self.hibernated = self.over_when_saved = None
        return state

    def hibernate(self) -> bool:
        """Keep the engine state pickled until it is read again; False if it is not in memory (restored
        and not settled, or hibernated already). Full collections visit every live object: an idle
        game's state lists are most of what a game costs them."""
        if self.asleep():
            return False
        state = self.state
        self.over_when_saved = self.engine.is_over(state)
        self.hibernated = pickle.dumps(state, pickle.HIGHEST_PROTOCOL)
        del self.state
        return True

    def settle(self) -> None:
        """Make a restored game's state and events by folding its deferred moves through the engine."""
        pending = self.pending
        if pending is None:
            return
        engine = self.engine
        state = engine.new_state(self.seats, self.options, self.seed)
        events = EventLog(self.game)
        for version, seat, move, made in pending:
            if move is None:
                events.extend(version, made)
                continue
            try:
                events.extend(version, engine.apply(state, seat, move))
            except IllegalMove as e:
                raise Unsettled(f"game {self.game_id}: the engine refuses its move at version {version} "
                                f"({e}); was the data dir written by another engine version?") from None
        self.events = events
        self.wake(state)
        self.pending = None

    def engine_over(self) -> bool:
        """The engine's is_over, from the snapshot while a restored game is not settled (or from its
        hibernation while it sleeps)."""
        if self.over_when_saved is not None:  # asleep
            return self.over_when_saved
        return self.engine.is_over(self.state)

    def add_events(self, version: int, events: Iterable[Event]) -> None:
        """Events a record made at `version` (deferred with the moves while the game is not settled)."""
        if self.pending is not None:
            self.pending.append((version, -1, None, tuple(events)))
        else:
            self.events.extend(version, events)

    def defer(self, entry: LogEntry) -> None:
        """A journaled move of a restored game not yet settled: all of MoveMade.apply but the engine's part."""
        assert self.pending is not None
        self.version += 1
        self.log.append(entry)
        self.pending.append((self.version, entry.seat, entry.move, ()))
        if entry.key:
            self.idem[entry.key] = self.version

    def savepoint(self) -> Savepoint:
        """What `rollback` restores: every field a record's `apply` may change."""
        return (self.version, self.seq, len(self.log), len(self.events), len(self.history),
                self.referee_state.copy(), self.seating, list(self.token_hashes))

    def rollback(self, sp: Savepoint, state_touched: bool) -> None:
        version, seq, n_log, n_events, n_history, referee_state, seating, token_hashes = sp
        for entry in self.log[n_log:]:
            self.idem.pop(entry.key, None)
        self.version, self.seq, self.referee_state = version, seq, referee_state
        self.seating, self.token_hashes = seating, token_hashes  # apply_seating replaces, never mutates
        del self.log[n_log:], self.history[n_history:]
        self.events.truncate(n_events)
        if state_touched:  # the engine state is rebuilt from the moves that stay
            self.wake(rebuild_state(self))


class Unsettled(RuntimeError):
    """A restored game whose deferred moves its engine refuses (a data dir of another engine version)."""


Pending = tuple[int, int, Move | None, tuple[Event, ...]]
_ENGINES: dict[str, Game] = {}


def engine_of(game: str) -> Game:
    """registry.game, looked up once per game (it imports the engine's module on every call)."""
    engine = _ENGINES.get(game)
    if engine is None:
        engine = _ENGINES[game] = registry.game(game)
    return engine


# (version, seq, log length, events length, history length, referee state, seating, token hashes)
Savepoint = tuple[int, int, int, int, int, RefereeState, Seating | None, list[str]]


def rebuild_state(rec: GameRecord) -> Any:
    engine = rec.engine
    state = engine.new_state(rec.seats, rec.options, rec.seed)
    for entry in rec.log:
        engine.apply(state, entry.seat, entry.move)
    return state


# ---- record kinds -----------------------------------------------------------------------

@dataclass(frozen=True)
class Created:
    FIELD: ClassVar[str] = "created"
    game: str
    seats: int
    options: dict[str, Any]
    seed: int
    token_hashes: tuple[str, ...]
    referee: dict[str, Any]
    created: float
    seating: Seating | None = None

    def encode(self, game: str) -> spb.GameCreated:
        msg = spb.GameCreated(game=self.game, seats=self.seats, seed=self.seed, token_hashes=self.token_hashes,
                              referee=spb.RefereeSettings(**self.referee), created=self.created)
        msg.options.CopyFrom(codecs.Codec.pack(codecs.codec(self.game).options_to_proto(self.options)))
        if self.seating is not None:
            msg.seating.CopyFrom(_seating_pb(self.seating))
        return msg

    @classmethod
    def decode(cls, msg: spb.GameCreated, game: str) -> Created:
        if msg.game not in registry.GAME_IDS:
            raise FormatError(f"creation record of unknown game {msg.game[:40]!r}")
        codec = codecs.codec(msg.game)
        r = msg.referee
        referee = {"time_bank_ms": r.time_bank_ms, "increment_ms": r.increment_ms,
                   "timeout_policy": r.timeout_policy or "autoplay", "max_moves": r.max_moves}
        options = _options(codec, msg.options)
        seating = _seating(msg.seating) if msg.HasField("seating") else None
        return cls(msg.game, msg.seats, options, msg.seed, tuple(msg.token_hashes), referee, msg.created, seating)

    def build(self, game_id: str) -> GameRecord:
        state = registry.game(self.game).new_state(self.seats, self.options, self.seed)  # raises InvalidOptions
        return GameRecord(game_id=game_id, game=self.game, seats=self.seats, options=dict(self.options),
                          seed=self.seed, token_hashes=list(self.token_hashes), referee=dict(self.referee),
                          created=self.created, state=state, seating=self.seating)


@dataclass(frozen=True)
class MoveMade:
    FIELD: ClassVar[str] = "move"
    seat: int
    move: Move
    key: str = ""  # scoped "seat:key", "" when none
    by_referee: str = ""

    def encode(self, game: str) -> spb.MoveMade:
        msg = spb.MoveMade(seat=self.seat, idempotency_key=self.key, by_referee=self.by_referee)
        msg.move.CopyFrom(codecs.Codec.pack(move_proto(codecs.codec(game), self.move)))
        return msg

    @classmethod
    def decode(cls, msg: spb.MoveMade, game: str) -> MoveMade:
        return cls(msg.seat, _move_of(msg, game), msg.idempotency_key, msg.by_referee)

    def apply(self, rec: GameRecord, at: float) -> list[Event]:
        events = rec.engine.apply(rec.state, self.seat, self.move)  # IllegalMove: state unchanged
        rec.version += 1
        rec.log.append(LogEntry(self.seat, self.move, self.key, self.by_referee, at))
        rec.add_events(rec.version, events)
        if self.key:
            rec.idem[self.key] = rec.version
        return events


def _move_of(msg: spb.MoveMade, game: str) -> Move:
    codec = codecs.codec(game)
    stored = msg.move
    if stored.type_url.rpartition("/")[2] == codec.Move.DESCRIPTOR.full_name:
        return move_from_wire(codec, stored.value)
    return codec.move_from_proto(_unpack(codec, stored, codec.Move))  # refused: a FormatError


def logged_move(msg: spb.MoveMade, game: str, at: float) -> LogEntry:
    """A journaled move as its log entry (MoveMade.decode without the record object: restore)."""
    return LogEntry(msg.seat, _move_of(msg, game), msg.idempotency_key, msg.by_referee, at)


@dataclass(frozen=True)
class RefereeActed:
    FIELD: ClassVar[str] = "referee_action"
    action: str  # "autoplay", "random", "forfeit", "adjudicated"
    seat: int
    reason: str

    def encode(self, game: str) -> spb.RefereeAction:
        return spb.RefereeAction(event=common_pb2.RefereeEvent(action=self.action, seat=self.seat, reason=self.reason))

    @classmethod
    def decode(cls, msg: spb.RefereeAction, game: str) -> RefereeActed:
        return cls(msg.event.action, msg.event.seat, msg.event.reason)

    def apply(self, rec: GameRecord, at: float) -> list[Event]:
        event = Event("referee", {"action": self.action, "seat": self.seat, "reason": self.reason})
        rec.add_events(rec.version, [event])
        return [event]


@dataclass(frozen=True)
class ClockSet:
    FIELD: ClassVar[str] = "clock"
    clock: Clock

    def encode(self, game: str) -> spb.ClockSet:
        c = self.clock
        return spb.ClockSet(bank_ms=c.bank_ms, turn=c.turn, since=c.since)

    @classmethod
    def decode(cls, msg: spb.ClockSet, game: str) -> ClockSet:
        return cls(Clock(tuple(msg.bank_ms), msg.turn, msg.since))

    def apply(self, rec: GameRecord, at: float) -> list[Event]:
        if len(self.clock.bank_ms) != rec.seats:
            raise FormatError(f"a clock of {len(self.clock.bank_ms)} banks for {rec.seats} seats")
        rec.referee_state.clock = self.clock
        return []


@dataclass(frozen=True)
class SeatForfeited:
    FIELD: ClassVar[str] = "forfeit"
    seat: int
    reason: str

    def encode(self, game: str) -> spb.SeatForfeited:
        return spb.SeatForfeited(seat=self.seat, reason=self.reason)

    @classmethod
    def decode(cls, msg: spb.SeatForfeited, game: str) -> SeatForfeited:
        return cls(msg.seat, msg.reason)

    def apply(self, rec: GameRecord, at: float) -> list[Event]:
        rec.referee_state.forfeited[self.seat] = self.reason
        return []


@dataclass(frozen=True)
class GameAdjudicated:
    FIELD: ClassVar[str] = "adjudication"
    result: Adjudication

    def encode(self, game: str) -> spb.GameAdjudicated:
        a = self.result
        return spb.GameAdjudicated(outcome=common_pb2.Outcome(scores=a.scores, ranks=a.ranks, winners=a.winners,
                                                              adjudicated=True, confidence=a.confidence),
                                   reason=a.reason)

    @classmethod
    def decode(cls, msg: spb.GameAdjudicated, game: str) -> GameAdjudicated:
        o = msg.outcome
        return cls(Adjudication(tuple(o.scores), tuple(o.ranks), tuple(o.winners), o.confidence, msg.reason))

    def apply(self, rec: GameRecord, at: float) -> list[Event]:
        rec.referee_state.adjudication = self.result
        return []


# ---- participation records (server/participation.py): seatings, and the players subject -----

def _seating_pb(s: Seating) -> spb.Seating:
    return spb.Seating(holders=s.holders, creator=s.creator, private=s.private, invite_hash=s.invite_hash,
                       created_at=s.created_at, expires_at=s.expires_at, claims=s.claims,
                       token_pending=s.token_pending, started=s.started, expired=s.expired,
                       tournament=s.tournament)


def _seating(m: spb.Seating) -> Seating:
    return Seating(list(m.holders), m.creator, m.private, m.invite_hash, m.created_at, m.expires_at,
                   list(m.claims), list(m.token_pending), m.started, m.expired, m.tournament)


def encode_seating(change: SeatingChanged, game: str) -> spb.SeatingSet:
    codec = codecs.codec(game)
    msg = spb.SeatingSet(seating=_seating_pb(change.seating), token_hashes=change.token_hashes)
    for e in change.events:
        ge = msg.events.add(to=-1 if e.to is None else e.to)
        ge.event.CopyFrom(codec.pack(codec.event_to_proto(e)))
    return msg


def decode_seating(msg: spb.SeatingSet, game: str) -> SeatingChanged:
    codec = codecs.codec(game)
    events = []
    for ge in msg.events:
        kind, data = codec.event_from_proto(_unpack(codec, ge.event, codec.Event))
        events.append(Event(kind, data, None if ge.to < 0 else ge.to))
    return SeatingChanged(_seating(msg.seating), dict(msg.token_hashes), tuple(events))


def _kwargs(msg: Message) -> dict[str, Any]:
    """A message's set fields as constructor keyword arguments (the inverse of Msg(**kwargs))."""
    out: dict[str, Any] = {}
    for f, value in msg.ListFields():
        if f.message_type is not None:
            out[f.name] = [_kwargs(v) for v in value] if f.is_repeated else _kwargs(value)
        else:
            out[f.name] = list(value) if f.is_repeated else value
    return out


_TRUE_KEYS = ("started", "over")  # progress values that are True rather than a number


def _player_registered(r: PlayerRegistered) -> spb.PlayerRegistered:
    return spb.PlayerRegistered(player_id=r.player_id, name=r.name, token_hash=r.token_hash, at=r.at)


def _player_notified(r: PlayerNotified) -> spb.PlayerNotified:
    key, value = r.progress
    msg = spb.PlayerNotified(player_id=r.player_id, cursor=r.cursor, kind=r.kind, game_id=r.game_id, game=r.game,
                             seat=r.seat, progress_key=key, progress_value=int(value))
    if r.status is not None:
        msg.status.CopyFrom(common_pb2.GameStatus(**r.status))
    if r.outcome is not None:
        msg.outcome.CopyFrom(common_pb2.Outcome(**r.outcome))
    return msg


def _from_player_notified(m: spb.PlayerNotified) -> PlayerNotified:
    value = True if m.progress_key in _TRUE_KEYS else m.progress_value
    return PlayerNotified(m.player_id, m.cursor, m.kind, m.game_id, m.game, m.seat, (m.progress_key, value),
                          _kwargs(m.status) if m.HasField("status") else None,
                          _kwargs(m.outcome) if m.HasField("outcome") else None)


def encode_player(r: PlayerRegistered | PlayerNotified) -> spb.PlayerRegistered | spb.PlayerNotified:
    return _player_registered(r) if isinstance(r, PlayerRegistered) else _player_notified(r)


def decode_player(m: spb.PlayerRegistered | spb.PlayerNotified) -> PlayerRegistered | PlayerNotified:
    if isinstance(m, spb.PlayerRegistered):
        return PlayerRegistered(m.player_id, m.name, m.token_hash, m.at)
    return _from_player_notified(m)


PLAYER_KINDS = (PlayerRegistered.FIELD, PlayerNotified.FIELD)  # the players subject: game_id "", seq 0
TOURNAMENT_KINDS = tuple(tournament_records.FIELDS.values())  # game_id "tournament/<id>", its own seq


def players_state(players: participation.Players) -> list[spb.PlayerState]:
    out = []
    for p in players.by_id.values():
        out.append(spb.PlayerState(
            player=spb.PlayerRegistered(player_id=p.player_id, name=p.name, token_hash=p.token_hash, at=p.at),
            last_cursor=p.last_cursor, events=[_player_notified(e) for e in p.events],
            progress=[spb.PlayerProgress(game_id=g, seat=s, key=k, value=int(v))
                      for (g, s), told in p.progress.items() for k, v in told.items()]))
    return out


def load_players(states: Iterable[spb.PlayerState], players: participation.Players) -> None:
    for st in states:
        r = st.player
        players.redo(PlayerRegistered(r.player_id, r.name, r.token_hash, r.at))
        p = players.by_id[r.player_id]
        p.events = [_from_player_notified(e) for e in st.events]
        p.last_cursor = st.last_cursor
        for pr in st.progress:
            p.progress.setdefault((pr.game_id, pr.seat), {})[pr.key] = True if pr.key in _TRUE_KEYS else pr.value
            players.seated.setdefault(pr.game_id, set()).add(p.player_id)


Write = MoveMade | RefereeActed | ClockSet | SeatForfeited | GameAdjudicated | SeatingChanged  # of one game
Record = Created | Write | PlayerRegistered | PlayerNotified


class RecordKind(Protocol):
    """A record class, as KINDS holds it: it decodes its storage message."""

    def decode(self, msg: Any, game: str) -> Record: ...


KINDS: dict[str, RecordKind] = {k.FIELD: k for k in (Created, MoveMade, RefereeActed, ClockSet, SeatForfeited,
                                                     GameAdjudicated, SeatingChanged, PlayerRegistered,
                                                     PlayerNotified)}


# ---- wire form ----------------------------------------------------------------------------

def encode(game_id: str, seq: int, at: float, record: Record, game: str) -> bytes:
    if isinstance(record, MoveMade) and record.seat >= 0:  # every move's record: joined from its cached encoding
        return _record_head(game_id, seq, at) + wire.length_delimited(_MOVE_FIELD, _move_made_wire(record, game))
    pb = spb.JournalRecord(game_id=game_id, seq=seq, at=at)
    getattr(pb, record.FIELD).CopyFrom(record.encode(game))
    return pb.SerializeToString()


_MOVE_FIELD = wire.tag(spb.JournalRecord.DESCRIPTOR.fields_by_name["move"].number, 2)
_DOUBLE = struct.Struct("<d")
_TYPE_URLS: dict[str, bytes] = {}  # game -> the Any type_url field of its Move message


def _record_head(game_id: str, seq: int, at: float) -> bytes:
    """JournalRecord's game_id, seq and at as its serialization writes them (proto3: defaults left out)."""
    head = wire.length_delimited(b"\x0a", game_id.encode()) if game_id else b""
    if seq:
        head += b"\x10" + wire.varint(seq)
    if at:
        head += b"\x19" + _DOUBLE.pack(at)
    return head


def _move_made_wire(record: MoveMade, game: str) -> bytes:
    """`record.encode(game).SerializeToString()`, from the move's cached encoding (moveprotos.move_wire)
    instead of a MoveMade message and an Any packed from a copy of the move's message."""
    codec = codecs.codec(game)
    type_url = _TYPE_URLS.get(game)
    if type_url is None:
        type_url = _TYPE_URLS[game] = wire.length_delimited(
            b"\x0a", f"type.googleapis.com/{codec.Move.DESCRIPTOR.full_name}".encode())
    move = move_wire(codec, record.move)
    out = b"\x08" + wire.varint(record.seat) if record.seat else b""
    if record.key:
        out += wire.length_delimited(b"\x12", record.key.encode())
    if record.by_referee:
        out += wire.length_delimited(b"\x1a", record.by_referee.encode())
    return out + wire.length_delimited(b"\x52", type_url + (wire.length_delimited(b"\x12", move) if move else b""))


def parse(payload: bytes) -> spb.JournalRecord:
    try:
        pb = spb.JournalRecord.FromString(payload)
    except Exception as e:  # DecodeError: a CRC-intact payload that is no record
        raise FormatError(f"not a journal record ({e})") from None
    if pb.WhichOneof("write") not in KINDS and pb.WhichOneof("write") not in TOURNAMENT_KINDS:
        raise FormatError(f"game {pb.game_id[:40]!r} seq {pb.seq}: a record of a kind this server does not "
                          "know (written by a newer release?)")
    return pb


def decode(pb: spb.JournalRecord, game: str) -> Record:
    kind = pb.WhichOneof("write")
    if kind is None:
        raise FormatError(f"game {pb.game_id[:40]!r} seq {pb.seq}: a record with no write")
    return KINDS[kind].decode(getattr(pb, kind), game)


def saved_game(rec: GameRecord) -> bytes:
    """A game as a snapshot keeps it: its GameHistory with `engine_over` (field 2) written first,
    so restore can answer is_over without folding the game through its engine."""
    return (b"\x10\x01" if rec.engine_over() else b"\x10\x00") + bytes(rec.history)


def split_saved(frame: bytes) -> tuple[bool | None, bytes]:
    """(engine_over, the history's records) of a snapshot's game; engine_over is None in a
    snapshot written before it was kept (its records start at once with field 1)."""
    if frame[:1] == b"\x10" and frame[1:2] in (b"\x00", b"\x01"):
        return frame[1] == 1, frame[2:]
    return None, frame


def history_entry(payload: bytes) -> bytes:
    """`payload` as field 1 (length-delimited) of a GameHistory message."""
    return wire.length_delimited(b"\x0a", payload)


def last_seating_at(rec: GameRecord) -> float:
    """When the game's seating last changed (a join, a leave, its start), or its creation: read from its
    records (only for a lobby game with no move yet, by the sweeps)."""
    at = rec.created
    for payload in history_payloads(bytes(rec.history)):
        pb = parse(payload)
        if pb.WhichOneof("write") == "seating":
            at = max(at, pb.at)
    return at


def history_payloads(history: bytes) -> Iterator[bytes]:
    """The record payloads of a GameHistory's wire form (the inverse of history_entry)."""
    pos, end = 0, len(history)
    while pos < end:
        if history[pos] != 0x0A:
            raise FormatError(f"game history: unexpected field tag 0x{history[pos]:02x} at byte {pos}")
        pos += 1
        n = shift = 0
        while True:
            if pos >= end or shift > 28:
                raise FormatError("game history: truncated length")
            b = history[pos]
            pos += 1
            n |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        if pos + n > end:
            raise FormatError("game history: record runs past its end")
        yield history[pos:pos + n]
        pos += n
