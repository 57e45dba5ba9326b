"""`subword demo`: the main job end to end on an embedded default corpus — the source of the
running Python's own standard library (top-level modules, about 5 MB), so nothing is
downloaded. Trains, saves the model, encodes and decodes a sample, and says what it did."""

from __future__ import annotations

import argparse
import sys
import sysconfig
import time
from pathlib import Path

SAMPLE = "def tokenize(text):\n    return [word for word in text.split() if word]  # lowest"


def stdlib_files() -> list[Path]:
    """The default corpus: the standard library's top-level `.py` files, in name order."""
    root = Path(sysconfig.get_paths()["stdlib"])
    return sorted(p for p in root.glob("*.py") if p.is_file())


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "demo",
        help="train on Python's standard library source, then encode and decode a sample",
        description="Train a BPE model on the running Python's standard library source "
        "(no download), save it, and encode and decode a sample text.",
    )
    p.add_argument("-o", "--output", default="subword-demo.json", help="model file to write")
    p.add_argument("--vocab-size", type=int, default=8000, metavar="N", help="default 8000")
    p.add_argument("--kind", choices=("classic", "byte"), default="classic")
    p.add_argument("--text", default=SAMPLE, help="sample text to encode and decode")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import subword

    files = stdlib_files()
    size = sum(f.stat().st_size for f in files)
    print(
        f"corpus: {len(files)} files of the Python {sys.version.split()[0]} standard library "
        f"({size / 1e6:.1f} MB) in {files[0].parent}"
    )
    start = time.perf_counter()
    tok = subword.train(
        [str(f) for f in files],
        kind=args.kind,
        vocab_size=args.vocab_size,
        errors="replace",
        show_progress=False if args.quiet else None,
    )
    seconds = time.perf_counter() - start
    print(
        f"trained: {args.kind} BPE, {tok.training['words']} distinct words, "
        f"{len(tok.merges)} merges, vocabulary {tok.vocab_size}, in {seconds:.2f}s"
    )
    print(f"first merges: {', '.join(a + '+' + b for a, b in tok.merges[:8])}")
    tok.save(args.output)
    loaded = subword.load(args.output)
    print(f"saved: {args.output} (reloaded: {loaded!r})")
    ids = loaded.encode(args.text)
    print(f"sample: {args.text!r}")
    print(f"tokens ({len(ids)}): {' '.join(loaded.tokenize(args.text))}")
    print(f"ids: {ids}")
    decoded = loaded.decode(ids)
    print(f"decoded: {decoded!r}")
    same = (
        decoded == " ".join(args.text.split()) if args.kind == "classic" else decoded == args.text
    )
    what = "the words, single-spaced" if args.kind == "classic" else "the exact text"
    print(f"round trip restores {what}: {'yes' if same else 'NO'}")
    return 0 if same else 1
