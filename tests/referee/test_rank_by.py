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


class _Rec:
    """What GameCore.outcome reads of a game record."""

    def __init__(self, ranks, forfeited, adjudicated=False):
        from server.records import Adjudication, RefereeState
        self.seats = len(ranks)
        self.referee_state = RefereeState()
        self.referee_state.forfeited = {s: "gone" for s in forfeited}
        if adjudicated:
            self.referee_state.adjudication = Adjudication(tuple(0.5 for _ in ranks), tuple(ranks),
                                                           tuple(s for s, r in enumerate(ranks) if r == 1), 0.9, "cap")
        else:
            self.engine = type("E", (), {"outcome": staticmethod(lambda state: core.Outcome(
                tuple(0 for _ in ranks), tuple(ranks), tuple(s for s, r in enumerate(ranks) if r == 1)))})
            self.state = None


def test_a_forfeited_seat_ranks_last_and_the_others_keep_the_engines_ranking():
    from server.service import GameCore
    # "1224" kept: seat 3, already last, forfeits; seat 2 stays third (it was moved up to second)
    assert GameCore.outcome(_Rec([1, 1, 3, 4], [3]))["ranks"] == [1, 1, 3, 4]
    assert GameCore.outcome(_Rec([1, 1, 3, 4], [0]))["ranks"] == [4, 1, 2, 3]
    assert GameCore.outcome(_Rec([1, 1, 3, 4], [0, 2]))["ranks"] == [4, 1, 4, 2]
    o = GameCore.outcome(_Rec([1, 2, 3], [0, 1]))  # forfeiting seats share the last place
    assert (o["ranks"], o["winners"]) == ([3, 3, 1], [2])
    o = GameCore.outcome(_Rec([1, 2], [0, 1]))  # two no-shows: neither wins, both last
    assert (o["ranks"], o["winners"]) == ([2, 2], [])


def test_an_adjudicated_games_forfeited_seat_ranks_last_too():
    from server.service import GameCore
    o = GameCore.outcome(_Rec([1, 3, 2], [0], adjudicated=True))
    assert (o["ranks"], o["winners"], o["adjudicated"]) == ([3, 2, 1], [2], True)


def test_confidence_is_none_for_a_tie_and_never_certainty_from_a_few_rollouts():
    assert referee.score_rollouts([[0.5, 0.5], [0.5, 0.5]], 2, "cap").confidence == 0  # all tied: no leader
    assert referee.score_rollouts([[1.0, 0.0]], 2, "cap").confidence < 0.9  # one rollout
    many = referee.score_rollouts([[1.0, 0.0]] * 200, 2, "cap").confidence
    assert many >= 0.99  # a clear lead over 200 rollouts
    close = referee.score_rollouts([[1.0, 0.0]] * 55 + [[0.0, 1.0]] * 45, 2, "cap").confidence
    assert close < many
