"""Inputs: the shared corpora, prefixes of them cut at line ends, the concatenated input for
the scaling points, and the generated worst cases (deterministic, seeded)."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

from benchmarks.timing import REPO
from benchmarks.vocabs import Unavailable

MB = 1_000_000
# The order corpora appear in tables; any other .txt in the folder follows, by name.
PREFERRED = [
    "en-kjv.txt",
    "en-shakespeare.txt",
    "en-large.txt",
    "multi-fortunes.txt",
    "ko-help.txt",
    "ko-constitution.txt",
    "code-c-headers.txt",
]


def corpora_dir() -> Path:
    path = Path(os.environ.get("SUBWORD_CORPORA", REPO.parent / "shared" / "corpora"))
    if not path.is_dir():
        raise Unavailable(f"corpora folder {path} not found (set SUBWORD_CORPORA)")
    return path


def corpora() -> list[Path]:
    folder = corpora_dir()
    found = {p.name: p for p in folder.glob("*.txt")}
    ordered = [found.pop(n) for n in PREFERRED if n in found]
    return ordered + [found[n] for n in sorted(found)]


def corpus(name: str) -> Path:
    path = corpora_dir() / name
    if not path.is_file():
        raise Unavailable(f"corpus {path} not found")
    return path


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def prefix(path: Path, nbytes: int, cache: Path) -> Path:
    """The file itself when it is no longer than `nbytes`, else its first `nbytes` bytes cut
    back to the last line end (so no UTF-8 sequence is split)."""
    if path.stat().st_size <= nbytes:
        return path
    out = cache / f"{path.stem}.{nbytes}.txt"
    if not out.is_file():
        with open(path, "rb") as f:
            data = f.read(nbytes)
        cut = data.rfind(b"\n")
        _write_atomic(out, data[: cut + 1] if cut >= 0 else data)
    return out


def mixed(nbytes: int, cache: Path) -> Path:
    """`nbytes` of text for the scaling points: every shared corpus concatenated (largest
    first), repeated from the start when they run out (all of them together are about
    85 MB, so the 100 MB point repeats the first ~15 MB), then cut at a line end."""
    out = cache / f"mixed.{nbytes}.txt"
    if out.is_file():
        return out
    files = sorted(corpora(), key=lambda p: -p.stat().st_size)
    parts: list[bytes] = []
    have = 0
    while have < nbytes:
        for p in files:
            data = p.read_bytes()
            parts.append(data)
            have += len(data)
            if have >= nbytes:
                break
    data = b"".join(parts)[:nbytes]
    cut = data.rfind(b"\n")
    _write_atomic(out, data[: cut + 1])
    return out


def _random_bytes(out: Path, alphabet: bytes, nbytes: int, seed: int) -> Path:
    """`out`, written once: `nbytes` bytes drawn from `alphabet` by a seeded generator."""
    if not out.is_file():
        rng = random.Random(seed)
        _write_atomic(out, bytes(rng.choice(alphabet) for _ in range(nbytes)))
    return out


def no_whitespace(nbytes: int, cache: Path, seed: int = 5) -> Path:
    """Random ASCII letters with no whitespace at all: one regex piece per run of letters,
    i.e. one piece of `nbytes` bytes."""
    letters = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return _random_bytes(cache / f"worst-nospace.{nbytes}.txt", letters, nbytes, seed)


def lower_case(nbytes: int, cache: Path, seed: int = 5) -> Path:
    """Random lower-case ASCII letters with no whitespace: one piece, like `no_whitespace`,
    but nearly every pair of its letters is inside some token, so its parts (cut where no
    token joins two bytes) are tens to hundreds of bytes instead of a few."""
    letters = b"abcdefghijklmnopqrstuvwxyz"
    return _random_bytes(cache / f"worst-lower.{nbytes}.txt", letters, nbytes, seed)


def repeated(nbytes: int, cache: Path, char: str = "a") -> Path:
    """One character repeated `nbytes` times."""
    out = cache / f"worst-repeat.{nbytes}.txt"
    if not out.is_file():
        _write_atomic(out, char.encode() * nbytes)
    return out


def spaces(nbytes: int, cache: Path) -> Path:
    """Spaces only: one whitespace piece of the whole input."""
    out = cache / f"worst-spaces.{nbytes}.txt"
    if not out.is_file():
        _write_atomic(out, b" " * nbytes)
    return out


def newlines(nbytes: int, cache: Path) -> Path:
    """Line ends only: one piece under cl100k and o200k (`\\s*[\\r\\n]`), and a text of
    empty lines for anything that splits lines."""
    out = cache / f"worst-newlines.{nbytes}.txt"
    if not out.is_file():
        _write_atomic(out, b"\n" * nbytes)
    return out


def digits(nbytes: int, cache: Path, seed: int = 5) -> Path:
    """Random decimal digits with no whitespace (pieces of three digits)."""
    return _random_bytes(cache / f"worst-digits.{nbytes}.txt", b"0123456789", nbytes, seed)


def emoji(nbytes: int, cache: Path, seed: int = 5) -> Path:
    """Random emoji (U+1F300..U+1F64F, four UTF-8 bytes each) with no whitespace: one
    punctuation-class piece of the whole input."""
    out = cache / f"worst-emoji.{nbytes}.txt"
    if not out.is_file():
        rng = random.Random(seed)
        chars = [chr(c) for c in range(0x1F300, 0x1F650)]
        text = "".join(rng.choice(chars) for _ in range(nbytes // 4))
        _write_atomic(out, text.encode("utf-8"))
    return out


def one_word_lines(n: int, cache: Path) -> Path:
    """`n` lines of one short word each (a few words cycling): one call per line measures
    the fixed cost of a call, as a server that encodes small requests pays it."""
    out = cache / f"percall-words.{n}.txt"
    if not out.is_file():
        words = ["hello", "world", "the", "token", "request", "a", "reply", "Hi"]
        _write_atomic(out, "".join(words[i % len(words)] + "\n" for i in range(n)).encode())
    return out


def json_line(nbytes: int, cache: Path, seed: int = 5) -> Path:
    """A single-line JSON document of about `nbytes` bytes (compact separators, so the only
    spaces are inside strings): a list of records with ids, words, numbers, nested lists."""
    out = cache / f"worst-json.{nbytes}.txt"
    if out.is_file():
        return out
    rng = random.Random(seed)
    words = [
        "alpha", "beta", "gamma", "delta", "token", "merge", "rank", "byte", "pair", "value",
        "Seoul", "Zürich", "naïve", "日本", "한국어", "data", "null", "true", "x", "id",
    ]  # fmt: skip
    records = []
    size = 2
    while size < nbytes:
        rec = {
            "id": len(records),
            "name": " ".join(rng.choice(words) for _ in range(rng.randint(1, 4))),
            "score": round(rng.uniform(-1000, 1000), rng.randint(0, 6)),
            "tags": [rng.choice(words) for _ in range(rng.randint(0, 5))],
            "matrix": [[rng.randint(0, 99999) for _ in range(3)] for _ in range(2)],
            "ok": rng.random() < 0.5,
            "parent": None if rng.random() < 0.3 else rng.randint(0, 10**9),
        }
        records.append(rec)
        size += len(json.dumps(rec, ensure_ascii=False, separators=(",", ":")).encode()) + 1
    text = json.dumps(records, ensure_ascii=False, separators=(",", ":"))
    _write_atomic(out, text.encode())
    return out


WORST_CASES = {
    "one letter repeated": repeated,
    "random letters": no_whitespace,
    "random lower-case letters": lower_case,
    "digits": digits,
    "spaces": spaces,
    "newlines": newlines,
    "emoji": emoji,
    "single-line JSON": json_line,
}
