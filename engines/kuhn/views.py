"""What a seat may know (KP-8), and states consistent with it (determinize)."""
from __future__ import annotations

import random

from . import rules as R


def view(st: R.KuhnState, seat: int | None) -> dict:
    """KP-8: the actions, stakes and the viewer's own card; both cards only at a showdown."""
    shown = st.phase == R.OVER and st.folded < 0
    return {
        "seat": -1 if seat is None else seat,
        "seats": st.seats,
        "options": dict(st.options),
        "phase": st.phase,
        "turn": st.turn,
        "card": "" if seat is None else st.cards[seat],
        "actions": list(st.actions),
        "stakes": list(st.stakes),
        "shown_cards": list(st.cards) if shown else [],
        "winner": R.winner(st) if st.phase == R.OVER else -1,
        "chips": R.chips(st),
    }


def determinize(v: dict, seat: int, rng: random.Random) -> R.KuhnState:
    """A full state agreeing with view `v`: the unseen cards dealt at random, a fresh rng."""
    st = R.KuhnState()
    st.seats, st.options = int(v["seats"]), R.check_options(int(v["seats"]), dict(v["options"]))
    st.rng = random.Random(rng.getrandbits(64))
    if v["shown_cards"]:
        st.cards = list(v["shown_cards"])
    else:
        unseen = [c for c in R.RANKS if c != v["card"]]
        rng.shuffle(unseen)
        st.cards = [v["card"] if s == seat else unseen.pop() for s in range(st.seats)]
    st.actions, st.stakes = list(v["actions"]), [int(x) for x in v["stakes"]]
    st.turn, st.phase = int(v["turn"]), v["phase"]
    # seats alternate from seat 0, so the last action was made by seat (len - 1) % 2
    st.folded = (len(st.actions) - 1) % 2 if st.actions[-1:] == ["fold"] else -1
    return st
