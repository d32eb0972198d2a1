"""Open seats and the lobby: who may sit where, and LobbyService (ListOpenGames, JoinGame, LeaveGame).

A game created with open or reserved seats carries a participation.Seating; it *waits* (no move,
LOBBY-1) until every seat is held, then starts with a public `game_started` event. Every change is
one journaled "seating" record (participation.py), made only after every check passed, so a
refusal changes nothing. The rules of this layer, in one place:
"""
from __future__ import annotations

import base64
import dataclasses
import hmac
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import structlog

from engines import registry
from engines.core import Event
from gameengine.v1 import common_pb2, lobby_pb2, lobby_pb2_grpc

from . import auth, limits, periodic, player_stream, quotas
from .config import Config
from .edge import note, rpc
from .errors import Exhausted, Illegal, InvalidArgument, PermissionDenied, Unauthenticated, game_over
from .limits import MAX_GAME_ID_BYTES, MAX_INVITE_CODE_BYTES, MAX_TOKEN_BYTES
from .participation import OPEN, Player, Players, Seating, SeatingChanged, seating_of
from .records import GameRecord
from .store import Store

if TYPE_CHECKING:
    from .referee import Referee
    from .service import GameCore

log = structlog.get_logger("gameengine.lobby")

RULES = {
    "LOBBY-0": "ids and tokens are at most 128 bytes, invite codes at most 64, names at most 32; a game type is "
               "one this server has",
    "LOBBY-1": "a game with an open seat is waiting: no move is accepted, and every seat sees what a spectator "
               "sees, until every seat is taken",
    "LOBBY-2": "open and reserved seats are distinct seat numbers of the game, and need the creator's player token",
    "LOBBY-3": "that seat is taken",
    "LOBBY-4": "the game has no open seat",
    "LOBBY-5": "the game has started: seats are neither joined nor left any more (JoinGame on a seat of one's "
               "own still gives it a fresh token)",
    "LOBBY-6": "a private game is joined only with its invite code",
    "LOBBY-7": "a player may have at most GE_LOBBY_MAX_WAITING_CREATED waiting games of its own",
    "LOBBY-8": "a player may hold at most GE_LOBBY_MAX_OPEN_JOINS seats in other players' waiting games",
    "LOBBY-9": "a waiting game expires GE_LOBBY_WAITING_TTL_S after its creation if a seat is still open",
    "LOBBY-10": "the player holds no such seat in this game",
    "LOBBY-11": "a game with open or reserved seats is dealt from a seed the server draws: whoever chose the seed "
                "would know every hand",
}
__doc__ += "\n".join(f"\n    {rule}: {text}" for rule, text in RULES.items())

MAX_ID, MAX_TOKEN, MAX_CODE = MAX_GAME_ID_BYTES, MAX_TOKEN_BYTES, MAX_INVITE_CODE_BYTES  # one bound everywhere
PAGE_DEFAULT, PAGE_MAX, PAGE_COST = 20, 100, 10


def bounded(value: str, limit: int, what: str) -> str:
    return limits.bounded(what, value, limit, rule="LOBBY-0")


def player_of(players: Players, token: str) -> Player:
    """The registered player a token belongs to; UNAUTHENTICATED otherwise (PLAYER-3)."""
    bounded(token, MAX_TOKEN, "player_token")
    player = players.authenticate(token)
    if player is None:
        raise Unauthenticated("unknown player token" if token else "a player token is required", rule="PLAYER-3")
    return player


def waiting(rec: GameRecord) -> bool:
    seating = seating_of(rec)
    return seating is not None and seating.waiting


def status_fields(players: Players, seating: Seating) -> dict[str, Any]:
    return {"waiting": seating.waiting, "seat_holders": holders(players, seating)}


def holders(players: Players, seating: Seating) -> list[dict[str, Any]]:
    """Each seat as a SeatHolder's fields (a GameStatus's and a game_started event's)."""
    out: list[dict[str, Any]] = []
    for seat, pid in enumerate(seating.holders):
        if pid == OPEN:
            out.append({"seat": seat, "state": "open"})
        else:
            player = players.by_id.get(pid)
            out.append({"seat": seat, "state": "player", "player_id": pid,
                        "player_name": player.name if player else ""})
    return out


def waiting_games(store: Store) -> list[tuple[GameRecord, Seating]]:
    """The games waiting for players, from the store's index of them (built from every game once, then
    kept by `created`; a game that started or left is dropped here): listing and counting them costs
    what the waiting games are, not every game in memory (100,000 at scale)."""
    if store.waiting is None:
        store.waiting = {rec.game_id: None for rec in store.games.values() if waiting(rec)}
    found = []
    for game_id in list(store.waiting):
        rec = store.games.get(game_id)
        seating = seating_of(rec) if rec is not None else None
        if rec is None or seating is None or not seating.waiting:
            del store.waiting[game_id]
        else:
            found.append((rec, seating))
    return found


def _count(store: Store, pred: Callable[[Seating], bool]) -> int:
    return sum(1 for _, s in waiting_games(store) if pred(s))


# ---- creation ---------------------------------------------------------------
def plan(core: GameCore, cfg: Config, seats: int, open_seats: Iterable[int],
         reservations: Iterable[common_pb2.SeatReservation], private: bool, player_token: str,
         seeded: bool = False) -> tuple[Seating, str]:
    """The Seating of a game about to be created (`seeded`: with a seed its creator chose), and its
    invite code ("" for a public game)."""
    store = core.store
    creator = player_of(store.players, player_token)
    reserved = [(r.seat, bounded(r.player_id, MAX_ID, "reserved_seats.player_id")) for r in reservations]
    open_seats = list(open_seats)
    chosen = open_seats + [s for s, _ in reserved]
    if len(set(chosen)) != len(chosen) or any(not 0 <= s < seats for s in chosen):
        raise InvalidArgument(f"open and reserved seats must be distinct seats of 0..{seats - 1}", rule="LOBBY-2")
    if private and not open_seats:
        raise InvalidArgument("a private game needs an open seat for its invite code to open", rule="LOBBY-2")
    if seeded and chosen:
        raise InvalidArgument(RULES["LOBBY-11"], rule="LOBBY-11")
    for _, pid in reserved:
        if pid not in store.players.by_id:
            raise InvalidArgument(f"reserved seat for an unknown player id {limits.quote(pid)!r}", rule="LOBBY-2")
    holders = [creator.player_id] * seats
    pending = [False] * seats
    for s in open_seats:
        holders[s] = OPEN
    for s, pid in reserved:
        holders[s], pending[s] = pid, True
    if open_seats and _count(store, lambda s: s.creator == creator.player_id) >= cfg.lobby_max_waiting_created:
        raise Exhausted(f"{RULES['LOBBY-7']} ({cfg.lobby_max_waiting_created})", rule="LOBBY-7",
                        retry_after_ms=60_000)
    code = auth.secret(12) if private else ""
    now = time.time()
    seating = Seating(holders=holders, creator=creator.player_id, private=private,
                      invite_hash=auth.token_hash(code) if code else "", created_at=now,
                      expires_at=now + cfg.lobby_waiting_ttl_s, claims=[1] * seats, token_pending=pending,
                      started=not open_seats)
    return seating, code


def created(core: GameCore, referee: Referee, rec: GameRecord) -> None:
    """After a create: start the clocks unless the game waits; tell seated players."""
    if not waiting(rec):
        referee.on_create(rec)
    elif core.store.waiting is not None:
        core.store.waiting[rec.game_id] = None
    if seating_of(rec) is not None:
        player_stream.sync(core, rec.game_id)


# ---- joining and leaving -------------------------------------------------------
def _change(core: GameCore, referee: Referee, rec: GameRecord, seating: Seating, hashes: dict[int, str]) -> None:
    """One journaled seating change; the start of the game when no seat is open any more."""
    store = core.store
    start = seating.waiting and not seating.open_seats()
    events: tuple[Event, ...] = ()
    if start:
        seating = dataclasses.replace(seating, started=True)
        events = (Event("game_started", {"seat_holders": holders(store.players, seating)}),)
    store.commit(rec, [SeatingChanged(seating, hashes, events)])
    if start:
        referee.on_create(rec)  # clocks run from the start, not from the creation
        log.info("game_started", game_id=rec.game_id, game=rec.game)


async def join(core: GameCore, referee: Referee, cfg: Config, game_id: str, player_token: str, seat: int | None,
               invite_code: str) -> tuple[GameRecord, int, str]:
    """(record, seat, seat token) for JoinGame."""
    bounded(game_id, MAX_ID, "game_id")
    bounded(invite_code, MAX_CODE, "invite_code")
    store = core.store
    player = player_of(store.players, player_token)
    rec = core.record(game_id)
    async with store.lock(rec.game_id):
        seating = seating_of(rec)
        if seating is None:
            raise Illegal(f"{RULES['LOBBY-4']}: its creator kept every seat", rule="LOBBY-4")
        mine = seating.seats_of(player.player_id)
        if mine and (seat is None or seat in mine):  # a seat one holds: a fresh token for it
            if core.is_over(rec):
                raise game_over()
            seat = mine[0] if seat is None else seat
            token, digest = auth.mint()
            pending = list(seating.token_pending)
            pending[seat] = False
            _change(core, referee, rec, dataclasses.replace(seating, token_pending=pending), {seat: digest})
            return rec, seat, token
        if seating.private and not hmac.compare_digest(auth.token_hash(invite_code), seating.invite_hash):
            raise PermissionDenied(RULES["LOBBY-6"], rule="LOBBY-6")
        if not seating.waiting:
            raise Illegal(RULES["LOBBY-5"], rule="LOBBY-5")
        free = seating.open_seats()
        if seat is not None and not 0 <= seat < rec.seats:
            raise InvalidArgument(f"seat must be in 0..{rec.seats - 1}", rule="LOBBY-3")
        if seat is not None and seat not in free:
            raise Illegal(f"{RULES['LOBBY-3']}: seat {seat}", rule="LOBBY-3")
        if not free:
            raise Illegal(RULES["LOBBY-4"], rule="LOBBY-4")
        pid = player.player_id
        if _count(store, lambda s: s.creator != pid and pid in s.holders) >= cfg.lobby_max_open_joins:
            raise Exhausted(f"{RULES['LOBBY-8']} ({cfg.lobby_max_open_joins})", rule="LOBBY-8", retry_after_ms=60_000)
        seat = free[0] if seat is None else seat
        token, digest = auth.mint()
        new = dataclasses.replace(seating, holders=list(seating.holders), claims=list(seating.claims))
        new.holders[seat] = pid
        new.claims[seat] += 1
        _change(core, referee, rec, new, {seat: digest})
        return rec, seat, token


async def leave(core: GameCore, referee: Referee, game_id: str, player_token: str, seat: int | None) -> GameRecord:
    bounded(game_id, MAX_ID, "game_id")
    store = core.store
    player = player_of(store.players, player_token)
    rec = core.record(game_id)
    async with store.lock(rec.game_id):
        seating = seating_of(rec)
        mine = seating.seats_of(player.player_id) if seating is not None else []
        if seating is None or not mine or (seat is not None and seat not in mine):
            raise Illegal(RULES["LOBBY-10"], rule="LOBBY-10")
        if not seating.waiting:
            raise Illegal(RULES["LOBBY-5"], rule="LOBBY-5")
        seat = mine[0] if seat is None else seat
        new = dataclasses.replace(seating, holders=list(seating.holders),
                                  token_pending=list(seating.token_pending))
        new.holders[seat], new.token_pending[seat] = OPEN, False
        _change(core, referee, rec, new, {seat: ""})
        return rec


# ---- listing and expiry ----------------------------------------------------------
def _page_key(seating: Seating, game_id: str) -> str:
    return f"{seating.created_at:.6f}/{game_id}"


def checked_page_size(page_size: int) -> int:
    size = page_size or PAGE_DEFAULT
    if size > PAGE_MAX:
        raise InvalidArgument(f"page_size is at most {PAGE_MAX}", rule="LOBBY-0")
    return size


def list_open(core: GameCore, game: str, page_size: int,
              page_token: str) -> tuple[list[tuple[GameRecord, Seating]], str]:
    bounded(game, MAX_ID, "game")
    if game and game not in registry.GAME_IDS:  # a typo would list nothing, as if no game were open
        raise InvalidArgument(f"unknown game {limits.quote(game)!r}; one of {', '.join(registry.GAME_IDS)}",
                              rule="LOBBY-0")
    bounded(page_token, 128, "page_token")
    size = checked_page_size(page_size)
    after = ""
    if page_token:
        try:
            after = base64.urlsafe_b64decode(page_token.encode()).decode()
        except Exception:
            raise InvalidArgument("page_token is not one this server issued", rule="LOBBY-0") from None
    found: list[tuple[str, GameRecord, Seating]] = []
    for rec, seating in waiting_games(core.store):
        if seating.private or (game and rec.game != game) or not seating.open_seats():
            continue
        key = _page_key(seating, rec.game_id)
        if key > after:
            found.append((key, rec, seating))
    found.sort(key=lambda f: f[0])
    page = found[:size]
    token = base64.urlsafe_b64encode(page[-1][0].encode()).decode() if len(found) > size else ""
    return [(rec, seating) for _, rec, seating in page], token


async def expire(core: GameCore, now: float) -> int:
    """Expire waiting games past their time (LOBBY-9): journaled, seated players told, then forgotten."""
    store = core.store
    gone = 0
    for rec, seating in waiting_games(store):
        if seating.expires_at <= now:
            store.commit(rec, [SeatingChanged(dataclasses.replace(seating, expired=True))])
            log.info("waiting_game_expired", game_id=rec.game_id, game=rec.game, rule="LOBBY-9")
            forget(store, rec.game_id)  # after the write: its listener told the seated players
            gone += 1
    return gone


def restart_clocks(core: GameCore, referee: Referee) -> None:
    """After recovery: a game whose start was journaled but whose clock was not (a crash between
    the two writes) gets its clock now."""
    for rec in list(core.store.games.values()):
        seating = seating_of(rec)
        if (seating is not None and seating.started and rec.referee.get("time_bank_ms")
                and rec.referee_state.clock is None and not core.is_over(rec)):
            referee.on_create(rec)


def forget_expired(store: Store) -> None:
    """At start-up: the expired games a crash left in memory (journaled as expired, not yet forgotten)."""
    for game_id in [g for g, rec in store.games.items() if (s := seating_of(rec)) is not None and s.expired]:
        forget(store, game_id)


def forget(store: Store, game_id: str) -> None:
    store.forget(game_id)
    store.players.forget_game(game_id)


async def expiry_loop(core: GameCore, ttl_s: float) -> None:
    await periodic.every(min(30.0, max(ttl_s / 4, 0.2)), "expiry_failed", lambda: expire(core, time.time()))


# ---- the service -------------------------------------------------------------------
class LobbyServicer(lobby_pb2_grpc.LobbyServiceServicer):
    def __init__(self, core: GameCore, referee: Referee, cfg: Config) -> None:
        self.core, self.referee, self.cfg = core, referee, cfg

    def _status(self, rec: GameRecord, seat: int | None) -> common_pb2.GameStatus:
        return common_pb2.GameStatus(**self.core.status(rec, seat))

    @rpc
    async def ListOpenGames(self, request: lobby_pb2.ListOpenGamesRequest,
                            context: Any) -> lobby_pb2.ListOpenGamesResponse:
        note(game=request.game)
        # a page costs a request per PAGE_COST games asked for, beyond the call's own: it scans and encodes them.
        # The address's share is owed, not waited for (this call holds a handler place): its next calls wait.
        quotas.QUOTAS.request(quotas.caller(), checked_page_size(request.page_size) / PAGE_COST, quotas.address())
        page, token = list_open(self.core, request.game, request.page_size, request.page_token)
        players = self.core.store.players
        games = []
        for rec, seating in page:
            creator = players.by_id.get(seating.creator)
            games.append(lobby_pb2.OpenGame(
                game_id=rec.game_id, game=rec.game, seats=rec.seats, open_seats=seating.open_seats(),
                seat_holders=[common_pb2.SeatHolder(**h) for h in holders(players, seating)],
                creator_name=creator.name if creator else "",
                expires_at=int(seating.expires_at)))
        return lobby_pb2.ListOpenGamesResponse(games=games, next_page_token=token)

    @rpc
    async def JoinGame(self, request: lobby_pb2.JoinGameRequest, context: Any) -> lobby_pb2.JoinGameResponse:
        note(game_id=request.game_id)
        seat = request.seat if request.HasField("seat") else None
        rec, seat, token = await join(self.core, self.referee, self.cfg, request.game_id,
                                      request.player_token, seat, request.invite_code)
        note(seat=seat)
        return lobby_pb2.JoinGameResponse(game_id=rec.game_id, game=rec.game, seat=seat, seat_token=token,
                                          status=self._status(rec, seat))

    @rpc
    async def LeaveGame(self, request: lobby_pb2.LeaveGameRequest, context: Any) -> lobby_pb2.LeaveGameResponse:
        note(game_id=request.game_id)
        rec = await leave(self.core, self.referee, request.game_id, request.player_token,
                          request.seat if request.HasField("seat") else None)
        return lobby_pb2.LeaveGameResponse(status=self._status(rec, None))
