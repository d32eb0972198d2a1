"""For every game: changing everything a seat cannot see changes nothing that seat receives.

`determinize(view(S, seat))` resamples every hidden part (other hands, deck and bag
order, the RNG). The seat's view and legal moves must be identical in both worlds,
and the spectator view too (it must survive resampling from every seat's side).
Private events are addressed to exactly one seat.
"""
from __future__ import annotations

import random

import pytest

from engines import registry
from engines.ai.mcts import actor
from gameengine import codecs

CASES = [(g, n) for g in registry.GAME_IDS for n in sorted({registry.tested_seats(g)[0], registry.tested_seats(g)[-1]})]


def rt(codec, view):
    return codec.view_from_proto(codec.view_to_proto(view))


def states(game, n, count, seed):
    """Mid-game states from random play, sampled at random depths."""
    engine = registry.game(game)
    rng = random.Random(seed)
    for _i in range(count):
        state = engine.new_state(n, {}, rng.randrange(2**32))
        for _ in range(rng.randrange(0, 120)):
            if engine.is_over(state):
                break
            who = actor(engine, state)
            engine.apply(state, who, rng.choice(engine.legal_moves(state, who)))
        yield state


@pytest.mark.parametrize("game,n", CASES)
def test_view_and_legal_moves_ignore_what_the_seat_cannot_see(game, n):
    engine = registry.game(game)
    codec = codecs.codec(game)
    for k, state in enumerate(states(game, n, 25, hash((game, n)) & 0xFFFF)):
        if engine.is_over(state):
            continue
        for seat in range(n):
            view = rt(codec, engine.view(state, seat))
            for trial in range(2):
                other = engine.determinize(view, seat, random.Random(k * 31 + trial))
                assert rt(codec, engine.view(other, seat)) == view
                assert set(engine.legal_moves(other, seat)) == set(engine.legal_moves(state, seat))
                # The spectator view survives resampling from EVERY seat's information,
                # so it holds nothing private to anyone.
                assert rt(codec, engine.view(other, None)) == rt(codec, engine.view(state, None))


@pytest.mark.parametrize("game,n", CASES)
def test_private_events_reach_only_their_seat(game, n):
    engine = registry.game(game)
    rng = random.Random(3)
    state = engine.new_state(n, {}, 11)
    private, own_secrets = 0, False
    for _ in range(400):
        if engine.is_over(state):
            break
        own_secrets |= any(engine.view(state, s) != engine.view(state, None) for s in range(n))
        who = actor(engine, state)
        for e in engine.apply(state, who, rng.choice(engine.legal_moves(state, who))):
            if e.to is not None:
                private += 1
                assert 0 <= e.to < n
                assert not e.visible_to(None)
                assert all(not e.visible_to(s) for s in range(n) if s != e.to)
    # a seat learns its secrets by private events (draws) or in its own view (Kuhn poker's card)
    assert private or own_secrets, "a game with secrets shows them to their seat"


def test_CIT_10_logs_withhold_moves_that_name_hidden_cards(server):  # noqa: D103
    """Another seat's log entry must not name cards it cannot see: kept/returned cards
    (CIT-36), the Magician's redraw and the Laboratory discard (CIT-10), secret picks."""
    from clients.sdk import Client
    from tests.api.test_api_games import play_random_over_rpc

    client = Client(server.target, "citadels")
    # reveal_log_after_end: by default the secrets stay withheld after the end too (CIT-11, issue 24)
    game_id, tokens = client.create(4, options={"reveal_log_after_end": True}, seed=21)
    rng = random.Random(2)
    seats = [client.seat(game_id, s, t) for s, t in enumerate(tokens)]
    status = seats[0].status()
    for _ in range(80):  # a few rounds in, not over
        if status.over:
            break
        actor = next(s for s in status.seats_to_act if status.acts(s))
        seats[actor].move(rng.choice(seats[actor].legal()), expected_version=status.version)
        status = seats[actor].last
    checked_at = status.version
    log = seats[1].log()
    kinds = {e.move.WhichOneof("move") for e in log.entries if not e.withheld}
    hidden_kinds = {"pick_character", "discard_character", "keep_cards", "magic_redraw", "laboratory"}
    shown_to_1 = {e.move.WhichOneof("move") for e in log.entries if not e.withheld and e.seat != 1}
    assert not shown_to_1 & hidden_kinds, shown_to_1 & hidden_kinds
    assert any(e.withheld for e in log.entries)
    assert kinds  # public moves (gold, builds...) are still shown
    if not status.over:
        play_random_over_rpc(client, game_id, tokens, rng)
    full = seats[1].log().entries
    assert not any(e.withheld for e in full), "with reveal_log_after_end everything is shown to the seats at the end"
    secret = [e for e in full[:checked_at] if e.seat != 1 and e.move.WhichOneof("move") in hidden_kinds]
    assert {e.move.WhichOneof("move") for e in secret} >= {"pick_character", "keep_cards"}, "the check had teeth"
