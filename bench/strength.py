"""Bot strength over RPC: `mcts` head to head against `random` and against `greedy`, every game.

    python -m bench.strength [--games 100] [--think-ms 100] [--parallel 2] [--seats 2]
        [--only pompeii,eruption] [--opponents random,greedy]

Starts its own server on loopback, then for each game and opponent runs
`clients.tournament` (seat-rotated, 2 seats by default so the fair share is 1/2; at more
seats one mcts plays against seats - 1 copies of the opponent) and records mcts's win
rate with a 95% Wilson interval, plus ISMCTS iterations per second from the opening
position. Writes bench/strength.json (2 seats) or bench/strength-<seats>.json and prints
a table.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "protos")]

from clients import tournament  # noqa: E402
from engines import registry  # noqa: E402
from engines.ai import mcts  # noqa: E402
from engines.ai.policies import mcts_settings  # noqa: E402
from gameengine import codecs  # noqa: E402
from tests.conftest import ServerProcess  # noqa: E402


def sims_per_s(game: str, seats: int, seconds: float = 2.0) -> float:
    engine = registry.game(game)
    state = engine.new_state(seats, {}, 1)
    seat = mcts.actor(engine, state)
    c = codecs.codec(game)
    view = c.view_from_proto(c.view_to_proto(engine.view(state, seat)))
    t0 = time.thread_time()  # per CPU second, as bench.run: another process's load does not lower it
    result = mcts.search(engine, view, seat, seats, random.Random(1), time_ms=seconds * 1000, **mcts_settings(game))
    return result.iterations / max(1e-9, time.thread_time() - t0)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--think-ms", type=float, default=100)
    ap.add_argument("--parallel", type=int, default=2)
    ap.add_argument("--seats", type=int, default=2)
    ap.add_argument("--only", default="", help="comma list of games")
    ap.add_argument("--opponents", default="random,greedy", help="comma list of bots mcts plays")
    ap.add_argument("--out", default="", help="default bench/strength.json, or strength-<seats>.json")
    args = ap.parse_args(argv)
    args.out = args.out or str(ROOT / "bench" / ("strength.json" if args.seats == 2 else f"strength-{args.seats}.json"))
    opponents = [b for b in args.opponents.split(",") if b]
    games = [g for g in registry.GAME_IDS if not args.only or g in args.only.split(",")]
    command = (f"python -m bench.strength --games {args.games} --think-ms {args.think_ms:g} "
               f"--parallel {args.parallel} --seats {args.seats}" + (f" --only {args.only}" if args.only else "")
               + (f" --opponents {args.opponents}" if opponents != ["random", "greedy"] else ""))
    report = {"command": command, "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "think_ms": args.think_ms,
              "seats": args.seats, "games_per_pair": args.games, "results": {}}
    if args.only:
        report = kept_rows(report, Path(args.out))
    with tempfile.TemporaryDirectory() as d:
        server = ServerProcess(Path(d), GE_LOG_LEVEL="warning").start()
        try:
            for game in games:
                row: dict[str, Any] = {"mcts_sims_per_s": round(sims_per_s(game, args.seats), 1)}
                if args.only:  # its own run, beside the kept rows of the file's
                    row.update(command=command, when=report["when"])
                for opponent in opponents:
                    out = Path(d) / f"{game}-{opponent}.json"
                    bots = ",".join(["mcts"] + [opponent] * (args.seats - 1))
                    t = tournament.run(tournament.parse_args([
                        "--server", server.target, "--game", game, "--seats", str(args.seats),
                        "--bots", bots, "--games", str(args.games), "--think-ms", str(args.think_ms),
                        "--parallel", str(args.parallel), "--json", str(out), "--quiet"]))
                    m = t["standings"]["mcts"]
                    row[f"vs_{opponent}"] = {"win_rate": m["win_rate"], "win_rate_95": m["win_rate_95"],
                                             "fair_share": m["fair_share"], "seats_played": m["games"],
                                             "errors": len(t["errors"]), "seconds": t["seconds"]}
                    print(f"{game:10s} mcts vs {opponent:6s}: {m['win_rate']:.2f} "
                          f"[{m['win_rate_95'][0]:.2f}, {m['win_rate_95'][1]:.2f}] fair {m['fair_share']:.2f} "
                          f"({m['games']} games, {len(t['errors'])} errors)", flush=True)
                report["results"][game] = row
                Path(args.out).write_text(json.dumps(report, indent=2))
        finally:
            server.stop()
    print(f"wrote {args.out}")
    return 0


def kept_rows(report: dict[str, Any], out: Path) -> dict[str, Any]:
    """A run of some games (--only) replaces their rows and keeps the other games' rows of the file
    when that run had the same seats, think time and games; each kept row says which run it is from."""
    try:
        before = json.loads(out.read_text())
    except (OSError, ValueError):
        return report
    if any(before.get(k) != report[k] for k in ("seats", "think_ms", "games_per_pair")):
        return report
    rows = {g: {"command": before["command"], "when": before.get("when"), **row} if "command" not in row else row
            for g, row in before.get("results", {}).items()}
    return {**before, "command": report["command"], "when": report["when"], "results": rows}


if __name__ == "__main__":
    sys.exit(main())
