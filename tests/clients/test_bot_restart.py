"""A bot told its turn while the server restarts still plays that turn once the server is back: the
player stream tells each turn once, so a bot that only logged the failure left its seat, and the
game with it, waiting until the clock's referee took over (or for ever, without a clock)."""
from __future__ import annotations

import random
import threading
import time

from clients.bot import Bot, LobbyBot
from clients.sdk import Client, PlayerClient, Refused, SeatClient


def test_a_lobby_bot_plays_the_turn_it_was_told_while_the_server_restarted(fresh_server):
    server = fresh_server().start()
    alice = PlayerClient.register(server.target, "alice")
    bob = PlayerClient.register(server.target, "bob")
    client = Client(server.target, "pompeii")
    game_id, tokens = client.create(2, open_seats=[1], player_token=alice.token)
    restarted, looked = threading.Event(), threading.Event()
    looked_at = client.status(game_id)  # replaced by the status at bob's first turn

    def restart() -> None:
        server.kill9()
        time.sleep(4)  # longer than the SDK's own retries of one call
        server.start()
        restarted.set()

    class KilledAtFirstLook(SeatClient):
        """Bob's seat: the server is killed as the bot first looks at it, on its first turn."""
        looked = False

        def view(self):
            if not self.looked:
                self.looked = True
                nonlocal looked_at
                looked_at = self.client.status(self.game_id)
                looked.set()
                threading.Thread(target=restart).start()
                time.sleep(0.5)  # the look itself fails: the server is down
            return super().view()

    def make_bot(seat: SeatClient) -> Bot:
        return Bot(KilledAtFirstLook(seat.client, seat.game_id, seat.seat, seat.token), "random",
                   rng=random.Random(1))

    lobby = LobbyBot(bob, Client(server.target, "pompeii"), make_bot, join=game_id, games=1)
    runner = threading.Thread(target=lobby.run, daemon=True)
    runner.start()
    alice_seat = client.seat(game_id, 0, tokens[0])
    rng = random.Random(2)
    deadline = time.time() + 20
    while not restarted.is_set() and not looked.is_set():  # alice plays until bob is told his turn
        assert time.time() < deadline, "bob never got a turn"
        status = alice_seat.status()
        if status.acts(0):
            alice_seat.move(rng.choice(alice_seat.legal()), expected_version=status.version)
        else:
            time.sleep(0.05)
    assert restarted.wait(30), "the server did not come back"
    bobs_turn = looked_at.version
    deadline = time.time() + 30
    while True:
        try:
            if alice_seat.status().version > bobs_turn:
                break
        except Refused:  # the channel reconnecting after the restart
            pass
        assert time.time() < deadline, "bob's turn was never played after the restart"
        time.sleep(0.2)
    lobby.stop()
    runner.join(timeout=10)
