"""Byte-pair compression step by step: every replacement Gage's (1994) algorithm makes,
rendered the way the textbook shows it (`subword compress --steps` prints these lines).

    >>> from subword.teaching.compression import describe_steps
    >>> for line in describe_steps(b"aaabdaaabac"):
    ...     print(line)
    block 0: aaabdaaabac (11 bytes)
      step 1: Z = aa (2 times) -> ZabdZabac (9 bytes)
      step 2: Y = ab (2 times) -> ZYdZYac (7 bytes)
      step 3: X = ZY (2 times) -> XdXac (5 bytes)

The steps come from the real compressor (`subword.compression.compress` with `on_step`).
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator

from subword.compression import (
    DEFAULT_BLOCK_SIZE,
    BytesLike,
    Step,
    _as_bytes,
    _check_block_size,
    compress,
)

__all__ = ["Step", "StepFormatter", "describe_steps", "trace"]


def trace(data: BytesLike, *, block_size: int = DEFAULT_BLOCK_SIZE) -> list[Step]:
    """Every replacement :func:`compress` makes on ``data``, in order.

    Each step holds a copy of its block, so this is for small inputs; for large ones pass
    ``on_step`` to :func:`compress` instead.
    """
    steps: list[Step] = []
    compress(data, block_size=block_size, on_step=steps.append)
    return steps


def describe_steps(
    data: BytesLike, *, block_size: int = DEFAULT_BLOCK_SIZE, width: int | None = None
) -> Iterator[str]:
    """The lines ``subword compress --steps`` prints for ``data``: see :class:`StepFormatter`."""
    raw = _as_bytes(data)
    formatter = StepFormatter(raw, block_size=block_size, width=width)
    for step in trace(raw, block_size=block_size):
        yield from formatter.lines(step)


class StepFormatter:
    """Renders steps readably, a header line per block and a line per step.

    In text, a symbol is shown as a capital letter the block does not contain, taken from Z
    downwards as Gage's article does (then z downwards, then digits), and as ``<ff>`` (its
    hex value) once those run out. In binary data every symbol is shown as ``<ff>`` and
    other bytes outside printable ASCII as ``\\xNN``. Renderings longer than ``width``
    characters are cut with ``...``.
    """

    _PLACEHOLDERS = "ZYXWVUTSRQPONMLKJIHGFEDCBAzyxwvutsrqponmlkjihgfedcba9876543210"

    def __init__(
        self, data: bytes, *, block_size: int = DEFAULT_BLOCK_SIZE, width: int | None = None
    ):
        _check_block_size(block_size)
        self._data = data
        self._block_size = block_size
        self._width = width
        self._block = -1
        self._is_text = True
        self._names: dict[int, str] = {}
        self._free: list[str] = []
        self._steps = 0

    def lines(self, step: Step) -> list[str]:
        """The lines for ``step``: first the block's header when ``step`` starts a new block."""
        lines = []
        if step.block != self._block:
            lines.append(self._start_block(step.block))
        self._steps += 1
        if self._is_text and self._free:
            self._names[step.symbol] = self._free.pop(0)
        else:
            self._names[step.symbol] = f"<{step.symbol:02x}>"
        name = self._names[step.symbol]
        pair = self.render(bytes(step.pair))
        if pair != pair.strip():
            pair = f"'{pair}'"  # a space at either end would be invisible
        times = "time" if step.count == 1 else "times"
        lines.append(
            f"  step {self._steps}: {name} = {pair} ({step.count} {times}) -> "
            f"{self.render(step.data)} ({len(step.data)} bytes)"
        )
        return lines

    def render(self, data: bytes) -> str:
        """``data`` of the current block with its symbols shown by their placeholders."""
        parts: list[str] = []
        plain = bytearray()
        for byte in data:
            name = self._names.get(byte)
            if name is None:
                plain.append(byte)
                continue
            parts.append(self._render_plain(bytes(plain)))
            plain.clear()
            parts.append(name)
        parts.append(self._render_plain(bytes(plain)))
        return _cut("".join(parts), self._width)

    def _start_block(self, block: int) -> str:
        original = self._data[block * self._block_size : (block + 1) * self._block_size]
        self._block = block
        self._is_text = _looks_like_text(original)
        self._names = {}
        present = set(original)
        self._free = [c for c in self._PLACEHOLDERS if ord(c) not in present]
        self._steps = 0
        return f"block {block}: {self.render(original)} ({len(original)} bytes)"

    def _render_plain(self, data: bytes) -> str:
        if self._is_text:
            text = data.decode("utf-8", errors="backslashreplace")
            return text.translate(_CONTROL_ESCAPES)
        return "".join(chr(b) if 0x20 <= b < 0x7F else f"\\x{b:02x}" for b in data)


_CONTROL_ESCAPES = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F)}
_CONTROL_ESCAPES.update({ord("\n"): "\\n", ord("\t"): "\\t", ord("\r"): "\\r"})


def _looks_like_text(block: bytes) -> bool:
    """Whether ``block`` is UTF-8 text (a character cut at either edge allowed) without
    control characters other than tab, newline and carriage return."""
    start = 0
    while start < min(3, len(block)) and 0x80 <= block[start] < 0xC0:
        start += 1
    try:
        text = codecs.getincrementaldecoder("utf-8")().decode(block[start:], final=False)
    except UnicodeDecodeError:
        return False
    return not any((ord(c) < 0x20 and c not in "\t\n\r") or c == "\x7f" for c in text)


def _cut(text: str, width: int | None) -> str:
    if width is None or len(text) <= width:
        return text
    return text[: max(width - 3, 0)] + "..."
