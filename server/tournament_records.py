"""The tournament layer's persistent state and the typed records that change it.

Every change to a tournament is one record below, journaled through the store like a move (a
`JournalRecord` of gameengine/storage/v1/storage.proto with game_id "tournament/<id>": `to_journal`
and `from_journal` below; acknowledged only once journaled, replayed at recovery; a snapshot keeps
every tournament record in journal order). Each record names its tournament and carries that
tournament's next `seq`, so `Tournaments.redo` applies it exactly once:
a record the snapshot already holds is skipped, and a game's result is counted once however often
the server restarts. `apply` below is the one place each kind changes the state; the stream events
(game scheduled, game finished, round finished, standings changed, tournament finished) are made
there too, so they are as durable and as ordered as the records.

Standings and the leaderboard (ratings per game and player over every tournament) are folded from
`GameCounted` records in journal order, so a replay rebuilds exactly the ratings that were shown.
"""
from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import Message
from openskill.models import PlackettLuce

from gameengine import codecs
from gameengine.storage.v1 import storage_pb2 as spb
from gameengine.v1 import common_pb2

REGISTERING, RUNNING, FINISHED, CANCELLED = "registering", "running", "finished", "cancelled"
ROUND_ROBIN, SWISS = "round_robin", "swiss"
MODEL = PlackettLuce()


# ---- state -----------------------------------------------------------------------------------
@dataclass
class Slot:
    """One game of the schedule."""
    index: int
    round: int
    seats: tuple[str, ...]  # player id per seat
    seed: int
    game_id: str = ""
    counted: bool = False
    outcome: dict[str, Any] | None = None  # ranks, scores, winners, adjudicated, confidence; None if it failed
    forfeited: tuple[int, ...] = ()
    failure: str = ""


@dataclass
class Line:
    """An entrant's standing in one tournament."""
    games: int = 0
    wins: int = 0
    points: float = 0.0
    score_sum: float = 0.0
    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    byes: int = 0
    forfeits: int = 0


@dataclass
class Rating:
    """A player's leaderboard line in one game, over every tournament."""
    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    games: int = 0
    wins: int = 0
    tournaments: list[str] = field(default_factory=list)


@dataclass
class TournamentEvent:
    cursor: int
    kind: str  # game_scheduled, game_finished, round_finished, standings_changed, tournament_finished
    data: dict[str, Any]


@dataclass
class Tournament:
    tournament_id: str
    name: str
    game: str
    seats: int
    options: dict[str, Any]
    format: str
    games: int  # as requested (round robin; 0 = one cycle)
    rounds: int  # as requested (swiss; 0 = default)
    clock: dict[str, Any]  # referee options of every game
    max_parallel: int
    open_registration: bool
    max_entrants: int
    points_per_rank: tuple[float, ...]
    seed: int
    creator_hash: str
    created_at: float
    state: str = REGISTERING
    entrants: list[str] = field(default_factory=list)
    slots: list[Slot] = field(default_factory=list)
    rounds_total: int = 0
    rounds_finished: int = 0
    byes: dict[int, list[str]] = field(default_factory=dict)  # round -> entrants with a bye
    table: dict[str, Line] = field(default_factory=dict)
    events: list[TournamentEvent] = field(default_factory=list)
    seq: int = 0
    started_at: float = 0.0
    finished_at: float = 0.0
    cancel_reason: str = ""

    @property
    def games_total(self) -> int:
        if self.format == SWISS and self.rounds_total:
            return self.rounds_total * (len(self.entrants) // self.seats)
        return len(self.slots)

    @property
    def rounds_paired(self) -> int:
        return max((s.round for s in self.slots), default=0)

    def round_done(self, r: int) -> bool:
        return all(s.counted for s in self.slots if s.round == r)

    def standings(self) -> list[dict[str, Any]]:
        """Best first: points, then wins, then mu; equal keys share a place."""
        rows: list[dict[str, Any]] = []
        for pid in self.entrants:
            line = self.table.get(pid, Line())
            rows.append({"player_id": pid, "games": line.games, "wins": line.wins,
                         "points": round(line.points, 6),
                         "mean_score": round(line.score_sum / line.games, 6) if line.games else 0.0,
                         "mu": round(line.mu, 6), "sigma": round(line.sigma, 6),
                         "rating_low": round(line.mu - 2 * line.sigma, 6),
                         "rating_high": round(line.mu + 2 * line.sigma, 6),
                         "byes": line.byes, "forfeits": line.forfeits})
        rows.sort(key=lambda r: (-r["points"], -r["wins"], -r["mu"]))
        for i, row in enumerate(rows):
            same = i and (rows[i - 1]["points"], rows[i - 1]["wins"], rows[i - 1]["mu"]) == \
                (row["points"], row["wins"], row["mu"])
            row["place"] = rows[i - 1]["place"] if same else i + 1
        return rows

    def emit(self, kind: str, data: dict[str, Any]) -> None:
        self.events.append(TournamentEvent(len(self.events) + 1, kind, data))


# ---- records -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class TournamentCreated:
    tournament: Tournament  # as created: registering, seq 0, the fixed entry list if any
    seq: int = 1

    @property
    def tournament_id(self) -> str:
        return self.tournament.tournament_id


@dataclass(frozen=True)
class EntrantJoined:
    tournament_id: str
    seq: int
    player_id: str


@dataclass(frozen=True)
class EntrantWithdrew:
    tournament_id: str
    seq: int
    player_id: str


@dataclass(frozen=True)
class TournamentStarted:
    """The entrants in their seeded order, the rounds, and the games known at the start (every game
    of a round robin; round 1 of a Swiss event with its byes)."""
    tournament_id: str
    seq: int
    entrants: tuple[str, ...]
    rounds_total: int
    slots: tuple[tuple[int, tuple[str, ...], int], ...]  # (round, seats, seed)
    byes: tuple[str, ...]
    at: float


@dataclass(frozen=True)
class RoundPaired:
    """A later Swiss round: its games and byes, paired from the standings after the round before."""
    tournament_id: str
    seq: int
    round: int
    slots: tuple[tuple[tuple[str, ...], int], ...]  # (seats, seed)
    byes: tuple[str, ...]


@dataclass(frozen=True)
class GameScheduled:
    tournament_id: str
    seq: int
    index: int
    game_id: str


@dataclass(frozen=True)
class GameCounted:
    """A game's result fed into the standings and the leaderboard (outcome None: the game failed)."""
    tournament_id: str
    seq: int
    index: int
    outcome: dict[str, Any] | None
    forfeited: tuple[int, ...] = ()
    failure: str = ""


@dataclass(frozen=True)
class TournamentEnded:
    tournament_id: str
    seq: int
    state: str  # FINISHED or CANCELLED
    reason: str
    at: float


TournamentRecord = (TournamentCreated | EntrantJoined | EntrantWithdrew | TournamentStarted | RoundPaired
                    | GameScheduled | GameCounted | TournamentEnded)


# ---- apply ------------------------------------------------------------------------------------
def points_of(rank: int, points_per_rank: tuple[float, ...]) -> float:
    """A place's points; a shared place scores that place's points (ranks 1, 1, 3 -> p1, p1, p3)."""
    return points_per_rank[min(max(rank, 1), len(points_per_rank)) - 1]


class Tournaments:
    """Every tournament by id, which game belongs to which slot, and the leaderboards."""

    def __init__(self) -> None:
        self.by_id: dict[str, Tournament] = {}
        self.by_game: dict[str, tuple[str, int]] = {}  # game id -> (tournament id, slot index)
        self.leaderboard: dict[str, dict[str, Rating]] = {}  # game -> player id -> rating
        self.signals: dict[str, asyncio.Event] = {}  # tournament id -> its streams' wake-up (not persisted)
        # every applied record as its JournalRecord, in order: what a snapshot keeps
        self.history: list[spb.JournalRecord] = []

    def redo(self, record: TournamentRecord) -> int:
        """Apply a "tournament" record; 0 when it was applied already (it is in the snapshot)."""
        if isinstance(record, TournamentCreated):
            if record.tournament_id in self.by_id:
                return 0
            created = _copy_created(record.tournament)
            self.by_id[created.tournament_id] = created
            created.seq = 1
            return 1
        t = self.by_id.get(record.tournament_id)
        if t is None or record.seq != t.seq + 1:
            return 0
        APPLY[type(record)](self, t, record)
        t.seq = record.seq
        signal = self.signals.pop(t.tournament_id, None)
        if signal is not None:
            signal.set()
        return 1


def _copy_created(t: Tournament) -> Tournament:
    from dataclasses import replace
    return replace(t, entrants=list(t.entrants), slots=[], table={p: Line() for p in t.entrants}, events=[],
                   byes={})


def _joined(ts: Tournaments, t: Tournament, r: EntrantJoined) -> None:
    t.entrants.append(r.player_id)
    t.table[r.player_id] = Line()


def _withdrew(ts: Tournaments, t: Tournament, r: EntrantWithdrew) -> None:
    t.entrants.remove(r.player_id)
    t.table.pop(r.player_id, None)


def _add_byes(t: Tournament, round_: int, byes: tuple[str, ...]) -> None:
    t.byes[round_] = list(byes)
    for pid in byes:  # a bye scores as a first place
        t.table[pid].byes += 1
        t.table[pid].points += points_of(1, t.points_per_rank)
    if byes:
        t.emit("standings_changed", {"standings": t.standings(), "games_finished": _finished(t)})


def _started(ts: Tournaments, t: Tournament, r: TournamentStarted) -> None:
    t.state, t.started_at = RUNNING, r.at
    t.entrants = list(r.entrants)
    t.rounds_total = r.rounds_total
    t.slots = [Slot(i, rnd, tuple(seats), seed) for i, (rnd, seats, seed) in enumerate(r.slots)]
    _add_byes(t, 1, r.byes)


def _paired(ts: Tournaments, t: Tournament, r: RoundPaired) -> None:
    base = len(t.slots)
    t.slots.extend(Slot(base + i, r.round, tuple(seats), seed) for i, (seats, seed) in enumerate(r.slots))
    _add_byes(t, r.round, r.byes)


def _scheduled(ts: Tournaments, t: Tournament, r: GameScheduled) -> None:
    slot = t.slots[r.index]
    slot.game_id = r.game_id
    ts.by_game[r.game_id] = (t.tournament_id, r.index)
    t.emit("game_scheduled", {"index": r.index})


def _finished(t: Tournament) -> int:
    return sum(1 for s in t.slots if s.counted)


def _counted(ts: Tournaments, t: Tournament, r: GameCounted) -> None:
    slot = t.slots[r.index]
    slot.counted, slot.outcome, slot.forfeited, slot.failure = True, r.outcome, tuple(r.forfeited), r.failure
    ts.by_game.pop(slot.game_id, None)
    if r.outcome is not None:
        _rate(ts, t, slot, r.outcome)
    t.emit("game_finished", {"index": r.index})
    t.emit("standings_changed", {"standings": t.standings(), "games_finished": _finished(t)})
    while t.rounds_finished < t.rounds_paired and t.round_done(t.rounds_finished + 1):
        t.rounds_finished += 1
        t.emit("round_finished", {"round": t.rounds_finished, "byes": list(t.byes.get(t.rounds_finished, []))})


def _rate(ts: Tournaments, t: Tournament, slot: Slot, outcome: dict[str, Any]) -> None:
    ranks = list(outcome["ranks"])
    scores = list(outcome.get("scores") or [0.0] * len(slot.seats))
    board = ts.leaderboard.setdefault(t.game, {})
    for s, pid in enumerate(slot.seats):
        line = t.table[pid]
        line.games += 1
        line.wins += ranks[s] == 1
        line.points += points_of(ranks[s], t.points_per_rank)
        line.score_sum += scores[s] if s < len(scores) else 0.0
        line.forfeits += s in slot.forfeited
        entry = board.setdefault(pid, Rating())
        entry.games += 1
        entry.wins += ranks[s] == 1
        if t.tournament_id not in entry.tournaments:
            entry.tournaments.append(t.tournament_id)
    # an entrant sits once per game (every seat a different entrant), so each seat is its own team
    own = MODEL.rate([[MODEL.rating(mu=t.table[p].mu, sigma=t.table[p].sigma)] for p in slot.seats], ranks=ranks)
    overall = MODEL.rate([[MODEL.rating(mu=board[p].mu, sigma=board[p].sigma)] for p in slot.seats], ranks=ranks)
    for pid, mine, all_time in zip(slot.seats, own, overall):
        t.table[pid].mu, t.table[pid].sigma = mine[0].mu, mine[0].sigma
        board[pid].mu, board[pid].sigma = all_time[0].mu, all_time[0].sigma


def _ended(ts: Tournaments, t: Tournament, r: TournamentEnded) -> None:
    t.state, t.finished_at, t.cancel_reason = r.state, r.at, r.reason
    for slot in t.slots:
        if not slot.counted:
            ts.by_game.pop(slot.game_id, None)
    t.emit("tournament_finished", {"state": r.state, "standings": t.standings()})


# record kind -> its apply function (each takes a record of its own kind)
APPLY: dict[type, Callable[[Tournaments, Tournament, Any], None]] = {
    EntrantJoined: _joined, EntrantWithdrew: _withdrew, TournamentStarted: _started, RoundPaired: _paired,
    GameScheduled: _scheduled, GameCounted: _counted, TournamentEnded: _ended}


# ---- wire form (gameengine/storage/v1/storage.proto) ------------------------------------------------
FIELDS = {TournamentCreated: "tournament_created", EntrantJoined: "tournament_joined",
          EntrantWithdrew: "tournament_withdrew", TournamentStarted: "tournament_started",
          RoundPaired: "tournament_round_paired", GameScheduled: "tournament_game_scheduled",
          GameCounted: "tournament_game_counted", TournamentEnded: "tournament_ended"}
SUBJECT = "tournament/"
_OUTCOME_KEYS = ("scores", "ranks", "winners", "adjudicated", "confidence")


def _slot_pb(round_: int, seats: Sequence[str], seed: int) -> spb.TournamentSlot:
    return spb.TournamentSlot(round=round_, seats=list(seats), seed=seed)


def _encode(r: TournamentRecord) -> Message:
    if isinstance(r, TournamentCreated):
        t = r.tournament
        msg = spb.TournamentCreated(
            tournament_id=t.tournament_id, name=t.name, game=t.game, seats=t.seats, format=t.format, games=t.games,
            rounds=t.rounds, clock=spb.RefereeSettings(**t.clock), max_parallel=t.max_parallel,
            open_registration=t.open_registration, max_entrants=t.max_entrants,
            points_per_rank=list(t.points_per_rank), seed=t.seed, creator_hash=t.creator_hash,
            created_at=t.created_at, entrants=list(t.entrants))
        msg.options.CopyFrom(codecs.Codec.pack(codecs.codec(t.game).options_to_proto(t.options)))
        return msg
    if isinstance(r, (EntrantJoined, EntrantWithdrew)):
        return spb.TournamentEntrant(player_id=r.player_id)
    if isinstance(r, TournamentStarted):
        return spb.TournamentStarted(entrants=list(r.entrants), rounds_total=r.rounds_total,
                                     slots=[_slot_pb(*s) for s in r.slots], byes=list(r.byes), at=r.at)
    if isinstance(r, RoundPaired):
        slots = [_slot_pb(r.round, seats, seed) for seats, seed in r.slots]
        return spb.TournamentRoundPaired(round=r.round, slots=slots, byes=list(r.byes))
    if isinstance(r, GameScheduled):
        return spb.TournamentGameScheduled(index=r.index, game_id=r.game_id)
    if isinstance(r, GameCounted):
        counted = spb.TournamentGameCounted(index=r.index, forfeited=list(r.forfeited), failure=r.failure)
        if r.outcome is not None:
            counted.outcome.CopyFrom(common_pb2.Outcome(**{k: r.outcome[k] for k in _OUTCOME_KEYS if k in r.outcome}))
        return counted
    if isinstance(r, TournamentEnded):
        return spb.TournamentEnded(state=r.state, reason=r.reason, at=r.at)
    raise ValueError(f"not a tournament record: {type(r).__name__}")


def to_journal(record: TournamentRecord, at: float) -> spb.JournalRecord:
    pb = spb.JournalRecord(game_id=SUBJECT + record.tournament_id, seq=record.seq, at=at)
    getattr(pb, FIELDS[type(record)]).CopyFrom(_encode(record))
    return pb


def from_journal(pb: spb.JournalRecord) -> TournamentRecord:
    kind = pb.WhichOneof("write")
    if kind is None:
        raise ValueError("not a tournament record kind: none")
    m: Any = getattr(pb, kind)  # the kind's storage message
    tid, seq = pb.game_id.removeprefix(SUBJECT), pb.seq
    if kind == "tournament_created":
        c = m.clock
        clock = {"time_bank_ms": c.time_bank_ms, "increment_ms": c.increment_ms,
                 "timeout_policy": c.timeout_policy or "autoplay", "max_moves": c.max_moves}
        codec = codecs.codec(m.game)
        options = codec.options_from_proto(codec.unpack(m.options, codec.Options))
        return TournamentCreated(Tournament(
            tournament_id=m.tournament_id, name=m.name, game=m.game, seats=m.seats, options=options, format=m.format,
            games=m.games, rounds=m.rounds, clock=clock, max_parallel=m.max_parallel,
            open_registration=m.open_registration, max_entrants=m.max_entrants,
            points_per_rank=tuple(m.points_per_rank), seed=m.seed, creator_hash=m.creator_hash,
            created_at=m.created_at, entrants=list(m.entrants)))
    if kind == "tournament_joined":
        return EntrantJoined(tid, seq, m.player_id)
    if kind == "tournament_withdrew":
        return EntrantWithdrew(tid, seq, m.player_id)
    if kind == "tournament_started":
        return TournamentStarted(tid, seq, tuple(m.entrants), m.rounds_total,
                                 tuple((s.round, tuple(s.seats), s.seed) for s in m.slots), tuple(m.byes), m.at)
    if kind == "tournament_round_paired":
        return RoundPaired(tid, seq, m.round, tuple((tuple(s.seats), s.seed) for s in m.slots), tuple(m.byes))
    if kind == "tournament_game_scheduled":
        return GameScheduled(tid, seq, m.index, m.game_id)
    if kind == "tournament_game_counted":
        outcome = None
        if m.HasField("outcome"):
            o = m.outcome
            outcome = {"ranks": list(o.ranks), "scores": list(o.scores), "winners": list(o.winners),
                       "adjudicated": o.adjudicated, "confidence": o.confidence}
        return GameCounted(tid, seq, m.index, outcome, tuple(m.forfeited), m.failure)
    if kind == "tournament_ended":
        return TournamentEnded(tid, seq, m.state, m.reason, m.at)
    raise ValueError(f"not a tournament record kind: {kind}")
