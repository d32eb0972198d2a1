"""Single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012).

Each iteration samples a full state consistent with the searching seat's view
(`determinize`), descends a tree whose nodes are keyed by moves, using UCB with
availability counts (a child is only a candidate in determinizations where it is
legal), rolls out with random moves, and backs up one reward per seat.

With ~100 ms per move there are only a few hundred iterations, far fewer than the
moves worth comparing in the widest games (Pompeii's escape turns offer up to ~200).
So a node may carry a `prior` policy's move (the game's greedy choice): it is tried
first, and progressive widening admits the other moves one by one as the node's
visits grow, so search refines the greedy move instead of sampling moves at random.
"""
from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice
from typing import Any

from engines.core import Game, Move

Evaluate = Callable[[Any, int], list[float]]  # (state, seats): every seat's estimated reward
SeatEvaluate = Callable[[Any, int], float]  # (state, seat): one seat's
Policy = Callable[[Any, int, random.Random], Move]
Rank = Callable[[Any, int, list[Move], random.Random], list[Move]]  # legal moves, best first


class Node:
    """One tree node; slotted, since a search makes one per expanded move."""

    __slots__ = ("mover", "visits", "available", "reward", "children", "order", "ranked", "bias")

    def __init__(self, mover: int = -1, bias: float = 0.0) -> None:
        self.mover = mover  # seat that made the move leading here
        self.visits = 0
        self.available = 0
        self.reward = 0.0  # summed reward of `mover`
        self.children: dict[Move, Node] = {}
        # widening priority per move (prior's move first, then `rank`'s order, then random), and the
        # moves seen so far sorted by it, so widening need not sort each legal list again
        self.order: dict[Move, float] | None = None
        self.ranked: list[Move] = []
        self.bias = bias  # progressive bias of the prior's move: fades as 1/visits, keeps the mean unbiased

    def ucb(self, c: float) -> float:
        if self.visits == 0:
            return math.inf
        return (self.reward / self.visits + c * math.sqrt(math.log(max(self.available, 1)) / self.visits)
                + self.bias / (self.visits + 1))


@dataclass(frozen=True)
class SearchResult:
    best: Move
    stats: list[tuple[Move, float, int]]  # (move, mean reward for the searcher, visits)
    iterations: int


@dataclass(frozen=True)
class PerSeat:
    """An `Evaluate` made of a game's one-seat `evaluate`, for a heuristic without `evaluate_all`
    (one pass over the position for every seat, which a search calls after each rollout)."""

    evaluate: SeatEvaluate

    def __call__(self, state: Any, seats: int) -> list[float]:
        return [self.evaluate(state, s) for s in range(seats)]


def actor(game: Game, state: Any) -> int:
    """Whose decision a tree node models: the seat to move, else any seat that may act.
    (`to_move` is one of `seats_to_act` whenever it is a seat: the contract; listing who may act
    costs some engines a legal-move scan per seat.)"""
    turn = game.to_move(state)
    return turn if turn is not None else game.seats_to_act(state)[0]


def terminal_rewards(game: Game, state: Any) -> list[float]:
    """1 shared among winners, plus a small bonus by rank so losing well still counts."""
    o = game.outcome(state)
    n = len(o.ranks)
    rewards = []
    for s in range(n):
        win = 1.0 / len(o.winners) if s in o.winners else 0.0
        place = (n - o.ranks[s]) / max(n - 1, 1)
        rewards.append(0.9 * win + 0.1 * place)
    return rewards


def rollout(game: Game, state: Any, seats: int, rng: random.Random, depth: int,
            evaluate: Evaluate | None, policy: Policy | None = None) -> list[float]:
    """Play `depth` moves (random, or `policy`), then score: the outcome if the game
    ended, else `evaluate` (or a draw when there is none)."""
    for _ in range(depth):
        if game.is_over(state):
            return terminal_rewards(game, state)
        who = actor(game, state)
        move = policy(state, who, rng) if policy else rng.choice(game.legal_moves(state, who))
        game.play(state, who, move)
    if game.is_over(state):
        return terminal_rewards(game, state)
    if evaluate is None:
        return [1.0 / seats] * seats
    return evaluate(state, seats)


def first_order(legal: list[Move], state: Any, who: int, rng: random.Random,
                prior: Policy | None, rank: Rank | None) -> dict[Move, float]:
    """A node's widening priority on its first visit: the prior's move first (-1, which also
    marks it for the progressive bias), then `rank`'s order when the game has one."""
    if len(legal) < 2:
        return {}
    order = {m: float(i) for i, m in enumerate(rank(state, who, legal, rng))} if rank is not None else {}
    if prior is not None:
        order[prior(state, who, rng)] = -1.0
    return order


def widen(node: Node, legal: list[Move], state: Any, who: int, rng: random.Random,
          prior: Policy | None, k: float, alpha: float, rank: Rank | None = None) -> list[Move]:
    """Progressive widening: the first max(1, k * visits^alpha) of `legal` in the node's
    priority order (see `first_order`); moves first seen in later determinizations rank
    after those, in random order."""
    order = node.order
    if order is None:
        order = node.order = first_order(legal, state, who, rng, prior, rank)
        node.ranked = sorted(order, key=order.__getitem__)
    late = len(order)
    fresh: list[Move] = []
    for m in legal:
        if m not in order:
            order[m] = late + rng.random()
            fresh.append(m)
    if fresh:  # each batch ranks after every move seen before it (keys from len(order) up)
        fresh.sort(key=order.__getitem__)
        node.ranked.extend(fresh)
    width = max(1, int(k * node.visits ** alpha))
    if len(node.ranked) == len(legal):  # every move seen so far is legal here
        return node.ranked[:width]
    present = set(legal)
    return list(islice((m for m in node.ranked if m in present), width))


def descend(game: Game, state: Any, node: Node, who: int, legal: list[Move], rng: random.Random, c: float,
            prior_bias: float, first_unvisited: bool) -> Node:
    """Count `legal` as available under `node`, pick the move (an unvisited one, the first with
    widening, else at random; otherwise the highest UCB, the first of equals), apply it to `state`
    and return its child."""
    children = node.children
    order = node.order
    kids: list[Node] = []
    for m in legal:
        child = children.get(m)
        if child is None:
            child = children[m] = Node(who, prior_bias if order is not None and order[m] < 0 else 0.0)
        child.available += 1
        kids.append(child)
    unvisited = [i for i, child in enumerate(kids) if child.visits == 0]
    if unvisited:
        pick = unvisited[0] if first_unvisited else rng.choice(unvisited)
    else:
        log, sqrt = math.log, math.sqrt
        pick, best = 0, -math.inf
        for i, child in enumerate(kids):  # Node.ucb, inlined: the same floats (available >= 1 here)
            visits = child.visits
            value = child.reward / visits + c * sqrt(log(child.available) / visits) + child.bias / (visits + 1)
            if value > best:
                pick, best = i, value
    game.play(state, who, legal[pick])
    return kids[pick]


def search(game: Game, view: dict[str, Any], seat: int, seats: int, rng: random.Random, *,
           iterations: int | None = None, time_ms: float | None = None, c: float = 0.7, rollout_depth: int = 400,
           evaluate: Evaluate | None = None, rollout_policy: Policy | None = None,
           prior: Policy | None = None, prior_bias: float = 0.0, widen_k: float = 0.0,
           widen_alpha: float = 0.5, rank: Rank | None = None) -> SearchResult:
    """Search from `seat`'s view for at most `iterations` or `time_ms` (whichever comes first)."""
    if iterations is None and time_ms is None:
        iterations = 1000
    deadline = time.perf_counter() + time_ms / 1000 if time_ms is not None else math.inf
    root = Node(mover=seat)
    done = 0
    # at least one iteration, even past the deadline: a descheduled process must still answer
    while (iterations is None or done < iterations) and (done == 0 or time.perf_counter() < deadline):
        state = game.determinize(view, seat, rng)
        node, path = root, [root]
        first = True
        # selection and expansion
        while not game.is_over(state):
            who = seat if first else actor(game, state)
            legal = game.legal_moves(state, who)
            first = False
            if not legal:
                break  # only the searching seat may lack a move: refused below
            if widen_k:
                legal = widen(node, legal, state, who, rng, prior, widen_k, widen_alpha, rank)
            node = descend(game, state, node, who, legal, rng, c, prior_bias, widen_k != 0.0)
            path.append(node)
            if node.visits == 0:  # expanded a new child: roll out from it
                break
        rewards = rollout(game, state, seats, rng, rollout_depth, evaluate, rollout_policy)
        for n in path:
            n.visits += 1
            if n.mover >= 0:
                n.reward += rewards[n.mover]
        done += 1
    if not root.children:
        raise ValueError(f"seat {seat} has no legal move to search")
    stats = sorted(((m, n.reward / n.visits if n.visits else 0.0, n.visits) for m, n in root.children.items()),
                   key=lambda t: (t[2], t[1]), reverse=True)
    return SearchResult(best=stats[0][0], stats=stats, iterations=done)
