"""A bad seat count is refused INVALID_ARGUMENT citing the game's seat rule (POM-10, ERU-1, CIT-15, SW-20)."""
from __future__ import annotations

import grpc
import pytest

from clients.sdk import Client, Refused
from engines import registry


@pytest.mark.parametrize("game", registry.GAME_IDS)
def test_bad_seat_count_cites_the_seat_rule(server, game):
    spec = registry.spec(game)
    rule, too_many = spec.seats_rule, spec.max_seats + 1
    client = Client(server.target, game)
    try:
        for seats in (spec.min_seats - 1, too_many):
            with pytest.raises(Refused) as e:
                client.create(seats, seed=1)
            assert e.value.code == grpc.StatusCode.INVALID_ARGUMENT and e.value.rule == rule, e.value
    finally:
        client.close()
