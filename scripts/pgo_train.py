"""The workload a profile-guided build (`scripts/build_wheel_pgo.sh`) learns from.

Run against the instrumented wheel. Its text is none of the benchmark corpora: Python's
standard library sources (code), this repository's documentation (English prose), and generated
Korean and Chinese words drawn with a Zipfian law. It calls every path the benchmark
suite times, in the proportions users hit them, so that no path is left without counts:
LLVM optimizes a function it never saw run as cold.

Needs NumPy and the rank files the benchmark environment installs (`benchmarks/vocabs.py`).
Usage: python scripts/pgo_train.py WORKDIR
"""

from __future__ import annotations

import random
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.vocabs import VOCABS  # noqa: E402

import subword  # noqa: E402

# Bytes of each kind of text; small enough that the run takes seconds.
CODE_BYTES = 4_000_000
PROSE_BYTES = 2_000_000
CJK_WORDS = 150_000


def read_files(paths: list[Path], limit: int) -> str:
    parts: list[str] = []
    size = 0
    for p in paths:
        try:
            text = p.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        parts.append(text)
        size += len(text)
        if size >= limit:
            break
    return "".join(parts)


def cjk_text(seed: int) -> str:
    """Words of two to four Hangul syllables or Han characters, drawn with a Zipfian law,
    with spaces, punctuation and line breaks as Korean prose has them."""
    rng = random.Random(seed)
    words = []
    for i in range(4000):
        base, span = (0xAC00, 11172) if i % 4 else (0x4E00, 20902)
        words.append("".join(chr(base + rng.randrange(span)) for _ in range(rng.randint(2, 4))))
    weights = [1 / (r + 1) for r in range(len(words))]
    drawn = rng.choices(words, weights, k=CJK_WORDS)
    out = []
    for i, w in enumerate(drawn):
        out.append(w)
        out.append(".\n" if i % 17 == 16 else (", " if i % 7 == 6 else " "))
    return "".join(out)


def hostile() -> list[str]:
    rng = random.Random(7)
    return [
        "a" * 200_000,
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(200_000)),
        "".join(rng.choice("0123456789") for _ in range(200_000)),
        " " * 100_000 + "\n" * 100_000,
        "\U0001f600\U0001f680\u2764\ufe0f" * 20_000,
        '{"k": [' + ", ".join(f'"v{i}"' for i in range(20_000)) + "]}",
    ]


def encode_all(tok: subword.Tokenizer, texts: dict[str, str], exact: bool = True) -> None:
    """`exact`: decoding gives the text back (not under CLIP's lowercasing)."""
    for name, text in texts.items():
        lines = text.split("\n")
        for _ in range(3):
            tok.encode_to_numpy(text, disallowed_special=())
            ids = tok.encode_ordinary(text)
        assert tok.decode(ids) == text or not exact, name
        for _ in range(2):
            [tok.encode_to_numpy(s, disallowed_special=()) for s in lines]
            [tok.encode_ordinary(s) for s in lines]
        [tok.encode(s, allowed_special="all") for s in lines[:20_000]]
        for threads in (1, 2):
            tok.encode_batch(lines, num_threads=threads, disallowed_special=())
            tok.encode_batch_to_numpy(lines, num_threads=threads, disallowed_special=())
        [tok.decode(x) for x in tok.encode_batch(lines[:20_000], disallowed_special=())]
    for text in hostile():
        tok.encode_to_numpy(text, disallowed_special=())
        tok.encode_ordinary(text)


def sentencepiece_model(prose: str) -> None:
    """SentencePiece's own BPE test model, from the sentencepiece sdist on PyPI (as the tests
    fetch it); skipped with a note when it cannot be had."""
    fetch = subprocess.run([sys.executable, str(ROOT / "scripts/fetch_sentencepiece_tests.py")])
    model = ROOT / ".cache" / "sentencepiece-sdist" / "botchan_en_bpe_1000.model"
    if fetch.returncode != 0 or not model.is_file():
        print("pgo_train: no SentencePiece test model; its path gets no counts")
        return
    tok = subword.load_sentencepiece(model)
    lines = prose.split("\n")
    for _ in range(2):
        ids = [tok.encode_ordinary(s) for s in lines]
        tok.encode_batch(lines, disallowed_special=())
        [tok.decode(x) for x in ids]


def main() -> None:
    work = Path(sys.argv[1])
    work.mkdir(parents=True, exist_ok=True)
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    sources = [p for p in sorted(stdlib.rglob("*.py")) if "site-packages" not in p.parts]
    code = read_files(sources, CODE_BYTES)
    docs = [*sorted(ROOT.glob("*.md")), *sorted((ROOT / "docs").glob("*.md"))]
    prose = read_files(docs, PROSE_BYTES)
    texts = {
        "code": code,
        "prose": prose * max(1, PROSE_BYTES // max(1, len(prose))),
        "cjk": cjk_text(1),
    }
    cache = ROOT / "benchmarks" / ".cache"
    for name in ("cl100k_base", "o200k_base"):
        vocab = VOCABS[name]
        tok = subword.load_tiktoken(vocab.rank_file(cache), pre_tokenizer=vocab.short)
        encode_all(tok, texts)

    # Models the suite does not time, so that their paths are not left without counts:
    # byte-level with the other named pre-tokenizers, classic `</w>`, greedy `##`.
    corpus = work / "corpus.txt"
    corpus.write_text(code[:2_000_000] + texts["cjk"][:300_000], encoding="utf-8")
    small = {"code": code[:300_000], "cjk": texts["cjk"][:100_000]}
    for pre in ("cl100k", "gpt2", "llama3", "clip", "o200k"):
        trained = subword.train(
            [str(corpus)], kind="byte", pre_tokenizer=pre, vocab_size=3000, show_progress=False
        )
        encode_all(trained, small, exact=pre != "clip")
    for algorithm in ("bpe", "greedy"):
        trained = subword.train(
            [str(corpus)],
            kind="classic",
            algorithm=algorithm,
            num_merges=2000,
            show_progress=False,
        )
        for text in small.values():
            lines = text.split("\n")
            ids = trained.encode_batch(lines)
            [trained.encode(s) for s in lines]
            [trained.decode(x) for x in ids]
    sentencepiece_model(prose)

    # Counting, training from counts and the subword-nmt commands, as the suite runs them.
    counts = subword.count([str(corpus)], kind="byte", pre_tokenizer="cl100k")
    subword.train(counts, vocab_size=3000, tie_break="lexicographic")
    exe = [sys.executable, "-m", "subword"]
    codes, out = work / "codes", work / "out.txt"
    run = [*exe, "learn-bpe", "-s", "3000", "-i", str(corpus), "-o", str(codes)]
    subprocess.run(run, check=True)
    run = [*exe, "apply-bpe", "-c", str(codes), "-i", str(corpus), "-o", str(out)]
    subprocess.run(run, check=True)
    print("pgo_train: done")


if __name__ == "__main__":
    main()
