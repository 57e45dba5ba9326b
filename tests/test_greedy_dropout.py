"""Greedy longest-match inference with `##` continuations (seed 003) and BPE-dropout."""

from __future__ import annotations

import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import subword

TABLE = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


def greedy_reference(word: str, vocab: set[str], prefix: str = "##") -> list[str]:
    """Seed 003's tokenize(), for one word: the longest prefix in the vocabulary, else
    one character; '##' on every piece after the first."""
    pieces, current = [], word
    while current:
        for i in range(len(current), 0, -1):
            if current[:i] in vocab:
                pieces.append(current[:i])
                current = current[i:]
                break
        else:
            pieces.append(current[0])
            current = current[1:]
    return pieces[:1] + [prefix + p for p in pieces[1:]]


@pytest.fixture(scope="module")
def greedy():
    return subword.train(
        TABLE, num_merges=10, algorithm="greedy", tie_break="first", min_frequency=1
    )


def test_seed_003_example(greedy):
    # The seed's unseen word: greedy matching finds the learned 'est' pieces.
    pieces = greedy.tokenize("slowestestestestest")
    assert pieces == ["s", "##low", "##est", "##est", "##est", "##est", "##est"]
    # With a vocabulary that lacks 'low', the seed's own split: s l o w est est ...
    vocab = {t for t in greedy.vocab if not t.startswith("##")} - {"lo", "low"}
    assert greedy_reference("slowestestestestest", vocab) == [
        "s",
        "##l",
        "##o",
        "##w",
        "##est",
        "##est",
        "##est",
        "##est",
        "##est",
    ]


def test_decode_removes_prefixes(greedy):
    text = "slowestestestestest lowest newer"
    assert greedy.decode(greedy.encode(text)) == text


def test_unknown_characters(greedy):
    # Inside a word the unknown token takes its continuation form: decoding keeps the word.
    assert greedy.tokenize("lox") == ["lo", "##<unk>"]
    assert greedy.tokenize("xlo") == ["<unk>", "##lo"]
    strict = subword.train(
        TABLE, num_merges=10, algorithm="greedy", min_frequency=1, unknown="error"
    )
    with pytest.raises(ValueError, match="unknown character 'x'"):
        strict.encode("lox")


def test_greedy_save_load(greedy, tmp_path):
    greedy.save(tmp_path / "g.json")
    again = subword.load(tmp_path / "g.json")
    assert again.encode("newest widest") == greedy.encode("newest widest")
    assert again.vocab == greedy.vocab


def test_greedy_needs_no_end_of_word():
    with pytest.raises(ValueError, match="end_of_word='none'"):
        subword.train(TABLE, num_merges=3, algorithm="greedy", end_of_word="separate")


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="lowernstidx", min_size=1, max_size=30))
def test_greedy_matches_seed_003(word):
    tok = subword.train(
        TABLE, num_merges=10, algorithm="greedy", tie_break="first", min_frequency=1
    )
    plain = {t for t in tok.vocab if not t.startswith("##") and t != "<unk>"}
    expected = greedy_reference(word, plain)
    shown = [
        p if p.removeprefix("##") in plain else "##<unk>" if p.startswith("##") else "<unk>"
        for p in expected
    ]
    assert tok.tokenize(word) == shown


# --- BPE-dropout ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def bpe(corpora_sample):
    return subword.train(iter(corpora_sample), vocab_size=2000)


@pytest.fixture(scope="module")
def corpora_sample():
    # A self-contained corpus: the seed words, repeated with variations.
    words = ["low", "lower", "lowest", "newer", "newest", "wider", "widest", "slow", "news"]
    return [" ".join(words[i:] + words[:i]) for i in range(len(words))] * 20


TEXT = "lowest newest widest slower newer news lowers"


def test_dropout_zero_is_plain(bpe):
    assert bpe.encode(TEXT, dropout=0.0, seed=3) == bpe.encode(TEXT)


def test_dropout_one_gives_characters(bpe):
    ids = bpe.encode(TEXT, dropout=1.0, seed=3)
    assert [bpe.id_to_token(i) for i in ids] == [s for w in TEXT.split() for s in [*w, "</w>"]]
    assert bpe.decode(ids) == TEXT


def test_dropout_is_reproducible_and_varies(bpe):
    runs = [bpe.encode(TEXT, dropout=0.3, seed=s) for s in range(40)]
    assert runs[5] == bpe.encode(TEXT, dropout=0.3, seed=5)
    assert len({tuple(r) for r in runs}) > 5
    for ids in runs:
        assert bpe.decode(ids) == TEXT


def test_dropout_makes_more_tokens_on_average(bpe):
    plain = len(bpe.encode(TEXT))
    lengths = {
        p: statistics.mean(len(bpe.encode(TEXT, dropout=p, seed=s)) for s in range(60))
        for p in (0.1, 0.5)
    }
    chars = len(TEXT.replace(" ", "")) + len(TEXT.split())
    assert plain < lengths[0.1] < lengths[0.5] < chars


def test_dropout_byte_level_round_trip():
    tok = subword.train(
        iter(["héllo wörld, hello world!"] * 30),
        kind="byte",
        vocab_size=300,
        pre_tokenizer=r"\s?\w+|\s?[^\w\s]+|\s+",
    )
    text = "héllo wörld, hello world!"
    assert tok.encode(text, dropout=0.0) == tok.encode(text)
    for seed in range(20):
        assert tok.decode(tok.encode(text, dropout=0.4, seed=seed)) == text
    assert len(tok.encode(text, dropout=1.0)) == len(text.encode())


def test_dropout_bad_values(bpe):
    with pytest.raises(ValueError, match="dropout must be between 0 and 1"):
        bpe.encode(TEXT, dropout=1.5)
