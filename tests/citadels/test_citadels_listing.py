"""Complete legal-move lists (issue 24 item 7): every copy of a district for Build and Laboratory, and
the Magician's redraw as a move template covering every subset in any order (CIT-38, CIT-48, CIT-60)."""
from __future__ import annotations

import itertools
import random

from engines.citadels import GAME
from engines.citadels.cards import DISTRICT
from engines.citadels.moves import Build, EndTurn, Laboratory, MagicRedraw, TakeGold
from engines.core import IllegalMove
from gameengine.codecs.citadels import CODEC

from .citadels_helpers import clear_hand, deal_round, give, new, play


def two_taverns(rank):
    s = new(4, seed=3)
    clear_hand(s, 0)
    copies = [give(s, 0, "tavern"), give(s, 0, "tavern")]
    give(s, 0, "manor")
    deal_round(s, {0: [rank]})
    s.gold[0] = 9
    return s, copies


def test_CIT_38_every_copy_of_a_district_is_listed():
    s, copies = two_taverns(4)
    play(s, 0, TakeGold())
    builds_made = [m for m in GAME.legal_moves(s, 0) if isinstance(m, Build)]
    assert Build(copies[0]) in builds_made and Build(copies[1]) in builds_made and len(builds_made) == 3


def test_CIT_60_every_copy_is_listed_for_the_laboratory():
    s, copies = two_taverns(4)
    give(s, 0, "laboratory", to="city")
    labs = [m for m in GAME.legal_moves(s, 0) if isinstance(m, Laboratory)]
    assert sorted(m.card for m in labs) == sorted(s.hands[0]) and len(labs) == 3


def eight_card_magician():
    s = new(4, seed=5)
    clear_hand(s, 0)
    for name in ("tavern", "tavern", "manor", "temple", "market", "prison", "castle", "church"):
        give(s, 0, name)
    deal_round(s, {0: [3]})
    return s


def test_CIT_48_redraw_template_covers_every_subset():
    s = eight_card_magician()
    hand = tuple(s.hands[0])
    legal = GAME.legal_moves(s, 0)
    templates = [m for m in legal if isinstance(m, MagicRedraw) and m.any_subset]
    assert templates == [MagicRedraw(hand, True)]
    assert CODEC.move_from_proto(CODEC.move_to_proto(templates[0])) == templates[0]
    assert CODEC.move_to_proto(templates[0]).magic_redraw.any_subset is True
    subsets = [c for k in range(1, 9) for c in itertools.combinations(hand, k)]
    assert len(subsets) == 255
    rng = random.Random(1)
    for cards in subsets:  # every form the template describes is accepted, in any order
        order = list(cards)
        rng.shuffle(order)
        t = GAME.clone(s)
        GAME.apply(t, 0, MagicRedraw(tuple(order)))
        assert t.deck[-len(order):] == order
    t = GAME.clone(s)
    GAME.apply(t, 0, templates[0])  # the template as listed redraws the whole hand
    assert t.deck[-8:] == list(hand) and len(t.hands[0]) == 8 and not set(t.hands[0]) & set(hand)


def test_CIT_48_redraw_outside_the_template_is_refused():
    s = eight_card_magician()
    for bad in [(s.deck[0],), (s.hands[0][0], s.hands[0][0])]:
        try:
            GAME.apply(GAME.clone(s), 0, MagicRedraw(bad))
        except IllegalMove as e:
            assert e.rule == "CIT-48"
        else:
            raise AssertionError(bad)


def test_random_and_heuristic_policies_play_with_templates():
    from engines.ai.policies import choose
    for seed in range(6):
        s = new(4, seed=seed)
        rng = random.Random(seed)
        while not GAME.is_over(s):
            seat = GAME.to_move(s)
            policy = "random" if seat % 2 else "greedy"
            view = CODEC.view_from_proto(CODEC.view_to_proto(GAME.view(s, seat)))
            move = choose(policy, "citadels", view, seat, 4, rng, legal=GAME.legal_moves(s, seat))
            GAME.apply(s, seat, move)
        assert GAME.outcome(s).winners


def test_listed_builds_are_not_deduplicated_in_random_games():
    seen = 0
    for seed in range(40):
        s = new(5, seed=seed)
        rng = random.Random(seed)
        while not GAME.is_over(s):
            seat = GAME.to_move(s)
            legal = GAME.legal_moves(s, seat)
            hand = s.hands[seat]
            for c in hand:
                twin = [d for d in hand if d != c and DISTRICT[d] == DISTRICT[c]]
                if twin and Build(c) in legal:
                    assert Build(twin[0]) in legal
                    seen += 1
            GAME.apply(s, seat, rng.choice(legal) if EndTurn() not in legal or rng.random() < 0.9 else EndTurn())
    assert seen
