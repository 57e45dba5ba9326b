"""Identical ids to tiktoken's cl100k_base on every line and every whole file of the shared
corpora: `encode_ordinary`, `encode` with special tokens allowed and disallowed, `decode`;
and on arbitrary Unicode (hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from peers import CORPORA, classes_changed_since_python_unicode, corpus_lines, corpus_text

import subword

pytestmark = [pytest.mark.peer]


@pytest.fixture(scope="module")
def ours(cl100k_path):
    return subword.load_tiktoken(cl100k_path, pre_tokenizer="cl100k")


@pytest.mark.corpus
# C headers exactly as shipped (tabs, form feeds, runs of spaces) besides the prose corpora.
@pytest.mark.parametrize("name", [*CORPORA, "code-c-headers.txt"])
def test_every_line_and_whole_file(ours, cl100k_encoding, name):
    lines = corpus_lines(name)
    expected = cl100k_encoding.encode_ordinary_batch(lines, num_threads=2)
    got = ours.encode_batch(lines)
    for i, (line, want, have) in enumerate(zip(lines, expected, got)):
        assert have == want, f"{name} line {i + 1}: {line!r}"
    text = corpus_text(name)
    whole = cl100k_encoding.encode_ordinary(text)
    assert ours.encode_ordinary(text) == whole
    assert ours.encode_to_numpy(text).tolist() == whole
    assert ours.decode(whole) == cl100k_encoding.decode(whole) == text
    flat, offsets = ours.encode_batch_to_numpy(lines)
    assert offsets[0] == 0 and offsets[-1] == len(flat) == sum(map(len, expected))
    for i in range(len(lines)):
        if flat[offsets[i] : offsets[i + 1]].tolist() != expected[i]:
            pytest.fail(f"{name} line {i + 1} in the flat batch: {lines[i]!r}")


@pytest.mark.corpus
def test_special_tokens_allowed_and_disallowed(ours, cl100k_encoding):
    lines = corpus_lines("multi-fortunes.txt")[:3000]
    specials = list(ours.special_tokens)
    mixed = [
        line[: len(line) // 2] + specials[i % len(specials)] + line[len(line) // 2 :]
        for i, line in enumerate(lines)
    ]
    for text in mixed:
        want = cl100k_encoding.encode(text, allowed_special="all")
        assert ours.encode(text, allowed_special="all") == want
        assert ours.decode(want) == cl100k_encoding.decode(want)
        with pytest.raises(ValueError):
            cl100k_encoding.encode(text)
        with pytest.raises(ValueError, match="special token"):
            ours.encode(text)
        assert ours.encode(text, disallowed_special=()) == cl100k_encoding.encode(
            text, disallowed_special=()
        )
    one = {"<|endoftext|>"}
    text = "a<|endoftext|>b<|fim_prefix|>c"
    assert ours.encode(text, allowed_special=one, disallowed_special=()) == (
        cl100k_encoding.encode(text, allowed_special=one, disallowed_special=())
    )
    with pytest.raises(ValueError, match="<|fim_prefix|>"):
        ours.encode(text, allowed_special=one)


def test_special_token_rules_in_every_call_form(ours, cl100k_encoding):
    """The allowed/disallowed rules hold for lists, arrays and batches alike; an explicit
    disallowed set is searched for as given, as tiktoken does."""
    text = "a<|endoftext|>b"
    want = cl100k_encoding.encode(text, allowed_special="all")
    assert ours.encode_to_numpy(text, allowed_special="all").tolist() == want
    flat, offsets = ours.encode_batch_to_numpy(["x", text], allowed_special="all")
    assert flat[offsets[1] : offsets[2]].tolist() == want
    for call in (ours.encode, ours.encode_to_numpy):
        with pytest.raises(ValueError, match="endoftext"):
            call(text)
    for call in (ours.encode_batch, ours.encode_batch_to_numpy):
        with pytest.raises(ValueError, match="text 1 of the batch.*endoftext"):
            call(["fine", text])
    with pytest.raises(ValueError):
        cl100k_encoding.encode("a foo b", disallowed_special={"foo"})
    with pytest.raises(ValueError, match="foo"):
        ours.encode("a foo b", disallowed_special={"foo"})
    with pytest.raises(ValueError, match="lacks"):
        ours.encode(text, allowed_special={"<|not a special|>"})
    # A set is not hashable: the rules are worked out afresh, with the same result.
    assert ours.encode(text, allowed_special=set(ours.special_tokens)) == want


@pytest.mark.corpus
def test_piece_cache_serves_calls_and_models_in_turn(ours, cl100k_encoding):
    """Each thread keeps a cache of encoded pieces across calls, tied to one model: calls
    that alternate between two models, line by line, give each model's own ids."""
    lines = corpus_lines("multi-fortunes.txt")[:400]
    other = subword.train(iter(lines), kind="byte", pre_tokenizer="cl100k", vocab_size=600)
    theirs = [other.encode_ordinary(line) for line in lines]
    for line, their_ids in zip(lines, theirs):
        assert ours.encode_ordinary(line) == cl100k_encoding.encode_ordinary(line)
        assert other.encode_ordinary(line) == their_ids
        assert ours.encode_to_numpy(line).tolist() == cl100k_encoding.encode_ordinary(line)


@settings(max_examples=60, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("abcxyzQWZéñ한국ö'0"), min_size=49, max_size=3000),
)
def test_long_pieces_cut_where_no_token_joins_match_tiktoken(ours, cl100k_encoding, text):
    """Pieces longer than the linear merge's limit are cut between bytes that no token
    contains side by side; the ids stay tiktoken's."""
    assert ours.encode_ordinary(text) == cl100k_encoding.encode_ordinary(text)


def test_long_pieces_met_again_match_tiktoken(ours, cl100k_encoding):
    """Pieces of 129 to 1,024 bytes are cached from their second sighting, longer ones
    never: every sighting, as a line and inside a text, gives tiktoken's ids."""
    import random

    rng = random.Random(11)
    letters = "abcdefghijklmnopqrstuvwxyzéñö한국"
    pieces = ["┌" + "─" * n + "┬" + "─" * (n // 3) + "┐" for n in (40, 43, 100, 340, 400)]
    pieces += [" " + "".join(rng.choice(letters) for _ in range(n)) for n in (130, 300, 700)]
    assert min(len(p.encode()) for p in pieces) > 128
    assert max(len(p.encode()) for p in pieces) > 1024
    text = "\n".join(pieces * 3)
    want = cl100k_encoding.encode_ordinary(text)
    for _ in range(3):
        assert ours.encode_ordinary(text) == want
        assert ours.encode_to_numpy(text).tolist() == want
        for piece in pieces:
            assert ours.encode_ordinary(piece) == cl100k_encoding.encode_ordinary(piece)


def test_long_pieces_of_random_letters_match_tiktoken(ours, cl100k_encoding):
    import random

    rng = random.Random(7)
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    for n in (60, 1_000, 50_000):
        text = "".join(rng.choice(letters) for _ in range(n))
        assert ours.encode_ordinary(text) == cl100k_encoding.encode_ordinary(text), n
    assert ours.encode_ordinary("a" * 20_000) == cl100k_encoding.encode_ordinary("a" * 20_000)


def test_decode_splitting_utf8_follows_errors(ours, cl100k_encoding):
    ids = cl100k_encoding.encode_ordinary("한국어 텍스트 😀")
    split = 0
    for cut in range(1, len(ids)):
        part = ids[:cut]
        assert ours.decode_bytes(part) == cl100k_encoding.decode_bytes(part)
        assert ours.decode(part) == cl100k_encoding.decode(part)  # errors="replace"
        try:
            cl100k_encoding.decode_bytes(part).decode("utf-8")
        except UnicodeDecodeError:
            split += 1
            with pytest.raises(UnicodeDecodeError):
                ours.decode(part, errors="strict")
            assert "\ufffd" in ours.decode(part)
    assert split > 0  # the text really has ids that split a UTF-8 sequence


unicode_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200)
edge_text = st.lists(
    st.sampled_from(
        [
            "a",
            " ",
            "  ",
            "\n",
            "\r\n",
            "\r",
            "\t",
            "\0",
            "é",
            "e\u0301",
            "😀",
            "👍🏽",
            "123",
            "4567",
            "'s",
            "'LL",
            "한국",
            "日本",
            "\u00a0",
            "\u3000",
            "!!",
            "...",
            "ſ",
        ]
    ),
    max_size=60,
).map("".join)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(unicode_text, edge_text))
@example("   \n\n\n   x")
@example(" " * 1000)
@example("\r\n" * 50 + "a")
def test_arbitrary_unicode_round_trips_and_matches(ours, cl100k_encoding, text):
    ids = ours.encode_ordinary(text)
    assert ids == cl100k_encoding.encode_ordinary(text)
    assert ours.decode(ids) == text


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.text(st.characters(codec=None), max_size=40))
def test_any_code_points_match_tiktoken(ours, cl100k_encoding, text):
    # tiktoken's Rust regex and the core's read the same `regex-syntax` tables (Unicode
    # 16.0), so no table of differences is needed here.
    assert ours.encode_ordinary(text) == cl100k_encoding.encode_ordinary(text)


def test_code_points_assigned_in_newer_unicode_match_tiktoken(ours, cl100k_encoding):
    """Where Unicode versions disagree on letters and numbers (Python's database against
    the `regex` module's newer one), the ids are still tiktoken's."""
    texts = [f"a{c}b 1{c}2 !{c}! {c}{c}'s" for c in classes_changed_since_python_unicode()]
    assert ours.encode_batch(texts) == cl100k_encoding.encode_ordinary_batch(texts)
