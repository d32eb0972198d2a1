"""Files of the data dir: framing, the append-only journal, and reading damaged files.

Every file (journal segment or snapshot) starts with an 8-byte header: 4 magic bytes and the
format version (little-endian uint32). Then frames: `len (4) | crc32 (4) | payload`, the
payload a protobuf message (gameengine/storage/v1/storage.proto).

A write is one `os.write` of whole frames. It is acknowledged only when every byte was
written (and, under GE_FSYNC=always, fdatasync'ed). A short or failed write (ENOSPC, EIO) is
cut back at once with ftruncate, so the file ends with the last acknowledged frame; the
journal stays `failed` (health NOT_SERVING) until a write or a probe succeeds again. GE_FSYNC
decides only what survives a power loss (the page cache outlives a killed process):

- "always":   fdatasync after every write, before the acknowledgement
- "interval": fdatasync every GE_FSYNC_INTERVAL_MS from a background thread; if one fails,
  writes are refused (and health is NOT_SERVING) until an fdatasync succeeds again
- "never":    leave flushing to the OS

Reading never truncates past an intact frame: `scan` reports every frame and every damaged
stretch, resynchronising on the next frame whose CRC holds.

A segment is sealed when it is closed: once the next segment exists, `journal-N.sealed` records
its size (SegmentSealed). A cut at a frame boundary leaves only intact frames, so the size is how
recovery tells that a closed segment lost its last records, or that the segment after it is gone.
A segment without a seal (a crash before it was written, or a release before seals) is taken as it is.
The segment being written has no seal; `journal-N.synced` (the same message) records, about once a
second, a size it had reached on disk (fdatasync'ed), so a cut of its acknowledged records at a frame
boundary is told from records never written. Its seal supersedes it.
"""
from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import struct
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import structlog

from gameengine.storage.v1 import storage_pb2 as spb

from . import metrics

FRAME = struct.Struct("<II")
FILE_HEADER = struct.Struct("<4sI")
FORMAT_VERSION = 1
JOURNAL_MAGIC = b"GEJ\n"
SNAPSHOT_MAGIC = b"GES\n"
SEAL_MAGIC = b"GEE\n"
MAX_FRAME = 256 << 20  # no single record is this large; a longer length field is damage
FSYNC_POLICIES = ("always", "interval", "never")
FILE_MODE = 0o600

log = structlog.get_logger("gameengine.journal")

# The one place bytes reach a data-dir file: tests replace it to inject short and failed writes.
write: Callable[[int, bytes], int] = os.write


def fdatasync(fd: int) -> None:
    """os.fdatasync, timed (ge_journal_fsync_seconds)."""
    t0 = time.perf_counter()
    os.fdatasync(fd)
    metrics.JOURNAL_FSYNC_SECONDS.observe(time.perf_counter() - t0)


def describe(e: OSError) -> str:
    """The error as the journal reports it, e.g. "ENOSPC: No space left on device"."""
    name = errno.errorcode.get(e.errno, e.errno) if e.errno is not None else None
    return f"{name}: {e.strerror or e}"


class JournalUnavailable(OSError):
    """The record could not be made durable; nothing was acknowledged and the file is cut back."""


def segment_path(data_dir: Path, segment: int) -> Path:
    return data_dir / f"journal-{segment:08d}.gej"


def segments(data_dir: Path) -> list[int]:
    return sorted(int(p.stem.split("-")[1]) for p in data_dir.glob("journal-*.gej"))


def seal_path(data_dir: Path, segment: int) -> Path:
    return data_dir / f"journal-{segment:08d}.sealed"


def seal(data_dir: Path, segment: int, size: int) -> None:
    """Record the size a segment was closed at; call it only once the segment after it exists."""
    write_file(seal_path(data_dir, segment),
               file_header(SEAL_MAGIC) + frame(spb.SegmentSealed(size=size).SerializeToString()))


def seals(data_dir: Path) -> dict[int, int | None]:
    """segment -> the size it was sealed at; None for a seal that does not read (damaged)."""
    return _sizes(data_dir, "sealed")


def mark_path(data_dir: Path, segment: int) -> Path:
    return data_dir / f"journal-{segment:08d}.synced"


def marks(data_dir: Path) -> dict[int, int | None]:
    """segment -> a size it was synced to (`Journal.mark_synced`); None for a mark that does not read."""
    return _sizes(data_dir, "synced")


def _sizes(data_dir: Path, suffix: str) -> dict[int, int | None]:
    found: dict[int, int | None] = {}
    for p in data_dir.glob(f"journal-*.{suffix}"):
        s = scan(p, SEAL_MAGIC)
        size = None
        if not s.header_error and not s.damage and len(s.frames) == 1:
            with contextlib.suppress(Exception):  # DecodeError: a frame whose CRC holds by chance
                size = spb.SegmentSealed.FromString(s.frames[0].payload).size
        found[int(p.stem.split("-")[1])] = size
    return found


def unsynced_size(path: Path, size: int, synced: int) -> str:
    """What the segment written last lost below the size it was synced to, in a sentence."""
    return (f"{path} is {size} bytes, but {synced} bytes of it had been written to disk ({path.stem}.synced): "
            f"the records in its last {synced - size} bytes are lost.")


def unsealed_size(path: Path, size: int, sealed: int) -> str:
    """What a closed segment that is no longer the size it was sealed at lost, in a sentence."""
    what = (f"the records in its last {sealed - size} bytes are lost." if size < sealed
            else f"{size - sealed} bytes were added after it was closed.")
    return f"{path} is {size} bytes, but it was {sealed} when it was closed ({path.stem}.sealed): {what}"


def frame(payload: bytes) -> bytes:
    return FRAME.pack(len(payload), zlib.crc32(payload)) + payload


def file_header(magic: bytes) -> bytes:
    return FILE_HEADER.pack(magic, FORMAT_VERSION)


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_file(path: Path, data: bytes) -> None:
    """A whole file, durably: written beside, fsynced, renamed over `path`."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    try:
        write_all(fd, data)
        os.fsync(fd)
    except OSError:
        os.unlink(tmp)
        raise
    finally:
        os.close(fd)
    os.replace(tmp, path)


def write_all(fd: int, data: bytes) -> None:
    """One write of `data`, or OSError: a short write is an error, never a partial success."""
    n = write(fd, data)
    if n != len(data):
        raise OSError(errno.ENOSPC, f"short write: {n} of {len(data)} bytes written")


@dataclass(frozen=True)
class Closed:
    """The segment a rotation left: its fd (-1: there was none), whether it has writes not yet
    synced, its number and its size."""
    fd: int
    unsynced: bool
    segment: int
    size: int


class Journal:
    def __init__(self, data_dir: Path, segment: int, fsync: str = "interval", fsync_interval_s: float = 0.1):
        if fsync not in FSYNC_POLICIES:
            raise ValueError(f"GE_FSYNC must be one of {FSYNC_POLICIES}, not {fsync!r}")
        self.data_dir = data_dir
        self.fsync = fsync
        self.fsync_interval_s = fsync_interval_s
        self.segment = segment
        self.failed: str | None = None  # why the last write or fsync failed; None when healthy
        try:
            self._fd, self._size = self._open(segment)
        except OSError as e:  # e.g. a full disk at startup: serve reads, refuse writes until it opens
            metrics.JOURNAL_ERRORS.inc()
            self._fd, self._size = -1, 0
            self.failed = describe(e)
        self._torn = False  # bytes past _size may be on disk: cut them before the next write
        self._unsealed: tuple[int, int] | None = None  # (segment, size) to seal once the first segment exists
        self._dirty = False
        self._sync_failed = False  # a background fdatasync failed: the next write retries it first
        self._appended = 0  # appends so far: sync() clears _dirty only if none came during its fdatasync
        self._synced = self._size  # of the current segment, on disk: its header is synced as it is made
        self._marked = (segment, self._synced)  # what `mark_synced` last wrote (nothing yet)
        self._lock = threading.Lock()  # the syncer thread never fsyncs a closed fd
        self._closed = threading.Event()
        if fsync == "interval":
            threading.Thread(target=self._syncer, name="journal-fsync", daemon=True).start()

    def _open(self, segment: int) -> tuple[int, int]:
        """Create a segment with its header, durably; on failure nothing is left behind."""
        path = segment_path(self.data_dir, segment)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, FILE_MODE)
        try:
            write_all(fd, file_header(JOURNAL_MAGIC))
            os.fdatasync(fd)
            fsync_dir(self.data_dir)  # the new file's name must survive too
        except OSError:
            os.close(fd)
            os.unlink(path)
            raise
        return fd, FILE_HEADER.size

    def append(self, frames: bytes) -> None:
        """Write whole frames or raise JournalUnavailable with the file as it was."""
        with self._lock:
            t0 = time.perf_counter()
            try:
                self._ensure_open()
                if self._torn:
                    self._cut_back()
                if self._sync_failed:  # nothing more is acknowledged until what was is on disk
                    fdatasync(self._fd)
                    self._sync_failed = False
                write_all(self._fd, frames)
                if self.fsync == "always":
                    fdatasync(self._fd)
            except OSError as e:
                metrics.JOURNAL_ERRORS.inc()
                self._torn = True
                self.failed = describe(e)
                try:
                    self._cut_back()
                except OSError:
                    pass  # retried before the next write
                raise JournalUnavailable(e.errno, self.failed) from None
            metrics.JOURNAL_APPEND_SECONDS.observe(time.perf_counter() - t0)
            metrics.JOURNAL_BYTES.inc(len(frames))
            self._size += len(frames)
            self._appended += 1
            self.failed = None
            self._dirty = self.fsync != "always"
            if not self._dirty:
                self._synced = self._size

    def _ensure_open(self) -> None:
        """Create the segment a failed start-up could not (under the lock)."""
        if self._fd < 0:
            self._fd, self._size = self._open(self.segment)
            self._synced = self._size
            if self._unsealed is not None:
                self.seal_closed(*self._unsealed)
                self._unsealed = None

    @property
    def empty(self) -> bool:
        """No record in the current segment yet."""
        return self._size == FILE_HEADER.size

    def _cut_back(self) -> None:
        if self._fd >= 0:  # -1: no segment yet, nothing to cut
            os.ftruncate(self._fd, self._size)
        self._torn = False

    def probe(self) -> bool:
        """After a failure: can the data dir take a write again? (cut back, write, fsync, delete)."""
        with self._lock:
            if self.failed is None:
                return True
            path = self.data_dir / ".probe"
            try:
                self._ensure_open()
                if self._torn:
                    self._cut_back()
                if self._dirty:
                    os.fdatasync(self._fd)
                    self._dirty = self._sync_failed = False
                    self._synced = self._size
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
                try:
                    write_all(fd, b"\0" * 65536)
                    os.fdatasync(fd)
                finally:
                    os.close(fd)
                    os.unlink(path)
            except OSError:
                return False
            self.failed = None
            return True

    def _syncer(self) -> None:
        while not self._closed.wait(self.fsync_interval_s):
            self.sync()

    def sync(self) -> None:
        """fdatasync what was written, outside the lock: appends (on the event loop) never wait
        for the disk under GE_FSYNC=interval. It syncs a duplicate of the fd, so a rotate or a
        close meanwhile cannot make it sync a closed or reused one."""
        with self._lock:
            if not self._dirty or self._closed.is_set():
                return
            fd, appended, segment, size = os.dup(self._fd), self._appended, self.segment, self._size
        try:
            fdatasync(fd)
        except OSError as e:
            self._fsync_failed(e)
            return
        finally:
            os.close(fd)
        with self._lock:
            if self._appended == appended:  # nothing written meanwhile: all of it is on disk
                self._dirty = False
            if self.segment == segment:
                self._synced = max(self._synced, size)

    def mark_synced(self) -> None:
        """Record the size the current segment is synced to (`journal-N.synced`), if it grew since the last
        mark; called about once a second (main._alive). A mark that cannot be written (a full disk) waits
        for the next call: recovery then checks against the last one written."""
        with self._lock:
            mark = (self.segment, self._synced)
        if mark == self._marked or mark[1] <= FILE_HEADER.size:
            return
        try:
            write_file(mark_path(self.data_dir, mark[0]),
                       file_header(SEAL_MAGIC) + frame(spb.SegmentSealed(size=mark[1]).SerializeToString()))
        except OSError:
            return  # the journal's own writes say the disk is full (health); the last mark stands
        self._marked = mark

    def rotate(self) -> int:
        """Start a new segment; returns its number. Older segments stay until a snapshot covers them."""
        target = self._next()
        closed = self._switch(target, self._open(target))
        self._retire(closed)
        return self.segment

    async def rotate_off_loop(self) -> int:
        """`rotate` with its syncs in threads: only the switch of files runs on the event loop."""
        target = self._next()
        opened = await asyncio.to_thread(self._open, target)  # O_EXCL: no one else opened it meanwhile
        closed = self._switch(target, opened)
        await asyncio.to_thread(self._retire, closed)
        return self.segment

    def _next(self) -> int:
        """The segment a rotation opens: the one start-up could not create is not skipped."""
        return self.segment + 1 if self._fd >= 0 else self.segment

    def _switch(self, segment: int, opened: tuple[int, int]) -> Closed:
        """Appends go to the opened segment from here on; returns the segment they went to before."""
        with self._lock:
            if self._torn:
                self._cut_back()
            closed = Closed(self._fd, self._dirty or self._sync_failed, self.segment, self._size)
            self.segment = segment
            self._fd, self._size = opened
            self._synced = self._size
            self._dirty = False
        return closed

    def _retire(self, closed: Closed) -> None:
        """Sync, close and seal a segment `_switch` left; a failed sync fails the journal as the
        syncer's does. A seal that cannot be written leaves the segment unsealed, taken as it is."""
        if closed.fd < 0:
            return
        try:
            if closed.unsynced:
                fdatasync(closed.fd)
        except OSError as e:
            self._fsync_failed(e)
            raise
        finally:
            os.close(closed.fd)
        self.seal_closed(closed.segment, closed.size)

    def seal_previous(self, segment: int, size: int) -> None:
        """Seal the segment before this journal's first, once the first exists (a start on a full disk
        creates it at the first write that succeeds)."""
        if self._fd < 0:
            self._unsealed = (segment, size)
        else:
            self.seal_closed(segment, size)

    def seal_closed(self, segment: int, size: int) -> None:
        """Seal a segment before this journal's own; one that cannot be sealed (a full disk) stays
        unsealed, and is taken as it is."""
        try:
            seal(self.data_dir, segment, size)
        except OSError as e:
            log.warning("journal_seal_failed", segment=segment, reason=describe(e))
            return
        with contextlib.suppress(FileNotFoundError):
            os.unlink(mark_path(self.data_dir, segment))  # the seal says more


    def _fsync_failed(self, e: OSError) -> None:
        """A background fdatasync failed: writes are refused until an fsync succeeds again."""
        with self._lock:
            metrics.JOURNAL_ERRORS.inc()
            self.failed = f"fsync: {describe(e)}"
            self._sync_failed = True

    def close(self) -> None:
        try:
            self.sync()
        finally:
            with self._lock:
                self._closed.set()
                if self._fd >= 0:
                    os.close(self._fd)


# ---- reading -------------------------------------------------------------------

@dataclass
class Frame:
    offset: int
    payload: bytes
    repaired: str = ""  # set by `salvage` when the frame was mended


@dataclass
class Damage:
    offset: int
    end: int  # first byte after the damaged stretch (the next intact frame, or the file's end)
    reason: str
    tail: bool = False  # nothing intact follows: a torn last write, or a whole last record damaged since

    def __str__(self) -> str:
        where = "torn tail" if self.tail else "damaged"
        return f"{where} at offset {self.offset} ({self.end - self.offset} bytes): {self.reason}"


@dataclass
class Scan:
    path: Path
    header_error: str  # "" when the file header is right
    frames: list[Frame]
    damage: list[Damage]
    size: int


def _frame_at(data: bytes, pos: int) -> int:
    """Length of the intact frame at pos, or -1."""
    if pos + FRAME.size > len(data):
        return -1
    length, crc = FRAME.unpack_from(data, pos)
    end = pos + FRAME.size + length
    if length == 0 or length > MAX_FRAME or end > len(data):  # no record is empty: zeros are no frame
        return -1
    return length if zlib.crc32(data[pos + FRAME.size:end]) == crc else -1


def _resync(data: bytes, pos: int) -> int:
    """The offset of the next intact frame after a damaged one at pos, or len(data)."""
    for q in range(pos + 1, len(data) - FRAME.size + 1):
        if _frame_at(data, q) >= 0:
            return q
    return len(data)


def check_header(data: bytes, magic: bytes) -> str:
    if len(data) < FILE_HEADER.size:
        return f"file is {len(data)} bytes, shorter than its {FILE_HEADER.size}-byte header"
    got, version = FILE_HEADER.unpack_from(data)
    if got != magic:
        return f"file magic is {got!r}, not {magic!r}"
    if version != FORMAT_VERSION:
        return f"format version {version}; this server reads version {FORMAT_VERSION}"
    return ""


def header_cut_short(data: bytes, magic: bytes) -> bool:
    """A file that holds only the start of its header: a crash between creating it (`Journal._open`)
    and writing the header, so it never held a record."""
    return len(data) < FILE_HEADER.size and file_header(magic).startswith(data)


def scan(path: Path, magic: bytes, data: bytes | None = None) -> Scan:
    """Every intact frame and every damaged stretch of a file, without changing it."""
    data = path.read_bytes() if data is None else data
    header_error = check_header(data, magic)
    frames, damage = [], []
    pos = FILE_HEADER.size
    while pos < len(data):
        length = _frame_at(data, pos)
        if length >= 0:
            frames.append(Frame(pos, data[pos + FRAME.size:pos + FRAME.size + length]))
            pos += FRAME.size + length
            continue
        nxt = _resync(data, pos)
        damage.append(Damage(pos, nxt, _why(data, pos), tail=nxt == len(data)))
        pos = nxt
    return Scan(path, header_error, frames, damage, len(data))


def _why(data: bytes, pos: int) -> str:
    if pos + FRAME.size > len(data):
        return "incomplete frame header"
    length, _ = FRAME.unpack_from(data, pos)
    if length > MAX_FRAME:
        return f"length field {length} is implausible"
    if pos + FRAME.size + length > len(data):
        return f"length field {length} runs past the end of the file"
    return "CRC mismatch"


def mend(data: bytes, d: Damage) -> Frame | None:
    """Recover the one record in a damaged stretch when a single byte of it was hit.

    The stretch is one frame whose length, CRC or payload field took the hit: a length is
    re-derived from where the next intact frame starts; a payload byte is corrected when
    exactly one single-byte change makes the CRC hold (CRC-32 detects every burst of up to
    32 bits, so such a fix is unique in practice). A damaged CRC field is not guessed here:
    `salvage` accepts that payload only if it parses and fits its game's sequence."""
    start, end = d.offset, d.end
    if end - start < FRAME.size:
        return None
    length, crc = FRAME.unpack_from(data, start)
    payload = data[start + FRAME.size:end]
    if length != len(payload) and zlib.crc32(payload) == crc:
        return Frame(start, payload, f"length field {length} corrected to {len(payload)}")
    if length != len(payload) or len(payload) > 1024:
        return None
    found = None
    buf = bytearray(payload)
    for i in range(len(buf)):
        orig = buf[i]
        for v in range(256):
            if v == orig:
                continue
            buf[i] = v
            if zlib.crc32(buf) == crc:
                if found is not None:
                    return None  # ambiguous: do not guess
                found = (i, orig, v)
        buf[i] = orig
    if found is None:
        return None
    i, orig, v = found
    buf[i] = v
    return Frame(start, bytes(buf), f"payload byte {i} corrected from 0x{orig:02x} to 0x{v:02x}")


def spans_one_frame(data: bytes, d: Damage) -> bool:
    """Whether a damaged stretch is one frame whose length field reaches exactly its end."""
    if d.end - d.offset < FRAME.size:
        return False
    length: int = FRAME.unpack_from(data, d.offset)[0]
    return d.offset + FRAME.size + length == d.end


def crc_suspect(data: bytes, d: Damage) -> Frame | None:
    """The payload of a damaged stretch whose length holds and whose CRC field differs from the
    payload's CRC in one byte only: a candidate for a hit on the CRC field itself, to be accepted
    only if it parses and fits. A payload that was hit too has a CRC unlike the stored one in
    every byte, almost surely: it is no candidate (parsing and fitting let a changed move through)."""
    if not spans_one_frame(data, d):
        return None
    _, crc = FRAME.unpack_from(data, d.offset)
    payload = data[d.offset + FRAME.size:d.end]
    differs = (zlib.crc32(payload) ^ crc).to_bytes(4, "little")
    if sum(1 for b in differs if b) != 1:
        return None
    return Frame(d.offset, payload, "CRC field did not match an intact payload")
