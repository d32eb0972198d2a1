"""What a seat may know (SW-120 - SW-124, NEC-31) and rebuilding a full state from it."""
from __future__ import annotations

import random

from . import data as D
from .forces import on_map, price
from .setup import DEFAULTS
from .state import blank

HIDDEN = -1  # coins not visible to this seat (SW-121)


def view(st, seat):
    o = st.options
    show_coins = o["public_coins"] or st.over
    reserve_public = o["necro_reserve_public"] or seat == st.necro or st.over
    n = st.nseats
    return {
        "options": dict(o),
        "map": st.map_key[0],
        "seats": n,
        "round": st.round,
        "rounds": st.rounds,
        "first_player": st.first_player,
        "turn_order": list(st.order),
        "turn_index": st.turn_idx,
        "current_seat": st.cur,
        "phase": st.phase,
        "end_step": st.eot,
        "conquering_race": D.kind_key(st.force),
        "berserk_roll": st.roll,
        "dragon_used": bool(st.dragon_used),
        "fortress_done": bool(st.fort_done),
        "set_aside_due": st.aside_due,
        "decline_turn": bool(st.decline_turn),
        "after_ghouls": st.after_ghouls,
        "heroes_placed": bool(st.heroes_placed_turn),
        "attacked_seats": list(st.attacked),
        "converted_seats": list(st.converted),
        "defender_queue": list(st.def_queue),
        "holes_placed": st.holes_placed,
        "regions": [{
            "race": D.kind_key(st.occ[r]), "tokens": st.cnt[r], "troll_lair": bool(st.lair[r]),
            "fortress": bool(st.fort[r]), "encampments": st.camps[r], "hero": bool(st.hero[r]),
            "dragon": bool(st.dragon[r]), "hole": bool(st.hole[r])} for r in range(len(st.occ))],
        "combo_row": [{"race": D.kind_key(r), "power": D.power_key(p), "coins": c} for r, p, c in st.row],
        "power_discard": [D.power_key(p) for p in st.discard],
        "race_deck_size": len(st.race_deck),
        "power_deck_size": len(st.power_deck),
        "races": [{
            "race": D.kind_key(k), "owner": st.owner[k], "in_decline": bool(st.in_decline[k]),
            "power": D.power_key(st.power_of[k]), "hand": st.hand[k], "kept": st.kept[k],
            "set_aside": st.aside[k], "supply": st.supply[k], "conquests": st.t_conquests[k],
            "nonempty_conquests": st.t_nonempty[k]} for k in range(D.N_KINDS)],
        "players": [{
            "seat": s, "coins": st.coins[s] if (show_coins or s == seat) else HIDDEN,
            "active_race": D.kind_key(st.active[s]), "declined_races": [D.kind_key(k) for k in st.declines[s]],
            "encampments_in_hand": st.camp_hand[s], "ally": st.peace[s], "wealthy_due": bool(st.wealthy_due[s]),
            "is_necromancer": s == st.necro} for s in range(n)],
        "necromancer": {
            "seat": st.necro, "ghost_reserve": st.ghost_reserve, "island": st.island,
            "ghosts_in_hand": st.hand[D.GHOSTS], "ghosts_kept": st.kept[D.GHOSTS],
            "ghosts_on_regions": on_map(st, D.GHOSTS),
            "well_ghosts": st.well_ghosts, "well_tokens": [D.kind_key(k) for k in st.well],
            "active_powers": [D.power_key(p) for p in st.necro_active],
            "power_reserve": [D.power_key(p) for p in st.necro_reserve] if reserve_public else [],
            "power_reserve_size": len(st.necro_reserve),
            "rejected_powers": [D.power_key(p) for p in st.rejected],
            "price": price(st) if st.necro >= 0 else 0,
            "purchases_this_turn": st.necro_bought, "wealthy_paid": bool(st.necro_wealthy_paid),
            "won": bool(st.necro_won)},
        "over": bool(st.over),
    }


def _opts(v):
    o = dict(DEFAULTS)
    for k, x in (v.get("options") or {}).items():
        if k in o:
            o[k] = x
    return o


def determinize(v, seat, rng: random.Random):
    """A full state equal to view `v` on everything visible; decks, hidden coins and RNG resampled."""
    o = _opts(v)
    n = v["seats"]
    mkey = (v["map"], o["map5p_border_13_19"], o["map5p_region28_terrain"])
    b = D.board(*mkey)
    st = blank(n, o, mkey, b.n)
    st.rng = random.Random(rng.getrandbits(64))
    st.rounds = v["rounds"]
    st.round = v["round"]
    st.first_player = v["first_player"]
    st.order = list(v["turn_order"])
    st.turn_idx = v["turn_index"]
    st.cur = v["current_seat"]
    st.phase = v["phase"]
    st.eot = v["end_step"]
    st.force = D.kind_from_key(v["conquering_race"])
    st.roll = v["berserk_roll"]
    st.dragon_used = int(v["dragon_used"])
    st.fort_done = int(v["fortress_done"])
    st.aside_due = v["set_aside_due"]
    st.decline_turn = int(v["decline_turn"])
    st.after_ghouls = v["after_ghouls"]
    st.heroes_placed_turn = int(v["heroes_placed"])
    st.attacked = list(v["attacked_seats"])
    st.converted = list(v["converted_seats"])
    st.def_queue = list(v["defender_queue"])
    st.holes_placed = v["holes_placed"]
    for r, x in enumerate(v["regions"]):
        st.occ[r] = D.kind_from_key(x["race"])
        st.cnt[r] = x["tokens"]
        st.lair[r] = int(x["troll_lair"])
        st.fort[r] = int(x["fortress"])
        st.camps[r] = x["encampments"]
        st.hero[r] = int(x["hero"])
        st.dragon[r] = int(x["dragon"])
        st.hole[r] = int(x["hole"])
    st.row = [[D.kind_from_key(c["race"]), D.power_from_key(c["power"]), c["coins"]] for c in v["combo_row"]]
    st.discard = [D.power_from_key(p) for p in v["power_discard"]]
    for k, x in enumerate(v["races"]):
        st.owner[k] = x["owner"]
        st.in_decline[k] = int(x["in_decline"])
        st.power_of[k] = D.power_from_key(x["power"])
        st.hand[k] = x["hand"]
        st.kept[k] = x["kept"]
        st.aside[k] = x["set_aside"]
        st.supply[k] = x["supply"]
        st.t_conquests[k] = x["conquests"]
        st.t_nonempty[k] = x["nonempty_conquests"]
    known = [p["coins"] for p in v["players"] if p["coins"] != HIDDEN]
    guess = round(sum(known) / len(known)) if known else 5 + 6 * (v["round"] - 1)
    for s, x in enumerate(v["players"]):
        st.coins[s] = x["coins"] if x["coins"] != HIDDEN else guess
        st.active[s] = D.kind_from_key(x["active_race"])
        st.declines[s] = [D.kind_from_key(k) for k in x["declined_races"]]
        st.camp_hand[s] = x["encampments_in_hand"]
        st.peace[s] = x["ally"]
        st.wealthy_due[s] = int(x["wealthy_due"])
    nx = v["necromancer"]
    st.necro = nx["seat"]
    st.ghost_reserve = nx["ghost_reserve"]
    st.island = nx["island"]
    st.well_ghosts = nx["well_ghosts"]
    st.well = [D.kind_from_key(k) if k else D.SOUL for k in nx["well_tokens"]]
    st.necro_active = [D.power_from_key(p) for p in nx["active_powers"]]
    st.rejected = [D.power_from_key(p) for p in nx["rejected_powers"]]
    st.necro_bought = nx["purchases_this_turn"]
    st.necro_wealthy_paid = int(nx["wealthy_paid"])
    st.necro_won = int(nx["won"])
    st.over = int(v["over"])
    # hidden: deck orders (SW-121), and the Necromancer's reserve when private (ED-42)
    in_row = {r for r, _, _ in st.row}
    races = [k for k in range(D.N_RACES) if st.owner[k] < 0 and k not in in_row]
    rng.shuffle(races)
    st.race_deck = races
    used = set(p for _, p, _ in st.row) | set(st.discard) | set(st.necro_active) | set(st.rejected)
    used |= {st.power_of[k] for k in range(D.N_KINDS) if st.power_of[k] >= 0}
    reserve = [D.power_from_key(p) for p in nx["power_reserve"]]
    used |= set(reserve)
    pool = [p for p in range(D.N_POWERS) if p not in used]
    rng.shuffle(pool)
    missing = nx["power_reserve_size"] - len(reserve)
    if missing > 0:
        drawable = [p for p in pool if D.NECRO_DRAWABLE[p]][:missing]
        reserve += drawable
        pool = [p for p in pool if p not in drawable]
    st.necro_reserve = reserve
    st.power_deck = pool
    return st
