"""The `subword` command line. Each command lives in its own module, which exposes
`register(subparsers)`; this file only assembles them and turns what the user got wrong (a
`SubwordError`, an `OSError`) into one line on stderr with exit code 2. Anything else is a
bug of ours and keeps its traceback."""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Sequence
from typing import NoReturn

from subword.errors import SubwordError

# The library's advice names its keyword arguments; a command line has flags instead.
_API_TO_FLAGS = (('errors="replace"', "--errors replace"),)


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
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    from subword.commands import register_all, register_command

    if command is None or not register_command(sub, command):
        register_all(sub)
    return parser


def _terminate(signum: int, frame: object) -> NoReturn:
    # SIGTERM unwinds like Ctrl-C, so outputs being written are removed (files.output).
    raise KeyboardInterrupt


def user_message(exc: BaseException) -> str:
    """What the command line prints for an error the user can fix."""
    message = str(exc)
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        message = f"{exc.filename}: {exc.strerror}"
    for api, flag in _API_TO_FLAGS:
        message = message.replace(api, flag)
    return message


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("subword: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); that is not an error of ours.
        sys.stderr.close()
        return 0
    except (SubwordError, OSError, UnicodeError) as exc:
        print(f"subword {args.command}: error: {user_message(exc)}", file=sys.stderr)
        return 2
    finally:
        signal.signal(signal.SIGTERM, previous)
