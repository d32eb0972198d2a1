"""Settings are read from the environment when the server starts, not at import (issue 21 item 6)."""
from __future__ import annotations

from dataclasses import fields

from server.config import Config


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
