"""Regenerate tests/golden/fixtures/ (only when a behaviour change is intended and named by rule id).

    PYTHONPATH=.:protos .venv/bin/python -m tests.golden.make_golden
"""
from __future__ import annotations

import json
import pathlib
import sys

from tests.golden.golden import fixture_name, play, runs

FIXTURES = pathlib.Path(__file__).with_name("fixtures")


def dump(record: dict) -> str:
    return json.dumps(record, sort_keys=True, indent=0, separators=(",", ":"), ensure_ascii=False) + "\n"


def main() -> int:
    FIXTURES.mkdir(exist_ok=True)
    for old in FIXTURES.glob("*.json"):
        old.unlink()
    for game_id, seats, options, seed in runs():
        record = play(game_id, seats, options, seed)
        (FIXTURES / fixture_name(game_id, seats, options, seed)).write_text(dump(record))
        print(f"{game_id} seats={seats} seed={seed} moves={record['moves']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
