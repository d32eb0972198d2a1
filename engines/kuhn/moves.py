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


MOVES = (Check, Bet, Call, Fold)
MOVE_KINDS = MOVES  # the name tests/conformance/test_spec.py reads in every engine
distinct_move_kinds(*MOVES)
