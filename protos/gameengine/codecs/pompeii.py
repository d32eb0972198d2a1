"""Pompeii's field adapters for the generic codec (base.py)."""
from __future__ import annotations

from .base import Codec, MoveFields

CODEC = Codec("pompeii", MoveFields(
    required=("play_card.number",),
    none_flags={"move_person.target": "leave"},  # MovePerson(origin, None): the person leaves the city
))
