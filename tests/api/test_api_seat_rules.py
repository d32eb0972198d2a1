"""A bad seat count is refused INVALID_ARGUMENT citing the game's seat rule (POM-10, ERU-1, CIT-15, SW-20)."""
from __future__ import annotations

import grpc
import pytest

from clients.sdk import Client, Refused

SEAT_RULES = {"pompeii": ("POM-10", 5), "eruption": ("ERU-1", 7), "citadels": ("CIT-15", 8), "smallworld": ("SW-20", 7)}


@pytest.mark.parametrize("game", sorted(SEAT_RULES))
def test_bad_seat_count_cites_the_seat_rule(server, game):
    rule, too_many = SEAT_RULES[game]
    client = Client(server.target, game)
    try:
        for seats in (1, too_many):
            with pytest.raises(Refused) as e:
                client.create(seats, seed=1)
            assert e.value.code == grpc.StatusCode.INVALID_ARGUMENT and e.value.rule == rule, e.value
    finally:
        client.close()
