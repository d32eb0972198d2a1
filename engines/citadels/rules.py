"""Citadels rules: setup, character selection, calling order, turns, scoring.

State fields (CitadelsState):
  n, opts, rng, round, phase ("selection" | "turns" | "over"), crown, bank (-1 = unlimited)
  gold[seat], hands[seat], cities[seat] (card ids, build order), built_in[card] (round or -1)
  deck (index 0 = top, CIT-0), discard_pile (destroyed_district_to=discard)
  known_hand[seat]   cards publicly known to be in that hand (Graveyard, CIT-80)
  deck_known         card -> seat that knows its deck position (-1 = public)
  selection: held[seat] ranks, face_up, fd_ranks/fd_by (face-down ranks and who put
    them there, -1 = random), pile (cards in the picker's hands), sequence (pickers),
    pick_no, picker, sel_step ("pick" | "discard"), seen[seat] (CIT-12),
    my_discards[seat], shown_face_down[seat] (7-player last picker, CIT-23)
  turns: calling (rank), active, active_rank, murdered, robbed, protected (Bishop seat),
    revealed_ranks/revealed_seats, step ("main" | "keep" | "end" | "graveyard"),
    once-per-turn flags, builds, drawn/keep_n (pending draw), grave_* (pending Graveyard)
  end: first_completer, complete_round, final_round, last_murdered_seat, result
"""
from __future__ import annotations

import random
from itertools import combinations, permutations

from engines.core import Event, IllegalMove, InvalidOptions, Outcome, rank_by

from .cards import (ARCHITECT, ASSASSIN, BISHOP, COLOUR, CONSTANTS, COST, DECK_SIZE, DISTRICT,
                    INCOME_COLOUR, KING, MAGICIAN, MERCHANT, POINTS, RANKS, SELECTION, THIEF,
                    WARLORD)
from .moves import (Assassinate, Build, CollectIncome, DiscardCharacter, DrawCards, EndTurn,
                    GraveyardDecline, GraveyardRecover, KeepCards, Laboratory, MagicRedraw,
                    MagicSwap, PickCharacter, Rob, Smithy, TakeGold, WarlordDestroy, WarlordSkip)
from .spec import SPEC
from .state import CitadelsState

# §15 configuration flags (spec.py)
DEFAULT_OPTIONS = SPEC.defaults()
_ENUMS = SPEC.choices(str)
_BOOLS = tuple(SPEC.choices(bool))
_FLAG_RULES = {o.name: o.rule for o in SPEC.options}

STARTING_GOLD = CONSTANTS["starting_gold"]
STARTING_HAND = CONSTANTS["starting_hand"]
INCOME_RANKS = (KING, BISHOP, MERCHANT, WARLORD)
REDRAW_FULL_LISTING = 6  # hands up to this size list every MAGIC_REDRAW subset


# ---------------------------------------------------------------- options

def _int_or_word(value, word, flag):
    if value == word:
        return word
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise InvalidOptions(_FLAG_RULES[flag], f"{flag} must be {word!r} or an integer, not {value!r}")


def normalize_options(seats: int, options) -> dict:
    """Validate flags (§15) and return the full options dict."""
    if not isinstance(seats, int) or not CONSTANTS["players_min"] <= seats <= CONSTANTS["players_max"]:
        raise InvalidOptions("CIT-15", f"Citadels is played by 2 to 7 players, not {seats}")
    opts = dict(DEFAULT_OPTIONS)
    for key, value in dict(options or {}).items():
        if key not in DEFAULT_OPTIONS:
            raise InvalidOptions("CIT-0", f"unknown flag {key!r}")
        opts[key] = value
    for key in _BOOLS:
        if not isinstance(opts[key], bool):
            raise InvalidOptions(_FLAG_RULES[key], f"{key} must be a boolean")
    for key, allowed in _ENUMS.items():
        if opts[key] not in allowed:
            raise InvalidOptions(_FLAG_RULES[key], f"{key} must be one of {', '.join(allowed)}")
    size = opts["city_complete_size"]
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise InvalidOptions("CIT-8", "city_complete_size must be an integer >= 1")
    supply = _int_or_word(opts["gold_supply"], "unlimited", "gold_supply")
    if supply != "unlimited" and supply < STARTING_GOLD * seats:
        raise InvalidOptions("CIT-5", f"gold_supply {supply} cannot pay the starting gold of {seats} players")
    opts["gold_supply"] = supply
    crown = _int_or_word(opts["initial_crown"], "random", "initial_crown")
    if crown != "random" and not 0 <= crown < seats:
        raise InvalidOptions("CIT-17", f"initial_crown must be 'random' or a seat 0..{seats - 1}")
    opts["initial_crown"] = crown
    return opts


# ---------------------------------------------------------------- setup

def new_state(seats: int, options, seed: int) -> CitadelsState:
    opts = normalize_options(seats, options)
    s = CitadelsState.__new__(CitadelsState)
    s.n, s.opts, s.rng = seats, opts, random.Random(seed)
    s.round, s.phase = 0, "selection"
    s.deck = list(range(DECK_SIZE))
    s.rng.shuffle(s.deck)  # CIT-16
    s.hands = [s.deck[i * STARTING_HAND:(i + 1) * STARTING_HAND] for i in range(seats)]
    del s.deck[:STARTING_HAND * seats]
    s.gold = [STARTING_GOLD] * seats
    s.bank = -1 if opts["gold_supply"] == "unlimited" else opts["gold_supply"] - STARTING_GOLD * seats
    s.crown = s.rng.randrange(seats) if opts["initial_crown"] == "random" else opts["initial_crown"]  # CIT-17
    s.cities = [[] for _ in range(seats)]
    s.built_in = [-1] * DECK_SIZE
    s.discard_pile = []
    s.known_hand = [[] for _ in range(seats)]
    s.deck_known = {}
    s.first_completer, s.complete_round, s.final_round = -1, 0, False
    s.last_murdered_seat, s.result = -1, None
    _start_round(s, [])
    return s


def _reset_turn(s: CitadelsState) -> None:
    s.step = "main"
    s.action_taken = s.income_taken = s.power_used = False
    s.lab_used = s.smithy_used = s.warlord_used = False
    s.builds, s.drawn, s.keep_n = 0, [], 0
    s.grave_card = s.grave_seat = s.grave_victim = -1
    s.grave_resume = ""


def pick_sequence(n: int, crown: int) -> list:
    """Seats in picking order (CIT-19, CIT-24, CIT-25)."""
    order = [(crown + i) % n for i in range(n)]
    return order * 2 if n <= 3 else order


def _start_round(s: CitadelsState, ev: list) -> None:
    """CIT-18..CIT-21: gather, shuffle, initial discards, first offer."""
    n = s.n
    s.round += 1
    s.phase, s.sel_step = "selection", "pick"
    s.held = [[] for _ in range(n)]
    s.my_discards = [[] for _ in range(n)]
    s.seen = [[] for _ in range(n)]
    s.shown_face_down = [0] * n
    s.calling, s.active, s.active_rank = 0, -1, 0
    s.murdered = s.robbed = 0
    s.protected = -1
    s.revealed_ranks, s.revealed_seats = [], []
    _reset_turn(s)
    ev.append(Event("round_started", {"round": s.round, "crown": s.crown}))
    ranks = list(RANKS)
    s.rng.shuffle(ranks)
    s.fd_ranks, s.fd_by = [ranks.pop(0)], [-1]  # CIT-21.1 face down, hidden
    s.face_up = []
    king_aside = False
    while len(s.face_up) < SELECTION[n]["face_up_start"]:
        rank = ranks.pop(0)
        if rank == KING and not s.opts["king_may_be_face_up"]:  # CIT-21.2
            king_aside = True
            ev.append(Event("king_set_aside", {"round": s.round}))
            continue
        s.face_up.append(rank)
        ev.append(Event("face_up_discard", {"rank": rank}))
    if king_aside:  # CIT-21.3
        ranks.append(KING)
        s.rng.shuffle(ranks)
    s.pile = ranks
    s.sequence = pick_sequence(n, s.crown)
    s.pick_no = 0
    _offer(s, ev)


def _offer(s: CitadelsState, ev: list) -> None:
    """Hand the pile to the next picker; he alone sees it (CIT-12)."""
    seat = s.sequence[s.pick_no]
    s.picker = seat
    shown = 0
    if s.n == 7 and s.pick_no == 6:  # CIT-23: the last picker also takes the initial face-down card
        i = s.fd_by.index(-1)
        shown = s.fd_ranks.pop(i)
        del s.fd_by[i]
        s.pile.append(shown)
        s.shown_face_down[seat] = shown
    s.seen[seat].append(sorted(s.pile))
    ev.append(Event("characters_offered", {"seat": seat, "ranks": sorted(s.pile), "face_down_rank": shown}, seat))


def _after_pick(s: CitadelsState, ev: list) -> None:
    s.pick_no += 1
    if s.pick_no < len(s.sequence):
        _offer(s, ev)
        return
    last = s.sequence[-1]
    for rank in s.pile:  # CIT-22..CIT-25: the card not kept goes face down, known to the last picker
        s.fd_ranks.append(rank)
        s.fd_by.append(last)
        s.my_discards[last].append(rank)
        ev.append(Event("character_discarded", {"seat": last, "rank": rank}, last))
    s.pile = []
    s.picker = -1
    s.phase = "turns"
    ev.append(Event("selection_ended", {"round": s.round}))
    _call_next(s, ev)


# ---------------------------------------------------------------- calling order

def holder(s: CitadelsState, rank: int) -> int:
    for seat in range(s.n):
        if rank in s.held[seat]:
            return seat
    return -1


def _call_next(s: CitadelsState, ev: list) -> None:
    """CIT-28: call the next rank that answers, or end the round."""
    while True:
        s.calling += 1
        rank = s.calling
        if rank > WARLORD:
            _end_round(s, ev)
            return
        seat = holder(s, rank)
        if seat < 0 or rank == s.murdered:  # CIT-28, CIT-30: silence
            ev.append(Event("character_called", {"rank": rank, "seat": -1}))
            continue
        _reveal(s, rank, seat, ev)
        return


def _reveal(s: CitadelsState, rank: int, seat: int, ev: list) -> None:
    s.revealed_ranks.append(rank)
    s.revealed_seats.append(seat)
    s.active, s.active_rank = seat, rank
    _reset_turn(s)
    ev.append(Event("character_called", {"rank": rank, "seat": seat}))
    if rank == s.robbed:  # CIT-29.1, CIT-31
        thief = holder(s, THIEF)
        amount = s.gold[seat]
        s.gold[seat] = 0
        s.gold[thief] += amount
        ev.append(Event("robbery", {"thief_seat": thief, "victim_seat": seat, "rank": rank, "amount": amount}))
    if rank == KING:  # CIT-29.2, CIT-49
        s.crown = seat
        ev.append(Event("crown_taken", {"seat": seat}))
    if rank == BISHOP:  # CIT-29.3, CIT-50
        s.protected = seat


def _end_round(s: CitadelsState, ev: list) -> None:
    """CIT-33."""
    s.active, s.active_rank = -1, 0
    victim = holder(s, s.murdered) if s.murdered else -1
    s.last_murdered_seat = victim
    ev.append(Event("round_ended", {"round": s.round, "murdered_rank": s.murdered, "murdered_seat": victim}))
    if s.murdered == KING and victim >= 0 and s.opts["murdered_king_gets_crown"]:
        s.crown = victim
        ev.append(Event("crown_taken", {"seat": victim}))
    if not s.final_round and not completable(s):  # CIT-69 gap, see completable()
        s.final_round, s.complete_round = True, s.round
        ev.append(Event("game_stalled", {"round": s.round, "names_left": len(_names_in_play(s))}))
    if s.final_round:  # CIT-69
        s.phase = "over"
        s.calling = 0
        s.result = score(s)
        ev.append(Event("game_over", {"scores": s.result["scores"], "winners": list(s.result["winners"])}))
        return
    _start_round(s, ev)


def _names_in_play(s: CitadelsState) -> set:
    names = {DISTRICT[c] for c in s.deck}
    for part in (s.hands, s.cities):
        for cards in part:
            names.update(DISTRICT[c] for c in cards)
    return names


def completable(s: CitadelsState) -> bool:
    """Can any city still reach city_complete_size? Not when fewer district names
    remain in play (deck, hands, cities) than the size: destroyed_district_to=discard
    can drain the game, and a size above 28 can never be met. RULES.md has no end for
    that case; the engine then makes the current round the last one (reported reading)."""
    return len(_names_in_play(s)) >= s.opts["city_complete_size"]


def _finish_turn(s: CitadelsState, ev: list) -> None:
    ev.append(Event("turn_ended", {"seat": s.active, "rank": s.active_rank}))
    _call_next(s, ev)


# ---------------------------------------------------------------- helpers

def owns(s: CitadelsState, seat: int, district: str) -> bool:
    for c in s.cities[seat]:
        if DISTRICT[c] == district:
            return True
    return False


def _owner_of(s: CitadelsState, district: str) -> int:
    for seat in range(s.n):
        if owns(s, seat, district):
            return seat
    return -1


def _gain(s: CitadelsState, seat: int, amount: int) -> int:
    """Bank pays what it holds (CIT-5)."""
    if s.bank >= 0:
        amount = min(amount, s.bank)
        s.bank -= amount
    s.gold[seat] += amount
    return amount


def _pay(s: CitadelsState, seat: int, amount: int) -> None:
    s.gold[seat] -= amount
    if s.bank >= 0:
        s.bank += amount


def _draw(s: CitadelsState, count: int) -> list:
    """CIT-44: as many as the deck holds."""
    cards = s.deck[:count]
    del s.deck[:count]
    for c in cards:
        s.deck_known.pop(c, None)
    return cards


def _to_bottom(s: CitadelsState, cards, knower: int) -> None:
    for c in cards:
        s.deck.append(c)
        s.deck_known[c] = knower


def _take_from_hand(s: CitadelsState, seat: int, card: int) -> None:
    s.hands[seat].remove(card)
    if card in s.known_hand[seat]:
        s.known_hand[seat].remove(card)


def draw_numbers(s: CitadelsState, seat: int) -> tuple:
    """CIT-36: (D, K)."""
    return (3 if owns(s, seat, "observatory") else 2), (2 if owns(s, seat, "library") else 1)


def build_limit(rank: int) -> int:
    return CONSTANTS["architect_builds_per_turn"] if rank == ARCHITECT else CONSTANTS["builds_per_turn"]


def income_amount(s: CitadelsState, seat: int, rank: int) -> int:
    """CIT-41, CIT-64: districts of the character's colour, +1 for the School of Magic."""
    colour = INCOME_COLOUR[rank]
    if colour is None:
        return 0
    amount = 0
    for c in s.cities[seat]:
        if COLOUR[c] == colour or DISTRICT[c] == "school_of_magic":
            amount += 1
    return amount


def destroy_price(s: CitadelsState, owner: int, card: int) -> int:
    """CIT-54."""
    price = COST[card] - 1
    if DISTRICT[card] != "great_wall" and owns(s, owner, "great_wall"):
        price += 1
    return price


def immunity(s: CitadelsState, owner: int, card: int):
    """CIT-55: the rule that makes the district untargetable, or None."""
    if DISTRICT[card] == "keep":
        return "CIT-59"
    if len(s.cities[owner]) >= s.opts["city_complete_size"]:
        return "CIT-55"
    if owner == s.protected:
        return "CIT-50"
    return None


def assassin_targets(s: CitadelsState) -> list:
    """CIT-46."""
    if s.opts["allow_void_targets"]:
        return list(RANKS)
    return [r for r in RANKS if r != ASSASSIN and r not in s.face_up]


def thief_targets(s: CitadelsState) -> list:
    """CIT-47."""
    low = THIEF if s.opts["allow_void_targets"] else MAGICIAN
    return [r for r in RANKS if r >= low and r != s.murdered
            and (s.opts["allow_void_targets"] or r not in s.face_up)]


def warlord_targets(s: CitadelsState, seat: int) -> list:
    """CIT-53..CIT-55: (owner, card, price) the Warlord can pay for."""
    out = []
    gold = s.gold[seat]
    for owner in range(s.n):
        for card in s.cities[owner]:
            if immunity(s, owner, card) is None:
                price = destroy_price(s, owner, card)
                if price <= gold:
                    out.append((owner, card, price))
    return out


# ---------------------------------------------------------------- legal moves

def to_move(s: CitadelsState):
    if s.phase == "over":
        return None
    if s.phase == "selection":
        return s.picker
    if s.step == "graveyard":
        return s.grave_seat
    return s.active


def legal_moves(s: CitadelsState, seat: int) -> list:
    if s.phase == "over" or seat != to_move(s):
        return []
    if s.phase == "selection":
        cls = DiscardCharacter if s.sel_step == "discard" else PickCharacter
        return [cls(r) for r in sorted(s.pile)]
    step = s.step
    if step == "keep":
        return _keep_moves(s)
    if step == "graveyard":
        return [GraveyardRecover(), GraveyardDecline()]
    if step == "end":
        return [WarlordDestroy(o, c) for o, c, _ in warlord_targets(s, seat)] + [WarlordSkip()]
    return _main_moves(s, seat)


def _keep_moves(s: CitadelsState) -> list:
    out = []
    for kept in combinations(s.drawn, s.keep_n):
        rest = [c for c in s.drawn if c not in kept]
        for order in permutations(rest):
            out.append(KeepCards(tuple(kept), order))
    return out


def _main_moves(s: CitadelsState, seat: int) -> list:
    rank = s.active_rank
    hand = s.hands[seat]
    out = []
    if not s.action_taken:
        out.append(TakeGold())
        if s.deck:
            out.append(DrawCards())
    if s.builds < build_limit(rank) and (s.action_taken or s.opts["action_order"] == "any"):
        gold = s.gold[seat]
        built = {DISTRICT[c] for c in s.cities[seat]}
        out.extend(Build(c) for c in hand if COST[c] <= gold and DISTRICT[c] not in built)  # every copy
    if rank in INCOME_RANKS and not s.income_taken:
        out.append(CollectIncome())
    if not s.power_used:
        if rank == ASSASSIN:
            out.extend(Assassinate(r) for r in assassin_targets(s))
        elif rank == THIEF:
            out.extend(Rob(r) for r in thief_targets(s))
        elif rank == MAGICIAN:
            out.extend(MagicSwap(p) for p in range(s.n) if p != seat)
            out.extend(MagicRedraw(c) for c in redraw_listing(hand))
            if hand:
                out.append(MagicRedraw(tuple(hand), True))
    if rank == WARLORD and s.opts["warlord_timing"] == "any_time" and not s.warlord_used:
        out.extend(WarlordDestroy(o, c) for o, c, _ in warlord_targets(s, seat))
    if hand and not s.lab_used and owns(s, seat, "laboratory"):
        out.extend(Laboratory(c) for c in hand)  # every copy
    if not s.smithy_used and s.gold[seat] >= 2 and s.deck and owns(s, seat, "smithy"):
        out.append(Smithy())
    if s.action_taken:
        out.append(EndTurn())
    return out


def redraw_listing(hand: list) -> list:
    """MAGIC_REDRAW subsets listed besides the template (which stands for every subset in any
    order): all proper subsets up to REDRAW_FULL_LISTING cards, above that singletons, pairs and
    all-but-one, to keep the search's branching factor sane."""
    h = len(hand)
    sizes = range(1, h) if h <= REDRAW_FULL_LISTING else (1, 2, h - 1)
    return [combo for k in sizes for combo in combinations(hand, k)]


# ---------------------------------------------------------------- checks (raise before mutating)

def _refuse(rule: str, msg: str):
    raise IllegalMove(rule, msg)


def check(s: CitadelsState, seat: int, move) -> None:
    if s.phase == "over":
        _refuse("CIT-69", "the game is over")
    if not isinstance(seat, int) or not 0 <= seat < s.n:
        _refuse("CIT-15", f"no seat {seat}")
    if isinstance(move, (PickCharacter, DiscardCharacter)):
        return _check_selection(s, seat, move)
    if s.phase == "selection":
        _refuse("CIT-19", "characters are being selected")
    step = s.step
    if step == "graveyard":
        if seat != s.grave_seat:
            _refuse("CIT-63", "waiting for the Graveyard owner's answer")
        if not isinstance(move, (GraveyardRecover, GraveyardDecline)):
            _refuse("CIT-63", "answer GRAVEYARD_RECOVER or GRAVEYARD_DECLINE")
        return
    if isinstance(move, (GraveyardRecover, GraveyardDecline)):
        _refuse("CIT-63", "no destroyed district is offered to the Graveyard")
    if seat != s.active:
        _refuse("CIT-28", f"it is not your turn: rank {s.active_rank} is playing")
    if step == "keep":
        if not isinstance(move, KeepCards):
            _refuse("CIT-36", "choose which drawn cards to keep first")
        return _check_keep(s, move)
    if isinstance(move, KeepCards):
        _refuse("CIT-36", "no drawn cards are waiting to be kept")
    if step == "end":
        if isinstance(move, WarlordSkip):
            return
        if not isinstance(move, WarlordDestroy):
            _refuse("CIT-53", "the turn has ended; only WARLORD_DESTROY or WARLORD_SKIP")
        return _check_destroy(s, seat, move)
    checker = _MAIN_CHECKS.get(type(move))
    if checker is None:
        _refuse("CIT-45", f"unknown move {move!r}")
    checker(s, seat, move)


def _check_selection(s, seat, move):
    if s.phase != "selection":
        _refuse("CIT-19", "characters are picked only in the selection phase")
    if seat != s.picker:
        _refuse("CIT-19", f"seat {s.picker} is picking")
    if isinstance(move, DiscardCharacter) and s.sel_step != "discard":
        _refuse("CIT-24", "a character is discarded only by the 2-player draft, after a pick")
    if isinstance(move, PickCharacter) and s.sel_step == "discard":
        _refuse("CIT-24", "discard one character face down before passing on")
    if move.rank not in s.pile:
        _refuse("CIT-19", f"character {move.rank} was not handed to you")


def _check_keep(s, move):
    kept, returned = tuple(move.kept), tuple(move.returned)
    if len(kept) != s.keep_n or len(set(kept)) != len(kept) or any(c not in s.drawn for c in kept):
        _refuse("CIT-36", f"keep exactly {s.keep_n} of the drawn cards")
    rest = [c for c in s.drawn if c not in kept]
    if returned and sorted(returned) != sorted(rest):
        _refuse("CIT-36", "the returned order must list every card not kept")


def _check_action(s, seat, move):
    if s.action_taken:
        _refuse("CIT-34", "the resource action is taken once per turn")
    if isinstance(move, DrawCards) and not s.deck:
        _refuse("CIT-44", "the deck is empty")


def _check_build(s, seat, move):
    if s.builds >= build_limit(s.active_rank):
        _refuse("CIT-52" if s.active_rank == ARCHITECT else "CIT-38", "no more builds this turn")
    if s.opts["action_order"] == "action_first" and not s.action_taken:
        _refuse("CIT-37", "take the resource action before building")
    card = move.card
    if card not in s.hands[seat]:
        _refuse("CIT-38", f"card {card} is not in your hand")
    if any(DISTRICT[c] == DISTRICT[card] for c in s.cities[seat]):
        _refuse("CIT-40", f"your city already has a {DISTRICT[card]}")
    if COST[card] > s.gold[seat]:
        _refuse("CIT-38", f"{DISTRICT[card]} costs {COST[card]}, you have {s.gold[seat]}")


def _check_income(s, seat, move):
    if s.active_rank not in INCOME_RANKS:
        _refuse("CIT-41", "this character has no income")
    if s.income_taken:
        _refuse("CIT-42", "income is collected once per turn")


def _check_power(s, rank, rule):
    if s.active_rank != rank:
        _refuse(rule, "your character has no such power")
    if s.power_used:
        _refuse("CIT-42", "the character power is used once per turn")


def _check_assassinate(s, seat, move):
    _check_power(s, ASSASSIN, "CIT-46")
    if move.rank not in assassin_targets(s):
        _refuse("CIT-46", f"character {move.rank} cannot be murdered")


def _check_rob(s, seat, move):
    _check_power(s, THIEF, "CIT-47")
    if move.rank not in thief_targets(s):
        _refuse("CIT-47", f"character {move.rank} cannot be robbed")


def _check_swap(s, seat, move):
    _check_power(s, MAGICIAN, "CIT-48")
    if not isinstance(move.player, int) or not 0 <= move.player < s.n or move.player == seat:
        _refuse("CIT-48", "swap with one other player")


def _check_redraw(s, seat, move):
    _check_power(s, MAGICIAN, "CIT-48")
    cards = tuple(move.cards)
    if not cards or len(set(cards)) != len(cards) or any(c not in s.hands[seat] for c in cards):
        _refuse("CIT-48", "redraw one or more distinct cards from your hand")


def _check_lab(s, seat, move):
    if not owns(s, seat, "laboratory"):
        _refuse("CIT-60", "your city has no Laboratory")
    if s.lab_used:
        _refuse("CIT-42", "the Laboratory is used once per turn")
    if move.card not in s.hands[seat]:
        _refuse("CIT-60", f"card {move.card} is not in your hand")


def _check_smithy(s, seat, move):
    if not owns(s, seat, "smithy"):
        _refuse("CIT-61", "your city has no Smithy")
    if s.smithy_used:
        _refuse("CIT-42", "the Smithy is used once per turn")
    if s.gold[seat] < 2:
        _refuse("CIT-61", "the Smithy costs 2 gold")
    if not s.deck:
        _refuse("CIT-44", "the deck is empty")


def _check_destroy(s, seat, move):
    if s.active_rank != WARLORD:
        _refuse("CIT-53", "only the Warlord destroys districts")
    if s.step == "main" and s.opts["warlord_timing"] == "end_of_turn":
        _refuse("CIT-53", "the Warlord destroys at the end of his turn (warlord_timing end_of_turn)")
    if s.warlord_used:
        _refuse("CIT-42", "the Warlord destroys once per turn")
    owner, card = move.player, move.card
    if not isinstance(owner, int) or not 0 <= owner < s.n or card not in s.cities[owner]:
        _refuse("CIT-53", "no such district in that city")
    rule = immunity(s, owner, card)
    if rule:
        _refuse(rule, f"{DISTRICT[card]} cannot be targeted")
    price = destroy_price(s, owner, card)
    if price > s.gold[seat]:
        _refuse("CIT-54", f"destroying {DISTRICT[card]} costs {price}, you have {s.gold[seat]}")


def _check_end(s, seat, move):
    if not s.action_taken:
        _refuse("CIT-32", "take the resource action before ending the turn")


def _check_skip(s, seat, move):
    _refuse("CIT-53", "WARLORD_SKIP is the Warlord's end-step answer")


_MAIN_CHECKS = {
    TakeGold: _check_action, DrawCards: _check_action, Build: _check_build,
    CollectIncome: _check_income, Assassinate: _check_assassinate, Rob: _check_rob,
    MagicSwap: _check_swap, MagicRedraw: _check_redraw, Laboratory: _check_lab,
    Smithy: _check_smithy, WarlordDestroy: _check_destroy, EndTurn: _check_end,
    WarlordSkip: _check_skip,
}


# ---------------------------------------------------------------- apply

def apply(s: CitadelsState, seat: int, move) -> list:
    check(s, seat, move)
    ev: list = []
    _DO[type(move)](s, seat, move, ev)
    return ev


def _do_pick(s, seat, move, ev):
    s.pile.remove(move.rank)
    s.held[seat].append(move.rank)
    ev.append(Event("character_picked", {"seat": seat, "rank": move.rank}, seat))
    if s.n == 2 and s.pick_no in (1, 2):  # CIT-24: keep, then discard one of choice
        s.sel_step = "discard"
        return
    _after_pick(s, ev)


def _do_discard(s, seat, move, ev):
    s.pile.remove(move.rank)
    s.fd_ranks.append(move.rank)
    s.fd_by.append(seat)
    s.my_discards[seat].append(move.rank)
    s.sel_step = "pick"
    ev.append(Event("character_discarded", {"seat": seat, "rank": move.rank}, seat))
    _after_pick(s, ev)


def _after_action(s, seat, ev):
    """CIT-37: Merchant and Architect bonuses right after the resource action."""
    s.action_taken = True
    if s.active_rank == MERCHANT:  # CIT-51
        got = _gain(s, seat, CONSTANTS["merchant_extra_gold"])
        ev.append(Event("gold_gained", {"seat": seat, "amount": got, "reason": "merchant"}))
    elif s.active_rank == ARCHITECT:  # CIT-52
        cards = _draw(s, CONSTANTS["architect_extra_cards"])
        s.hands[seat].extend(cards)
        ev.append(Event("cards_drawn", {"seat": seat, "count": len(cards), "kept": len(cards), "reason": "architect"}))
        ev.append(Event("cards_seen", {"seat": seat, "cards": cards, "reason": "architect"}, seat))


def _do_take_gold(s, seat, move, ev):
    got = _gain(s, seat, CONSTANTS["take_gold_amount"])
    ev.append(Event("gold_gained", {"seat": seat, "amount": got, "reason": "take_gold"}))
    _after_action(s, seat, ev)


def _do_draw(s, seat, move, ev):
    d, k = draw_numbers(s, seat)
    cards = _draw(s, d)
    ev.append(Event("cards_drawn", {"seat": seat, "count": len(cards), "kept": min(k, len(cards)), "reason": "draw"}))
    ev.append(Event("cards_seen", {"seat": seat, "cards": cards, "reason": "draw"}, seat))
    s.hands[seat].extend(cards)  # held while the keep choice is pending
    if len(cards) <= k:
        _after_action(s, seat, ev)
        return
    s.drawn, s.keep_n, s.step = cards, k, "keep"


def _do_keep(s, seat, move, ev):
    kept = list(move.kept)
    returned = list(move.returned) or [c for c in s.drawn if c not in kept]
    for c in returned:
        s.hands[seat].remove(c)
    _to_bottom(s, returned, seat)  # CIT-36 [actor]
    s.drawn, s.keep_n, s.step = [], 0, "main"
    ev.append(Event("cards_kept", {"seat": seat, "kept": len(kept), "returned": len(returned)}))
    ev.append(Event("cards_returned", {"seat": seat, "cards": returned, "reason": "draw"}, seat))
    _after_action(s, seat, ev)


def _do_build(s, seat, move, ev):
    card = move.card
    _pay(s, seat, COST[card])
    _take_from_hand(s, seat, card)
    s.cities[seat].append(card)
    s.built_in[card] = s.round
    s.builds += 1
    ev.append(Event("district_built", {"seat": seat, "card": card, "district": DISTRICT[card],
                                       "cost": COST[card], "round": s.round}))
    if len(s.cities[seat]) == s.opts["city_complete_size"]:
        first = s.first_completer < 0
        if first:  # CIT-69, CIT-70
            s.first_completer, s.complete_round, s.final_round = seat, s.round, True
        ev.append(Event("city_completed", {"seat": seat, "round": s.round, "first": first}))


def _do_income(s, seat, move, ev):
    s.income_taken = True
    got = _gain(s, seat, income_amount(s, seat, s.active_rank))
    ev.append(Event("income_collected", {"seat": seat, "rank": s.active_rank, "amount": got}))


def _do_assassinate(s, seat, move, ev):
    s.power_used = True
    s.murdered = move.rank
    ev.append(Event("murder_named", {"seat": seat, "rank": move.rank}))


def _do_rob(s, seat, move, ev):
    s.power_used = True
    s.robbed = move.rank
    ev.append(Event("robbery_named", {"seat": seat, "rank": move.rank}))


def _do_swap(s, seat, move, ev):
    s.power_used = True
    other = move.player
    s.hands[seat], s.hands[other] = s.hands[other], s.hands[seat]
    s.known_hand[seat], s.known_hand[other] = s.known_hand[other], s.known_hand[seat]
    ev.append(Event("magic_swap", {"seat": seat, "target": other, "cards_given": len(s.hands[other]),
                                   "cards_received": len(s.hands[seat])}))
    ev.append(Event("cards_seen", {"seat": seat, "cards": list(s.hands[seat]), "reason": "swap"}, seat))
    ev.append(Event("cards_seen", {"seat": other, "cards": list(s.hands[other]), "reason": "swap"}, other))


def _do_redraw(s, seat, move, ev):
    s.power_used = True
    cards = list(move.cards)
    for c in cards:
        s.hands[seat].remove(c)
    s.known_hand[seat] = []  # CIT-80: the public can no longer tell which cards stayed
    _to_bottom(s, cards, seat)
    new = _draw(s, len(cards))
    s.hands[seat].extend(new)
    ev.append(Event("magic_redraw", {"seat": seat, "count": len(cards)}))
    ev.append(Event("cards_returned", {"seat": seat, "cards": cards, "reason": "redraw"}, seat))
    ev.append(Event("cards_seen", {"seat": seat, "cards": new, "reason": "redraw"}, seat))


def _do_lab(s, seat, move, ev):
    s.lab_used = True
    s.hands[seat].remove(move.card)
    s.known_hand[seat] = []  # CIT-80
    _to_bottom(s, [move.card], seat)
    got = _gain(s, seat, 1)
    ev.append(Event("laboratory_used", {"seat": seat, "gold": got}))
    ev.append(Event("cards_returned", {"seat": seat, "cards": [move.card], "reason": "laboratory"}, seat))


def _do_smithy(s, seat, move, ev):
    s.smithy_used = True
    _pay(s, seat, 2)
    cards = _draw(s, 3)
    s.hands[seat].extend(cards)
    ev.append(Event("smithy_used", {"seat": seat, "count": len(cards)}))
    ev.append(Event("cards_seen", {"seat": seat, "cards": cards, "reason": "smithy"}, seat))


def _do_destroy(s, seat, move, ev):
    owner, card = move.player, move.card
    price = destroy_price(s, owner, card)
    s.warlord_used = True
    _pay(s, seat, price)
    s.cities[owner].remove(card)
    s.built_in[card] = -1
    ev.append(Event("district_destroyed", {"seat": seat, "target": owner, "card": card,
                                           "district": DISTRICT[card], "price": price}))
    resume = s.step
    keeper = _owner_of(s, "graveyard")
    if keeper >= 0 and keeper != seat and s.gold[keeper] >= 1:  # CIT-63
        s.grave_card, s.grave_seat, s.grave_victim, s.grave_resume = card, keeper, owner, resume
        s.step = "graveyard"
        ev.append(Event("graveyard_offered", {"seat": keeper, "card": card}))
        return
    _dispose(s, card, ev)
    if resume == "end":
        _finish_turn(s, ev)


def _dispose(s, card, ev):
    """CIT-56."""
    if s.opts["destroyed_district_to"] == "deck_bottom":
        _to_bottom(s, [card], -1)
        where = "deck_bottom"
    else:
        s.discard_pile.append(card)
        where = "discard"
    ev.append(Event("district_removed", {"card": card, "district": DISTRICT[card], "to": where}))


def _resume_after_graveyard(s, ev):
    resume = s.grave_resume
    s.grave_card = s.grave_seat = s.grave_victim = -1
    s.grave_resume = ""
    s.step = resume
    if resume == "end":
        _finish_turn(s, ev)


def _do_recover(s, seat, move, ev):
    card = s.grave_card
    _pay(s, seat, 1)
    s.hands[seat].append(card)
    s.known_hand[seat].append(card)  # CIT-63, CIT-80: public
    ev.append(Event("graveyard_recovered", {"seat": seat, "card": card, "district": DISTRICT[card]}))
    _resume_after_graveyard(s, ev)


def _do_decline(s, seat, move, ev):
    ev.append(Event("graveyard_declined", {"seat": seat}))
    _dispose(s, s.grave_card, ev)
    _resume_after_graveyard(s, ev)


def _do_end(s, seat, move, ev):
    if s.active_rank == WARLORD and s.opts["warlord_timing"] == "end_of_turn":
        s.step = "end"  # CIT-32 end step
        ev.append(Event("warlord_step", {"seat": seat}))
        return
    _finish_turn(s, ev)


def _do_skip(s, seat, move, ev):
    ev.append(Event("warlord_skipped", {"seat": seat}))
    _finish_turn(s, ev)


_DO = {
    PickCharacter: _do_pick, DiscardCharacter: _do_discard, TakeGold: _do_take_gold,
    DrawCards: _do_draw, KeepCards: _do_keep, Build: _do_build, CollectIncome: _do_income,
    Assassinate: _do_assassinate, Rob: _do_rob, MagicSwap: _do_swap, MagicRedraw: _do_redraw,
    Laboratory: _do_lab, Smithy: _do_smithy, WarlordDestroy: _do_destroy, WarlordSkip: _do_skip,
    GraveyardRecover: _do_recover, GraveyardDecline: _do_decline, EndTurn: _do_end,
}


# ---------------------------------------------------------------- scoring

def five_colour_bonus(s: CitadelsState, seat: int) -> int:
    """CIT-73 with the Haunted City (CIT-58)."""
    colours = set()
    haunted = -1
    for c in s.cities[seat]:
        if DISTRICT[c] == "haunted_city":
            haunted = c
        else:
            colours.add(COLOUR[c])
    if haunted < 0:
        ok = len(colours) == 5
    elif s.final_round and s.built_in[haunted] == s.complete_round:
        ok = len(colours | {"purple"}) == 5
    else:
        ok = len(colours) >= 4
    return CONSTANTS["five_colour_bonus"] if ok else 0


def score_parts(s: CitadelsState, seat: int) -> dict:
    """CIT-72..CIT-75."""
    points = sum(POINTS[c] for c in s.cities[seat])
    colour = five_colour_bonus(s, seat)
    if seat == s.first_completer:
        completion = CONSTANTS["first_complete_bonus"]
    elif len(s.cities[seat]) >= s.opts["city_complete_size"]:
        completion = CONSTANTS["other_complete_bonus"]
    else:
        completion = 0
    return {"seat": seat, "district_points": points, "five_colour_bonus": colour,
            "completion_bonus": completion, "total": points + colour + completion, "gold": s.gold[seat]}


def tiebreak_key(parts: dict, tiebreak: str) -> tuple:
    """CIT-76."""
    if tiebreak == "district_points_then_gold":
        return (parts["total"], parts["district_points"], parts["gold"])
    if tiebreak == "gold":
        return (parts["total"], parts["gold"])
    return (parts["total"],)


def score(s: CitadelsState) -> dict:
    parts = [score_parts(s, seat) for seat in range(s.n)]
    ranks, winners = rank_by([tiebreak_key(p, s.opts["tiebreak"]) for p in parts])
    return {"scores": parts, "ranks": list(ranks), "winners": list(winners)}


def outcome(s: CitadelsState) -> Outcome:
    result = s.result if s.result is not None else score(s)
    return Outcome(scores=tuple(float(p["total"]) for p in result["scores"]),
                   ranks=tuple(result["ranks"]), winners=tuple(result["winners"]),
                   detail={"scores": result["scores"]})
