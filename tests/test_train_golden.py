"""The Rust trainer and encoder on the seeds' worked examples (shared/golden/seeds.json)."""

from __future__ import annotations

import subword


def _words(rows, eow):
    """Fixture rows ([symbols..., eow], count) back to {word: count}, in order."""
    table = {}
    for symbols, count in rows:
        assert symbols[-1] == eow
        table["".join(symbols[:-1])] = count
    return table


def test_classic_example_merges(golden):
    fx = golden["classic_low_lower_newest_widest"]
    tok = subword.train(
        _words(fx["input"], "</w>"),
        num_merges=fx["num_merges"],
        tie_break="first",
        min_frequency=1,
    )
    assert [list(m) for m in tok.merges] == fx["expected_merges"]


def test_classic_example_final_table_and_apply(golden):
    fx = golden["classic_low_lower_newest_widest"]
    tok = subword.train(
        _words(fx["input"], "</w>"), num_merges=10, tie_break="first", min_frequency=1
    )
    for symbols, _ in fx["expected_final"]:
        word = "".join(symbols).replace("</w>", "")
        assert tok.tokenize(word) == symbols
    alphabet = set(tok.alphabet)
    for word, expected in fx["apply"]["cases"].items():
        # Characters never seen in training are unknown: the seed shows them, we give <unk>.
        shown = [s if len(s) > 1 or s in alphabet else "<unk>" for s in expected]
        assert tok.tokenize(word) == shown, word
        if all(s != "<unk>" for s in shown):
            assert tok.decode(tok.encode(word)) == word


def test_classic_example_vocab_counts_alphabet_and_merges(golden):
    fx = golden["classic_low_lower_newest_widest"]
    tok = subword.train(
        _words(fx["input"], "</w>"), num_merges=10, tie_break="first", min_frequency=1
    )
    assert sorted(tok.alphabet) == sorted(set("lowernstid") | {"</w>"})
    assert tok.vocab_size == 1 + 11 + 10  # <unk>, alphabet, one token per merge
    assert tok.vocab["<unk>"] == 0


def test_korean_table_with_nul_end_symbol(golden):
    fx = golden["korean_morphemes_50_merges"]
    tok = subword.train(
        _words(fx["input"], "\0"),
        num_merges=fx["num_merges"],
        tie_break="first",
        end_of_word_symbol="\0",
        min_frequency=1,
    )
    assert [list(m) for m in tok.merges] == fx["expected_merges"]
    for symbols, _ in fx["expected_final"]:
        assert tok.tokenize("".join(symbols).rstrip("\0")) == symbols


def test_sentence_table_lexicographic_to_vocab_size_12(golden):
    fx = golden["sentences_vocab_size_12"]
    texts = (sentence for sentence, times in fx["sentences"] for _ in range(times))
    tok = subword.train(
        texts,
        vocab_size=fx["vocab_size"],
        end_of_word="none",
        tie_break="lexicographic",
        unk_token=None,
        unknown="error",
        min_frequency=1,
    )
    assert dict(tok.training) and tok.training["words"] == len(fx["expected_word_counts"])
    assert sorted(tok.alphabet) == fx["initial_vocab"]
    assert [list(m) for m in tok.merges] == fx["expected_merges"]
    assert [t for t in tok.vocab if t not in fx["initial_vocab"]] == fx["expected_new_tokens"]
