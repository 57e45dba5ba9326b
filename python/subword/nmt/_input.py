"""Input of the subword-nmt commands: a file ('-': stdin, gzip detected) read in byte
blocks that the core cuts into whole lines of checked UTF-8 (`_core.TextBlocks`)."""

from __future__ import annotations

import sys
from collections.abc import Iterator

from subword import _core
from subword.files import _open_binary

_CHUNK = 1 << 22  # bytes of input handed to the core per call


def shown(name: str) -> str:
    """The input's name in messages."""
    return "<stdin>" if name == "-" else name


def read_blocks(name: str) -> Iterator[bytes]:
    """The bytes of a file ('-': stdin) in blocks, then an empty block: the end of input."""
    f = _open_binary(name)
    try:
        while True:
            block = f.read(_CHUNK)
            yield block
            if not block:
                return
    finally:
        if f is not sys.stdin.buffer:
            f.close()


def read_text_chunks(name: str) -> Iterator[str]:
    """The UTF-8 text of a file ('-': stdin) in pieces that each end with `\\n` (but the
    last), so no line is cut; invalid UTF-8 names the file, byte and line."""
    reader = _core.TextBlocks(shown(name))
    for block in read_blocks(name):
        text = reader.text(block)
        if text:
            yield text
