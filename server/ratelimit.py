"""Per-connection token buckets: a flood from one peer gets RESOURCE_EXHAUSTED, others go on."""
from __future__ import annotations

import time

from .errors import Exhausted


class PeerLimiter:
    def __init__(self, rate_per_s: float, burst: float | None = None, max_peers: int = 10_000):
        self.rate = rate_per_s
        self.burst = burst or max(rate_per_s, 1.0)
        self.max_peers = max_peers
        self.buckets: dict[str, tuple[float, float]] = {}  # peer -> (tokens, last refill)

    def check(self, peer: str) -> None:
        if self.rate <= 0:
            return
        now = time.monotonic()
        tokens, last = self.buckets.get(peer, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        if tokens < 1:
            self.buckets[peer] = (tokens, now)
            raise Exhausted(f"rate limit of {self.rate:g} requests/s per connection exceeded",
                            retry_after_ms=int(1000 * (1 - tokens) / self.rate) + 1)
        if len(self.buckets) >= self.max_peers and peer not in self.buckets:
            self.buckets.clear()  # bounded memory; forgetting idle peers only loosens the limit
        self.buckets[peer] = (tokens - 1, now)


LIMITER = PeerLimiter(0)
