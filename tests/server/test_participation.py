"""Unit tests of the participation records (server/participation.py) and the player stream's
cursor rules: redo is idempotent, so a record already in the snapshot is skipped (issue 17)."""
from __future__ import annotations

import pickle

import pytest

from server import participation, player_stream
from server.errors import Illegal, InvalidArgument
from server.participation import EVENTS_KEPT, PlayerNotified, PlayerRegistered, Players


def notified(pid: str, cursor: int, game_id: str = "g1", version: int = 0) -> PlayerNotified:
    return PlayerNotified(player_id=pid, cursor=cursor, kind="your_turn", game_id=game_id, game="pompeii", seat=0,
                          progress=("turn", version), status={})


def test_player_records_redo_once_and_in_order():
    players = Players()
    reg = PlayerRegistered("p-1", "alice", "h", 0.0)
    assert players.redo(reg) == 1 and players.redo(reg) == 0
    assert players.redo(notified("p-1", 2)) == 0  # a gap: not the next cursor
    assert players.redo(notified("p-1", 1)) == 1 and players.redo(notified("p-1", 1)) == 0
    assert players.redo(notified("p-1", 2, version=3)) == 1
    assert players.by_id["p-1"].progress[("g1", 0)] == {"turn": 3}
    again = pickle.loads(pickle.dumps(players))  # a snapshot round trip keeps all but live signals
    assert again.by_id["p-1"].last_cursor == 2 and again.by_name == {"alice": "p-1"} and again.signals == {}
    assert again.seated == {"g1": {"p-1"}}


def test_PLAYER_4_cursor_past_the_last_or_older_than_kept_is_refused():
    players = Players()
    players.redo(PlayerRegistered("p-1", "alice", "h", 0.0))
    for c in range(1, EVENTS_KEPT + 11):
        players.redo(notified("p-1", c, version=c))
    me = players.by_id["p-1"]
    assert len(me.events) == EVENTS_KEPT and me.events[0].cursor == 11
    player_stream.check_cursor(me, 10)  # the next one, 11, is kept
    player_stream.check_cursor(me, EVENTS_KEPT + 10)
    with pytest.raises(Illegal) as old:
        player_stream.check_cursor(me, 9)
    assert old.value.rule == "PLAYER-4"
    with pytest.raises(InvalidArgument) as future:
        player_stream.check_cursor(me, EVENTS_KEPT + 11)
    assert future.value.rule == "PLAYER-4"


def test_an_evicted_games_progress_is_forgotten():
    players = Players()
    players.redo(PlayerRegistered("p-1", "alice", "h", 0.0))
    players.redo(notified("p-1", 1, game_id="g1"))
    players.redo(notified("p-1", 2, game_id="g2"))
    players.forget_game("g1")
    assert list(players.by_id["p-1"].progress) == [("g2", 0)] and "g1" not in players.seated


def test_seating_waits_while_a_seat_is_open():
    s = participation.Seating(holders=["p-1", "", "p-2"], creator="p-1", private=False, invite_hash="",
                              created_at=0.0, expires_at=1.0, claims=[1, 1, 1], token_pending=[False] * 3)
    assert s.waiting and s.open_seats() == [1] and s.seats_of("p-2") == [2]
    assert not participation.Seating(**{**s.__dict__, "expired": True}).waiting


def test_a_start_journaled_without_its_clock_gets_the_clock_at_recovery(tmp_path):
    """A crash between the start's seating record and the referee's clock record."""
    from server import lobby
    from server.service import GameCore
    from server.store import Store
    store = Store(tmp_path)
    store.recover()
    core = GameCore(store)
    started = participation.Seating(holders=["p-1", "p-2"], creator="p-1", private=False, invite_hash="",
                                    created_at=0.0, expires_at=1.0, claims=[1, 2], token_pending=[False, False],
                                    started=True)
    rec, _ = core.create("pompeii", 2, {}, 1, {"time_bank_ms": 5000, "increment_ms": 0}, started)
    plain, _ = core.create("pompeii", 2, {}, 1, {"time_bank_ms": 5000, "increment_ms": 0})

    class Referee:
        seen: list = []

        def on_create(self, r):
            self.seen.append(r.game_id)
    referee = Referee()
    lobby.restart_clocks(core, referee)
    assert referee.seen == [rec.game_id]  # a game that never had a seating is the referee's own business
    store.close()
