"""One owner per data dir, and private files.

The server holds an exclusive flock on DATA_DIR/LOCK for its whole life (the kernel drops it when
the process dies, so a kill -9 leaves no stale lock); a second server on the same dir refuses to
start and names the holder. The dir is 0700 and every file in it 0600: snapshots and journals hold
every hand, deck order and seed.
"""
from __future__ import annotations

import fcntl
import os
import stat
from pathlib import Path

LOCK = "LOCK"
DIR_MODE = 0o700
FILE_MODE = 0o600


class StartupError(SystemExit):
    """The server must not start on this data dir; the message says why and what to run."""


def prepare(data_dir: Path) -> list[str]:
    """Create the dir or tighten its modes; returns what was tightened (for the log)."""
    data_dir.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    fixed = []
    mode = stat.S_IMODE(data_dir.stat().st_mode)
    if mode != DIR_MODE:
        try:
            os.chmod(data_dir, DIR_MODE)
            fixed.append(f"{data_dir} {mode:o} -> {DIR_MODE:o}")
        except PermissionError:  # e.g. a volume's mount point owned by root (k8s fsGroup): files stay 0600
            fixed.append(f"{data_dir} stays {mode:o}: not its owner, cannot chmod")
    for p in data_dir.iterdir():
        if p.is_file() and stat.S_IMODE(p.stat().st_mode) & 0o077:
            fixed.append(f"{p.name} {stat.S_IMODE(p.stat().st_mode):o} -> {FILE_MODE:o}")
            os.chmod(p, FILE_MODE)
    return fixed


def last_alive(data_dir: Path) -> float | None:
    """When the data dir's last server was last seen alive (the LOCK file's time: its holder touches it
    every second and when it stops, `touch`), read before `lock` takes it; None for a new data dir."""
    try:
        return (data_dir / LOCK).stat().st_mtime
    except FileNotFoundError:
        return None


def touch(fd: int) -> None:
    """This server is alive now (the LOCK file's time; `last_alive`)."""
    os.utime(fd)


def lock(data_dir: Path) -> int:
    """Take the data dir for this process, or raise StartupError naming the process that has it."""
    path = data_dir / LOCK
    fd = os.open(path, os.O_RDWR | os.O_CREAT, FILE_MODE)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 200, 0).decode(errors="replace").strip() or "unknown"
        os.close(fd)
        raise StartupError(f"data dir {data_dir} is in use by process {holder} (it holds {path}); one server per "
                           f"data dir: stop that process, or give this one its own GE_DATA_DIR") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"pid {os.getpid()} ({_cmdline()})\n".encode(), 0)
    return fd


def _cmdline() -> str:
    try:
        return Path("/proc/self/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()[:160]
    except OSError:
        return "?"


def unlock(fd: int) -> None:
    os.close(fd)  # closing the only descriptor releases the flock
