"""Issue 20 item 1: each game's `GameSpec` is the one declaration of its seats and options; the
engine, the proto options message, the codec, ListGameTypes, the rules docs and the README agree."""
from __future__ import annotations

import pathlib
import re

import pytest
from google.protobuf.descriptor import FieldDescriptor

from engines import registry
from engines.core import InvalidOptions
from gameengine.codecs import codec

ROOT = pathlib.Path(__file__).resolve().parents[2]
GAMES = registry.GAME_IDS
WIRE_TYPE = {FieldDescriptor.TYPE_BOOL: bool, FieldDescriptor.TYPE_STRING: str,
             FieldDescriptor.TYPE_INT32: int, FieldDescriptor.TYPE_UINT32: int}
# Values that are only valid beside another option (the engine's cross-checks).
NEEDS = {("pompeii", "dual_vent_tiles", True): {"edition": "2013"}}


def base_seats(spec):
    return spec.seat_ranges[0].max_seats


@pytest.mark.parametrize("game_id", GAMES)
def test_spec_options_are_the_proto_options_fields(game_id):
    spec = registry.spec(game_id)
    fields = {f.name: f for f in codec(game_id).msg("Options").DESCRIPTOR.fields}
    doc = (ROOT / spec.rules_doc).read_text(encoding="utf-8")
    assert [o.name for o in spec.options] and sorted(fields) == sorted(o.name for o in spec.options)
    for o in spec.options:
        assert WIRE_TYPE[fields[o.name].type] is o.type, o.name
        assert o.description and re.search(rf"(?<![A-Za-z0-9]){o.rule}(?![0-9])", doc), o.name  # in the game's rules


@pytest.mark.parametrize("game_id", GAMES)
def test_engine_defaults_are_the_spec_defaults(game_id):
    engine, spec = registry.game(game_id), registry.spec(game_id)
    assert engine.default_options() == spec.defaults()
    assert (engine.game_id, engine.min_seats, engine.max_seats) == (spec.game_id, spec.min_seats, spec.max_seats)
    state = engine.new_state(base_seats(spec), {}, 1)
    assert engine.view(state, None)["options"] == {**spec.defaults(), **engine.view(state, None)["options"]}


@pytest.mark.parametrize("game_id", GAMES)
def test_engine_accepts_every_allowed_value_and_refuses_others(game_id):
    engine, spec = registry.game(game_id), registry.spec(game_id)
    for o in spec.options:
        if not isinstance(o.allowed, tuple):
            continue  # a sentence: the values depend on the seat count (tested per game)
        assert o.default in o.allowed, o.name
        for value in o.allowed:
            engine.new_state(base_seats(spec), {**NEEDS.get((game_id, o.name, value), {}), o.name: value}, 1)
        bad = {bool: "yes", int: 999, str: "no-such-value"}[o.type]
        with pytest.raises(InvalidOptions):
            engine.new_state(base_seats(spec), {o.name: bad}, 1)
    with pytest.raises(InvalidOptions):
        engine.new_state(base_seats(spec), {"no_such_option": True}, 1)


@pytest.mark.parametrize("game_id", GAMES)
def test_engine_takes_exactly_the_spec_seat_ranges(game_id):
    engine, spec = registry.game(game_id), registry.spec(game_id)
    for r in spec.seat_ranges:
        for seats in (r.min_seats, r.max_seats):
            engine.new_state(seats, dict(r.options), 1)
        for seats in (r.min_seats - 1, r.max_seats + 1):
            with pytest.raises(InvalidOptions) as refused:
                engine.new_state(seats, dict(r.options), 1)
            assert refused.value.rule == spec.seats_rule or r.options  # NEC-2 for the Necromancer's range


@pytest.mark.parametrize("game_id", GAMES)
def test_private_moves_are_move_kinds_the_engine_withholds(game_id):
    engine, spec = registry.game(game_id), registry.spec(game_id)
    kinds = {k.__name__: k for k in __import__(f"engines.{game_id}", fromlist=["MOVE_KINDS"]).MOVE_KINDS}
    assert set(spec.private_moves) <= set(kinds)
    for name, kind in kinds.items():
        move = kind(*[0] * len(kind._fields))
        assert engine.move_is_private(move) == (name in spec.private_moves), name


@pytest.mark.parametrize("game_id", GAMES)
def test_spec_data_files_exist_and_docs_list_every_option(game_id):
    spec = registry.spec(game_id)
    assert sorted(p.name for p in (ROOT / "engines" / game_id / "data").iterdir() if p.suffix == ".json") \
        == sorted(spec.data_files)
    doc = (ROOT / spec.rules_doc).read_text(encoding="utf-8")
    assert [o.name for o in spec.options if o.name not in doc] == []
    assert [o.rule for o in spec.options if o.rule not in doc] == []


def test_readme_games_table_is_rendered_from_the_specs():
    assert registry.games_table() in (ROOT / "README.md").read_text(encoding="utf-8")


def test_item2_every_rpc_name_leads_to_its_handler():
    """Issue 21 item 2: a reader who greps `MakePompeiiMove` finds its handler. The README's RPC
    index (rendered from the registry) names it, and that handler serves it for every game."""
    from gameengine.codecs import RPCS, load_all, rpc_index
    from server.servicer import GameServicer

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert rpc_index() in readme
    for each in load_all().values():
        served = GameServicer(each, core=None, referee=None).handlers()  # type: ignore[arg-type]
        assert sorted(served) == sorted(m.name for m in each.service.methods)  # the template, exactly
        for role in RPCS:
            name = each.rpcs[role].name
            assert served[name].__name__ == role and f"`{name}`" in readme and f"`GameServicer.{role}`" in readme
