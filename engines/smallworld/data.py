"""Static game data: maps, races and powers, loaded once from engines/smallworld/data/.

Races are indexed 0..13 in races_powers.json order; two pseudo-races follow them:
LOST_TRIBE (SW-13) and GHOSTS (NEC-1). Powers are indexed 0..19.
"""
from __future__ import annotations

import json
import os
from collections.abc import Sequence
from functools import cache

_DIR = os.path.join(os.path.dirname(__file__), "data")


def _load(name):
    with open(os.path.join(_DIR, name), encoding="utf-8") as f:
        return json.load(f)


RP = _load("races_powers.json")
MAPS = _load("maps.json")

RACE_KEYS = tuple(r["key"] for r in RP["races"])
POWER_KEYS = tuple(p["key"] for p in RP["powers"])
RACE = {k: i for i, k in enumerate(RACE_KEYS)}
POWER = {k: i for i, k in enumerate(POWER_KEYS)}
N_RACES: int = len(RACE_KEYS)  # 14 banners (SW-11)
N_POWERS: int = len(POWER_KEYS)  # 20 badges (SW-12)
LOST_TRIBE = N_RACES  # 14
GHOSTS: int = N_RACES + 1  # 15
N_KINDS = N_RACES + 2
NO_RACE = -1
SOUL = -1  # generic soul token in the Soul Well (NEC-27)

BANNER = tuple(r["banner_tokens"] for r in RP["races"])
EXTRA = tuple(r["conquest_only_tokens"] for r in RP["races"])
BOX: tuple[int, ...] = (tuple(r["box_max"] for r in RP["races"])
                        + (RP["lost_tribes"]["box_max"], RP["necromancer_island"]["ghosts"]))
BADGE = tuple(p["badge_tokens"] for p in RP["powers"])
NECRO_DRAWABLE = tuple(p["necromancer_draw"] for p in RP["powers"])

MARKERS = RP["markers"]
DIE = tuple(RP["reinforcement_die"]["faces"])  # SW-16
START_COINS = RP["starting_coins"]["amount"]  # SW-25
GHOST_TOTAL = RP["necromancer_island"]["ghosts"]  # 14
NECRO_POWERS_DRAWN = RP["necromancer_island"]["powers_drawn"]  # 6

# races
(AMAZONS, DWARVES, ELVES, GHOULS, GIANTS, HALFLINGS, HUMANS, ORCS, RATMEN, SKELETONS, SORCERERS, TRITONS, TROLLS,
 WIZARDS) = (
    RACE[k] for k in ("amazons", "dwarves", "elves", "ghouls", "giants", "halflings", "humans", "orcs", "ratmen",
                      "skeletons", "sorcerers", "tritons", "trolls", "wizards"))
# powers
(ALCHEMIST, BERSERK, BIVOUACKING, COMMANDO, DIPLOMAT, DRAGON_MASTER, FLYING, FOREST, FORTIFIED, HEROIC, HILL,
 MERCHANT, MOUNTED, PILLAGING, SEAFARING, SPIRIT, STOUT, SWAMP, UNDERWORLD, WEALTHY) = (
    POWER[k] for k in ("alchemist", "berserk", "bivouacking", "commando", "diplomat", "dragon_master", "flying",
                       "forest", "fortified", "heroic", "hill", "merchant", "mounted", "pillaging", "seafaring",
                       "spirit", "stout", "swamp", "underworld", "wealthy"))


KIND_KEYS = ("",) + RACE_KEYS + ("lost_tribe", "ghosts")  # index = kind + 1
# Wire name of a token kind: race key, "lost_tribe", "ghosts", or "" for none (NO_RACE) / a generic soul (SOUL)
kind_key = dict(enumerate(KIND_KEYS, start=-1)).__getitem__


KIND_OF_KEY = {"": NO_RACE, **RACE, "lost_tribe": LOST_TRIBE, "ghosts": GHOSTS}
POWER_OF_KEY = {"": -1, **POWER}


def kind_from_key(key: str) -> int:
    return KIND_OF_KEY[key]


power_key = dict(enumerate(("",) + POWER_KEYS, start=-1)).__getitem__  # wire name of a power, "" for none


def power_from_key(key: str) -> int:
    return POWER_OF_KEY[key]


class Board:
    """One map as flat tuples indexed by region id (immutable, shared by states)."""

    def __init__(self, key: str, raw: dict, border_13_19: bool, region28: str):
        regions = [dict(r, adjacent=list(r["adjacent"])) for r in raw["regions"]]
        if key == "5p":
            if border_13_19:  # SW-10 / ED-3
                regions[13]["adjacent"].append(19)
                regions[19]["adjacent"].append(13)
            regions[28]["terrain"] = region28  # ED-4
        self.key = key
        self.n: int = len(regions)
        self.rounds: int = raw["game_turns"]
        self.terrain: tuple[str, ...] = tuple(r["terrain"] for r in regions)
        self.symbols: tuple[frozenset[str], ...] = tuple(frozenset(r["symbols"]) for r in regions)
        self.lost_tribe: tuple[bool, ...] = tuple(bool(r["lost_tribe"]) for r in regions)
        self.mountain: tuple[bool, ...] = tuple(bool(r["mountain"]) for r in regions)
        self.edge: tuple[bool, ...] = tuple(bool(r["board_edge"]) for r in regions)
        self.adj: tuple[frozenset[int], ...] = tuple(frozenset(r["adjacent"]) for r in regions)
        self.seas: frozenset[int] = frozenset(raw["seas"])
        self.lake: int = raw["lake"]
        self.water: tuple[bool, ...] = tuple(t in ("sea", "lake") for t in self.terrain)
        self.entry: frozenset[int] = frozenset(raw["first_conquest_regions"])
        self.lake_adjacent: frozenset[int] = frozenset(raw["lake_adjacent_regions"])
        self.coastal: frozenset[int] = frozenset(raw["coastal_regions"])
        self.caverns: frozenset[int] = frozenset(i for i in range(self.n) if "cavern" in self.symbols[i])
        self.land: tuple[int, ...] = tuple(i for i in range(self.n) if not self.water[i])
        self.borders = sum(len(a) for a in self.adj) // 2
        # the same geometry as flags and sets indexed by region id, for the move generator
        self.neighbours: tuple[tuple[int, ...], ...] = tuple(tuple(sorted(a)) for a in self.adj)
        self.land_set: frozenset[int] = frozenset(self.land)
        self.every: frozenset[int] = frozenset(range(self.n))
        self.is_cavern: tuple[bool, ...] = tuple(i in self.caverns for i in range(self.n))
        self.is_coastal: tuple[bool, ...] = tuple(i in self.coastal for i in range(self.n))
        self.mounted_terrain: tuple[bool, ...] = tuple(t in ("hill", "farmland") for t in self.terrain)  # SW-162
        self.water_set: frozenset[int] = frozenset(i for i in range(self.n) if self.water[i])
        self._fixed_costs: dict[tuple[tuple[int, ...], int], tuple[int, ...]] = {}

    def fixed_costs(self, ps: Sequence[int], tritons: int) -> tuple[int, ...]:
        """Per region, the part of a conquest's cost that only the map and the discounts of powers
        `ps` (and Tritons: 1 coastal, 2 also on water) decide: SW-64 2, +1 on a mountain; SW-68
        water 2; SW-153 Commando, SW-162 Mounted, SW-168 Underworld, SW-141 / ED-27 Tritons -1."""
        key = (tuple(ps), tritons)
        found = self._fixed_costs.get(key)
        if found is None:
            commando, mounted, underworld = COMMANDO in ps, MOUNTED in ps, UNDERWORLD in ps
            found = self._fixed_costs[key] = tuple(
                (2 if self.water[r] else 2 + self.mountain[r]) - commando - (mounted and self.mounted_terrain[r])
                - (underworld and self.is_cavern[r])
                - (tritons > 0 and (self.is_coastal[r] or (self.water[r] and tritons > 1)))
                for r in range(self.n))
        return found


@cache
def board(key: str, border_13_19: bool = False, region28: str = "hill") -> Board:
    return Board(key, MAPS["maps"][key], border_13_19, region28)


class Boards(dict):
    """Board by a state's map_key (key, ED-3 border, ED-4 terrain): one dict look-up once built."""

    def __missing__(self, map_key: tuple) -> Board:
        found = self[map_key] = board(*map_key)
        return found


BOARDS = Boards()


MAX_REGIONS: int = max(len(m["regions"]) for m in MAPS["maps"].values())
