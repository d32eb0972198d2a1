"""A growing sequence of byte strings that the cyclic collector does not see.

A list of bytes is a tracked container with one reference per item, and every full collection
visits each of them: for the events and move logs of every live game that was most of a full
collection's work. Here the items are joined in one bytearray with their end offsets in an array,
neither of which is tracked, whatever the number of items.
"""
from __future__ import annotations

from array import array


class PackedBytes:
    """index -> bytes, appended at the end and truncated from it."""

    __slots__ = ("_data", "_ends")

    def __init__(self) -> None:
        self._data = bytearray()
        self._ends = array("q")  # item i is _data[_ends[i - 1]:_ends[i]]

    def __len__(self) -> int:
        return len(self._ends)

    def append(self, item: bytes) -> None:
        self._data += item
        self._ends.append(len(self._data))

    def __getitem__(self, i: int) -> bytes:
        if i < 0:
            i += len(self._ends)
        if not 0 <= i < len(self._ends):
            raise IndexError("packed index out of range")
        return bytes(self._data[self._ends[i - 1] if i else 0:self._ends[i]])

    def truncate(self, n: int) -> None:
        """Keep the first `n` items."""
        if n < len(self._ends):
            del self._data[self._ends[n - 1] if n else 0:], self._ends[n:]
