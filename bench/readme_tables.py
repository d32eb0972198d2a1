"""Rewrite the README's benchmark tables from the committed bench/results.json and bench/strength.json,
so the figures quoted are exactly those of one run:

    python -m bench.readme_tables

The tables sit between `<!-- bench:begin -->` and `<!-- bench:end -->`; the prose around them is hand-written.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"


def engine_table(r: dict) -> list[str]:
    """Random decisions/s and ISMCTS iterations/s per game; "× baseline" is the figure's ratio to the
    reference loop (bench/reference.py) in this run over the same ratio in bench/baseline.json."""
    rows = ["| game | random decisions per CPU second by seats | × baseline "
            "| ISMCTS iterations per CPU second | × baseline |",
            "|---|---|---|---|---|"]
    for game, e in r["engine"].items():
        seats = ", ".join(f"{n}p {v['moves_per_s'] / 1000:.1f}k" for n, v in e["by_seats"].items())
        speedup = e.get("speedup", {})
        by_seat = ", ".join(f"{k} {v:.2f}" for k, v in speedup.items() if k != "mcts") or "—"
        mcts = f"{speedup['mcts']:.2f}" if "mcts" in speedup else "—"
        rows.append(f"| {game} | {seats} | {by_seat} | {e['mcts_sims_per_s']:.0f} ({e['mcts_seats']} seats, "
                    f"opening) | {mcts} |")
    reference = next(iter(r["engine"].values())).get("reference_per_s")
    if reference:
        rows += ["", f"Reference loop (random tic-tac-toe, `bench/reference.py`) in that run: "
                     f"{reference / 1000:.0f}k decisions/s; baseline: `bench/baseline.json`."]
    return rows


def service_table(r: dict) -> list[str]:
    rpc, mem, snap = r["rpc"], r["memory"], r["snapshot"]
    return [
        "| figure | measured | target |", "|---|---|---|",
        f"| bare gRPC echo (same framework, same load generator) | {rpc['echo_qps']:.0f} calls/s | — |",
        f"| `MakePompeiiMove` peak, many concurrent games | {rpc['move_qps']:.0f} moves/s = "
        f"**{rpc['move_to_echo_ratio']:.2f} × echo** | ≥ 0.5 × echo |",
        f"| move latency at half load ({rpc['half_load_qps']:.0f}/s) | p50 {rpc['p50_ms']:.2f} ms, "
        f"**p99 {rpc['p99_ms']:.2f} ms** | p99 ≤ 10 ms |",
        f"| memory per live Pompeii game ({mem['games']} games, {mem['seats']} seats, "
        f"{mem['moves_per_game']} moves each) | **{mem['bytes_per_live_game'] / 1024:.1f} KiB** | ≤ 50 KB |",
        f"| snapshot of {snap['games']} games | save {snap['save_s']:.2f} s, **restore {snap['restore_s']:.2f} s** "
        f"({snap['snapshot_bytes'] / 2**20:.0f} MiB) | restore ≤ 5 s |",
    ]


def cell(v: dict | None) -> str:
    if v is None:
        return "not run"
    lo, hi = v["win_rate_95"]
    return f"{v['win_rate']:.2f} [{lo:.2f}, {hi:.2f}] of {v['seats_played']}"


def strength_table(s: dict, name: str) -> list[str]:
    against = "" if s["seats"] == 2 else f" (one mcts against {s['seats'] - 1} copies of its opponent)"
    when = f" ({s['when']})" if s.get("when") else ""
    rows = [f"`{s['command']}`{when}: "
            f"{s['seats']} seats{against}, seat-rotated, fair share {1 / s['seats']:.2f}, "
            f"{s['think_ms']:.0f} ms per move; `bench/{name}`.", "",
            "| game | ISMCTS iterations/s | mcts vs random (95%) | mcts vs greedy (95%) |", "|---|---|---|---|"]
    for game, row in s["results"].items():
        rows.append(f"| {game} | {row['mcts_sims_per_s']:.0f} | {cell(row.get('vs_random'))} "
                    f"| {cell(row.get('vs_greedy'))} |")
    return rows


def render(results: dict, strength: dict[str, dict]) -> str:
    head = (f"Figures from one `{results['command']}` run on this {results['machine']['cpus']}-core machine "
            f"({results['when']}, Python {results['machine']['python']}, event loop "
            f"{results['rpc'].get('event_loop', 'asyncio')}).")
    parts = [head, "", *engine_table(results), "", *service_table(results)]
    for name, s in strength.items():
        parts += ["", *strength_table(s, name)]
    return "\n".join(parts)


def main() -> None:
    readme = ROOT / "README.md"
    text = readme.read_text()
    results = json.loads((ROOT / "bench" / "results.json").read_text())
    strength = {p.name: json.loads(p.read_text()) for p in sorted((ROOT / "bench").glob("strength*.json"),
                                                             key=lambda p: (p.name != "strength.json", p.name))}
    block = f"{BEGIN}\n{render(results, strength)}\n{END}"
    new, n = re.subn(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: block, text, flags=re.S)
    if n != 1:
        raise SystemExit(f"README.md needs exactly one {BEGIN} ... {END} block")
    readme.write_text(new)
    print("README.md tables updated")


if __name__ == "__main__":
    main()
