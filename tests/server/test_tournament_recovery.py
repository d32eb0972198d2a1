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
from tests.conftest import CallContext


def open_store(path):
    store = Store(path, fsync="never")
    store.recover()
    core = GameCore(store)
    return store, core, Referee(core, Config())


def entrants(store):
    """The ids of three players registered in `store`."""
    ids = []
    for name in ("x", "y", "z"):
        pid = f"p-{name * 16}"
        store.write_player(PlayerRegistered(pid, name, auth.token_hash(name), time.time()))
        ids.append(pid)
    return ids


def request(player_ids):
    return tournament_pb2.CreateTournamentRequest(
        game="pompeii", seats_per_game=2, format=tournament_pb2.TOURNAMENT_FORMAT_ROUND_ROBIN,
        clock=tournament_pb2.TournamentClock(time_bank_ms=5000), player_ids=player_ids, max_parallel_games=1, seed=4)


def test_a_game_created_before_its_scheduled_record_is_linked_not_created_again(tmp_path):
    async def scenario():
        store, core, referee = open_store(tmp_path)
        ids = entrants(store)
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
        from server import records as wire
        frames = [f.payload for seg in journal.segments(tmp_path)
                  for f in journal.scan(journal.segment_path(tmp_path, seg), journal.JOURNAL_MAGIC).frames]
        pbs = [wire.parse(p) for p in frames]
        tour = [(pb, p) for pb, p in zip(pbs, frames) if pb.WhichOneof("write") in wire.TOURNAMENT_KINDS]
        assert len(tour) == 4
        assert sum(store._redo(pb, p, "test") for pb, p in tour) == 0  # all applied already
        assert t.standings() == standings and t.table[t.slots[0].seats[0]].games == 1
        board = store.tournaments.leaderboard["pompeii"]
        assert sum(r.games for r in board.values()) == 2
        referee.close()
        store.close()
    asyncio.run(scenario())


def test_every_tournament_record_round_trips_through_its_journal_form():
    from server import records as wire
    from server.tournament_records import (
        EntrantJoined,
        EntrantWithdrew,
        GameCounted,
        GameScheduled,
        RoundPaired,
        Tournament,
        TournamentCreated,
        TournamentEnded,
        TournamentStarted,
        from_journal,
        to_journal,
    )
    t = Tournament("t-1", "n", "citadels", 4, {}, "swiss", 0, 3, {"time_bank_ms": 2000, "increment_ms": 200,
                   "timeout_policy": "forfeit", "max_moves": 0}, 2, False, 4, (3.0, 2.0, 1.0, 0.0), 99, "h", 1.5,
                   entrants=["a", "b", "c", "d"])
    outcome = {"ranks": [1, 2, 3, 4], "scores": [9.0, 7.0, 5.0, 1.0], "winners": [0], "adjudicated": False,
               "confidence": 0.0}
    for r in (TournamentCreated(t), EntrantJoined("t-1", 2, "e"), EntrantWithdrew("t-1", 3, "e"),
              TournamentStarted("t-1", 4, ("a", "b", "c", "d"), 3, ((1, ("a", "b", "c", "d"), 5),), (), 2.5),
              RoundPaired("t-1", 5, 2, ((("d", "c", "b", "a"), 6),), ("x",)), GameScheduled("t-1", 6, 0, "g"),
              GameCounted("t-1", 7, 0, outcome, (3,)), GameCounted("t-1", 8, 1, None, (), "gone"),
              TournamentEnded("t-1", 9, "finished", "", 3.5)):
        pb = wire.parse(to_journal(r, 1.0).SerializeToString())
        back = from_journal(pb)
        if isinstance(r, TournamentCreated):
            assert back.tournament.options == codecs_defaults("citadels") and back.tournament.clock == t.clock
            assert (back.tournament.entrants, back.tournament.points_per_rank) == (t.entrants, t.points_per_rank)
        else:
            assert back == r


def codecs_defaults(game):
    from gameengine import codecs
    c = codecs.codec(game)
    return c.options_from_proto(c.options_to_proto({}))


def test_every_stream_of_a_tournament_shares_each_events_message(tmp_path, monkeypatch):
    """256 entrants' standings per event, built per stream: a few hundred streams held a victim's p50 at 280 ms."""
    async def scenario():
        store, core, referee = open_store(tmp_path)
        ids = entrants(store)
        t, _ = tournaments.create(core, Config(), ["pompeii"], request(ids))
        tournaments.advance(core, referee, t)
        store.write_tournament(tournaments.plan_start(t))
        tournaments.advance(core, referee, t)  # its first game: one event
        built = []
        real = tournaments.event_proto
        monkeypatch.setattr(tournaments, "event_proto", lambda *a: built.append(a[2].cursor) or real(*a))
        servicer = tournaments.TournamentServicer(core, referee, Config(), ["pompeii"])
        got = []
        for _ in range(5):
            stream = servicer.StreamTournamentEvents(
                tournament_pb2.StreamTournamentEventsRequest(tournament_id=t.tournament_id), CallContext())
            got.append(await stream.__anext__())
            await stream.aclose()
        assert len(got) == 5 and len({m.SerializeToString() for m in got}) == 1
        assert built == [got[0].cursor], f"built {len(built)} times for 5 streams"
        referee.close()
        store.close()
    asyncio.run(scenario())
