"""The engine contract shared by every game (see DESIGN.md, "engines/").

A game is a module-level object implementing `Game`. A state is a plain,
picklable Python object owned by the caller (the store); `apply` mutates it in
place and returns the events it caused. All chance comes from `state.rng`, a
`random.Random` stored in the state, so (options, seed, moves) replays exactly.

Moves are immutable, hashable values (NamedTuples), so MCTS can key statistics
on them and compare moves across determinizations.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from engines.event import PUBLIC, Event
from engines.playout import MovePath, play_random
from engines.playout import Step as Step  # re-exported: the turn-flow contract
from engines.playout import advance as advance

__all__ = ["PUBLIC", "Event", "play_random"]  # re-exported: the contract's names, compiled elsewhere

Move = Hashable


def distinct_move_kinds(*kinds: type) -> None:
    """Make NamedTuple move classes compare and hash by kind as well as by fields.

    Plain NamedTuples compare as tuples, so `Pass() == EndTurn()` and
    `Rob(3) == Assassinate(3)`; MCTS keys and "is this move legal" checks need
    moves of different kinds to differ. Every engine calls this once on its kinds.
    """
    # Equal moves are of one kind with equal fields, so the tuple's own (C) hash stays consistent
    # with `eq`; moves of two kinds with equal fields merely share a hash bucket.
    tuple_eq, tuple_ne = tuple.__eq__, tuple.__ne__

    def eq(self: tuple[Any, ...], other: object) -> bool:
        return type(self) is type(other) and tuple_eq(self, other)

    def ne(self: tuple[Any, ...], other: object) -> bool:
        return type(self) is not type(other) or tuple_ne(self, other)

    for kind in kinds:  # setattr: replacing a class's dunders is what this function is for
        for name, method in (("__eq__", eq), ("__ne__", ne), ("__hash__", tuple.__hash__)):
            setattr(kind, name, method)


class RuleError(Exception):
    """A refusal that cites the rule it enforces. `rule` is e.g. "POM-51"."""

    def __init__(self, rule: str, message: str):
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message


class IllegalMove(RuleError):
    """The move breaks a rule; the state is unchanged."""


class InvalidOptions(RuleError):
    """Game creation refused: bad seat count, unknown flag or bad value."""


@dataclass(frozen=True)
class Outcome:
    """Final result. `ranks[s]` is 1 for the winner(s); equal keys share a place."""

    scores: tuple[float, ...]
    ranks: tuple[int, ...]
    winners: tuple[int, ...]
    detail: Mapping[str, Any] = field(default_factory=dict)


def rank_by(keys: Sequence[Any]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Competition ranking ("1224") by descending key; returns (ranks, winners)."""
    order = sorted(range(len(keys)), key=lambda s: keys[s], reverse=True)
    ranks = [0] * len(keys)
    for pos, s in enumerate(order):
        if pos and keys[s] == keys[order[pos - 1]]:
            ranks[s] = ranks[order[pos - 1]]
        else:
            ranks[s] = pos + 1
    winners = tuple(s for s in range(len(keys)) if ranks[s] == 1)
    return tuple(ranks), winners


@dataclass(frozen=True)
class SeatRange:
    """The seats a game takes under `options` (empty: the base game). An engine whose
    options change its seat count lists one per option set as `seat_ranges`."""

    options: Mapping[str, Any]
    min_seats: int
    max_seats: int

    def condition(self, code: str = "") -> str:
        """' with necromancer=true': the options that give this range, as a request names them (each
        between `code` marks: '`' in Markdown)."""
        return "".join(f" with {code}{k}={str(v).lower()}{code}" for k, v in self.options.items())


@dataclass(frozen=True)
class Option:
    """One game option as the creator sets it (the proto options field of the same name).

    `type` is the wire type (bool, int or str); `allowed` lists the values it takes, or is a
    sentence when they depend on the seat count; `rule` is the rule id that defines it.
    """

    name: str
    type: type
    default: Any
    allowed: tuple[Any, ...] | str
    rule: str
    description: str


@dataclass(frozen=True)
class GameSpec:
    """What a game is, declared once as data: the registry, ListGameTypes, the codecs' option
    checks, the README's game table and the conformance tests read it; nothing restates it."""

    game_id: str
    title: str
    seat_ranges: tuple[SeatRange, ...]  # the base game's first
    seats_rule: str  # the rule a bad seat count breaks
    options: tuple[Option, ...]
    private_moves: tuple[str, ...]  # move kinds other seats' logs withhold (class names)
    data_files: tuple[str, ...]  # under engines/<game_id>/data/
    rules_doc: str = ""  # docs/rules/<game_id>.md unless set

    def __post_init__(self) -> None:
        if not self.rules_doc:
            object.__setattr__(self, "rules_doc", f"docs/rules/{self.game_id}.md")

    @property
    def min_seats(self) -> int:
        return min(r.min_seats for r in self.seat_ranges)

    @property
    def max_seats(self) -> int:
        return max(r.max_seats for r in self.seat_ranges)

    def defaults(self) -> dict[str, Any]:
        return {o.name: o.default for o in self.options}

    def option(self, name: str) -> Option:
        return next(o for o in self.options if o.name == name)

    def choices(self, type_: type) -> dict[str, tuple[Any, ...]]:
        """Options of `type_` whose values are a fixed list, with that list."""
        return {o.name: o.allowed for o in self.options if o.type is type_ and isinstance(o.allowed, tuple)}


class Game(Protocol):
    """What every engine module exposes (as a module-level `GAME` object)."""

    spec: GameSpec
    game_id: str
    min_seats: int
    max_seats: int

    def default_options(self) -> dict[str, Any]: ...

    def new_state(self, seats: int, options: Mapping[str, Any], seed: int) -> Any:
        """Validate options (raise InvalidOptions) and build the initial state."""

    def seats_to_act(self, state: Any) -> list[int]:
        """Seats that have at least one legal move now (out-of-turn included)."""

    def legal_moves(self, state: Any, seat: int) -> list[Move]: ...

    def apply(self, state: Any, seat: int, move: Move) -> list[Event]:
        """Check then mutate. Raise IllegalMove before touching the state."""

    def play(self, state: Any, seat: int, move: Move) -> list[Event]:
        """`apply` for a move just taken from `legal_moves(state, seat)` (a search's tree and
        rollouts): the same effect and events, without re-running the checks it passed."""

    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        """What `seat` (None = spectator) may know; keys match the proto view."""

    def is_over(self, state: Any) -> bool: ...

    def outcome(self, state: Any) -> Outcome: ...

    def clone(self, state: Any) -> Any: ...

    def determinize(self, view: dict[str, Any], seat: int, rng: random.Random) -> Any:
        """A full state agreeing with `view` (what `seat` may know), with every
        hidden part (other hands, deck and bag order, RNG) resampled from rng."""

    def move_is_private(self, move: Move) -> bool:
        """True when other seats' logs must withhold this move (e.g. a secret pick)."""

    def log_revealed_after_end(self, state: Any) -> bool:
        """True when, after the end, the seats' logs show every move and the seed (a game option);
        by default private moves stay withheld and the seed, which reproduces every secret, too."""

    def to_move(self, state: Any) -> int | None:
        """The seat whose decision the game waits for (the one clocks charge); None when over.
        It is in seats_to_act and has a legal move; other seats there may only act out of turn."""

    def current_player(self, state: Any) -> int | None:
        """The seat whose turn it is in the turn order; None when over. It differs from
        to_move while the game waits on another seat (a Small World defender, SW-82)."""


S = TypeVar("S")  # a game's state class

Check = Callable[[Any, int, Any], None]  # (state, seat, move): raise IllegalMove citing the rule
Effect = Callable[[Any, int, Any, list[Event]], None]  # (state, seat, move, events): mutate, append events


class Engine(Generic[S]):
    """The one engine shape (boardgame.io's moves table, OpenSpiel's few-method State).

    A game subclasses this and declares, as data, its `spec`, a `checks` table and an `effects`
    table keyed by move kind (each legality rule a small predicate that the move generator
    `legal_moves` uses too), plus the few functions of state below. `apply` is the same for
    every game: the seat check, the move kind's check, then its effect; it never builds the
    full legal list. Turn flow is a table of named steps run by `advance`.
    """

    spec: ClassVar[GameSpec]
    checks: ClassVar[Mapping[type, Check]]
    effects: ClassVar[Mapping[type, Effect]]

    def __init__(self) -> None:
        # Each engine's apply/play are its tables' compiled MovePath (engines/playout.py): one native
        # call per move instead of three interpreted frames. A game that defines its own keeps it.
        path = MovePath(self.check_seat, self.checks, self.effects)
        if type(self).apply is Engine.apply:
            self.apply = path.apply  # type: ignore[method-assign]
        if type(self).play is Engine.play:
            self.play = path.play  # type: ignore[method-assign]

    @property
    def game_id(self) -> str:
        return self.spec.game_id

    @property
    def min_seats(self) -> int:
        return self.spec.min_seats

    @property
    def max_seats(self) -> int:
        return self.spec.max_seats

    @property
    def seats_rule(self) -> str:
        return self.spec.seats_rule

    def default_options(self) -> dict[str, Any]:
        return self.spec.defaults()

    # what each game writes
    def new_state(self, seats: int, options: Mapping[str, Any], seed: int) -> S:
        raise NotImplementedError

    def check_seat(self, state: S, seat: int, move: Move) -> None:
        """Refuse a move that no seat may make now or that `seat` may not make (game over, not
        its turn, a kind of another phase, an unknown kind), citing the rule; state untouched."""
        raise NotImplementedError

    def legal_moves(self, state: S, seat: int) -> list[Move]:
        raise NotImplementedError

    def seats_to_act(self, state: S) -> list[int]:
        raise NotImplementedError

    def to_move(self, state: S) -> int | None:
        raise NotImplementedError

    def view(self, state: S, seat: int | None) -> dict[str, Any]:
        raise NotImplementedError

    def determinize(self, view: dict[str, Any], seat: int, rng: random.Random, /) -> S:
        raise NotImplementedError

    def is_over(self, state: S) -> bool:
        raise NotImplementedError

    def outcome(self, state: S) -> Outcome:
        raise NotImplementedError

    # the same for every game (apply and play as MovePath's, which __init__ binds in their place)
    def check(self, state: S, seat: int, move: Move) -> None:
        self.check_seat(state, seat, move)
        self.checks[type(move)](state, seat, move)

    def apply(self, state: S, seat: int, move: Move) -> list[Event]:
        self.check(state, seat, move)
        events: list[Event] = []
        self.effects[type(move)](state, seat, move, events)
        return events

    def play(self, state: S, seat: int, move: Move) -> list[Event]:
        events: list[Event] = []
        self.effects[type(move)](state, seat, move, events)
        return events

    def current_player(self, state: S) -> int | None:
        return self.to_move(state)

    # S is unbounded: the engines' state classes keep their fields in __slots__ (no annotations a
    # protocol bound could match), so these two read what every state has without a declared type.
    def clone(self, state: S) -> S:
        return state.clone()  # type: ignore[attr-defined, no-any-return]

    def move_is_private(self, move: Move) -> bool:
        return type(move).__name__ in self.spec.private_moves

    def log_revealed_after_end(self, state: S) -> bool:
        return bool(state.options["reveal_log_after_end"])  # type: ignore[attr-defined]


def replay(game: Game, seats: int, options: Mapping[str, Any], seed: int, log: Iterable[tuple[int, Move]]) -> Any:
    """Rebuild a state from its creation parameters and accepted moves (a fold)."""
    state = game.new_state(seats, options, seed)
    for seat, move in log:
        game.apply(state, seat, move)
    return state
