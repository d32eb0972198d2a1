"""Eruption's field adapters for the generic codec (base.py)."""
from __future__ import annotations

from .base import Codec, MoveFields

CODEC = Codec("eruption", MoveFields(
    required=("play_relocate.steps",),
    counts={"discard_for_tile.cards": 2},
))
