"""Policies over the engine contract: random, per-game greedy, and ISMCTS.

Used in-process by the server's referee and over RPC by the bots in clients/.
Every policy sees a seat's view only, never a full state.
"""
