"""subword-nmt files: codes files (what `learn-bpe` writes and `apply-bpe` reads) and
vocabulary files (what `get-vocab` writes and `apply-bpe --vocabulary` reads).

A codes file holds one merge per line, `left right`, in rank order. Version 0.2 files begin
with `#version: 0.2` and attach the end-of-word marker to the last character of a word
(`t</w>`); version 0.1 files have no header, and `</w>` is a symbol of its own (`t </w>`).
subword-nmt never rewrites a 0.1 file: it applies its merges to the characters of a word
followed by a separate `</w>`, then drops the marker again. `nmt.load_codes` does the same.

Reading follows subword-nmt 0.3.8: the header is the first line (as Python splits lines);
the merges are the rest of the file cut at `\\n` only (symbols may hold characters such as
U+2028 or `\\x0b`, which subword-nmt treats as part of a word), each line stripped of `\\r`,
`\\n` and spaces at both ends, then split at single spaces into exactly two symbols. A
vocabulary file holds `word count` per line. A malformed file is a `FormatError` naming
the file and line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path
from typing import IO, Union

from subword.errors import FormatError, InvalidInputError, line_error
from subword.files import write_atomic

PathLike = Union[str, "os.PathLike[str]"]

END_OF_WORD = "</w>"
SUPPORTED_VERSIONS = ((0, 1), (0, 2))


class Codes:
    """The merges of a codes file, in rank order, and its format version. Immutable.

    A plain class rather than a frozen dataclass: importing `dataclasses` took 7 ms, a
    twentieth of a whole apply-bpe run on a 4 MB text."""

    __slots__ = ("merges", "version")
    merges: list[tuple[str, str]]
    version: tuple[int, int]

    def __init__(
        self, merges: list[tuple[str, str]] | None = None, version: tuple[int, int] = (0, 2)
    ) -> None:
        if version not in SUPPORTED_VERSIONS:
            raise InvalidInputError(
                f"codes version {version} is not supported: use (0, 1) or (0, 2)"
            )
        object.__setattr__(self, "merges", [] if merges is None else merges)
        object.__setattr__(self, "version", version)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: Codes is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: Codes is immutable")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (self.merges, self.version) == (other.merges, other.version)

    __hash__ = None  # type: ignore[assignment]  # the merges are a list, as before

    def __repr__(self) -> str:
        return f"Codes(merges={self.merges!r}, version={self.version!r})"


def _read_text(path: PathLike, what: str) -> tuple[str, str]:
    """The file's text and its name for messages; invalid UTF-8 names the line and byte."""
    name = str(path)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise FileNotFoundError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise FormatError(f"is a folder, not a {what}", path=name) from None
    try:
        return data.decode("utf-8"), name
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        hint = " (the file may be truncated)" if exc.end >= len(data) else ""
        raise line_error(
            name, line, f"invalid UTF-8 at byte {exc.start}{hint}; a {what} is UTF-8 text"
        ) from None


def _parse_version(header: str, name: str) -> tuple[int, int]:
    """`#version: 0.2` → (0, 2), trailing `.0` groups ignored, as subword-nmt does."""
    words = header.split()
    text = re.sub(r"(\.0+)*$", "", words[-1]) if len(words) > 1 else ""
    try:
        version = tuple(int(part) for part in text.split("."))
    except ValueError:
        raise line_error(
            name, 1, f"{header.strip()!r} is not a version header like '#version: 0.2'"
        ) from None
    if version not in SUPPORTED_VERSIONS:
        shown = ".".join(map(str, version))
        raise line_error(
            name, 1, f"codes version {shown} is not supported (subword-nmt reads 0.1 and 0.2)"
        )
    return version


def read_codes(path: PathLike, *, limit: int | None = None) -> Codes:
    """Reads a codes file of version 0.1 or 0.2. `limit`: use only the first `limit`
    merges (subword-nmt's `--merges`; lines after them are not read); None or -1: all.

    A line that is not two symbols separated by one space is an error naming the file and
    line, as is text that is not UTF-8. A header with no merges after it gives no merges
    (subword-nmt rejects such a file, though its learn-bpe can write one)."""
    text, name = _read_text(path, "codes file")
    if not text:
        raise FormatError(
            "the file is empty; a codes file starts with '#version: 0.2' or holds one merge "
            "per line",
            path=name,
        )
    # The first line as Python splits lines; it ends at the first "\n" or earlier.
    header = text[: text.find("\n") + 1 or len(text)].splitlines(keepends=True)[0]
    if header.startswith("#version:"):
        version = _parse_version(header, name)
        body, first_line = text[len(header) :], 2
    else:
        version, body, first_line = (0, 1), text, 1
    if limit == -1:
        limit = None
    merges: list[tuple[str, str]] = []
    lines = body.rstrip("\n").split("\n") if body.rstrip("\n") else []
    if limit is not None:
        lines = lines[: max(limit, 0)]
    try:  # the common case in one go; the loop below names the line of an error
        merges = [(a, b) for a, b in (line.strip("\r\n ").split(" ") for line in lines)]
        if all(a and b for a, b in merges):
            return Codes(merges=merges, version=version)
    except ValueError:
        pass
    merges = []
    truncated = not text.endswith("\n")
    for index, line in enumerate(lines):
        symbols = line.strip("\r\n ").split(" ")
        if len(symbols) != 2 or not all(symbols):
            number = first_line + index
            hint = (
                " (the file may be truncated)"
                if truncated and index == len(lines) - 1 and limit is None
                else ""
            )
            raise line_error(
                name, number, f"expected two symbols separated by one space, got {line!r}{hint}"
            )
        merges.append((symbols[0], symbols[1]))
    return Codes(merges=merges, version=version)


def format_codes(merges: Iterable[tuple[str, str]], *, version: tuple[int, int] = (0, 2)) -> str:
    """The text of a codes file: the version header (0.2 only) and one merge per line."""
    if version not in SUPPORTED_VERSIONS:
        raise InvalidInputError(f"codes version {version} is not supported: use (0, 1) or (0, 2)")
    merges = list(merges)
    body = "".join([f"{left} {right}\n" for left, right in merges])
    # Every symbol is non-empty and free of " ", "\n" and "\r" exactly when the text has one
    # space and one line break per line, no "\r", and no space next to a line boundary.
    # Checked on the whole text at once: symbol by symbol took 14 ms for 10k merges.
    n = len(merges)
    if (
        body.count(" ") != n
        or body.count("\n") != n
        or "\r" in body
        or " \n" in body
        or "\n " in body
        or body.startswith(" ")
    ):
        _check_symbols(merges)
    return ("#version: 0.2\n" if version == (0, 2) else "") + body


def _check_symbols(merges: list[tuple[str, str]]) -> None:
    """Raises for the first merge with a symbol that a codes file cannot hold."""
    for number, (left, right) in enumerate(merges, 1):
        for symbol in (left, right):
            if not symbol or any(c in symbol for c in " \n\r"):
                raise InvalidInputError(
                    f"merge {number} ({left!r} {right!r}): a symbol must be non-empty and "
                    "hold no space, \\n or \\r, or the codes file could not be read back"
                )


def write_codes(
    target: PathLike | IO[str],
    merges: Iterable[tuple[str, str]],
    *,
    version: tuple[int, int] = (0, 2),
) -> None:
    """Writes a codes file to a path (through a temporary file renamed into place) or to
    an open text stream. Byte for byte what subword-nmt 0.3.8's learn-bpe writes."""
    text = format_codes(merges, version=version)
    if isinstance(target, (str, os.PathLike)):
        write_atomic(target, text)
    else:
        target.write(text)


def parse_vocab_line(line: str, number: int, name: str) -> tuple[str, int]:
    """One `word count` line of a vocabulary file (cut as subword-nmt cuts it); a line that
    is not exactly that is a FormatError naming the file and line."""
    fields = line.strip("\r\n ").split(" ")
    try:
        if len(fields) != 2:
            raise ValueError
        return fields[0], int(fields[1])
    except ValueError:
        raise line_error(
            name,
            number,
            f"expected 'word count' (one space between), got {line.rstrip(chr(10))!r}",
        ) from None


def read_vocabulary(path: PathLike, threshold: int | None = None) -> set[str]:
    """The words of a vocabulary file (`word count` per line, as get-vocab writes) whose
    count is at least `threshold` (all when None). Lines are cut as subword-nmt reads them."""
    text, name = _read_text(path, "vocabulary file")
    words: set[str] = set()
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        word, count = parse_vocab_line(line, number, name)
        if threshold is None or count >= threshold:
            words.add(word)
    return words


def vocabulary_words(
    vocabulary: PathLike | Mapping[str, int] | Collection[str] | None,
    threshold: int | None = None,
) -> set[str] | None:
    """The words of a vocabulary given as a file, a word → count mapping, or a collection
    of words (no threshold then)."""
    if vocabulary is None:
        return None
    if isinstance(vocabulary, (str, os.PathLike)):
        return read_vocabulary(vocabulary, threshold)
    if isinstance(vocabulary, Mapping):
        return {w for w, c in vocabulary.items() if threshold is None or c >= threshold}
    if threshold is not None:
        raise InvalidInputError(
            "vocabulary_threshold needs a vocabulary with counts (a file or dict)"
        )
    return set(vocabulary)
