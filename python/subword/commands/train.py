"""`subword train`: learn a vocabulary from files or stdin and save the model. Its flags are
the training and model options declared in `subword.config` (see `subword.options`)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from subword.errors import UsageError
from subword.files import read_lines

# Options with a flag of their own here, or set by the trainer.
_NOT_FLAGS = ("continuation_prefix",)


def register(subparsers: argparse._SubParsersAction) -> None:
    from subword.config import TokenizerConfig, TrainConfig
    from subword.options import add_arguments

    p = subparsers.add_parser(
        "train",
        help="learn a BPE vocabulary from text",
        description="Learn BPE merges from UTF-8 text files (plain or .gz) or stdin, and save "
        "the model as JSON. Every option of subword.train has a flag here.",
    )
    p.add_argument("inputs", nargs="*", metavar="FILE", help="text files; none or - for stdin")
    p.add_argument("-o", "--output", required=True, metavar="MODEL", help="model file to write")
    names = add_arguments(p, TrainConfig, TokenizerConfig, skip=_NOT_FLAGS)
    p.add_argument(
        "--vocab-txt", metavar="FILE", help="also write the plain vocabulary, one token a line"
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar or summary")
    p.add_argument(
        "--from-counts",
        metavar="COUNTS",
        help="train from a count file (`subword count`, `subword merge-counts`) instead of "
        "text; its counting settings apply",
    )
    p.set_defaults(func=run, option_names=names)


def run(args: argparse.Namespace) -> int:
    from subword.options import given

    options = given(args, args.option_names)
    if args.vocab_size is None and args.num_merges is None:
        raise UsageError("give --vocab-size N or --num-merges N")
    if args.from_counts is not None:
        return _run_from_counts(args, options)
    files = [f for f in args.inputs if f != "-"]
    for f in files:
        if Path(f).is_dir():
            raise UsageError(f"{f}: is a folder; give text files")
        if not Path(f).is_file():
            raise UsageError(f"{f}: no such file")
    if args.quiet:
        options["show_progress"] = False
    # A flag given as "a,b" or repeated gives the same list of tags.
    if "korean_drop_tags" in options:
        tags = [t.strip() for v in options["korean_drop_tags"] for t in v.split(",")]
        options["korean_drop_tags"] = [t for t in tags if t]
    errors = options.get("errors", "strict")
    source = files if files and len(files) == len(args.inputs) else read_lines(args.inputs, errors)
    return _train(source, options, args)


def _run_from_counts(args: argparse.Namespace, options: dict) -> int:
    from subword.scale.countfile import is_count_file

    if args.inputs:
        raise UsageError("--from-counts trains from the count file alone; give no text files")
    path = Path(args.from_counts)
    if not path.is_file():
        raise UsageError(f"{args.from_counts}: no such file")
    if not is_count_file(path):
        raise UsageError(f"{args.from_counts}: not a count file (make one with `subword count`)")
    return _train(str(path), options, args)


def _train(source: object, options: dict, args: argparse.Namespace) -> int:
    import subword

    start = time.perf_counter()
    tok = subword.train(source, **options)  # type: ignore[arg-type]
    tok.save(args.output)
    if args.vocab_txt:
        tok.save_vocab_txt(args.vocab_txt)
    if not args.quiet:
        seconds = time.perf_counter() - start
        print(
            f"subword train: {tok.training.get('words')} distinct words, "
            f"{len(tok.merges)} merges, vocabulary {tok.vocab_size}, {seconds:.1f}s "
            f"→ {args.output}",
            file=sys.stderr,
        )
    return 0
