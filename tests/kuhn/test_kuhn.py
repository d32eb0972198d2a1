"""Kuhn poker, the template game: its rules by id, and a search it must solve."""
import random

import pytest

from engines.ai.mcts import search
from engines.core import IllegalMove, InvalidOptions
from engines.kuhn import GAME, Bet, Call, Check, Fold


def dealt(cards: str, options=None):
    """A state whose deal is `cards` (seat 0's card, seat 1's card)."""
    for seed in range(100):
        st = GAME.new_state(2, options or {}, seed)
        if "".join(st.cards) == cards:
            return st
    raise AssertionError(cards)


def test_KP_1_two_seats_and_known_options_only():
    for bad in (1, 3):
        with pytest.raises(InvalidOptions) as e:
            GAME.new_state(bad, {}, 1)
        assert e.value.rule == "KP-1"
    with pytest.raises(InvalidOptions):
        GAME.new_state(2, {"blinds": 1}, 1)
    with pytest.raises(InvalidOptions) as e:
        GAME.new_state(2, {"ante": 3}, 1)
    assert e.value.rule == "KP-3"


def test_KP_3_KP_4_ante_and_a_seeded_deal_of_two_of_three_cards():
    st = GAME.new_state(2, {"ante": 2}, 5)
    assert st.stakes == [2, 2] and len(set(st.cards)) == 2 and set(st.cards) < {"J", "Q", "K"}
    assert GAME.new_state(2, {}, 5).cards == st.cards  # the seed decides the deal
    assert {tuple(GAME.new_state(2, {}, s).cards) for s in range(60)} == {
        (a, b) for a in "JQK" for b in "JQK" if a != b}


def test_KP_5_KP_6_check_or_bet_then_call_or_fold():
    st = dealt("JQ")
    assert GAME.legal_moves(st, 0) == [Check(), Bet()] and GAME.legal_moves(st, 1) == []
    with pytest.raises(IllegalMove) as e:
        GAME.apply(st, 1, Check())
    assert e.value.rule == "KP-5"
    with pytest.raises(IllegalMove) as e:
        GAME.apply(st, 0, Call())
    assert e.value.rule == "KP-6"
    GAME.apply(st, 0, Bet())
    assert GAME.legal_moves(st, 1) == [Call(), Fold()]
    with pytest.raises(IllegalMove) as e:
        GAME.apply(st, 1, Bet())
    assert e.value.rule == "KP-5"


def test_KP_7_fold_gives_the_pot_and_showdown_the_higher_card():
    st = dealt("JQ")
    GAME.apply(st, 0, Bet())
    events = GAME.apply(st, 1, Fold())
    assert GAME.is_over(st) and GAME.outcome(st).scores == (1.0, -1.0)
    assert [e.kind for e in events] == ["acted", "pot_won"]
    st = dealt("JQ")
    GAME.apply(st, 0, Check())
    GAME.apply(st, 1, Bet())
    events = GAME.apply(st, 0, Call())
    assert [e.kind for e in events] == ["acted", "showdown", "pot_won"]
    assert GAME.outcome(st).scores == (-2.0, 2.0) and GAME.outcome(st).winners == (1,)
    with pytest.raises(IllegalMove) as e:
        GAME.apply(st, 1, Check())
    assert e.value.rule == "KP-7"


def test_KP_8_a_fold_never_shows_the_cards():
    st = dealt("KQ")
    GAME.apply(st, 0, Bet())
    GAME.apply(st, 1, Fold())
    assert GAME.view(st, 0)["card"] == "K" and "Q" not in str(GAME.view(st, 0))
    assert GAME.view(st, None)["card"] == "" and GAME.view(st, None)["shown_cards"] == []
    assert not any(GAME.move_is_private(m()) for m in (Check, Bet, Call, Fold))


@pytest.mark.parametrize("cards,actions,seat", [("QK", ["bet"], 1), ("KJ", ["check", "bet"], 0),
                                                ("JQ", ["bet"], 1)])
def test_mcts_finds_the_known_best_move(cards, actions, seat):
    """As OpenSpiel's mcts_test: search with random rollouts only finds the known best move —
    facing a bet, call with the King (wins against either card) and with the Queen (wins against
    the Jack, folding never wins)."""
    st = dealt(cards)
    for action in actions:
        GAME.apply(st, st.turn, {"bet": Bet(), "check": Check()}[action])
    result = search(GAME, GAME.view(st, seat), seat, 2, random.Random(1), iterations=400)
    assert result.best == Call()
    values = {m: v for m, v, _ in result.stats}
    assert values[Call()] > values[Fold()]
