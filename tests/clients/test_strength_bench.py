"""`make strength` (bench/strength.py) end to end, small: it plays through the tournament service and
reads the standings the server kept."""
from __future__ import annotations

import json

from bench import strength


def test_strength_plays_mcts_against_copies_of_an_opponent_and_writes_its_rows(tmp_path):
    out = tmp_path / "strength.json"
    assert strength.main(["--games", "3", "--think-ms", "10", "--parallel", "3", "--seats", "3",
                          "--only", "citadels", "--opponents", "greedy", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    row = report["results"]["citadels"]["vs_greedy"]
    assert report["seats"] == 3 and "--opponents greedy" in report["command"]
    assert row["seats_played"] == 3 and row["errors"] == 0 and row["fair_share"] == round(1 / 3, 4)
    lo, hi = row["win_rate_95"]
    assert 0 <= lo <= row["win_rate"] <= hi <= 1
    assert "vs_random" not in report["results"]["citadels"]


def test_a_run_of_some_games_keeps_the_other_rows_of_the_same_settings(tmp_path):
    out = tmp_path / "strength.json"
    settings = {"seats": 2, "think_ms": 100.0, "games_per_pair": 100}
    out.write_text(json.dumps({"command": "python -m bench.strength", "when": "2026-12-02T00:00:00Z", **settings,
                               "results": {"pompeii": {"mcts_sims_per_s": 1.0}, "citadels": {"mcts_sims_per_s": 2.0}}}))
    new = {"command": "python -m bench.strength --only citadels", "when": "2026-12-05T00:00:00Z", **settings,
           "results": {}}
    merged = strength.kept_rows(new, out)
    assert merged["results"]["pompeii"] == {"command": "python -m bench.strength", "when": "2026-12-02T00:00:00Z",
                                            "mcts_sims_per_s": 1.0}
    assert merged["command"] == new["command"] and merged["when"] == new["when"]
    # other settings: nothing of the old file is kept
    assert strength.kept_rows({**new, "games_per_pair": 10}, out)["results"] == {}
    from bench import readme_tables
    merged["results"]["citadels"] = {"mcts_sims_per_s": 3.0, "command": new["command"], "when": new["when"]}
    table = "\n".join(readme_tables.strength_table(merged, "strength.json"))
    assert "| pompeii (1) |" in table and "| citadels (2) |" in table
    assert "(1) `python -m bench.strength` (2026-12-02T00:00:00Z)" in table
    assert "(2) `python -m bench.strength --only citadels` (2026-12-05T00:00:00Z)" in table
