"""Tokens and invite codes are handed to command lines (`python -m clients.bot --player-token TOKEN`),
so none may start with "-", which argparse takes for an option (test_lobby_bots failed on 1 in 64)."""
from __future__ import annotations

from server import auth


def test_no_token_or_invite_code_starts_with_a_dash():
    tokens = [auth.mint()[0] for _ in range(3000)] + [auth.secret(12) for _ in range(3000)]
    assert not [t for t in tokens if t.startswith("-")]
    assert len(set(tokens)) == len(tokens) and all(len(t) >= 16 for t in tokens)


def test_a_minted_token_matches_only_its_own_hash():
    (a, ha), (b, hb) = auth.mint(), auth.mint()
    assert auth.seat_of(a, [hb, ha]) == 1 and auth.seat_of(b, [ha]) is None and auth.seat_of("", [ha]) is None
