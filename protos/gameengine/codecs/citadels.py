"""Citadels' field adapters for the generic codec (base.py)."""
from __future__ import annotations

from .base import Codec, MoveFields

CODEC = Codec("citadels", MoveFields(required=("keep_cards.kept", "magic_redraw.cards")))
