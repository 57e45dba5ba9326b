"""The `subword` command line. Each command lives in its own module, which exposes
`register(subparsers)`; this file only assembles them and turns errors into one line on
stderr with exit code 2 (never a traceback)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn


class UsageError(Exception):
    """An error in what the user gave; printed as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """Usage errors in one line (the full usage stays available with --help)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; with `command`, only what that command needs (when known)."""
    parser = _Parser(
        prog="subword",
        description="Byte Pair Encoding: train vocabularies, tokenize, explain, compress.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    from subword.commands import register_all, register_command

    if command is None or not register_command(sub, command):
        register_all(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("subword: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); that is not an error of ours.
        sys.stderr.close()
        return 0
    except (UsageError, ValueError, OSError, UnicodeError, KeyError, ImportError) as exc:
        print(f"subword {args.command}: error: {exc}", file=sys.stderr)
        return 2
