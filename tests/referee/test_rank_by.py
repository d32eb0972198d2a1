"""Adjudication ranks seats with the engines' own rank_by (issue 21 item 6: one ranking)."""
from __future__ import annotations

from engines import core
from server import referee


def test_item6_adjudication_ranks_with_core_rank_by(monkeypatch):
    calls = []

    def rank_by(keys):
        calls.append(list(keys))
        return core.rank_by(keys)

    monkeypatch.setattr(referee, "rank_by", rank_by)
    adj = referee.score_rollouts([[1.0, 0.0, 0.5], [1.0, 0.0, 0.5]], 3, "cap")
    assert calls == [[1.0, 0.0, 0.5]]
    assert (adj.ranks, adj.winners) == ((1, 3, 2), (0,))


def test_item6_equal_means_share_a_place_as_in_the_engines():
    adj = referee.score_rollouts([[0.5, 0.5, 0.0, 0.5]], 4, "cap")
    assert (adj.ranks, adj.winners) == core.rank_by([0.5, 0.5, 0.0, 0.5]) == ((1, 1, 4, 1), (0, 1, 3))
