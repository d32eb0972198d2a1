"""What moves pieces: conquest and its losses, abandonment, the combo row, decline, the Soul Well."""
from __future__ import annotations

from typing import Final

from engines.core import Event

from . import data as D
from .forces import active_force, on_map, option, race_ability, regions_of, seat_of, tokens_of
from .scoring import win_check
from .state import SmallWorldState

GHOSTS: Final = D.GHOSTS
LOST: Final = D.LOST_TRIBE
NONE: Final = D.NO_RACE
Events = list[Event]


def well_push(state: SmallWorldState, k: int) -> None:
    if k == GHOSTS:
        state.well_ghosts += 1
    else:
        state.well_tokens.append(k)


def discard_token(state: SmallWorldState, k: int, to_well: bool) -> None:
    """One token lost to conquest: the Soul Well in Necromancer Island (NEC-10), else the supply."""
    if state.necromancer >= 0 and to_well:
        well_push(state, k)
    else:
        state.supply[k] += 1


def clear_region(state: SmallWorldState, r: int, owner_seat: int) -> None:
    """Pieces leaving a region whose tokens left it (SW-69, SW-93)."""
    state.troll_lair[r] = 0
    state.fortress[r] = 0
    if state.encampments[r]:
        if owner_seat >= 0:
            state.encampments_in_hand[owner_seat] += state.encampments[r]
        state.encampments[r] = 0
    state.hero[r] = 0
    state.dragon[r] = 0
    state.hole[r] = 0


def take_defenders(state: SmallWorldState, region: int, events: Events) -> tuple[int, int]:
    """SW-80 losses of the region being conquered; returns (kind, seat) of the defender."""
    defender = state.occupant[region]
    n = state.tokens[region]
    if defender == NONE:
        clear_region(state, region, -1)
        return NONE, -1
    defender_seat = seat_of(state, defender)
    if defender == LOST:
        discard_token(state, LOST, True)  # SW-80(a), NEC-10
    elif defender == GHOSTS:  # NEC-14
        state.well_ghosts += 1
        state.kept[GHOSTS] += n - 1
    elif defender == D.ELVES and race_ability(state, defender, D.ELVES):  # SW-132
        state.kept[defender] += n
    else:
        state.kept[defender] += n - 1
        discard_token(state, defender, True)
    state.occupant[region] = NONE
    state.tokens[region] = 0
    clear_region(state, region, defender_seat)
    if 0 <= defender < D.N_RACES and state.in_decline[defender] and tokens_of(state, defender) == 0:
        leave_play(state, defender, events)  # SW-103
    return defender, defender_seat


def record_conquest(state: SmallWorldState, force: int, defender: int, defender_seat: int, nonempty: bool) -> None:
    state.conquests[force] += 1
    state.nonempty_conquests[force] += 1 if nonempty else 0
    if (defender_seat >= 0 and defender_seat != state.current_seat and defender == active_force(state, defender_seat)
            and defender_seat not in state.attacked_seats):
        state.attacked_seats.append(defender_seat)


def conquer(state: SmallWorldState, force: int, region: int, tokens: int, events: Events, how: str, cost: int,
            roll: int = -1) -> None:
    """SW-67: defenders leave, markers are handled, the attacker's tokens are placed."""
    nonempty = state.occupant[region] != NONE  # SW-6
    defender, defender_seat = take_defenders(state, region, events)
    state.occupant[region] = force
    state.tokens[region] = tokens
    state.hand[force] -= tokens
    if (force == D.TROLLS and race_ability(state, force, D.TROLLS) and option(state, "lair_on_conquest")
            and sum(state.troll_lair) < D.MARKERS["troll_lair"]):
        state.troll_lair[region] = 1  # SW-142
    if force == D.HALFLINGS and race_ability(state, force, D.HALFLINGS):  # SW-135
        if option(state, "halfling_holes_reusable"):
            if sum(state.hole) < D.MARKERS["hole_in_the_ground"]:
                state.hole[region] = 1
        elif state.holes_placed < D.MARKERS["hole_in_the_ground"]:
            state.hole[region] = 1
            state.holes_placed += 1
    if how == "dragon":  # SW-155
        for r in range(len(state.dragon)):
            state.dragon[r] = 0
        state.dragon[region] = 1
        state.dragon_used = 1
    record_conquest(state, force, defender, defender_seat, nonempty)
    events.append(Event("conquered", {
        "seat": state.current_seat, "race": D.kind_key(force), "region": region, "cost": cost, "tokens": tokens,
        "defender_race": D.kind_key(defender), "defender_seat": defender_seat, "nonempty": nonempty, "how": how,
        "roll": roll}))


def convert(state, region, events):
    """SW-140 conversion by the active Sorcerers."""
    S = D.SORCERERS
    defender = state.occupant[region]
    defender_seat = state.owner[defender]
    discard_token(state, defender, option(state, "sorcerer_victim_to_well"))  # ED-39
    state.occupant[region] = S
    state.tokens[region] = 1
    clear_region(state, region, defender_seat)
    state.supply[S] -= 1
    state.converted_seats.append(defender_seat)
    state.conquests[S] += 1
    if option(state, "conversion_counts_as_conquest"):  # ED-21
        state.nonempty_conquests[S] += 1
        if defender_seat not in state.attacked_seats:
            state.attacked_seats.append(defender_seat)
    events.append(Event("converted", {"seat": state.current_seat, "region": region, "victim_race": D.kind_key(defender),
                                      "victim_seat": defender_seat}))


def abandon(state, k, r, events, to_aside=False):
    """SW-93: the last token goes to hand; Holes, Lairs and Fortresses go; other pieces return."""
    n = state.tokens[r]
    state.occupant[r] = NONE
    state.tokens[r] = 0
    if to_aside:
        state.set_aside[k] += n
    else:
        state.hand[k] += n
    clear_region(state, r, seat_of(state, k))
    events.append(Event("abandoned", {"seat": seat_of(state, k), "race": D.kind_key(k), "region": r}))


def ready_troops(state: SmallWorldState, force: int, events: Events) -> None:
    """SW-92 (and NEC-21 for Ghosts): one token stays per region, the rest comes to hand."""
    tokens = state.tokens
    for r in regions_of(state, force):
        if tokens[r] > 1:
            state.hand[force] += tokens[r] - 1
            tokens[r] = 1
    state.hand[force] += state.kept[force] + state.set_aside[force]
    state.kept[force] = 0
    state.set_aside[force] = 0
    if force == GHOSTS:
        state.hand[force] += state.island
        state.island = 0
    events.append(Event("troops_readied", {"seat": seat_of(state, force), "race": D.kind_key(force),
                                           "hand": state.hand[force]}))


def refill_row(state, events):
    """SW-44 / SW-46: fill the combo row from the decks; rebuild the power deck from the discards."""
    size = option(state, "combo_row_size")
    while len(state.combo_row) < size and state.race_deck:
        if not state.power_deck:
            if not state.power_discard:
                break
            state.power_deck = state.power_discard[:]
            state.rng.shuffle(state.power_deck)
            state.power_discard = []
            events.append(Event("power_deck_rebuilt", {"size": len(state.power_deck)}))
        state.combo_row.append([state.race_deck.pop(0), state.power_deck.pop(0), 0])
        events.append(Event("combo_revealed", {"position": len(state.combo_row) - 1,
                                               "race": D.kind_key(state.combo_row[-1][0]),
                                               "power": D.power_key(state.combo_row[-1][1])}))


def leave_play(state, k, events):
    """SW-45: the banner goes under the race deck; a kept badge is discarded."""
    seat = state.owner[k]
    for r in regions_of(state, k):
        state.supply[k] += state.tokens[r]
        state.occupant[r] = NONE
        state.tokens[r] = 0
        clear_region(state, r, -1)
    state.supply[k] += state.hand[k] + state.kept[k] + state.set_aside[k]
    state.hand[k] = state.kept[k] = state.set_aside[k] = 0
    if seat >= 0:
        if k in state.declines[seat]:
            state.declines[seat].remove(k)
        if state.active_race[seat] == k:
            state.active_race[seat] = NONE
    if state.power_of[k] >= 0:
        state.power_discard.append(state.power_of[k])
        state.power_of[k] = -1
    state.owner[k] = -1
    state.in_decline[k] = 0
    state.race_deck.append(k)
    events.append(Event("race_left_play", {"race": D.kind_key(k), "seat": seat}))
    refill_row(state, events)


def go_into_decline(state, seat, events, stout=False):
    """SW-100 (a)-(e)."""
    x = state.active_race[seat]
    px = state.power_of[x]
    if px != D.SPIRIT:  # SW-104, SW-165
        for y in list(state.declines[seat]):
            if state.power_of[y] != D.SPIRIT:
                leave_play(state, y, events)  # (a) tokens, Lairs and Fortresses to the supply
    out = 0
    for r in regions_of(state, x):  # (b), (c)
        if x != D.GHOULS and state.tokens[r] > 1:
            out += state.tokens[r] - 1
            state.tokens[r] = 1
        state.encampments[r] = 0  # (e)
        state.hero[r] = 0
        state.dragon[r] = 0
        state.hole[r] = 0
    out += state.hand[x] + state.kept[x]
    state.hand[x] = state.kept[x] = 0
    state.supply[x] += state.set_aside[x]  # NEC-11: Amazon set-aside tokens to the supply
    state.set_aside[x] = 0
    if x == D.ELVES and state.necromancer >= 0 and option(state, "elves_decline_to_well"):  # NEC-12
        if option(state, "elves_decline_all_to_well"):  # ED-46: none stays on the map
            for r in regions_of(state, x):
                out += state.tokens[r]
                state.occupant[r] = NONE
                state.tokens[r] = 0
                clear_region(state, r, -1)
        state.well_tokens.extend([x] * out)
    else:
        state.supply[x] += out
    if D.BIVOUACKING == px:
        state.encampments_in_hand[seat] = 0
    if px >= 0 and px not in (D.SPIRIT, D.SEAFARING):  # (d), SW-46
        state.power_discard.append(px)
        state.power_of[x] = -1
    state.in_decline[x] = 1
    state.active_race[seat] = NONE
    state.declines[seat].append(x)
    events.append(Event("declined", {"seat": seat, "race": D.kind_key(x), "stout": stout}))
    if on_map(state, x) == 0:
        leave_play(state, x, events)  # SW-54


def pick_combo(state, seat, k, events):
    """SW-40 - SW-44."""
    race, power, coins_on = state.combo_row[k]
    state.coins[seat] -= k
    for i in range(k):
        state.combo_row[i][2] += 1
    state.coins[seat] += coins_on
    del state.combo_row[k]
    refill_row(state, events)
    want = D.BANNER[race] + D.EXTRA[race] + D.BADGE[power]
    take = min(want, state.supply[race])  # SW-43
    state.supply[race] -= take
    state.hand[race] += take
    state.owner[race] = seat
    state.active_race[seat] = race
    state.in_decline[race] = 0
    state.power_of[race] = power
    if power == D.WEALTHY:
        state.wealthy_due[seat] = 1
    if power == D.BIVOUACKING:  # SW-152: the 5 Encampments come with the badge
        state.encampments_in_hand[seat] = D.MARKERS["encampment"]
    if race == D.HALFLINGS:
        state.holes_placed = 0
    events.append(Event("combo_picked", {"seat": seat, "position": k, "race": D.kind_key(race),
                                     "power": D.power_key(power), "paid": k, "collected": coins_on,
                                     "tokens": take}))


def well_conversion(state, events):
    """NEC-16: while 4+ tokens, remove 4 (Ghosts first), then one Ghost from the reserve to the Island."""
    lifo = option(state, "well_removal_order") == "lifo"
    while state.well_ghosts + len(state.well_tokens) >= 4:
        g = min(4, state.well_ghosts)
        state.well_ghosts -= g
        state.ghost_reserve += g
        out = []
        for _ in range(4 - g):
            k = state.well_tokens.pop() if lifo else state.well_tokens.pop(0)
            out.append(D.kind_key(k))
            if k >= 0:
                state.supply[k] += 1
        moved = 0
        if state.ghost_reserve > 0:
            state.ghost_reserve -= 1
            state.island += 1
            moved = 1
        events.append(Event("well_converted", {"ghosts": g, "tokens": out, "island": moved}))
    win_check(state, events, immediate_only=True)


def deploy(state: SmallWorldState, k: int, r: int, count: int, events: Events, seat: int,
           from_kept: bool = False) -> None:
    if from_kept:
        state.kept[k] -= count
    else:
        state.hand[k] -= count
    if r < 0:
        state.island += count
    else:
        state.tokens[r] += count
    events.append(Event("deployed", {"seat": seat, "race": D.kind_key(k), "region": r, "count": count}))


def set_aside(state, r, events):
    k = state.force
    if state.tokens[r] == 1:
        abandon(state, k, r, events, to_aside=True)  # ED-19
    else:
        state.tokens[r] -= 1
        state.set_aside[k] += 1
    state.set_aside_due -= 1
    events.append(Event("set_aside", {"seat": state.current_seat, "region": r}))


def place_heroes(state, regs, events):
    for r in regs:
        state.hero[r] = 1
    state.heroes_placed = 1
    events.append(Event("heroes_placed", {"seat": state.current_seat, "regions": list(regs)}))


def summon(state, events):
    n = len(regions_of(state, GHOSTS))  # NEC-27: one soul per Ghost region, not the Island
    if n:
        state.well_tokens.extend([D.SOUL] * n)
        events.append(Event("souls_summoned", {"seat": state.necromancer, "count": n}))


def activate_necro_power(state, p):
    state.necromancer_powers.append(p)
    if p == D.BIVOUACKING:  # SW-152 via NEC-25
        state.encampments_in_hand[state.necromancer] = D.MARKERS["encampment"]
