"""Tournament schedules as pure functions: round robin with balanced seat rotation, Swiss groupings.

Entrants are plain ids; nothing here knows games, clocks or storage, so the properties the README
promises are tested on these functions directly (tests/server/test_pairing.py).

Round robin: one *cycle* is every set of k entrants, each played k times with the seats rotated by
one, so every entrant meets every other and sits in every seat position equally often
(C(n-1, k-1) times per position per cycle). Each cycle's games are packed first-fit into rounds
with no entrant in common, and played round by round.

Swiss: each round groups entrants of close standings into games of k with no two entrants who
already met in one game, whenever such a grouping exists (a bounded exact search, then the fewest
rematches); leftover entrants (n mod k) get a bye, fewest byes so far first, lowest standing first.
Seats within a game go to whoever sat there least often.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from itertools import combinations

SEARCH_BUDGET = 20_000  # candidate groups looked at in all before settling for a greedy grouping


def cycle_length(entrants: int, seats: int) -> int:
    return math.comb(entrants, seats) * seats


def rotations(group: Sequence[str]) -> list[tuple[str, ...]]:
    """The k seatings of one set of entrants: seat s of rotation r holds group[(s + r) % k]."""
    k = len(group)
    return [tuple(group[(s + r) % k] for s in range(k)) for r in range(k)]


def round_robin(entrants: Sequence[str], seats: int, cycles: int = 1) -> list[tuple[str, ...]]:
    """Seatings of `cycles` round-robin cycles, in schedule order."""
    one = [seating for group in combinations(entrants, seats) for seating in rotations(group)]
    return [seating for _ in range(cycles) for seating in one]


def pack_rounds(seatings: Sequence[Sequence[str]]) -> list[int]:
    """Round (from 1) of each game: first fit, no entrant twice in a round."""
    rounds: list[set[str]] = []
    out = []
    for seating in seatings:
        r = next((i for i, taken in enumerate(rounds) if not taken & set(seating)), len(rounds))
        if r == len(rounds):
            rounds.append(set())
        rounds[r].update(seating)
        out.append(r + 1)
    return out


def circle(entrants: Sequence[str]) -> list[list[tuple[str, str]]]:
    """Two-seat cycle by the circle method: n-1 rounds (n even; a bye slot when odd), then the same
    rounds with the seats swapped, so each pair plays once in each seat order: 2(n-1) rounds."""
    players: list[str | None] = list(entrants) + ([None] if len(entrants) % 2 else [])
    m = len(players)
    first = []
    for _ in range(m - 1):
        first.append([(a, b) for a, b in ((players[i], players[m - 1 - i]) for i in range(m // 2))
                      if a is not None and b is not None])
        players = [players[0], players[-1]] + players[1:-1]
    return first + [[(b, a) for a, b in rnd] for rnd in first]


def round_robin_schedule(entrants: Sequence[str], seats: int, cycles: int = 1) -> list[tuple[int, tuple[str, ...]]]:
    """(round, seating) of every game, in schedule order, cycle after cycle. Two seats: the circle
    method's rounds; more: the cycle's games packed first-fit into rounds."""
    ordered: list[tuple[int, Sequence[str]]]
    if seats == 2:
        ordered = [(r, seating) for r, rnd in enumerate(circle(entrants), start=1) for seating in rnd]
    else:
        one = round_robin(entrants, seats, 1)
        ordered = sorted(zip(pack_rounds(one), one), key=lambda rs: rs[0])  # stable within a round
    per_cycle = ordered[-1][0]
    return [(c * per_cycle + r, tuple(seating)) for c in range(cycles) for r, seating in ordered]


def default_swiss_rounds(entrants: int) -> int:
    return max(1, math.ceil(math.log2(max(entrants, 2))))


def met_pairs(games: Iterable[Sequence[str]]) -> set[frozenset[str]]:
    """Every pair of entrants who sat in one game together."""
    return {frozenset(pair) for seating in games for pair in combinations(set(seating), 2)}


def choose_byes(order: Sequence[str], seats: int, byes: dict[str, int]) -> list[str]:
    """n mod k entrants sit out: fewest byes so far first, then lowest in `order` (best first)."""
    count = len(order) % seats
    if not count:
        return []
    position = {p: i for i, p in enumerate(order)}
    return sorted(order, key=lambda p: (byes.get(p, 0), -position[p]))[:count]


class _OverBudget(Exception):
    pass


def _group(players: list[str], seats: int, met: set[frozenset[str]], allowed: int,
           budget: list[int]) -> list[list[str]] | None:
    """Groups of `seats` covering `players` in order with at most `allowed` rematched pairs, or None."""
    if not players:
        return []
    first, rest = players[0], players[1:]
    for combo in combinations(range(len(rest)), seats - 1):
        budget[0] -= 1
        if budget[0] < 0:
            raise _OverBudget
        members = [first] + [rest[i] for i in combo]
        cost = sum(1 for pair in combinations(members, 2) if frozenset(pair) in met)
        if cost > allowed:
            continue
        chosen = set(combo)
        sub = _group([p for i, p in enumerate(rest) if i not in chosen], seats, met, allowed - cost, budget)
        if sub is not None:
            return [members] + sub
    return None


def swiss_groups(order: Sequence[str], seats: int, met: set[frozenset[str]]) -> list[list[str]]:
    """Group `order` (best standing first, a multiple of `seats` long) into games, neighbours in the
    standings together, with the fewest rematched pairs the search finds within SEARCH_BUDGET (for
    the whole search: it runs on the event loop); past the budget, `_greedy`'s grouping."""
    players = list(order)
    budget = [SEARCH_BUDGET]
    for allowed in range(0, math.comb(seats, 2) * (len(players) // seats) + 1):
        try:
            found = _group(players, seats, met, allowed, budget)
        except _OverBudget:
            break
        if found is not None:
            return found
    return _greedy(players, seats, met)


def _greedy(players: list[str], seats: int, met: set[frozenset[str]]) -> list[list[str]]:
    """Each game in turn: the best-placed entrant left, then one at a time the entrant that adds the
    fewest rematched pairs (the better placed of equals)."""
    left, groups = list(players), []
    while left:
        group = [left.pop(0)]
        while len(group) < seats:
            pick = min(range(len(left)), key=lambda i: (sum(frozenset((left[i], m)) in met for m in group), i))
            group.append(left.pop(pick))
        groups.append(group)
    return groups


def seat_order(group: Sequence[str], seat_counts: dict[str, list[int]]) -> tuple[str, ...]:
    """Seat 0, 1, ... each to the member who sat there least often so far (then the better standing)."""
    left = list(group)
    out = []
    for seat in range(len(group)):
        pick = min(left, key=lambda p: (seat_counts.get(p, [0] * len(group))[seat], left.index(p)))
        out.append(pick)
        left.remove(pick)
    return tuple(out)


def swiss_round(order: Sequence[str], seats: int, previous: Iterable[Sequence[str]],
                byes: dict[str, int]) -> tuple[list[tuple[str, ...]], list[str]]:
    """(seatings, byes) of the next Swiss round. `order` is the standings, best first; `previous`
    every earlier game's seating; `byes` the byes each entrant had so far."""
    previous = [tuple(s) for s in previous]
    out = choose_byes(order, seats, byes)
    playing = [p for p in order if p not in out]
    counts: dict[str, list[int]] = {}
    for seating in previous:
        for s, p in enumerate(seating):
            counts.setdefault(p, [0] * seats)[s] += 1
    groups = swiss_groups(playing, seats, met_pairs(previous))
    return [seat_order(g, counts) for g in groups], out


def seat_balance(seatings: Iterable[Sequence[str]]) -> dict[str, list[int]]:
    """Per entrant, how often it sat in each seat position."""
    out: dict[str, list[int]] = {}
    for seating in seatings:
        for s, p in enumerate(seating):
            out.setdefault(p, [0] * len(seating))[s] += 1
    return out
