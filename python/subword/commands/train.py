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
    p.set_defaults(func=run, option_names=names)


def run(args: argparse.Namespace) -> int:
    import subword
    from subword.options import given

    options = given(args, args.option_names)
    if args.vocab_size is None and args.num_merges is None:
        raise UsageError("give --vocab-size N or --num-merges N")
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
    start = time.perf_counter()
    tok = subword.train(source, **options)
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
