"""Issue 20 item 7: seeded random games give byte-identical results to the committed fixtures.

The fixtures were made before the engines were reshaped; a failure names the first move whose
digest differs. Regenerate (tests/golden/make_golden.py) only for an intended rule change, and
name its rule id in the commit.
"""
import json

import pytest

from tests.golden.golden import fixture_name, play, runs
from tests.golden.make_golden import FIXTURES, dump

RUNS = runs()


def test_fixtures_cover_every_run_and_nothing_else():
    assert sorted(p.name for p in FIXTURES.glob("*.json")) == sorted(fixture_name(*r) for r in RUNS)


def test_fixtures_stay_small():
    assert sum(p.stat().st_size for p in FIXTURES.glob("*.json")) < 2_000_000


@pytest.mark.parametrize("run", RUNS, ids=[fixture_name(*r)[:-5] for r in RUNS])
def test_golden_game_is_byte_identical(run):
    path = FIXTURES / fixture_name(*run)
    expected = path.read_text()
    got = dump(play(*run))
    if got != expected:
        want, have = json.loads(expected), json.loads(got)
        first = next((i for i, (a, b) in enumerate(zip(want["chain"], have["chain"])) if a != b),
                     min(len(want["chain"]), len(have["chain"])))
        pytest.fail(f"{path.name}: behaviour differs from move {first} on "
                    f"(fixture {want['moves']} moves, now {have['moves']})")
