"""Kuhn poker moves (KP-5): the four actions of a betting round."""
from __future__ import annotations

from typing import NamedTuple

from engines.core import distinct_move_kinds


class Check(NamedTuple):  # KP-5: no bet yet, put nothing in
    pass


class Bet(NamedTuple):  # KP-5: no bet yet, put one chip in
    pass


class Call(NamedTuple):  # KP-6: match the bet, then the showdown
    pass


class Fold(NamedTuple):  # KP-6: give up the pot
    pass


MOVE_KINDS = (Check, Bet, Call, Fold)
distinct_move_kinds(*MOVE_KINDS)
