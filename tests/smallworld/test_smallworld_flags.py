"""Engine-decision flags (RULES.md section 18): every alternative value plays legal games, and the
behaviour each flag switches is checked on a scripted position."""
from __future__ import annotations

import pytest

from engines.smallworld import GAME
from engines.smallworld import data as D
from engines.smallworld.conquest import conquest_cost, target_error
from engines.smallworld.flow import defenders_in_order
from engines.smallworld.moves import (
    Abandon,
    BerserkRoll,
    Conquer,
    Convert,
    Decline,
    Deploy,
    EndConquest,
    FinalAttempt,
    PickCombo,
    Summon,
)
from engines.smallworld.resolution import well_conversion

from .sw_helpers import conquest_turn, fresh, give, invariants, kinds, lost_tribe, play, random_game, start_turn

ALTERNATIVES = [
    ("public_coins", True), ("combo_row_size", 3), ("map5p_border_13_19", True), ("map5p_region28_terrain", "farmland"),
    ("first_player", "1"), ("seafaring_enters_by_sea", False), ("flying_ignores_entry", False),
    ("underworld_cavern_entry", True), ("own_decline_token_adds_cost", False), ("commit_exact_cost", False),
    ("final_die_requires_shortfall", False), ("abandon_before_conquest_only", False),
    ("defender_redeploy_order", "from_first"), ("decline_ghouls_full_phase", False),
    ("decline_turn_blocks_ghouls", False), ("berserk_roll_first", False), ("dragon_ignores_markers", False),
    ("halfling_holes_reusable", True), ("amazons_removal_may_abandon", False), ("sorcerer_needs_hand_token", True),
    ("conversion_counts_as_conquest", False), ("immunity_vs_own_races", False), ("sorcerer_range", "borders"),
    ("wiped_race_may_pick", True), ("lair_on_conquest", False), ("tritons_water_discount", True),
    ("necromancer_seat", "0"), ("necro_rejected_return", False), ("necro_multi_purchase", False),
    ("necro_price_plus_one", True), ("necro_win_check", "immediate"), ("necro_island_redeploy", False),
    ("necro_lake_conquerable", True), ("necro_powers_active", False), ("necro_summon_optional", True),
    ("elves_decline_to_well", False), ("sorcerer_victim_to_well", False), ("well_removal_order", "fifo"),
    ("necro_ghosts_removed", 1), ("necro_reserve_public", False), ("necro_tiebreak_island", True),
    ("diplomat_may_name_necromancer", True), ("elves_decline_all_to_well", False),
]


@pytest.mark.parametrize("flag,value", ALTERNATIVES, ids=[a for a, _ in ALTERNATIVES])
def test_alternative_values_play_legal_games(flag, value):
    necro = flag.startswith("necro") or flag in ("elves_decline_to_well", "elves_decline_all_to_well",
                                                 "sorcerer_victim_to_well", "well_removal_order",
                                                 "diplomat_may_name_necromancer")
    seats = 6 if flag.startswith("map5p") and necro else 5 if flag.startswith("map5p") else 4
    opts = {flag: value, "necromancer": necro} if necro else {flag: value}
    for seed in range(6):
        def check(st, seat, move, ev):
            assert not invariants(st), (flag, invariants(st))
        st, _ = random_game(seats, opts, seed, check if seed < 2 else None)
        assert GAME.is_over(st) and st.options[flag] == value


def test_ED_11_final_roll_without_shortfall():
    st = fresh(2, final_die_requires_shortfall=False)
    k = give(st, 0, "ratmen", hand=3, regions={4: 1})
    conquest_turn(st, 0, k)
    assert FinalAttempt(9) in GAME.legal_moves(st, 0)  # cost 2 <= hand 3


def test_ED_12_abandon_after_conquest():
    st = fresh(2, abandon_before_conquest_only=False)
    k = give(st, 0, "ratmen", hand=5, regions={4: 1, 9: 1})
    conquest_turn(st, 0, k)
    play(st, 0, Conquer(10))
    assert Abandon(9) in GAME.legal_moves(st, 0)


def test_ED_9_own_decline_token_free():
    st = fresh(2, own_decline_token_adds_cost=False)
    give(st, 0, "humans", regions={9: 1}, decline=True)
    k = give(st, 0, "ratmen", hand=5, regions={4: 1})
    assert conquest_cost(st, k, 9) == 2


def test_ED_16_berserk_with_final_attempt():
    st = fresh(2, berserk_roll_first=False)
    k = give(st, 0, "ratmen", "berserk", hand=1, regions={4: 1})
    conquest_turn(st, 0, k)
    moves = GAME.legal_moves(st, 0)
    assert BerserkRoll() in moves and FinalAttempt(9) in moves


def test_ED_20_ED_21_sorcerer_flags():
    st = fresh(3, sorcerer_needs_hand_token=True, conversion_counts_as_conquest=False)
    s = give(st, 0, "sorcerers", "pillaging", regions={9: 1})
    give(st, 1, "ratmen", regions={10: 1})
    conquest_turn(st, 0, s)
    assert Convert(10) not in GAME.legal_moves(st, 0)
    st.hand[s], st.supply[s] = 1, st.supply[s] - 1
    play(st, 0, Convert(10))
    assert st.nonempty_conquests[s] == 0 and 1 not in st.attacked_seats


def test_ED_22_immunity_vs_own_races_off():
    st = fresh(2, immunity_vs_own_races=False)
    g = give(st, 0, "ghouls", hand=5, regions={4: 1}, decline=True)
    give(st, 0, "ratmen", "heroic", regions={9: 1})
    st.hero[9] = 1
    assert target_error(st, g, 9, [4]) is None
    st.options = dict(st.options, immunity_vs_own_races=True)
    assert target_error(st, g, 9, [4])[0] == "SW-172"


def test_ED_25_wiped_race_may_pick():
    st = fresh(2, wiped_race_may_pick=True)
    k = give(st, 0, "ratmen")
    start_turn(st, 0)
    assert PickCombo(0) in GAME.legal_moves(st, 0)
    play(st, 0, PickCombo(0))
    assert st.owner[k] == -1 and st.active_race[0] != k


def test_ED_26_lairs_at_redeployment():
    st = fresh(2, lair_on_conquest=False)
    t = give(st, 0, "trolls", hand=5, regions={4: 1})
    conquest_turn(st, 0, t)
    play(st, 0, Conquer(9))
    assert not st.troll_lair[9]
    play(st, 0, EndConquest())
    play(st, 0, Deploy(9, st.hand[t]))
    assert st.troll_lair[9] and st.troll_lair[4]


def test_ED_27_tritons_water_discount():
    st = fresh(2, tritons_water_discount=True)
    t = give(st, 0, "tritons", "seafaring", hand=5, regions={1: 1})
    assert conquest_cost(st, t, 0) == 1


def test_ED_15_ghouls_act_on_decline_turn():
    st = fresh(2, decline_turn_blocks_ghouls=False)
    g = give(st, 0, "ghouls", regions={4: 3}, decline=True)
    give(st, 0, "humans", regions={1: 1})
    start_turn(st, 0)
    play(st, 0, Decline())
    assert st.phase == "conquest" and st.force == g


def test_ED_37_optional_summoning():
    st = fresh(4, necromancer=True, necro_summon_optional=True)
    st.necromancer_powers = [st.power_reserve.pop(0)]
    st.occupant[9], st.tokens[9] = D.GHOSTS, 1
    st.ghost_reserve -= 1
    st.coins[3] = 0
    start_turn(st, 3)
    play(st, 3, EndConquest())
    while st.phase == "redeploy":
        play(st, 3, GAME.legal_moves(st, 3)[0])
    assert st.phase == "summon"
    ev = play(st, 3, Summon())
    assert kinds(ev, "souls_summoned")


def test_ED_40_fifo_well():
    st = fresh(4, necromancer=True, well_removal_order="fifo")
    st.well_tokens = [D.RATMEN, D.HUMANS, D.ORCS, D.ELVES, D.DWARVES]
    for k in st.well_tokens:
        st.supply[k] -= 1
    ev = []
    well_conversion(st, ev)
    assert st.well_tokens == [D.DWARVES]


def test_ED_13_defenders_from_first_player():
    st = fresh(3, defender_redeploy_order="from_first", first_player="0")
    st.current_seat = 2
    for s, race in ((0, "ratmen"), (1, "humans")):
        k = give(st, s, race, regions={1 + 3 * s: 1, 2 + 3 * s: 1})
        st.kept[k], st.supply[k] = 1, st.supply[k] - 1
    assert defenders_in_order(st) == [0, 1]
    st.options = dict(st.options, defender_redeploy_order="from_current")
    st.current_seat = 1
    assert defenders_in_order(st) == [1, 0]
    lost_tribe(st, 20)
