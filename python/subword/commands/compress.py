"""`subword compress` and `subword decompress`: the 1994 byte-pair compression algorithm.

Both read a file (or stdin when none is given, or `-`) and write to `-o OUT` (or stdout).
Output files are written to a temporary file in the same folder and then renamed, so a
failure never leaves a partial file behind.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from subword.compression import DEFAULT_BLOCK_SIZE, Step, compress, decompress
from subword.errors import InvalidInputError
from subword.files import output, read_input
from subword.teaching.compression import StepFormatter

#: Longest rendering of a block printed by `--steps`, in characters.
STEPS_WIDTH = 200


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "compress",
        help="compress a file with the 1994 byte-pair algorithm",
        description=(
            "Compress with byte pair encoding as Philip Gage published it in 1994: in each "
            "block, replace the most frequent pair of adjacent bytes by an unused byte until "
            "no pair occurs twice. `subword decompress` restores the input exactly."
        ),
    )
    parser.add_argument(
        "input", nargs="?", default="-", metavar="IN", help="file to compress (default: stdin)"
    )
    parser.add_argument(
        "-o", "--output", default="-", metavar="OUT", help="where to write (default: stdout)"
    )
    parser.add_argument(
        "--steps",
        action="store_true",
        help="print each replacement (to stderr, or to stdout when writing to a file)",
    )
    parser.add_argument(
        "--block-size",
        type=int,
        default=DEFAULT_BLOCK_SIZE,
        metavar="N",
        help=f"bytes per block (default: {DEFAULT_BLOCK_SIZE})",
    )
    parser.set_defaults(func=run_compress)

    parser = subparsers.add_parser(
        "decompress",
        help="restore a file made by `subword compress`",
        description="Restore the output of `subword compress`, checking it on the way.",
    )
    parser.add_argument(
        "input", nargs="?", default="-", metavar="IN", help="file to restore (default: stdin)"
    )
    parser.add_argument(
        "-o", "--output", default="-", metavar="OUT", help="where to write (default: stdout)"
    )
    parser.set_defaults(func=run_decompress)


def run_compress(args: argparse.Namespace) -> int:
    to_stdout = args.output == "-"
    if to_stdout and sys.stdout.isatty():
        raise InvalidInputError(
            "compressed data is binary; not writing it to a terminal (use -o OUT or redirect)"
        )
    data = read_input(args.input)
    if args.steps:
        report = sys.stderr if to_stdout else sys.stdout
        packed = _compress_showing_steps(data, args.block_size, report)
    else:
        packed = compress(data, block_size=args.block_size)
    _write_output(args.output, packed)
    return 0


def run_decompress(args: argparse.Namespace) -> int:
    data = read_input(args.input)
    try:
        restored = decompress(data)
    except ValueError as exc:
        raise InvalidInputError(f"{_name(args.input)}: {exc}") from None
    _write_output(args.output, restored)
    return 0


def _compress_showing_steps(data: bytes, block_size: int, report: TextIO) -> bytes:
    formatter = StepFormatter(data, block_size=block_size, width=STEPS_WIDTH)
    steps = 0

    def show(step: Step) -> None:
        nonlocal steps
        steps += 1
        for line in formatter.lines(step):
            print(line, file=report)

    packed = compress(data, block_size=block_size, on_step=show)
    blocks = -(-len(data) // block_size)
    ratio = f"{len(packed) / len(data):.3f}" if data else "-"
    print(
        f"{len(data)} bytes -> {len(packed)} bytes (ratio {ratio}), "
        f"{_plural(steps, 'replacement')} in {_plural(blocks, 'block')}",
        file=report,
    )
    report.flush()
    return packed


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _name(path: str) -> str:
    return "<stdin>" if path == "-" else path


def _write_output(path: str, data: bytes) -> None:
    with output(path, "wb") as f:
        f.write(data)
