"""Files in and out, the same way everywhere: outputs are written to a temporary file in the
target's folder and renamed into place (a failure or interruption leaves no partial file,
and an existing file keeps its permissions); inputs are read as UTF-8 lines with errors that
name the file, line and byte offset."""

from __future__ import annotations

import contextlib
import gzip
import os
import stat
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any, Union

from subword.errors import InvalidInputError

PathLike = Union[str, "os.PathLike[str]"]


def _mode_for(path: Path) -> int:
    """The permissions the output should have: those of the file it replaces, else the
    umask's default (mkstemp would give 0600)."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


@contextlib.contextmanager
def atomic_open(path: PathLike, mode: str = "w") -> Iterator[IO]:
    """A file object for `path` ("w" text as UTF-8 with \\n endings, or "wb") that appears
    under its name only when the block finishes without error."""
    import tempfile  # here: 5 ms to import, and most commands write no file

    target = Path(path)
    if target.is_dir():
        raise IsADirectoryError(f"{path}: is a folder; give a file name")
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:  # name the file asked for, not the temporary one
        raise type(exc)(f"{path}: cannot write ({exc.strerror})") from None
    try:
        text: dict[str, Any] = {"encoding": "utf-8", "newline": "\n"} if "b" not in mode else {}
        with os.fdopen(fd, mode, **text) as f:
            yield f
        os.chmod(tmp, _mode_for(target))
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_atomic(path: PathLike, data: str | bytes) -> None:
    with atomic_open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


def write_all_or_none(*files: tuple[PathLike, str]) -> None:
    """Writes several text files so that either all of them appear or none changes."""
    with contextlib.ExitStack() as stack:
        handles = [(stack.enter_context(atomic_open(p, "w")), text) for p, text in files]
        for f, text in handles:
            f.write(text)


@contextlib.contextmanager
def output(name: str | None, mode: str = "w") -> Iterator[IO]:
    """`atomic_open(name)`, or stdout when `name` is None or "-"."""
    if name is None or name == "-":
        stream = sys.stdout.buffer if "b" in mode else sys.stdout
        yield stream
        stream.flush()
        return
    with atomic_open(name, mode) as f:
        yield f


def _open_binary(name: str) -> IO[bytes]:
    if name == "-":
        return sys.stdin.buffer
    path = Path(name)
    if not path.is_file():
        raise FileNotFoundError(f"{name}: no such file")
    f = path.open("rb")
    gz = f.read(2) == b"\x1f\x8b"
    f.seek(0)
    return gzip.open(f) if gz else f  # type: ignore[return-value]


def read_lines(
    names: Sequence[PathLike], errors: str = "strict", *, keep_ends: bool = False
) -> Iterator[str]:
    """Each line of each input (plain or gzip; "-" or no names = stdin), decoded as UTF-8.
    Invalid UTF-8 is an InvalidInputError naming the file, byte offset and line, unless
    errors="replace"."""
    for name in names or ["-"]:
        name = os.fspath(name)
        shown = "<stdin>" if name == "-" else name
        f = _open_binary(name)
        offset = 0
        try:
            for number, raw in enumerate(f, 1):
                try:
                    line = raw.decode("utf-8", errors)
                except UnicodeDecodeError as exc:
                    raise InvalidInputError(
                        f"{shown}: invalid UTF-8 at byte {offset + exc.start} (line {number}); "
                        'convert it to UTF-8 or pass errors="replace"'
                    ) from None
                offset += len(raw)
                yield line if keep_ends else line.rstrip("\r\n")
        except (EOFError, gzip.BadGzipFile) as exc:
            raise InvalidInputError(
                f"{shown}: corrupt or truncated after byte {offset}: {exc}"
            ) from None
        finally:
            if f is not sys.stdin.buffer:
                f.close()


def read_json(path: PathLike) -> Any:
    """A JSON file, strictly: a duplicate key in an object is an error (json.load would keep
    the last one silently, which hides a corrupt vocabulary), and so are invalid UTF-8 and
    nesting too deep to parse; each names the file and where."""
    import json

    from subword.errors import FormatError

    name = os.fspath(path)

    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj: dict[str, Any] = {}
        for key, value in pairs:
            if key in obj:
                raise FormatError(f"duplicate key {key!r} in a JSON object", path=name)
            obj[key] = value
        return obj

    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise FormatError("not UTF-8 text", path=name, offset=exc.start) from None
    except FileNotFoundError:
        raise FileNotFoundError(f"{name}: no such file") from None
    try:
        return json.loads(text, object_pairs_hook=no_duplicates)
    except json.JSONDecodeError as exc:
        raise FormatError(
            f"invalid JSON ({exc.msg})", path=name, line=exc.lineno, column=exc.colno
        ) from None
    except RecursionError:
        raise FormatError("JSON nested too deeply to be a model file", path=name) from None


def read_input(name: str) -> bytes:
    """All bytes of a file, or of stdin for "-"."""
    if name == "-":
        return sys.stdin.buffer.read()
    with open(name, "rb") as f:
        return f.read()
