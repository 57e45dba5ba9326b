"""The pure-Python reference against the seeds' worked examples, function by function, and as
a whole (learned merges re-segment the training words exactly as training left them)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subword.teaching.reference import (
    END_OF_WORD,
    TIE_BREAKS,
    Step,
    apply,
    choose_pair,
    learn,
    merge_pair,
    merge_symbols,
    pair_counts,
    split_word,
    word_table,
)


def as_table(rows: list) -> list:
    """A fixture's [[symbols], count] rows as a WordTable."""
    return [(tuple(symbols), count) for symbols, count in rows]


def as_pairs(rows: list) -> list:
    return [tuple(pair) for pair in rows]


# --- the seeds' worked examples (golden/seeds.json) -------------------------------------------


def test_classic_table_is_built_from_the_words(golden):
    fixture = golden["classic_low_lower_newest_widest"]
    words = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    assert word_table(words) == as_table(fixture["input"])


def test_classic_merges_steps_and_final_table(golden):
    fixture = golden["classic_low_lower_newest_widest"]
    steps: list[Step] = []
    merges, final = learn(
        as_table(fixture["input"]), fixture["num_merges"], "first", on_step=steps.append
    )
    assert merges == as_pairs(fixture["expected_merges"])
    assert final == as_table(fixture["expected_final"])
    assert len(steps) == len(fixture["expected_steps"]) == 10
    for index, (step, expected) in enumerate(zip(steps, fixture["expected_steps"])):
        assert step.index == index
        # Same pairs, same counts, and the same order (the order the seed prints them in).
        assert [[a, b, c] for (a, b), c in step.pair_counts.items()] == expected["pair_counts"]
        assert list(step.best) == expected["best"]
        assert step.count == expected["count"]
    assert steps[-1].table_after == final


def test_classic_apply_cases(golden):
    fixture = golden["classic_low_lower_newest_widest"]
    merges = as_pairs(fixture["expected_merges"])
    cases = fixture["apply"]["cases"]
    assert {"lowest", "loki", "highing", "latest", "news"} <= set(cases)
    for word, expected in cases.items():
        assert apply(split_word(word), merges) == expected, word


def test_korean_50_merges(golden):
    fixture = golden["korean_morphemes_50_merges"]
    table = as_table(fixture["input"])
    # The seed's table is its words split into characters with "\0" as a separate last symbol.
    words = {"".join(symbols[:-1]): count for symbols, count in table}
    assert word_table(words, "separate", "\0") == table
    merges, final = learn(table, fixture["num_merges"], "first")
    assert merges == as_pairs(fixture["expected_merges"])
    assert len(merges) == 50
    assert final == as_table(fixture["expected_final"])


def test_sentences_vocab_size_12(golden):
    fixture = golden["sentences_vocab_size_12"]
    counts: dict[str, int] = {}
    for sentence, times in fixture["sentences"]:
        for word in sentence.split():
            counts[word] = counts.get(word, 0) + times
    assert list(counts.items()) == list(fixture["expected_word_counts"].items())

    table = word_table(counts, "none")
    alphabet = sorted({symbol for symbols, _ in table for symbol in symbols})
    assert alphabet == fixture["initial_vocab"]
    merges, _ = learn(table, fixture["vocab_size"] - len(alphabet), "lexicographic")
    assert merges == as_pairs(fixture["expected_merges"])
    new_tokens = ["".join(pair) for pair in merges]
    assert new_tokens == fixture["expected_new_tokens"]
    assert len(set(alphabet) | set(new_tokens)) == fixture["vocab_size"]


def test_sentences_first_merge_depends_on_the_tie_rule(golden):
    # ('n','e') and ('e','w') both occur 16 times: the seed's alphabetical rule takes 'ew'.
    counts = pair_counts(
        word_table(golden["sentences_vocab_size_12"]["expected_word_counts"], "none")
    )
    assert counts[("n", "e")] == counts[("e", "w")] == max(counts.values()) == 16
    assert choose_pair(counts, "lexicographic") == ("e", "w")
    assert choose_pair(counts, "first") == ("n", "e")
    assert choose_pair(counts, "subword-nmt") == ("n", "e")


# --- split_word and word_table ----------------------------------------------------------------


def test_split_word_end_of_word_modes():
    assert split_word("low") == ["l", "o", "w", "</w>"]
    assert split_word("low", "separate", "\0") == ["l", "o", "w", "\0"]
    assert split_word("low", "attached") == ["l", "o", "w</w>"]
    assert split_word("low", "none") == ["l", "o", "w"]
    assert split_word("a", "attached", "_") == ["a_"]
    assert split_word("한국", "separate") == ["한", "국", "</w>"]


def test_split_word_rejects_bad_input():
    with pytest.raises(ValueError, match="end_of_word"):
        split_word("low", "suffix")
    with pytest.raises(ValueError, match="empty"):
        split_word("")


def test_word_table_keeps_order_and_accepts_rows():
    assert word_table({"b": 1, "a": 2}, "none") == [(("b",), 1), (("a",), 2)]
    assert word_table([("ab", 3), ("c", 1)], "attached", "#") == [(("a", "b#"), 3), (("c#",), 1)]
    assert word_table({}) == []


# --- pair_counts --------------------------------------------------------------------------------


def test_pair_counts_weighted_and_in_first_occurrence_order():
    table = [(("a", "b", "c"), 2), (("c", "a", "b"), 5), (("b", "c"), 1)]
    counts = pair_counts(table)
    assert counts == {("a", "b"): 7, ("b", "c"): 3, ("c", "a"): 5}
    assert list(counts) == [("a", "b"), ("b", "c"), ("c", "a")]


def test_pair_counts_counts_every_adjacent_position():
    # "a a a" holds the pair (a, a) at two positions, even though a merge can take only one.
    assert pair_counts([(("a", "a", "a"), 3)]) == {("a", "a"): 6}
    assert pair_counts([(("x",), 9), ((), 1)]) == {}


# --- choose_pair --------------------------------------------------------------------------------


def test_choose_pair_rules_disagree_on_ties():
    # All tied; met first: (b, c); smallest: (a, b); greatest: (c, d).
    counts = pair_counts([(("b", "c"), 1), (("a", "b"), 1), (("c", "d"), 1)])
    assert choose_pair(counts, "first") == ("b", "c")
    assert choose_pair(counts, "lexicographic") == ("a", "b")
    assert choose_pair(counts, "subword-nmt") == ("c", "d")


def test_choose_pair_count_beats_every_tie_rule():
    counts = {("b", "c"): 1, ("z", "z"): 2, ("a", "b"): 1}
    for rule in TIE_BREAKS:
        assert choose_pair(counts, rule) == ("z", "z")


def test_choose_pair_compares_symbol_by_symbol_not_concatenated():
    # As strings "az" > "aba", but symbol by symbol ("a", ...) < ("ab", ...).
    counts = {("ab", "a"): 4, ("a", "z"): 4}
    assert choose_pair(counts, "lexicographic") == ("a", "z")
    assert choose_pair(counts, "subword-nmt") == ("ab", "a")
    # Code point order: "<" and "Z" come before "a".
    counts = {("a", "b"): 1, ("Z", "b"): 1, ("t", "</w>"): 1}
    assert choose_pair(counts, "lexicographic") == ("Z", "b")
    assert choose_pair(counts, "subword-nmt") == ("t", "</w>")


def test_choose_pair_rejects_bad_input():
    with pytest.raises(ValueError, match="tie_break"):
        choose_pair({("a", "b"): 1}, "random")
    with pytest.raises(ValueError, match="no pairs"):
        choose_pair({}, "first")


# --- merge_symbols and merge_pair ---------------------------------------------------------------


def test_merge_is_non_overlapping_left_to_right():
    assert merge_symbols(("a", "a"), ["a", "a", "a"]) == ["aa", "a"]
    assert merge_symbols(("a", "a"), ["a", "a", "a", "a"]) == ["aa", "aa"]
    assert merge_symbols(("a", "b"), ["a", "b", "c", "a", "b"]) == ["ab", "c", "ab"]
    assert merge_symbols(("a", "b"), ["b", "a"]) == ["b", "a"]
    assert merge_symbols(("a", "b"), []) == []


def test_merge_pair_keeps_counts_and_order():
    table = [(("l", "o", "w"), 5), (("o", "l"), 2), (("l", "o", "l", "o"), 1)]
    assert merge_pair(("l", "o"), table) == [(("lo", "w"), 5), (("o", "l"), 2), (("lo", "lo"), 1)]


# --- learn --------------------------------------------------------------------------------------


def test_learn_stops_when_no_pair_is_left():
    merges, final = learn(word_table({"ab": 1, "c": 4}, "none"), 5)
    assert merges == [("a", "b")]
    assert final == [(("ab",), 1), (("c",), 4)]


def test_learn_stops_below_min_frequency():
    table = word_table({"ab": 3, "cd": 2, "ef": 1}, "none")
    assert learn(table, 10, min_frequency=2)[0] == [("a", "b"), ("c", "d")]
    assert learn(table, 10, min_frequency=4)[0] == []
    assert learn(table, 10)[0] == [("a", "b"), ("c", "d"), ("e", "f")]


def test_learn_zero_merges_and_steps():
    table = word_table({"abab": 2})
    assert learn(table, 0) == ([], table)
    steps: list[Step] = []
    merges, final = learn(table, 2, "first", on_step=steps.append)
    assert merges == [("a", "b"), ("ab", "ab")]
    assert [step.index for step in steps] == [0, 1]
    assert steps[0].pair_counts == {("a", "b"): 4, ("b", "a"): 2, ("b", "</w>"): 2}
    assert (steps[0].best, steps[0].count) == (("a", "b"), 4)
    assert steps[0].table_after == [(("ab", "ab", "</w>"), 2)]
    assert steps[1].table_after == final == [(("abab", "</w>"), 2)]


def test_learn_tie_rule_changes_the_merges():
    # The classic example: (e, s), (s, t), (t, </w>) tie at 9; subword-nmt takes the greatest.
    table = word_table({"low": 5, "lower": 2, "newest": 6, "widest": 3})
    firsts = {rule: learn(table, 1, rule)[0][0] for rule in TIE_BREAKS}
    assert firsts == {
        "first": ("e", "s"),
        "lexicographic": ("e", "s"),
        "subword-nmt": ("t", "</w>"),
    }
    assert learn(table, 3, "lexicographic")[0] == [("e", "s"), ("es", "t"), ("est", "</w>")]


def test_learn_rejects_bad_arguments():
    table = word_table({"ab": 1})
    with pytest.raises(ValueError, match="tie_break"):
        learn(table, 1, "alphabetical")
    with pytest.raises(ValueError, match="num_merges"):
        learn(table, -1)
    with pytest.raises(ValueError, match="min_frequency"):
        learn(table, 1, min_frequency=0)


# --- apply --------------------------------------------------------------------------------------


def test_apply_takes_the_lowest_rank_not_the_leftmost_pair():
    assert apply(["a", "b", "c"], [("b", "c"), ("a", "b")]) == ["a", "bc"]
    assert apply(["a", "b", "c"], [("a", "b"), ("b", "c")]) == ["ab", "c"]


def test_apply_trace_merges_every_occurrence_at_once():
    trace: list = []
    merges = [("a", "b"), ("ab", "ab"), ("x", "y")]
    result = apply(["a", "b", "a", "b", "a"], merges, lambda *step: trace.append(step))
    assert result == ["abab", "a"]
    assert trace == [(0, ("a", "b"), ["ab", "ab", "a"]), (1, ("ab", "ab"), ["abab", "a"])]


def test_apply_without_applicable_merges():
    assert apply(["h", "i"], [("i", "h")]) == ["h", "i"]
    assert apply(["h"], [("h", "h")]) == ["h"]
    assert apply([], []) == []


def test_apply_repeated_merge_keeps_its_first_rank():
    trace: list = []
    apply(["a", "b", "c"], [("a", "b"), ("b", "c"), ("a", "b")], lambda *s: trace.append(s[0]))
    assert trace == [0]


def test_apply_does_not_modify_its_input():
    symbols = ["a", "b"]
    apply(symbols, [("a", "b")])
    assert symbols == ["a", "b"]


# --- properties ---------------------------------------------------------------------------------

# Words over a few letters, so that pairs repeat and ties are common. The end-of-word symbol
# is never spelled by the letters: when it can be (a one-character "\0" that also occurs in the
# words), two different merge paths can build the same symbol and `apply` may then segment a
# training word differently from training.
tables = st.dictionaries(
    st.text(alphabet="abcd", min_size=1, max_size=8),
    st.integers(min_value=1, max_value=5),
    min_size=1,
    max_size=6,
)


@settings(max_examples=300, deadline=None)
@given(
    counts=tables,
    end_of_word=st.sampled_from(END_OF_WORD),
    tie_break=st.sampled_from(TIE_BREAKS),
    num_merges=st.integers(min_value=0, max_value=30),
)
def test_learned_merges_resegment_the_training_words(counts, end_of_word, tie_break, num_merges):
    table = word_table(counts, end_of_word)
    steps: list[Step] = []
    merges, final = learn(table, num_merges, tie_break, on_step=steps.append)
    assert len(merges) <= num_merges
    for (initial, count), (symbols, final_count) in zip(table, final):
        assert count == final_count
        assert "".join(symbols) == "".join(initial)
        assert apply(list(initial), merges) == list(symbols)
    # The chosen pair is always a most frequent one, and that count never grows.
    for step in steps:
        assert step.count == step.pair_counts[step.best] == max(step.pair_counts.values())
    assert all(a.count >= b.count for a, b in zip(steps, steps[1:]))
