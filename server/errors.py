"""Service-level refusals, mapped to gRPC status codes in one place (servicer.py)."""
from __future__ import annotations

# The game service's own rule ids, beside the games' (POM-, ERU-, CIT-, SW-, NEC-), the lobby's
# (lobby.RULES), the players' (players.RULES), the tournaments' (tournaments.RULES) and the referee's
# (REF-*): every refusal names one, so a client tells a wrong token from a forfeited seat without
# reading the sentence.
RULES = {
    "REQUEST": "a request is a message of its method, with its required fields",
    "LIMIT": "caller text and counts have a maximum size (README \"Limits\")",
    "GAME-ID": "game_id names a game of this server",
    "SEAT-TOKEN": "a seat's calls carry its token, and a token names one seat of one game",
    "SEAT-FORFEITED": "a forfeited seat makes no moves and gets no hints: the referee plays it",
    "VERSION": "expected_version is the game's version now, and from_version one it has reached",
    "GAME-OVER": "nothing that needs the game running is done once it is over",
    "IDEMPOTENCY-KEY": "an idempotency key names one move of one seat",
    "CREATE-KEY": "with GE_CREATE_TOKENS set, creating (games, players, tournaments) needs one of its keys",
    "DRAINING": "a draining replica creates nothing new; its games play on",
    "HINT": "a hint is for a seat with a decision to make now",
    "REF-CLOCK": "referee options within their bounds and a known timeout policy",
    "REF-TIMEOUT": "a seat whose time bank ran out moves no more: the referee takes its turn",
    "REF-MAX-MOVES": "a game at its move cap takes no more moves: the referee adjudicates it",
    "REF-ADJUDICATING": "a game being adjudicated takes no more moves",
}


class ServiceError(Exception):
    code_name = "INTERNAL"
    paced = False  # held before it is answered (quotas.Quotas.pace): the caller could repeat it at once
    pace_max_s: float | None = None  # the longest it is held, when not the default (quotas.PACE_MAX_S)

    def __init__(self, message: str, rule: str | None = None, retry_after_ms: int | None = None,
                 metadata: dict[str, str] | None = None):
        super().__init__(message)
        self.message = message
        self.rule = rule
        self.retry_after_ms = retry_after_ms
        self.metadata = metadata or {}  # extra ErrorInfo.metadata (e.g. ABORTED's current_version)


class InvalidArgument(ServiceError):
    code_name = "INVALID_ARGUMENT"


class NotFound(ServiceError):
    code_name = "NOT_FOUND"


class PermissionDenied(ServiceError):
    code_name = "PERMISSION_DENIED"


class Stale(ServiceError):
    code_name = "ABORTED"


class AlreadyExists(ServiceError):
    code_name = "ALREADY_EXISTS"


class Illegal(ServiceError):
    code_name = "FAILED_PRECONDITION"


class Unimplemented(ServiceError):
    code_name = "UNIMPLEMENTED"


def undecodable(why: str) -> InvalidArgument:
    """Request bytes that are no valid message, in the words of both ports (servicer, web edge)."""
    return InvalidArgument(f"the request is not a valid protobuf message: {why}", rule="REQUEST")


def oversize(max_bytes: int, size: int | None = None) -> Exhausted:
    """A request over GE_MAX_MESSAGE_BYTES (`size`: its length, when known), in the words of both ports.
    No RetryInfo: the same call never succeeds later."""
    said = f"is {size} bytes" if size is not None else f"is over {max_bytes} bytes"
    return Exhausted(f"the request body {said}; the maximum is {max_bytes} (GE_MAX_MESSAGE_BYTES)", rule="LIMIT")


def forfeited(seat: int) -> PermissionDenied:
    """A forfeited seat's caller: its moves and hints are the referee's now."""
    return PermissionDenied(f"seat {seat} has forfeited; the referee plays it", rule="SEAT-FORFEITED")


def out_of_time(seat: int, policy: str) -> Illegal:
    """REF-TIMEOUT: the move of a seat whose time bank ran out; the referee takes its turn."""
    then = "the seat forfeits" if policy == "forfeit" else f"the referee moves for it ({policy})"
    return Illegal(f"seat {seat} ran out of time; {then}", rule="REF-TIMEOUT")


def game_over() -> Illegal:
    """GAME-OVER: the refusal of anything that needs the game still running."""
    return Illegal("the game is over", rule="GAME-OVER")


class Exhausted(ServiceError):
    code_name = "RESOURCE_EXHAUSTED"
    paced = True


class Unavailable(ServiceError):
    code_name = "UNAVAILABLE"


class Unauthenticated(ServiceError):
    code_name = "UNAUTHENTICATED"
