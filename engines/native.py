"""Which engine modules run compiled: the optional mypyc build (`make compiled`, tools/build_compiled.py)
and its pure-Python fallback (issue 22).

The build puts an extension module (`<name>.cpython-*.so`) beside each module in COMPILED, which Python
imports in preference to the .py. The .py files stay the reference: the engines run them when

- no build is there (`make compiled` was not run, or there is no C compiler),
- `GE_PURE_PYTHON=1` is set, or
- the build is stale: a source file of engines/ changed since it (BUILD_FILE holds their digests), so
  a compiled module could disagree with the code beside it.

`build()` says which, for the start-up log line and `make bench`'s results. This module is never
compiled itself, and it must decide before any compiled module is imported (engines/__init__.py).
"""
from __future__ import annotations

import hashlib
import importlib.machinery as machinery
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

ENGINES = Path(__file__).resolve().parent
BUILD_FILE = ENGINES / "native-build.json"  # written by tools/build_compiled.py; git-ignored

# Compiled: each game's modules of module-level functions (rules, moves, flow, geometry, scoring,
# heuristics), where the profiles of bench/notes/ spend a playout, the shared per-move path (Event, the
# draws, MovePath and play_random) and the search (engines.ai.mcts). Not compiled: state.py (its classes
# pickle into data dirs and subclass builtins), moves.py (the move types the codecs and pickles name),
# game.py (a subclass of engines.core's Engine), spec.py, Kuhn poker (the template), engines.core (the
# contract's generic and protocol classes, subclassed by the interpreted game.py files) and
# engines.ai.policies.
GAMES = ("pompeii", "eruption", "citadels", "smallworld")
INTERPRETED = ("__init__", "state", "moves", "game", "spec")
# the per-move path every game shares, and the search (ISMCTS's own loop was a quarter of an iteration)
SHARED = ("engines.event", "engines.draws", "engines.playout", "engines.ai.mcts")
COMPILED: tuple[str, ...] = SHARED + tuple(f"engines.{game}.{p.stem}" for game in GAMES
                                           for p in sorted((ENGINES / game).glob("*.py")) if p.stem not in INTERPRETED)


def source_digests() -> dict[str, str]:
    """sha256 of every .py under engines/, by path: compiled code also relies on the types of the
    interpreted modules it imports, so any change there makes a build stale too."""
    return {str(p.relative_to(ENGINES)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(ENGINES.rglob("*.py"))}


def _built() -> bool:
    """Every COMPILED module has its extension module for this interpreter beside it."""
    suffix = machinery.EXTENSION_SUFFIXES[0]
    return all((ENGINES.parent / (name.replace(".", "/") + suffix)).exists() for name in COMPILED)


def _stale() -> bool:
    try:
        recorded = json.loads(BUILD_FILE.read_text())["sources"]
    except (OSError, ValueError, KeyError):
        return True
    return bool(recorded != source_digests())


class _SourceOnly:
    """A meta-path finder that loads COMPILED modules from their .py files, never the extension."""

    def find_spec(self, name: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> machinery.ModuleSpec | None:
        if name not in COMPILED or not path:
            return None
        for entry in path:
            spec = machinery.FileFinder(entry, (machinery.SourceFileLoader, machinery.SOURCE_SUFFIXES)).find_spec(name)
            if spec is not None:
                return spec
        return None


def _choose() -> str:
    """Installs the source-only finder unless the compiled build is present, fresh and wanted."""
    if os.environ.get("GE_PURE_PYTHON", "") not in ("", "0"):
        reason = "pure (GE_PURE_PYTHON=1)"
    elif not _built():
        reason = "pure (not built: make compiled)"
    elif _stale():
        reason = "pure (stale build: sources changed since make compiled)"
    else:
        return "compiled (mypyc)"
    sys.meta_path.insert(0, _SourceOnly())
    return reason


BUILD = _choose()


def build() -> str:
    """'compiled (mypyc)' or 'pure (<why>)': how the engines run in this process."""
    return BUILD


def loaded_compiled() -> list[str]:
    """The COMPILED modules imported so far that run as extension modules (for tests and checks)."""
    return [name for name in COMPILED if name in sys.modules
            and not str(getattr(sys.modules[name], "__file__", ".py")).endswith(".py")]
