"""Rewrite the README's benchmark tables from the committed bench/results.json, bench/strength*.json and
bench/abuse.json, so the figures quoted are exactly those of one run:

    python -m bench.readme_tables

The tables sit between `<!-- bench:begin -->` and `<!-- bench:end -->` (and `<!-- abuse:begin -->` ...
`<!-- abuse:end -->`); the prose around them is hand-written.
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


def _machine(steal: dict | float | None, others: dict | float | None) -> str:
    """The hypervisor's and other processes' shares of the CPU over a drive, or over a round's echo and
    MakeMove drives ({"echo": .., "move": ..}), as far as recorded."""
    def shown(pct: dict | float) -> str:
        return f"{pct['echo']:.0f} / {pct['move']:.0f} %" if isinstance(pct, dict) else f"{pct:.0f} %"
    parts = [f"{name} {shown(pct)}" for name, pct in (("steal", steal), ("other processes", others)) if pct is not None]
    return f" ({', '.join(parts)})" if parts else ""


def service_table(r: dict) -> list[str]:
    """The service figures against issue 22's goals (ratio, tail, 100k games) and the earlier ones."""
    rpc, mem, snap = r["rpc"], r["memory"], r["snapshot"]
    rows = [
        "| figure | measured | target |", "|---|---|---|",
        f"| bare gRPC echo (same framework, same load generator) | {rpc['echo_qps']:.0f} calls/s | — |",
        f"| `MakePompeiiMove` peak, many concurrent games | {rpc['move_qps']:.0f} moves/s = "
        f"**{rpc['move_to_echo_ratio']:.2f} × echo** | ≥ 0.7 × echo |",
        *([f"| server CPU per call, echo ÷ MakePompeiiMove (medians of the rounds) | "
           f"{rpc['server_cpu_us_per_call']['echo']:.0f} ÷ {rpc['server_cpu_us_per_call']['move']:.0f} µs = "
           f"**{rpc['server_cpu_us_per_call']['echo_to_move']:.2f}** | — |",
           "| peak ratio of each round (echo and MakeMove alternate) | "
           + ", ".join(f"{x['ratio']:.2f}" + _machine(x.get("steal_pct"), x.get("others_pct"))
                       for x in rpc["rounds"]) + " | — |"]
          if "rounds" in rpc else []),
        *([f"| load generator CPU per call, echo and MakePompeiiMove (it shares the two cores) | "
           f"{cl['echo']:.0f} and {cl['move']:.0f} µs | — |"]
          if (cl := rpc.get("client_cpu_us_per_call")) else []),
        *([f"| instructions per call in the serving process (callgrind), echo ÷ MakePompeiiMove | "
           f"{ins['echo_per_call'] / 1000:.0f}k ÷ {ins['move_per_call'] / 1000:.0f}k = "
           f"**{ins['echo_to_move']:.2f}** | — |"]
          if "echo_per_call" in (ins := r.get("instructions", {})) else []),
        f"| move latency at half load ({rpc['half_load_qps']:.0f}/s) | p50 {rpc['p50_ms']:.2f} ms, "
        f"**p99 {rpc['p99_ms']:.2f} ms**"
        + _machine(rpc.get("half_load_steal_pct"), rpc.get("half_load_others_pct")) + " | p99 ≤ 5 ms |",
        f"| memory per live Pompeii game ({mem['games']} games, {mem['seats']} seats, "
        f"{mem['moves_per_game']} moves each) | **{mem['bytes_per_live_game'] / 1024:.1f} KiB** | ≤ 50 KB |",
        f"| snapshot of {snap['games']} games | save {snap['save_s']:.2f} s, **restore {snap['restore_s']:.2f} s** "
        f"({snap['snapshot_bytes'] / 2**20:.0f} MiB) | restore ≤ 5 s |",
    ]
    for n, g in r.get("scale", {}).get("by_games", {}).items():
        target = " | RSS ≤ 2 GiB, restore ≤ 10 s |" if int(n) >= 100_000 else " | — |"
        rows.append(f"| {int(n):,} live Pompeii games restored in a fresh process "
                    f"| RSS **{g['rss_bytes'] / 2**20:.0f} MiB** "
                    f"({g['bytes_per_game'] / 1024:.1f} KiB each), **restore {g['restore_s']:.2f} s** "
                    f"({g['restore_cpu_s']:.2f} s CPU); every game read once: +{g['settle_all_cpu_s']:.1f} s CPU, "
                    f"{g['rss_all_settled_bytes'] / 2**20:.0f} MiB"
                    + (f"; the periodic sweeps over them: longest loop stall {g['sweeps_worst_stall_ms']:.1f} ms"
                       if "sweeps_worst_stall_ms" in g else "") + target)
    return rows


def cell(v: dict | None) -> str:
    if v is None:
        return "not run"
    lo, hi = v["win_rate_95"]
    return f"{v['win_rate']:.2f} [{lo:.2f}, {hi:.2f}] of {v['seats_played']}"


def strength_table(s: dict, name: str) -> list[str]:
    against = "" if s["seats"] == 2 else f" (one mcts against {s['seats'] - 1} copies of its opponent)"
    merged = any("command" in row for row in s["results"].values())  # each row names its run below
    when = f" ({s['when']})" if s.get("when") else ""
    rows = [("Runs (1), (2), ... below" if merged else f"`{s['command']}`{when}") + ": "
            f"{s['seats']} seats{against}, seat-rotated, fair share {1 / s['seats']:.2f}, "
            f"{s['think_ms']:.0f} ms per move; `bench/{name}`.", "",
            "| game | ISMCTS iterations/s | mcts vs random (95%) | mcts vs greedy (95%) |", "|---|---|---|---|"]
    runs = []  # a file merged from runs of some games each (bench.strength --only): each row's own run
    for game, row in s["results"].items():
        mark = ""
        if "command" in row:
            run = (row["command"], row.get("when"))
            if run not in runs:
                runs.append(run)
            mark = f" ({runs.index(run) + 1})"
        rows.append(f"| {game}{mark} | {row['mcts_sims_per_s']:.0f} | {cell(row.get('vs_random'))} "
                    f"| {cell(row.get('vs_greedy'))} |")
    rows += ["", *(f"({i}) `{c}`" + (f" ({w})" if w else "") for i, (c, w) in enumerate(runs, 1))] if runs else []
    return rows


def abuse_table(report: dict) -> str:
    """bench.abuse's rows (bench/abuse.json): the player's figures against its baseline, per attack."""
    lines = ["| attack (each on a fresh server) | player p50 / p99 ms: baseline → under attack "
             "| player's moves: baseline → under attack | failed legitimate calls "
             "| hints ok/failed, p50 / max ms | referee moves/s in the player's clocked game | server RSS max MB "
             "| goal met | what the attacker got |", "|---|---|---|---|---|---|---|---|---|"]
    for r in report["rows"]:
        b, u = r["baseline"], r["under_attack"]
        seen = ", ".join(f"{k}: {v}" for k, v in sorted(u["attacker"].items())) or "—"
        hint_p50, hint_max = u.get("hint_ms_p50_max", ("—", "—"))
        lines.append(f"| {r['attack']} | {b['p50_ms']} / {b['p99_ms']} → {u['p50_ms']} / {u['p99_ms']} | "
                     f"{b['moves']} → {u['moves']} | {b['errors'] + u['errors']} | "
                     f"{u['hints']['ok']}/{u['hints']['failed']}, {hint_p50} / {hint_max} | "
                     f"{b['referee_moves_per_s']} → {u['referee_moves_per_s']} | {u['rss_mb_max']} | "
                     f"{'yes' if r['goal_met'] else '**no**'} | {seen} |")
    return "\n".join(lines)


def abuse_block(report: dict) -> str:
    nice = report.get("attacker_nice", 19)
    head = (f"`python -m bench.abuse --seconds {report['seconds_per_phase']:g}` ({report['when']}"
            + (f", main at {report['commit']}" if report.get("commit") else "")
            + f"; each attack on a fresh server with `make run`'s settings, a {report['seconds_per_phase']:g} s "
            f"baseline then {report['seconds_per_phase']:g} s of the attack, the attacker at nice {nice}; "
            f"goal: {report['goal']}; `bench/abuse.json`):")
    load = ", ".join(f"{x:.1f}" for x in report.get("load_average_at_end", ()))
    return "\n".join([head, "", abuse_table(report), "", f"load average at the end: {load}"])


def replace_block(text: str, begin: str, end: str, body: str) -> str:
    new, n = re.subn(re.escape(begin) + ".*?" + re.escape(end), lambda _: f"{begin}\n{body}\n{end}", text,
                     flags=re.S)
    if n != 1:
        raise SystemExit(f"README.md needs exactly one {begin} ... {end} block")
    return new


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
    text = replace_block(text, BEGIN, END, render(results, strength))
    abuse = ROOT / "bench" / "abuse.json"
    if abuse.exists():
        text = replace_block(text, "<!-- abuse:begin -->", "<!-- abuse:end -->",
                             abuse_block(json.loads(abuse.read_text())))
    readme.write_text(text)
    print("README.md tables updated")


if __name__ == "__main__":
    main()
