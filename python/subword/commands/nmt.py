"""`subword learn-bpe`, `subword apply-bpe` and `subword get-vocab`: subword-nmt 0.3.8's
commands with its options (its flags are a contract with its users: `-s` is `--symbols` in
learn-bpe and `--separator` in apply-bpe, as there) and the same output byte for byte. Each
command is one call of `subword.nmt` (learn_codes, apply_codes, get_vocab).
"""

from __future__ import annotations

import argparse
import sys
import time


def register(subparsers: argparse._SubParsersAction) -> None:
    _register_learn(subparsers)
    _register_apply(subparsers)
    _register_get_vocab(subparsers)


def _register_learn(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "learn-bpe",
        help="learn BPE codes as subword-nmt learn-bpe does (identical codes file)",
        description="Learn BPE merge operations from text, as subword-nmt 0.3.8's learn-bpe "
        "does: the same options, a byte-identical codes file (version 0.2).",
    )
    p.add_argument("-i", "--input", default="-", metavar="PATH", help="input text (default stdin)")
    p.add_argument(
        "-o", "--output", default="-", metavar="PATH", help="codes file (default stdout)"
    )
    p.add_argument(
        "-s",
        "--symbols",
        type=int,
        default=10000,
        help="merges to learn (default: %(default)s)",
    )
    p.add_argument(
        "--min-frequency",
        type=int,
        default=2,
        metavar="FREQ",
        help="stop when no pair occurs FREQ times (default: %(default)s)",
    )
    p.add_argument("--dict-input", action="store_true", help="the input holds 'word count' lines")
    p.add_argument(
        "-t",
        "--total-symbols",
        action="store_true",
        help="subtract the number of characters (word-internal and word-final) from --symbols",
    )
    p.add_argument(
        "--num-workers",
        type=int,
        default=1,
        metavar="N",
        help="accepted; the core uses all cores",
    )
    p.add_argument(
        "--textbook",
        action="store_true",
        help="learn textbook BPE (true pair counts) instead of reproducing subword-nmt's "
        "counting, which differs on words with tabs or other non-space whitespace",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="print each merge on stderr")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress, messages or summary")
    p.set_defaults(func=run_learn)


def _register_apply(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "apply-bpe",
        help="segment text with BPE codes as subword-nmt apply-bpe does (identical output)",
        description="Apply the merges of a subword-nmt codes file (version 0.1 or 0.2) to "
        "text, as subword-nmt 0.3.8's apply-bpe does: the same options, the same output.",
    )
    p.add_argument("-i", "--input", default="-", metavar="PATH", help="input text (default stdin)")
    p.add_argument("-c", "--codes", required=True, metavar="PATH", help="codes file")
    p.add_argument(
        "-m",
        "--merges",
        type=int,
        default=-1,
        metavar="INT",
        help="use only the first INT merges",
    )
    p.add_argument("-o", "--output", default="-", metavar="PATH", help="output (default stdout)")
    p.add_argument(
        "-s",
        "--separator",
        default="@@",
        metavar="STR",
        help="appended to non-final pieces of a word (default: %(default)s)",
    )
    p.add_argument(
        "--vocabulary",
        metavar="PATH",
        help="vocabulary file (get-vocab): merges that make a piece not in it are undone",
    )
    p.add_argument(
        "--vocabulary-threshold",
        type=int,
        metavar="INT",
        help="words of the vocabulary rarer than INT count as absent",
    )
    p.add_argument(
        "--dropout", type=float, default=0.0, metavar="P", help="BPE-dropout probability"
    )
    p.add_argument(
        "--glossaries",
        nargs="+",
        metavar="STR",
        help="words or Python regexes that are never split nor merged with other text",
    )
    p.add_argument("--seed", type=int, metavar="S", help="random seed for --dropout")
    p.add_argument(
        "--num-workers", type=int, default=1, metavar="N", help="accepted; output is the same"
    )
    p.set_defaults(func=run_apply)


def _register_get_vocab(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "get-vocab",
        help="word counts as subword-nmt get-vocab writes them",
        description="Count the words of a text as subword-nmt 0.3.8's get-vocab does: one "
        "'word count' line per word, most frequent first (ties in order of first appearance).",
    )
    p.add_argument("-i", "--input", default="-", metavar="PATH", help="input text (default stdin)")
    p.add_argument("-o", "--output", default="-", metavar="PATH", help="output (default stdout)")
    p.set_defaults(func=run_get_vocab)


# --- commands -----------------------------------------------------------------------------
def run_learn(args: argparse.Namespace) -> int:
    from subword.nmt.learn import learn_codes

    start = time.perf_counter()
    codes = learn_codes(
        args.input,
        args.output,
        symbols=args.symbols,
        min_frequency=args.min_frequency,
        dict_input=args.dict_input,
        total_symbols=args.total_symbols,
        textbook=args.textbook,
        verbose=args.verbose,
        log=None if args.quiet else sys.stderr,
        progress=not args.quiet and sys.stderr.isatty(),
    )
    if not args.quiet:
        seconds = time.perf_counter() - start
        target = "<stdout>" if args.output == "-" else args.output
        print(
            f"subword learn-bpe: {len(codes.merges)} merges, {seconds:.2f}s → {target}",
            file=sys.stderr,
        )
    return 0


def run_apply(args: argparse.Namespace) -> int:
    from subword.nmt.apply import apply_codes

    apply_codes(
        args.codes,
        args.input,
        args.output,
        separator=args.separator,
        vocabulary=args.vocabulary,
        vocabulary_threshold=args.vocabulary_threshold if args.vocabulary else None,
        glossaries=args.glossaries,
        limit=args.merges,
        dropout=args.dropout,
        seed=args.seed,
    )
    return 0


def run_get_vocab(args: argparse.Namespace) -> int:
    from subword.nmt.learn import get_vocab

    get_vocab(args.input, args.output)
    return 0
