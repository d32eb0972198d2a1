"""Card data (CIT-2, CIT-3, CIT-4) loaded from data/cards.json.

Each physical district card gets a unique instance id 0..65 (CIT-4), assigned
in file order, copies consecutive. Per-id attributes are flat tuples for speed.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

_DATA = json.loads((Path(__file__).parent / "data" / "cards.json").read_text())

CONSTANTS: Final[dict[str, int]] = _DATA["constants"]
# CIT-21: the draft per seat count
DRAFT: Final[dict[int, dict[str, int]]] = {int(k): v for k, v in _DATA["selection"].items()}
CHARACTERS: Final[dict[int, dict[str, Any]]] = {c["rank"]: c for c in _DATA["characters"]}
CHARACTER_IDS: Final[dict[int, str]] = {rank: c["id"] for rank, c in CHARACTERS.items()}
RANKS: Final[tuple[int, ...]] = tuple(sorted(CHARACTERS))
INCOME_COLOUR: Final[dict[int, str | None]] = {rank: c["income_colour"] for rank, c in CHARACTERS.items()}

_RANK: Final[dict[str, int]] = {c["id"]: c["rank"] for c in _DATA["characters"]}
ASSASSIN: Final[int] = _RANK["assassin"]
THIEF: Final[int] = _RANK["thief"]
MAGICIAN: Final[int] = _RANK["magician"]
KING: Final[int] = _RANK["king"]
BISHOP: Final[int] = _RANK["bishop"]
MERCHANT: Final[int] = _RANK["merchant"]
ARCHITECT: Final[int] = _RANK["architect"]
WARLORD: Final[int] = _RANK["warlord"]

_kinds = []
for _d in _DATA["districts"]:
    _kinds.extend([_d] * _d["count"])

# card id -> district id (name identity, CIT-40)
DISTRICT: Final[tuple[str, ...]] = tuple(d["id"] for d in _kinds)
COLOUR: Final[tuple[str, ...]] = tuple(d["colour"] for d in _kinds)
COST: Final[tuple[int, ...]] = tuple(d["cost"] for d in _kinds)
POINTS: Final[tuple[int, ...]] = tuple(d.get("points", d["cost"]) for d in _kinds)  # CIT-72
DECK_SIZE: Final[int] = len(_kinds)
DISTRICT_NAMES: Final[int] = len(_DATA["districts"])  # the most districts a city can hold (CIT-40: no name twice)
COLOURS: Final[tuple[str, ...]] = tuple(c["id"] for c in _DATA["colours"])
# card id -> one bit per district name (28 names): a city's names as one int, "a new district?" one AND
NAME_BIT: Final[tuple[int, ...]] = tuple(1 << sorted(set(DISTRICT)).index(name) for name in DISTRICT)
NAMED_BIT: Final[dict[str, int]] = {DISTRICT[c]: NAME_BIT[c] for c in range(DECK_SIZE)}
# district id -> its card ids: "does this city hold a Smithy" is one C-level isdisjoint
CARDS_NAMED: Final[dict[str, frozenset[int]]] = {name: frozenset(c for c in range(DECK_SIZE) if DISTRICT[c] == name)
                                                  for name in set(DISTRICT)}

assert DECK_SIZE == _DATA["totals"]["districts"] == 66
