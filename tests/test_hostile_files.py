"""Hostile and broken model files: each is a `FormatError` naming the file and what is wrong,
never a crash, an allocation the size of a forged id, or a bare Python error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import subword
from subword.errors import FormatError, InvalidInputError

WORDS = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


@pytest.fixture()
def byte_model(tmp_path: Path) -> Path:
    tok = subword.train(WORDS, kind="byte", num_merges=8, min_frequency=1)
    path = tmp_path / "byte.json"
    tok.save(path)
    return path


def _rewrite(path: Path, change) -> Path:
    doc = json.loads(path.read_text(encoding="utf-8"))
    change(doc)
    out = path.with_name("changed-" + path.name)
    out.write_text(json.dumps(doc), encoding="utf-8")
    return out


@pytest.mark.parametrize("forged", [2**31 - 1, 2**32 - 1, 10**8, 10**6, 2**64, -1])
def test_a_forged_id_is_named_not_allocated(byte_model: Path, forged: int) -> None:
    def change(doc: dict) -> None:
        first = next(iter(doc["vocab"]))
        doc["vocab"][first] = forged

    bad = _rewrite(byte_model, change)
    with pytest.raises(FormatError, match=rf"changed-byte\.json: .*{forged}") as info:
        subword.load(bad)
    assert info.value.path == str(bad)


def test_forged_id_in_an_hf_file(byte_model: Path, tmp_path: Path) -> None:
    subword.load(byte_model).save(tmp_path / "tokenizer.json", format="hf")
    doc = json.loads((tmp_path / "tokenizer.json").read_text(encoding="utf-8"))
    first = next(iter(doc["model"]["vocab"]))
    doc["model"]["vocab"][first] = 2**31 - 1
    (tmp_path / "tokenizer.json").write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(FormatError, match=r"tokenizer\.json"):
        subword.load(tmp_path / "tokenizer.json")


def test_forged_rank_in_a_tiktoken_file(byte_model: Path, tmp_path: Path) -> None:
    import base64

    ranks = tmp_path / "mine.tiktoken"
    lines = [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256)]
    lines.append(f"{base64.b64encode(b'ab').decode()} {2**32 - 1}")
    ranks.write_text("\n".join(lines) + "\n")
    with pytest.raises(FormatError, match=r"mine\.tiktoken\b.*4294967295"):
        subword.load(ranks)


def test_tiktoken_file_missing_a_byte(tmp_path: Path) -> None:
    import base64

    ranks = tmp_path / "mine.tiktoken"
    lines = [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256) if b != ord("y")]
    ranks.write_text("\n".join(lines) + "\n")
    with pytest.raises(FormatError, match=r"mine\.tiktoken: byte 0x79 \(b'y'\) has no rank"):
        subword.load_tiktoken(ranks)


def test_deeply_nested_json(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text('{"version": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(FormatError, match=r"deep\.json: JSON nested too deeply"):
        subword.load(deep)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("end_of_word_symbol", 5, "end_of_word_symbol must be a string"),
        ("pre_tokenizer", {"a": 1}, "pre_tokenizer must be a string"),
        ("korean_drop_tags", 1.5, "korean_drop_tags must be a list"),
        ("lowercase", "yes", "lowercase must be True or False"),
    ],
)
def test_config_field_of_the_wrong_type(byte_model: Path, field, value, message) -> None:
    bad = _rewrite(byte_model, lambda doc: doc["config"].__setitem__(field, value))
    with pytest.raises(FormatError, match=rf"changed-byte\.json: field config: {message}"):
        subword.load(bad)


def test_core_errors_while_building_name_the_file(tmp_path: Path) -> None:
    tok = subword.train(WORDS, num_merges=4, min_frequency=1)
    path = tmp_path / "classic.json"
    tok.save(path)
    bad = _rewrite(path, lambda doc: doc["vocab"].pop("<unk>"))
    with pytest.raises(FormatError, match=r"changed-classic\.json: .*<unk>"):
        subword.load(bad)


def test_special_tokens_must_be_distinct_and_not_empty() -> None:
    with pytest.raises(InvalidInputError, match="must not be empty"):
        subword.train(WORDS, num_merges=3, special_tokens=[""])
    with pytest.raises(InvalidInputError, match="'x' is given twice"):
        subword.train(WORDS, num_merges=3, special_tokens=["x", "x"])
    with pytest.raises(InvalidInputError, match="'l' is also an initial symbol"):
        subword.train(WORDS, num_merges=3, special_tokens=["l"], min_frequency=1)


def test_cli_huge_integer_is_one_line(tmp_path: Path) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text("low lower\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "subword",
            "train",
            str(corpus),
            "-o",
            str(tmp_path / "m.json"),
            "--vocab-size",
            "99999999999999999999999",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "too large" in done.stderr and "Traceback" not in done.stderr


def test_cli_unwritable_output_names_the_target(tmp_path: Path) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text("low lower\n")
    target = tmp_path / "no-such-folder" / "m.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "subword",
            "train",
            str(corpus),
            "-o",
            str(target),
            "--num-merges",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert str(target) in done.stderr and ".tmp" not in done.stderr
