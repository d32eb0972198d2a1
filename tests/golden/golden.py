"""Golden games: seeded random games digested canonically, so any change in behaviour shows.

A run is (game, seats, options, seed): the engine is created with `seed`, and the seat and move
at every step are chosen by `random.Random(seed)` from `seats_to_act` and `legal_moves` in the
order the engine lists them. After every move the digest chain absorbs, canonically encoded,
the move, its events, every seat's and the spectator's view, the seats to act with their legal
moves, and the engine's RNG state. Views, events and moves are digested as the game's codec puts
them on the wire (deterministic protobuf bytes), so the fixtures pin what a player sees while an
engine is free to reshape its states and plain values; only the contract is read, never a
state's fields. The fixture keeps the chain (one short digest per move, so a diff names the first
move that differs) and the final spectator view, last events and outcome in full (each seat's final view as a digest).
"""
from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import random
from typing import Any

from google.protobuf import json_format

from engines import registry
from gameengine import codecs

DIGEST_CHARS = 12  # per-move digest length in the fixture; the chain itself uses full sha256
MAX_MOVES = 20_000


def plain(value: Any) -> Any:
    """A JSON value for `value` that depends only on its content (never on hash() or set order)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, enum.Enum):
        return plain(value.value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a move (NamedTuple)
        return {"kind": type(value).__name__, **{f: plain(getattr(value, f)) for f in value._fields}}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((plain(v) for v in value), key=encode)
    if isinstance(value, dict) or hasattr(value, "items"):
        return {encode(k) if not isinstance(k, str) else k: plain(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    raise TypeError(f"no canonical form for {type(value).__name__}")


def encode(value: Any) -> str:
    return json.dumps(plain(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def rng_digest(state: Any) -> str:
    rng = getattr(state, "rng", None)
    return "" if rng is None else hashlib.sha256(encode(rng.getstate()).encode()).hexdigest()


def wire(message: Any) -> str:
    return message.SerializeToString(deterministic=True).hex()


def wire_events(codec: Any, events: list) -> list:
    return [[e.to, wire(codec.event_to_proto(e))] for e in events]


def snapshot(engine: Any, codec: Any, state: Any, seats: int) -> dict:
    """Everything the contract shows about `state`, as it goes on the wire."""
    to_act = engine.seats_to_act(state)
    return {
        "views": [wire(codec.view_to_proto(engine.view(state, s))) for s in [None, *range(seats)]],
        "to_act": to_act,
        "to_move": engine.to_move(state),
        "legal": {str(s): [wire(codec.move_to_proto(m)) for m in engine.legal_moves(state, s)] for s in to_act},
        "over": engine.is_over(state),
        "rng": rng_digest(state),
    }


def play(game_id: str, seats: int, options: dict, seed: int) -> dict:
    """One golden run, as the fixture stores it."""
    engine, codec = registry.game(game_id), codecs.codec(game_id)
    state = engine.new_state(seats, dict(options), seed)
    chooser = random.Random(seed)
    link = hashlib.sha256(encode([game_id, seats, options, seed, snapshot(engine, codec, state, seats)]).encode())
    chain, events = [], []
    for _ in range(MAX_MOVES):
        if engine.is_over(state):
            break
        seat = chooser.choice(engine.seats_to_act(state))
        move = chooser.choice(engine.legal_moves(state, seat))
        events = engine.apply(state, seat, move)
        step = encode([seat, wire(codec.move_to_proto(move)), wire_events(codec, events),
                       snapshot(engine, codec, state, seats)])
        link = hashlib.sha256(link.digest() + step.encode())
        chain.append(link.hexdigest()[:DIGEST_CHARS])
    else:
        raise RuntimeError(f"{game_id}: no end after {MAX_MOVES} moves")
    final = snapshot(engine, codec, state, seats)
    return {
        "game": game_id, "seats": seats, "options": options, "seed": seed,
        "moves": len(chain), "digest": link.hexdigest(), "chain": chain,
        "final_view": readable(codec.view_to_proto(engine.view(state, None))), "final_rng": final["rng"],
        "final_seat_views": [hashlib.sha256(v.encode()).hexdigest()[:DIGEST_CHARS] for v in final["views"][1:]],
        "last_events": [[e.to, readable(codec.event_to_proto(e))] for e in events],
        "outcome": plain(engine.outcome(state)),
    }


def readable(message: Any) -> dict:
    return json_format.MessageToDict(message, preserving_proto_field_name=True)


# Non-default options worth pinning, one set per game (besides the defaults).
VARIANTS = {
    "pompeii": {"edition": "2013", "dual_vent_tiles": True, "building_10_split": True,
                "relatives_one_per_building": False, "wild_card_moves_existing": True,
                "omen_targets": "any", "lava_on_foreign_vent": True, "vents_block_movement": True,
                "wild_card_neutral_buildings": True, "pass_anytime": True},
    "eruption": {"dice_tie_goes_to": "lava", "zone_thresholds": "board", "unlimited_walls": True,
                 "eruption_award_timing": "own_damage_step", "eruption_tiles_per_turn": "one",
                 "cards_act_on_eruption_tiles": True, "eruption_tile_draws_cards": True,
                 "new_flows_per_edge": True},
    "citadels": {"city_complete_size": 7, "murdered_king_gets_crown": True, "warlord_timing": "any_time",
                 "gold_supply": 30, "tiebreak": "gold", "destroyed_district_to": "discard",
                 "action_order": "action_first", "king_may_be_face_up": True, "allow_void_targets": True},
    "smallworld": {"public_coins": True, "first_player": "random", "seafaring_enters_by_sea": False,
                   "commit_exact_cost": False, "defender_redeploy_order": "from_first",
                   "sorcerer_range": "borders", "well_removal_order": "fifo"},
}
SEEDS = (1, 2)


def runs() -> list[tuple[str, int, dict, int]]:
    """Every golden (game, seats, options, seed): each seat count under the defaults and under
    each option-dependent seat range (Small World's Necromancer), plus one variant per game."""
    out = []
    for game_id in registry.GAME_IDS:
        for rng in registry.seat_ranges(game_id):
            for seats in range(rng.min_seats, rng.max_seats + 1):
                out += [(game_id, seats, dict(rng.options), seed) for seed in SEEDS]
        if game_id in VARIANTS:
            out.append((game_id, registry.seat_ranges(game_id)[0].max_seats, dict(VARIANTS[game_id]), 3))
    return out


def fixture_name(game_id: str, seats: int, options: dict, seed: int) -> str:
    tag = "default" if not options else hashlib.sha256(encode(options).encode()).hexdigest()[:8]
    return f"{game_id}-{seats}-{tag}-{seed}.json"
