"""Static game data: maps, races and powers, loaded once from engines/smallworld/data/.

Races are indexed 0..13 in races_powers.json order; two pseudo-races follow them:
LOST_TRIBE (SW-13) and GHOSTS (NEC-1). Powers are indexed 0..19.
"""
from __future__ import annotations

import json
import os
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
N_RACES = len(RACE_KEYS)  # 14 banners (SW-11)
N_POWERS = len(POWER_KEYS)  # 20 badges (SW-12)
LOST_TRIBE = N_RACES  # 14
GHOSTS = N_RACES + 1  # 15
N_KINDS = N_RACES + 2
NO_RACE = -1
SOUL = -1  # generic soul token in the Soul Well (NEC-27)

BANNER = tuple(r["banner_tokens"] for r in RP["races"])
EXTRA = tuple(r["conquest_only_tokens"] for r in RP["races"])
BOX = tuple(r["box_max"] for r in RP["races"]) + (RP["lost_tribes"]["box_max"], RP["necromancer_island"]["ghosts"])
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


def kind_key(k: int) -> str:
    """Wire name of a token kind: race key, "lost_tribe", "ghosts", or "" for none / a generic soul."""
    if 0 <= k < N_RACES:
        return RACE_KEYS[k]
    if k == LOST_TRIBE:
        return "lost_tribe"
    if k == GHOSTS:
        return "ghosts"
    return ""


def kind_from_key(key: str) -> int:
    if not key:
        return NO_RACE
    if key == "lost_tribe":
        return LOST_TRIBE
    if key == "ghosts":
        return GHOSTS
    return RACE[key]


def power_key(p: int) -> str:
    return POWER_KEYS[p] if p >= 0 else ""


def power_from_key(key: str) -> int:
    return POWER[key] if key else -1


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
        self.n = len(regions)
        self.rounds = raw["game_turns"]
        self.terrain = tuple(r["terrain"] for r in regions)
        self.symbols = tuple(frozenset(r["symbols"]) for r in regions)
        self.lost_tribe = tuple(bool(r["lost_tribe"]) for r in regions)
        self.mountain = tuple(bool(r["mountain"]) for r in regions)
        self.edge = tuple(bool(r["board_edge"]) for r in regions)
        self.adj = tuple(frozenset(r["adjacent"]) for r in regions)
        self.seas = frozenset(raw["seas"])
        self.lake = raw["lake"]
        self.water = tuple(t in ("sea", "lake") for t in self.terrain)
        self.entry = frozenset(raw["first_conquest_regions"])
        self.lake_adjacent = frozenset(raw["lake_adjacent_regions"])
        self.coastal = frozenset(raw["coastal_regions"])
        self.caverns = frozenset(i for i in range(self.n) if "cavern" in self.symbols[i])
        self.land = tuple(i for i in range(self.n) if not self.water[i])
        self.borders = sum(len(a) for a in self.adj) // 2


@cache
def board(key: str, border_13_19: bool = False, region28: str = "hill") -> Board:
    return Board(key, MAPS["maps"][key], border_13_19, region28)
