"""Hints, the referee's autoplay and the mcts bot search with one settings table (issue 21 item 6)."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from engines import registry
from engines.ai import policies
from server import referee


@pytest.mark.parametrize("game", registry.GAME_IDS)
def test_item6_hints_and_autoplay_search_with_the_mcts_bot_settings(game, monkeypatch):
    seen: dict = {}

    def search(engine, view, seat, seats, rng, **settings):
        seen.update(settings)
        return SimpleNamespace(best="move", stats=[])

    monkeypatch.setattr(referee.mcts, "search", search)
    # referee.hint_job is what a hint (Referee.hint) and a timed-out seat's autoplay both run.
    assert referee.hint_job(game, {}, 0, 2, seed=1, budget_ms=50) == ("move", [])
    bot = policies.mcts_settings(game)
    assert {k: seen[k] for k in bot} == bot
    row = policies.MCTS_TABLE.get(game)  # a game without a row (Kuhn poker) takes the default settings
    assert row is None or seen["rollout_depth"] == row["depth"]
