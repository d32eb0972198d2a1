"""The Small World game state: plain lists and ints in declared slots, picklable, with a cheap clone."""
from __future__ import annotations

import random
from typing import Any

from . import data as D

# phases: what the game waits for (the view's `phase`)
START, PICK, CONQUEST, REDEPLOY = "start", "pick", "conquest", "redeploy"  # SW-50, SW-47, SW-60, SW-95
HEROES, ALLY, STOUT, DEFEND = "heroes", "ally", "stout", "defend"  # SW-159, SW-154, SW-166, SW-82
NECRO_SETUP, PURCHASE, SUMMON = "necro_setup", "purchase", "summon"  # NEC-4, NEC-19, NEC-27
END_TURN, OVER = "end_turn", "over"  # SW-52 (never waits), SW-32
PHASE_RULE = {START: "SW-50", PICK: "SW-47", CONQUEST: "SW-60", REDEPLOY: "SW-95", HEROES: "SW-159", ALLY: "SW-154",
              STOUT: "SW-166", DEFEND: "SW-82", PURCHASE: "NEC-19", NECRO_SETUP: "NEC-4", SUMMON: "NEC-27",
              OVER: "SW-32"}

# per region (index = region id): the token kind holding it and its tokens, then the pieces on it
REGION_LISTS = ("occupant", "tokens", "troll_lair", "fortress", "encampments", "hero", "dragon", "hole")
# per token kind (index = race 0..13, LOST_TRIBE, GHOSTS); conquests count this turn's
KIND_LISTS = ("owner", "in_decline", "power_of", "hand", "kept", "set_aside", "supply", "conquests",
              "nonempty_conquests")
# per seat
SEAT_LISTS = ("coins", "active_race", "encampments_in_hand", "ally", "wealthy_due")
OTHER_LISTS = ("turn_order", "race_deck", "power_deck", "power_discard", "attacked_seats", "converted_seats",
               "defender_queue", "well_tokens", "necromancer_powers", "power_reserve", "rejected_powers")
SCALARS = ("options", "seats", "map_key", "rounds", "round", "turn_index", "first_player", "necromancer",
           "current_seat", "phase", "force", "berserk_roll", "dragon_used", "fortress_done", "set_aside_due",
           "decline_turn", "after_ghouls", "end_step", "ghost_reserve", "island", "well_ghosts", "wealthy_paid",
           "purchases", "holes_placed", "necromancer_won", "over", "heroes_placed")
LISTS = REGION_LISTS + KIND_LISTS + SEAT_LISTS + OTHER_LISTS  # the flat lists of ints


class SmallWorldState:
    """All of a game. `combo_row` holds [race, power, coins] per position; `declines[seat]` lists
    that seat's in-decline races, oldest first; `force` is the token kind conquering now (SW-133,
    NEC-9); `end_step` indexes the end-of-turn steps of flow.py; seat -1 / NO_RACE mean none."""

    __slots__ = ("rng", "declines", "combo_row") + SCALARS + REGION_LISTS + KIND_LISTS + SEAT_LISTS + OTHER_LISTS

    rng: random.Random
    declines: list[list[int]]
    combo_row: list[list[int]]
    # SCALARS
    options: dict[str, Any]
    seats: int
    map_key: tuple[str, bool, str]
    rounds: int
    round: int
    turn_index: int
    first_player: int
    necromancer: int
    current_seat: int
    phase: str
    force: int
    berserk_roll: int
    dragon_used: int
    fortress_done: int
    set_aside_due: int
    decline_turn: int
    after_ghouls: str
    end_step: int
    ghost_reserve: int
    island: int
    well_ghosts: int
    wealthy_paid: int
    purchases: int
    holes_placed: int
    necromancer_won: int
    over: int
    heroes_placed: int
    # REGION_LISTS, by region id
    occupant: list[int]
    tokens: list[int]
    troll_lair: list[int]
    fortress: list[int]
    encampments: list[int]
    hero: list[int]
    dragon: list[int]
    hole: list[int]
    # KIND_LISTS, by token kind
    owner: list[int]
    in_decline: list[int]
    power_of: list[int]
    hand: list[int]
    kept: list[int]
    set_aside: list[int]
    supply: list[int]
    conquests: list[int]
    nonempty_conquests: list[int]
    # SEAT_LISTS, by seat
    coins: list[int]
    active_race: list[int]
    encampments_in_hand: list[int]
    ally: list[int]
    wealthy_due: list[int]
    # OTHER_LISTS
    turn_order: list[int]
    race_deck: list[int]
    power_deck: list[int]
    power_discard: list[int]
    attacked_seats: list[int]
    converted_seats: list[int]
    defender_queue: list[int]
    well_tokens: list[int]
    necromancer_powers: list[int]
    power_reserve: list[int]
    rejected_powers: list[int]

    @property
    def board(self) -> D.Board:
        return D.BOARDS[self.map_key]

    def clone(self) -> SmallWorldState:
        rng = random.Random()
        rng.setstate(self.rng.getstate())
        return self.with_rng(rng)

    def with_rng(self, rng: random.Random) -> SmallWorldState:
        """A copy of this state (its lists copied, the options shared) drawing from `rng`."""
        copy = SmallWorldState.__new__(SmallWorldState)
        for name in SCALARS:
            setattr(copy, name, getattr(self, name))
        for name in LISTS:
            setattr(copy, name, getattr(self, name)[:])
        copy.combo_row = [combo[:] for combo in self.combo_row]
        copy.declines = [races[:] for races in self.declines]
        copy.rng = rng
        return copy


def blank(seats: int, options: dict, map_key: tuple, regions: int) -> SmallWorldState:
    """A state with every field at its start value (setup and determinize fill it in)."""
    state = SmallWorldState.__new__(SmallWorldState)
    state.rng = random.Random(0)
    state.options = options
    state.seats = seats
    state.map_key = map_key
    for name in REGION_LISTS:
        setattr(state, name, [0] * regions)
    state.occupant = [D.NO_RACE] * regions
    for name in KIND_LISTS:
        setattr(state, name, [0] * D.N_KINDS)
    state.owner = [-1] * D.N_KINDS
    state.power_of = [-1] * D.N_KINDS
    state.coins = [D.START_COINS] * seats
    state.active_race = [D.NO_RACE] * seats
    state.encampments_in_hand = [0] * seats
    state.ally = [-1] * seats
    state.wealthy_due = [0] * seats
    state.declines = [[] for _ in range(seats)]
    state.combo_row = []
    for name in OTHER_LISTS:
        setattr(state, name, [])
    for name, value in START_VALUES.items():
        setattr(state, name, value)
    return state


START_VALUES = {
    "rounds": 0, "round": 1, "turn_index": 0, "first_player": 0, "necromancer": -1, "current_seat": 0,
    "phase": "start", "force": D.NO_RACE, "berserk_roll": -1, "dragon_used": 0, "fortress_done": 0,
    "set_aside_due": -1, "decline_turn": 0, "after_ghouls": "", "end_step": 0, "ghost_reserve": 0, "island": 0,
    "well_ghosts": 0, "wealthy_paid": 0, "purchases": 0, "holes_placed": 0, "necromancer_won": 0, "over": 0,
    "heroes_placed": 0,
}
