"""Wire mapping of Pompeii moves and options (protos/gameengine/codecs/pompeii.py)."""
import pytest

from engines.pompeii import (
    GAME,
    DeclareEruption,
    MovePerson,
    OmenTarget,
    Pass,
    PlaceLava,
    PlaceRelative,
    PlayCard,
    StopRelatives,
)
from gameengine.codecs.base import MalformedMove
from gameengine.codecs.pompeii import CODEC
from gameengine.v1 import pompeii_pb2

MOVES = [PlayCard(3), PlayCard(3, (2, 3)), PlayCard(7, (3, 7), (1, 0)), PlaceRelative((5, 4)), StopRelatives(),
         OmenTarget((2, 6), 2), DeclareEruption(), PlaceLava((0, 7)), PlaceLava((6, 3), "mask"),
         MovePerson((2, 6), (0, 5)), MovePerson((0, 5), None), Pass()]


@pytest.mark.parametrize("move", MOVES)
def test_move_round_trip(move):
    msg = CODEC.move_to_proto(move)
    assert CODEC.move_from_proto(pompeii_pb2.PompeiiMove.FromString(msg.SerializeToString())) == move


def test_moves_of_different_kinds_differ():
    assert StopRelatives() != Pass() != DeclareEruption()
    assert len({StopRelatives(), Pass(), DeclareEruption()}) == 3


@pytest.mark.parametrize("msg", [
    pompeii_pb2.PompeiiMove(),
    pompeii_pb2.PompeiiMove(place_relative=pompeii_pb2.PompeiiPlaceRelative()),
    pompeii_pb2.PompeiiMove(move_person=pompeii_pb2.PompeiiMovePerson(origin=pompeii_pb2.PompeiiSquare(row=1))),
    pompeii_pb2.PompeiiMove(move_person=pompeii_pb2.PompeiiMovePerson(
        origin=pompeii_pb2.PompeiiSquare(row=1), target=pompeii_pb2.PompeiiSquare(row=2), leave=True)),
    pompeii_pb2.PompeiiMove(play_card=pompeii_pb2.PompeiiPlayCard()),
    pompeii_pb2.PompeiiMove(omen_target=pompeii_pb2.PompeiiOmenTarget(seat=1)),
    pompeii_pb2.PompeiiMove(place_lava=pompeii_pb2.PompeiiPlaceLava(symbol="coin")),
])
def test_malformed_moves(msg):
    with pytest.raises(MalformedMove):
        CODEC.move_from_proto(msg)


def test_options_round_trip():
    opts = {"edition": "2013", "dual_vent_tiles": True, "omen_targets": "any", "vents_block_movement": False}
    msg = CODEC.options_to_proto(opts)
    assert CODEC.options_from_proto(msg) == opts
    assert CODEC.options_from_proto(pompeii_pb2.PompeiiOptions()) == {}
    full = GAME.default_options()
    assert CODEC.options_from_proto(CODEC.options_to_proto(full)) == full
    GAME.new_state(2, CODEC.options_from_proto(msg), 0)
