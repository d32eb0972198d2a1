"""Append-only journal of accepted writes, with crash-safe framing.

A record is `len (4 bytes) | crc32 (4 bytes) | pickle payload`. A crash can only
leave a torn record at the tail; recovery reads up to the last whole record and
truncates the rest. The record is written with os.write before the move is
acknowledged, so an acknowledged move survives `kill -9` of the server in every
fsync policy (the page cache outlives the process); the policy only decides what
survives a power loss:

- "always":   fsync after every record (slowest, survives power loss)
- "interval": fsync every GE_FSYNC_INTERVAL_MS (default 100 ms) from a background
  thread, so the event loop never waits for the disk
- "never":    leave flushing to the OS
"""
from __future__ import annotations

import os
import pickle
import struct
import threading
import zlib
from pathlib import Path
from typing import Any, Iterator

HEADER = struct.Struct("<II")
FSYNC_POLICIES = ("always", "interval", "never")


def segment_path(data_dir: Path, segment: int) -> Path:
    return data_dir / f"journal-{segment:08d}.log"


def segments(data_dir: Path) -> list[int]:
    return sorted(int(p.stem.split("-")[1]) for p in data_dir.glob("journal-*.log"))


class Journal:
    def __init__(self, data_dir: Path, segment: int, fsync: str = "interval", fsync_interval_s: float = 0.1):
        if fsync not in FSYNC_POLICIES:
            raise ValueError(f"GE_FSYNC must be one of {FSYNC_POLICIES}, not {fsync!r}")
        self.data_dir = data_dir
        self.fsync = fsync
        self.fsync_interval_s = fsync_interval_s
        self.segment = segment
        self._fd = self._open(segment)
        self._dirty = False
        self._lock = threading.Lock()  # the syncer thread never fsyncs a closed fd
        self._closed = threading.Event()
        if fsync == "interval":
            threading.Thread(target=self._syncer, name="journal-fsync", daemon=True).start()

    def _open(self, segment: int) -> int:
        fd = os.open(segment_path(self.data_dir, segment), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        dir_fd = os.open(self.data_dir, os.O_RDONLY)
        try:
            os.fsync(dir_fd)  # the new file's name must survive too
        finally:
            os.close(dir_fd)
        return fd

    def append(self, record: Any) -> None:
        payload = pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL)
        os.write(self._fd, HEADER.pack(len(payload), zlib.crc32(payload)) + payload)
        if self.fsync == "always":
            os.fdatasync(self._fd)
        else:
            self._dirty = True

    def _syncer(self) -> None:
        while not self._closed.wait(self.fsync_interval_s):
            self.sync()

    def sync(self) -> None:
        with self._lock:
            if self._dirty and not self._closed.is_set():
                self._dirty = False
                os.fdatasync(self._fd)

    def rotate(self) -> int:
        """Start a new segment; returns its number. Older segments stay until a snapshot covers them."""
        with self._lock:
            if self._dirty:
                os.fdatasync(self._fd)
                self._dirty = False
            old, self._fd = self._fd, self._open(self.segment + 1)
            self.segment += 1
            os.close(old)
        return self.segment

    def close(self) -> None:
        self.sync()
        with self._lock:
            self._closed.set()
            os.close(self._fd)


def read_segment(path: Path) -> Iterator[Any]:
    """Yield whole records; truncate a torn tail left by a crash."""
    with open(path, "rb") as f:
        data = f.read()
    pos = 0
    while pos + HEADER.size <= len(data):
        length, crc = HEADER.unpack_from(data, pos)
        body = data[pos + HEADER.size : pos + HEADER.size + length]
        if len(body) < length or zlib.crc32(body) != crc:
            break
        yield pickle.loads(body)
        pos += HEADER.size + length
    if pos < len(data):
        os.truncate(path, pos)
