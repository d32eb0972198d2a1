"""Card data (CIT-2, CIT-3, CIT-4) loaded from data/cards.json.

Each physical district card gets a unique instance id 0..65 (CIT-4), assigned
in file order, copies consecutive. Per-id attributes are flat tuples for speed.
"""
from __future__ import annotations

import json
from pathlib import Path

_DATA = json.loads((Path(__file__).parent / "data" / "cards.json").read_text())

CONSTANTS = _DATA["constants"]
DRAFT = {int(k): v for k, v in _DATA["selection"].items()}  # CIT-21: the draft per seat count
CHARACTERS = {c["rank"]: c for c in _DATA["characters"]}
CHARACTER_IDS = {rank: c["id"] for rank, c in CHARACTERS.items()}
RANKS = tuple(sorted(CHARACTERS))
INCOME_COLOUR = {rank: c["income_colour"] for rank, c in CHARACTERS.items()}

ASSASSIN, THIEF, MAGICIAN, KING, BISHOP, MERCHANT, ARCHITECT, WARLORD = RANKS

_kinds = []
for _d in _DATA["districts"]:
    _kinds.extend([_d] * _d["count"])

DISTRICT = tuple(d["id"] for d in _kinds)        # card id -> district id (name identity, CIT-40)
COLOUR = tuple(d["colour"] for d in _kinds)
COST = tuple(d["cost"] for d in _kinds)
POINTS = tuple(d.get("points", d["cost"]) for d in _kinds)  # CIT-72
DECK_SIZE = len(_kinds)
COLOURS = tuple(c["id"] for c in _DATA["colours"])
# district id -> its card ids: "does this city hold a Smithy" is one C-level isdisjoint
CARDS_NAMED = {name: frozenset(c for c in range(DECK_SIZE) if DISTRICT[c] == name) for name in set(DISTRICT)}

assert DECK_SIZE == _DATA["totals"]["districts"] == 66
