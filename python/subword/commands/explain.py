"""`subword explain`: BPE step by step, printed the way the tutorials print it.

Training on a small word table shows every iteration (the pair counts, the chosen pair, the
table after the merge); `--encode WORD ...` then shows how the merges segment new words, one
merge at a time. With `--model`, the merges of a saved tokenizer are applied instead.
It is a thin command over `subword.teaching.trace`; keep inputs small.
"""

from __future__ import annotations

import argparse
import re
import sys

from subword.errors import UsageError
from subword.teaching import reference
from subword.teaching.trace import explain_apply, explain_learn

_COUNT = re.compile(r"[0-9]+")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "explain",
        help="show BPE training and segmentation step by step",
        description="Train BPE on a small word table and print every iteration, or show how "
        "merges segment words. Give exactly one of --words, --text, --corpus, --model.",
    )
    p.add_argument("--words", metavar="'WORD:COUNT ...'", help='e.g. "low:5 lower:2 newest:6"')
    p.add_argument("--text", help="text whose whitespace-separated words are counted")
    p.add_argument("--corpus", metavar="FILE", help="UTF-8 file of words to count (- = stdin)")
    p.add_argument("--model", metavar="FILE", help="saved tokenizer whose merges --encode applies")
    p.add_argument("--encode", nargs="+", metavar="WORD", help="words to segment step by step")
    p.add_argument(
        "--num-merges",
        "--merges",
        dest="num_merges",
        type=int,
        default=10,
        metavar="N",
        help="number of merges to learn (default 10; --merges: older spelling)",
    )
    p.add_argument(
        "--tie-break",
        choices=reference.TIE_BREAKS,
        default="first",
        help="rule among equally frequent pairs (default: first, as the textbook example does)",
    )
    p.add_argument(
        "--min-frequency",
        type=int,
        metavar="N",
        default=1,
        help="stop when the most frequent pair occurs fewer times (default 1)",
    )
    p.add_argument(
        "--end-of-word",
        choices=reference.END_OF_WORD,
        default="separate",
        help="end-of-word symbol as its own symbol, attached to the last one, or none",
    )
    p.add_argument("--end-of-word-symbol", default="</w>", metavar="SYMBOL", help="default </w>")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    sources = [
        f"--{name}"
        for name in ("words", "text", "corpus", "model")
        if getattr(args, name) is not None
    ]
    if len(sources) != 1:
        given = ", ".join(sources) if sources else "none"
        raise UsageError(f"give exactly one of --words, --text, --corpus, --model (got {given})")
    if args.model is not None:
        if not args.encode:
            raise UsageError("--model needs --encode WORD [WORD ...]")
        merges, end_of_word, symbol = _load_model(args.model)
    else:
        if args.num_merges < 0:
            raise UsageError(f"--num-merges must be >= 0, got {args.num_merges}")
        if args.min_frequency < 1:
            raise UsageError(f"--min-frequency must be >= 1, got {args.min_frequency}")
        end_of_word, symbol = args.end_of_word, args.end_of_word_symbol
        if end_of_word != "none" and not symbol:
            raise UsageError("--end-of-word-symbol must not be empty")
        if args.words is not None:
            counts = parse_words(args.words)
        else:
            counts = count_words(args.text if args.corpus is None else _read(args.corpus))
        if not counts:
            raise UsageError("no words in the input")
        table = reference.word_table(counts, end_of_word, symbol)
        merges = explain_learn(table, args.num_merges, args.tie_break, args.min_frequency)
    for i, word in enumerate(args.encode or ()):
        if i or args.model is None:
            print()  # a blank line between traces
        explain_apply(word, merges, end_of_word, symbol)
    return 0


def parse_words(spec: str) -> dict[str, int]:
    """ "low:5 lower:2" -> {"low": 5, "lower": 2}; a malformed item raises UsageError."""
    counts: dict[str, int] = {}
    for item in spec.split():
        word, colon, count = item.rpartition(":")
        if not colon or not word:
            raise UsageError(f"--words item {item!r} is not WORD:COUNT")
        if not _COUNT.fullmatch(count) or int(count) < 1:
            raise UsageError(f"--words item {item!r}: count must be a positive integer")
        if word in counts:
            raise UsageError(f"--words gives {word!r} twice")
        counts[word] = int(count)
    return counts


def count_words(text: str) -> dict[str, int]:
    """Whitespace-separated words and their counts, in order of first appearance."""
    counts: dict[str, int] = {}
    for word in text.split():
        counts[word] = counts.get(word, 0) + 1
    return counts


def _read(path: str) -> str:
    try:
        if path == "-":
            return sys.stdin.buffer.read().decode("utf-8")
        with open(path, "rb") as f:
            return f.read().decode("utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: invalid UTF-8 at byte offset {exc.start}") from exc


def _load_model(path: str) -> tuple[list[reference.Pair], str, str]:
    import subword

    tokenizer = subword.load(path)
    config = tokenizer.config
    if config.kind != "classic":
        raise UsageError(f"--model: explain shows classic models only, {path} is {config.kind!r}")
    merges = [(str(a), str(b)) for a, b in tokenizer.merges]
    return merges, config.end_of_word, config.end_of_word_symbol
