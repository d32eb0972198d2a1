"""Wire tests: options, malformed moves, and a codec round trip of every move kind."""
import pytest

from engines.eruption import GAME, setup
from engines.eruption.moves import (
    BuildWall,
    DiscardForTile,
    DiscardForWall,
    DiscardSurplus,
    DrawExtraTile,
    EndCards,
    EndPlacement,
    EndTurn,
    PlaceEruption,
    PlaceTile,
    PlayAftershock,
    PlayLavaFlow,
    PlayQuake,
    PlayRain,
    PlayReinforce,
    PlayRelocate,
    PlaySinkhole,
    PlayVolcanicBomb,
    QuakeReplace,
)
from gameengine.codecs.base import MalformedMove
from gameengine.codecs.eruption import CODEC
from gameengine.v1 import eruption_pb2 as pb

EVERY_KIND = [
    PlaceEruption(2, (0, 7)), PlaceTile(0, (4, 4), 4), DrawExtraTile(), EndPlacement(),
    PlayLavaFlow(), PlayReinforce("stone", (4, 2), 0),
    PlayRelocate((((4, 2), 0, (5, 2), 0), ((3, 2), 1, (4, 2), 0))), PlayAftershock((5, 2), 1),
    PlayRain(), PlaySinkhole((4, 2)), PlayVolcanicBomb((6, 2), 5), PlayQuake(),
    QuakeReplace(39, (3, 2), 5), DiscardForWall("quake"), DiscardForTile(("quake", "rain")),
    DiscardSurplus("rain"), EndCards(), BuildWall("straw", (7, 0), 5), EndTurn(),
]


@pytest.mark.parametrize("move", EVERY_KIND, ids=lambda m: type(m).__name__)
def test_move_round_trip(move):
    msg = CODEC.move_to_proto(move)
    assert CODEC.move_from_proto(pb.EruptionMove.FromString(msg.SerializeToString())) == move


def test_malformed_moves():
    with pytest.raises(MalformedMove):
        CODEC.move_from_proto(pb.EruptionMove())
    for bad in [pb.EruptionMove(place_tile=pb.EruptionPlaceTile(tile=3, rotation=1)),
                pb.EruptionMove(build_wall=pb.EruptionBuildWall(cell=pb.EruptionCell(x=3, y=3))),
                pb.EruptionMove(discard_for_tile=pb.EruptionDiscardForTile(cards=["rain"])),
                pb.EruptionMove(play_relocate=pb.EruptionPlayRelocate()),
                pb.EruptionMove(discard_for_wall=pb.EruptionDiscardForWall())]:
        with pytest.raises(MalformedMove):
            CODEC.move_from_proto(bad)


def test_options_round_trip_and_defaults():
    assert CODEC.options_from_proto(pb.EruptionOptions()) == {}
    msg = pb.EruptionOptions(dice_tie_goes_to="lava", unlimited_walls=False, zone_thresholds="board")
    opts = CODEC.options_from_proto(msg)
    assert opts == {"dice_tie_goes_to": "lava", "unlimited_walls": False, "zone_thresholds": "board"}
    st = GAME.new_state(3, opts, 1)
    assert st.options == {**setup.default_options(), **opts}
    assert CODEC.options_to_proto(GAME.default_options()).cards_for_unoccupied_villages is True
    assert GAME.default_options() == {
        "dice_tie_goes_to": "wall", "zone_thresholds": "seed", "unlimited_walls": False,
        "exclude_rain_cards": False, "eruption_award_timing": "immediate",
        "eruption_tiles_per_turn": "all", "cards_for_unoccupied_villages": True,
        # the seed's readings (ERU-66, ERU-64(3), ERU-124), the earlier ones as options
        "cards_act_on_eruption_tiles": False, "eruption_tile_draws_cards": False, "new_flows_per_edge": False,
        "reveal_log_after_end": False,  # ERU-33: the seed stays hidden after the end
        "tiebreak": "walls"}  # ERU-155; the seed names none: "none" lets the tied share the win


def test_ERU_5_exclude_rain_cards():
    st = GAME.new_state(4, {"exclude_rain_cards": True}, 2)
    cards = st.draw_pile + [c for h in st.hands for c in h]
    assert len(cards) == 32 and "rain" not in cards
    st = GAME.new_state(4, {}, 2)
    assert len(st.draw_pile) + 12 == 36
