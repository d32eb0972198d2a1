"""Issue 20 item 5: the engine contract (engines/core.py `Game`), checked the same way for every
game in the registry and every seat range its spec declares. Game-specific properties (piece
conservation, rule invariants, perturbations of known hidden fields) stay in tests/<game>/.

Runtime is bounded by GE_CONFORMANCE_GAMES random games per (game, seats, options).
"""
from __future__ import annotations

import os
import pickle
import random
import subprocess
import sys

import pytest

from engines import registry
from engines.core import IllegalMove, InvalidOptions, Outcome, replay
from gameengine.codecs import codec

GAMES_PER_CONFIG = int(os.environ.get("GE_CONFORMANCE_GAMES", "3"))
MAX_MOVES = 20_000
CONFIGS = [(g, seats, dict(r.options)) for g in registry.GAME_IDS for r in registry.seat_ranges(g)
           for seats in sorted({r.min_seats, r.max_seats})]
IDS = [f"{g}-{seats}" + "".join(f"-{k}" for k in opts) for g, seats, opts in CONFIGS]
# One config per game for the costly per-step checks: the largest table of the base game.
DEEP = [(g, registry.seat_ranges(g)[0].max_seats, {}) for g in registry.GAME_IDS]
DEEP_IDS = [f"{g}-{seats}" for g, seats, _ in DEEP]


def random_options(game_id, seats, base, rng):
    """Options drawn from the spec's allowed values (a draw the engine refuses as a combination,
    e.g. dual vent tiles without the 2013 edition, is drawn again)."""
    spec, engine = registry.spec(game_id), registry.game(game_id)
    for _ in range(50):
        opts = dict(base)
        for o in spec.options:
            if isinstance(o.allowed, tuple) and o.name not in base and rng.random() < 0.3:
                opts[o.name] = rng.choice(o.allowed)
        try:
            engine.new_state(seats, opts, 0)
            return opts
        except InvalidOptions:
            continue
    return dict(base)


def play(engine, state, rng, each=None):
    """Random legal moves to the end; `each(state, seat, legal)` runs before every move."""
    log = []
    for _ in range(MAX_MOVES):
        if engine.is_over(state):
            return log
        seat = rng.choice(engine.seats_to_act(state))
        legal = engine.legal_moves(state, seat)
        if each:
            each(state, seat, legal)
        move = rng.choice(legal)
        engine.apply(state, seat, move)
        log.append((seat, move))
    raise AssertionError(f"no end after {MAX_MOVES} moves")


@pytest.mark.parametrize("game_id,seats,options", CONFIGS, ids=IDS)
def test_random_games_end_with_a_well_formed_outcome_and_replay_exactly(game_id, seats, options):
    engine = registry.game(game_id)
    for seed in range(GAMES_PER_CONFIG):
        options = random_options(game_id, seats, options, random.Random(seed)) if seed else options
        state = engine.new_state(seats, options, seed)

        def each(st, seat, legal):
            acting = engine.seats_to_act(st)
            assert seat in acting and engine.to_move(st) is not None  # whose turn; others may act out of it
            assert legal and len(set(legal)) == len(legal)

        log = play(engine, state, random.Random(seed), each)
        assert engine.is_over(state) and engine.seats_to_act(state) == [] and engine.to_move(state) is None
        assert all(engine.legal_moves(state, s) == [] for s in range(seats))
        out = engine.outcome(state)
        assert isinstance(out, Outcome) and len(out.scores) == len(out.ranks) == seats
        assert min(out.ranks) == 1 and out.winners == tuple(s for s in range(seats) if out.ranks[s] == 1)
        # replay: (options, seed, moves) rebuilds the very same state
        assert pickle.dumps(replay(engine, seats, options, seed, log)) == pickle.dumps(state)
        with pytest.raises(IllegalMove):  # nothing is legal after the end
            engine.apply(state, log[-1][0], log[-1][1])


@pytest.mark.parametrize("game_id,seats,options", CONFIGS, ids=IDS)
def test_refused_moves_leave_the_state_unchanged(game_id, seats, options):
    """Moves once legal (or legal for another seat) and not legal now are refused with a rule id
    of this game, and the refusal changes nothing."""
    engine, spec = registry.game(game_id), registry.spec(game_id)
    prefixes = tuple({o.rule.split("-")[0] + "-" for o in spec.options} | {spec.seats_rule.split("-")[0] + "-"})
    rng, pool, refused = random.Random(77), [], 0

    def each(st, seat, legal):
        nonlocal refused
        pool.extend(legal[:4])
        for s in range(seats):
            mine = set(engine.legal_moves(st, s))
            for move in rng.sample(pool, min(3, len(pool))):
                if move in mine:
                    continue
                before = pickle.dumps(st)
                with pytest.raises(IllegalMove) as e:
                    engine.apply(st, s, move)
                assert e.value.rule.startswith(prefixes), e.value.rule
                assert pickle.dumps(st) == before
                refused += 1

    for seed in range(77, 277):  # a short game (Kuhn poker) needs several for enough refusals
        play(engine, engine.new_state(seats, options, seed), rng, each)
        if refused > 50:
            break
    assert refused > 50


@pytest.mark.parametrize("game_id,seats,options", DEEP, ids=DEEP_IDS)
def test_views_and_legal_moves_survive_redeterminization_and_codec(game_id, seats, options):
    """For every viewer: determinize(view) shows the same view and the same legal moves, and is
    playable; views, moves, events and options survive the codec's proto round trip."""
    engine, wire = registry.game(game_id), codec(game_id)
    state = engine.new_state(seats, options, 5)
    rng, step = random.Random(5), 0
    assert wire.options_from_proto(wire.options_to_proto(registry.spec(game_id).defaults())) \
        == registry.spec(game_id).defaults()
    viewers = [None, *range(seats)]
    while not engine.is_over(state):
        seat = rng.choice(engine.seats_to_act(state))
        legal = engine.legal_moves(state, seat)
        assert all(wire.move_from_proto(wire.move_to_proto(m)) == m for m in legal)
        if step % 4 == 0:
            for s in viewers:
                view = engine.view(state, s)
                assert wire.view_from_proto(wire.view_to_proto(view)) == view
                if s is None:
                    continue  # the contract determinizes for a seat (MCTS), not for a spectator
                det = engine.determinize(view, s, random.Random(step))
                assert engine.view(det, s) == view
                assert engine.view(det, None) == engine.view(state, None)
                if s in engine.seats_to_act(state):
                    moves = engine.legal_moves(state, s)
                    assert engine.legal_moves(det, s) == moves
                    engine.apply(det, s, rng.choice(moves))  # the determinized state plays on
        for e in engine.apply(state, seat, rng.choice(legal)):
            kind, data = wire.event_from_proto(wire.event_to_proto(e))
            assert kind == e.kind and set(data) >= set(e.data)
        step += 1


@pytest.mark.parametrize("game_id,seats,options", DEEP, ids=DEEP_IDS)
def test_no_seat_sees_what_its_determinizations_resample(game_id, seats, options):
    """Hidden information stays out of a seat's view: events addressed to a seat reach only it, and
    where a determinization for seat s changes another seat's view (what s cannot know), the real
    view of s is unchanged by it — and that happens, so the hidden parts really are hidden."""
    engine = registry.game(game_id)
    state = engine.new_state(seats, options, 9)
    rng, step, resampled = random.Random(9), 0, 0
    while not engine.is_over(state):
        seat = rng.choice(engine.seats_to_act(state))
        if step % 5 == 0:
            for s in range(seats):
                det = engine.determinize(engine.view(state, s), s, random.Random(step))
                assert engine.view(det, s) == engine.view(state, s)
                resampled += sum(engine.view(det, o) != engine.view(state, o) for o in range(seats) if o != s)
        for e in engine.apply(state, seat, rng.choice(engine.legal_moves(state, seat))):
            assert e.to is None or 0 <= e.to < seats
            seen_by = [o for o in [None, *range(seats)] if e.visible_to(o)]
            assert seen_by == ([None, *range(seats)] if e.to is None else [e.to])
        step += 1
    assert resampled > 0


@pytest.mark.parametrize("game_id,seats,options", DEEP, ids=DEEP_IDS)
def test_a_clone_is_independent_of_its_original(game_id, seats, options):
    engine = registry.game(game_id)
    state, rng = engine.new_state(seats, options, 3), random.Random(3)
    while not engine.is_over(state):
        before = pickle.dumps(state)
        copy = engine.clone(state)
        assert all(engine.view(copy, s) == engine.view(state, s) for s in [None, *range(seats)])
        play(engine, copy, random.Random(rng.random()))
        assert pickle.dumps(state) == before
        for _ in range(25):
            if not engine.is_over(state):
                seat = rng.choice(engine.seats_to_act(state))
                engine.apply(state, seat, rng.choice(engine.legal_moves(state, seat)))


STABLE = """
import sys
from tests.golden.golden import play
print(play(sys.argv[1], int(sys.argv[2]), {}, 4)["digest"])
"""


@pytest.mark.parametrize("game_id", registry.GAME_IDS)
def test_seeded_games_do_not_depend_on_the_string_hash_seed(game_id):
    """Stable seeds: the same (options, seed, moves) give the same game under any PYTHONHASHSEED
    (no hash() of strings, no set iteration order in the rules)."""
    seats = registry.seat_ranges(game_id)[0].min_seats
    digests = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run([sys.executable, "-c", STABLE, game_id, str(seats)], env=env, check=True,
                             capture_output=True, text=True, timeout=300)
        digests.add(out.stdout.strip())
    assert len(digests) == 1
