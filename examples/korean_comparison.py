"""Plain BPE vs morpheme-aware BPE vs jamo BPE on Korean, at the same vocabulary size.

Trains four classic models on 90% of the lines of ko-help.txt (every line whose number is
not a multiple of 10) and measures them on the held-out 10%:

- plain:          words split on whitespace, NFC, characters as initial symbols
- plain + jamo:   the same, with Hangul syllables split into jamo (normalization="jamo")
- morphemes:      words split into morphemes by Kiwi first (pre_tokenizer="korean", word
                  starts marked so decoding restores the spacing, nothing dropped)
- morphemes + jamo

Columns (all on the held-out lines; a "word" is a whitespace-separated word):

- tokens/sentence: ids per held-out line, averaged over lines.
- tokens/word: all ids of the held-out lines / their number of words.
- unk-free words: share of the held-out running words whose encoding (each word type
  encoded on its own) has no <unk> id.
- 1-token types: share of the held-out word types that encode, on their own, to one token.
  Morpheme models split particles and endings off by design, so they score low here.
- morpheme boundaries kept: Kiwi splits each held-out word type on its own into
  morphemes; of the boundaries inside words (weighted by word count), the share that are
  also boundaries between the word's tokens. 100% for the morpheme models by construction;
  how often plain BPE cuts across a morpheme instead is the point of the comparison.
- vocab used: share of the vocabulary that the held-out encoding uses.
- train s: wall time of `subword.train` (Kiwi analysis included; noisy on a shared machine).

Run: python examples/korean_comparison.py [--corpus PATH] [--vocab-size 8000]
(needs `pip install subword[korean]`).
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
import unicodedata
from collections import Counter
from pathlib import Path

import subword
from subword import _core
from subword.config import TokenizerConfig
from subword.pre_tokenizers.korean import KoreanPreTokenizer

MODELS = [
    ("plain", {"normalization": "nfc"}),
    ("plain + jamo", {"normalization": "jamo"}),
    ("morphemes", {"pre_tokenizer": "korean", "normalization": "nfc"}),
    ("morphemes + jamo", {"pre_tokenizer": "korean", "normalization": "jamo"}),
]


def default_corpus() -> Path:
    corpora = os.environ.get("SUBWORD_CORPORA")
    base = Path(corpora) if corpora else Path(__file__).resolve().parents[2] / "shared" / "corpora"
    return base / "ko-help.txt"


def split(lines: list[str]) -> tuple[list[str], list[str]]:
    """Every tenth line (numbers 10, 20, ...) is held out."""
    train = [line for i, line in enumerate(lines, 1) if i % 10]
    test = [line for i, line in enumerate(lines, 1) if not i % 10]
    return train, test


def morpheme_boundaries(types: list[str]) -> dict[str, set[int]]:
    """Offsets inside each word where Kiwi puts a morpheme boundary."""
    config = TokenizerConfig(pre_tokenizer="korean", normalization="nfc", korean_spacing=False)
    analysed = KoreanPreTokenizer(config).pieces_batch(types)
    return {
        w: set(itertools.accumulate(map(len, pieces[:-1]))) for w, pieces in zip(types, analysed)
    }


def boundaries_kept(
    tok: subword.Tokenizer,
    by_type: dict[str, list[int]],
    words: Counter[str],
    bounds: dict[str, set[int]],
) -> float:
    to_jamo = _core.Normalizer("jamo").normalize if tok.config.normalization == "jamo" else None
    kept = total = 0
    for word, count in words.items():
        inside = bounds[word]
        if to_jamo is not None:  # offsets in the jamo text the model works on
            inside = {len(to_jamo(word[:b])) for b in inside}
        cuts, at = set(), 0
        for i in by_type[word]:
            token = tok.id_to_token(i) or ""
            at += 1 if token == "<unk>" else len(token.replace("</w>", "").replace("\u2581", ""))
            cuts.add(at)
        kept += count * len(inside & cuts)
        total += count * len(inside)
    return kept / total


def measure(
    tok: subword.Tokenizer, test: list[str], words: Counter[str], bounds: dict[str, set[int]]
) -> dict[str, float]:
    unk = tok.vocab.get("<unk>")
    encoded = tok.encode_batch(test)
    total = sum(map(len, encoded))
    types = list(words)
    by_type = dict(zip(types, tok.encode_batch(types)))
    running = sum(words.values())
    used = {i for ids in encoded for i in ids}
    return {
        "tokens/sentence": total / len(test),
        "tokens/word": total / running,
        "unk-free words": sum(n for w, n in words.items() if unk not in by_type[w]) / running,
        "1-token types": sum(len(ids) == 1 for ids in by_type.values()) / len(types),
        "morpheme boundaries kept": boundaries_kept(tok, by_type, words, bounds),
        "vocab used": len(used) / tok.vocab_size,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=default_corpus())
    parser.add_argument("--vocab-size", type=int, default=8000)
    args = parser.parse_args(argv)

    text = unicodedata.normalize("NFC", args.corpus.read_text(encoding="utf-8"))
    lines = text.splitlines()
    train, test = split(lines)
    words = Counter(w for line in test for w in line.split())
    seen = {w for line in train for w in line.split()}
    unseen = sum(n for w, n in words.items() if w not in seen) / sum(words.values())
    print(
        f"{args.corpus.name}: {len(train)} training lines, {len(test)} held-out lines, "
        f"{sum(words.values())} held-out words ({len(words)} types; {unseen:.1%} of the "
        f"running words never occur in training); vocab_size={args.vocab_size}",
        file=sys.stderr,
    )
    bounds = morpheme_boundaries(list(words))
    rows = []
    for name, options in MODELS:
        start = time.perf_counter()
        tok = subword.train(iter(train), vocab_size=args.vocab_size, show_progress=False, **options)
        seconds = time.perf_counter() - start
        row = measure(tok, test, words, bounds)
        rows.append((name, tok.vocab_size, row, seconds))
        print(f"  {name}: done in {seconds:.0f}s", file=sys.stderr)

    columns = [
        "tokens/sentence",
        "tokens/word",
        "unk-free words",
        "1-token types",
        "morpheme boundaries kept",
        "vocab used",
    ]
    print("| model | vocab | " + " | ".join(columns) + " | train s |")
    print("|---|---:|" + "---:|" * len(columns) + "---:|")
    for name, size, row, seconds in rows:
        cells = [f"{row[c]:.2f}" if c.startswith("tokens") else f"{row[c]:.2%}" for c in columns]
        print(f"| {name} | {size} | " + " | ".join(cells) + f" | {seconds:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
