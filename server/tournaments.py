"""TournamentService and its scheduler: the server runs the event, bots only connect.

A tournament is created (registering), entrants join with their player tokens (or are a fixed list),
and the creator (creator token, or the operator token GE_ADMIN_TOKEN) starts it: the entrants get
their seeded order and the schedule is fixed (every game of a round robin; Swiss rounds one at a
time, paired from the standings). The scheduler (`advance`) then creates each game with every seat
reserved for its entrants (the lobby's reserved seats: each entrant is told on its player stream,
seat token included), at most max_parallel_games at once and never two games of one entrant at once.
The tournament's clock is every game's clock, so an absent or crashed bot is played (or forfeited)
by the referee and never stalls the event. When a game is over its result is counted once into the
standings and the leaderboard (tournament_records.py).

`advance` looks only at journaled state (the tournament's records and its games), so running it
again changes nothing; it runs after every change to a tournament game and over every running
tournament at start-up, which is how a tournament resumes after kill -9: games in flight go on,
finished ones are counted (once: the record's seq guards it), the next games are created. A game
created just before a crash, whose GameScheduled record was lost, is found again by the tournament
mark in its seating and linked, never created twice.

The rules of this layer, in one place:
"""
from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import math
import random
import secrets
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable
from typing import TYPE_CHECKING, Any, cast

import structlog

from engines import registry
from engines.core import InvalidOptions
from gameengine import codecs
from gameengine.v1 import common_pb2, tournament_pb2, tournament_pb2_grpc

from . import access, auth, clock, drain, fanout, limits, lobby, metrics, pairing, periodic, quotas
from .config import Config
from .edge import note, opened, rpc, rpc_stream
from .errors import AlreadyExists, Exhausted, Illegal, InvalidArgument, NotFound, PermissionDenied, Unavailable
from .participation import Seating, seating_of
from .tournament_records import (
    CANCELLED,
    FINISHED,
    REGISTERING,
    ROUND_ROBIN,
    RUNNING,
    SWISS,
    EntrantJoined,
    EntrantWithdrew,
    GameCounted,
    GameScheduled,
    Rating,
    RoundPaired,
    Tournament,
    TournamentCreated,
    TournamentEnded,
    TournamentEvent,
    TournamentStarted,
)

if TYPE_CHECKING:
    from .referee import Referee
    from .service import GameCore

log = structlog.get_logger("gameengine.tournaments")

RULES = {
    "TOUR-0": "a name is at most 64 bytes, an id or a token at most 128; a tournament has at most 256 entrants "
              "and 2000 games, at most 1000 at once, and a seed in 0..2^63-1",
    "TOUR-1": "a tournament names a game this server hosts, its options (of that game) and 2 to 7 seats per game "
              "within the game's seat range",
    "TOUR-2": "the format is ROUND_ROBIN or SWISS",
    "TOUR-3": "a tournament has a clock the referee can enforce: a time bank of 100 ms (and at least two referee "
              "ticks) to 1 hour, an increment of at most 60 s, a known timeout policy, at most 100000 moves",
    "TOUR-4": "only an open-registration tournament that has not started takes joins and withdrawals",
    "TOUR-5": "the tournament is full (max_entrants)",
    "TOUR-6": "a start needs at least seats_per_game entrants and, for a round robin, a number of games that is a "
              "multiple of one cycle",
    "TOUR-7": "only the creator token or the operator token may start or cancel a tournament, or ask for a "
              "finished one's seeds",
    "TOUR-8": "a player enters a tournament once, and withdraws only from one it entered",
    "TOUR-9": "a fixed entry list names distinct registered players",
    "TOUR-10": "points_per_rank has one value per seat, not increasing, each within -1000..1000",
    "TOUR-11": "a stream cursor is one the tournament issued",
    "TOUR-12": "a round robin is sized by games, a Swiss event by rounds (at most 50)",
    "TOUR-13": "only a registering tournament starts, and only one not yet finished or cancelled is cancelled; "
               "cancelling abandons its unfinished games",
    "TOUR-14": "at most 100 tournaments are registering or running on a server at once",
    "TOUR-15": "one address creates at most GE_TOURNAMENTS_PER_ADDRESS tournaments registering or running at once, "
               "each a create (GE_CREATES_PER_MIN); their games are live games of the tournament and of that "
               "address (GE_LIVE_GAMES, GE_LIVE_GAMES_PER_CLIENT, GE_LIVE_GAMES_PER_ADDRESS): the scheduler waits "
               "for room",
    "TOUR-16": "a tournament still registering GE_TOURNAMENT_REGISTRATION_TTL_S after its creation is cancelled",
    "TOUR-17": "tournament_id names a tournament of this server",
}
__doc__ += "\n".join(f"\n    {rule}: {text}" for rule, text in RULES.items())

MAX_NAME, MAX_ID, MAX_TOKEN = limits.MAX_NAME_BYTES, limits.MAX_GAME_ID_BYTES, limits.MAX_TOKEN_BYTES
MAX_ENTRANTS, DEFAULT_ENTRANTS, MAX_GAMES, MAX_ROUNDS, MAX_ACTIVE = 256, 64, 2000, 50, 100
MIN_BANK_MS, MAX_BANK_MS, MAX_INCREMENT_MS, MAX_MOVES = 100, 3_600_000, 60_000, 100_000
PAGE_DEFAULT, PAGE_MAX = 20, 100
FORMATS = {tournament_pb2.TOURNAMENT_FORMAT_ROUND_ROBIN: ROUND_ROBIN, tournament_pb2.TOURNAMENT_FORMAT_SWISS: SWISS}
STATES = {REGISTERING: tournament_pb2.TOURNAMENT_STATE_REGISTERING, RUNNING: tournament_pb2.TOURNAMENT_STATE_RUNNING,
          FINISHED: tournament_pb2.TOURNAMENT_STATE_FINISHED, CANCELLED: tournament_pb2.TOURNAMENT_STATE_CANCELLED}
POLICY_ENUM = {"autoplay": common_pb2.TIMEOUT_POLICY_AUTOPLAY, "random": common_pb2.TIMEOUT_POLICY_RANDOM,
               "forfeit": common_pb2.TIMEOUT_POLICY_FORFEIT}


def bounded(value: str, limit: int, what: str) -> str:
    return limits.bounded(what, value, limit, rule="TOUR-0")


def game_seed(seed: int, index: int) -> int:
    """The seed of schedule place `index`: fixed by the tournament seed alone."""
    return int.from_bytes(hashlib.sha256(f"{seed}/{index}".encode()).digest()[:8], "big") & (2**63 - 1)


# ---- creation ----------------------------------------------------------------------------
def clock_of(msg: tournament_pb2.TournamentClock, tick_s: float) -> dict[str, Any]:
    """RefereeOptions of every game, from TournamentClock; refused unless the referee can enforce it."""
    floor = max(MIN_BANK_MS, int(2 * tick_s * 1000))
    if not floor <= msg.time_bank_ms <= MAX_BANK_MS:
        raise InvalidArgument(f"time_bank_ms must be {floor}..{MAX_BANK_MS} (the clock is what keeps an absent "
                              f"entrant from stalling the event), not {msg.time_bank_ms}", rule="TOUR-3")
    if msg.increment_ms > MAX_INCREMENT_MS:
        raise InvalidArgument(f"increment_ms is at most {MAX_INCREMENT_MS}", rule="TOUR-3")
    if msg.max_moves > MAX_MOVES:
        raise InvalidArgument(f"max_moves is at most {MAX_MOVES}", rule="TOUR-3")
    return {"time_bank_ms": msg.time_bank_ms, "increment_ms": msg.increment_ms,
            "timeout_policy": clock.timeout_policy(msg.timeout_policy, rule="TOUR-3"), "max_moves": msg.max_moves}


def options_of(request: tournament_pb2.CreateTournamentRequest, games: list[str]) -> dict[str, Any]:
    game = bounded(request.game, MAX_ID, "game")
    if game not in games:
        raise InvalidArgument(f"unknown game {limits.quote(game)!r}; this server hosts {', '.join(games)}",
                              rule="TOUR-1")
    which = request.WhichOneof("options")
    if which is not None and which != game:
        raise InvalidArgument(f"{which} options for a {game} tournament", rule="TOUR-1")
    codec = codecs.codec(game)
    msg = getattr(request, which) if which else getattr(codec.pb2, f"{codec.prefix}Options")()
    options = codec.options_from_proto(msg)
    engine = registry.game(game)
    k = request.seats_per_game
    if not (2 <= k <= 7 and engine.min_seats <= k <= engine.max_seats):
        raise InvalidArgument(f"{game} tournaments take 2 to 7 seats per game within {engine.min_seats}.."
                              f"{engine.max_seats}, not {k}", rule="TOUR-1")
    try:
        engine.new_state(k, options, 0)
    except InvalidOptions as e:
        raise InvalidArgument(f"these options do not fit {k} seats: {e.rule}: {e.message}", rule="TOUR-1") from None
    return options


def points_of_request(values: Iterable[float], k: int) -> tuple[float, ...]:
    if not values:
        return tuple(float(k - r) for r in range(1, k + 1))
    pts = tuple(float(v) for v in values)
    if (len(pts) != k or any(not math.isfinite(p) or abs(p) > 1000 for p in pts)
            or any(a < b for a, b in zip(pts, pts[1:]))):
        raise InvalidArgument(f"points_per_rank needs {k} values, not increasing, within -1000..1000",
                              rule="TOUR-10")
    return pts


def create(core: GameCore, cfg: Config, games: list[str], request: tournament_pb2.CreateTournamentRequest,
           shard: str = "") -> tuple[Tournament, str]:
    """Check everything, then one TournamentCreated record; returns it and the creator token."""
    store = core.store
    name = bounded(request.name, MAX_NAME, "name")
    options = options_of(request, games)
    k = request.seats_per_game
    fmt = FORMATS.get(request.format)
    if fmt is None:
        raise InvalidArgument(f"unknown format {request.format}; use ROUND_ROBIN or SWISS", rule="TOUR-2")
    game_clock = clock_of(request.clock, cfg.referee_tick_s)
    if fmt == ROUND_ROBIN and request.rounds:
        raise InvalidArgument("a round robin is sized by games (multiples of one cycle), not rounds", rule="TOUR-12")
    if fmt == SWISS and request.games:
        raise InvalidArgument(f"a Swiss event is sized by rounds (0..{MAX_ROUNDS}), not games", rule="TOUR-12")
    if fmt == SWISS and request.rounds > MAX_ROUNDS:
        raise InvalidArgument(f"rounds is at most {MAX_ROUNDS}", rule="TOUR-12")
    if request.games > MAX_GAMES:
        raise InvalidArgument(f"games is at most {MAX_GAMES}", rule="TOUR-0")
    if len(request.player_ids) > MAX_ENTRANTS or request.max_entrants > MAX_ENTRANTS:
        raise InvalidArgument(f"a tournament has at most {MAX_ENTRANTS} entrants", rule="TOUR-0")
    if 0 < request.max_entrants < k:  # it could never start, and would hold a place of its address (TOUR-15)
        raise InvalidArgument(f"max_entrants {request.max_entrants} is below seats_per_game {k}: the tournament "
                              "could never start", rule="TOUR-6")
    fixed = [bounded(p, MAX_ID, "player_ids") for p in request.player_ids]
    if len(set(fixed)) != len(fixed) or any(p not in store.players.by_id for p in fixed):
        raise InvalidArgument("player_ids must be distinct registered player ids", rule="TOUR-9")
    points = points_of_request(request.points_per_rank, k)
    if request.HasField("seed") and request.seed > 2**63 - 1:
        raise InvalidArgument("seed must be in 0..2^63-1", rule="TOUR-0")
    if request.max_parallel_games > 1000:
        raise InvalidArgument("max_parallel_games is at most 1000", rule="TOUR-0")
    active = [t.tournament_id for t in store.tournaments.by_id.values() if t.state in (REGISTERING, RUNNING)]
    if len(active) >= MAX_ACTIVE:
        raise Exhausted(RULES["TOUR-14"], rule="TOUR-14", retry_after_ms=60_000)
    address = quotas.address()
    quotas.QUOTAS.may_create_tournament(quotas.caller(), address,
                                        sum(1 for tid in active if _addresses.get(tid) == address))
    token, digest = auth.mint()
    # "<shard>-<16 hex>" like a game id, so the router (k8s/) reaches the owner by the x-game-id header
    tid = f"{shard}-{secrets.token_hex(8)}" if shard else f"t-{secrets.token_hex(8)}"
    t = Tournament(tournament_id=tid, name=name or f"{request.game} {fmt.replace('_', ' ')}", game=request.game,
                   seats=k, options=options, format=fmt, games=request.games, rounds=request.rounds, clock=game_clock,
                   max_parallel=request.max_parallel_games, open_registration=not fixed,
                   max_entrants=len(fixed) if fixed else (request.max_entrants or DEFAULT_ENTRANTS),
                   points_per_rank=points, seed=request.seed if request.HasField("seed") else secrets.randbits(63),
                   creator_hash=digest, created_at=time.time(), entrants=fixed)
    store.write_tournament(TournamentCreated(t))
    _addresses[tid] = address
    log.info("tournament_created", tournament_id=tid, game=t.game, format=fmt, seats=k)
    return store.tournaments.by_id[tid], token


def find(core: GameCore, tournament_id: str) -> Tournament:
    bounded(tournament_id, MAX_ID, "tournament_id")
    if not tournament_id:
        raise InvalidArgument("tournament_id is required", rule="TOUR-0")
    t = core.store.tournaments.by_id.get(tournament_id)
    shard = core.store.shard
    if t is None and shard and "-" in tournament_id and not tournament_id.startswith(shard + "-"):
        raise Unavailable(f"tournament {limits.quote(tournament_id)!r} belongs to another replica; send the "
                          "x-game-id header with the tournament id so the router can reach it", retry_after_ms=1000)
    if t is None:
        raise NotFound(f"no tournament with id {limits.quote(tournament_id)!r}", rule="TOUR-17")
    return t


# ---- entry --------------------------------------------------------------------------------
def join(core: GameCore, tournament_id: str, player_token: str) -> Tournament:
    player = lobby.player_of(core.store.players, bounded(player_token, MAX_TOKEN, "player_token"))
    t = find(core, tournament_id)
    if not t.open_registration:
        raise Illegal(f"{RULES['TOUR-4']}: this one has a fixed entry list", rule="TOUR-4")
    if t.state != REGISTERING:
        raise Illegal(f"{RULES['TOUR-4']}: this one is {t.state}", rule="TOUR-4")
    if player.player_id in t.entrants:
        raise AlreadyExists("the player has entered this tournament already", rule="TOUR-8")
    if len(t.entrants) >= t.max_entrants:
        raise Illegal(f"{RULES['TOUR-5']}: {t.max_entrants} entrants", rule="TOUR-5")
    core.store.write_tournament(EntrantJoined(t.tournament_id, t.seq + 1, player.player_id))
    return t


def withdraw(core: GameCore, tournament_id: str, player_token: str) -> Tournament:
    player = lobby.player_of(core.store.players, bounded(player_token, MAX_TOKEN, "player_token"))
    t = find(core, tournament_id)
    if player.player_id not in t.entrants:
        raise Illegal("the player has not entered this tournament", rule="TOUR-8")
    if not t.open_registration or t.state != REGISTERING:
        raise Illegal(f"{RULES['TOUR-4']}: this one is {t.state}"
                      + ("" if t.open_registration else " with a fixed entry list"), rule="TOUR-4")
    core.store.write_tournament(EntrantWithdrew(t.tournament_id, t.seq + 1, player.player_id))
    return t


def authorize(t: Tournament, token: str, admin_token: str) -> str:
    """Who `token` is: "creator" or "operator" (GE_ADMIN_TOKEN); TOUR-7 for anyone else."""
    bounded(token, MAX_TOKEN, "creator_token")
    if token and hmac.compare_digest(auth.token_hash(token), t.creator_hash):
        return "creator"
    if token and admin_token and hmac.compare_digest(token.encode(), admin_token.encode()):
        return "operator"
    raise PermissionDenied(RULES["TOUR-7"], rule="TOUR-7")


# ---- start, cancel ---------------------------------------------------------------------------
def plan_start(t: Tournament) -> TournamentStarted:
    """The seeded entrant order and the first games (pure: the same tournament, the same plan)."""
    n, k = len(t.entrants), t.seats
    if n < k:
        raise Illegal(f"{RULES['TOUR-6']}: {n} entrants for {k} seats per game", rule="TOUR-6")
    order = list(t.entrants)
    random.Random(t.seed).shuffle(order)
    if t.format == ROUND_ROBIN:
        cycle = pairing.cycle_length(n, k)
        wanted = t.games or cycle
        if wanted % cycle or wanted > MAX_GAMES:
            raise Illegal(f"{RULES['TOUR-6']}: one cycle of {n} entrants at {k} seats is {cycle} games, so games "
                          f"must be a multiple of {cycle} (at most {MAX_GAMES}), not {wanted}", rule="TOUR-6")
        schedule = pairing.round_robin_schedule(order, k, wanted // cycle)
        slots = tuple((r, s, game_seed(t.seed, i)) for i, (r, s) in enumerate(schedule))
        return TournamentStarted(t.tournament_id, t.seq + 1, tuple(order), schedule[-1][0], slots, (), time.time())
    total_rounds = t.rounds or pairing.default_swiss_rounds(n)
    if total_rounds * (n // k) > MAX_GAMES:
        raise Illegal(f"{RULES['TOUR-6']}: {total_rounds} rounds of {n // k} games is more than {MAX_GAMES}",
                      rule="TOUR-6")
    seatings, byes = pairing.swiss_round(order, k, [], {})
    slots = tuple((1, s, game_seed(t.seed, i)) for i, s in enumerate(seatings))
    return TournamentStarted(t.tournament_id, t.seq + 1, tuple(order), total_rounds, slots, tuple(byes), time.time())


def start(core: GameCore, referee: Referee, tournament_id: str, token: str, admin_token: str) -> Tournament:
    t = find(core, tournament_id)
    authorize(t, token, admin_token)
    if t.state != REGISTERING:
        raise Illegal(f"{RULES['TOUR-13']}: this one is {t.state}", rule="TOUR-13")
    core.store.write_tournament(plan_start(t))
    log.info("tournament_started", tournament_id=t.tournament_id, entrants=len(t.entrants), games=t.games_total)
    advance(core, referee, t)
    return t


def cancel(core: GameCore, referee: Referee, tournament_id: str, token: str, admin_token: str) -> Tournament:
    t = find(core, tournament_id)
    who = authorize(t, token, admin_token)
    if t.state in (FINISHED, CANCELLED):
        raise Illegal(f"{RULES['TOUR-13']}: this one is {t.state}", rule="TOUR-13")
    end(core, referee, t, f"cancelled by its {who}")
    return t


def end(core: GameCore, referee: Referee, t: Tournament, why: str) -> None:
    """Cancel the tournament and abandon its unfinished games: nobody plays them for it any more, and
    left running they would hold the server's live games and the referee's clocks for hours."""
    store = core.store
    store.write_tournament(TournamentEnded(t.tournament_id, t.seq + 1, CANCELLED, why, time.time()))
    for slot in t.slots:
        rec = store.games.get(slot.game_id) if slot.game_id else None
        if rec is not None and not core.is_over(rec):
            referee.abandon(rec, f"its tournament was {why}")
    log.info("tournament_cancelled", tournament_id=t.tournament_id, why=why)


async def run(core: GameCore, referee: Referee, registration_ttl_s: float) -> None:
    """At start-up every running tournament resumes (`resume_all`); then every few seconds: cancel
    tournaments registering past their time (TOUR-16), and let those whose scheduler waited for room
    (TOUR-15) create their next games."""
    try:
        resume_all(core, referee)
    except Exception:  # e.g. a journal that cannot be written now: the passes below try again
        log.exception("tournament_resume_failed")
        _short_of_room.update(t.tournament_id for t in core.store.tournaments.by_id.values() if t.state == RUNNING)

    async def one_pass() -> None:
        cutoff = time.time() - registration_ttl_s
        for t in list(core.store.tournaments.by_id.values()):
            if registration_ttl_s > 0 and t.state == REGISTERING and t.created_at < cutoff:
                end(core, referee, t, f"not started within {registration_ttl_s:g} s (GE_TOURNAMENT_REGISTRATION_TTL_S)")
        for tid in list(_short_of_room):
            _short_of_room.discard(tid)
            waiting = core.store.tournaments.by_id.get(tid)
            if waiting is not None:
                advance(core, referee, waiting)
    await periodic.every(ROOM_EVERY_S, "tournament_pass_failed", one_pass)


# ---- the scheduler ---------------------------------------------------------------------------
_advancing: set[str] = set()
_again: set[str] = set()
_short_of_room: set[str] = set()  # running tournaments whose next game waits for live-game room (TOUR-15)
_addresses: dict[str, str] = {}  # tournament id -> its creator's quota address, while this process runs
ROOM_EVERY_S = 1.0


def quota_owner(t: Tournament) -> tuple[str, str]:
    """(client, address) its games count under (quotas.Quotas.created): the tournament itself, and its
    creator's address (unknown after a restart: then the tournament's own)."""
    owner = "tournament:" + t.tournament_id
    return owner, _addresses.get(t.tournament_id, owner)


def advance(core: GameCore, referee: Referee, t: Tournament) -> None:
    """Count finished games, pair the next Swiss round, create the games that may start, finish.
    Idempotent; re-entered (a write it makes notifies the store listeners) it runs once more after."""
    if t.tournament_id in _advancing:
        _again.add(t.tournament_id)
        return
    _advancing.add(t.tournament_id)
    try:
        while True:
            _again.discard(t.tournament_id)
            _advance_once(core, referee, t)
            if t.tournament_id not in _again:
                return
    finally:
        _advancing.discard(t.tournament_id)


def _advance_once(core: GameCore, referee: Referee, t: Tournament) -> None:
    store = core.store
    if t.state != RUNNING:
        return
    for slot in t.slots:
        if slot.game_id and not slot.counted:
            rec = store.games.get(slot.game_id)
            if rec is None:
                store.write_tournament(GameCounted(t.tournament_id, t.seq + 1, slot.index, None, (),
                                                   "the game was gone before its result was counted"))
            elif core.is_over(rec):
                outcome = core.outcome(rec)
                result = {"ranks": list(outcome["ranks"]), "scores": [float(x) for x in outcome.get("scores", [])],
                          "winners": list(outcome.get("winners", [])),
                          "adjudicated": bool(outcome.get("adjudicated")),
                          "confidence": float(outcome.get("confidence", 0.0))}
                forfeited = tuple(core.status(rec, None).get("forfeited", ()))
                store.write_tournament(GameCounted(t.tournament_id, t.seq + 1, slot.index, result, forfeited))
                log.info("tournament_game_counted", tournament_id=t.tournament_id, index=slot.index,
                         game_id=slot.game_id)
    if t.format == SWISS and t.rounds_paired < t.rounds_total and t.round_done(t.rounds_paired):
        previous = [s.seats for s in t.slots]
        order = [row["player_id"] for row in t.standings()]
        byes = {p: line.byes for p, line in t.table.items()}
        seatings, out = pairing.swiss_round(order, t.seats, previous, byes)
        base = len(t.slots)
        store.write_tournament(RoundPaired(t.tournament_id, t.seq + 1, t.rounds_paired + 1,
                                           tuple((s, game_seed(t.seed, base + i)) for i, s in enumerate(seatings)),
                                           tuple(out)))
    running = [s for s in t.slots if s.game_id and not s.counted]
    busy = {p for s in running for p in s.seats}
    limit = t.max_parallel or len(t.slots)
    # round by round: no game of a later round starts before every game of the rounds before it has
    # (entrants freed early by one game would otherwise start their next rounds' games ahead)
    due = min((s.round for s in t.slots if not s.game_id and not s.counted), default=0)
    owner, address = quota_owner(t)
    for slot in t.slots:
        if len(running) >= limit or slot.round > due:
            break
        if slot.game_id or slot.counted or busy & set(slot.seats):
            continue
        if not quotas.QUOTAS.may_schedule(owner, address):
            _short_of_room.add(t.tournament_id)  # run() tries again
            break
        _create_game(core, referee, t, slot.index)
        running.append(slot)
        busy.update(slot.seats)
    complete = all(s.counted for s in t.slots) and (t.format == ROUND_ROBIN or t.rounds_paired >= t.rounds_total)
    if complete:
        store.write_tournament(TournamentEnded(t.tournament_id, t.seq + 1, FINISHED, "", time.time()))
        log.info("tournament_finished", tournament_id=t.tournament_id, games=len(t.slots))


def _create_game(core: GameCore, referee: Referee, t: Tournament, index: int) -> None:
    """A game with every seat reserved for its entrants (told on their player streams), then its
    GameScheduled record. The seating's tournament mark finds it again if a crash comes in between."""
    slot = t.slots[index]
    now = time.time()
    k = len(slot.seats)
    seating = Seating(holders=list(slot.seats), creator="", private=False, invite_hash="", created_at=now,
                      expires_at=now, claims=[1] * k, token_pending=[True] * k, started=True,
                      tournament=f"{t.tournament_id}/{index}")
    rec, _ = core.create(t.game, k, t.options, slot.seed, dict(t.clock), seating)
    quotas.QUOTAS.created(*_counted_as(t, rec.game_id))
    core.store.write_tournament(GameScheduled(t.tournament_id, t.seq + 1, index, rec.game_id))
    lobby.created(core, referee, rec)  # the clock starts; the entrants are told
    metrics.GAMES_CREATED.labels(t.game).inc()
    log.info("tournament_game_created", tournament_id=t.tournament_id, index=index, game_id=rec.game_id)


def _counted_as(t: Tournament, game_id: str) -> tuple[str, str, int, str]:
    owner, address = quota_owner(t)
    return owner, game_id, 0, address


def listener(core: GameCore, referee: Referee) -> Callable[[str], None]:
    """The store listener: a tournament game changed; when it is over, the tournament moves on.
    A failure here must not fail the change (journaled already): start-up runs `advance` again."""
    def on_change(game_id: str) -> None:
        where = core.store.tournaments.by_game.get(game_id)
        if where is None:
            return
        rec = core.store.games.get(game_id)
        if rec is not None and not core.is_over(rec):
            return
        try:
            advance(core, referee, core.store.tournaments.by_id[where[0]])
        except Exception:
            log.exception("tournament_advance_failed", tournament_id=where[0], game_id=game_id)
    return on_change


def resume_all(core: GameCore, referee: Referee) -> int:
    """At start-up: link games created just before a crash, then advance every running tournament."""
    store = core.store
    ts = store.tournaments
    for rec in list(store.games.values()):
        seating = seating_of(rec)
        mark = getattr(seating, "tournament", "") if seating is not None else ""
        if not mark or rec.game_id in ts.by_game:
            continue
        tid, _, index = mark.rpartition("/")
        t = ts.by_id.get(tid)
        if t is not None and t.state == RUNNING and not t.slots[int(index)].game_id:
            store.write_tournament(GameScheduled(tid, t.seq + 1, int(index), rec.game_id))
            log.info("tournament_game_linked", tournament_id=tid, index=index, game_id=rec.game_id)
    running = [t for t in ts.by_id.values() if t.state == RUNNING]
    for t in running:
        for slot in t.slots:  # its games in flight count as its own again (TOUR-15)
            game = store.games.get(slot.game_id) if slot.game_id else None
            if game is not None and not core.is_over(game):
                quotas.QUOTAS.created(*_counted_as(t, game.game_id))
        advance(core, referee, t)
    return len(running)


# ---- reads -------------------------------------------------------------------------------------
def _page(keys_items: list[tuple[str, Any]], page_size: int, page_token: str) -> tuple[list[Any], str]:
    bounded(page_token, MAX_ID, "page_token")
    size = page_size or PAGE_DEFAULT
    if size > PAGE_MAX:
        raise InvalidArgument(f"page_size is at most {PAGE_MAX}", rule="TOUR-0")
    after = None
    if page_token:
        try:
            after = base64.urlsafe_b64decode(page_token.encode()).decode()
        except Exception:
            raise InvalidArgument("page_token is not one this server issued", rule="TOUR-0") from None
    found = [(k, v) for k, v in sorted(keys_items, key=lambda kv: kv[0]) if after is None or k > after]
    page = found[:size]
    token = base64.urlsafe_b64encode(page[-1][0].encode()).decode() if len(found) > size else ""
    return [v for _, v in page], token


def list_tournaments(core: GameCore, game: str, page_size: int, page_token: str) -> tuple[list[Tournament], str]:
    bounded(game, MAX_ID, "game")
    items = [(f"{1e11 - t.created_at:017.6f}/{t.tournament_id}", t) for t in core.store.tournaments.by_id.values()
             if not game or t.game == game]  # newest first
    return _page(items, page_size, page_token)


def leaderboard(core: GameCore, games: list[str], game: str, page_size: int,
                page_token: str) -> tuple[list[tuple[str, Rating]], str]:
    if bounded(game, MAX_ID, "game") not in games:
        raise InvalidArgument(f"unknown game {limits.quote(game)!r}; this server hosts {', '.join(games)}",
                              rule="TOUR-1")
    board = core.store.tournaments.leaderboard.get(game, {})
    ordered = sorted(board.items(), key=lambda kv: (-(kv[1].mu - 2 * kv[1].sigma), -kv[1].mu, kv[0]))
    return _page([(f"{i:08d}", kv) for i, kv in enumerate(ordered)], page_size, page_token)


def check_cursor(t: Tournament, cursor: int) -> None:
    if cursor > len(t.events):
        raise InvalidArgument(f"cursor {cursor} is beyond the tournament's last event ({len(t.events)})",
                              rule="TOUR-11")


async def events(core: GameCore, t: Tournament, cursor: int) -> AsyncGenerator[TournamentEvent, None]:
    """Events after `cursor`, then live ones; ends after tournament_finished."""
    signals = core.store.tournaments.signals
    while True:
        signal = signals.setdefault(t.tournament_id, asyncio.Event())
        pending = t.events[cursor:]
        for event in pending:
            yield event
            cursor = event.cursor
            if event.kind == "tournament_finished":
                return
        if pending:
            continue
        await core.store.wait(signal)


# ---- protobuf edge ---------------------------------------------------------------------------------
def _name(core: GameCore, pid: str) -> str:
    player = core.store.players.by_id.get(pid)
    return player.name if player else ""


def standings_proto(core: GameCore, rows: list[dict[str, Any]]) -> list[tournament_pb2.Standing]:
    return [tournament_pb2.Standing(player_name=_name(core, r["player_id"]), **r) for r in rows]


def seeds_shown(t: Tournament, asked_by_creator: bool) -> bool:
    """Seeds (the tournament's and its games') are shown to its creator (or the operator) once it is
    finished, 0 otherwise: a game's seed deals every hand and orders every deck, so anyone holding it
    could read the hands of a game in play, and after the end the secrets a game never publishes (the
    face-down characters of Citadels, the piles nobody sees in Pompeii), which its own log withholds."""
    return asked_by_creator and t.state == FINISHED


def slot_proto(t: Tournament, index: int, with_result: bool = True,
               seeds: bool = False) -> tournament_pb2.ScheduledGame:
    s = t.slots[index]
    msg = tournament_pb2.ScheduledGame(index=s.index, round=s.round, seat_players=list(s.seats), game_id=s.game_id,
                                       seed=s.seed if seeds else 0)
    if with_result and s.counted:
        msg.finished, msg.failure = True, s.failure
        msg.forfeited.extend(s.forfeited)
        if s.outcome is not None:
            msg.outcome.CopyFrom(common_pb2.Outcome(**s.outcome))
    elif with_result and s.game_id and t.state == CANCELLED:  # `end` abandoned it: over, and not counted
        msg.finished, msg.failure = True, f"abandoned: the tournament was {t.cancel_reason}"
    return msg


def tournament_proto(core: GameCore, t: Tournament, full: bool = True,
                     seeds: bool = False) -> tournament_pb2.Tournament:
    c = t.clock
    msg = tournament_pb2.Tournament(
        tournament_id=t.tournament_id, name=t.name, game=t.game, seats_per_game=t.seats,
        format=next(k for k, v in FORMATS.items() if v == t.format), state=STATES[t.state],
        clock=tournament_pb2.TournamentClock(time_bank_ms=c["time_bank_ms"], increment_ms=c["increment_ms"],
                                             timeout_policy=POLICY_ENUM[c["timeout_policy"]],
                                             max_moves=c["max_moves"]),
        max_parallel_games=t.max_parallel, open_registration=t.open_registration, max_entrants=t.max_entrants,
        points_per_rank=list(t.points_per_rank),
        entrants=[tournament_pb2.Entrant(player_id=p, player_name=_name(core, p)) for p in t.entrants],
        games_total=t.games_total, games_finished=sum(1 for s in t.slots if s.counted),
        rounds_total=t.rounds_total, rounds_finished=t.rounds_finished, created_at=t.created_at,
        started_at=t.started_at, finished_at=t.finished_at, seed=t.seed if seeds else 0,
        options=[f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in sorted(t.options.items())],
        cancel_reason=t.cancel_reason)
    if full:
        msg.schedule.extend(slot_proto(t, s.index, seeds=seeds) for s in t.slots)
        msg.standings.extend(standings_proto(core, t.standings()))
    return msg


def event_proto(core: GameCore, t: Tournament, event: TournamentEvent) -> tournament_pb2.StreamTournamentEventsResponse:
    msg = tournament_pb2.StreamTournamentEventsResponse(cursor=event.cursor)
    d = event.data
    if event.kind == "game_scheduled":
        msg.game_scheduled.game.CopyFrom(slot_proto(t, d["index"], with_result=False))
    elif event.kind == "game_finished":
        msg.game_finished.game.CopyFrom(slot_proto(t, d["index"]))
    elif event.kind == "round_finished":
        msg.round_finished.CopyFrom(tournament_pb2.TournamentRoundFinished(round=d["round"], byes=d["byes"]))
    elif event.kind == "standings_changed":
        msg.standings_changed.CopyFrom(tournament_pb2.TournamentStandingsChanged(
            standings=standings_proto(core, d["standings"]), games_finished=d["games_finished"]))
    elif event.kind == "tournament_finished":
        msg.tournament_finished.CopyFrom(tournament_pb2.TournamentFinished(
            state=STATES[d["state"]], standings=standings_proto(core, d["standings"])))
    return msg


class TournamentServicer(tournament_pb2_grpc.TournamentServiceServicer):
    def __init__(self, core: GameCore, referee: Referee, cfg: Config, games: list[str]) -> None:
        self.core, self.referee, self.cfg, self.games = core, referee, cfg, games

    @rpc
    async def CreateTournament(self, request: tournament_pb2.CreateTournamentRequest,
                               context: Any) -> tournament_pb2.CreateTournamentResponse:
        note(game=request.game, seats=request.seats_per_game)
        access.require_create_key(context.invocation_metadata())  # its games are creates too
        drain.STATE.refuse_new_game()  # a tournament is games to come: another replica takes it
        t, token = create(self.core, self.cfg, self.games, request, self.core.store.shard)
        return tournament_pb2.CreateTournamentResponse(tournament=tournament_proto(self.core, t),
                                                       creator_token=token)

    @rpc
    async def JoinTournament(self, request: tournament_pb2.JoinTournamentRequest,
                             context: Any) -> tournament_pb2.JoinTournamentResponse:
        note(tournament_id=request.tournament_id)
        t = join(self.core, request.tournament_id, request.player_token)
        return tournament_pb2.JoinTournamentResponse(tournament=tournament_proto(self.core, t))

    @rpc
    async def WithdrawFromTournament(self, request: tournament_pb2.WithdrawFromTournamentRequest,
                                     context: Any) -> tournament_pb2.WithdrawFromTournamentResponse:
        note(tournament_id=request.tournament_id)
        t = withdraw(self.core, request.tournament_id, request.player_token)
        return tournament_pb2.WithdrawFromTournamentResponse(tournament=tournament_proto(self.core, t))

    @rpc
    async def StartTournament(self, request: tournament_pb2.StartTournamentRequest,
                              context: Any) -> tournament_pb2.StartTournamentResponse:
        note(tournament_id=request.tournament_id)
        drain.STATE.refuse_new_game()  # its games would be new; a running one finishes here (drain wait waits)
        t = start(self.core, self.referee, request.tournament_id, request.creator_token, self.cfg.admin_token)
        return tournament_pb2.StartTournamentResponse(tournament=tournament_proto(self.core, t))

    @rpc
    async def CancelTournament(self, request: tournament_pb2.CancelTournamentRequest,
                               context: Any) -> tournament_pb2.CancelTournamentResponse:
        note(tournament_id=request.tournament_id)
        t = cancel(self.core, self.referee, request.tournament_id, request.creator_token, self.cfg.admin_token)
        return tournament_pb2.CancelTournamentResponse(tournament=tournament_proto(self.core, t))

    @rpc
    async def GetTournament(self, request: tournament_pb2.GetTournamentRequest,
                            context: Any) -> tournament_pb2.GetTournamentResponse:
        note(tournament_id=request.tournament_id)
        t = find(self.core, request.tournament_id)
        by_creator = bool(request.creator_token) and bool(authorize(t, request.creator_token, self.cfg.admin_token))
        return tournament_pb2.GetTournamentResponse(
            tournament=tournament_proto(self.core, t, seeds=seeds_shown(t, by_creator)))

    @rpc
    async def ListTournaments(self, request: tournament_pb2.ListTournamentsRequest,
                              context: Any) -> tournament_pb2.ListTournamentsResponse:
        page, token = list_tournaments(self.core, request.game, request.page_size, request.page_token)
        return tournament_pb2.ListTournamentsResponse(
            tournaments=[tournament_proto(self.core, t, full=False) for t in page], next_page_token=token)

    @rpc
    async def GetLeaderboard(self, request: tournament_pb2.GetLeaderboardRequest,
                             context: Any) -> tournament_pb2.GetLeaderboardResponse:
        note(game=request.game)
        page, token = leaderboard(self.core, self.games, request.game, request.page_size, request.page_token)
        return tournament_pb2.GetLeaderboardResponse(entries=[
            tournament_pb2.LeaderboardEntry(player_id=pid, player_name=_name(self.core, pid), mu=r.mu,
                                            sigma=r.sigma, rating_low=r.mu - 2 * r.sigma,
                                            rating_high=r.mu + 2 * r.sigma, games=r.games, wins=r.wins,
                                            tournaments=len(r.tournaments))
            for pid, r in page], next_page_token=token)

    @rpc_stream
    async def StreamTournamentEvents(self, request: tournament_pb2.StreamTournamentEventsRequest,
                                     context: Any) -> AsyncIterator[tournament_pb2.StreamTournamentEventsResponse]:
        note(tournament_id=request.tournament_id, cursor=request.cursor)
        t = find(self.core, request.tournament_id)
        check_cursor(t, request.cursor)
        client, address = quotas.caller(), quotas.address()
        with quotas.QUOTAS.stream(client, "", spectator=False, address=address):
            await opened(context)
            stream = events(self.core, t, request.cursor)
            sent = 0
            try:
                async for event in stream:
                    # one message (and encoding) per event and state, however many streams carry it
                    yield cast(tournament_pb2.StreamTournamentEventsResponse, fanout.SHARED.message(
                        ("tournament", t.tournament_id, event.cursor), event,
                        lambda: event_proto(self.core, t, event)))  # noqa: B023 - called at once
                    sent += 1
                    if sent == quotas.EVENTS_PER_REQUEST:  # what it sends costs the client's rate, as game streams
                        await quotas.QUOTAS.sent(client, sent, address=address)
                        sent = 0
            finally:
                await stream.aclose()

