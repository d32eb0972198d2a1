"""Bot-vs-bot tournaments over RPC.

    python -m clients.tournament --server 127.0.0.1:50051 --game citadels --seats 3 \\
        --bots random,greedy,mcts --games 30 --think-ms 100 --parallel 2 --json results.json

Creates K games, rotates bots over seats (game i puts bot (s + i) mod B on seat s),
plays them in P worker processes, each seat a separate client with its own token
and view, rates the bots with OpenSkill (Plackett-Luce), prints standings, and with
--json writes the JSON results and a PNG plot of win rates beside them (nothing is
written without it). Exit code 0 when every game finished, 1 when the server cannot
be reached or a game failed (the others are still played and reported), 2 for a bad
argument (unknown game, bot or option).
"""
from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from engines import registry
from engines.ai.policies import POLICIES
from engines.core import RuleError

from .bot import Bot, add_connection_args, connection_kwargs
from .sdk import Client, Refused


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


def seating(bots: list[str], seats: int, index: int) -> list[str]:
    return [bots[(s + index) % len(bots)] for s in range(seats)]


def play_one(job: dict[str, Any]) -> dict[str, Any]:
    """One game, all seats, in this worker process. Never raises: errors are recorded."""
    t0 = time.perf_counter()
    result = {"index": job["index"], "seed": job["seed"], "bots": job["bots"], "game_id": None,
              "outcome": None, "moves": 0, "error": None}
    try:
        client = Client(job["server"], job["game"], **job.get("connection", {}))
        game_id, tokens = client.create(job["seats"], job["options"], job["seed"], max_moves=job["max_moves"])
        result["game_id"] = game_id
        rng = random.Random(job["seed"])
        bots = [Bot(client.seat(game_id, s, tokens[s]), name, job["think_ms"], None, random.Random(rng.random()))
                for s, name in enumerate(job["bots"])]
        spectator = client.spectator(game_id)
        idle = 0
        while True:
            status = spectator.status()
            if status.over:
                break
            acted = False
            for s in status.seats_to_act:
                if status.acts(s):
                    before = status.version
                    bots[s].step()
                    acted = bots[s].seat.last is not None and bots[s].seat.last.version > before
                    break
            idle = 0 if acted else idle + 1
            if idle > 50:  # the referee (move cap) may be finishing the game
                time.sleep(0.1)
            if idle > 600:
                raise RuntimeError("no progress for 60 s")
        result["outcome"] = status.outcome
        result["moves"] = status.version
        client.close()
    except Refused as e:
        result["error"] = f"{e.rule or e.code.name}: {e.message}"
    except Exception as e:  # a failed game is recorded and the tournament goes on
        result["error"] = f"{type(e).__name__}: {e}"
        result["trace"] = traceback.format_exc(limit=5)
    result["seconds"] = round(time.perf_counter() - t0, 3)
    return result


def wilson(k: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 0.0
    p = k / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, centre - half), min(1.0, centre + half)


def standings(results: list[dict[str, Any]], bots: list[str], seats: int) -> dict[str, Any]:
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {b: model.rating(name=b) for b in bots}
    table = {b: {"games": 0, "wins": 0.0, "score_sum": 0.0, "seats_played": 0} for b in bots}
    for r in results:
        if r["error"] or not r["outcome"]:
            continue
        ranks = r["outcome"].get("ranks", [])
        winners = r["outcome"].get("winners", [])
        scores = r["outcome"].get("scores", [0.0] * seats)
        for s, b in enumerate(r["bots"]):
            t = table[b]
            t["seats_played"] += 1
            t["wins"] += (1 / len(winners)) if s in winners else 0.0
            t["score_sum"] += scores[s] if s < len(scores) else 0.0
        for b in set(r["bots"]):
            table[b]["games"] += 1
        teams = [[ratings[b]] for b in r["bots"]]
        new = model.rate(teams, ranks=ranks)
        updates: dict[str, list] = {}
        for b, team in zip(r["bots"], new):
            updates.setdefault(b, []).append(team[0])
        for b, rs in updates.items():  # a bot on several seats of one game: average its updates
            ratings[b] = model.rating(mu=sum(x.mu for x in rs) / len(rs), sigma=sum(x.sigma for x in rs) / len(rs),
                                      name=b)
    out = {}
    for b in bots:
        t = table[b]
        n = t["seats_played"]
        lo, hi = wilson(t["wins"], n)
        out[b] = {"seats_played": n, "wins": round(t["wins"], 3), "win_rate": round(t["wins"] / n, 4) if n else 0.0,
                  "win_rate_95": [round(lo, 4), round(hi, 4)], "fair_share": round(1 / seats, 4),
                  "mean_score": round(t["score_sum"] / n, 3) if n else 0.0,
                  "mu": round(ratings[b].mu, 3), "sigma": round(ratings[b].sigma, 3),
                  "rating_95": [round(ratings[b].mu - 1.96 * ratings[b].sigma, 3),
                                round(ratings[b].mu + 1.96 * ratings[b].sigma, 3)]}
    return out


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
    ax.set_ylabel("win rate per seat played (95% Wilson interval)")
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
    p.add_argument("--seats", type=int, required=True, help="seats per game")
    p.add_argument("--bots", default="random,greedy,mcts",
                   help=f"comma list of bots, rotated over the seats: {', '.join(POLICIES)} (default %(default)s)")
    p.add_argument("--games", type=int, default=12, help="games in the schedule (default %(default)s)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="a game option (repeatable), e.g. necromancer=true for smallworld")
    p.add_argument("--think-ms", type=float, default=100, help="mcts thinking time per move in ms (default %(default)s)")
    p.add_argument("--parallel", type=int, default=2, help="games played at once, in worker processes (default %(default)s)")
    p.add_argument("--seed", type=int, default=1, help="seed of the schedule; each game's seed comes from it (default %(default)s)")
    p.add_argument("--max-moves", type=int, default=0,
                   help="the referee adjudicates a game after this many moves; 0 = no cap")
    p.add_argument("--json", default=None, metavar="PATH",
                   help="write the results JSON here and a PNG plot beside it (PATH with .png); nothing is written without it")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no standings table")
    p.add_argument("--shard-index", type=int, default=0,
                   help="play only games i with i %% shard-count == shard-index, for a k8s Indexed Job's workers "
                        "(default %(default)s)")
    p.add_argument("--shard-count", type=int, default=1, help="number of workers the schedule is split over (default %(default)s)")
    add_connection_args(p)
    return p.parse_args(argv)


def validate(args) -> tuple[list[str], dict[str, Any]]:
    """Unknown game, bot or option -> ValueError with a sentence (exit code 2)."""
    if args.game not in registry.GAME_IDS:
        raise ValueError(f"unknown game {args.game!r}; choose from {', '.join(registry.GAME_IDS)}")
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    unknown = [b for b in bots if b not in POLICIES]
    if not bots or unknown:
        raise ValueError(f"unknown bot(s) {unknown}; choose from {', '.join(POLICIES)}")
    if not 0 <= args.shard_index < args.shard_count:
        raise ValueError(f"--shard-index must be in [0, {args.shard_count}), got {args.shard_index}")
    options = parse_options(args.option)
    engine = registry.game(args.game)
    if not engine.min_seats <= args.seats <= engine.max_seats:
        raise ValueError(f"{args.game} takes {engine.min_seats} to {engine.max_seats} seats")
    try:
        engine.new_state(args.seats, options, 0)
    except RuleError as e:
        raise ValueError(f"bad option: {e.rule}: {e.message}") from None
    return bots, options


class Unreachable(RuntimeError):
    """The server does not answer: no game can be played."""


def reachable(server: str, timeout_s: float = 10.0, connection: dict | None = None) -> None:
    """One ListGameTypes call before the schedule, so an unreachable server is one clear error."""
    import grpc

    from gameengine.v1 import common_pb2, common_pb2_grpc

    from .sdk import make_channel
    tls = {k: v for k, v in (connection or {}).items() if k in ("tls", "ca", "cert", "key")}
    with make_channel(server, **tls) as channel:
        try:
            common_pb2_grpc.GameServiceStub(channel).ListGameTypes(common_pb2.ListGameTypesRequest(),
                                                                    timeout=timeout_s, wait_for_ready=True)
        except grpc.RpcError as e:
            raise Unreachable(f"cannot reach the server at {server} ({e.code().name}); no game was played") from None


def run(args) -> dict[str, Any]:
    bots, options = validate(args)
    reachable(args.server, connection=connection_kwargs(args))
    seeds = random.Random(args.seed)
    jobs = [{"index": i, "server": args.server, "game": args.game, "seats": args.seats, "options": options,
             "seed": seeds.randrange(2**62), "bots": seating(bots, args.seats, i), "think_ms": args.think_ms,
             "max_moves": args.max_moves, "connection": connection_kwargs(args)} for i in range(args.games)]
    jobs = [j for j in jobs if j["index"] % args.shard_count == args.shard_index]  # same seeds in every shard
    results = []
    t0 = time.perf_counter()
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    console = Console(stderr=True, quiet=args.quiet)
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(max(1, args.parallel)) as pool, Progress(console=console, transient=False) as progress:
        task = progress.add_task(f"{args.game} x{args.seats}", total=len(jobs))
        for r in pool.imap_unordered(play_one, jobs):
            results.append(r)
            progress.advance(task)
    results.sort(key=lambda r: r["index"])
    table = standings(results, bots, args.seats)
    report = {"game": args.game, "seats": args.seats, "bots": bots, "options": options, "games": len(jobs),
              "shard": {"index": args.shard_index, "count": args.shard_count, "schedule": args.games},
              "think_ms": args.think_ms, "seconds": round(time.perf_counter() - t0, 2), "standings": table,
              "ratings": {b: {"mu": v["mu"], "sigma": v["sigma"]} for b, v in table.items()},
              "errors": [{"index": r["index"], "seed": r["seed"], "error": r["error"]} for r in results if r["error"]],
              "results": results}
    if args.json:
        out = Path(args.json)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, indent=2, default=str))
        plot(table, out.with_suffix(".png"), f"{args.game}, {args.seats} seats, {len(jobs)} games")
        console.print(f"wrote {out} and {out.with_suffix('.png')}")
    t = Table(title=f"{args.game}: {len(jobs)} games, {args.seats} seats, think {args.think_ms:g} ms")
    for col in ("bot", "seats", "wins", "win rate (95%)", "fair", "mean score", "rating mu (95%)"):
        t.add_column(col)
    for b, v in sorted(table.items(), key=lambda kv: -kv[1]["mu"]):
        t.add_row(b, str(v["seats_played"]), f"{v['wins']:g}",
                  f"{v['win_rate']:.2f} [{v['win_rate_95'][0]:.2f}, {v['win_rate_95'][1]:.2f}]",
                  f"{v['fair_share']:.2f}", f"{v['mean_score']:.2f}",
                  f"{v['mu']:.1f} [{v['rating_95'][0]:.1f}, {v['rating_95'][1]:.1f}]")
    Console(quiet=args.quiet).print(t)
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
