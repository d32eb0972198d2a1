"""The Small World game state: plain lists and ints, picklable, with a hand-written clone."""
from __future__ import annotations

import random

from . import data as D

# phases: what the game waits for (the view's `phase`)
START, PICK, CONQUEST, REDEPLOY = "start", "pick", "conquest", "redeploy"  # SW-50, SW-47, SW-60, SW-95
HEROES, ALLY, STOUT, DEFEND = "heroes", "ally", "stout", "defend"  # SW-159, SW-154, SW-166, SW-82
NECRO_SETUP, PURCHASE, SUMMON = "necro_setup", "purchase", "summon"  # NEC-4, NEC-19, NEC-27
END_TURN, OVER = "end_turn", "over"  # SW-52 (never waits), SW-32
PHASE_RULE = {START: "SW-50", PICK: "SW-47", CONQUEST: "SW-60", REDEPLOY: "SW-95", HEROES: "SW-159", ALLY: "SW-154",
              STOUT: "SW-166", DEFEND: "SW-82", PURCHASE: "NEC-19", NECRO_SETUP: "NEC-4", SUMMON: "NEC-27",
              OVER: "SW-32"}

# per-region lists
REGION_LISTS = ("occ", "cnt", "lair", "fort", "camps", "hero", "dragon", "hole")
# per-kind lists (index = race 0..13, LOST_TRIBE, GHOSTS)
KIND_LISTS = ("owner", "in_decline", "power_of", "hand", "kept", "aside", "supply", "t_conquests", "t_nonempty")
# per-seat lists
SEAT_LISTS = ("coins", "active", "camp_hand", "peace", "wealthy_due")
OTHER_LISTS = ("order", "row", "race_deck", "power_deck", "discard", "attacked", "converted", "def_queue",
               "well", "necro_active", "necro_reserve", "rejected")
SCALARS = ("options", "nseats", "map_key", "rounds", "round", "turn_idx", "first_player", "necro", "cur", "phase",
           "force", "roll", "dragon_used", "fort_done", "aside_due", "decline_turn", "after_ghouls", "eot",
           "ghost_reserve", "island", "well_ghosts", "necro_wealthy_paid", "necro_bought", "holes_placed",
           "necro_won", "over", "heroes_placed_turn")


class SWState:
    """All of a game. `declines[s]` lists seat s's in-decline races, oldest first."""

    def __init__(self):
        self.rng = random.Random(0)
        self.declines = []

    @property
    def board(self) -> D.Board:
        key, b1319, r28 = self.map_key
        return D.board(key, b1319, r28)

    def clone(self) -> "SWState":
        c = SWState.__new__(SWState)
        d = c.__dict__
        src = self.__dict__
        for k in SCALARS:
            d[k] = src[k]
        for k in REGION_LISTS + KIND_LISTS + SEAT_LISTS + OTHER_LISTS:
            d[k] = src[k][:]
        d["row"] = [r[:] for r in self.row]
        d["declines"] = [x[:] for x in self.declines]
        r = random.Random()
        r.setstate(self.rng.getstate())
        d["rng"] = r
        return c


def blank(nseats: int, options: dict, map_key: tuple, nregions: int) -> SWState:
    st = SWState()
    st.options = options
    st.nseats = nseats
    st.map_key = map_key
    for k in REGION_LISTS:
        setattr(st, k, [0] * nregions)
    st.occ = [D.NO_RACE] * nregions
    for k in KIND_LISTS:
        setattr(st, k, [0] * D.N_KINDS)
    st.owner = [-1] * D.N_KINDS
    st.power_of = [-1] * D.N_KINDS
    st.coins = [D.START_COINS] * nseats
    st.active = [D.NO_RACE] * nseats
    st.camp_hand = [0] * nseats
    st.peace = [-1] * nseats
    st.wealthy_due = [0] * nseats
    st.declines = [[] for _ in range(nseats)]
    for k in OTHER_LISTS:
        setattr(st, k, [])
    st.rounds = 0
    st.round = 1
    st.turn_idx = 0
    st.first_player = 0
    st.necro = -1
    st.cur = 0
    st.phase = "start"
    st.force = D.NO_RACE
    st.roll = -1
    st.dragon_used = 0
    st.fort_done = 0
    st.aside_due = -1
    st.decline_turn = 0
    st.after_ghouls = ""
    st.eot = 0
    st.ghost_reserve = 0
    st.island = 0
    st.well_ghosts = 0
    st.necro_wealthy_paid = 0
    st.necro_bought = 0
    st.holes_placed = 0
    st.necro_won = 0
    st.over = 0
    st.heroes_placed_turn = 0
    return st
