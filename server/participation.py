"""The participation layer's persistent state: players, seatings and player-stream events.

Every change to it is one of the typed records below, journaled through the store like a move
(acknowledged only once journaled, replayed at recovery). Two record kinds, one apply function each:

- "seating" (per game, guarded by the game's seq like every per-game write): SeatingChanged,
  applied to the game record by `apply_seating` (who sits where, seat token hashes).
- "player" (global): PlayerRegistered and PlayerNotified, applied to `Players` by `Players.redo`;
  both are idempotent, so a record the snapshot already holds is skipped.

Plain tokens are never stored: players and seats are known by SHA-256 hashes (auth.py).
"""
from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from engines.core import Event

from . import auth

if TYPE_CHECKING:
    from gameengine.storage.v1 import storage_pb2 as spb

    from .records import GameRecord

EVENTS_KEPT = 1000  # per player; an older cursor is refused (PLAYER-4), never silently skipped
OPEN = ""  # Seating.holders entry of a free seat


@dataclass
class Seating:
    """rec.seating of a game created with open or reserved seats (or a creator's player token)."""
    holders: list[str]  # per seat: a player id, or OPEN
    creator: str  # player id of the creator
    private: bool
    invite_hash: str  # "" for a public game
    created_at: float
    expires_at: float  # the game expires if still waiting then (LOBBY-9)
    claims: list[int]  # per seat: assignments so far; a new one is a new "seat assigned" event
    token_pending: list[bool]  # per seat: a reservation whose token still goes out on the player stream
    started: bool = False
    expired: bool = False
    tournament: str = ""  # "<tournament id>/<schedule index>" of a game a tournament created

    @property
    def waiting(self) -> bool:
        return not self.started and not self.expired

    def open_seats(self) -> list[int]:
        return [s for s, h in enumerate(self.holders) if h == OPEN]

    def seats_of(self, player_id: str) -> list[int]:
        return [s for s, h in enumerate(self.holders) if h == player_id]


@dataclass(frozen=True)
class SeatingChanged:
    """kind "seating": the game's new Seating, the seat token hashes that change with it, and the
    public events it makes (game_started), so a start is one record."""
    FIELD: ClassVar[str] = "seating"  # a record kind of the one write path (server/records.py)
    seating: Seating
    token_hashes: dict[int, str] = field(default_factory=dict)
    events: tuple[Event, ...] = ()

    def encode(self, game: str) -> spb.SeatingSet:
        from . import records
        return records.encode_seating(self, game)

    @classmethod
    def decode(cls, msg: spb.SeatingSet, game: str) -> SeatingChanged:
        from . import records
        return records.decode_seating(msg, game)

    def apply(self, rec: GameRecord, at: float) -> list[Event]:
        apply_seating(rec, self)
        return list(self.events)


@dataclass(frozen=True)
class PlayerRegistered:
    """kind "player": a new player."""
    FIELD: ClassVar[str] = "player_registered"
    player_id: str
    name: str
    token_hash: str
    at: float

    def encode(self, game: str) -> spb.PlayerRegistered | spb.PlayerNotified:
        from . import records
        return records.encode_player(self)

    @classmethod
    def decode(cls, msg: spb.PlayerRegistered, game: str) -> PlayerRegistered | PlayerNotified:
        from . import records
        return records.decode_player(msg)


@dataclass(frozen=True)
class PlayerNotified:
    """kind "player": one event of a player's stream (player_stream.py decides when)."""
    FIELD: ClassVar[str] = "player_notified"
    player_id: str
    cursor: int
    kind: str  # "seat_assigned", "game_started", "your_turn", "game_over"
    game_id: str
    game: str
    seat: int
    progress: tuple[str, int | bool]  # what this event settles, e.g. ("claim", 2) or ("turn", 17): see Player.progress
    status: dict[str, Any] | None = None  # your_turn: the status the seat saw
    outcome: dict[str, Any] | None = None  # game_over (None when the game expired before its start)

    def encode(self, game: str) -> spb.PlayerRegistered | spb.PlayerNotified:
        from . import records
        return records.encode_player(self)

    @classmethod
    def decode(cls, msg: spb.PlayerNotified, game: str) -> PlayerRegistered | PlayerNotified:
        from . import records
        return records.decode_player(msg)


def seating_of(rec: GameRecord) -> Seating | None:
    return rec.seating


def apply_seating(rec: GameRecord, change: SeatingChanged) -> None:
    """Apply a "seating" record to its game (live and at recovery)."""
    rec.seating = dataclasses.replace(change.seating, holders=list(change.seating.holders),
                                               claims=list(change.seating.claims),
                                               token_pending=list(change.seating.token_pending))
    for seat, digest in change.token_hashes.items():
        rec.token_hashes[seat] = digest
    rec.add_events(rec.version, change.events)


@dataclass
class Player:
    player_id: str
    name: str
    token_hash: str
    at: float
    events: list[PlayerNotified] = field(default_factory=list)  # the last EVENTS_KEPT
    last_cursor: int = 0
    # (game_id, seat) -> {"claim": n, "started": True, "turn": version, "over": True}: what was told
    progress: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)


class Players:
    """Every registered player, by id, name and token hash."""

    def __init__(self) -> None:
        self.by_id: dict[str, Player] = {}
        self.by_name: dict[str, str] = {}
        self.by_hash: dict[str, str] = {}
        self.signals: dict[str, asyncio.Event] = {}  # player id -> its stream's wake-up (not persisted)
        self.seated: dict[str, set[str]] = {}  # game id -> players with progress in it (derived)

    def __getstate__(self) -> dict[str, Any]:
        return {"by_id": self.by_id, "by_name": self.by_name, "by_hash": self.by_hash}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.signals = {}
        self.seated = {}
        for player in self.by_id.values():
            for game_id, _ in player.progress:
                self.seated.setdefault(game_id, set()).add(player.player_id)

    def forget_game(self, game_id: str) -> None:
        """The game left the store (evicted): what its players were told is no longer needed."""
        for pid in self.seated.pop(game_id, ()):
            progress = self.by_id[pid].progress
            for key in [k for k in progress if k[0] == game_id]:
                del progress[key]

    def authenticate(self, token: str) -> Player | None:
        pid = self.by_hash.get(auth.token_hash(token)) if token else None
        return self.by_id.get(pid) if pid else None

    def redo(self, record: object) -> int:
        """Apply a "player" record; 0 when it was applied already (it is in the snapshot)."""
        if isinstance(record, PlayerRegistered):
            if record.player_id in self.by_id:
                return 0
            self.by_id[record.player_id] = Player(record.player_id, record.name, record.token_hash, record.at)
            self.by_name[record.name] = record.player_id
            self.by_hash[record.token_hash] = record.player_id
            return 1
        if isinstance(record, PlayerNotified):
            player = self.by_id.get(record.player_id)
            if player is None or record.cursor != player.last_cursor + 1:
                return 0
            player.events.append(record)
            if len(player.events) > EVENTS_KEPT:
                del player.events[: len(player.events) - EVENTS_KEPT]
            player.last_cursor = record.cursor
            key, value = record.progress
            player.progress.setdefault((record.game_id, record.seat), {})[key] = value
            self.seated.setdefault(record.game_id, set()).add(player.player_id)
            return 1
        raise ValueError(f"unknown player record {type(record).__name__}")
