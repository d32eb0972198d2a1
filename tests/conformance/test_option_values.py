"""Any value a caller can put in a game's options is a game or an InvalidOptions naming a rule,
never another exception (which the service answers INTERNAL): the options arrive as the proto's
strings and int32s, so every Unicode string and every int32 is tried."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines import registry
from engines.core import InvalidOptions

DIGITS = st.sampled_from(["²", "١", "٣", "0" * 5000, "1" * 5000, "-1", " 1", "1 ", "+1", "1_0", "٠", "9" * 10])


@pytest.mark.parametrize("game", registry.GAME_IDS)
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_option_value_makes_a_game_or_an_InvalidOptions(game, data):
    spec = registry.spec(game)
    engine = registry.game(game)
    option = data.draw(st.sampled_from(spec.options))
    if option.type is bool:
        return  # the proto gives a bool: both values are allowed
    value = data.draw(st.integers(-2**31, 2**31 - 1) if option.type is int else st.text(max_size=60) | DIGITS)
    seats = data.draw(st.integers(engine.min_seats, engine.max_seats))
    try:
        engine.new_state(seats, {option.name: value}, 1)
    except InvalidOptions as e:
        assert e.rule
