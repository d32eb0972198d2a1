"""Signals as a terminal and an operator send them."""
from __future__ import annotations

import os
import signal
import subprocess

from clients.sdk import Client


def test_ctrl_c_stops_the_server_and_its_search_workers_without_a_traceback(fresh_server):
    """A terminal's Ctrl-C signals every process of the foreground group: the search workers took it as a
    KeyboardInterrupt and printed a traceback each, though the server stopped cleanly."""
    server = fresh_server().start()
    client = Client(server.target, "kuhn")
    game_id, tokens = client.create(2, seed=1)
    client.seat(game_id, 0, tokens[0]).hint(budget_ms=50)  # a search worker is running now
    children = subprocess.run(["ps", "-o", "pid=", "--ppid", str(server.proc.pid)], capture_output=True,
                              text=True).stdout.split()
    assert children, "the hint ran in a worker process"
    for pid in [server.proc.pid, *map(int, children)]:
        os.kill(int(pid), signal.SIGINT)
    assert server.proc.wait(timeout=60) == 0
    said = server.log.read_text(errors="replace")
    assert "Traceback" not in said and "KeyboardInterrupt" not in said, said[-3000:]
