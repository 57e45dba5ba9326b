"""The errors subword raises, in one small hierarchy.

    SubwordError                 every error subword raises on purpose
    ├── InvalidInputError        bad arguments or text (also a ValueError)
    │   └── FormatError          a malformed file: carries path, line and field
    ├── MissingDependencyError   an optional extra is not installed (also an ImportError)
    └── UsageError               a command line that cannot be run (the CLI's own checks)

Files that cannot be opened raise the built-in `OSError` family (`FileNotFoundError`, ...),
as Python's own file functions do. The Rust core's error kinds map onto these classes in one
place (`src/bindings/errors.rs`). The command line prints any of them, and any `OSError`, as
one line with exit code 2; anything else is a bug and shows its traceback.
"""

from __future__ import annotations

import os


class SubwordError(Exception):
    """Base class of the errors subword raises on purpose."""


class InvalidInputError(SubwordError, ValueError):
    """An argument, a text or a value that the library cannot work with."""


class FormatError(InvalidInputError):
    """A file that is not a well-formed model, codes, count or vocabulary file.

    The message names where: `path, line N: ...` or `path: field: ...`; the parts are also
    attributes (`path`, `line`, `column`, `field`, `offset`; None when not known)."""

    def __init__(
        self,
        message: str,
        *,
        path: str | os.PathLike[str] | None = None,
        line: int | None = None,
        column: int | None = None,
        field: str | None = None,
        offset: int | None = None,
    ) -> None:
        self.path = None if path is None else os.fspath(path)
        self.line = line
        self.column = column
        self.field = field
        self.offset = offset
        self.reason = message
        super().__init__(_located(message, self.path, line, column, field, offset))


class MissingDependencyError(SubwordError, ImportError):
    """An optional dependency is missing; the message says what to install."""


class UsageError(SubwordError):
    """A command line that cannot be run as given; printed as one line, exit code 2."""


def _located(
    message: str,
    path: str | None,
    line: int | None,
    column: int | None,
    field: str | None,
    offset: int | None,
) -> str:
    where = path or ""
    if line is not None:
        where += f", line {line}" if where else f"line {line}"
    if column is not None:
        where += f", column {column}"
    if offset is not None:
        where += f", byte {offset}" if where else f"byte {offset}"
    if field is not None:
        where += f": {field}" if where else field
    return f"{where}: {message}" if where else message


def line_error(path: str | os.PathLike[str], line: int, message: str) -> FormatError:
    """The error for a bad line of a file: `path, line N: message`."""
    return FormatError(message, path=path, line=line)


def field_error(path: str | os.PathLike[str], field: str, message: str) -> FormatError:
    """The error for a bad field of a JSON file: `path: model.merges[3]: message`."""
    return FormatError(message, path=path, field=field)
