"""What a seat may know (SW-120 - SW-124, NEC-31) and rebuilding a full state from it.

The view's keys are the proto fields of SmallWorldView. Most are a state field under the same name,
declared once in the tables below and read by both `view` and `determinize`.
"""
from __future__ import annotations

import random
from operator import itemgetter
from typing import Any

from . import data as D
from .forces import on_map, price
from .setup import DEFAULTS
from .state import SmallWorldState, blank

HIDDEN = -1  # coins not visible to this seat (SW-121)

# view key == state field: (name, to the view, back to the state)


def same(value):
    return value


TURN = (("round", same, same), ("rounds", same, same), ("first_player", same, same), ("turn_order", list, list),
        ("turn_index", same, same), ("current_seat", same, same), ("phase", same, same), ("end_step", same, same),
        ("berserk_roll", same, same), ("dragon_used", bool, int), ("fortress_done", bool, int),
        ("set_aside_due", same, same), ("decline_turn", bool, int), ("after_ghouls", same, same),
        ("heroes_placed", bool, int), ("attacked_seats", list, list), ("converted_seats", list, list),
        ("defender_queue", list, list), ("holes_placed", same, same))
REGION = (("tokens", same, same), ("troll_lair", bool, int), ("fortress", bool, int), ("encampments", same, same),
          ("hero", bool, int), ("dragon", bool, int), ("hole", bool, int))
RACE = (("owner", same, same), ("in_decline", bool, int), ("hand", same, same), ("kept", same, same),
        ("set_aside", same, same), ("supply", same, same), ("conquests", same, same),
        ("nonempty_conquests", same, same))
PLAYER = (("encampments_in_hand", same, same), ("ally", same, same), ("wealthy_due", bool, int))
NECROMANCER = (("ghost_reserve", "ghost_reserve", same, same), ("island", "island", same, same),
               ("well_ghosts", "well_ghosts", same, same), ("purchases_this_turn", "purchases", same, same),
               ("wealthy_paid", "wealthy_paid", bool, int), ("won", "necromancer_won", bool, int))


def view(state, seat):
    options = state.options
    show_coins = options["public_coins"] or state.over
    return {
        "options": dict(options),
        "map": state.map_key[0],
        "seats": state.seats,
        **{name: shown(getattr(state, name)) for name, shown, _ in TURN},
        "conquering_race": D.kind_key(state.force),
        "regions": [{"race": D.kind_key(state.occupant[r]),
                     **{name: shown(getattr(state, name)[r]) for name, shown, _ in REGION}}
                    for r in range(len(state.occupant))],
        "combo_row": [{"race": D.kind_key(r), "power": D.power_key(p), "coins": c} for r, p, c in state.combo_row],
        "power_discard": [D.power_key(p) for p in state.power_discard],
        "race_deck_size": len(state.race_deck),
        "power_deck_size": len(state.power_deck),
        "races": [{"race": D.kind_key(k), "power": D.power_key(state.power_of[k]),
                   **{name: shown(getattr(state, name)[k]) for name, shown, _ in RACE}} for k in range(D.N_KINDS)],
        "players": [{
            "seat": s, "coins": state.coins[s] if (show_coins or s == seat) else HIDDEN,
            "active_race": D.kind_key(state.active_race[s]),
            "declined_races": [D.kind_key(k) for k in state.declines[s]],
            "is_necromancer": s == state.necromancer,
            **{name: shown(getattr(state, name)[s]) for name, shown, _ in PLAYER}} for s in range(state.seats)],
        "necromancer": necromancer_view(state, seat),
        "over": bool(state.over),
    }


def necromancer_view(state, seat):
    """NEC-31: the reserve is public unless necro_reserve_public is off (ED-42)."""
    reserve_public = state.options["necro_reserve_public"] or seat == state.necromancer or state.over
    return {
        "seat": state.necromancer,
        "ghosts_in_hand": state.hand[D.GHOSTS], "ghosts_kept": state.kept[D.GHOSTS],
        "ghosts_on_regions": on_map(state, D.GHOSTS),
        "well_tokens": [D.kind_key(k) for k in state.well_tokens],
        "active_powers": [D.power_key(p) for p in state.necromancer_powers],
        "power_reserve": [D.power_key(p) for p in state.power_reserve] if reserve_public else [],
        "power_reserve_size": len(state.power_reserve),
        "rejected_powers": [D.power_key(p) for p in state.rejected_powers],
        "price": price(state) if state.necromancer >= 0 else 0,
        **{key: shown(getattr(state, name)) for key, name, shown, _ in NECROMANCER},
    }


def view_options(v):
    given = v.get("options") or {}
    if given.keys() <= DEFAULTS.keys():
        return {**DEFAULTS, **given}
    return {**DEFAULTS, **{name: value for name, value in given.items() if name in DEFAULTS}}


# The last view determinized and the state read from it: a search determinizes one view (a value
# nobody changes) once per iteration, so it is read once and each determinization copies that state.
_LAST_VIEW: list[Any] = [None, None]


def determinize(v: dict[str, Any], seat: int | None, rng: random.Random) -> SmallWorldState:
    """A full state equal to view `v` on everything visible; decks, hidden coins and RNG resampled."""
    if _LAST_VIEW[0] is not v:
        _LAST_VIEW[0], _LAST_VIEW[1] = v, visible_state(v)
    state = _LAST_VIEW[1].with_rng(random.Random(rng.getrandbits(64)))
    resample_decks(state, v["necromancer"], rng)
    return state


def visible_state(v):
    """The state of view `v` before the hidden parts are drawn: decks empty, hidden coins guessed."""
    options = view_options(v)
    map_key = (v["map"], options["map5p_border_13_19"], options["map5p_region28_terrain"])
    state = blank(v["seats"], options, map_key, D.board(*map_key).n)
    for name, _, stored in TURN:
        setattr(state, name, stored(v[name]))
    state.force = D.kind_from_key(v["conquering_race"])
    regions, races = v["regions"], v["races"]
    state.occupant = [D.KIND_OF_KEY[x["race"]] for x in regions]
    for name, _, stored in REGION:
        setattr(state, name, column(regions, name, stored))
    state.combo_row = [[D.kind_from_key(c["race"]), D.power_from_key(c["power"]), c["coins"]] for c in v["combo_row"]]
    state.power_discard = [D.power_from_key(p) for p in v["power_discard"]]
    state.power_of = [D.POWER_OF_KEY[x["power"]] for x in races]
    for name, _, stored in RACE:
        setattr(state, name, column(races, name, stored))
    restore_players(state, v["players"], v["round"])
    necromancer = v["necromancer"]
    state.necromancer = necromancer["seat"]
    for key, name, _, stored in NECROMANCER:
        setattr(state, name, stored(necromancer[key]))
    state.well_tokens = [D.kind_from_key(k) if k else D.SOUL for k in necromancer["well_tokens"]]
    state.necromancer_powers = [D.power_from_key(p) for p in necromancer["active_powers"]]
    state.rejected_powers = [D.power_from_key(p) for p in necromancer["rejected_powers"]]
    state.over = int(v["over"])
    return state


def column(rows, name, stored):
    """One state list from the view's per-region or per-race rows."""
    values = map(itemgetter(name), rows)
    return list(values if stored is same else map(stored, values))


def restore_players(state, players, round_):
    """Hidden coins (SW-121) are guessed: the mean of the known ones, else 5 + 6 a round."""
    known = [p["coins"] for p in players if p["coins"] != HIDDEN]
    guess = round(sum(known) / len(known)) if known else 5 + 6 * (round_ - 1)
    for s, x in enumerate(players):
        state.coins[s] = x["coins"] if x["coins"] != HIDDEN else guess
        state.active_race[s] = D.kind_from_key(x["active_race"])
        state.declines[s] = [D.kind_from_key(k) for k in x["declined_races"]]
        for name, _, stored in PLAYER:
            getattr(state, name)[s] = stored(x[name])


def resample_decks(state, necromancer, rng):
    """Hidden: the deck orders (SW-121), and the Necromancer's reserve when private (ED-42)."""
    in_row = {r for r, _, _ in state.combo_row}
    races = [k for k in range(D.N_RACES) if state.owner[k] < 0 and k not in in_row]
    rng.shuffle(races)
    state.race_deck = races
    used = {p for _, p, _ in state.combo_row} | set(state.power_discard) | set(state.necromancer_powers)
    used |= set(state.rejected_powers) | {state.power_of[k] for k in range(D.N_KINDS) if state.power_of[k] >= 0}
    reserve = [D.power_from_key(p) for p in necromancer["power_reserve"]]
    used |= set(reserve)
    pool = [p for p in range(D.N_POWERS) if p not in used]
    rng.shuffle(pool)
    missing = necromancer["power_reserve_size"] - len(reserve)
    if missing > 0:
        drawable = [p for p in pool if D.NECRO_DRAWABLE[p]][:missing]
        reserve += drawable
        pool = [p for p in pool if p not in drawable]
    state.power_reserve = reserve
    state.power_deck = pool
