"""Move kinds (CIT-45 move catalogue). Cards are instance ids, characters ranks."""
from __future__ import annotations

from typing import NamedTuple

from engines.core import distinct_move_kinds


class PickCharacter(NamedTuple):      # CIT-19..CIT-25
    rank: int


class DiscardCharacter(NamedTuple):   # CIT-24 (2 players only)
    rank: int


class TakeGold(NamedTuple):           # CIT-35
    pass


class DrawCards(NamedTuple):          # CIT-36
    pass


class KeepCards(NamedTuple):          # CIT-36: kept ids, returned ids in bottom order
    kept: tuple
    returned: tuple


class Build(NamedTuple):              # CIT-38
    card: int


class CollectIncome(NamedTuple):      # CIT-41
    pass


class EndTurn(NamedTuple):            # CIT-32
    pass


class Assassinate(NamedTuple):        # CIT-46
    rank: int


class Rob(NamedTuple):                # CIT-47
    rank: int


class MagicSwap(NamedTuple):          # CIT-48 swap with a seat
    player: int


class MagicRedraw(NamedTuple):        # CIT-48 cards to the bottom, in this order
    cards: tuple
    # True marks the listed template: any 1..len(cards) of `cards`, in any order, is legal; the
    # template applied as it stands redraws all of them.
    any_subset: bool = False


class Laboratory(NamedTuple):         # CIT-60
    card: int


class Smithy(NamedTuple):             # CIT-61
    pass


class WarlordDestroy(NamedTuple):     # CIT-53..CIT-55
    player: int
    card: int


class WarlordSkip(NamedTuple):        # CIT-53
    pass


class GraveyardRecover(NamedTuple):   # CIT-63
    pass


class GraveyardDecline(NamedTuple):   # CIT-63
    pass


MOVES = (PickCharacter, DiscardCharacter, TakeGold, DrawCards, KeepCards, Build, CollectIncome,
         EndTurn, Assassinate, Rob, MagicSwap, MagicRedraw, Laboratory, Smithy, WarlordDestroy,
         WarlordSkip, GraveyardRecover, GraveyardDecline)
MOVE_KINDS = MOVES  # the old name, until the generic codec lands
distinct_move_kinds(*MOVES)
