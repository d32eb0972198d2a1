"""Kuhn poker rules (docs/rules/kuhn.md): a check table and an effect table keyed by move kind.

The state is the whole hand: two secret cards, the actions so far, the pot. Each legality rule is
one predicate that both `legal_moves` and `apply` use, so a rule is written once.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

from engines.core import PUBLIC, Event, IllegalMove, InvalidOptions, Outcome, rank_by

from .moves import MOVE_KINDS, Bet, Call, Check, Fold
from .spec import SPEC

_DATA = json.loads((Path(__file__).parent / "data" / "cards.json").read_text())
RANKS = tuple(_DATA["ranks"])  # KP-2: J < Q < K
BET = _DATA["bet"]
DEFAULT_OPTIONS = SPEC.defaults()
BETTING, OVER = "betting", "over"  # phases


class KuhnState:
    __slots__ = ("seats", "options", "rng", "cards", "actions", "stakes", "turn", "phase", "folded")

    def clone(self) -> "KuhnState":
        c = KuhnState.__new__(KuhnState)
        c.seats, c.options, c.cards, c.turn, c.phase, c.folded = (
            self.seats, self.options, list(self.cards), self.turn, self.phase, self.folded)
        c.actions, c.stakes = list(self.actions), list(self.stakes)
        c.rng = random.Random()
        c.rng.setstate(self.rng.getstate())
        return c


def check_options(seats, options) -> dict:
    """KP-1: two seats; every option one of its allowed values (spec.py)."""
    if seats != 2 or isinstance(seats, bool):
        raise InvalidOptions("KP-1", f"Kuhn poker is for 2 players, not {seats!r}.")
    opts = dict(DEFAULT_OPTIONS)
    for name, value in dict(options or {}).items():
        if name not in opts:
            raise InvalidOptions("KP-1", f"Unknown option {name!r}.")
        o = SPEC.option(name)
        if type(value) is not o.type or value not in o.allowed:
            raise InvalidOptions(o.rule, f"Option {name} must be one of {list(o.allowed)}, not {value!r}.")
        opts[name] = value
    return opts


def new_state(seats, options, seed) -> KuhnState:
    st = KuhnState()
    st.seats, st.options = seats, check_options(seats, options)
    st.rng = random.Random(seed)
    deck = list(RANKS)
    st.rng.shuffle(deck)  # KP-4: one card to each seat, the third unseen
    st.cards = deck[:2]
    st.actions, st.stakes = [], [st.options["ante"]] * 2  # KP-3
    st.turn, st.phase, st.folded = 0, BETTING, -1
    return st


# ---------------------------------------------------------------- legality (one predicate per rule)

def facing_bet(st: KuhnState) -> bool:
    return "bet" in st.actions


def _may_open(st, seat):  # KP-5: check or bet while nobody has bet
    return not facing_bet(st)


def _may_answer(st, seat):  # KP-6: call or fold a bet
    return facing_bet(st)


CHECKS = {Check: (_may_open, "KP-5"), Bet: (_may_open, "KP-5"), Call: (_may_answer, "KP-6"),
          Fold: (_may_answer, "KP-6")}


def refusal(st: KuhnState, seat: int, move) -> tuple[str, str] | None:
    """(rule, sentence) when `seat` may not make `move` now, else None."""
    if st.phase == OVER:
        return "KP-7", "The hand is over."
    if seat != st.turn:
        return "KP-5", f"It is seat {st.turn}'s turn."
    check = CHECKS.get(type(move))
    if check is None:
        return "KP-5", "Not a Kuhn poker move."
    ok, rule = check
    if not ok(st, seat):
        return rule, "There is a bet to call or fold." if rule == "KP-5" else "There is no bet to answer."
    return None


def legal_moves(st: KuhnState, seat: int) -> list:
    return [kind() for kind in MOVE_KINDS if refusal(st, seat, kind()) is None]


# ---------------------------------------------------------------- effects

def _check(st, seat):
    st.actions.append("check")
    return len(st.actions) < 2  # check, check: the showdown (KP-7)


def _bet(st, seat):
    st.actions.append("bet")
    st.stakes[seat] += BET
    return True


def _call(st, seat):
    st.actions.append("call")
    st.stakes[seat] += BET
    return False


def _fold(st, seat):
    st.actions.append("fold")
    st.folded = seat
    return False


EFFECTS = {Check: _check, Bet: _bet, Call: _call, Fold: _fold}


def winner(st: KuhnState) -> int:
    """KP-7: the other seat after a fold, else the higher card."""
    if st.folded >= 0:
        return 1 - st.folded
    return max(range(2), key=lambda s: RANKS.index(st.cards[s]))


def apply(st: KuhnState, seat: int, move) -> list[Event]:
    why = refusal(st, seat, move)
    if why:
        raise IllegalMove(*why)
    events = [Event("acted", {"seat": seat, "action": type(move).__name__.lower()})]
    if EFFECTS[type(move)](st, seat):
        st.turn = 1 - seat
        return events
    st.phase, st.turn = OVER, -1
    won = winner(st)
    if st.folded < 0:
        events.append(Event("showdown", {"cards": list(st.cards)}, PUBLIC))
    events.append(Event("pot_won", {"seat": won, "chips": st.stakes[1 - won]}))
    return events


def chips(st: KuhnState) -> list[int]:
    """Net chips per seat: what the loser staked goes to the winner (KP-7)."""
    if st.phase != OVER:
        return [0, 0]
    won = winner(st)
    return [st.stakes[1 - won] if s == won else -st.stakes[s] for s in range(2)]


def outcome(st: KuhnState) -> Outcome:
    net = chips(st)
    ranks, winners = rank_by(net)
    return Outcome(scores=tuple(float(c) for c in net), ranks=ranks, winners=winners)
