"""`subword learn-bpe`, `subword apply-bpe` and `subword get-vocab`: subword-nmt 0.3.8's
commands, with its options and the same output byte for byte (codes files, segmented text,
vocabulary files), counted, learned and applied in the Rust core.

Words are what subword-nmt reads: a file's lines are cut where Python's `str.splitlines`
cuts them (subword-nmt reads through `codecs`), each line is stripped of `\\r`, `\\n` and
spaces at both ends and split at single spaces. So a tab or a no-break space is part of a
word, and a line break other than `\\r`/`\\n` (such as `\\x0b` or U+2028) stays at the end of
the word before it. The core counts (`count_nmt_block`) and segments (`Segmenter`) words
with one and the same code; the text goes to it as bytes, in blocks, and apply-bpe's output
comes back as bytes (Python holds the text as a string only for glossaries and
--dict-input).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator

from subword import _core
from subword.errors import UsageError
from subword.files import _open_binary, output
from subword.formats.codes import parse_vocab_line

_CHUNK = 1 << 22  # bytes of input handed to the core per call


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
        "-s", "--symbols", type=int, default=10000, help="merges to learn (default: %(default)s)"
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
        "--num-workers", type=int, default=1, metavar="N", help="accepted; the core uses all cores"
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
        "-m", "--merges", type=int, default=-1, metavar="INT", help="use only the first INT merges"
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


# --- reading ------------------------------------------------------------------------------
def _shown(name: str) -> str:
    return "<stdin>" if name == "-" else name


def read_blocks(name: str) -> Iterator[bytes]:
    """The bytes of a file ('-': stdin) in blocks, then an empty block: the end of input."""
    f = _open_binary(name)
    try:
        while True:
            block = f.read(_CHUNK)
            yield block
            if not block:
                return
    finally:
        if f is not sys.stdin.buffer:
            f.close()


def read_text_chunks(name: str) -> Iterator[str]:
    """The UTF-8 text of a file ('-': stdin) in pieces that each end with `\\n` (but the
    last), so no line is cut; invalid UTF-8 names the file, byte and line."""
    reader = _core.TextBlocks(_shown(name))
    for block in read_blocks(name):
        text = reader.text(block)
        if text:
            yield text


def count_words(name: str) -> _core.WordCounter:
    """The word table of a file or stdin, words split as subword-nmt splits them, in order
    of first appearance. The text stays in the core (counted on all cores)."""
    counter = _core.WordCounter()
    reader = _core.TextBlocks(_shown(name))
    for block in read_blocks(name):
        _core.count_nmt_block(counter, reader, block)
    return counter


def read_word_counts(name: str) -> dict[str, int]:
    """learn-bpe --dict-input: 'word count' lines, counts of a repeated word added up."""
    counts: dict[str, int] = {}
    shown = _shown(name)
    number = 0
    for text in read_text_chunks(name):
        for line in text.splitlines(keepends=True):
            number += 1
            word, count = parse_vocab_line(line, number, shown)
            if count < 0:
                raise UsageError(f"{shown}: line {number}: the count {count} is negative")
            counts[word] = counts.get(word, 0) + count
    return counts


# --- commands -----------------------------------------------------------------------------
def run_learn(args: argparse.Namespace) -> int:
    from subword.formats.codes import write_codes

    if args.min_frequency < 1:
        raise UsageError(f"--min-frequency must be at least 1, got {args.min_frequency}")
    quiet = args.quiet
    progress = not quiet and sys.stderr.isatty()
    start = time.perf_counter()
    if args.dict_input:
        table = read_word_counts(args.input)
        counter = _core.WordCounter()
        for word, count in table.items():
            if count:
                counter.add_word(word, count)
        words = list(table)
    else:
        counter = count_words(args.input)
        words = None
    if len(counter) == 0:
        raise UsageError(f"{args.input}: no words to learn from (the input is empty)")

    symbols = args.symbols
    if args.total_symbols:
        if words is None:
            words = [w for w, _ in counter.words()]
        internal = {c for w in words for c in w[:-1]}
        final = {w[-1] for w in words}
        if not quiet:
            print(f"Number of word-internal characters: {len(internal)}", file=sys.stderr)
            print(f"Number of word-final characters: {len(final)}", file=sys.stderr)
            print(
                f"Reducing number of merge operations by {len(internal) + len(final)}",
                file=sys.stderr,
            )
        symbols -= len(internal) + len(final)

    learned: list[tuple[str, str, int]] = []
    if symbols > 0:
        learned = _core.learn_codes(
            counter,
            num_merges=symbols,
            min_frequency=args.min_frequency,
            show_progress=progress,
        )[:symbols]
    if args.verbose and not quiet:
        for i, (left, right, count) in enumerate(learned):
            print(f"pair {i}: {left} {right} -> {left}{right} (frequency {count})", file=sys.stderr)
    if len(learned) < symbols and not quiet:
        print(f"no pair has frequency >= {args.min_frequency}. Stopping", file=sys.stderr)
    with output(args.output) as out:
        write_codes(out, [(left, right) for left, right, _ in learned])
    if not quiet:
        seconds = time.perf_counter() - start
        print(
            f"subword learn-bpe: {len(counter)} distinct words, {len(learned)} merges, "
            f"{seconds:.2f}s → {'<stdout>' if args.output == '-' else args.output}",
            file=sys.stderr,
        )
    return 0


def run_apply(args: argparse.Namespace) -> int:
    from subword.formats.codes import read_codes, read_vocabulary
    from subword.segmenter import Segmenter

    if not 0.0 <= args.dropout <= 1.0:
        raise UsageError(f"--dropout must be between 0 and 1, got {args.dropout}")
    codes = read_codes(args.codes, limit=args.merges)
    vocabulary = None
    if args.vocabulary:
        vocabulary = read_vocabulary(args.vocabulary, args.vocabulary_threshold)
    segmenter = Segmenter(
        codes,
        separator=args.separator,
        vocabulary=vocabulary,
        glossaries=args.glossaries,
        seed=args.seed,
    )
    with output(args.output, "wb") as out:
        for piece in segmenter.segment_blocks(
            read_blocks(args.input), _shown(args.input), dropout=args.dropout
        ):
            out.write(piece)
    return 0


def run_get_vocab(args: argparse.Namespace) -> int:
    counter = count_words(args.input)
    # Most frequent first; sorted() is stable, so ties keep the order of first appearance.
    ranked = sorted(counter.words(), key=lambda item: item[1], reverse=True)
    with output(args.output) as out:
        out.writelines(f"{word} {count}\n" for word, count in ranked)
    return 0
