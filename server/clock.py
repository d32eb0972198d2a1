"""Turn clocks: pure functions over the journaled clock (records.Clock).

The seat charged (`Clock.turn`) is always the seat the game waits for (GameCore.to_move),
so a Small World defender pays for its own redeployment (SW-82), never the attacker.
"""
from __future__ import annotations

from typing import Any

from .errors import InvalidArgument
from .records import Clock

# Bounds of RefereeOptions (stated in common.proto). Banks are int64 on the wire and in
# the journal, so banks grown by increments cannot overflow; the bounds keep clocks sane.
MAX_TIME_BANK_MS = 7 * 24 * 3600 * 1000
MAX_INCREMENT_MS = 24 * 3600 * 1000
TIMEOUT_POLICIES = {0: "autoplay", 1: "autoplay", 2: "random", 3: "forfeit"}  # common.proto TimeoutPolicy


def timeout_policy(value: int, rule: str = "REF-CLOCK") -> str:
    """The referee's policy for a TimeoutPolicy value; an unknown one is refused, never read as autoplay."""
    policy = TIMEOUT_POLICIES.get(value)
    if policy is None:
        raise InvalidArgument(f"unknown referee timeout_policy {value}; see TimeoutPolicy in common.proto",
                              rule=rule)
    return policy


def validate(referee: dict[str, Any]) -> None:
    """Refuse referee options out of bounds before anything is created (REF-CLOCK)."""
    if not 0 <= referee.get("time_bank_ms", 0) <= MAX_TIME_BANK_MS:
        raise InvalidArgument(f"referee.time_bank_ms must be at most {MAX_TIME_BANK_MS} (7 days)",
                              rule="REF-CLOCK")
    if not 0 <= referee.get("increment_ms", 0) <= MAX_INCREMENT_MS:
        raise InvalidArgument(f"referee.increment_ms must be at most {MAX_INCREMENT_MS} (1 day)",
                              rule="REF-CLOCK")


def start(seats: int, bank_ms: int, turn: int, now: float) -> Clock:
    return Clock((bank_ms,) * seats, turn, now)


def resumed(clock: Clock, stopped_at: float | None, now: float) -> Clock:
    """The clock after a restart: the seat charged pays what it used until the last server stopped
    (`stopped_at`: datadir.last_alive; None when unknown: nothing), never the downtime."""
    bank = list(clock.bank_ms)
    if stopped_at is not None and 0 <= clock.turn < len(bank) and stopped_at > clock.since:
        bank[clock.turn] = max(0, bank[clock.turn] - int((stopped_at - clock.since) * 1000))
    return Clock(tuple(bank), clock.turn, now)


def after_move(clock: Clock, seat: int, turn: int, increment_ms: int, now: float) -> Clock:
    """The clock after `seat` moved and the game now waits for `turn`.

    The seat that was being charged pays its time so far whenever it moved or the wait
    passed to another seat; only its own move earns the increment. An out-of-turn move
    (a Pompeii declaration) that leaves the wait where it was changes nothing."""
    bank = list(clock.bank_ms)
    waited, since = clock.turn, clock.since
    if 0 <= waited < len(bank) and (waited == seat or turn != waited):
        bank[waited] = max(0, bank[waited] - int((now - since) * 1000)) + (increment_ms if waited == seat else 0)
        since = now
    return Clock(tuple(bank), turn, since)


def remaining_ms(clock: Clock, now: float) -> float:
    """What the charged seat has left now (negative once it ran out; infinite when nobody is charged)."""
    if clock.turn < 0:
        return float("inf")
    return clock.bank_ms[clock.turn] - (now - clock.since) * 1000


def banks_now(clock: Clock, over: bool, now: float) -> list[int]:
    """Per-seat banks as shown in GameStatus: the charged seat live, never below 0."""
    bank = list(clock.bank_ms)
    if not over and 0 <= clock.turn < len(bank):
        bank[clock.turn] = max(0, int(bank[clock.turn] - (now - clock.since) * 1000))
    return bank
