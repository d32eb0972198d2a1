"""Issue 20 items 2-3: every engine has the same files and the same shape.

A game is an `engines.core.Engine` subclass whose checks and effects tables cover exactly its move
kinds (`moves.MOVES`); its state is slotted; its modules stay under ~500 lines and its functions
under ~60; nothing dispatches on move kinds with if/elif (`isinstance(move, Kind)` or
`type(move) is Kind`); and the same concepts carry the same names (`state`, `seats`, `options`).
"""
from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from engines import registry
from engines.core import Engine

ROOT = Path(__file__).resolve().parents[2]
FILES = ("__init__.py", "spec.py", "game.py", "moves.py", "state.py", "setup.py", "legality.py",
         "effects.py", "flow.py", "scoring.py", "view.py", "heuristic.py")
MAX_MODULE_LINES, MAX_FUNCTION_LINES = 500, 60
OLD_NAMES = {"s", "st", "n", "nseats", "opts"}  # for state, seats and options
# Engines not yet in the one shape: strict xfail, so a game that reaches it must leave this set.
PENDING: set[str] = set()


def shaped(game_id: str):
    marks = [pytest.mark.xfail(strict=True, reason="not yet in the one engine shape")] if game_id in PENDING else []
    return pytest.param(game_id, marks=marks)


GAMES = [shaped(g) for g in registry.GAME_IDS]


def modules(game_id: str) -> list[Path]:
    return sorted((ROOT / "engines" / game_id).glob("*.py"))


def move_kinds(game_id: str) -> set[type]:
    return set(importlib.import_module(f"engines.{game_id}.moves").MOVES)


def findings(game_id: str) -> list[str]:
    """Every departure from the shape, as a sentence naming the file and line."""
    out = [f"engines/{game_id}/{f} is missing" for f in FILES if not (ROOT / "engines" / game_id / f).exists()]
    kinds = {k.__name__ for k in move_kinds(game_id)}
    for path in modules(game_id):
        text = path.read_text()
        name = path.relative_to(ROOT)
        if text.count("\n") > MAX_MODULE_LINES:
            out.append(f"{name} has {text.count(chr(10))} lines (at most {MAX_MODULE_LINES})")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    out.append(f"{name}:{node.lineno} {node.name} has {length} lines (at most {MAX_FUNCTION_LINES})")
                out += [f"{name}:{node.lineno} {node.name} names a parameter {a.arg!r}"
                        for a in node.args.args + node.args.kwonlyargs if a.arg in OLD_NAMES]
            if path.name != "moves.py" and dispatches_on_kind(node, kinds):
                out.append(f"{name}:{node.lineno} dispatches on a move kind (use the checks/effects tables)")
    return out


def dispatches_on_kind(node: ast.AST, kinds: set[str]) -> bool:
    """`isinstance(x, Kind)` or `type(x) is/== Kind` for one of the game's move kinds."""
    def names(expr: ast.AST) -> set[str]:
        return {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)} | \
               {n.attr for n in ast.walk(expr) if isinstance(n, ast.Attribute)}
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance" \
            and len(node.args) == 2:
        return bool(names(node.args[1]) & kinds)
    if isinstance(node, ast.Compare) and isinstance(node.left, ast.Call) \
            and isinstance(node.left.func, ast.Name) and node.left.func.id == "type":
        return any(names(c) & kinds for c in node.comparators)
    return False


@pytest.mark.parametrize("game_id", GAMES)
def test_engine_has_the_one_shape(game_id):
    engine = registry.game(game_id)
    assert isinstance(engine, Engine), f"{game_id}: GAME is not an engines.core.Engine"
    kinds = move_kinds(game_id)
    assert set(engine.checks) == kinds, f"{game_id}: the checks table covers the move kinds exactly"
    assert set(engine.effects) == kinds, f"{game_id}: the effects table covers the move kinds exactly"
    state = engine.new_state(registry.seat_ranges(game_id)[0].min_seats, {}, 1)
    assert not hasattr(state, "__dict__"), f"{game_id}: the state declares its fields (__slots__)"
    assert not findings(game_id), "\n".join(findings(game_id))


def test_the_shape_check_can_fail():
    """The checker flags what it should, on a made-up module."""
    tree = ast.parse("def f(s, move):\n    if isinstance(move, PlayCard):\n        pass\n"
                     "    elif type(move) is Pass:\n        pass\n")
    flagged = [n for n in ast.walk(tree) if dispatches_on_kind(n, {"PlayCard", "Pass"})]
    assert len(flagged) == 2
    assert not [n for n in ast.walk(tree) if dispatches_on_kind(n, {"Other"})]


def test_apply_is_check_then_effect():
    """The base class's apply: the seat check, then the kind's check, then its effect; a refusal
    leaves the state alone and returns no events."""
    from engines.core import IllegalMove

    calls = []

    class Toy(Engine):
        checks = {int: lambda state, seat, move: calls.append("check") or (move < 0 and refuse())}
        effects = {int: lambda state, seat, move, events: (calls.append("effect"), events.append(move))}

        def check_seat(self, state, seat, move):
            calls.append("seat")

    def refuse():
        raise IllegalMove("TOY-1", "negative")

    assert Toy().apply(None, 0, 5) == [5] and calls == ["seat", "check", "effect"]
    calls.clear()
    with pytest.raises(IllegalMove):
        Toy().apply(None, 0, -1)
    assert calls == ["seat", "check"]
