"""Fair turns at the referee's worker pool (issue 19: "a fair share of the referee pool").

The pool's executor runs jobs first come, first served, so a client that keeps its hints queued
makes everybody else's hint, and other creators' clocked games, wait behind all of them. Jobs
instead wait here, one line per client, and a freed worker goes to the waiting client that has
used the least worker time lately (usage halves every minute): a light client waits for at most
the job that is running, however many a heavy one has queued. With `per_client` (GE_WORKERS_PER_CLIENT)
below the number of places, no client holds every worker: a search is not preempted, so with one
client on every worker, another's 100 ms hint would wait for a 2 s search to end.
"""
from __future__ import annotations

import asyncio
import collections
import contextlib
import time
from collections.abc import AsyncIterator


def halved(amount: float, since: float, now: float, half_life_s: float) -> float:
    """`amount` counted at `since`, halved per half-life until `now`: how much a client used lately."""
    return float(amount * 0.5 ** ((now - since) / half_life_s))


class FairShare:
    def __init__(self, places: int, per_client: int = 0, half_life_s: float = 60.0) -> None:
        self.free = places
        self.per_client = per_client  # places one client holds at once; 0: any number
        self.holding: dict[str, int] = {}
        self.half_life_s = half_life_s
        self.waiting: dict[str, collections.deque[asyncio.Future[None]]] = {}
        self._used: dict[str, tuple[float, float]] = {}  # client -> (worker seconds, when counted)

    def usage(self, client: str, now: float | None = None) -> float:
        """Worker seconds the client used, each halved per half-life since."""
        used, at = self._used.get(client, (0.0, 0.0))
        return halved(used, at, time.monotonic() if now is None else now, self.half_life_s)

    def _may_hold(self, client: str) -> bool:
        return not self.per_client or self.holding.get(client, 0) < self.per_client

    def _take(self, client: str) -> None:
        self.free -= 1
        self.holding[client] = self.holding.get(client, 0) + 1

    def _give_back(self, client: str) -> None:
        self.free += 1
        n = self.holding[client] - 1
        if n:
            self.holding[client] = n
        else:
            del self.holding[client]

    @contextlib.asynccontextmanager
    async def turn(self, client: str) -> AsyncIterator[None]:
        # Free places are always handed to anyone waiting who may hold one (_hand_over), so a free place
        # here is nobody else's turn.
        if self.free > 0 and self._may_hold(client):
            self._take(client)
        else:
            ticket: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            line = self.waiting.setdefault(client, collections.deque())
            line.append(ticket)
            try:
                await ticket
            except asyncio.CancelledError:
                if ticket.done() and not ticket.cancelled():  # the place was given just as the caller left
                    self._give_back(client)
                    self._hand_over()
                else:  # still in line, unless a hand-over already skipped it
                    with contextlib.suppress(ValueError):
                        line.remove(ticket)
                    if not line and self.waiting.get(client) is line:
                        del self.waiting[client]
                raise
        started = time.monotonic()
        try:
            yield
        finally:
            now = time.monotonic()
            self._used[client] = (self.usage(client, now) + now - started, now)
            self._give_back(client)
            self._hand_over()

    def _hand_over(self) -> None:
        """Free places to the waiting clients that may hold one, least used first."""
        now = time.monotonic()
        while self.free > 0:
            eligible = [c for c in self.waiting if self._may_hold(c)]
            if not eligible:
                break
            client = min(eligible, key=lambda c: self.usage(c, now))
            line = self.waiting[client]
            ticket = line.popleft()
            if not line:
                del self.waiting[client]
            if not ticket.done():  # a caller cancelled while waiting has left: the place goes on
                self._take(client)
                ticket.set_result(None)
        if len(self._used) > 10_000:  # bounded: forgetting a client only forgets its past usage
            self._used = {c: u for c, u in self._used.items() if self.usage(c, now) > 0.01}
