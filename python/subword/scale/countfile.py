"""The count file: a word table on disk, sorted by word, with 64-bit counts, in
zlib-compressed blocks that each carry their CRC-32, so that N files merge in one streaming
pass (a k-way merge holds one block per file) and a damaged file is an error naming the
byte where it goes wrong.

Layout (integers little-endian), version 1:

    magic      8 bytes  b"\\xffSWCNT\\r\\n"  (0xff never starts UTF-8 text)
    version    u16
    header     u32 length, JSON (settings, order, pruned), u32 CRC-32 of the JSON
    blocks     u32 words (> 0), u32 raw length, u32 compressed length, u32 CRC-32 of the
               raw bytes, then the compressed bytes; raw = words × u32 word length (in
               characters), words × u64 count, the words' UTF-8 text back to back
    end        u32 0, u64 words, u64 total count, u32 CRC-32 of those 16 bytes

Files are sorted by word (code point order, the same as UTF-8 byte order); the pickled
form of a `WordCounts` uses the same layout in first-appearance order (`order` in the
header), which keeps `tie_break="first"` meaningful in memory.
"""

from __future__ import annotations

import heapq
import io
import json
import os
import struct
import sys
import zlib
from array import array
from collections.abc import Iterable, Iterator
from itertools import accumulate
from typing import IO, Any

from subword.errors import FormatError

MAGIC = b"\xffSWCNT\r\n"
VERSION = 1
BLOCK_WORDS = 1 << 16  # words per block: ~1 MB raw, and what a merge holds per input
SORTED = "sorted"
FIRST_APPEARANCE = "first-appearance"
_BLOCK = struct.Struct("<IIII")
_END = struct.Struct("<QQI")
_U32 = struct.Struct("<I")
_SWAP = sys.byteorder == "big"
assert array("I").itemsize == 4 and array("Q").itemsize == 8


def is_count_file(path: str | os.PathLike[str]) -> bool:
    """True if `path` is a file that starts with the count-file magic bytes."""
    try:
        with open(path, "rb") as f:
            return f.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


class CountWriter:
    """Writes a count file to an open binary stream: `add` entries (in the header's
    order), then `close()`."""

    def __init__(self, stream: IO[bytes], header: dict[str, Any]) -> None:
        self._out = stream
        self._sorted = header.get("order") == SORTED
        self._words: list[str] = []
        self._counts: list[int] = []
        self._last: str | None = None
        self.words = 0
        self.total = 0
        data = json.dumps(header, sort_keys=True, ensure_ascii=False).encode()
        stream.write(MAGIC + struct.pack("<H", VERSION))
        stream.write(_U32.pack(len(data)) + data + _U32.pack(zlib.crc32(data)))

    def add(self, word: str, count: int) -> None:
        self._words.append(word)
        self._counts.append(count)
        if len(self._words) >= BLOCK_WORDS:
            self._flush()

    def add_all(self, entries: Iterable[tuple[str, int]]) -> None:
        for word, count in entries:
            self.add(word, count)

    def _flush(self) -> None:
        words, counts = self._words, self._counts
        if not words:
            return
        if self._sorted:
            previous = self._last
            for w in words:
                if previous is not None and not previous < w:
                    raise ValueError(f"count file entries out of order: {w!r} after {previous!r}")
                previous = w
            self._last = previous
        lengths = array("I", map(len, words))
        numbers = array("Q", counts)
        if _SWAP:
            lengths.byteswap()
            numbers.byteswap()
        raw = lengths.tobytes() + numbers.tobytes() + "".join(words).encode("utf-8")
        packed = zlib.compress(raw, 6)
        self._out.write(_BLOCK.pack(len(words), len(raw), len(packed), zlib.crc32(raw)))
        self._out.write(packed)
        self.words += len(words)
        self.total += sum(counts)
        self._words, self._counts = [], []

    def close(self) -> None:
        self._flush()
        end = struct.pack("<QQ", self.words, min(self.total, 2**64 - 1))
        self._out.write(_U32.pack(0) + end + _U32.pack(zlib.crc32(end)))


def write_counts(
    stream: IO[bytes], header: dict[str, Any], entries: Iterable[tuple[str, int]]
) -> None:
    writer = CountWriter(stream, header)
    writer.add_all(entries)
    writer.close()


class CountReader:
    """Reads a count file block by block: `header`, then `blocks()` or `entries()`; checks
    every length, CRC-32 and (for sorted files) the order, and raises FormatError naming
    the byte offset of what is wrong."""

    def __init__(self, stream: IO[bytes], name: str) -> None:
        self._in = stream
        self.name = name
        self.offset = 0
        self.words = 0
        self.total = 0
        magic = self._read(len(MAGIC) + 2, "the magic bytes and version")
        if magic[: len(MAGIC)] != MAGIC:
            raise self._error(
                "not a subword count file (it does not start with the count-file magic "
                "bytes); make one with `subword count` or WordCounts.save",
                0,
            )
        (version,) = struct.unpack("<H", magic[len(MAGIC) :])
        if version != VERSION:
            raise self._error(
                f"count-file version {version} is not one this subword reads ({VERSION}); "
                "use the subword release that wrote it, or count again",
                len(MAGIC),
            )
        at = self.offset
        (size,) = _U32.unpack(self._read(4, "the header length"))
        data = self._read(size, "the header")
        (crc,) = _U32.unpack(self._read(4, "the header checksum"))
        if zlib.crc32(data) != crc:
            raise self._error("the header's CRC-32 does not match (damaged file)", at)
        try:
            header = json.loads(data)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise self._error(f"the header is not valid JSON ({exc})", at) from None
        if not isinstance(header, dict) or not isinstance(header.get("settings"), dict):
            raise self._error("the header has no settings object", at)
        self.header: dict[str, Any] = header
        self.sorted = header.get("order") == SORTED
        self._last: str | None = None
        self.done = False

    def _error(self, message: str, offset: int) -> FormatError:
        return FormatError(message, path=self.name, offset=offset)

    def _read(self, n: int, what: str) -> bytes:
        data = self._in.read(n)
        if len(data) != n:
            raise self._error(
                f"truncated: the file ends inside {what} ({len(data)} of {n} bytes there); "
                "the file was cut short, write it again",
                self.offset + len(data),
            )
        self.offset += n
        return data

    def blocks(self) -> Iterator[tuple[list[str], list[int]]]:
        """Each block's words and counts, in file order; checks the end record."""
        while not self.done:
            at = self.offset
            (n,) = _U32.unpack(self._read(4, "a block header"))
            if n == 0:
                self._finish(at)
                return
            n_raw, n_packed, crc = struct.unpack("<III", self._read(12, "a block header"))
            packed = self._read(n_packed, f"the block at byte {at}")
            try:
                raw = zlib.decompress(packed)
            except zlib.error as exc:
                raise self._error(f"block data does not decompress ({exc})", at) from None
            if len(raw) != n_raw or zlib.crc32(raw) != crc:
                raise self._error("the block's length or CRC-32 does not match", at)
            yield self._decode(raw, n, at)

    def _decode(self, raw: bytes, n: int, at: int) -> tuple[list[str], list[int]]:
        if len(raw) < 12 * n:
            raise self._error(f"a block of {n} words holds only {len(raw)} bytes", at)
        lengths = array("I")
        lengths.frombytes(raw[: 4 * n])
        numbers = array("Q")
        numbers.frombytes(raw[4 * n : 12 * n])
        if _SWAP:
            lengths.byteswap()
            numbers.byteswap()
        try:
            text = raw[12 * n :].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise self._error(f"a word is not UTF-8 ({exc.reason})", at) from None
        ends = list(accumulate(lengths))
        if ends[-1] != len(text):
            raise self._error("the word lengths do not add up to the block's text", at)
        words = [text[s:e] for s, e in zip([0, *ends], ends)]
        counts = numbers.tolist()
        if min(counts) == 0:
            raise self._error("a count is 0 (a count file holds counts >= 1)", at)
        if self.sorted:
            previous = self._last
            for w in words:
                if previous is not None and not previous < w:
                    raise self._error(
                        f"words out of order: {w!r} after {previous!r} (a count file is "
                        "sorted by word, each word once)",
                        at,
                    )
                previous = w
            self._last = previous
        self.words += n
        self.total += sum(counts)
        return words, counts

    def _finish(self, at: int) -> None:
        end = self._read(_END.size, "the end record")
        words, total, crc = _END.unpack(end)
        if zlib.crc32(end[:16]) != crc:
            raise self._error("the end record's CRC-32 does not match (damaged file)", at)
        if words != self.words or total != min(self.total, 2**64 - 1):
            raise self._error(
                f"the end record says {words} words and total {total}, the blocks hold "
                f"{self.words} and {self.total}",
                at,
            )
        if self._in.read(1):
            raise self._error("unexpected bytes after the end record", self.offset)
        self.done = True

    def entries(self) -> Iterator[tuple[str, int]]:
        for words, counts in self.blocks():
            yield from zip(words, counts)


def read_header(path: str | os.PathLike[str]) -> dict[str, Any]:
    with open(path, "rb") as f:
        return CountReader(f, os.fspath(path)).header


def read_bytes(data: bytes, name: str) -> tuple[dict[str, Any], list[tuple[str, int]]]:
    reader = CountReader(io.BytesIO(data), name)
    entries = list(reader.entries())
    return reader.header, entries


def first_difference(a: dict[str, Any], b: dict[str, Any]) -> str | None:
    """The first setting (in name order) whose values differ, or None."""
    for name in sorted(set(a) | set(b)):
        if _same(a.get(name)) != _same(b.get(name)):
            return name
    return None


def _same(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def merge_sorted(readers: list[CountReader]) -> Iterator[tuple[str, int]]:
    """The sum of sorted streams, sorted: a k-way merge holding one block per input."""
    streams = [r.entries() for r in readers]
    word: str | None = None
    count = 0
    for w, c in heapq.merge(*streams):
        if w == word:
            count += c
            continue
        if word is not None:
            yield word, count
        word, count = w, c
    if word is not None:
        yield word, count
