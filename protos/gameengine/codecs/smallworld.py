"""Small World's field adapters for the generic codec (base.py)."""
from __future__ import annotations

from .base import Codec, MoveFields

CODEC = Codec("smallworld", MoveFields(required=("place_heroes.regions",), sets=("place_heroes.regions",)))
