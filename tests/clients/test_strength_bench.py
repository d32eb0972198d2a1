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
