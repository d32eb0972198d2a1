"""A short crash loop in the test suite: kill -9 under bot load, twice; nothing acknowledged lost."""
from bench.crashloop import run


def test_kill_9_under_load_loses_no_acknowledged_move(tmp_path):
    assert run(games=12, kills=2, interval=1.0, data_dir=tmp_path) == []
