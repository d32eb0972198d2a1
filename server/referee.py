"""The AI referee: turn clocks, timeout policy, hints and adjudication.

It acts only through GameCore (so every action is a journaled move or event),
and judges a seat's move from that seat's view only.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hashlib
import math
import multiprocessing
import os
import random
import secrets
import signal
import time
from collections.abc import Callable, Iterator
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any, TypeVar, TypeVarTuple

import structlog

from engines.ai import mcts, policies
from engines.core import Move, rank_by
from gameengine import codecs

from . import clock, lifetime, limits, metrics, quotas
from .config import Config
from .errors import Exhausted, Illegal, PermissionDenied, Unavailable, forfeited, game_over
from .fairshare import FairShare
from .records import Adjudication, ClockSet, GameAdjudicated, RefereeActed, SeatForfeited
from .store import GameRecord

if TYPE_CHECKING:
    from .service import GameCore

log = structlog.get_logger("gameengine.referee")
Result = TypeVar("Result")
Args = TypeVarTuple("Args")
Hint = tuple[Move, list[tuple[Move, float, int]]]  # the best move, and (move, value, visits) of each


SEARCH_KEY = secrets.token_bytes(16)  # this process's: the searches' randomness owes nothing to a game's seed


def search_seed(rec: GameRecord, *salt: int) -> int:
    """The seed of a search or random choice the referee makes for a seat. Never the game's seed, which
    reproduces every secret: what a hint or an autoplayed move shows must come from the seat's view."""
    data = b"%s/%s" % (rec.game_id.encode(), "/".join(map(str, salt)).encode())
    return int.from_bytes(hashlib.blake2b(data, key=SEARCH_KEY, digest_size=8).digest(), "big") >> 1


def round_trip_view(game: str, view: dict[str, Any]) -> dict[str, Any]:
    """The view exactly as a remote bot would see it (lists, proto defaults)."""
    c = codecs.codec(game)
    return c.view_from_proto(c.view_to_proto(view))


def hint_job(game: str, view: dict[str, Any], seat: int, seats: int, seed: int, budget_ms: int,
             iterations: int | None = None) -> Hint:
    """Runs in a worker process: ISMCTS from the seat's view only, with the mcts bot's settings."""
    from engines import registry
    result = mcts.search(registry.game(game), view, seat, seats, random.Random(seed),
                         time_ms=budget_ms, iterations=iterations, **policies.mcts_settings(game))
    return result.best, result.stats


def rollout_job(game: str, state: Any, seats: int, seed: int, rollouts: int, budget_ms: int) -> list[list[float]]:
    """Random playouts of the true state (the referee may see everything); one reward row each."""
    from engines import registry
    engine = registry.game(game)
    rng = random.Random(seed)
    rows = []
    deadline = time.perf_counter() + budget_ms / 1000
    for _ in range(rollouts):
        s = engine.clone(state)
        rows.append(mcts.rollout(engine, s, seats, rng, 100_000, None))
        if time.perf_counter() > deadline:
            break
    return rows


def score_rollouts(rows: list[list[float]], seats: int, reason: str) -> Adjudication:
    """An adjudicated outcome from rollout reward rows: mean scores, ranks, winners, confidence."""
    n = len(rows)
    means = [sum(r[s] for r in rows) / n for s in range(seats)]
    best = max(means)
    ranks, winners = rank_by(means)  # the engines' own ranking: equal means share a place
    runner_up = max([m for s, m in enumerate(means) if s not in winners], default=best)  # all tied: no lead
    # confidence: how far the leader is ahead, in standard errors, squashed to 0..1; the leader's mean is
    # smoothed as (sum + 1) / (n + 2), so that a few rollouts never read as certainty
    smoothed = (best * n + 1) / (n + 2)
    spread = math.sqrt(smoothed * (1 - smoothed) / n)
    confidence = 1 - math.exp(-max(best - runner_up, 0) / spread) if n else 0.0
    return Adjudication(tuple(means), ranks, winners, round(confidence, 4), reason)


def _worker_start(server: int) -> None:
    """A search worker (hints, autoplay, adjudication): it yields the CPU to the server's own process, so
    a caller's hint budget can never slow another caller's moves (README "Limits"), and ends with the
    server, even one killed with -9 (a worker left behind kept searching). A terminal's Ctrl-C reaches
    every process of its group: the server stops its workers itself, so a worker ignores it (each printed
    a KeyboardInterrupt traceback)."""
    lifetime.die_with_parent(signal.SIGKILL, server)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.nice(SEARCH_NICENESS)


SEARCH_NICENESS = 10
ROLLOUTS, MIN_ROLLOUTS = 200, 20  # an adjudication's rollouts: by default, and at least (AdjudicateGame.rollouts)


class Referee:
    def __init__(self, core: GameCore, cfg: Config) -> None:
        self.core = core
        self.cfg = cfg
        self.pool = self._new_pool()
        # Told (True/False) when the worker pool becomes unusable or usable again (health).
        self.on_health: Callable[[bool], None] | None = None
        self.healthy = True
        self.slots = asyncio.Semaphore(cfg.hint_workers + cfg.hint_queue)
        self.fair = FairShare(cfg.hint_workers, cfg.workers_per_client)  # which waiting job a freed worker takes
        metrics.HINT_QUEUE_CAPACITY.set(cfg.hint_workers + cfg.hint_queue)
        self.busy = 0
        self.searches_running = 0  # hints and adjudications: every place of the pool but one (clock_place)
        self._acting: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()  # strong references: the loop keeps only weak ones
        # Only games with a clock or a forfeited seat need watching; scanning every game
        # each tick would stall the event loop in proportion to the number of games.
        self.watched: set[str] = set()
        core.after_create = self.clock_at_create
        core.after_move = self.clock_after_move

    def close(self) -> None:
        """At shutdown: its actions in flight end first, so none asks the closed pool for a search."""
        for task in list(self._tasks):
            task.cancel()
        self.pool.shutdown(wait=False, cancel_futures=True)

    def _new_pool(self) -> concurrent.futures.ProcessPoolExecutor:
        return concurrent.futures.ProcessPoolExecutor(
            max_workers=self.cfg.hint_workers, mp_context=multiprocessing.get_context("spawn"),
            initializer=_worker_start, initargs=(os.getpid(),))

    # ---- clocks -----------------------------------------------------------
    def clock_at_create(self, rec: GameRecord) -> list[ClockSet]:
        """The clock written with the creation (GameCore.create); none while the game waits for
        players (LOBBY-1): its clock starts with the game (on_create)."""
        bank = rec.referee.get("time_bank_ms")
        if not bank or (rec.seating is not None and rec.seating.waiting):
            return []
        return [ClockSet(clock.start(rec.seats, bank, self.core.to_move(rec), time.time()))]

    def clock_after_move(self, rec: GameRecord, seat: int, by_referee: bool) -> list[ClockSet]:
        """The clock written with a move, in the same write (GameCore.make_move; a replayed
        key makes no write, so it never moves the clock). The referee's move for a seat earns it no
        increment: a seat out of time stays out (REF-TIMEOUT)."""
        c = rec.referee_state.clock
        if c is None:
            return []
        increment = 0 if by_referee else rec.referee["increment_ms"]
        return [ClockSet(clock.after_move(c, seat, self.core.to_move(rec), increment, time.time()))]

    def on_create(self, rec: GameRecord) -> None:
        """The game started (at its creation, or when its last open seat was taken)."""
        bank = rec.referee.get("time_bank_ms")
        if bank and rec.referee_state.clock is None:
            self.core.write(rec, ClockSet(clock.start(rec.seats, bank, self.core.to_move(rec), time.time())))
        if rec.referee_state.clock is not None:
            self.watched.add(rec.game_id)

    def on_move(self, rec: GameRecord, seat: int) -> None:
        """After an accepted (not replayed) move: release a finished game's quota, start a
        capped game's adjudication."""
        if self.core.is_over(rec):
            quotas.QUOTAS.finished(rec.game_id)
        if self.at_cap(rec):
            self.watched.add(rec.game_id)  # the tick retries it until it succeeds
            self._spawn_adjudication(rec)

    def at_cap(self, rec: GameRecord) -> bool:
        cap = rec.referee.get("max_moves", 0)
        return bool(cap) and rec.version >= cap and not self.core.is_over(rec)

    def remaining_ms(self, rec: GameRecord, now: float) -> float:
        c = rec.referee_state.clock
        return math.inf if c is None else clock.remaining_ms(c, now)  # no clock: never out of time

    def resume_clocks(self) -> None:
        """After a restart, before anything is served: every clock restarts now (downtime is not
        charged; a move served before this would pay it, or be refused as out of time)."""
        now = time.time()
        games = self.core.games
        for resumed in list(games.values()):
            ref = resumed.referee_state
            if (ref.clock is not None or ref.forfeited or self.at_cap(resumed)) and not self.core.is_over(resumed):
                self.watched.add(resumed.game_id)
                if ref.clock is not None:
                    restart = ClockSet(clock.resumed(ref.clock, self.core.store.stopped_at, now))
                    try:
                        self.core.write(resumed, restart)
                    except Unavailable as e:  # a full disk: the clock runs from now all the same (the next
                        restart.apply(resumed, now)  # move's write journals it), so no downtime is charged
                        log.warning("clock_resume_not_written", game_id=resumed.game_id, reason=str(e))

    async def run(self) -> None:
        """Watch the clocks, the forfeited seats and the move caps (`resume_clocks` ran first)."""
        probe_at = 0.0
        while True:
            await asyncio.sleep(self.cfg.referee_tick_s)
            now = time.time()
            if not self.healthy and now >= probe_at:  # get a working pool back without waiting for a hint
                probe_at = now + 1.0
                self._keep(asyncio.get_running_loop().create_task(self._probe()))
            due: list[tuple[float, GameRecord, int, str, str]] = []
            for game_id in list(self.watched):
                rec = self.core.games.get(game_id)
                if rec is None or self.core.is_over(rec):
                    self.watched.discard(game_id)
                    continue
                if game_id in self._acting:
                    continue
                if self.at_cap(rec):
                    self._spawn_adjudication(rec)
                    continue
                turn = self.core.to_move(rec)
                if turn < 0:
                    continue  # waiting for players or being adjudicated
                left = self.remaining_ms(rec, now) if rec.referee_state.clock is not None else 0.0
                if turn in rec.referee_state.forfeited:
                    due.append((left, rec, turn, "random", f"seat {turn} forfeited; the referee moves for it"))
                elif rec.referee_state.clock is not None and left <= 0:
                    due.append((left, rec, turn, rec.referee.get("timeout_policy", "autoplay"),
                                f"seat {turn} ran out of time"))
            # The longest overdue first: a creator's referee budget and pool share (two searches at once) go
            # round its games. In the watch set's fixed order, the same two of three games took both every tick.
            for _, rec, turn, action, reason in sorted(due, key=lambda d: d[0]):
                if quotas.QUOTAS.referee_move(rec.game_id):  # else its creator's budget is spent: a later tick
                    self._spawn(rec, turn, action, reason)

    def _spawn(self, rec: GameRecord, seat: int, action: str, reason: str) -> None:
        self._acting.add(rec.game_id)
        task = self._keep(asyncio.get_running_loop().create_task(self.act(rec, seat, action, reason, rec.version)))
        task.add_done_callback(lambda _: self._acting.discard(rec.game_id))

    def _spawn_adjudication(self, rec: GameRecord) -> None:
        if rec.game_id in self._acting:
            return
        self._acting.add(rec.game_id)
        task = self._keep(asyncio.get_running_loop().create_task(self._adjudicate_cap(rec)))
        task.add_done_callback(lambda _: self._acting.discard(rec.game_id))

    async def _adjudicate_cap(self, rec: GameRecord) -> None:
        try:
            await self.adjudicate(rec, f"move cap of {rec.referee['max_moves']} reached")
        except (Exhausted, Unavailable) as e:
            log.info("cap_adjudication_deferred", game_id=rec.game_id, reason=e.message)
        except Exception:
            log.exception("cap_adjudication_failed", game_id=rec.game_id)

    def _keep(self, task: asyncio.Task[None]) -> asyncio.Task[None]:
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def act(self, rec: GameRecord, seat: int, action: str, reason: str, seen: int) -> None:
        """Take a timed-out (or forfeited) seat's turn, recorded as a referee event; `seen`: the version
        the clock was read at (a move made since, before this task ran, ends the timeout)."""
        try:
            if rec.version != seen:
                return  # the seat moved meanwhile
            if action == "forfeit":
                self._note(rec, "forfeit", seat, reason)
                self.core.write(rec, SeatForfeited(seat, reason),
                                RefereeActed("forfeit", seat, reason + "; the seat forfeits and ranks last"))
                self.watched.add(rec.game_id)
                return
            version = rec.version
            legal = self.core.legal_moves(rec, seat)
            if not legal:
                return
            if action == "autoplay":
                view = round_trip_view(rec.game, self.core.view(rec, seat))
                with quotas.QUOTAS.pool_job(rec.game_id):
                    move, _ = await self._in_pool(self._owner(rec), hint_job, rec.game, view, seat, rec.seats,
                                                  search_seed(rec, version, seat), self.cfg.autoplay_ms, None)
            else:
                move = random.Random(search_seed(rec, version, seat)).choice(legal)
            if rec.version != version:
                return  # the seat moved meanwhile
            self._note(rec, action, seat, reason)
            await self.core.make_move(rec, seat, version, "", move, by_referee=action,
                                      announce=(RefereeActed(action, seat, reason),))
            self.on_move(rec, seat)
        except Exhausted as e:  # its creator's share of the pool is in use: the next tick retries
            log.debug("referee_move_deferred", game_id=rec.game_id, seat=seat, reason=str(e))
        except (Illegal, Unavailable) as e:
            log.warning("referee_move_refused", game_id=rec.game_id, seat=seat, reason=str(e))
        except Exception:
            log.exception("referee_failed", game_id=rec.game_id, seat=seat)

    def _note(self, rec: GameRecord, action: str, seat: int, reason: str) -> None:
        metrics.REFEREE_ACTIONS.labels(rec.game, action).inc()
        log.info("referee", game_id=rec.game_id, seat=seat, action=action, reason=reason)

    @staticmethod
    def _owner(rec: GameRecord) -> str:
        """Whose share of the pool the referee's work in a game uses: its creator's."""
        return quotas.QUOTAS.owner_of(rec.game_id) or "referee"

    # ---- hints ------------------------------------------------------------
    async def _in_pool(self, client: str, fn: Callable[[*Args], Result], *args: *Args) -> Result:
        """Run a search job for `client` (a hint's caller, or the creator of a game the referee
        plays) in its fair turn at the workers."""
        if self.slots.locked():
            metrics.LIMIT_REFUSALS.labels("hint_queue").inc()
            raise Exhausted("the referee's hint workers are all busy; retry shortly", retry_after_ms=500)
        async with self.slots:
            metrics.HINT_QUEUE_DEPTH.inc()
            try:
                async with self.fair.turn(client):
                    return await self._run_in_pool(fn, *args)
            finally:
                metrics.HINT_QUEUE_DEPTH.dec()

    async def _run_in_pool(self, fn: Callable[[*Args], Result], *args: *Args) -> Result:
        """Run a job in the worker pool. A pool whose worker died (killed, e.g. by the OOM
        killer: BrokenProcessPool) or that cannot start one is replaced and the job tried
        once more; only when that fails too is the referee unhealthy (health NOT_SERVING)
        until a later job or the tick's probe gets a working pool."""
        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            pool = self.pool
            try:
                try:
                    job = loop.run_in_executor(pool, fn, *args)  # submits now: starting a worker may fail
                except OSError as e:
                    raise BrokenProcessPool(str(e)) from e
                result = await job
            except BrokenProcessPool as e:
                log.warning("worker_pool_broken", attempt=attempt, error=type(e).__name__)
                self._replace_pool(pool)
                continue
            self._set_healthy(True)
            return result
        self._set_healthy(False)
        raise Unavailable("the referee's worker process could not be restarted; retry shortly", retry_after_ms=1000)

    def _replace_pool(self, broken: concurrent.futures.ProcessPoolExecutor) -> None:
        if self.pool is broken:  # not already replaced by another job that saw it break
            broken.shutdown(wait=False, cancel_futures=True)
            self.pool = self._new_pool()

    def _set_healthy(self, healthy: bool) -> None:
        if healthy != self.healthy:
            self.healthy = healthy
            log.warning("referee_health", serving=healthy)
            if self.on_health is not None:
                self.on_health(healthy)

    async def _probe(self) -> None:
        try:
            await self._run_in_pool(os.getpid)
        except Unavailable:
            pass

    async def hint(self, rec: GameRecord, seat: int, budget_ms: int) -> Hint:
        if self.core.is_over(rec):
            raise game_over()
        if seat in rec.referee_state.forfeited:
            raise forfeited(seat)
        if not self.core.legal_moves(rec, seat):
            raise Illegal(f"seat {seat} has no decision to make now", rule="HINT")
        budget = min(budget_ms or 200, self.cfg.hint_max_ms)
        view = round_trip_view(rec.game, self.core.view(rec, seat))
        address = quotas.address()
        with quotas.QUOTAS.hint(quotas.caller(), rec.game_id, budget, address), self.clock_place():
            # the workers are shared by address: its players' hints take one at a time (GE_WORKERS_PER_CLIENT)
            best, stats = await self._in_pool(address or quotas.caller(), hint_job, rec.game, view, seat, rec.seats,
                                              search_seed(rec, rec.version, seat), budget, None)
        metrics.HINTS.labels(rec.game, "ok").inc()
        return best, stats

    @contextlib.contextmanager
    def clock_place(self) -> Iterator[None]:
        """A hint or an adjudication takes a place of the pool but never the last one: that one is kept
        for the referee's clocks, or one client's searches would stop every clock on the server."""
        capacity = self.cfg.hint_workers + self.cfg.hint_queue
        if capacity > 1 and self.searches_running >= capacity - 1:
            metrics.LIMIT_REFUSALS.labels("hint_queue").inc()
            raise Exhausted("the referee's hint workers are all busy; retry shortly", retry_after_ms=500)
        self.searches_running += 1
        try:
            yield
        finally:
            self.searches_running -= 1

    # ---- adjudication -------------------------------------------------------
    async def adjudicate(self, rec: GameRecord, reason: str, rollouts: int = 200) -> dict[str, Any]:
        """Score an unfinished game from rollouts of its true state; marks it adjudicated."""
        if self.core.is_over(rec):
            return self.core.outcome(rec)
        running = self.core.adjudicating
        async with self.core.store.lock(rec.game_id):  # no move in flight: the scored version is final
            state = rec.engine.clone(rec.state)
            running[rec.game_id] = running.get(rec.game_id, 0) + 1
        try:
            with quotas.QUOTAS.pool_job(rec.game_id), self.clock_place():
                rows = await self._in_pool(self._owner(rec), rollout_job, rec.game, state, rec.seats,
                                           search_seed(rec, rec.version, -1),
                                           min(max(rollouts or ROLLOUTS, MIN_ROLLOUTS), 2000), 10_000)
            if not self.core.is_over(rec):
                adjudication = score_rollouts(rows, rec.seats, reason)
                scored = f"; scored from {len(rows)} rollouts, confidence {adjudication.confidence:.4f}"
                said = reason + scored
                self._note(rec, "adjudicated", -1, limits.quote(reason) + scored)  # the caller's reason, bounded
                self.core.write(rec, GameAdjudicated(adjudication), RefereeActed("adjudicated", -1, said))
                quotas.QUOTAS.finished(rec.game_id)
        finally:  # over once scored; open to moves again if every attempt failed
            running[rec.game_id] -= 1
            if not running[rec.game_id]:
                del running[rec.game_id]
        return self.core.outcome(rec)

    def abandon(self, rec: GameRecord, reason: str) -> None:
        """End an unfinished game nobody plays (server/expiry.py): no winner, every seat ranked 1,
        marked adjudicated with confidence 0. It then leaves memory like a finished game
        (GE_FINISHED_TTL_S after its last move, or its creation if nothing was played)."""
        if self.core.is_over(rec):
            return
        self._note(rec, "abandoned", -1, reason)
        self.core.write(rec, GameAdjudicated(Adjudication((0.0,) * rec.seats, (1,) * rec.seats, (), 0.0, reason)),
                        RefereeActed("abandoned", -1, reason))
        quotas.QUOTAS.finished(rec.game_id)

    def may_adjudicate(self, rec: GameRecord, tokens: list[str], admin_token: str) -> None:
        if admin_token and admin_token in tokens:
            return
        seats = {self.core.seat(rec, t) for t in tokens if t}
        if seats != set(range(rec.seats)):
            raise PermissionDenied("adjudication needs every seat's token or the operator token", rule="SEAT-TOKEN")
