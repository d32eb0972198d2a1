"""Move kinds, one NamedTuple each, in the game's vocabulary. Regions are map region ids."""
from __future__ import annotations

from typing import NamedTuple

from engines.core import distinct_move_kinds

from . import data as D


class PickCombo(NamedTuple):
    """Take the race + power combo at row position `position` (costs `position` coins, SW-40)."""
    position: int


class Expand(NamedTuple):
    """Start an EXPAND turn with the active race (SW-50b)."""


class Decline(NamedTuple):
    """Put the active race into decline (SW-100); also the Stout decline after scoring (SW-166)."""


class Abandon(NamedTuple):
    """Take the last token of one of the conquering race's regions back into hand (SW-93)."""
    region: int


class Conquer(NamedTuple):
    """Conquer `region` paying its cost from hand (SW-60 - SW-67; Berserk uses the pending roll, SW-151)."""
    region: int


class FinalAttempt(NamedTuple):
    """Name `region` and roll the reinforcement die for the shortfall (SW-90)."""
    region: int


class BerserkRoll(NamedTuple):
    """Berserk: roll the die before choosing the next target (SW-151)."""


class DragonAttack(NamedTuple):
    """Dragon Master: conquer `region` with exactly one token (SW-155)."""
    region: int


class Convert(NamedTuple):
    """Sorcerers: replace the lone active token in `region` with a Sorcerer (SW-140)."""
    region: int


class EndConquest(NamedTuple):
    """Stop the conquest step (SW-51) and go to redeployment."""


class Deploy(NamedTuple):
    """Place `count` tokens from hand on `region` (SW-95, SW-82); region -1 = the Necromancer's Island (NEC-15)."""
    region: int
    count: int  # type: ignore[assignment]  # the wire field's name; it shadows tuple.count, which nothing calls


class PlaceEncampment(NamedTuple):
    """Bivouacking: place one Encampment in `region` (SW-152)."""
    region: int


class PlaceFortress(NamedTuple):
    """Fortified: place this turn's Fortress in `region` (SW-158)."""
    region: int


class SetAside(NamedTuple):
    """Amazons: set aside one token from `region` (SW-130)."""
    region: int


class PlaceHeroes(NamedTuple):
    """Heroic: place the Heroes on these one or two regions (SW-159)."""
    regions: tuple


class NameAlly(NamedTuple):
    """Diplomat: name the opponent `seat` as ally until your next turn (SW-154)."""
    seat: int


class Pass(NamedTuple):
    """Skip the optional step now offered (Fortress, ally, Stout decline, optional summoning)."""


class ChoosePower(NamedTuple):
    """Necromancer setup: choose the first active power among the six drawn (NEC-4)."""
    power: str


class BuyGhost(NamedTuple):
    """Necromancer: buy one Ghost from the reserve onto the Island (NEC-19, NEC-20)."""


class BuyPower(NamedTuple):
    """Necromancer: activate one power from the reserve (NEC-19, NEC-20)."""
    power: str


class EndPurchases(NamedTuple):
    """Necromancer: end step A and take the Ghosts into hand (NEC-21)."""


class Summon(NamedTuple):
    """Necromancer: add the summoned souls to the Well (NEC-27, only when summoning is optional)."""


MOVES = (PickCombo, Expand, Decline, Abandon, Conquer, FinalAttempt, BerserkRoll, DragonAttack, Convert, EndConquest,
         Deploy, PlaceEncampment, PlaceFortress, SetAside, PlaceHeroes, NameAlly, Pass, ChoosePower, BuyGhost,
         BuyPower, EndPurchases, Summon)
__all__ = [kind.__name__ for kind in MOVES]
ALL = MOVES  # the old name, until the codec reads MOVES

distinct_move_kinds(*MOVES)

# the moves naming one region, built once (moves are immutable values): index = region id
CONQUER = tuple(Conquer(r) for r in range(D.MAX_REGIONS))
FINAL_ATTEMPT = tuple(FinalAttempt(r) for r in range(D.MAX_REGIONS))
DRAGON_ATTACK = tuple(DragonAttack(r) for r in range(D.MAX_REGIONS))
ABANDON = tuple(Abandon(r) for r in range(D.MAX_REGIONS))
BERSERK_ROLL, END_CONQUEST = BerserkRoll(), EndConquest()
# DEPLOYS[region][c - 1] is Deploy(region, c), for every region and the Island (-1)
DEPLOYS = {r: tuple(Deploy(r, c) for c in range(1, max(D.BOX) + 1)) for r in range(-1, D.MAX_REGIONS)}
