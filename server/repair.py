"""`python -m server.store verify|repair DATA_DIR`: report every record; salvage every intact one.

verify (read-only, safe beside a running server) prints each file, each record (offset, game, seq,
kind) and each damaged stretch with whether it can be mended, then every game whose records have a
gap. Exit status 0 when everything is intact, 1 otherwise.

repair (takes the data dir's lock: the server must be stopped) rewrites a damaged journal segment
with every intact record plus each record it can mend (one damaged byte: see journal.mend), moving
the original and any unmendable bytes to DATA_DIR/damaged/. A game whose records have a gap keeps
its records up to the gap; the ones after it are moved to DATA_DIR/damaged/quarantine-*.gej
(journal format, readable by verify) and listed, never dropped silently. A damaged snapshot with an
intact predecessor is moved aside (recovery falls back to the predecessor and the journal, which
hold everything); without one its intact games are rewritten into it and the lost ones listed.
A closed segment that is no longer the size its seal says (cut at a record boundary) is reported
and resealed as it is; a seal whose successor is missing is removed, so the server starts without it.
The segment written last, shorter than its synced mark says, is reported and its mark removed.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from gameengine.storage.v1 import storage_pb2 as spb

from . import datadir, journal, records, snapshots
from .journal import JOURNAL_MAGIC, Damage, Frame


@dataclass
class Item:
    """One frame of a segment, in journal order, with its parse."""
    seg: int
    frame: Frame
    pb: spb.JournalRecord | None
    candidate: bool = False  # a CRC-suspect payload: accepted only if it fits its game's sequence
    keep: bool = True


@dataclass
class Report:
    lines: list[str] = field(default_factory=list)
    problems: int = 0

    def say(self, line: str, problem: bool = False) -> None:
        self.lines.append(line)
        self.problems += problem


def _describe(pb: spb.JournalRecord) -> str:
    kind = pb.WhichOneof("write")
    extra = {"created": lambda: f" {pb.created.game} {pb.created.seats} seats",
             "move": lambda: f" seat {pb.move.seat}"
                             + (f" by referee ({pb.move.by_referee})" if pb.move.by_referee else ""),
             "referee_action": lambda: f" {pb.referee_action.event.action} seat {pb.referee_action.event.seat}",
             "forfeit": lambda: f" seat {pb.forfeit.seat}"}.get(kind or "", lambda: "")()
    return f"game {pb.game_id} seq {pb.seq} {kind}{extra}"


def _parse(payload: bytes) -> spb.JournalRecord | None:
    try:
        return records.parse(payload)
    except records.FormatError:
        return None


def snapshot_base(data_dir: Path, report: Report | None = None) -> tuple[int, dict[str, int]]:
    """(first segment not covered, game -> seq) of the newest snapshot that verifies."""
    for seg in reversed(snapshots.listed(data_dir)):
        file = snapshots.path(data_dir, seg)
        try:
            segment, histories, *_ = snapshots.load(file)
        except snapshots.SnapshotDamaged as e:
            if report:
                report.say(f"{file.name}: DAMAGED: {e}", problem=True)
            continue
        base = {}
        for h in histories:
            recs = spb.GameHistory.FromString(h).records
            if recs:
                base[recs[0].game_id] = recs[-1].seq
        if report:
            report.say(f"{file.name}: ok, {len(histories)} games, covers segments before {segment}")
        return segment, base
    return 1, {}


def _items(data_dir: Path, start: int, report: Report | None, mend: bool
           ) -> tuple[list[Item], dict[int, journal.Scan], dict[int, list[tuple[Damage, Frame | None]]]]:
    items: list[Item] = []
    scans: dict[int, journal.Scan] = {}
    mended: dict[int, list[tuple[Damage, Frame | None]]] = {}
    segs = [s for s in journal.segments(data_dir) if s >= start]
    for seg in segs:
        path = journal.segment_path(data_dir, seg)
        data = path.read_bytes()
        s = scans[seg] = journal.scan(path, JOURNAL_MAGIC, data)
        if report:
            intact = f"header ok, {len(s.frames)} intact records, {len(s.damage)} damaged stretches"
            report.say(f"{path.name}: " + (f"HEADER DAMAGED: {s.header_error}" if s.header_error else intact),
                       problem=bool(s.header_error))
        fixes = mended[seg] = []
        for d in s.damage:
            fix = journal.mend(data, d) if mend else None
            if fix is not None and _parse(fix.payload) is None:
                fix = None
            suspect = None if fix else journal.crc_suspect(data, d)
            fixes.append((d, fix or suspect))
        entries = [(f.offset, Item(seg, f, _parse(f.payload))) for f in s.frames]
        for d, fix in fixes:
            if fix is not None:
                candidate = not fix.repaired.startswith(("payload", "length"))
                entries.append((d.offset, Item(seg, fix, _parse(fix.payload), candidate=candidate)))
        items.extend(item for _, item in sorted(entries, key=lambda e: e[0]))
        if report:
            by_offset = {d.offset: (d, fix) for d, fix in fixes}
            for off, item in sorted([(i.frame.offset, i) for i in items if i.seg == seg] +
                                    [(d.offset, None) for d, fix in fixes if fix is None], key=lambda e: e[0]):
                if item is None or item.frame.repaired:
                    d, fix = by_offset[off]
                    how = f"mendable: {fix.repaired}" if fix is not None else "not mendable"
                    report.say(f"  offset {off}: DAMAGED, {d.end - d.offset} bytes: {d.reason}"
                               f"{' (torn tail)' if d.tail else ''} ({how})", problem=True)
                    if fix is not None and item is not None and item.pb is not None:
                        report.say(f"  offset {off}:   would restore {_describe(item.pb)}")
                elif item.pb is None:
                    report.say(f"  offset {off}: intact frame that is not a readable record", problem=True)
                else:
                    report.say(f"  offset {off}: {_describe(item.pb)}")
    return items, scans, mended


def _sequence(items: list[Item], base: dict[str, int]) -> dict[str, tuple[int, int]]:
    """Mark what recovery could fold; returns game -> (last good seq, first seq after a gap)."""
    expected = dict(base)
    gaps: dict[str, tuple[int, int]] = {}
    for item in items:
        pb = item.pb
        if pb is None:
            item.keep = False
            continue
        gid = pb.game_id
        if pb.WhichOneof("write") in records.PLAYER_KINDS + records.TOURNAMENT_KINDS:
            continue  # the players and tournament subjects: guarded when applied, not by a game's seq
        if gid in gaps:
            item.keep = False  # after the gap: quarantined
            continue
        if pb.WhichOneof("write") == "created":
            item.keep = not item.candidate or gid not in expected
            expected.setdefault(gid, 0)
            continue
        if gid not in expected:  # its creation record is lost
            if not item.candidate:
                gaps[gid] = (-1, pb.seq)
            item.keep = False
            continue
        if pb.seq <= expected[gid]:
            item.keep = not item.candidate
            continue
        if pb.seq == expected[gid] + 1:
            expected[gid] = pb.seq
            continue
        if item.candidate:
            item.keep = False
            continue
        gaps[gid] = (expected[gid], pb.seq)
        item.keep = False
    return gaps


def damaged_games(data_dir: Path, path: Path, d: Damage) -> str:
    """Which game a damaged stretch belongs to, for the startup error."""
    start, base = snapshot_base(data_dir)
    items, _, _ = _items(data_dir, start, None, mend=False)
    gaps = _sequence(items, base)
    if gaps:
        return ", ".join(f"{g} ({'its creation' if a < 0 else f'its records after seq {a}'} in the damaged stretch)"
                         for g, (a, _) in gaps.items())
    data = path.read_bytes()
    pb = _parse(data[d.offset + journal.FRAME.size:d.end])
    known = {i.pb.game_id for i in items if i.pb is not None} | set(base)
    if pb is not None and pb.game_id in known:
        return f"{pb.game_id} (seq {pb.seq}, as the damaged record itself reads)"
    return ""


def _seal_problems(data_dir: Path, start: int) -> dict[int, str]:
    """segment -> what its seal says went missing, for the segments recovery replays."""
    seals = journal.seals(data_dir)  # before the segments: a seal is written once its successor exists
    present = journal.segments(data_dir)
    found = {}
    for seg, sealed in sorted(seals.items()):
        path = journal.segment_path(data_dir, seg)
        if seg < start or not path.exists():
            continue  # covered by the snapshot; or missing, which the gap in the segments says
        if sealed is None:
            found[seg] = f"{path.stem}.sealed: unreadable (the segment is taken as it is)"
        elif sealed != path.stat().st_size:
            found[seg] = journal.unsealed_size(path, path.stat().st_size, sealed)
        elif _successor_lost(seg, present):
            found[seg] = (f"{journal.segment_path(data_dir, seg + 1).name} is missing: {path.stem}.sealed says it "
                          f"was opened, so the records journaled in it are lost")
    for seg, synced in sorted(journal.marks(data_dir).items()):
        path = journal.segment_path(data_dir, seg)
        if seg < start or not path.exists() or seg in seals:
            continue  # a seal says more than the mark
        if synced is None:
            found[seg] = f"{path.stem}.synced: unreadable (the segment is taken as it is)"
        elif synced > path.stat().st_size:
            found[seg] = journal.unsynced_size(path, path.stat().st_size, synced)
    return found


def verify(data_dir: Path) -> Report:
    r = Report()
    start, base = snapshot_base(data_dir, r)
    for problem in _seal_problems(data_dir, start).values():
        r.say(problem, problem=True)
    items, _, _ = _items(data_dir, start, r, mend=True)
    gaps = _sequence(items, base)
    for gid, (last, nxt) in gaps.items():
        what = "its creation record is missing" if last < 0 else f"records after seq {last} are missing"
        r.say(f"game {gid}: {what} (next intact one is seq {nxt})", problem=True)
    damaged = sum(1 for i in items if i.frame.repaired)
    r.say(f"summary: {sum(1 for i in items if not i.frame.repaired and i.pb)} intact records, "
          f"{damaged} mendable, {r.problems} problems" + ("" if r.problems else ": the data dir is intact"))
    return r


def repair(data_dir: Path) -> Report:
    r = Report()
    lock = datadir.lock(data_dir)
    try:
        damaged_dir = data_dir / "damaged"
        stamp = time.strftime("%Y%m%dT%H%M%S")
        _repair_snapshots(data_dir, damaged_dir, stamp, r)
        start, base = snapshot_base(data_dir)
        cut = _seal_problems(data_dir, start)
        items, scans, mended = _items(data_dir, start, None, mend=True)
        gaps = _sequence(items, base)
        quarantine = [i for i in items if i.pb is not None and i.pb.game_id in gaps and not i.keep]
        for seg, s in scans.items():
            seg_items = [i for i in items if i.seg == seg]
            changed = s.header_error or s.damage or any(not i.keep for i in seg_items)
            if not changed:
                continue
            damaged_dir.mkdir(mode=0o700, exist_ok=True)
            path = s.path
            data = path.read_bytes()
            for d, fix in mended[seg]:
                if fix is None or not any(i.frame is fix and i.keep for i in seg_items):
                    out = damaged_dir / f"{path.name}.{d.offset}.{stamp}.bin"
                    journal.write_file(out, data[d.offset:d.end])
                    r.say(f"{path.name} offset {d.offset}: {d}: not mended; bytes saved to {out}", problem=True)
                else:
                    r.say(f"{path.name} offset {d.offset}: mended ({fix.repaired})")
            if s.header_error:
                r.say(f"{path.name}: header rewritten ({s.header_error})")
            body = b"".join(journal.frame(i.frame.payload) for i in seg_items if i.keep)
            os.replace(path, damaged_dir / f"{path.name}.{stamp}.orig")
            journal.write_file(path, journal.file_header(JOURNAL_MAGIC) + body)
            r.say(f"{path.name}: rewritten with {sum(i.keep for i in seg_items)} records; original in {damaged_dir}")
        if quarantine:
            out = damaged_dir / f"quarantine-{stamp}.gej"
            frames = b"".join(journal.frame(i.frame.payload) for i in quarantine)
            journal.write_file(out, journal.file_header(JOURNAL_MAGIC) + frames)
            for gid, (last, nxt) in gaps.items():
                n = sum(1 for i in quarantine if i.pb is not None and i.pb.game_id == gid)
                lost = "its creation record is lost, so it is not restored" if last < 0 else \
                    f"its record after seq {last} is lost; it is restored up to seq {last}"
                r.say(f"game {gid}: {lost}; its {n} later records (seq {nxt}..) are in {out}", problem=True)
        _reseal(data_dir, start, cut, r)
        journal.fsync_dir(data_dir)
        after = verify(data_dir)
        r.say("after repair: " + after.lines[-1])
    finally:
        datadir.unlock(lock)
    return r


def _successor_lost(seg: int, present: list[int]) -> bool:
    """A sealed segment that is the newest left: the one opened after it (before its seal) is gone."""
    return seg == present[-1]


def _reseal(data_dir: Path, start: int, lost: dict[int, str], r: Report) -> None:
    """Seal the segments as they are now: the ones rewritten here, and the ones that lost records
    (their loss reported); a seal whose segment's successor is gone is removed, so the server starts
    without it."""
    present = journal.segments(data_dir)
    for seg, sealed in sorted(journal.seals(data_dir).items()):
        path, seal = journal.segment_path(data_dir, seg), journal.seal_path(data_dir, seg)
        if seg < start or not path.exists():
            continue
        if _successor_lost(seg, present):
            os.unlink(seal)
            r.say(f"{lost.get(seg, seal.name)}; {seal.name} removed, so the server starts without them",
                  problem=True)
        elif sealed != path.stat().st_size:
            journal.seal(data_dir, seg, path.stat().st_size)
            if seg in lost:
                r.say(f"{lost[seg]} {seal.name} now says {path.stat().st_size} bytes", problem=True)
    sealed_now = journal.seals(data_dir)
    for seg, synced in sorted(journal.marks(data_dir).items()):
        path, mark = journal.segment_path(data_dir, seg), journal.mark_path(data_dir, seg)
        if seg in sealed_now or synced is None or not path.exists() or synced > path.stat().st_size:
            os.unlink(mark)  # superseded, unreadable, or above the segment as it is now (its loss reported)
            if seg in lost and seg not in sealed_now:
                r.say(f"{lost[seg]} {mark.name} removed, so the server starts without them", problem=True)


def _repair_snapshots(data_dir: Path, damaged_dir: Path, stamp: str, r: Report) -> None:
    have = snapshots.listed(data_dir)
    good = []
    for seg in have:
        try:
            snapshots.load(snapshots.path(data_dir, seg))
            good.append(seg)
        except snapshots.SnapshotDamaged:
            pass
    for seg in have:
        if seg in good:
            continue
        file = snapshots.path(data_dir, seg)
        damaged_dir.mkdir(mode=0o700, exist_ok=True)
        older = [g for g in good if g < seg]
        if older or journal.segments(data_dir)[:1] == [1]:
            os.replace(file, damaged_dir / f"{file.name}.{stamp}.orig")
            source = snapshots.path(data_dir, older[-1]).name if older else "the whole journal"
            r.say(f"{file.name}: damaged; moved to {damaged_dir} (recovery uses {source}, which holds everything)")
            continue
        s = journal.scan(file, journal.SNAPSHOT_MAGIC)
        kept, lost = [], 0
        players, tournament_records, header_lost = _header_records(s)
        for f in s.frames[1:]:
            try:
                recs = spb.GameHistory.FromString(f.payload).records
                kept.append(f.payload) if recs and recs[0].WhichOneof("write") == "created" else None
            except Exception:
                lost += 1
        lost += len(s.damage)
        os.replace(file, damaged_dir / f"{file.name}.{stamp}.orig")
        snapshots.write(data_dir, seg, snapshots.Frames(journal.frame(h) for h in kept), players, tournament_records)
        r.say(f"{file.name}: damaged and no older snapshot: rewritten with its {len(kept)} intact games, "
              f"{len(players)} players and {len(tournament_records)} tournament records; {lost} damaged "
              f"stretch(es) lost (original in {damaged_dir})", problem=bool(lost))
        if header_lost:
            r.say(f"{file.name}: its header record is damaged: the players and tournaments it held are lost "
                  f"(original in {damaged_dir})", problem=True)


def _header_records(s: journal.Scan) -> tuple[list[spb.PlayerState], list[spb.JournalRecord], bool]:
    """The players and tournament records of a damaged snapshot's header, when the header frame
    itself is intact (it is the first frame, right after the file header); (.., .., True) if not."""
    first = s.frames[0] if s.frames else None
    if first is None or first.offset != journal.FILE_HEADER.size:
        return [], [], True
    try:
        header = spb.SnapshotHeader.FromString(first.payload)
    except Exception:  # noqa: BLE001 - a damaged header parses as anything or nothing
        return [], [], True
    return list(header.players), list(header.tournament_records), False


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m server.store", description=__doc__.split("\n\n")[0])
    p.add_argument("command", choices=("verify", "repair"))
    p.add_argument("data_dir", type=Path)
    args = p.parse_args(argv)
    if not args.data_dir.is_dir():
        sys.exit(f"{args.data_dir}: not a directory")
    report = verify(args.data_dir) if args.command == "verify" else repair(args.data_dir)
    print("\n".join(report.lines))
    sys.exit(1 if report.problems and args.command == "verify" else 0)
