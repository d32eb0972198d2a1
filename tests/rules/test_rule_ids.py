"""Every rule id cited in engines/, tests/ and protos/ exists in the rules reference docs/rules/<game>.md,
and the README's "Rule readings" links point at those files (issue 24 item D)."""
from __future__ import annotations

import collections
import re
from pathlib import Path

from engines import registry

ROOT = Path(__file__).resolve().parents[2]


def _prefixes(game: str) -> set[str]:
    """The rule-id prefixes a game's rules reference defines (those it uses throughout, e.g. SW, NEC)."""
    text = (ROOT / registry.spec(game).rules_doc).read_text(encoding="utf-8")
    counts = collections.Counter(re.findall(r"(?<![A-Za-z0-9_-])([A-Z]{2,4})-\d+", text))
    return {p for p, n in counts.items() if n >= 10}


DOC = {prefix: game for game in registry.GAME_IDS for prefix in _prefixes(game)}  # prefix -> game
CITED = re.compile(rf"(?<![A-Za-z0-9_-])({'|'.join(sorted(DOC))})[-_](\d+)(?![0-9])")


def cited_ids() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for top in ("engines", "tests", "protos"):
        for path in (ROOT / top).rglob("*"):
            if path.suffix in (".py", ".proto") and "_pb2" not in path.name:
                for m in CITED.finditer(path.read_text(encoding="utf-8")):
                    out.setdefault(f"{m.group(1)}-{int(m.group(2))}", set()).add(str(path.relative_to(ROOT)))
    return out


def test_every_cited_rule_id_exists_in_docs_rules():
    docs = {game: (ROOT / registry.spec(game).rules_doc).read_text(encoding="utf-8") for game in set(DOC.values())}
    cited = cited_ids()
    assert len(cited) > 300  # the scan finds the code's citations
    missing = {rid: sorted(files)[:3] for rid, files in cited.items()
               if not re.search(rf"(?<![A-Za-z0-9]){rid}(?![0-9])", docs[DOC[rid.split('-')[0]]])}
    assert not missing, missing


def test_readme_rule_readings_link_into_docs_rules():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Rule readings", 1)[1].split("\n## ", 1)[0]
    links = re.findall(r"\]\((docs/rules/[a-z]+\.md)(#[a-z0-9-]+)?\)", section)
    assert {path for path, _ in links} == {f"docs/rules/{g}.md" for g in set(DOC.values())}
    for path, anchor in links:
        text = (ROOT / path).read_text(encoding="utf-8")
        if anchor:  # GitHub's anchor of a heading: lower case, spaces to '-', punctuation dropped
            heads = {re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-")
                     for h in re.findall(r"^#+ (.+)$", text, re.M)}
            assert anchor[1:] in heads, (path, anchor)
