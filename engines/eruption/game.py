"""The Eruption `Game` object: the engine contract over rules.py, plus views and determinize."""
from __future__ import annotations

import random
from collections import Counter

from engines.core import Outcome

from . import board as B
from . import rules as R
from .rules import State
from .spec import SPEC


def _materials(counts):
    return {m: counts[i] for i, m in enumerate(B.MATERIALS)}


def view(st: State, seat):
    """ERU-33/34: everything public, plus `seat`'s own hand."""
    return {
        "seat": -1 if seat is None else seat,
        "seats": st.n,
        "options": dict(st.options),
        "active": st.active,
        "first_player": st.first_player,
        "turn": st.turn,
        "phase": st.phase,
        "villages": list(st.villages),
        "temperatures": list(st.temps),
        "zones": [R.zone(st, s) for s in range(st.n)],
        "tiebreaks": [R.tiebreak_value(st, s) for s in range(st.n)],
        "stockpiles": [_materials(p) for p in st.stockpiles],
        "hand_sizes": [len(h) for h in st.hands],
        "hand": [] if seat is None else list(st.hands[seat]),
        "supply": _materials(st.supply),
        "removed_walls": _materials(st.removed_walls),
        "stack_count": len(st.stack),
        "draw_pile_count": len(st.draw_pile),
        "discard": list(st.discard),
        "tiles": [{"tile": t, "tile_type": B.TILE_TYPE_OF[t], "x": c[0], "y": c[1], "rotation": r}
                  for c, (t, r) in sorted(st.board.items())],
        "walls": [{"x": s[0], "y": s[1], "edge": e, "material": m}
                  for (s, e), m in sorted(st.walls.items())],
        "eruption_tiles": [{"number": k + 1, "status": st.eruption_status[k],
                            "holder": st.eruption_holder[k]} for k in range(3)],
        "drawn_tile": st.drawn,
        "drawn_tile_type": B.TILE_TYPE_OF[st.drawn] if st.drawn >= 0 else "",
        "quake_tile": st.quake_tile,
        "quake_tile_type": B.TILE_TYPE_OF[st.quake_tile] if st.quake_tile >= 0 else "",
        "placement_origin": st.origin,
        "excluded": [{"x": c[0], "y": c[1]} for c in sorted(st.excluded)],
        "eruptions_placed": st.eruptions_placed,
        "walls_built": st.walls_built,
        "wall_allowance": 2 if R.zone(st, st.active) else 1,
        "end_trigger": st.end_trigger,
        "trigger_seat": st.trigger_seat,
        "turns_left": st.turns_left,
        "removed_tiles": list(st.removed_tiles),
        "burnout_removed_count": len(st.burnout_removed),
    }


def determinize(v, seat, rng: random.Random) -> State:
    """A full state agreeing with view `v`; hands, pile and stack order and rng resampled."""
    st = State.__new__(State)
    n = int(v["seats"])
    st.n = n
    st.options = R.check_options(n, {k: v["options"][k] for k in R.FLAGS})
    st.rng = random.Random(rng.getrandbits(64))
    st.villages = B.VILLAGES_BY_COUNT[n]
    st.temps = [int(t) for t in v["temperatures"]]
    st.stockpiles = [[int(p[m]) for m in B.MATERIALS] for p in v["stockpiles"]]
    st.supply = [int(v["supply"][m]) for m in B.MATERIALS]
    st.removed_walls = [int(v["removed_walls"][m]) for m in B.MATERIALS]
    st.discard = list(v["discard"])
    own = sorted(v["hand"]) if seat is not None and seat >= 0 else []
    unseen = Counter(R.deck_for(st.options))
    unseen.subtract(Counter(own))
    unseen.subtract(Counter(st.discard))
    pool = sorted(unseen.elements())
    rng.shuffle(pool)
    st.hands = []
    for s, size in enumerate(v["hand_sizes"]):
        if s == seat:
            st.hands.append(list(own))
        else:
            st.hands.append(sorted(pool.pop() for _ in range(int(size))))
    st.draw_pile = pool
    st.board, st.lava = {}, {}
    for t in v["tiles"]:
        c = (int(t["x"]), int(t["y"]))
        st.board[c] = (int(t["tile"]), int(t["rotation"]))
        st.lava[c] = B.MASK_OF_TILE[int(t["tile"])][int(t["rotation"])]
    st.walls = {((int(w["x"]), int(w["y"])), int(w["edge"])): w["material"] for w in v["walls"]}
    st.eruption_status = [""] * 3
    st.eruption_holder = [-1] * 3
    for et in v["eruption_tiles"]:
        k = int(et["number"]) - 1
        st.eruption_status[k] = et["status"]
        st.eruption_holder[k] = int(et["holder"])
    st.active = int(v["active"])
    st.first_player = int(v["first_player"])
    st.turn = int(v["turn"])
    st.phase = v["phase"]
    st.drawn = int(v["drawn_tile"])
    st.quake_tile = int(v["quake_tile"])
    st.origin = v["placement_origin"]
    st.excluded = {(int(c["x"]), int(c["y"])) for c in v["excluded"]}
    st.eruptions_placed = int(v["eruptions_placed"])
    st.walls_built = int(v["walls_built"])
    st.end_trigger = v["end_trigger"]
    st.trigger_seat = int(v["trigger_seat"])
    st.turns_left = int(v["turns_left"])
    st.removed_tiles = [int(t) for t in v["removed_tiles"]]
    known = set(st.removed_tiles) | {t for t, _ in st.board.values()} | {st.drawn, st.quake_tile}
    tiles = [t for t in B.LAVA_TILE_IDS if t not in known]
    rng.shuffle(tiles)
    k = int(v["stack_count"])
    st.stack, st.burnout_removed = tiles[:k], tiles[k:]
    return st


class EruptionGame:
    spec = SPEC
    game_id, min_seats, max_seats, seats_rule = SPEC.game_id, SPEC.min_seats, SPEC.max_seats, SPEC.seats_rule

    def default_options(self):
        return R.default_options()

    def new_state(self, seats, options, seed):
        return R.new_state(seats, options, seed)[0]

    def seats_to_act(self, st):
        return [] if st.phase == "over" else [st.active]

    def legal_moves(self, st, seat):
        return R.legal_moves(st, seat)

    def apply(self, st, seat, move):
        return R.apply(st, seat, move)

    def view(self, st, seat):
        return view(st, seat)

    def is_over(self, st):
        return st.phase == "over"

    def outcome(self, st):
        ranks, winners = R.outcome_keys(st)
        return Outcome(
            scores=tuple(float(B.MAX_TEMP - t) for t in st.temps),  # ERU-154 display score
            ranks=ranks,
            winners=winners,
            detail={"temperatures": list(st.temps),
                    "tiebreaks": [R.tiebreak_value(st, s) for s in range(st.n)]},
        )

    def clone(self, st):
        return st.clone()

    def determinize(self, v, seat, rng):
        return determinize(v, seat, rng)

    def move_is_private(self, move):
        return False  # every Eruption move is public (used cards go face up, ERU-34)

    def log_revealed_after_end(self, st) -> bool:
        return bool(st.options["reveal_log_after_end"])  # ERU-33: the seed shows the tiles removed at a burnout

    def to_move(self, st):
        return None if st.phase == "over" else st.active

    def current_player(self, st):
        return self.to_move(st)


GAME = EruptionGame()
