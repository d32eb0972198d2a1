"""A complete game with nothing but the generated stubs: no SDK, no engines.

    PYTHONPATH=protos python clients/examples/protos_only.py --game pompeii --seats 3

Creates a game, then repeatedly asks the seat whose decision the game waits for
(`to_move`; `current_player` is whose turn it is, which differs e.g. while a Small
World defender redeploys) for its legal moves and plays a random one, quoting the
version it saw, until the game is over; prints the outcome. This is the loop a frontend or bot in any
language would write against protos/gameengine/v1, including waiting out a quota refusal
(RESOURCE_EXHAUSTED) for the delay its RetryInfo names.
"""
from __future__ import annotations

import argparse
import importlib
import random
import sys
import time
import uuid

import grpc
from google.rpc import error_details_pb2, status_pb2


def retry_delay_s(error: grpc.RpcError) -> float:
    """The RetryInfo delay of a refusal (google.rpc.Status in the grpc-status-details-bin trailer)."""
    # grpc's stubs type a metadatum as an object with .key and .value; at run time it is a (key, value) tuple
    metadata: tuple[tuple[str, bytes], ...] = error.trailing_metadata() or ()  # type: ignore[assignment]
    for key, value in metadata:
        if key == "grpc-status-details-bin":
            for detail in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.RetryInfo()
                if detail.Unpack(info):  # False for a detail of another type
                    return info.retry_delay.seconds + info.retry_delay.nanos / 1e9
    return 1.0


def call(method, request):
    """One RPC; a RESOURCE_EXHAUSTED (a quota) is retried after its delay, the same request again
    (a move keeps its idempotency key, so a retry can never play it twice)."""
    while True:
        try:
            return method(request)
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                raise
            time.sleep(retry_delay_s(e))


def play(target: str, game: str, seats: int, seed: int, options: dict | None = None) -> dict:
    pb = importlib.import_module(f"gameengine.v1.{game}_pb2")  # protos/gameengine/v1/<game>.proto
    (service,) = pb.DESCRIPTOR.services_by_name.values()
    P = service.name.removesuffix("Service")  # "Pompeii": CreatePompeiiGame, PompeiiMove, ...
    stubs = importlib.import_module(f"gameengine.v1.{game}_pb2_grpc")
    rng = random.Random(seed)
    with grpc.insecure_channel(target) as channel:
        stub = getattr(stubs, f"{P}ServiceStub")(channel)
        request = getattr(pb, f"Create{P}GameRequest")(seats=seats, seed=seed)
        for key, value in (options or {}).items():
            setattr(request.options, key, value)
        created = call(getattr(stub, f"Create{P}Game"), request)
        tokens = [t.token for t in created.seat_tokens]
        status, moves = created.status, 0
        while not status.over:
            seat = status.to_move
            legal = call(getattr(stub, f"List{P}Moves"), getattr(pb, f"List{P}MovesRequest")(
                game_id=created.game_id, token=tokens[seat]))
            reply = call(getattr(stub, f"Make{P}Move"), getattr(pb, f"Make{P}MoveRequest")(
                game_id=created.game_id, token=tokens[seat], expected_version=legal.status.version,
                idempotency_key=uuid.uuid4().hex, move=rng.choice(list(legal.moves))))
            status, moves = reply.status, moves + 1
        return {"game_id": created.game_id, "moves": moves, "scores": list(status.outcome.scores),
                "ranks": list(status.outcome.ranks), "winners": list(status.outcome.winners)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--server", default="127.0.0.1:50051")
    ap.add_argument("--game", default="pompeii", help="a game id, the name of its proto file")
    ap.add_argument("--seats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--necromancer", action="store_true", help="smallworld: add the Necromancer seat")
    args = ap.parse_args(argv)
    options = {"necromancer": True} if args.necromancer else None
    print(play(args.server, args.game, args.seats, args.seed, options))
    return 0


if __name__ == "__main__":
    sys.exit(main())
