"""`subword train`: learn a vocabulary from files or stdin and save the model."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from subword.cli import UsageError
from subword.commands._io import read_lines
from subword.config import END_OF_WORD, KINDS, NORMALIZATIONS, TIE_BREAKS


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "train",
        help="learn a BPE vocabulary from text",
        description="Learn BPE merges from UTF-8 text files (plain or .gz) or stdin, and save "
        "the model as JSON.",
    )
    p.add_argument("inputs", nargs="*", metavar="FILE", help="text files; none or - for stdin")
    p.add_argument("-o", "--output", required=True, metavar="MODEL", help="model file to write")
    size = p.add_mutually_exclusive_group()
    size.add_argument("--vocab-size", type=int, metavar="N", help="target vocabulary size")
    size.add_argument("--merges", type=int, metavar="N", help="number of merges to learn")
    p.add_argument("--kind", choices=KINDS, default="classic", help="classic (characters) or byte")
    p.add_argument("--min-frequency", type=int, default=2, metavar="N", help="default 2")
    p.add_argument("--tie-break", choices=TIE_BREAKS, default="lexicographic")
    p.add_argument("--end-of-word", choices=END_OF_WORD, help="default: separate (classic)")
    p.add_argument("--end-of-word-symbol", default="</w>", metavar="SYMBOL")
    p.add_argument(
        "--special-token", action="append", default=[], metavar="TOKEN", help="repeatable"
    )
    p.add_argument("--unk-token", default="<unk>", metavar="TOKEN")
    p.add_argument(
        "--algorithm",
        choices=("bpe", "greedy"),
        default="bpe",
        help="greedy: longest match with ## continuations (seed 003)",
    )
    p.add_argument(
        "--vocab-txt", metavar="FILE", help="also write the plain vocabulary, one token a line"
    )
    p.add_argument("--unknown", choices=("unk", "error"), default="unk")
    p.add_argument(
        "--pre-tokenizer",
        metavar="NAME|REGEX",
        help="whitespace (classic default), korean (morphemes by Kiwi), or a regex",
    )
    p.add_argument(
        "--korean-drop-tags",
        default="",
        metavar="TAGS",
        help="korean: comma-separated Kiwi tags or groups to drop (Josa,Punctuation,Foreign)",
    )
    p.add_argument(
        "--korean-spacing",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="korean: mark word starts so decode restores the spacing (default: on)",
    )
    p.add_argument("--normalization", choices=[n for n in NORMALIZATIONS if n])
    p.add_argument("--lowercase", action="store_true")
    p.add_argument("--errors", choices=("strict", "replace"), default="strict")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar or summary")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import subword

    if args.vocab_size is None and args.merges is None:
        raise UsageError("give --vocab-size N or --merges N")
    files = [f for f in args.inputs if f != "-"]
    for f in files:
        if not Path(f).is_file():
            raise UsageError(f"{f}: no such file")
    source = files if files and len(files) == len(args.inputs) else read_lines(args.inputs)
    start = time.perf_counter()
    tok = subword.train(
        source,
        kind=args.kind,
        vocab_size=args.vocab_size,
        num_merges=args.merges,
        min_frequency=args.min_frequency,
        tie_break=args.tie_break,
        end_of_word=args.end_of_word,
        end_of_word_symbol=args.end_of_word_symbol,
        special_tokens=args.special_token,
        unk_token=args.unk_token,
        unknown=args.unknown,
        algorithm=args.algorithm,
        pre_tokenizer=args.pre_tokenizer,
        normalization=args.normalization,
        lowercase=args.lowercase,
        errors=args.errors,
        show_progress=False if args.quiet else None,
        korean_drop_tags=[t.strip() for t in args.korean_drop_tags.split(",") if t.strip()],
        korean_spacing=args.korean_spacing,
    )
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
