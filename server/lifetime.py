"""The server's child processes (the web edge, the referee's search workers) end with it, even when it
is killed with -9: the kernel signals them when their parent ends (Linux's PR_SET_PDEATHSIG)."""
from __future__ import annotations

import contextlib
import ctypes
import os

PR_SET_PDEATHSIG = 1


def die_with_parent(sig: int, parent: int) -> None:
    """Have `sig` sent to this process when `parent` (its parent) ends; exit now if it already has."""
    with contextlib.suppress(OSError, AttributeError):  # not Linux: the caller's own watch must do
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, sig)
    if os.getppid() != parent:  # it ended before the signal was armed
        raise SystemExit(0)
