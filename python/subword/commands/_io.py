"""Input and output for commands: read UTF-8 lines from files or stdin with errors that
name the file, line and byte; write output through a temporary file renamed into place,
so an interrupted or failed command leaves no partial file."""

from __future__ import annotations

import contextlib
import gzip
import os
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO

from subword.cli import UsageError


def _open_binary(name: str) -> IO[bytes]:
    if name == "-":
        return sys.stdin.buffer
    path = Path(name)
    if not path.is_file():
        raise UsageError(f"{name}: no such file")
    f = path.open("rb")
    if f.read(2) == b"\x1f\x8b":
        f.seek(0)
        return gzip.open(f)  # type: ignore[return-value]
    f.seek(0)
    return f


def read_lines(names: Sequence[str], errors: str = "strict") -> Iterator[str]:
    """Yields each line (without its line ending) of each input; '-' is stdin."""
    for name in names or ["-"]:
        shown = "<stdin>" if name == "-" else name
        f = _open_binary(name)
        offset = 0
        try:
            for number, raw in enumerate(f, 1):
                try:
                    line = raw.decode("utf-8", errors)
                except UnicodeDecodeError as exc:
                    raise UsageError(
                        f"{shown}: invalid UTF-8 at byte {offset + exc.start} (line {number}); "
                        "convert it to UTF-8 or pass --errors replace"
                    ) from None
                offset += len(raw)
                yield line.rstrip("\r\n")
        except (EOFError, gzip.BadGzipFile, OSError) as exc:
            raise UsageError(f"{shown}: cannot read after byte {offset}: {exc}") from None
        finally:
            if f is not sys.stdin.buffer:
                f.close()


@contextlib.contextmanager
def output(name: str | None) -> Iterator[IO[str]]:
    """A text stream to `name` (atomically replaced) or to stdout when None or '-'."""
    if name in (None, "-"):
        yield sys.stdout
        sys.stdout.flush()
        return
    target = Path(name)
    if target.is_dir():
        raise UsageError(f"{name}: is a folder; give a file name")
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            yield f
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
