"""The one list of games. The server, the web page, the SDK, the tests and the benchmarks read it;
adding a game is its package (engines/<id>/), its proto (protos/gameengine/v1/<id>.proto) and one
line in GAMES below. Everything else about a game is in its GameSpec (engines/<id>/spec.py)."""
from __future__ import annotations

import importlib
from dataclasses import dataclass

from .core import Game, GameSpec, SeatRange


@dataclass(frozen=True)
class Entry:
    """One served game. `prefix` names its proto: service `<prefix>Service`, RPCs
    `Make<prefix>Move` …, messages `<prefix>Move` …; `test_seats`: the seat counts the test
    suite and the benchmarks play; `codec`: a module of gameengine.codecs with the game's field
    adapters ("" when the generic codec needs none)."""

    game_id: str
    prefix: str
    test_seats: tuple[int, ...]
    codec: str = ""

    @property
    def engine(self) -> Game:
        engine: Game = importlib.import_module(f"engines.{self.game_id}").GAME
        return engine

    @property
    def spec(self) -> GameSpec:
        return self.engine.spec

    @property
    def proto_module(self) -> str:
        """The generated module of protos/gameengine/v1/<id>.proto."""
        return f"gameengine.v1.{self.game_id}_pb2"

    @property
    def moves_module(self) -> str:
        """The engine module whose classes are the move kinds (named like the proto's oneof fields)."""
        return f"engines.{self.game_id}.moves"

    @property
    def service(self) -> str:
        return f"gameengine.v1.{self.prefix}Service"


GAMES: tuple[Entry, ...] = (
    Entry("pompeii", "Pompeii", (2, 3, 4), codec="pompeii"),
    Entry("eruption", "Eruption", (2, 4, 6), codec="eruption"),
    Entry("citadels", "Citadels", (2, 4, 7), codec="citadels"),
    Entry("smallworld", "SmallWorld", (2, 3, 4, 5), codec="smallworld"),
    Entry("kuhn", "Kuhn", (2,)),
)
GAME_IDS: tuple[str, ...] = tuple(e.game_id for e in GAMES)
_BY_ID = {e.game_id: e for e in GAMES}


def entry(game_id: str) -> Entry:
    """The registry entry of `game_id` (KeyError for a game that is not served)."""
    return _BY_ID[game_id]


def game(game_id: str) -> Game:
    return entry(game_id).engine


def spec(game_id: str) -> GameSpec:
    return game(game_id).spec


def seat_ranges(game_id: str) -> tuple[SeatRange, ...]:
    """Seat ranges per option set, the base game's first (ListGameTypes)."""
    return spec(game_id).seat_ranges


def tested_seats(game_id: str) -> tuple[int, ...]:
    """The seat counts tests and benchmarks play, fewest first."""
    return entry(game_id).test_seats


def typical_seats(game_id: str) -> int:
    """One seat count for a test or benchmark that plays a single table of each game."""
    seats = entry(game_id).test_seats
    return seats[len(seats) // 2]


def games_table() -> str:
    """The README's table of games, rendered from the specs (tests/conformance/test_spec.py)."""
    rows = ["| game id | game | seats | options | rules |", "|---|---|---|---|---|"]
    for gid in GAME_IDS:
        s = spec(gid)
        seats = "; ".join(f"{r.min_seats}–{r.max_seats}{r.condition('`')}" for r in s.seat_ranges)
        rules = f"[{s.rules_doc}]({s.rules_doc})"
        rows.append(f"| `{gid}` | {s.title} | {seats} | {len(s.options)} | {rules}, `engines/{gid}/` |")
    return "\n".join(rows) + "\n"
