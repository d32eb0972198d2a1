"""The generic servicer core: every game's RPCs reduce to these operations.

Nothing here knows protobuf; servicer.py converts at the edge with the game's
codec. Refusals are ServiceError subclasses, each mapped to one status code.
"""
from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any, Literal, overload

from engines import registry
from engines.core import Event, Game, IllegalMove, InvalidOptions, Move, rank_by

from . import auth, clock, limits, lobby
from .errors import (
    AlreadyExists,
    Illegal,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Unavailable,
    forfeited,
    game_over,
    out_of_time,
)
from .participation import Seating, seating_of
from .records import GameRecord, MoveMade, Write
from .store import Store

MAX_SEED = 2**63 - 1


class GameCore:
    def __init__(self, store: Store):
        self.store = store
        # Records that go into the same write as a creation or a move (the referee's clock):
        # set by the referee, called after the creation or move is applied.
        self.after_create: Callable[[GameRecord], Sequence[Write]] = lambda rec: []
        self.after_move: Callable[[GameRecord, int, bool], Sequence[Write]] = lambda rec, seat, by_referee: []
        # Game id -> adjudications running on it: such a game takes no moves (the scored version is final).
        self.adjudicating: dict[str, int] = {}

    # ---- lookup and auth ----------------------------------------------------
    @property
    def games(self) -> dict[str, GameRecord]:
        return self.store.games

    def record(self, game_id: str, game: str | None = None) -> GameRecord:
        if not game_id:
            raise InvalidArgument("game_id is required", rule="GAME-ID")
        limits.bounded("game_id", game_id, limits.MAX_GAME_ID_BYTES)
        rec = self.store.games.get(game_id)
        shard = self.store.shard
        if rec is None and shard and "-" in game_id and not game_id.startswith(shard + "-"):
            # Another replica owns it (ids name their shard): never a wrong NOT_FOUND.
            raise Unavailable(f"game {limits.quote(game_id)!r} belongs to replica "
                              f"{limits.quote(game_id.rsplit('-', 1)[0])!r}, not "
                              f"{shard!r}; send the x-game-id header so the router can reach it",
                              retry_after_ms=1000)
        if rec is None or (game is not None and rec.game != game):
            raise NotFound(f"no {game or ''} game with id {limits.quote(game_id)!r}".replace("  ", " "), rule="GAME-ID")
        return rec

    @overload
    @staticmethod
    def seat(rec: GameRecord, token: str, required: Literal[True]) -> int: ...

    @overload
    @staticmethod
    def seat(rec: GameRecord, token: str, required: bool = False) -> int | None: ...

    @staticmethod
    def seat(rec: GameRecord, token: str, required: bool = False) -> int | None:
        """The caller's seat; None for a spectator (empty token). A wrong token is refused."""
        if not token:
            if required:
                raise PermissionDenied("this call needs a seat token", rule="SEAT-TOKEN")
            return None
        limits.bounded("token", token, limits.MAX_TOKEN_BYTES)
        seat = auth.seat_of(token, rec.token_hashes)
        if seat is None:
            raise PermissionDenied("the token does not belong to any seat of this game", rule="SEAT-TOKEN")
        return seat

    # ---- reads ----------------------------------------------------------------
    def status(self, rec: GameRecord, caller: int | None) -> dict[str, Any]:
        engine = rec.engine
        over = self.is_over(rec)  # (a finished game's state is not read: it may be asleep, server/records.py)
        stopped = self._stopped(rec, over)
        turn = None if stopped else engine.to_move(rec.state)
        status = {
            "game_id": rec.game_id,
            "game": rec.game,
            "seats": rec.seats,
            "version": rec.version,
            "seats_to_act": [] if stopped else self.public_seats_to_act(rec, caller, turn),
            "to_move": _seat_or_minus(turn),
            "current_player": -1 if over else _seat_or_minus(engine.current_player(rec.state)),
            "over": over,
            "caller_seat": -1 if caller is None else caller,
        }
        seating = seating_of(rec)
        if seating is not None:
            status.update(lobby.status_fields(self.store.players, seating))
        if over:
            status["outcome"] = self.outcome(rec)
        if rec.referee_state.clock is not None:
            status["time_bank_ms"] = clock.banks_now(rec.referee_state.clock, stopped, time.time())
        if rec.referee_state.forfeited:
            status["forfeited"] = sorted(rec.referee_state.forfeited)
        return status

    def to_move(self, rec: GameRecord) -> int:
        """The seat whose decision the game waits for (the seat clocks charge); -1 when the
        game is over, waits for players (LOBBY-1) or is closed for adjudication."""
        if self._stopped(rec, self.is_over(rec)):
            return -1
        return _seat_or_minus(rec.engine.to_move(rec.state))

    def _stopped(self, rec: GameRecord, over: bool) -> bool:
        """No seat acts: the game is over, waits for players (LOBBY-1) or is closed for adjudication."""
        return over or lobby.waiting(rec) or self.closed(rec) is not None

    def closed(self, rec: GameRecord) -> Illegal | None:
        """Why an unfinished game takes no more moves: its move cap is reached (the referee
        adjudicates it, retrying until it can) or AdjudicateGame is scoring it."""
        cap = rec.referee.get("max_moves", 0)
        if cap and rec.version >= cap:
            return Illegal(f"the game reached its move cap of {cap} moves; the referee is adjudicating it",
                           rule="REF-MAX-MOVES")
        if rec.game_id in self.adjudicating:
            return Illegal("the game is being adjudicated; it takes no more moves", rule="REF-ADJUDICATING")
        return None

    @staticmethod
    def public_seats_to_act(rec: GameRecord, caller: int | None, turn: int | None) -> list[int]:
        """The seat(s) the game waits for, plus the caller itself if it may act out of turn.
        Whether another seat could act out of turn can be hidden information (POM-51:
        only a seat whose whole hand is wild may declare), so it is never shown. `turn`: the
        engine's to_move."""
        acting: list[int] = rec.engine.seats_to_act(rec.state)
        if turn not in acting:
            return acting  # the game waits on others (e.g. a defender): that is public
        return [s for s in acting if s == turn or s == caller]

    @staticmethod
    def outcome(rec: GameRecord) -> dict[str, Any]:
        """The engine's outcome, or the referee's adjudication; a forfeited seat ranks last either way."""
        adjudication = rec.referee_state.adjudication
        if adjudication is not None:
            result = adjudication.outcome()
        else:
            o = rec.engine.outcome(rec.state)
            result = {"scores": list(o.scores), "ranks": list(o.ranks), "winners": list(o.winners)}
        forfeited = rec.referee_state.forfeited
        if forfeited:  # in the last place, all of them; the others keep their order, ranked as the engines rank
            playing = [s for s in range(rec.seats) if s not in forfeited]
            kept, _ = rank_by([-result["ranks"][s] for s in playing])
            ranks = [rec.seats] * rec.seats
            for s, r in zip(playing, kept):
                ranks[s] = r
            result["ranks"], result["winners"] = ranks, [s for s in playing if ranks[s] == 1]
        return result

    def view(self, rec: GameRecord, seat: int | None) -> dict[str, Any]:
        """The seat's view; a spectator's while the game waits for players (LOBBY-1): a seat may still be
        left, and whoever takes it next would play a hand others have seen."""
        view: dict[str, Any] = rec.engine.view(rec.state, None if lobby.waiting(rec) else seat)
        return view

    def legal_moves(self, rec: GameRecord, seat: int | None) -> list[Move]:
        if seat is None or self.is_over(rec) or lobby.waiting(rec) or self.closed(rec) is not None:
            return []
        moves: list[Move] = rec.engine.legal_moves(rec.state, seat)
        return moves

    def callers_moves(self, rec: GameRecord, seat: int | None) -> list[Move]:
        """The moves the seat's own caller may make: none once it has forfeited or its bank ran out (the
        referee plays it, and make_move refuses them), even before the referee's next tick."""
        if seat is not None and (seat in rec.referee_state.forfeited or _ran_out(rec, seat)):
            return []
        return self.legal_moves(rec, seat)

    def visible_events(self, rec: GameRecord, seat: int | None, after_version: int = 0, start: int = 0,
                       end: int | None = None) -> Iterator[tuple[int, int, bytes]]:
        """(index, version, encoded event) for events after `after_version` that `seat` may see, and
        the referee's events at `after_version` itself: made between moves (a forfeit, a move it
        announces, an adjudication), they carry the version they follow, so a client that saw that
        version and reconnected before them would never get them (it may get one twice instead).
        From 0 also those made before the first move (game_started). Only the events at `after_version`
        are decoded, to tell the referee's (a move's events, written for every move, carry no flag)."""
        events = rec.events
        for i in range(start, len(events) if end is None else end):
            version = events.version(i)
            if version < after_version or not events.visible_to(i, seat):
                continue
            if version > after_version or version == 0 or events.event(i).kind == "referee":
                yield i, version, events.wire(i)

    def log(self, rec: GameRecord, seat: int | None) -> list[dict[str, Any]]:
        """The move log; another seat's private move is withheld, after the end too unless revealed."""
        engine = rec.engine
        reveal = self.log_revealed(rec, seat)
        entries = []
        for version, entry in enumerate(rec.log, start=1):
            hidden = not reveal and entry.seat != seat and engine.move_is_private(entry.move)
            entries.append({"version": version, "seat": entry.seat, "move": None if hidden else entry.move,
                            "withheld": hidden, "by_referee": bool(entry.by_referee)})
        return entries

    def log_revealed(self, rec: GameRecord, seat: int | None) -> bool:
        """After the end a game option may show the seats every move and the seed (never spectators)."""
        return seat is not None and self.is_over(rec) and rec.engine.log_revealed_after_end(rec.state)

    def is_over(self, rec: GameRecord) -> bool:
        """Finished by its rules, or stopped and scored by the referee."""
        return rec.engine_over() or rec.referee_state.adjudication is not None

    # ---- writes ---------------------------------------------------------------
    def create(self, game: str, seats: int, options: dict[str, Any], seed: int | None,
               referee: dict[str, Any], seating: Seating | None = None) -> tuple[GameRecord, list[str]]:
        engine = check_seats(game, seats)
        if seed is not None and not 0 <= seed <= MAX_SEED:
            raise InvalidArgument("seed must be in 0..2^63-1", rule="LIMIT")
        clock.validate(referee)
        options = {**engine.default_options(), **options}  # journaled whole: a later default never changes this game
        try:
            return self.store.create(game, seats, options, seed, referee, seating, followups=self.after_create)
        except InvalidOptions as e:
            raise InvalidArgument(e.message, rule=e.rule) from None

    async def make_move(self, rec: GameRecord, seat: int, expected_version: int, key: str,
                        move: Move, by_referee: str = "", announce: tuple[Write, ...] = ()) -> tuple[list[bytes], bool]:
        """Returns (the encoded events visible to `seat`, replayed). Refusals change nothing.
        `announce`: records written in the same unit just before the move (the referee's reason)."""
        async with self.store.lock(rec.game_id):
            scoped = f"{seat}:{key}" if key else ""
            if scoped and scoped in rec.idem:  # a retry of an acknowledged move
                version = rec.idem[scoped]
                _same_move_or_refuse(rec, version, move)
                return rec.events.wires_at(version, seat), True
            if self.is_over(rec):
                raise game_over()
            if lobby.waiting(rec):
                raise Illegal(lobby.RULES["LOBBY-1"], rule="LOBBY-1")
            closed = self.closed(rec)
            if closed is not None:
                raise closed
            if not by_referee:
                if seat in rec.referee_state.forfeited:
                    raise forfeited(seat)
                if _ran_out(rec, seat):
                    raise out_of_time(seat, rec.referee.get("timeout_policy", "autoplay"))
            first = len(rec.events)
            try:
                self.store.commit(rec, [*announce, MoveMade(seat, move, scoped, by_referee)],
                                  expected_version, followups=lambda r: self.after_move(r, seat, bool(by_referee)))
            except IllegalMove as e:
                raise Illegal(e.message, rule=e.rule) from None
            return rec.events.wires_from(first, seat), False

    def write(self, rec: GameRecord, *writes: Write) -> list[Event]:
        """An unversioned write (the referee's clock, forfeits, adjudication, announcements)."""
        return self.store.commit(rec, writes)

    async def stream(self, rec: GameRecord, seat: int | None,
                     from_version: int) -> AsyncIterator[tuple[int, int, bytes]]:
        """(index, version, encoded event) for events after `from_version` visible to `seat`, then
        live ones until the game ends."""
        index = 0
        while True:
            signal = self.store.signal(rec.game_id)  # set by any change made after this line
            end = len(rec.events)
            for i, version, event in self.visible_events(rec, seat, from_version, index, end):
                yield i, version, event
            index = end
            if index < len(rec.events):
                continue
            if self.is_over(rec):
                return
            await self.store.wait(signal)

    async def changes(self, rec: GameRecord) -> AsyncIterator[None]:
        """Yields now, then after every change to the game, until it is over (state streams)."""
        while True:
            signal = self.store.signal(rec.game_id)  # set by any change made after this line
            version = rec.version
            yield
            if self.is_over(rec):
                return
            while not await self.store.wait(signal) and rec.version == version:
                pass


def _same_move_or_refuse(rec: GameRecord, version: int, move: Move) -> None:
    """A key names one move (AIP-155 request ids): reusing it for another move is refused,
    never answered as a replay that silently drops the new move."""
    if rec.log[version - 1].move != move:
        raise AlreadyExists(f"this idempotency key was already used for another move (version {version}); "
                            "send a new key with a new move", rule="IDEMPOTENCY-KEY")


def check_seats(game: str, seats: int) -> Game:
    """The game's engine, if it takes `seats` seats at all (its options may narrow the range further);
    checked before anything is built per seat."""
    engine = registry.game(game)
    if not engine.min_seats <= seats <= engine.max_seats:
        raise InvalidArgument(f"{game} takes {seat_ranges_said(engine)}, not {seats}",
                              rule=getattr(engine, "seats_rule", None))
    return engine


def seat_ranges_said(engine: Game) -> str:
    """"2 to 5 seats, or 3 to 6 seats with necromancer=true": every option set's range, not their union."""
    return ", or ".join(f"{r.min_seats} to {r.max_seats} seats{r.condition()}" for r in engine.spec.seat_ranges)


def _ran_out(rec: GameRecord, seat: int) -> bool:
    """The clock charges `seat` and its bank is used up: from then on its turn is the referee's,
    not only from the referee's next tick."""
    c = rec.referee_state.clock
    return c is not None and c.turn == seat and clock.remaining_ms(c, time.time()) <= 0


def _seat_or_minus(seat: int | None) -> int:
    return -1 if seat is None else seat
