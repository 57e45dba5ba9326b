"""Peer libraries used as oracles (tiktoken, CLIP's simple_tokenizer, HF tokenizers) and the
shared corpora. Outside CI a missing peer or corpus skips the test with the reason; under CI
(CI=true) it fails, so a broken install step can never pass silently."""

from __future__ import annotations

import importlib
import importlib.util
import os
from pathlib import Path
from types import ModuleType

import pytest

CI = os.environ.get("CI") == "true"
REPO = Path(__file__).resolve().parents[1]
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
CORPORA = [
    "en-kjv.txt",
    "en-shakespeare.txt",
    "en-large.txt",
    "ko-help.txt",
    "ko-constitution.txt",
    "multi-fortunes.txt",
]


def peer(module: str) -> ModuleType:
    """Import a peer library: skip when it is missing, fail in CI."""
    if CI:
        return importlib.import_module(module)
    return pytest.importorskip(module)


def missing(reason: str) -> None:
    if CI:
        pytest.fail(reason)
    pytest.skip(reason)


def corpus(name: str) -> Path:
    shared = Path(os.environ.get("SUBWORD_SHARED", REPO.parent / "shared"))
    folder = Path(os.environ.get("SUBWORD_CORPORA", shared / "corpora"))
    path = folder / name
    if not path.is_file():
        missing(f"corpus {path} not found (set SUBWORD_CORPORA)")
    return path


def corpus_text(name: str) -> str:
    # newline="" keeps "\r\n" as it is, so line ends exercise the patterns' [\r\n] branches.
    with corpus(name).open(encoding="utf-8", newline="") as f:
        return f.read()


def corpus_lines(name: str) -> list[str]:
    return corpus_text(name).splitlines(keepends=True)


def classes_changed_since_python_unicode() -> list[str]:
    """Code points whose letter/number class in the `regex` module differs from Python's
    own (older) Unicode database: the ones assigned between the two versions."""
    import unicodedata

    regex = peer("regex")
    letter, number = regex.compile(r"\p{L}"), regex.compile(r"\p{N}")
    changed = []
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        c = chr(cp)
        category = unicodedata.category(c)[0]
        if bool(letter.fullmatch(c)) != (category == "L") or bool(number.fullmatch(c)) != (
            category == "N"
        ):
            changed.append(c)
    return changed


def llama_models_file(version: str) -> Path:
    """`tokenizer.model` of Llama `version` ("llama3", "llama4") in the installed llama-models."""
    peer("llama_models")
    import llama_models

    path = Path(llama_models.__file__).parent / version / "tokenizer.model"
    if not path.is_file():
        missing(f"{path} is not in the installed llama-models")
    return path


def assert_same_as_tiktoken(model, ours, name: str) -> None:
    """`ours` gives the ids of the tiktoken `model` on every line of corpus `name` and on
    the whole file, and decodes the whole file's ids back to its text."""
    lines = corpus_lines(name)
    expected = model.encode_ordinary_batch(lines, num_threads=2)
    for i, (line, want, have) in enumerate(zip(lines, expected, ours.encode_batch(lines))):
        assert have == want, f"{name} line {i + 1}: {line!r}"
    text = corpus_text(name)
    whole = model.encode_ordinary(text)
    assert ours.encode_to_numpy(text).tolist() == whole
    assert ours.decode(whole) == text
