"""Mistral's Tekken files (`tekken_240718.json`, `tekken_240911.json` from the PyPI package
mistral-common): identical ids to mistral-common's own `Tekkenizer` on every line and whole
file of the shared corpora and on arbitrary text; decode back; special tokens take the first
ids; `subword.load` detects the format; malformed files name the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from peers import CORPORA, corpus_lines, corpus_text, missing, peer

import subword
from subword.errors import FormatError, InvalidInputError

pytestmark = [pytest.mark.peer]

FILES = ["tekken_240718.json", "tekken_240911.json"]


def _path(name: str) -> Path:
    peer("mistral_common")
    import mistral_common

    path = Path(mistral_common.__file__).parent / "data" / name
    if not path.is_file():
        missing(f"{path} is not in the installed mistral-common")
    return path


@pytest.fixture(scope="module", params=FILES)
def pair(request):
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    path = _path(request.param)
    return Tekkenizer.from_file(path), subword.load_tekken(path)


def test_specials_and_sizes(pair) -> None:
    reference, ours = pair
    assert ours.vocab_size == reference.n_words
    assert ours.special_tokens["<s>"] == reference.bos_id == 1
    assert ours.special_tokens["</s>"] == reference.eos_id
    assert len(ours.special_tokens) == reference.num_special_tokens


def test_load_detects_tekken() -> None:
    path = _path(FILES[-1])
    with pytest.raises(InvalidInputError, match="Tekken file holds ranks"):
        subword.load(path, algorithm="greedy")
    assert subword.load(path).encode_ordinary("Hello") == subword.load_tekken(path).encode_ordinary(
        "Hello"
    )


@pytest.mark.corpus
@pytest.mark.parametrize("name", [*CORPORA, "code-c-headers.txt"])
def test_every_line_and_whole_file(pair, name) -> None:
    reference, ours = pair
    lines = corpus_lines(name)
    got = ours.encode_batch(lines, disallowed_special=())
    for i, (line, have) in enumerate(zip(lines, got)):
        want = reference.encode(line, bos=False, eos=False)
        assert have == want, f"{name} line {i + 1}: {line!r}"
    text = corpus_text(name)
    whole = reference.encode(text, bos=False, eos=False)
    assert ours.encode_ordinary(text) == whole
    assert ours.decode(whole) == reference.decode(whole) == text


def test_special_text_rules(pair) -> None:
    reference, ours = pair
    text = "[INST] hi [/INST]</s>"
    # Mistral's tokenizer reads special-token text as ordinary text; so does encode_ordinary.
    assert ours.encode_ordinary(text) == reference.encode(text, bos=False, eos=False)
    with pytest.raises(ValueError, match="special token"):
        ours.encode(text)
    assert ours.encode(text, allowed_special="all")[0] == ours.special_tokens["[INST]"]


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.text(alphabet=st.sampled_from(" \t\n\r1'sTé한🙂.,/!?0\u0301\u00a0"), max_size=50))
def test_arbitrary_text(pair, text) -> None:
    reference, ours = pair
    assert ours.encode_ordinary(text) == reference.encode(text, bos=False, eos=False)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d["config"].pop("pattern"), "config.pattern"),
        (lambda d: d["config"].update(default_vocab_size="big"), "config.default_vocab_size"),
        (lambda d: d["vocab"][5].update(rank=7), r"vocab\[5\]"),
        (lambda d: d["vocab"][300].update(token_bytes=3), r"vocab\[300\].token_bytes"),
        (lambda d: d.update(special_tokens=[{"rank": 1, "token_str": "x"}]), "special_tokens"),
    ],
)
def test_malformed_files_name_the_field(tmp_path: Path, change, field) -> None:
    doc = json.loads(_path(FILES[0]).read_text(encoding="utf-8"))
    doc["vocab"] = doc["vocab"][:2000]
    doc["config"]["default_vocab_size"] = 1500
    doc["config"]["default_num_special_tokens"] = 100
    change(doc)
    path = tmp_path / "tekken.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(FormatError, match=field):
        subword.load_tekken(path)


def test_bad_base64_names_the_file(tmp_path: Path) -> None:
    doc = json.loads(_path(FILES[0]).read_text(encoding="utf-8"))
    doc["vocab"] = doc["vocab"][:2000]
    doc["config"].update(default_vocab_size=1500, default_num_special_tokens=100)
    doc["vocab"][400]["token_bytes"] = "!!!!"
    path = tmp_path / "tekken.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(FormatError, match="tekken.json.*bad base64"):
        subword.load_tekken(path)
