"""The smoke subset CI runs on every supported Python (`pytest -m smoke`): every module
imports, each model kind trains, encodes and decodes, each format this library writes loads
back, the compressor round-trips, and every command answers --help. Needs no peer library
and no shared data."""

from __future__ import annotations

import importlib
import pickle
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import subword
from subword.commands import COMMANDS

pytestmark = pytest.mark.smoke

TEXT = "the lowest newer widest\nlow lower newest widest 한국어 🙂\n" * 20
# Modules whose optional dependencies may be absent; they must still import.
_ALL = sorted(
    m.name
    for m in pkgutil.walk_packages(subword.__path__, "subword.")
    if m.name != "subword.__main__"
)


@pytest.mark.parametrize("module", _ALL)
def test_every_module_imports(module: str) -> None:
    importlib.import_module(module)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("smoke") / "corpus.txt"
    path.write_text(TEXT, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "options",
    [
        {"kind": "classic"},
        {"kind": "classic", "end_of_word": "attached"},
        {"kind": "classic", "algorithm": "greedy"},
        {"kind": "byte", "pre_tokenizer": "cl100k", "special_tokens": ["<|end|>"]},
        {"kind": "byte", "pre_tokenizer": "gpt2"},
    ],
)
def test_train_encode_decode_save_load(corpus: Path, tmp_path: Path, options: dict) -> None:
    tok = subword.train([corpus], num_merges=40, min_frequency=1, **options)
    line = "the lowest newest 한국어"
    ids = tok.encode(line)
    assert ids and all(isinstance(i, int) for i in ids)
    if tok.config.kind == "byte":
        assert tok.decode(ids) == line
    else:
        assert tok.decode(ids).split() == line.split()
    tok.save(tmp_path / "m.json")
    assert subword.load(tmp_path / "m.json").encode(line) == ids
    assert pickle.loads(pickle.dumps(tok)).encode(line) == ids


def test_each_written_format_loads_back(corpus: Path, tmp_path: Path) -> None:
    byte = subword.train(
        [corpus], kind="byte", pre_tokenizer="gpt2", num_merges=40, min_frequency=1
    )
    line = "the lowest newest 한국어"
    byte.save(tmp_path / "t.json", format="hf")
    assert subword.load(tmp_path / "t.json").encode(line) == byte.encode(line)
    byte.save(tmp_path / "gpt2", format="gpt2")
    assert subword.load(tmp_path / "gpt2").encode(line) == byte.encode(line)
    ranked = subword.train(
        [corpus], kind="byte", pre_tokenizer="cl100k", num_merges=40, min_frequency=1
    )
    ranked.save(tmp_path / "r.tiktoken", format="tiktoken")
    back = subword.load_tiktoken(tmp_path / "r.tiktoken", pre_tokenizer="cl100k")
    assert back.encode(line) == ranked.encode(line)


def test_compress_round_trip() -> None:
    data = TEXT.encode() + bytes(range(256))
    assert subword.decompress(subword.compress(data)) == data


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_has_help(command: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "subword", command, "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and "usage: subword" in done.stdout


def test_subword_nmt_workflow(corpus: Path, tmp_path: Path) -> None:
    from subword import nmt

    codes = nmt.learn_codes(corpus, tmp_path / "codes.bpe", symbols=30, min_frequency=1)
    assert 0 < len(codes.merges) <= 30  # fewer when every word is one token
    bpe = nmt.load_codes(tmp_path / "codes.bpe")
    segmented = bpe.segment("the lowest newer\n")
    assert segmented.replace("@@ ", "") == "the lowest newer\n"
    nmt.apply_codes(tmp_path / "codes.bpe", corpus, tmp_path / "out.bpe")
    vocab = nmt.get_vocab(tmp_path / "out.bpe", tmp_path / "vocab.txt")
    assert vocab and (tmp_path / "vocab.txt").read_text(encoding="utf-8")


def test_everyday_calls(corpus: Path) -> None:
    """Offsets, counting, truncation, streaming decode and array decode on a byte model."""
    tok = subword.train([corpus], num_merges=40, min_frequency=1, kind="byte")
    line = "the lowest 한국어 🙂"
    ids, spans = tok.encode_with_offsets(line)
    assert ids == tok.encode(line) and spans[0][0] == 0 and spans[-1][1] == len(line)
    assert tok.count(line) == len(ids) and tok.count_batch([line, ""]) == [len(ids), 0]
    assert tok.encode(line, max_tokens=2) == ids[:2]
    assert line.startswith(tok.truncate(line, 3))
    stream = tok.decode_stream()
    assert "".join(stream.step(i) for i in ids) + stream.flush() == line
    flat, offsets = tok.encode_batch_to_numpy([line, "low"])
    assert tok.decode_batch(flat, offsets=offsets) == [line, "low"]


def test_loading_leaves_numpy_alone(corpus: Path, tmp_path: Path) -> None:
    """A model readies NumPy's C API only when NumPy is already imported (so the first array
    call does not pay for it), and never imports NumPy itself: loading stays fast for users
    who want lists."""
    path = tmp_path / "model.json"
    subword.train([corpus], num_merges=40, min_frequency=1, kind="byte").save(path)
    script = (
        "import sys, subword\n"
        f"tok = subword.load({str(path)!r})\n"
        "assert 'numpy' not in sys.modules, 'loading imported numpy'\n"
        "ids = tok.encode('the lowest')\n"
        "try:\n"
        "    import numpy\n"
        "except ImportError:\n"
        "    sys.exit(0)\n"
        f"tok = subword.load({str(path)!r})\n"
        "assert tok.encode_to_numpy('the lowest').tolist() == ids\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
