"""Byte-pair compression, the 1994 algorithm by Philip Gage that BPE tokenization grew from.

Each block of the input (``block_size`` bytes, 8 KB by default) is packed by repeatedly
replacing its most frequent pair of adjacent bytes by a byte value the block does not use,
until no pair occurs twice or no unused byte is left. The replacements form a table stored
with the block, and expanding them restores the input exactly::

    >>> from subword.compression import compress, decompress
    >>> decompress(compress(b"aaabdaaabac"))
    b'aaabdaaabac'

`subword.teaching.compression` shows the replacements step by step (`describe_steps`).

Rules (the Rust core, ``src/compress/``, documents them and the format in full): pairs are
counted left to right without overlap (``aaa`` holds ``aa`` once); ties go to the smallest
pair; new symbols are the highest unused byte values first (shown above as Z, Y, X, which is
how Gage's article writes them). :func:`decompress` checks the data and raises
:class:`~subword.errors.FormatError` (a ValueError) naming the byte offset of what is wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from subword import _core
from subword.errors import InvalidInputError

#: Block size used when none is given, in bytes.
DEFAULT_BLOCK_SIZE: int = _core.COMPRESS_DEFAULT_BLOCK_SIZE
#: Largest block size accepted, in bytes.
MAX_BLOCK_SIZE: int = _core.COMPRESS_MAX_BLOCK_SIZE

BytesLike = bytes | bytearray | memoryview

__all__ = [
    "DEFAULT_BLOCK_SIZE",
    "MAX_BLOCK_SIZE",
    "Step",
    "compress",
    "decompress",
]


@dataclass(frozen=True)
class Step:
    """One replacement: in block ``block``, every ``pair`` became ``symbol``."""

    block: int
    """Index of the block, from 0."""
    pair: tuple[int, int]
    """The pair of byte values replaced (left, right)."""
    symbol: int
    """The byte value that stands for the pair from now on."""
    count: int
    """How many occurrences were replaced."""
    data: bytes
    """The block after the replacement."""


def compress(
    data: BytesLike,
    *,
    block_size: int = DEFAULT_BLOCK_SIZE,
    on_step: Callable[[Step], object] | None = None,
) -> bytes:
    """Compresses ``data``; :func:`decompress` restores it.

    Without ``on_step`` the blocks are packed in parallel with the GIL released. With it, they
    are packed one after the other and ``on_step`` is called with each :class:`Step`; an
    exception it raises stops the work and propagates.
    """
    raw = _as_bytes(data)
    _check_block_size(block_size)
    if on_step is None:
        return _core.compress(raw, block_size)

    def report(block: int, left: int, right: int, symbol: int, count: int, after: bytes) -> None:
        on_step(Step(block, (left, right), symbol, count, after))

    return _core.compress(raw, block_size, report)


def decompress(data: BytesLike) -> bytes:
    """Restores the output of :func:`compress`.

    Raises :class:`~subword.errors.FormatError` (a ValueError) naming the byte offset of the
    problem for anything else: a bad magic, an unsupported version, truncation, a table
    entry in a loop, a wrong length, extra bytes, a checksum mismatch.
    """
    return _core.decompress(_as_bytes(data))


def _as_bytes(data: BytesLike) -> bytes:
    if isinstance(data, bytes):
        return data
    if isinstance(data, (bytearray, memoryview)):
        return bytes(data)
    hint = " (encode text first, e.g. text.encode('utf-8'))" if isinstance(data, str) else ""
    raise TypeError(f"expected bytes, got {type(data).__name__}{hint}")


def _check_block_size(block_size: int) -> None:
    if isinstance(block_size, bool) or not isinstance(block_size, int):
        raise TypeError(f"block_size must be an int, got {type(block_size).__name__}")
    if not 1 <= block_size <= MAX_BLOCK_SIZE:
        raise InvalidInputError(
            f"block size must be between 1 and {MAX_BLOCK_SIZE} bytes, got {block_size}"
        )
