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


def test_a_seat_count_outside_every_option_sets_range_names_each_range(server):
    """7 Small World seats with necromancer=true was refused as 'takes 2 to 6 seats', a range no option set
    has (the base game takes 2 to 5, the Necromancer scenario 3 to 6)."""
    client = Client(server.target, "smallworld")
    try:
        for seats, options in ((7, {"necromancer": True}), (1, {})):
            with pytest.raises(Refused) as e:
                client.create(seats, options, seed=1)
            assert e.value.message == (f"SW-20: smallworld takes 2 to 5 seats, or 3 to 6 seats with "
                                       f"necromancer=true, not {seats}"), e.value.message
    finally:
        client.close()
