"""Settings are read from the environment when the server starts, not at import (issue 21 item 6)."""
from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest

from server.config import Config, ConfigError

ROOT = Path(__file__).resolve().parents[2]


def test_item6_config_reads_the_environment_when_asked_not_at_import(monkeypatch):
    monkeypatch.setenv("GE_PORT", "1234")
    monkeypatch.setenv("GE_REFEREE_TICK_S", "0.5")
    monkeypatch.setenv("GE_SHARD", "b")
    cfg = Config.from_env()
    assert (cfg.port, cfg.referee_tick_s, cfg.shard) == (1234, 0.5, "b")
    assert (Config().port, Config().referee_tick_s, Config().shard) == (50051, 0.2, "")


def test_item6_every_setting_names_one_GE_variable_and_parses_its_own_type():
    names = [f.metadata["env"] for f in fields(Config)]
    assert len(names) == len(set(names)) and all(n.startswith("GE_") for n in names)
    env = {f.metadata["env"]: str(getattr(Config(), f.name)) for f in fields(Config)}
    assert Config.from_env(env) == Config()


@pytest.mark.parametrize("name,value", [
    ("GE_PORT", "fifty"), ("GE_PORT", "70000"), ("GE_FSYNC", "sometimes"),
    ("GE_FSYNC_INTERVAL_MS", "0"), ("GE_SNAPSHOT_INTERVAL_S", "0"), ("GE_REFEREE_TICK_S", "0"),
    ("GE_HINT_WORKERS", "0"), ("GE_LOG_LEVEL", "verbose"), ("GE_EVENT_LOOP", "trio"),
    ("GE_SNAPSHOT_INTERVAL_S", "soon"), ("GE_MAX_MESSAGE_BYTES", "-1"), ("GE_MAX_MESSAGE_BYTES", "10"),
    ("GE_RATE_LIMIT_PER_S", "-5"), ("GE_LIVE_GAMES", "-1"),
    # float() reads these: NaN made every call INTERNAL (quotas), an infinite tick stopped the referee
    ("GE_RATE_LIMIT_PER_S", "nan"), ("GE_FINISHED_TTL_S", "NaN"), ("GE_HIBERNATE_AFTER_S", "nan"),
    ("GE_SNAPSHOT_INTERVAL_S", "inf"), ("GE_REFEREE_TICK_S", "infinity"),
    ("GE_SHARD", "Bad_Shard!"), ("GE_SHARD", "-a"), ("GE_SHARD", "a" * 64),  # the router routes DNS labels only
])
def test_a_value_the_server_cannot_run_with_is_one_line_naming_the_variable(name, value):
    with pytest.raises(ConfigError) as e:
        Config.from_env({name: value})
    assert str(e.value).startswith(f"{name}=") and "\n" not in str(e.value)


@pytest.mark.parametrize("name,value", [("GE_REFEREE_TICK_S", "0"), ("GE_RATE_LIMIT_PER_S", "-1"),
                                        ("GE_SNAPSHOT_INTERVAL_S", "-2.5")])
def test_the_line_shows_the_value_as_written(name, value):
    """A float setting showed its parsed value: GE_REFEREE_TICK_S='0.0' for 0."""
    with pytest.raises(ConfigError) as e:
        Config.from_env({name: value})
    assert str(e.value).startswith(f"{name}={value!r}: "), str(e.value)


def test_tls_files_go_together():
    for env in ({"GE_TLS_CERT": "c.pem"}, {"GE_TLS_KEY": "k.pem"}, {"GE_TLS_CLIENT_CA": "ca.pem"}):
        with pytest.raises(ConfigError) as e:
            Config.from_env(env)
        assert str(e.value).startswith("GE_TLS_") and "\n" not in str(e.value)
    assert Config.from_env({"GE_SHARD": "gameengine-0"}).shard == "gameengine-0"


@pytest.mark.parametrize("env,words", [
    ({"GE_CREATE_TOKENS_FILE": "/nonexistent/keys"}, "GE_CREATE_TOKENS_FILE='/nonexistent/keys': cannot be read"),
    ({"GE_TLS_CERT": "/nonexistent/tls.crt", "GE_TLS_KEY": "/nonexistent/tls.key"}, "GE_TLS_CERT="),
    ({"GE_HOST": "not-a-host.invalid"}, "GE_HOST='not-a-host.invalid': not an address"),
    ({"GE_DRAIN_FILE": "/nonexistent/dir/DRAIN"}, "GE_DRAIN_FILE='/nonexistent/dir/DRAIN': its directory"),
])
def test_what_the_server_reads_besides_its_data_dir_is_checked_before_the_data_dir(tmp_path, env, words):
    """A missing file ended in a FileNotFoundError traceback, and a name that did not resolve in "another
    process has the port", each after recovery (minutes on a large data dir)."""
    run = subprocess.run([sys.executable, "-m", "server.main"], cwd=ROOT, capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, GE_DATA_DIR=str(tmp_path / "data"), GE_METRICS_PORT="0",
                                  GE_WEB_PORT="0", PYTHONPATH=f"{ROOT}{os.pathsep}{ROOT / 'protos'}", **env))
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr[-2000:]
    assert "startup_refused" in run.stderr and words in run.stderr, run.stderr[-2000:]
    assert not (tmp_path / "data").exists()


def test_a_bad_setting_stops_the_server_with_that_line_and_no_traceback(tmp_path):
    env = dict(os.environ, GE_DATA_DIR=str(tmp_path), GE_FSYNC_INTERVAL_MS="0",
               PYTHONPATH=f"{ROOT}{os.pathsep}{ROOT / 'protos'}")
    run = subprocess.run([sys.executable, "-m", "server.main"], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 1
    assert run.stderr.strip() == "GE_FSYNC_INTERVAL_MS='0': must be above 0"


def test_an_unknown_game_in_GE_GAMES_is_refused_in_one_log_line_before_the_data_dir_is_touched(tmp_path):
    env = dict(os.environ, GE_DATA_DIR=str(tmp_path / "data"), GE_GAMES="pompeii,chess",
               PYTHONPATH=f"{ROOT}{os.pathsep}{ROOT / 'protos'}")
    run = subprocess.run([sys.executable, "-m", "server.main"], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert "startup_refused" in run.stderr and "'chess'" in run.stderr
    assert not (tmp_path / "data").exists()


def test_narrowing_GE_GAMES_past_unfinished_games_is_refused_at_start(tmp_path):
    """Restarted with GE_GAMES=pompeii, a data dir's unfinished Citadels game was restored running but
    no call could move in it, and it kept ge_unfinished_games (so `drain wait`) above 0 for good."""
    from clients.sdk import Client
    from tests.conftest import ServerProcess
    server = ServerProcess(tmp_path / "data").start()
    try:
        Client(server.target, "citadels").create(4, seed=1)
    finally:
        server.stop()
    env = dict(server.env, GE_GAMES="pompeii")
    run = subprocess.run([sys.executable, "-m", "server.main"], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert "startup_refused" in run.stderr and "1 citadels" in run.stderr

