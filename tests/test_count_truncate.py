"""Counting and truncation (`count`, `count_batch`, `encode(max_tokens=)`, `truncate`) and
batch decoding from a flat array (`decode_batch(ids, offsets=)`), on every model kind:
properties against `encode`, tiktoken on the corpora, tiktoken's special-token rules, bad
input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from model_kinds import SPECIAL, TEXTS, models
from peers import CORPORA, corpus_lines, corpus_text

import subword
from subword.errors import InvalidInputError

KINDS = list(models())
TEXT = st.text(
    alphabet=st.one_of(st.sampled_from("".join(TEXTS) + " \n\t"), st.characters()),
    max_size=60,
)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


def _exact(tok) -> bool:
    """Byte-level with no normalization: a prefix of the ids decodes to a prefix of the text."""
    return (
        tok.config.kind == "byte" and tok.config.normalization is None and not tok.config.lowercase
    )


@pytest.mark.parametrize("name", KINDS)
@SETTINGS
@given(text=TEXT, n=st.integers(0, 40))
@example(text="\r", n=0)
def test_counts_and_cuts_on_every_kind(name, text, n):
    tok = models()[name]
    try:
        ids = tok.encode(text)
    except InvalidInputError:
        return
    assert tok.count(text) == len(ids)
    assert tok.encode(text, max_tokens=n) == ids[:n]
    cut = tok.truncate(text, n)
    assert text.startswith(cut)
    if n >= len(ids):
        assert cut == text  # a text with no tokens (a classic model's "\r") is kept whole
    elif n == 0:
        assert cut == ""
    # One token more never cuts less.
    assert tok.truncate(text, n + 1).startswith(cut)
    if _exact(tok) and not any("\ud800" <= c <= "\udfff" for c in text):
        # The characters whole in the first n tokens' bytes.
        assert cut == tok.decode_bytes(ids[:n]).decode("utf-8", "ignore")


@pytest.mark.parametrize("name", KINDS)
def test_count_batch_on_every_kind(name):
    tok = models()[name]
    texts = [*TEXTS, "", " ", "€ ∑ 🎉"]
    expected = [len(ids) for ids in tok.encode_batch(texts)]
    assert tok.count_batch(texts) == expected
    assert tok.count_batch(texts, num_threads=1) == expected
    assert tok.count_batch([]) == []


def test_truncate_never_splits_a_character():
    tok = models()["byte"]
    text = "x🎊y"  # the emoji's bytes are split over tokens
    ids = tok.encode(text)
    cuts = [tok.truncate(text, n) for n in range(len(ids) + 1)]
    assert cuts[0] == "" and cuts[-1] == text
    assert set(cuts) <= {"", "x", "x🎊", text}
    # The token that ends inside the emoji: the cut stays before it.
    inside = [n for n in range(1, len(ids)) if tok.decode_bytes(ids[:n]).endswith(b"\x9f")]
    assert all(cuts[n] == "x" for n in inside)


def test_classic_truncate_ends_at_a_word_or_token():
    tok = models()["classic-separate"]
    text = "quick  brown\tfox"
    ids, spans = tok.encode_with_offsets(text)
    for n in range(len(ids) + 1):
        cut = tok.truncate(text, n)
        assert cut == (text if n == len(ids) else text[: spans[n - 1][1]] if n else "")
        assert not cut.endswith((" ", "\t"))


def test_special_token_rules():
    tok = models()["byte"]
    text = f"a{SPECIAL}b"
    with pytest.raises(InvalidInputError, match="special token"):
        tok.count(text)
    with pytest.raises(InvalidInputError, match="special token"):
        tok.truncate(text, 1)
    with pytest.raises(InvalidInputError, match="special token"):
        tok.encode(text, max_tokens=1)
    with pytest.raises(InvalidInputError, match="text 1 of the batch"):
        tok.count_batch(["ok", text])
    allowed = tok.encode(text, allowed_special="all")
    assert tok.count(text, allowed_special="all") == len(allowed) == 3
    assert tok.count_batch([text], allowed_special={SPECIAL}) == [3]
    assert tok.truncate(text, 2, allowed_special="all") == f"a{SPECIAL}"
    assert tok.count(text, disallowed_special=()) == len(tok.encode(text, disallowed_special=()))


@pytest.mark.parametrize("bad", [-1, 1.5, "3", True, None, [2]])
def test_bad_max_tokens(bad):
    tok = models()["byte"]
    if bad is not None:
        with pytest.raises(InvalidInputError, match="max_tokens"):
            tok.encode("abc", max_tokens=bad)
    with pytest.raises(InvalidInputError, match="max_tokens"):
        tok.truncate("abc", bad)


# --- against tiktoken -------------------------------------------------------------------


@pytest.fixture(scope="module")
def cl100k(cl100k_path):
    return subword.load_tiktoken(cl100k_path)


@pytest.mark.parametrize("name", [*CORPORA, "code-c-headers.txt"])
def test_cl100k_counts_equal_tiktoken(name, cl100k, cl100k_encoding):
    """Every line, and the whole file."""
    lines = corpus_lines(name)
    assert cl100k.count_batch(lines) == [len(ids) for ids in cl100k_encoding.encode_batch(lines)]
    text = corpus_text(name)
    whole = cl100k_encoding.encode(text)
    assert cl100k.count(text) == len(whole)
    for n in (0, 1, 7, 1000, len(whole) // 2):
        assert cl100k.encode(text, max_tokens=n) == whole[:n]
    # Truncation maps offsets over the whole text: the first 2 MB are enough here.
    text = text[:2_000_000]
    whole = cl100k_encoding.encode(text)
    for n in (0, 1, 7, 1000, len(whole) // 2, len(whole) - 1):
        expected = cl100k_encoding.decode_bytes(whole[:n]).decode("utf-8", "ignore")
        assert cl100k.truncate(text, n) == expected


# --- decode_batch from a flat array ----------------------------------------------------------


@pytest.mark.parametrize("name", KINDS)
def test_decode_batch_from_flat_arrays(name):
    tok = models()[name]
    texts = [*TEXTS, "", "🎉"]
    flat, offsets = tok.encode_batch_to_numpy(texts)
    expected = [tok.decode(ids) for ids in tok.encode_batch(texts)]
    assert tok.decode_batch(flat, offsets=offsets) == expected
    assert tok.decode_batch(flat.tolist(), offsets=offsets.tolist()) == expected
    empty = tok.decode_batch(np.zeros(0, np.uint32), offsets=np.zeros(1, np.uint64))
    assert empty == []


@pytest.mark.parametrize(
    ("ids", "offsets", "message"),
    [
        (np.zeros((2, 2), np.uint32), [0, 4], "1-D"),
        ([1, 2, 3], [[0, 3]], "1-D"),
        ([1, 2, 3], [], "empty"),
        ([1, 2, 3], [1, 3], "start at 0"),
        ([1, 2, 3], [0, 2], "end at the number of ids"),
        ([1, 2, 3], [0, 4], "end at the number of ids"),
        ([1, 2, 3], [0, 2, 1, 3], "must not decrease"),
        ([1.0, 2.0], [0, 2], "integers"),
        ([1, 2], [0.0, 2.0], "integers"),
        ([1, -2], [0, 2], "not in the vocabulary"),
    ],
)
def test_decode_batch_bad_arrays(ids, offsets, message):
    tok = models()["byte"]
    with pytest.raises(InvalidInputError, match=message):
        tok.decode_batch(ids, offsets=offsets)


# --- the command line ----------------------------------------------------------------------


def test_cli_count_and_max_tokens(tmp_path, capsys):
    from subword.cli import main

    tok = models()["byte"]
    model = tmp_path / "model.json"
    tok.save(model)
    lines = ["The quick brown fox", "", "Grüße 🎉 한국어", SPECIAL]
    text = tmp_path / "in.txt"
    text.write_text("\n".join(lines) + "\n", encoding="utf-8")
    counts = tmp_path / "counts.txt"
    args = ["encode", "-m", str(model), str(text), "--count", "-o", str(counts)]
    assert main([*args, "--disallowed-special", "none"]) == 0
    expected = tok.count_batch(lines, disallowed_special=())
    assert counts.read_text().splitlines() == [str(n) for n in expected]
    # The special token refused as encode refuses it: one line, exit 2.
    capsys.readouterr()
    assert main(["encode", "-m", str(model), str(text), "--count"]) == 2
    assert "special token" in capsys.readouterr().err
    code = main(["encode", "-m", str(model), str(text), "--count", "--allowed-special", "all"])
    assert code == 0
    assert capsys.readouterr().out.split() == [
        str(n) for n in tok.count_batch(lines, allowed_special="all")
    ]
    assert (
        main(["encode", "-m", str(model), str(text), "--max-tokens", "2", "--allow-special"]) == 0
    )
    out = capsys.readouterr().out.splitlines()
    assert out == [
        " ".join(map(str, tok.encode(line, allowed_special="all", max_tokens=2))) for line in lines
    ]
    for bad in (["--max-tokens", "-1"], ["--count", "--tokens"]):
        assert main(["encode", "-m", str(model), str(text), *bad]) == 2
        assert capsys.readouterr().err.count("\n") == 1


def test_korean_pre_tokenizer():
    """Pieces from Kiwi are analysed morphemes, not spans of the text: counting works,
    offsets and streaming decode say why they are not available."""
    from peers import peer

    peer("kiwipiepy")
    texts = TEXTS[2:3] * 2
    tok = subword.train(iter(texts), pre_tokenizer="korean", num_merges=20)
    assert tok.count(texts[0]) == len(tok.encode(texts[0]))
    assert tok.count_batch(texts) == [len(ids) for ids in tok.encode_batch(texts)]
    assert tok.encode(texts[0], max_tokens=3) == tok.encode(texts[0])[:3]
    with pytest.raises(InvalidInputError, match="korean"):
        tok.encode_with_offsets(texts[0])
    with pytest.raises(InvalidInputError, match="korean"):
        tok.truncate(texts[0], 2)
    with pytest.raises(InvalidInputError, match="korean"):
        tok.decode_stream()
