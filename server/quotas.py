"""Per-client and total quotas: what one caller may take of the server, so nobody else notices.

A *client* is `client_identity(peer, player_token, forwarded)`: a verified player token where one
is given, else the caller's IP address (IPv6 by /64, since one host holds a whole /64): the peer's,
or behind proxies the operator trusts (GE_TRUSTED_PROXIES) the address they forwarded. Every
refusal is `Exhausted` (RESOURCE_EXHAUSTED) with a retry delay (RetryInfo) and a sentence
naming the quota and its setting; the knobs are GE_* settings (config.py, README "Limits").

Hooked in at three places only: `edge.rpc` (requests, the caller's identity for the
call), the stream handler (streams) and the referee (hints and referee work). Counters live
in memory: after a restart, games recovered from disk count towards the total, not towards
a client.
"""
from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import functools
import hashlib
import ipaddress
import math
import random
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from . import metrics
from .errors import Exhausted as _Exhausted
from .errors import ServiceError
from .fairshare import halved


class Exhausted(_Exhausted):
    """A quota's refusal, as opposed to a busy worker pool (both are paced by `Quotas.pace`)."""
    client_quota = True

    def __init__(self, message: str, rule: str | None = None, retry_after_ms: int | None = None,
                 metadata: dict[str, str] | None = None) -> None:
        super().__init__(message, rule, retry_after_ms, metadata)
        metrics.LIMIT_REFUSALS.labels("quota").inc()  # every quota refusal, counted where it is made

PACE_MIN_S, PACE_MAX_S = 0.25, 1.0  # a paced refusal is held for its retry delay, within these
LIGHT_BURST = 2  # a light share comes two at a time: sixty addresses cannot spend theirs in one burst
STREAM_PACE_MAX_S = 5.0  # a refused stream has no deadline to keep: held for its whole retry delay
PACED_PER_CLIENT = 1024  # refusals held at once per client: one beyond is answered at once, and comes straight back
PACED_TOTAL = 16384  # and for all clients together: each held refusal keeps its call
JITTER = 0.2  # holds are shortened by up to this share: refused together, a flood would come back in waves
# An address's requests come at most a tenth of a second's worth at once, and beyond its rate wait in
# line for up to a second; a call that would wait longer is refused, held and told to wait that second.
# With a client's burst (two seconds') an address's refused calls came back in waves that were let in
# whole and held other callers' calls for 160-210 ms.
ADDRESS_BURST_S = 0.1
ADDRESS_WAIT_MAX_S = 1.0
# A create beyond its light share waits for the shared bucket's next token up to this long (FairBucket).
CREATE_WAIT_MAX_S = 1.0
EVENTS_PER_REQUEST = 10  # streamed events that cost a client one request (about as much work to send)
CALLER: contextvars.ContextVar[str] = contextvars.ContextVar("caller", default="")
# The caller's address ("ip:..."), whatever identity it called as: players registered from one address
# share its ceilings (live games, streams), so registering more players does not multiply them.
ADDRESS: contextvars.ContextVar[str] = contextvars.ContextVar("address", default="")
PLAYER_TOKEN_HEADER = "x-player-token"
# Maps a player token (metadata x-player-token) to its player id, None for an unknown token (an
# unverified token is no identity: anyone could send new ones); main.py installs the registry's.
verify_player_token: Callable[[str], str | None] | None = None


def client_identity(peer: str, player_token: str = "", forwarded: str | None = None) -> str:
    """The key quotas are counted under: a verified player, else the caller's address."""
    if player_token and verify_player_token is not None:
        player = verify_player_token(player_token)
        if player is not None:
            return "player:" + player
    return "ip:" + peer_address(peer, forwarded)


Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address
# Proxies whose X-Forwarded-For is believed (GE_TRUSTED_PROXIES; config.trusted_networks): behind them,
# a router's or load balancer's own address would make every caller one client.
TRUSTED_PROXIES: tuple[Network, ...] = ()
MAX_HOPS = 16  # X-Forwarded-For entries read, from the right: a longer list is caller text
MAX_FORWARDED_CHARS = MAX_HOPS * 48  # of its end: what a cache key holds of caller text


def trust_proxies(networks: tuple[Network, ...]) -> None:
    global TRUSTED_PROXIES
    TRUSTED_PROXIES = networks
    _peer_address.cache_clear()


def trusted_proxy(ip: Address | None) -> bool:
    return ip is not None and any(ip in net for net in TRUSTED_PROXIES)


def peer_address(peer: str, forwarded: str | None = None) -> str:
    """The caller's IP, without the port, an IPv6 address by its /64: a gRPC peer string's
    (`ipv4:1.2.3.4:5`, `ipv6:[::1]:5`) or a web peer's (`web:1.2.3.4:5`), or behind trusted proxies
    the address they forwarded (`forwarded`: the call's X-Forwarded-For)."""
    return _peer_address(peer, forwarded[-MAX_FORWARDED_CHARS:] if forwarded and TRUSTED_PROXIES else None)


@functools.lru_cache(maxsize=4096)
def _peer_address(peer: str, forwarded: str | None) -> str:
    kind, _, rest = peer.partition(":")
    if kind not in ("ipv4", "ipv6", "web"):
        return kind or "unknown"  # unix sockets and the like: one client
    host = rest.rsplit(":", 1)[0] if rest.count(":") == 1 or rest.startswith("[") else rest
    ip = ip_of(host)
    if ip is None:
        return host.strip("[]")[:64] or "unknown"
    if forwarded and trusted_proxy(ip):
        ip = forwarded_origin(ip, forwarded)
    if ip.version == 6:
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def ip_of(text: str) -> Address | None:
    """An address as peers and X-Forwarded-For write it (`1.2.3.4`, `1.2.3.4:5`, `::1`, `[::1]:5`), an
    IPv4-mapped IPv6 one as IPv4; None for anything else."""
    text = text.strip()
    if text.startswith("["):
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:
        text = text.partition(":")[0]
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None
    mapped = getattr(ip, "ipv4_mapped", None)
    return mapped if mapped is not None else ip


def forwarded_origin(proxy: Address, forwarded: str) -> Address:
    """The caller behind a trusted proxy: X-Forwarded-For read from the right, where each proxy
    appended the address it was called from, past every trusted one. The first address not trusted is
    the caller; an entry that is no address ends the walk at the last trusted hop, since anyone could
    have written it (as nginx's realip_recursive)."""
    ip = proxy
    for hop in reversed(forwarded.split(",")[-MAX_HOPS:]):
        if not trusted_proxy(ip):
            break
        found = ip_of(hop)
        if found is None:
            break
        ip = found
    return ip


def _stream_refusal(message: str) -> Exhausted:
    refusal = Exhausted(message, retry_after_ms=5_000)
    refusal.pace_max_s = STREAM_PACE_MAX_S
    return refusal


def caller() -> str:
    """The identity of the client whose call is running (set by `edge.rpc`)."""
    return CALLER.get()


def address() -> str:
    """The address of the client whose call is running (set by `edge.rpc`)."""
    return ADDRESS.get()


class Bucket:
    """Token bucket: `rate` per second, up to `burst`. Rate 0 = unlimited."""

    __slots__ = ("tokens", "last")

    def __init__(self, burst: float):
        self.tokens = burst
        self.last = time.monotonic()

    def _refill(self, rate: float, burst: float) -> None:
        now = time.monotonic()
        self.tokens = min(burst, self.tokens + (now - self.last) * rate)
        self.last = now

    def take(self, rate: float, burst: float, cost: float = 1.0) -> float:
        """0.0 if taken, else the seconds until `cost` would be available."""
        self._refill(rate, burst)
        if self.tokens >= min(cost, burst):  # a cost over the burst waits for a full bucket, then owes the rest
            self.tokens -= cost
            return 0.0
        return (min(cost, burst) - self.tokens) / rate

    def reserve(self, rate: float, burst: float, cost: float) -> float:
        """Take `cost` now, into debt if need be; the seconds until the debt is paid. Waiters line up
        in arrival order, each woken once at its turn: retrying `take` after a sleep woke every
        waiter at each refill to find the one that fits, a burst of wake-ups every few milliseconds."""
        self._refill(rate, burst)
        self.tokens -= cost
        return max(0.0, -self.tokens / rate)


class FairBucket:
    """A token bucket many addresses share (GE_CREATES_TOTAL_PER_S). With a token free and nobody
    waiting a take is immediate; otherwise the taker waits up to `max_wait_s`, and each token as it
    refills goes to the waiting address that took the fewest lately (halved every `half_life_s`).
    First come, first served, a botnet whose sixty addresses kept asking took nearly every token, and a
    player creating one game every few seconds waited 1.5 s per create (bench.abuse
    mass_create_many_addresses). At most `max_waiting` wait; a newcomer that took fewer lately than
    the heaviest waiter takes that one's place."""

    def __init__(self, rate: float, burst: float, max_wait_s: float = CREATE_WAIT_MAX_S,
                 half_life_s: float = 10.0, max_waiting: int = 256) -> None:
        self.rate, self.burst, self.max_wait_s = rate, burst, max_wait_s
        self.half_life_s, self.max_waiting = half_life_s, max_waiting
        self.bucket = Bucket(burst)
        self.waiting: dict[asyncio.Future[bool], str] = {}  # ticket -> address, in arrival order
        self._taken: dict[str, tuple[float, float]] = {}  # address -> (tokens taken, when counted)
        self._timer: asyncio.TimerHandle | None = None

    def taken(self, address: str, now: float) -> float:
        count, at = self._taken.get(address, (0.0, now))
        return halved(count, at, now, self.half_life_s)

    def _count(self, address: str, now: float) -> None:
        if len(self._taken) >= 100_000:  # bounded: forgetting an address only forgets its past takes
            self._taken = {a: t for a, t in self._taken.items() if halved(*t, now, self.half_life_s) > 0.01}
        self._taken[address] = (self.taken(address, now) + 1, now)

    def try_take(self, address: str) -> bool:
        """A token now if one is free and no waiting address took fewer lately (callers that do not
        wait, such as a tournament's scheduler, keep their fair share too)."""
        now = time.monotonic()
        if self.waiting and min(self.taken(a, now) for a in self.waiting.values()) <= self.taken(address, now):
            return False
        if self.bucket.take(self.rate, self.burst) != 0.0:
            return False
        self._count(address, now)
        return True

    async def take(self, address: str) -> float:
        """0.0 once `address` has a token; else (nothing taken) the seconds to tell it to wait: the next
        token's if that is more than `max_wait_s` away (refused at once), else `max_wait_s`."""
        if self.try_take(address):
            return 0.0
        next_token_s = (1 - self.bucket.tokens) / self.rate  # try_take just refilled it
        if not self.waiting and next_token_s > self.max_wait_s:
            return next_token_s
        now = time.monotonic()
        if len(self.waiting) >= self.max_waiting:
            heaviest = max(self.waiting, key=lambda t: self.taken(self.waiting[t], now))
            if self.taken(self.waiting[heaviest], now) <= self.taken(address, now):
                return self.max_wait_s
            self._expire(heaviest)
        loop = asyncio.get_running_loop()
        ticket: asyncio.Future[bool] = loop.create_future()
        self.waiting[ticket] = address
        expiry = loop.call_later(self.max_wait_s, self._expire, ticket)
        self._schedule(loop)
        try:
            return 0.0 if await ticket else self.max_wait_s
        except asyncio.CancelledError:
            self.waiting.pop(ticket, None)
            if ticket.done() and not ticket.cancelled() and ticket.result():  # given as the caller left
                self.bucket.tokens += 1
                self._hand_over()
            raise
        finally:
            expiry.cancel()

    def _expire(self, ticket: asyncio.Future[bool]) -> None:
        if self.waiting.pop(ticket, None) is not None and not ticket.done():
            ticket.set_result(False)

    def _schedule(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._timer is None and self.waiting:
            self._timer = loop.call_later(max(0.0, (1 - self.bucket.tokens) / self.rate), self._hand_over)

    def _hand_over(self) -> None:
        """Tokens refilled so far to the waiting addresses that took the fewest lately (ties: the first to come)."""
        if self._timer is not None:
            self._timer.cancel()  # called early, when a token came back
            self._timer = None
        now = time.monotonic()
        while self.waiting and self.bucket.take(self.rate, self.burst) == 0.0:
            ticket = min(self.waiting, key=lambda t: self.taken(self.waiting[t], now))
            self._count(self.waiting.pop(ticket), now)
            ticket.set_result(True)
        if self.waiting:
            self._schedule(asyncio.get_running_loop())


@dataclass
class Settings:
    """The quotas; 0 turns one off. Defaults are in config.py (and the README)."""
    requests_per_s: float = 0  # per client (GE_RATE_LIMIT_PER_S)
    requests_per_address_s: float = 0  # all identities calling from one address together
    creates_per_min: float = 0  # per client
    creates_burst: float = 0  # per client, at once (0: creates_per_min)
    creates_total_per_s: float = 0  # all heavy creators together (a client's light share is not counted)
    creates_light_per_min: float = 0  # per client: creates never held to creates_total_per_s
    live_games: int = 0  # unfinished games in memory, all clients
    live_games_per_client: int = 0
    live_games_per_address: int = 0  # all identities calling from one address together
    demo_games_per_client: int = 0  # unfinished games on a bank under demo_bank_ms
    demo_bank_ms: int = 0
    streams_per_client: int = 0
    streams_per_address: int = 0  # all identities calling from one address together
    tournaments_per_address: int = 0  # registering or running, created from one address
    spectators_per_game: int = 0  # seat streams are not counted here: a victim keeps its own
    replay_events_per_game_s: float = 0  # history replayed to a game's spectators, all clients together
    hints_per_client: int = 0  # at once
    hints_per_game: int = 0  # at once
    hints_per_address: int = 0  # at once, all identities calling from one address together
    hint_ms_per_client_min: float = 0  # search time per client per minute
    pool_jobs_per_client: int = 0  # referee search jobs (autoplay, adjudication) at once, per game owner
    referee_moves_per_client_s: float = 0  # referee moves in games a client created
    calls_per_client: int = 0  # handlers of one client running at once; the rest wait their turn
    calls_per_address: int = 0  # handlers of all the identities calling from one address, at once

    def create_burst(self) -> float:
        """Creates a client may make at once: GE_CREATES_BURST, never more than a minute's worth."""
        return min(self.creates_burst or self.creates_per_min, self.creates_per_min)

    @classmethod
    def of(cls, cfg: object) -> Settings:  # a Config, or any object with some of the fields
        return cls(**{f: getattr(cfg, f) for f in cls.__dataclass_fields__ if hasattr(cfg, f)})


@dataclass
class Quotas:
    settings: Settings = field(default_factory=Settings)
    max_clients: int = 100_000  # bounded memory: forgetting idle clients only loosens a limit
    buckets: dict[tuple[str, str], Bucket] = field(default_factory=dict)
    live: set[str] = field(default_factory=set)  # unfinished games
    owner: dict[str, str] = field(default_factory=dict)  # game id -> creating client
    owned: dict[str, set[str]] = field(default_factory=dict)  # client -> its unfinished games
    from_address: dict[str, set[str]] = field(default_factory=dict)  # address -> unfinished games created from it
    address_of: dict[str, str] = field(default_factory=dict)  # game id -> the address that created it
    demo: set[str] = field(default_factory=set)
    streams: dict[str, int] = field(default_factory=dict)  # client -> open streams
    address_streams: dict[str, int] = field(default_factory=dict)  # address -> open streams
    spectators: dict[str, int] = field(default_factory=dict)  # game id -> open spectator streams
    hints: dict[str, int] = field(default_factory=dict)  # client, "game:<id>" or "address:<ip>" -> hints running
    jobs: dict[str, int] = field(default_factory=dict)  # owner -> referee pool jobs running
    paced: dict[str, int] = field(default_factory=dict)  # client -> refusals being held
    paced_total: int = 0
    running: dict[str, int] = field(default_factory=dict)  # client -> handlers running
    waiting: dict[str, collections.deque[asyncio.Future[None]]] = field(default_factory=dict)  # client -> its line
    shared_creates: FairBucket | None = None  # GE_CREATES_TOTAL_PER_S, made at its first use
    _logged: dict[str, float] = field(default_factory=dict)

    # ---- rates -------------------------------------------------------------
    def _bucket(self, kind: str, client: str, burst: float) -> Bucket:
        key = (kind, client)
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) >= self.max_clients:
                self.buckets.clear()
            bucket = self.buckets[key] = Bucket(burst)
        return bucket

    def _take(self, kind: str, client: str, rate: float, burst: float, cost: float, what: str,
              min_retry_s: float = 0.0) -> None:
        if rate <= 0:
            return
        wait_s = self._bucket(kind, client, burst).take(rate, burst, cost)
        if wait_s:
            raise Exhausted(what, retry_after_ms=max(1, math.ceil(max(wait_s, min_retry_s) * 1000)))

    def request(self, client: str, cost: float = 1, address: str = "") -> float:
        """A request of the client's GE_RATE_LIMIT_PER_S (refused beyond it), and of its address's
        GE_RATE_LIMIT_PER_ADDRESS_S (all its players and its calls without a player token: each
        registered player is a client of its own, so without it registering players multiplied an
        address's rate); `cost`: one that works like that many. Returns how long the call waits for
        its address's rate: an address's calls wait in line, up to ADDRESS_WAIT_MAX_S; beyond, they
        are refused. Refused at once, a bot farm behind one address lost seconds to each refusal,
        and an attacker's refusals came back as fast as they were answered."""
        rate = self.settings.requests_per_s
        self._take("request", client, rate, 2 * rate, cost, _rate_exceeded(rate))
        rate = self.settings.requests_per_address_s
        if not address or rate <= 0:
            return 0.0
        bucket = self._bucket("address", address, ADDRESS_BURST_S * rate)
        wait_s = bucket.reserve(rate, ADDRESS_BURST_S * rate, cost)
        if wait_s > ADDRESS_WAIT_MAX_S:
            bucket.tokens += cost  # not taken
            refusal = Exhausted(_address_rate_exceeded(rate), retry_after_ms=round(ADDRESS_WAIT_MAX_S * 1000))
            refusal.pace_max_s = ADDRESS_WAIT_MAX_S
            raise refusal
        return wait_s

    async def sent(self, client: str, events: int, replayed: int = 0, game_id: str = "", address: str = "") -> None:
        """A stream has sent `events` more events: every EVENTS_PER_REQUEST of them cost one request
        of the client's rate, and of its address's. `replayed` of them went to a spectator of `game_id` from the history
        before its stream opened: those also draw on the game's GE_REPLAY_EVENTS_PER_GAME_S, which
        all addresses share. Either is waited for, not refused. A replay is the amplifier: one
        request re-opening a stream on a finished game gets its whole history, where live events
        reach a game's spectators only at the pace its players move."""
        s = self.settings
        await self._wait("request", client, s.requests_per_s, 2 * s.requests_per_s, events / EVENTS_PER_REQUEST)
        if address:
            rate = s.requests_per_address_s
            await self._wait("address", address, rate, ADDRESS_BURST_S * rate, events / EVENTS_PER_REQUEST)
        if replayed:
            rate = s.replay_events_per_game_s
            await self._wait("replayed", game_id, rate, 2 * rate, replayed)

    async def _wait(self, kind: str, key: str, rate: float, burst: float, cost: float) -> None:
        if rate > 0:
            wait_s = self._bucket(kind, key, burst).reserve(rate, burst, cost)
            if wait_s:
                await asyncio.sleep(wait_s)

    def turn(self, client: str, address: str = "") -> Turns:
        """Run one handler of `client` when fewer than calls_per_client of its own are running, and
        fewer than calls_per_address of its address's (all its players and its calls without a
        player token); otherwise wait in line (FIFO). One loop serves every caller, so a client with
        a hundred calls in flight, or an address with a hundred registered players, would otherwise
        put a hundred handlers ahead of everybody else's next one; this way it has at most that many
        of them runnable, and nothing is refused."""
        return Turns(self, client, address)

    def _hand_over(self, client: str) -> None:
        line = self.waiting.get(client)
        while line:
            ticket = line.popleft()
            if not ticket.done():
                ticket.set_result(None)
                return
        self.waiting.pop(client, None)
        _dec(self.running, client)

    def pace_s(self, client: str, failure: ServiceError, time_left_s: float | None = None) -> float:
        """How long to hold a refusal the client could repeat at once (a quota, a busy pool, an
        oversized value) before answering it: its retry delay, between PACE_MIN_S and PACE_MAX_S (or
        the refusal's own pace_max_s), less a jitter, within half the time left before the call's
        deadline. A client that ignores RetryInfo then gets about one refusal per call in flight per
        second, not one per few microseconds of server time. 0: answer at once (not a paced refusal,
        or PACED_PER_CLIENT of the client's, or PACED_TOTAL in all, are held already)."""
        if (not getattr(failure, "paced", False) or self.paced.get(client, 0) >= PACED_PER_CLIENT
                or self.paced_total >= PACED_TOTAL):
            return 0.0
        delay = min(failure.pace_max_s or PACE_MAX_S, max(PACE_MIN_S, (failure.retry_after_ms or 0) / 1000))
        delay = max(min(delay, PACE_MIN_S), jittered(delay))
        if time_left_s is not None:
            delay = min(delay, time_left_s / 2)  # the caller sees the refusal, not its own deadline
        return max(0.0, delay)

    async def pace(self, client: str, delay_s: float) -> None:
        """Hold a refusal for `delay_s` (pace_s): an asyncio timer, counted against PACED_PER_CLIENT."""
        if delay_s <= 0:
            return
        _inc(self.paced, client)
        self.paced_total += 1
        try:
            await asyncio.sleep(delay_s)
        finally:
            _dec(self.paced, client)
            self.paced_total -= 1

    def should_log_refusal(self, client: str) -> bool:
        """One log line per client per second for rate-limit refusals: a flood must not become a log flood."""
        now = time.monotonic()
        if now - self._logged.get(client, 0.0) < 1.0:
            return False
        if len(self._logged) >= self.max_clients:
            self._logged.clear()
        self._logged[client] = now
        return True

    # ---- games ---------------------------------------------------------------
    async def may_create(self, client: str, time_bank_ms: int, address: str = "") -> None:
        s = self.settings
        if s.live_games and len(self.live) >= s.live_games:
            raise Exhausted(f"the server holds its maximum of {s.live_games} unfinished games (GE_LIVE_GAMES); "
                            "retry when some have finished or expired", retry_after_ms=30_000)
        mine = self.owned.get(client, ())
        if s.live_games_per_client and len(mine) >= s.live_games_per_client:
            raise Exhausted(f"this client has {len(mine)} unfinished games, the maximum "
                            "(GE_LIVE_GAMES_PER_CLIENT); finish or abandon some first", retry_after_ms=30_000)
        theirs = self.from_address.get(address or client, ())
        if s.live_games_per_address and len(theirs) >= s.live_games_per_address:
            raise Exhausted(f"this address has {len(theirs)} unfinished games, the maximum for all the players "
                            "calling from it (GE_LIVE_GAMES_PER_ADDRESS); finish or abandon some first",
                            retry_after_ms=30_000)
        if s.demo_games_per_client and time_bank_ms and time_bank_ms < s.demo_bank_ms:
            demos = sum(1 for g in mine if g in self.demo)
            if demos >= s.demo_games_per_client:
                raise Exhausted(f"this client has {demos} unfinished games on a clock under {s.demo_bank_ms} ms "
                                "(demo games), the maximum (GE_DEMO_GAMES_PER_CLIENT)", retry_after_ms=10_000)
        rate, burst = s.creates_per_min, s.create_burst()
        self._take("create", client, rate / 60, burst, 1,
                   f"this client creates at most {rate:g} games a minute, {burst:g} at once "
                   "(GE_CREATES_PER_MIN, GE_CREATES_BURST)")
        try:
            await self._take_from_total(client, address or client)
        except Exhausted:
            own = self.buckets.get(("create", client))  # gone if the light bucket's creation cleared them
            if own is not None:
                own.tokens += 1  # nothing was created: its own quota is given back
            raise

    async def _take_from_total(self, client: str, address: str) -> None:
        """Many addresses each within their own quota can still add up to more creates than the server
        should take: beyond a client's light share (GE_CREATES_LIGHT_PER_MIN), its creates come from one
        bucket all heavy creators share (GE_CREATES_TOTAL_PER_S), so a light user is never refused
        because of them. Its tokens go to the addresses that took the fewest lately (FairBucket)."""
        s = self.settings
        if s.creates_total_per_s <= 0:
            return
        light = s.creates_light_per_min
        burst = min(light, LIGHT_BURST)
        if light > 0 and self._bucket("create_light", client, burst).take(light / 60, burst) == 0.0:
            return
        retry_s = await self._shared_creates().take(address)
        if retry_s:
            raise Exhausted(f"the server takes at most {s.creates_total_per_s:g} games a second from clients "
                            f"that create more than {light:g} a minute (GE_CREATES_TOTAL_PER_S, "
                            "GE_CREATES_LIGHT_PER_MIN)", retry_after_ms=math.ceil(max(retry_s, 1.0) * 1000))

    def _shared_creates(self) -> FairBucket:
        if self.shared_creates is None:
            total = self.settings.creates_total_per_s
            self.shared_creates = FairBucket(total, max(1.0, total))
        return self.shared_creates

    def has_room(self, client: str, address: str = "") -> bool:
        """Whether `client` may hold one more unfinished game (the live-game caps of `may_create`): a
        tournament's scheduler waits for room instead of being refused."""
        s = self.settings
        return not ((s.live_games and len(self.live) >= s.live_games)
                    or (s.live_games_per_client and len(self.owned.get(client, ())) >= s.live_games_per_client)
                    or (s.live_games_per_address
                        and len(self.from_address.get(address or client, ())) >= s.live_games_per_address))

    def may_schedule(self, client: str, address: str = "") -> bool:
        """Whether a tournament's scheduler may create its next game now: room for it (`has_room`), and a
        create from the bucket all heavy creators share (GE_CREATES_TOTAL_PER_S), since a tournament
        makes its games in bulk (one start was 128 games; a client's tournaments, 15,000 a minute)."""
        if not self.has_room(client, address):
            return False
        return self.settings.creates_total_per_s <= 0 or self._shared_creates().try_take(address or client)

    def may_create_tournament(self, client: str, address: str, active: int) -> None:
        """A tournament costs its creator a create (GE_CREATES_PER_MIN), and the address holds at most
        GE_TOURNAMENTS_PER_ADDRESS registering or running ones (`active`: it holds that many now)."""
        s = self.settings
        if s.tournaments_per_address and active >= s.tournaments_per_address:
            raise Exhausted(f"this address has {active} tournaments registering or running, the maximum "
                            "(GE_TOURNAMENTS_PER_ADDRESS); start, finish or cancel one first", rule="TOUR-15",
                            retry_after_ms=60_000)
        rate, burst = s.creates_per_min, s.create_burst()
        self._take("create", client, rate / 60, burst, 1,
                   f"this client creates at most {rate:g} games or tournaments a minute, {burst:g} at once "
                   "(GE_CREATES_PER_MIN, GE_CREATES_BURST)")

    def may_register(self, address: str) -> None:
        """Registering players counts against the address's creates per minute: each player is a new client."""
        rate, burst = self.settings.creates_per_min, self.settings.create_burst()
        self._take("create", address, rate / 60, burst, 1,
                   f"this address creates at most {rate:g} games or players a minute, {burst:g} at once "
                   "(GE_CREATES_PER_MIN, GE_CREATES_BURST)")

    def created(self, client: str, game_id: str, time_bank_ms: int = 0, address: str = "") -> None:
        self.live.add(game_id)
        self.owner[game_id] = client
        self.owned.setdefault(client, set()).add(game_id)
        self.address_of[game_id] = address or client
        self.from_address.setdefault(address or client, set()).add(game_id)
        if time_bank_ms and time_bank_ms < self.settings.demo_bank_ms:
            self.demo.add(game_id)

    def recovered(self, game_id: str) -> None:
        self.live.add(game_id)

    def finished(self, game_id: str) -> None:
        """The game is over (or evicted): it no longer counts as live for anyone."""
        self.live.discard(game_id)
        self.demo.discard(game_id)
        client = self.owner.pop(game_id, None)
        if client is not None:
            _forget(self.owned, client, game_id)
            _forget(self.from_address, self.address_of.pop(game_id, client), game_id)

    def owner_of(self, game_id: str) -> str:
        return self.owner.get(game_id, "")

    # ---- streams ---------------------------------------------------------------
    @contextlib.contextmanager
    def stream(self, client: str, game_id: str, spectator: bool, address: str = "") -> Iterator[None]:
        s = self.settings
        address = address or client
        if s.streams_per_client and self.streams.get(client, 0) >= s.streams_per_client:
            raise _stream_refusal(f"this client has {s.streams_per_client} streams open, the maximum "
                                  "(GE_STREAMS_PER_CLIENT); close one first")
        if s.streams_per_address and self.address_streams.get(address, 0) >= s.streams_per_address:
            raise _stream_refusal(f"this address has {s.streams_per_address} streams open, the maximum for all the "
                                  "players calling from it (GE_STREAMS_PER_ADDRESS); close one first")
        if spectator and s.spectators_per_game and self.spectators.get(game_id, 0) >= s.spectators_per_game:
            raise _stream_refusal(f"this game has {s.spectators_per_game} spectator streams, the maximum "
                                  "(GE_SPECTATORS_PER_GAME); seats are not affected")
        _inc(self.streams, client)
        _inc(self.address_streams, address)
        if spectator:
            _inc(self.spectators, game_id)
        try:
            yield
        finally:
            _dec(self.streams, client)
            _dec(self.address_streams, address)
            if spectator:
                _dec(self.spectators, game_id)

    # ---- the referee's search pool -------------------------------------------------
    @contextlib.contextmanager
    def hint(self, client: str, game_id: str, budget_ms: int, address: str = "") -> Iterator[None]:
        s = self.settings
        if s.hints_per_client and self.hints.get(client, 0) >= s.hints_per_client:
            raise Exhausted(f"this client has {s.hints_per_client} hints running, the maximum "
                            "(GE_HINTS_PER_CLIENT)", retry_after_ms=max(budget_ms, 100))
        address_key = "address:" + (address or client)
        if s.hints_per_address and self.hints.get(address_key, 0) >= s.hints_per_address:
            raise Exhausted(f"this address has {s.hints_per_address} hints running, the maximum for all the "
                            "players calling from it (GE_HINTS_PER_ADDRESS)", retry_after_ms=max(budget_ms, 100))
        game_key = "game:" + game_id
        if s.hints_per_game and self.hints.get(game_key, 0) >= s.hints_per_game:
            raise Exhausted(f"this game has {s.hints_per_game} hints running, the maximum (GE_HINTS_PER_GAME)",
                            retry_after_ms=max(budget_ms, 100))
        rate = s.hint_ms_per_client_min
        self._take("hint_ms", client, rate / 60, rate, budget_ms,
                   f"this client used its {rate:g} ms of hint search per minute (GE_HINT_MS_PER_CLIENT_MIN)")
        _inc(self.hints, client)
        _inc(self.hints, game_key)
        _inc(self.hints, address_key)
        try:
            yield
        finally:
            _dec(self.hints, client)
            _dec(self.hints, game_key)
            _dec(self.hints, address_key)

    @contextlib.contextmanager
    def pool_job(self, game_id: str) -> Iterator[None]:
        """Referee search (autoplay, adjudication) for a game, charged to whoever created it."""
        owner = self.owner_of(game_id)
        cap = self.settings.pool_jobs_per_client
        if cap and self.jobs.get(owner, 0) >= cap:
            raise Exhausted(f"the games of this game's creator have {cap} referee searches running, their "
                            "share of the pool (GE_POOL_JOBS_PER_CLIENT)", retry_after_ms=500)
        _inc(self.jobs, owner)
        try:
            yield
        finally:
            _dec(self.jobs, owner)

    def referee_move(self, game_id: str) -> bool:
        """Whether the referee may move now in this game: its creator's games share a budget."""
        rate = self.settings.referee_moves_per_client_s
        try:
            self._take("referee", self.owner_of(game_id), rate, rate, 1, "")
        except Exhausted:
            return False
        return True


def player_token_of(metadata: Iterable[tuple[str, str | bytes]] | None) -> str:
    for key, value in metadata or ():
        if key == PLAYER_TOKEN_HEADER:
            return value if isinstance(value, str) else ""  # a -bin header is no token
    return ""


def forwarded_of(metadata: Iterable[tuple[str, str | bytes]] | None) -> str | None:
    """The call's X-Forwarded-For, several headers joined in their order as one list; None without one."""
    values = [v for k, v in metadata or () if k == "x-forwarded-for" and isinstance(v, str)]
    return ",".join(values) if values else None


def token_digest(token: str) -> str:
    """A short, non-reversible name for a token, for keys and logs (tokens are never logged)."""
    return hashlib.sha256(token.encode()).hexdigest()[:16]


def jittered(seconds: float) -> float:
    """`seconds` less a random share of up to JITTER."""
    return seconds * random.uniform(1 - JITTER, 1.0)


def _inc(counts: dict[str, int], key: str) -> None:
    counts[key] = counts.get(key, 0) + 1


def _forget(games: dict[str, set[str]], key: str, game_id: str) -> None:
    """Take `game_id` out of `games[key]`, and the key with its last game."""
    held = games.get(key)
    if held is not None:
        held.discard(game_id)
        if not held:
            del games[key]


def _dec(counts: dict[str, int], key: str) -> None:
    n = counts.get(key, 0) - 1
    if n > 0:
        counts[key] = n
    else:
        counts.pop(key, None)


@functools.lru_cache(maxsize=8)
def _rate_exceeded(rate: float) -> str:
    """The rate limit's refusal, formatted once (every call is checked against it)."""
    return f"rate limit of {rate:g} requests/s per client exceeded (GE_RATE_LIMIT_PER_S)"


@functools.lru_cache(maxsize=8)
def _address_rate_exceeded(rate: float) -> str:
    return (f"rate limit of {rate:g} requests/s per address exceeded, all the players calling from it "
            "together (GE_RATE_LIMIT_PER_ADDRESS_S)")


QUOTAS = Quotas()  # unlimited until main.py installs the configured one


class Turn:
    """A place among `limit` handlers of one key (a client, or "@" + an address) running at once (a
    class: every call enters one, and a generator-based context manager cost twice as much)."""
    __slots__ = ("quotas", "client", "limit")

    def __init__(self, quotas: Quotas, client: str, limit: int):
        self.quotas, self.client, self.limit = quotas, client, limit

    async def __aenter__(self) -> None:
        q, client, limit = self.quotas, self.client, self.limit
        if limit and q.running.get(client, 0) >= limit:
            ticket = asyncio.get_running_loop().create_future()
            q.waiting.setdefault(client, collections.deque()).append(ticket)
            try:
                await ticket  # the releasing call hands its place over: running is not decremented
            except asyncio.CancelledError:
                if ticket.done() and not ticket.cancelled():
                    q._hand_over(client)  # the place came just as the caller gave up
                raise
        else:
            _inc(q.running, client)

    async def __aexit__(self, *exc: object) -> None:
        self.quotas._hand_over(self.client)


class Turns:
    """`async with quotas.turn(client, address):` the client's place, then its address's (Turn)."""
    __slots__ = ("own", "shared")

    def __init__(self, quotas: Quotas, client: str, address: str):
        per_address = quotas.settings.calls_per_address
        self.own = Turn(quotas, client, quotas.settings.calls_per_client)
        self.shared = Turn(quotas, "@" + address, per_address) if address and per_address else None

    async def __aenter__(self) -> None:
        await self.own.__aenter__()
        if self.shared is not None:
            try:
                await self.shared.__aenter__()
            except BaseException:
                await self.own.__aexit__()
                raise

    async def __aexit__(self, *exc: object) -> None:
        if self.shared is not None:
            await self.shared.__aexit__()
        await self.own.__aexit__()
