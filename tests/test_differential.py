"""The Rust trainer and encoder against the pure-Python reference, on random tables."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import subword
from subword.teaching import reference

words = st.text(alphabet="abcde", min_size=1, max_size=9)
tables = st.dictionaries(words, st.integers(min_value=1, max_value=30), min_size=1, max_size=25)
rules = st.sampled_from(["lexicographic", "first", "subword-nmt"])
eows = st.sampled_from(["separate", "attached", "none"])


@settings(max_examples=300, deadline=None)
@given(tables, rules, eows, st.integers(min_value=0, max_value=40), st.integers(1, 3))
def test_trainer_matches_reference(table, tie_break, end_of_word, num_merges, min_frequency):
    tok = subword.train(
        table,
        num_merges=num_merges,
        tie_break=tie_break,
        end_of_word=end_of_word,
        min_frequency=min_frequency,
    )
    expected, _ = reference.learn(
        reference.word_table(table, end_of_word), num_merges, tie_break, min_frequency
    )
    assert tok.merges == expected


@settings(max_examples=200, deadline=None)
@given(tables, rules, eows, st.lists(words, min_size=1, max_size=10))
def test_encoder_matches_reference(table, tie_break, end_of_word, probes):
    tok = subword.train(
        table, num_merges=30, tie_break=tie_break, end_of_word=end_of_word, min_frequency=1
    )
    alphabet = set("".join(table))
    for word in probes:
        if not set(word) <= alphabet:
            continue
        expected = reference.apply(reference.split_word(word, end_of_word), tok.merges)
        assert tok.tokenize(word) == expected
        if end_of_word != "none":
            assert tok.decode(tok.encode(word)) == word


@settings(max_examples=50, deadline=None)
@given(st.integers(min_value=50, max_value=3000), st.sampled_from("ab"))
def test_long_runs_merge_like_the_reference(length, pattern_char):
    # Long pieces take the heap path in the core; short ones a linear scan.
    tok = subword.train(
        {"aaaaaaaaab": 3, "abab": 2},
        num_merges=12,
        tie_break="first",
        end_of_word="none",
        min_frequency=1,
    )
    word = ("a" * 7 + pattern_char) * (length // 8) + "a" * (length % 8)
    assert tok.tokenize(word) == reference.apply(list(word), tok.merges)
