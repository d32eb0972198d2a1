"""Tournament records at recovery, in process: a game created just before a crash whose
GameScheduled record was lost is linked again (never created twice), and replaying records the
snapshot already holds counts nothing twice."""
from __future__ import annotations

import asyncio
import time

from gameengine.v1 import tournament_pb2

from server import auth, journal, tournaments
from server.config import Config
from server.participation import PlayerRegistered, Seating
from server.referee import Referee
from server.service import GameCore
from server.store import Store


def open_store(path):
    store = Store(path, fsync="never")
    store.recover()
    core = GameCore(store)
    return store, core, Referee(core, Config())


def request(player_ids):
    return tournament_pb2.CreateTournamentRequest(
        game="pompeii", seats_per_game=2, format=tournament_pb2.TOURNAMENT_FORMAT_ROUND_ROBIN,
        clock=tournament_pb2.TournamentClock(time_bank_ms=5000), player_ids=player_ids, max_parallel_games=1, seed=4)


def test_a_game_created_before_its_scheduled_record_is_linked_not_created_again(tmp_path):
    async def scenario():
        store, core, referee = open_store(tmp_path)
        ids = []
        for name in ("x", "y", "z"):
            pid = f"p-{name * 16}"
            store.write_player(PlayerRegistered(pid, name, auth.token_hash(name), time.time()))
            ids.append(pid)
        t, creator = tournaments.create(core, Config(), ["pompeii"], request(ids))
        store.write_tournament(tournaments.plan_start(t))  # started, but no game created yet: the crash
        slot = t.slots[0]
        seating = Seating(holders=list(slot.seats), creator="", private=False, invite_hash="", created_at=0,
                          expires_at=0, claims=[1, 1], token_pending=[True, True], started=True,
                          tournament=f"{t.tournament_id}/0")
        rec, _ = core.create("pompeii", 2, t.options, slot.seed, dict(t.clock), seating)  # journaled ...
        store.close()  # ... and then kill -9 before GameScheduled
        referee.close()

        store, core, referee = open_store(tmp_path)
        assert not store.tournaments.by_id[t.tournament_id].slots[0].game_id
        games_before = set(store.games)
        tournaments.resume_all(core, referee)
        t = store.tournaments.by_id[t.tournament_id]
        assert t.slots[0].game_id == rec.game_id  # linked
        assert set(store.games) == games_before  # max_parallel 1: nothing else created, nothing twice
        assert [e.kind for e in t.events] == ["game_scheduled"]
        referee.close()
        store.close()
    asyncio.run(scenario())


def test_replayed_tournament_records_count_nothing_twice(tmp_path):
    async def scenario():
        store, core, referee = open_store(tmp_path)
        ids = []
        for name in ("u", "v"):
            pid = f"p-{name * 16}"
            store.write_player(PlayerRegistered(pid, name, auth.token_hash(name), time.time()))
            ids.append(pid)
        t, _ = tournaments.create(core, Config(), ["pompeii"], request(ids))
        store.write_tournament(tournaments.plan_start(t))
        outcome = {"ranks": [1, 2], "scores": [3.0, 1.0], "winners": [0], "adjudicated": False, "confidence": 0.0}
        from server.tournament_records import GameCounted, GameScheduled
        store.write_tournament(GameScheduled(t.tournament_id, t.seq + 1, 0, "g0"))
        store.write_tournament(GameCounted(t.tournament_id, t.seq + 1, 0, outcome))
        standings = t.standings()
        records = [r for seg in journal.segments(tmp_path)
                   for r in journal.read_segment(journal.segment_path(tmp_path, seg))]
        assert sum(store._redo(r) for r in records if r[0] == "tournament") == 0  # all applied already
        assert t.standings() == standings and t.table[t.slots[0].seats[0]].games == 1
        board = store.tournaments.leaderboard["pompeii"]
        assert sum(r.games for r in board.values()) == 2
        referee.close()
        store.close()
    asyncio.run(scenario())
