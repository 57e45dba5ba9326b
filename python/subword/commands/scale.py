"""`subword count` and `subword merge-counts`: word counts that add up (see
`subword.scale.counts`). Count shards anywhere, merge the files, then
`subword train --from-counts`."""

from __future__ import annotations

import argparse
import sys
import time

from subword.errors import UsageError
from subword.options import int_arg

# The counting options of `subword.train` (declared in `subword.config`).
COUNT_FLAGS = (
    "kind",
    "pre_tokenizer",
    "normalization",
    "lowercase",
    "special_tokens",
    "errors",
    "korean_drop_tags",
    "korean_spacing",
)


def add_ray_flag(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--ray",
        nargs="?",
        const="",
        default=None,
        metavar="ADDRESS",
        help=f"{what} on a Ray cluster (pip install 'subword[ray]'): its address, e.g. "
        "auto or ray://host:10001; without one, a local cluster is started",
    )


def register(subparsers: argparse._SubParsersAction) -> None:
    from subword.config import TokenizerConfig, TrainConfig
    from subword.options import add_arguments

    p = subparsers.add_parser(
        "count",
        help="count the words of text into a count file",
        description="Count the pre-tokenized words of UTF-8 text files (plain or .gz) or "
        "stdin into a count file (sorted, 64-bit counts, compressed). Count files of shards "
        "add up with merge-counts; train with `subword train --from-counts`.",
    )
    p.add_argument("inputs", nargs="*", metavar="FILE", help="text files; none or - for stdin")
    p.add_argument("-o", "--output", required=True, metavar="COUNTS", help="count file to write")
    names = add_arguments(p, TrainConfig, TokenizerConfig, only=COUNT_FLAGS)
    p.add_argument(
        "--min-count", type=int_arg, metavar="N", help="prune: keep words counted N times or more"
    )
    p.add_argument(
        "--max-words", type=int_arg, metavar="N", help="prune: keep the N most frequent words"
    )
    add_ray_flag(p, "count")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar or summary")
    p.set_defaults(func=run_count, option_names=names)

    m = subparsers.add_parser(
        "merge-counts",
        help="add count files up into one",
        description="Sum count files made with the same settings into one count file, in "
        "one streaming pass (memory: one block per input).",
    )
    m.add_argument("inputs", nargs="+", metavar="COUNTS", help="count files")
    m.add_argument("-o", "--output", required=True, metavar="COUNTS", help="count file to write")
    m.add_argument("-q", "--quiet", action="store_true", help="no summary")
    m.set_defaults(func=run_merge)


def _tags(options: dict) -> None:
    # A flag given as "a,b" or repeated gives the same list of tags.
    if "korean_drop_tags" in options:
        tags = [t.strip() for v in options["korean_drop_tags"] for t in v.split(",")]
        options["korean_drop_tags"] = [t for t in tags if t]


def run_count(args: argparse.Namespace) -> int:
    from subword.commands.encode import check_inputs
    from subword.files import read_lines
    from subword.options import given

    options = given(args, args.option_names)
    _tags(options)
    check_inputs(args.inputs)
    for name in ("min_count", "max_words"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise UsageError(f"--{name.replace('_', '-')} must be >= 1, got {value}")
    files = [f for f in args.inputs if f != "-"]
    start = time.perf_counter()
    if args.ray is not None:
        if not files or len(files) != len(args.inputs):
            raise UsageError("--ray counts files; give file names, not stdin")
        from subword.scale.ray import count as ray_count

        counts = ray_count(files, address=args.ray or None, **options)
    else:
        from subword.scale.counts import count

        options["show_progress"] = False if args.quiet else None
        errors = options.get("errors", "strict")
        source = files if files and len(files) == len(args.inputs) else None
        counts = count(source if source else read_lines(args.inputs, errors), **options)
    if args.min_count is not None or args.max_words is not None:
        counts = counts.prune(min_count=args.min_count, max_words=args.max_words)
    counts.save(args.output)
    if not args.quiet:
        seconds = time.perf_counter() - start
        print(
            f"subword count: {len(counts)} distinct words, total {counts.total}, "
            f"{seconds:.1f}s → {args.output}",
            file=sys.stderr,
        )
    return 0


def run_merge(args: argparse.Namespace) -> int:
    from pathlib import Path

    from subword.scale.counts import merge_count_files

    for name in args.inputs:
        if not Path(name).is_file():
            raise UsageError(f"{name}: no such file")
    start = time.perf_counter()
    words, total = merge_count_files(args.inputs, args.output)
    if not args.quiet:
        seconds = time.perf_counter() - start
        print(
            f"subword merge-counts: {len(args.inputs)} files, {words} distinct words, total "
            f"{total}, {seconds:.1f}s → {args.output}",
            file=sys.stderr,
        )
    return 0
