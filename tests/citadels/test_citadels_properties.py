"""Property tests over random legal games for every player count.

Conservation (66 cards; gold >= 0; bank + gold constant with a finite bank; CIT-27
character places), termination, exact replay, event visibility, no view leaks,
codec round trips and determinization. Scale with GE_PROPERTY_GAMES (games per
player count for the light checks; default 180, i.e. 1080 games).
"""
import os
import pickle
import random

import pytest

from engines.citadels import GAME
from engines.core import replay
from gameengine.codecs.citadels import CODEC

COUNTS = range(2, 8)
LIGHT_GAMES = int(os.environ.get("GE_PROPERTY_GAMES", "180"))
HEAVY_GAMES = max(2, LIGHT_GAMES // 30)
PRIVATE_KINDS = {"characters_offered", "character_picked", "character_discarded", "cards_seen", "cards_returned"}
MAX_MOVES = 20_000


def random_options(n, rng):
    opts = {}
    if rng.random() < 0.5:
        return opts
    pick = {
        "city_complete_size": [8, 7, 4, 10],
        "murdered_king_gets_crown": [False, True],
        "warlord_timing": ["end_of_turn", "any_time"],
        "gold_supply": ["unlimited", 30, 2 * n + 3],
        "tiebreak": ["district_points_then_gold", "gold", "none"],
        "destroyed_district_to": ["deck_bottom", "discard"],
        "action_order": ["any", "action_first"],
        "king_may_be_face_up": [False, True],
        "initial_crown": ["random", n - 1],
        "allow_void_targets": [False, True],
    }
    for key, values in pick.items():
        if rng.random() < 0.4:
            opts[key] = rng.choice(values)
    return opts


def check_invariants(s, total_gold):
    cards = list(s.deck) + s.discard_pile
    for h in s.hands:
        cards += h
    for c in s.cities:
        cards += c
    if s.phase == "turns" and s.step == "graveyard":
        cards.append(s.graveyard_card)  # destroyed, awaiting the Graveyard answer
    assert sorted(cards) == list(range(66)), "deck + hands + cities + discards must be the 66 cards"
    assert min(s.gold) >= 0
    if total_gold is not None:
        assert sum(s.gold) + s.bank == total_gold
    assert set(s.drawn) <= set(s.hands[s.active] if s.active >= 0 else [])
    for p in range(s.seats):
        assert set(s.known_hand[p]) <= set(s.hands[p])
    if s.phase != "over":  # CIT-27
        places = [r for h in s.held for r in h] + s.face_up + s.face_down_ranks + s.pile
        assert sorted(places) == list(range(1, 9))
        if s.phase == "turns":
            per = 2 if s.seats <= 3 else 1
            assert all(len(h) == per for h in s.held)


def check_events(events, n):
    for e in events:
        if e.kind in PRIVATE_KINDS:
            assert e.to is not None and e.to == e.data["seat"], e
        else:
            assert e.to is None, e
        assert e.to is None or 0 <= e.to < n


def play_checked(n, seed, options, heavy=False):
    s = GAME.new_state(n, options, seed)
    total_gold = None if s.bank < 0 else sum(s.gold) + s.bank
    rng = random.Random(seed * 7919 + n)
    log = []
    check_invariants(s, total_gold)
    while not GAME.is_over(s):
        assert len(log) < MAX_MOVES, "the game must end"
        seats = GAME.seats_to_act(s)
        assert seats == [GAME.to_move(s)]
        seat = seats[0]
        moves = GAME.legal_moves(s, seat)
        assert moves and len(set(moves)) == len(moves)
        for other in range(n):
            if other != seat:
                assert GAME.legal_moves(s, other) == []
        if heavy and rng.random() < 0.15:
            check_views(s, rng)
            for mv in moves:
                assert CODEC.move_from_proto(CODEC.move_to_proto(mv)) == mv
        move = rng.choice(moves)
        events = GAME.apply(s, seat, move)
        check_events(events, n)
        if heavy:
            for e in events:
                kind, data = CODEC.event_from_proto(CODEC.event_to_proto(e))
                assert kind == e.kind
        log.append((seat, move))
        check_invariants(s, total_gold)
    out = GAME.outcome(s)
    assert len(out.ranks) == n and out.winners and all(out.ranks[w] == 1 for w in out.winners)
    return s, log


def roundtrip(view):
    return CODEC.view_from_proto(CODEC.view_to_proto(view))


PRIVATE_VIEW_FIELDS = ("hand", "my_characters", "my_face_down", "seen_sets", "offered", "drawn_cards")


def check_views(s, rng):
    spectator = GAME.view(s, None)
    for f in PRIVATE_VIEW_FIELDS:
        assert spectator[f] == [], f
    assert spectator["shown_face_down"] == 0
    assert all(d["public"] for d in spectator["known_deck"])
    assert roundtrip(spectator) == roundtrip(GAME.view(perturb(s, None, rng), None))
    for seat in range(s.seats):
        v = GAME.view(s, seat)
        rt = roundtrip(v)
        # no leak: changing what the seat cannot see leaves its view unchanged
        assert roundtrip(GAME.view(perturb(s, seat, rng), seat)) == rt
        # determinize from the round-tripped view rebuilds the same view, and is playable
        d = GAME.determinize(rt, seat, random.Random(rng.random()))
        assert roundtrip(GAME.view(d, seat)) == rt
        check_invariants(d, None)
        if not GAME.is_over(d):
            mover = GAME.to_move(d)
            assert mover == GAME.to_move(s)
            if mover == seat:
                assert set(GAME.legal_moves(d, seat)) == set(GAME.legal_moves(s, seat))
            d2 = GAME.clone(d)
            GAME.apply(d2, mover, rng.choice(GAME.legal_moves(d2, mover)))


def perturb(s, viewer, rng):
    """A copy of s with parts hidden from `viewer` exchanged (cards and characters)."""
    t = GAME.clone(s)
    me = -1 if viewer is None else viewer
    hidden = []  # (list, index)
    for p in range(t.seats):
        if p != me:
            for i, c in enumerate(t.hands[p]):
                if c not in t.known_hand[p] and c not in t.drawn:
                    hidden.append((t.hands[p], i))
    for i, c in enumerate(t.deck):
        if c not in t.deck_known:
            hidden.append((t.deck, i))
    for _ in range(3):
        if len(hidden) >= 2:
            (a, i), (b, j) = rng.sample(hidden, 2)
            a[i], b[j] = b[j], a[i]
    if t.phase == "over":
        return t
    slots = []  # hidden character slots
    revealed = set(t.revealed_ranks)
    low = t.calling if t.phase == "turns" else 0
    for p in range(t.seats):
        if p != me:
            for i, r in enumerate(t.held[p]):
                if r not in revealed and r > low:
                    slots.append((t.held[p], i, None))
    for i, (r, by) in enumerate(zip(t.face_down_ranks, t.face_down_by)):
        if by != me and r > low and r != t.shown_face_down[me]:
            slots.append((t.face_down_ranks, i, by))
    if t.picker != me or t.phase != "selection":
        for i in range(len(t.pile)):
            slots.append((t.pile, i, None))
    if len(slots) >= 2:
        (a, i, ba), (b, j, bb) = rng.sample(slots, 2)
        ra, rb = a[i], b[j]
        a[i], b[j] = rb, ra
        for by, old, new in ((ba, ra, rb), (bb, rb, ra)):
            if by is not None and by >= 0:
                k = t.my_discards[by].index(old)
                t.my_discards[by][k] = new
    return t


@pytest.mark.parametrize("n", COUNTS)
def test_random_games_conservation_termination_replay(n):
    for seed in range(LIGHT_GAMES):
        options = random_options(n, random.Random(seed))
        s, log = play_checked(n, seed, options)
        if seed % 3 == 0:  # CIT-88 / replay: (options, seed, moves) rebuilds the state exactly
            assert pickle.dumps(replay(GAME, n, options, seed, log)) == pickle.dumps(s)


@pytest.mark.parametrize("n", COUNTS)
def test_views_codec_determinize(n):
    for seed in range(HEAVY_GAMES):
        play_checked(n, 10_000 + seed, random_options(n, random.Random(seed)), heavy=True)


@pytest.mark.parametrize("n", (2, 4, 7))
def test_CIT_9_spectator_view_determinizes(n):
    """determinize(view, None): a spectator's view (after the proto round trip) becomes a playable
    state that shows the same public view, with every hand, character and the deck resampled. It
    raised TypeError (the seat's own draft memory indexed by None)."""
    rng = random.Random(n)
    state = GAME.new_state(n, {}, n)
    step = 0
    while not GAME.is_over(state):
        if step % 7 == 0:
            view = CODEC.view_from_proto(CODEC.view_to_proto(GAME.view(state, None)))
            det = GAME.determinize(view, None, random.Random(step))
            assert GAME.view(det, None) == GAME.view(state, None)
            seat = GAME.to_move(det)
            assert seat == GAME.to_move(state)
            GAME.apply(det, seat, random.Random(step).choice(GAME.legal_moves(det, seat)))
        seat = GAME.to_move(state)
        GAME.apply(state, seat, rng.choice(GAME.legal_moves(state, seat)))
        step += 1


def canonical_listed(move, legal):
    """Every accepted move is listed (issue 24 item 7): BUILD and LABORATORY per card, KEEP_CARDS
    for every kept set and return order (the kept cards in any order, the empty order = draw order),
    MAGIC_REDRAW through the template (any subset of its cards, in any order)."""
    from engines.citadels import moves as m
    if move in legal:
        return True
    for other in legal:
        if type(other) is not type(move):
            continue
        if isinstance(move, m.KeepCards) and set(other.kept) == set(move.kept):  # hand order is no choice
            return True
        if isinstance(move, m.MagicRedraw) and other.any_subset and set(move.cards) <= set(other.cards):
            return True
    return False


@pytest.mark.parametrize("n", COUNTS)
def test_refused_moves_leave_state_unchanged(n):
    """Random illegal moves (other kinds, wrong seats) are refused with a rule id."""
    from engines.citadels import moves as m
    from engines.core import IllegalMove
    probes = [m.TakeGold(), m.DrawCards(), m.EndTurn(), m.CollectIncome(), m.Smithy(), m.WarlordSkip(),
              m.GraveyardRecover(), m.GraveyardDecline(), m.Assassinate(1), m.Rob(1), m.MagicSwap(0),
              m.PickCharacter(1), m.DiscardCharacter(2), m.Build(0), m.Laboratory(0),
              m.WarlordDestroy(0, 0), m.MagicRedraw((0,)), m.KeepCards((0,), ())]
    rng = random.Random(n)
    s = GAME.new_state(n, {}, n)
    while not GAME.is_over(s):
        seat = GAME.to_move(s)
        legal = set(GAME.legal_moves(s, seat))
        for probe in rng.sample(probes, 4):
            for who in (seat, (seat + 1) % n):
                if who == seat and probe in legal:
                    continue
                before = pickle.dumps(s)
                try:
                    GAME.apply(GAME.clone(s), who, probe)
                except IllegalMove as e:
                    assert e.rule.startswith("CIT-")
                    with pytest.raises(IllegalMove):
                        GAME.apply(s, who, probe)
                    assert pickle.dumps(s) == before
                else:  # accepted although unlisted: only an equivalent form of a listed move
                    assert who == seat and canonical_listed(probe, legal), probe
        GAME.apply(s, seat, rng.choice(list(legal)))


def test_perturbation_really_changes_hidden_parts():
    """The no-leak check is only meaningful if perturb() changes what others can see."""
    changed_state = changed_other_view = 0
    rng = random.Random(1)
    for n in COUNTS:
        s = GAME.new_state(n, {}, n)
        for _ in range(120):
            if GAME.is_over(s):
                break
            t = perturb(s, 0, rng)
            changed_state += pickle.dumps(t) != pickle.dumps(s)
            changed_other_view += any(GAME.view(t, p) != GAME.view(s, p) for p in range(1, n))
            assert GAME.view(t, 0) == GAME.view(s, 0)
            seat = GAME.to_move(s)
            GAME.apply(s, seat, rng.choice(GAME.legal_moves(s, seat)))
    assert changed_state > 300 and changed_other_view > 300
