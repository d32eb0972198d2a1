"""Bot-vs-bot tournaments run by the server (TournamentService), entered by local bots.

    python -m clients.tournament --server 127.0.0.1:50051 --game citadels --seats 3 \\
        --bots random,greedy,mcts --games 30 --think-ms 100 --parallel 2 --json results.json

A thin client of the service: it creates a tournament with room for the bots (round robin by
default: every set of --seats bots plays --seats games with the seats rotated, so --games is a
multiple of that cycle; or --format swiss with --rounds), registers one player per bot, starts one
entrant process per bot (`python -m clients.bot --player-token T --tournament ID`, holding only its
own player token) that enters it, starts the tournament once all entered, shows a progress bar from
the tournament's event stream and prints the standings the server kept (points, wins, mean score,
OpenSkill rating). With --json it writes the JSON results and a PNG plot of win rates beside
them (nothing is written without it). Exit code 0 when every game finished, 1 when the server
cannot be reached, refuses the tournament, or a game failed (the others are still played and
reported), 2 for a bad argument (unknown game, bot, format or option, a game count that is not a
whole number of cycles).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from engines import registry
from engines.ai.policies import POLICIES
from engines.core import RuleError

from .bot import add_connection_args, connection_kwargs
from .sdk import PlayerClient, Refused, TournamentClient, make_channel

FORMATS = ("round_robin", "swiss")
POLICIES_ON_TIMEOUT = ("autoplay", "random", "forfeit")


def parse_value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return int(text)
    except ValueError:
        return text


def parse_options(pairs: list[str]) -> dict[str, Any]:
    options = {}
    for pair in pairs:
        if "=" not in pair:
            raise ValueError(f"--option wants key=value, got {pair!r}")
        key, value = pair.split("=", 1)
        options[key.strip()] = parse_value(value.strip())
    return options


def labels(bots: list[str]) -> list[str]:
    """One standings label per entrant: the bot's name, numbered when a bot enters more than once."""
    return [b if bots.count(b) == 1 else f"{b}#{bots[:i].count(b) + 1}" for i, b in enumerate(bots)]


def wilson(k: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 0.0
    p = k / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, centre - half), min(1.0, centre + half)


def summarize(t, label_of: dict[str, str]) -> dict[str, Any]:
    """The report of a finished tournament (a Tournament message): standings per bot label as the
    server kept them, every game, and the games that failed."""
    table = {}
    for line in t.standings:
        label = label_of.get(line.player_id, line.player_name)
        lo, hi = wilson(line.wins, line.games)
        table[label] = {"place": line.place, "games": line.games, "wins": line.wins, "points": line.points,
                        "win_rate": round(line.wins / line.games, 4) if line.games else 0.0,
                        "win_rate_95": [round(lo, 4), round(hi, 4)], "fair_share": round(1 / t.seats_per_game, 4),
                        "mean_score": round(line.mean_score, 3), "mu": round(line.mu, 3),
                        "sigma": round(line.sigma, 3), "rating_95": [round(line.rating_low, 3),
                                                                     round(line.rating_high, 3)],
                        "byes": line.byes, "forfeits": line.forfeits}
    results = []
    for g in t.schedule:
        outcome = ({"ranks": list(g.outcome.ranks), "scores": list(g.outcome.scores),
                    "winners": list(g.outcome.winners), "adjudicated": g.outcome.adjudicated}
                   if g.finished and not g.failure else None)
        error = g.failure or ("" if g.finished else "not played: the tournament ended first")
        results.append({"index": g.index, "round": g.round, "seed": g.seed, "game_id": g.game_id,
                        "bots": [label_of.get(p, p) for p in g.seat_players], "outcome": outcome,
                        "forfeited": list(g.forfeited), "error": error or None})
    errors = [{"index": r["index"], "seed": r["seed"], "error": r["error"]} for r in results if r["error"]]
    if t.state != 3:  # TOURNAMENT_STATE_FINISHED
        errors.append({"index": -1, "seed": t.seed, "error": f"the tournament ended {t.cancel_reason or 'early'}"})
    return {"tournament_id": t.tournament_id, "game": t.game, "seats": t.seats_per_game,
            "format": FORMATS[t.format - 1], "options": list(t.options), "games": len(t.schedule), "seed": t.seed,
            "standings": table, "ratings": {b: {"mu": v["mu"], "sigma": v["sigma"]} for b, v in table.items()},
            "errors": errors, "results": results}


def plot(table: dict[str, Any], path: Path, title: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(table)
    rates = [table[b]["win_rate"] for b in names]
    err = [[r - table[b]["win_rate_95"][0] for b, r in zip(names, rates)],
           [table[b]["win_rate_95"][1] - r for b, r in zip(names, rates)]]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.bar(names, rates, yerr=err, capsize=6, color="#4c72b0")
    fair = next(iter(table.values()))["fair_share"] if table else 0
    ax.axhline(fair, color="#c44e52", linestyle="--", label=f"fair share {fair:.2f}")
    ax.set_ylabel("win rate per game (95% Wilson interval)")
    ax.set_ylim(0, 1)
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="python -m clients.tournament", description=__doc__.split("\n\n")[-1])
    p.add_argument("--server", default="127.0.0.1:50051", help="gRPC address of the game server (default %(default)s)")
    p.add_argument("--game", required=True, help=f"game id: {', '.join(registry.GAME_IDS)}")
    p.add_argument("--seats", type=int, required=True, help="seats per game (2-7, within the game's range)")
    p.add_argument("--bots", default="random,greedy,mcts",
                   help=f"comma list of entrants, one bot process each: {', '.join(POLICIES)} (default %(default)s)")
    p.add_argument("--format", default="round_robin", choices=FORMATS,
                   help="round_robin or swiss (default %(default)s)")
    p.add_argument("--games", type=int, default=0,
                   help="round robin: games in the schedule, a multiple of one cycle (C(bots, seats) x seats); "
                        "0 = one cycle (default %(default)s)")
    p.add_argument("--rounds", type=int, default=0, help="swiss: rounds; 0 = ceil(log2(bots)) (default %(default)s)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="a game option (repeatable), e.g. necromancer=true for smallworld")
    p.add_argument("--think-ms", type=float, default=100,
                   help="mcts thinking time per move in ms (default %(default)s)")
    p.add_argument("--time-bank-ms", type=int, default=60_000,
                   help="every game's clock: time bank per seat in ms (default %(default)s)")
    p.add_argument("--increment-ms", type=int, default=1000, help="added after each move in ms (default %(default)s)")
    p.add_argument("--timeout-policy", default="autoplay", choices=POLICIES_ON_TIMEOUT,
                   help="what the referee does when a bank runs out (default %(default)s)")
    p.add_argument("--parallel", type=int, default=2, help="games played at once (default %(default)s)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the schedule; each game's seed comes from it (default: the server draws one, "
                        "since whoever knows it knows every hand; the results show it once the tournament is over)")
    p.add_argument("--max-moves", type=int, default=0,
                   help="the referee adjudicates a game after this many moves; 0 = no cap")
    p.add_argument("--json", default=None, metavar="PATH",
                   help="write the results JSON here and a PNG plot beside it (PATH with .png); "
                        "nothing is written without it")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no standings table")
    add_connection_args(p)
    return p.parse_args(argv)


def validate(args) -> tuple[list[str], dict[str, Any]]:
    """Unknown game, bot, format or option, or a schedule that cannot be built -> ValueError (exit 2)."""
    if args.game not in registry.GAME_IDS:
        raise ValueError(f"unknown game {args.game!r}; choose from {', '.join(registry.GAME_IDS)}")
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    unknown = [b for b in bots if b not in POLICIES]
    if not bots or unknown:
        raise ValueError(f"unknown bot(s) {unknown}; choose from {', '.join(POLICIES)}")
    options = parse_options(args.option)
    engine = registry.game(args.game)
    if not (2 <= args.seats <= 7 and engine.min_seats <= args.seats <= engine.max_seats):
        raise ValueError(f"{args.game} takes {engine.min_seats} to {engine.max_seats} seats")
    try:
        engine.new_state(args.seats, options, 0)
    except RuleError as e:
        raise ValueError(f"bad option: {e.rule}: {e.message}") from None
    if len(bots) < args.seats:
        raise ValueError(f"{len(bots)} bots cannot fill {args.seats} seats per game; list at least {args.seats}")
    cycle = math.comb(len(bots), args.seats) * args.seats
    if args.format == "round_robin" and args.games % cycle:
        raise ValueError(f"a round robin of {len(bots)} bots at {args.seats} seats plays cycles of {cycle} games; "
                         f"--games must be a multiple of {cycle}")
    return bots, options


class Unreachable(RuntimeError):
    """The server does not answer, or refuses the tournament: no game can be played."""


def tls_of(args) -> dict:
    return {k: v for k, v in connection_kwargs(args).items() if k in ("tls", "ca", "cert", "key")}


def reachable(server: str, timeout_s: float = 10.0, tls: dict | None = None) -> None:
    """One ListGameTypes call first, so an unreachable server is one clear error."""
    import grpc

    from gameengine.v1 import common_pb2, common_pb2_grpc
    with make_channel(server, **(tls or {})) as channel:
        try:
            common_pb2_grpc.GameServiceStub(channel).ListGameTypes(common_pb2.ListGameTypesRequest(),
                                                                    timeout=timeout_s, wait_for_ready=True)
        except grpc.RpcError as e:
            raise Unreachable(f"cannot reach the server at {server} ({e.code().name}); no game was played") from None


def entrant(server: str, token: str, tournament_id: str, policy: str, think_ms: float, log,
            tls: dict) -> subprocess.Popen:
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), str(root / "protos"),
                                                        os.environ.get("PYTHONPATH", "")]))
    return subprocess.Popen([sys.executable, "-m", "clients.bot", "--server", server, f"--player-token={token}",
                             "--tournament", tournament_id, "--policy", policy, "--think-ms", str(think_ms)]
                            + (["--tls"] if tls.get("tls") else [])
                            + [f"--{k}={tls[k]}" for k in ("ca", "cert", "key") if tls.get(k)],
                            env=env, stdout=subprocess.DEVNULL, stderr=log)


def _tail(log, chars: int = 1500) -> str:
    log.flush()
    log.seek(0)
    return log.read()[-chars:].strip()


def run(args) -> dict[str, Any]:
    bots, options = validate(args)
    reachable(args.server, tls=tls_of(args))
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    console = Console(stderr=True, quiet=args.quiet)
    t0 = time.perf_counter()
    tc = TournamentClient(args.server, tls=tls_of(args), api_key=args.api_key)
    run_id = secrets.token_hex(3)
    names = labels(bots)
    try:
        # Open registration sized to the bots, and players registered on the tournament's replica (the
        # x-game-id route): behind the k8s router every call of this run reaches the same replica.
        t, creator = tc.create(args.game, args.seats, args.format, games=args.games, rounds=args.rounds,
                               time_bank_ms=args.time_bank_ms, increment_ms=args.increment_ms,
                               timeout_policy=args.timeout_policy, max_moves=args.max_moves,
                               max_parallel=args.parallel, max_entrants=len(bots), seed=args.seed,
                               options=options, name=f"clients.tournament {run_id}")
    except Refused as e:
        raise Unreachable(f"the server refused the tournament: {e.code.name}: {e.message}") from None
    try:
        players = [PlayerClient.register(args.server, f"{name.replace('#', '-')}-{run_id}", route=t.tournament_id,
                                         tls=tls_of(args), api_key=args.api_key) for name in names]
    except Refused as e:  # no entrant: the tournament would hold one of the address's places for a day
        tc.cancel(t.tournament_id, creator)
        raise Unreachable(f"the server refused the tournament's players: {e.code.name}: {e.message}; "
                          "the tournament was cancelled") from None
    label_of = {p.player_id: name for p, name in zip(players, names)}
    logs = [tempfile.TemporaryFile("w+") for _ in bots]
    procs = [entrant(args.server, p.token, t.tournament_id, bot, args.think_ms, log, tls_of(args))
             for p, bot, log in zip(players, bots, logs)]
    try:
        deadline = time.time() + 300
        while len(tc.get(t.tournament_id).entrants) < len(bots):  # each entrant joins by itself
            gone = [(name, proc, log) for name, proc, log in zip(names, procs, logs) if proc.poll() is not None]
            if time.time() > deadline or gone:
                tc.cancel(t.tournament_id, creator)
                why = "; ".join(f"{name} exited with {proc.returncode}: {_tail(log)}" for name, proc, log in gone)
                raise Unreachable(f"the entrant bots did not all enter the tournament ({why or 'timed out'}); "
                                  "it was cancelled")
            time.sleep(0.1)
        t = tc.start(t.tournament_id, creator)
        with Progress(console=console, transient=False) as progress:
            task = progress.add_task(f"{args.game} x{args.seats} ({t.tournament_id})", total=t.games_total)
            for event in tc.events(t.tournament_id, cursor=0):
                if event.kind == "game_finished":
                    progress.advance(task)
        t = tc.get(t.tournament_id, creator)  # with its seeds: a failed game can be played again
    finally:
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for name, proc, log in zip(names, procs, logs):
            if proc.returncode:  # its games went on, played by the referee's clock: say why it stopped
                print(f"entrant {name} exited with {proc.returncode}: {_tail(log)}", file=sys.stderr)
            log.close()
        tc.close()
    report = summarize(t, label_of)
    report.update(bots=names, think_ms=args.think_ms, seconds=round(time.perf_counter() - t0, 2))
    if args.json:
        out = Path(args.json)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, indent=2, default=str))
        plot(report["standings"], out.with_suffix(".png"), f"{args.game}, {args.seats} seats, {report['games']} games")
        console.print(f"wrote {out} and {out.with_suffix('.png')}")
    table = Table(title=f"{args.game}: {report['games']} games, {args.seats} seats, think {args.think_ms:g} ms")
    for col in ("place", "bot", "games", "points", "wins", "win rate (95%)", "mean score", "rating mu (95%)"):
        table.add_column(col)
    for b, v in sorted(report["standings"].items(), key=lambda kv: kv[1]["place"]):
        table.add_row(str(v["place"]), b, str(v["games"]), f"{v['points']:g}", str(v["wins"]),
                      f"{v['win_rate']:.2f} [{v['win_rate_95'][0]:.2f}, {v['win_rate_95'][1]:.2f}]",
                      f"{v['mean_score']:.2f}", f"{v['mu']:.1f} [{v['rating_95'][0]:.1f}, {v['rating_95'][1]:.1f}]")
    Console(quiet=args.quiet).print(table)
    return report


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        report = run(args)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except Unreachable as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if report["errors"]:
        first = report["errors"][0]
        print(f"error: {len(report['errors'])} of {report['games']} games failed (game {first['index']}: "
              f"{first['error']}); the standings count only finished games", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
