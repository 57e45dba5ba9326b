"""The corpus view: how a model cuts a text file — tokens per byte overall, by line and by
script, the lengths of the tokens it uses, its most frequent tokens, and the vocabulary
entries the corpus never uses. Lines are encoded with `encode_batch` (the core's threads)."""

from __future__ import annotations

import unicodedata
from collections import Counter
from pathlib import Path

from subword.errors import UsageError
from subword.lab import health
from subword.tokenizer import Tokenizer

MAX_LINES_SHOWN = 2000  # per-line figures sent to the page (the totals use every line)
TOP = 30


def read_corpus(path: str | Path) -> list[str]:
    """The corpus's non-empty lines (UTF-8); a bad file is a one-line user error."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise UsageError(f"--corpus {path}: {exc.strerror or exc}") from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"--corpus {path}: invalid UTF-8 at byte offset {exc.start}") from exc
    return [line for line in text.splitlines() if line.strip()]


def script_of(line: str) -> str:
    """The script most of a line's letters belong to (the first word of their Unicode names:
    LATIN, HANGUL, CJK, CYRILLIC, ...), or "other" when it has no letters."""
    counts: Counter[str] = Counter()
    for char in line:
        if char.isalpha():
            name = unicodedata.name(char, "")
            counts[name.split(" ", 1)[0] if name else "other"] += 1
    return counts.most_common(1)[0][0].lower() if counts else "other"


def measure(tok: Tokenizer, lines: list[str]) -> dict:
    """Figures for one model on the corpus lines (see the module docstring)."""
    from subword.lab.api import token_text

    encoded = tok.encode_batch(lines)
    sizes = [len(line.encode("utf-8", "surrogatepass")) for line in lines]
    tokens = sum(len(ids) for ids in encoded)
    total_bytes = sum(sizes)
    by_script: dict[str, list[int]] = {}
    for line, ids, size in zip(lines, encoded, sizes):
        entry = by_script.setdefault(script_of(line), [0, 0])
        entry[0] += len(ids)
        entry[1] += size
    counts: Counter[int] = Counter(i for ids in encoded for i in ids)
    lengths: Counter[int] = Counter()
    for id_, n in counts.items():
        lengths[len(tok.decode_bytes([id_]))] += n
    never = health.unused(tok, set(counts))
    ordinary = len(tok.spec.vocab) - len(tok.spec.special_tokens.keys() & tok.spec.vocab.keys())
    return {
        "lines": len(lines),
        "tokens": tokens,
        "bytes": total_bytes,
        "tokens_per_byte": tokens / total_bytes if total_bytes else 0.0,
        "by_line": [[len(ids), size] for ids, size in list(zip(encoded, sizes))[:MAX_LINES_SHOWN]],
        "by_script": {
            script: {"tokens": t, "bytes": b, "tokens_per_byte": t / b if b else 0.0}
            for script, (t, b) in sorted(by_script.items(), key=lambda kv: -kv[1][1])
        },
        "token_lengths": {str(k): v for k, v in sorted(lengths.items())},
        "top_tokens": [
            {"id": i, "token": tok.id_to_token(i), "text": token_text(tok, i), "count": n}
            for i, n in counts.most_common(TOP)
        ],
        "distinct_tokens": len(counts),
        "never_used_count": len(never),
        "never_used_share": len(never) / ordinary if ordinary else 0.0,
        "never_used_sample": [
            {"id": i, "token": tok.id_to_token(i), "text": token_text(tok, i)} for i in never[:TOP]
        ],
    }
