"""A bot is an ordinary gRPC client of a running server: it reads its own seat's view,
picks a move with a policy from engines.ai (random, greedy or ISMCTS) and sends it.

    python -m clients.bot --server 127.0.0.1:50051 --game pompeii --game-id ID --seat 0 --token T --policy mcts
    python -m clients.bot --player-token T --join open --game pompeii --policy mcts
    python -m clients.bot --player-token T --tournament ID --policy mcts

The second form needs only a player token: it waits for open games in the lobby, joins them
(`--join GAME_ID` joins that one) and plays each from its player stream's "your turn" events.
The third enters tournament ID (unless it is entered already) and plays every game the
tournament gives it, as its player stream tells it, until the tournament is over.
"""
from __future__ import annotations

import argparse
import random
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import grpc
import structlog

from engines.ai.policies import POLICIES, choose
from engines.registry import GAME_IDS

from .sdk import TOURNAMENT_STATES, Client, PlayerClient, Refused, SeatClient, TournamentClient

log = structlog.get_logger("gameengine.bot")


@dataclass
class Bot:
    seat: SeatClient
    policy: str
    think_ms: float | None = None
    iterations: int | None = None
    rng: random.Random = field(default_factory=random.Random)
    refusals: int = 0
    max_refusals: int = 20

    def step(self) -> bool:
        """Make one move if it is this seat's decision. False when the game is over."""
        status, view = self.seat.view()
        if status.over:
            return False
        if not status.acts(self.seat.seat):
            return True
        legal = self.seat.legal()
        last = self.seat.last  # the status legal() came with
        if last is None or last.version != status.version:
            return True  # the game moved meanwhile: look again
        if not legal:  # its turn, but its bank ran out (REF-TIMEOUT): the referee takes it, wait for that
            self.seat.wait()
            return True
        try:
            move = choose(self.policy, self.seat.client.game, view, self.seat.seat, status.seats, self.rng,
                          legal=legal, think_ms=self.think_ms, iterations=self.iterations)
            if move not in legal:  # a policy bug must not cost the game: fall back, loudly
                log.warning("policy_move_not_legal", policy=self.policy, move=repr(move))
                move = self.rng.choice(legal)
            self.seat.move(move, expected_version=status.version)
        except Refused as e:
            if e.code == grpc.StatusCode.UNAVAILABLE:
                raise  # not a refusal of the move: act() looks again once the server answers
            if e.code == grpc.StatusCode.ABORTED:
                return True  # someone moved first (an out-of-turn declaration); look again
            if e.code == grpc.StatusCode.PERMISSION_DENIED:
                log.warning("seat_taken_over", message=e.message, seat=self.seat.seat)
                return False  # the seat forfeited (its clock ran out): the referee plays it now
            if e.rule == "REF-TIMEOUT":  # the referee takes this turn at its next check: wait for it
                log.warning("out_of_time", message=e.message, seat=self.seat.seat)
                self.seat.wait()
                return True
            self.refusals += 1
            log.warning("move_refused", rule=e.rule, message=e.message, seat=self.seat.seat)
            if self.refusals >= self.max_refusals:
                raise RuntimeError(f"seat {self.seat.seat}: {self.refusals} refusals, "
                                   f"last {e.rule}: {e.message}") from e
        return True

    def act(self, stop: threading.Event | None = None) -> bool:
        """step(), through a server restart: the seat is looked at again until the server answers
        (or `stop`), since nothing else brings this turn back: the player stream tells each turn once,
        and the other seats wait for this one. A move sent before the restart is not played twice:
        the new look sees it if it was acknowledged."""
        stop = stop or threading.Event()
        delay = 0.2
        while not stop.is_set():
            try:
                return self.step()
            except Refused as e:
                if e.code != grpc.StatusCode.UNAVAILABLE:
                    raise
                log.warning("server_unavailable", game_id=self.seat.game_id, seat=self.seat.seat)
                stop.wait(delay)
                delay = min(delay * 2, 2.0)
        return True

    def play(self) -> dict:
        while self.act():
            status = self.seat.last
            if status is not None and not status.acts(self.seat.seat):
                self.seat.wait()
        return self.seat.status().outcome


@dataclass
class LobbyBot:
    """Joins open games of one game type and plays every seat it holds from the player stream."""
    player: PlayerClient
    client: Client
    make_bot: Callable[[SeatClient], Bot]
    join: str = "open"  # "open" = any open game, else one game id
    max_seats: int = 1  # seats held at once
    games: int = 0  # stop after this many games are over; 0 = never
    poll_s: float = 0.5
    joining: bool = True  # False: seats come only as reservations (a tournament's games)
    seats: dict = field(default_factory=dict)  # game id -> Bot
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _stop: threading.Event = field(default_factory=threading.Event)

    def _take(self, game_id: str, seat: int, token: str) -> None:
        with self._lock:
            self.seats[game_id] = self.make_bot(self.client.seat(game_id, seat, token))

    def join_once(self) -> bool:
        """Join one open game if a seat is free for us; True when joined."""
        me = self.player.player_id
        candidates = [self.join] if self.join != "open" else [
            g.game_id for g in self.player.open_games(self.client.game)
            if all(h.player_id != me for h in g.seat_holders)]
        for game_id in candidates:
            if game_id in self.seats:
                continue
            try:
                joined = self.player.join(game_id)
            except Refused as e:
                log.info("join_refused", game_id=game_id, rule=e.rule, message=e.message)
                continue
            self._take(joined.game_id, joined.seat, joined.seat_token)
            log.info("joined", game_id=joined.game_id, seat=joined.seat)
            return True
        return False

    def _joiner(self) -> None:
        while not self._stop.is_set():
            try:
                if len(self.seats) < self.max_seats and (self.join == "open" or self.join not in self.seats):
                    self.join_once()
            except Refused as e:
                log.warning("lobby_unavailable", message=e.message)
            self._stop.wait(self.poll_s)

    def run(self) -> list[dict]:
        """Play until `games` games are over; returns their outcomes."""
        me = self.player.me()
        self.player.player_id = me.player.player_id
        for s in me.seats:  # seats held from before (a restart of the bot): a fresh token for each
            if s.game == self.client.game:
                joined = self.player.join(s.game_id, seat=s.seat)
                self._take(s.game_id, s.seat, joined.seat_token)
        if self.joining:
            threading.Thread(target=self._joiner, name="lobby-joiner", daemon=True).start()
        outcomes = []
        try:
            for event in self._events():
                if event.game != self.client.game:
                    continue
                if event.kind == "seat_assigned" and event.seat_token:  # a seat reserved for us
                    self._take(event.game_id, event.seat, event.seat_token)
                bot = self.seats.get(event.game_id)
                if bot is None:
                    continue
                if event.kind == "your_turn":
                    if bot.seat.last is None or event.status.version >= bot.seat.last.version:
                        bot.act(self._stop)
                elif event.kind == "game_over":
                    with self._lock:
                        self.seats.pop(event.game_id, None)
                    outcomes.append(event.outcome)
                    log.info("game_over", game_id=event.game_id, outcome=event.outcome)
                    if self.games and len(outcomes) >= self.games:
                        return outcomes
        finally:
            self._stop.set()
        return outcomes

    def _events(self):
        """The player stream, until stop() (which closes it from another thread)."""
        try:
            yield from self.player.events()
        except (Refused, ValueError):  # ValueError: grpc's "channel closed", met when reconnecting after stop()
            if not self._stop.is_set():
                raise

    def stop(self) -> None:
        self._stop.set()
        self.player.close()


def enter_tournament(tournaments: TournamentClient, tournament_id: str, player: PlayerClient) -> tuple[Any, bool]:
    """(the tournament, whether `player` entered it now): entered unless it is entered already (a restarted
    bot) or the tournament has a fixed list."""
    t = tournaments.get(tournament_id)
    me = player.me().player.player_id
    player.player_id = me
    entered = any(e.player_id == me for e in t.entrants)
    if not entered and t.open_registration and TOURNAMENT_STATES[t.state] == "TOURNAMENT_STATE_REGISTERING":
        try:
            return tournaments.join(tournament_id, player.token), True
        except Refused as e:
            if e.rule != "TOUR-8":  # entered meanwhile (a restarted bot): fine
                raise
    elif not entered:
        raise Refused(grpc.StatusCode.FAILED_PRECONDITION, "this player is not an entrant of the tournament and "
                      "can no longer enter it", "TOUR-4")
    return t, False


def play_tournament(server: str, player_token: str, tournament_id: str, make_bot,
                    connection: dict | None = None) -> list[dict]:
    """Enter the tournament, play every game it gives, return when it finished or was cancelled."""
    connection = connection or {}
    tls = {k: v for k, v in connection.items() if k in ("tls", "ca", "cert", "key")}
    tournaments = TournamentClient(server, tls=tls)
    player = PlayerClient(server, player_token, route=tournament_id, tls=tls)
    t, joined = enter_tournament(tournaments, tournament_id, player)
    print(f"{'entered' if joined else 'already an entrant of'} {t.tournament_id} ({t.game}, "
          f"{len(t.entrants)} entrants so far)", flush=True)
    lobby = LobbyBot(player, Client(server, t.game, **connection), make_bot, joining=False)

    def watch() -> None:
        try:
            for event in tournaments.events(tournament_id):
                if event.kind == "tournament_finished":
                    break
        except Refused as e:
            log.warning("tournament_stream_failed", rule=e.rule, message=e.message)
        time.sleep(0.5)  # the last game_over events reach the player stream first
        lobby.stop()

    threading.Thread(target=watch, name="tournament-watch", daemon=True).start()
    try:
        return lobby.run()
    finally:
        tournaments.close()


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="python -m clients.bot", description=__doc__.split("\n\n")[0])
    p.add_argument("--server", default="127.0.0.1:50051")
    p.add_argument("--game", help="the game (not needed with --tournament)")
    p.add_argument("--game-id", help="play this seat (with --seat and --token)")
    p.add_argument("--seat", type=int)
    p.add_argument("--token")
    p.add_argument("--player-token", help="a registered player's token: join games from the lobby instead")
    p.add_argument("--join", default="open", help='"open" (any open game of --game) or a game id')
    p.add_argument("--tournament", help="with --player-token: enter this tournament and play every game it gives")
    p.add_argument("--games", type=int, default=0, help="with --player-token: stop after this many games (0 = never)")
    p.add_argument("--policy", default="mcts")
    p.add_argument("--think-ms", type=float, default=None, help="time budget per move (mcts)")
    p.add_argument("--iterations", type=int, default=None, help="iteration budget per move (mcts)")
    p.add_argument("--seed", type=int, default=None)
    add_connection_args(p)
    return p.parse_args(argv)


def add_connection_args(p: argparse.ArgumentParser) -> None:
    """--tls, --ca, --cert, --key and --api-key, shared with clients.tournament."""
    p.add_argument("--tls", action="store_true", help="connect over TLS (the system's roots unless --ca)")
    p.add_argument("--ca", metavar="FILE", help="PEM file of the CA to trust (implies --tls)")
    p.add_argument("--cert", metavar="FILE", help="client certificate (PEM) for a server that wants mutual TLS")
    p.add_argument("--key", metavar="FILE", help="the client certificate's private key (PEM)")
    p.add_argument("--api-key", default="", help="API key sent when creating games (server's GE_CREATE_TOKENS)")


def connection_kwargs(args) -> dict:
    return {"tls": args.tls, "ca": args.ca, "cert": args.cert, "key": args.key, "api_key": args.api_key}


def main(argv=None) -> int:
    args = parse_args(argv)
    rng = random.Random(args.seed)
    think = args.think_ms if args.think_ms is not None or args.iterations else 100
    if args.tournament:
        if not args.player_token or args.policy not in POLICIES:
            print(f"--tournament needs --player-token and a policy from {', '.join(POLICIES)}", file=sys.stderr)
            return 2
        try:
            outcomes = play_tournament(args.server, args.player_token, args.tournament,
                                       lambda seat: Bot(seat, args.policy, think, args.iterations, rng),
                                       connection_kwargs(args))
        except Refused as e:
            print(f"refused: {e.code.name}: {e.message}", file=sys.stderr)
            return 1
        print(f"tournament over: played {len(outcomes)} games", flush=True)
        return 0
    if args.game not in GAME_IDS:
        print(f"unknown game {args.game!r}; choose from {', '.join(GAME_IDS)}", file=sys.stderr)
        return 2
    if args.policy not in POLICIES:
        print(f"unknown policy {args.policy!r}; choose from {', '.join(POLICIES)}", file=sys.stderr)
        return 2
    client = Client(args.server, args.game, **connection_kwargs(args))
    if args.player_token:
        lobby = LobbyBot(PlayerClient(args.server, args.player_token), client,
                         lambda seat: Bot(seat, args.policy, think, args.iterations, rng), args.join, games=args.games)
        try:
            for outcome in lobby.run():
                print(f"game over: {outcome}", flush=True)
        except Refused as e:
            print(f"refused: {e.code.name}: {e.message}", file=sys.stderr)
            return 1
        return 0
    if args.game_id is None or args.seat is None or args.token is None:
        print("give --game-id, --seat and --token, or --player-token", file=sys.stderr)
        return 2
    bot = Bot(client.seat(args.game_id, args.seat, args.token), args.policy, think, args.iterations, rng)
    try:
        outcome = bot.play()
    except Refused as e:
        print(f"refused: {e.code.name}: {e.message}", file=sys.stderr)
        return 1
    print(f"game over: {outcome}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
