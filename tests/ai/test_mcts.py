"""The search behind the mcts bot and the referee's autoplay and hints."""
from __future__ import annotations

import random

import pytest

from engines import registry
from engines.ai import mcts
from engines.ai.policies import mcts_settings
from gameengine import codecs


def opening(game: str, seats: int):
    engine, codec = registry.game(game), codecs.codec(game)
    state = engine.new_state(seats, {}, 3)
    seat = mcts.actor(engine, state)
    view = codec.view_from_proto(codec.view_to_proto(engine.view(state, seat)))
    return engine, state, seat, view


@pytest.mark.parametrize("game", list(registry.GAME_IDS))
def test_an_expired_time_budget_still_answers_with_a_legal_move(game):
    """A bot descheduled past its deadline (a loaded machine) must still move, not fail."""
    seats = registry.typical_seats(game)
    engine, state, seat, view = opening(game, seats)
    result = mcts.search(engine, view, seat, seats, random.Random(1), time_ms=0, **mcts_settings(game))
    assert result.iterations == 1
    assert result.best in engine.legal_moves(state, seat)


def test_widening_admits_the_prior_move_then_the_ranked_order():
    legal = ["a", "b", "c", "d"]
    node = mcts.Node()
    prior = lambda state, who, rng: "c"  # noqa: E731
    rank = lambda state, who, moves, rng: sorted(moves, reverse=True)  # d, c, b, a  # noqa: E731
    admitted = [mcts.widen(node, legal, None, 0, random.Random(0), prior, 1.0, 0.5, rank)]
    for visits in (4, 9, 16):
        node.visits = visits
        admitted.append(mcts.widen(node, legal, None, 0, random.Random(0), prior, 1.0, 0.5, rank))
    assert admitted == [["c"], ["c", "d"], ["c", "d", "b"], ["c", "d", "b", "a"]]
    node.visits = 25
    late = mcts.widen(node, legal + ["e"], None, 0, random.Random(0), prior, 1.0, 0.5, rank)
    assert late[-1] == "e"  # a move first seen in a later determinization ranks after the known ones
