"""Every rule id the service raises is declared once with its sentence and listed in the README:
a reader who greps a refusal's rule id finds what it means."""
from __future__ import annotations

import re

from server import errors, lobby, players, tournaments
from tests.conftest import ROOT

RAISED = sorted({m for p in (ROOT / "server").glob("*.py")
                 for m in re.findall(r'rule="([A-Z][A-Z0-9-]*)"', p.read_text(encoding="utf-8"))})


def test_every_rule_id_the_service_raises_is_declared_and_documented():
    declared = {*errors.RULES, *lobby.RULES, *tournaments.RULES,
                *re.findall(r"(PLAYER-\d+):", players.__doc__ or "")}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(RAISED) > 40
    assert [r for r in RAISED if r not in declared] == []
    assert [r for r in RAISED if f"`{r}`" not in readme] == []
