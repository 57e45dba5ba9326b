"""Vocabulary health (`subword.lab.health`): known answers on small made-up vocabularies of
each model kind, agreement with a plain-Python rank BPE on cl100k, and the unreachable counts
of cl100k and o200k the README reports."""

from __future__ import annotations

import base64
import random
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from peers import missing

import subword
from subword.config import ModelSpec, TokenizerConfig
from subword.formats.bytes_unicode import bytes_to_token
from subword.lab import health
from subword.lab.models import load_model
from subword.teaching import reference
from subword.tokenizer import Tokenizer


def names(tok: Tokenizer, ids: list[int]) -> list[str]:
    return sorted(tok.id_to_token(i) or "" for i in ids)


def tiktoken_file(folder: Path, extra: list[bytes]) -> Path:
    """A made-up `.tiktoken` file: the 256 bytes, then `extra` in rank order."""
    path = folder / "made_up.tiktoken"
    tokens = [bytes([b]) for b in range(256)] + extra
    lines = (f"{base64.b64encode(t).decode()} {rank}\n" for rank, t in enumerate(tokens))
    path.write_text("".join(lines), encoding="ascii")
    return path


def test_classic_known_answer() -> None:
    # "bc" is merged before "ab", so "abc" splits a|bc and the merge (ab, c) never applies:
    # "abc" and "abc</w>" are unreachable; every other token is built.
    config = TokenizerConfig(kind="classic", end_of_word="separate")
    vocab = {"<unk>": 0, "a": 1, "b": 2, "c": 3, "</w>": 4, "bc": 5, "ab": 6, "abc": 7}
    vocab["abc</w>"] = 8
    merges = [("b", "c"), ("a", "b"), ("ab", "c"), ("abc", "</w>")]
    tok = Tokenizer(ModelSpec(config, vocab, merges, {}))
    assert tok.tokenize("abc") == ["a", "bc", "</w>"]
    result = health.check(tok)
    assert names(tok, result.unreachable) == ["abc", "abc</w>"]
    assert result.split_alone == []
    assert result.checked == 8  # the unknown token is not checked


def test_classic_trained_model_has_none() -> None:
    tok = subword.train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=10)
    assert health.check(tok).unreachable == []


def test_attached_end_of_word_known_answer() -> None:
    # subword-nmt/CLIP style: the mark is glued to the last symbol. In "a b c</w>" the merge
    # (b, c</w>) ranks first, and then (ab, c</w>) can never apply: "abc</w>" is unreachable.
    config = TokenizerConfig(kind="classic", end_of_word="attached")
    vocab = {"<unk>": 0, "a": 1, "b": 2, "c": 3, "a</w>": 4, "b</w>": 5, "c</w>": 6}
    vocab.update({"bc</w>": 7, "ab": 8, "abc</w>": 9})
    merges = [("b", "c</w>"), ("a", "b"), ("ab", "c</w>")]
    tok = Tokenizer(ModelSpec(config, vocab, merges, {}))
    assert tok.tokenize("abc") == ["a", "bc</w>"]
    assert tok.tokenize("abb") == ["ab", "b</w>"]
    result = health.check(tok)
    assert names(tok, result.unreachable) == ["abc</w>"]


def test_tiktoken_known_answers(tmp_path: Path) -> None:
    # Ranks: bc < ab < cd < abcd. In "abcd" the pair b c merges first, and then neither
    # a+bc nor bc+d is a token: the merges never build "abcd".
    path = tiktoken_file(tmp_path, [b"bc", b"ab", b"cd", b"abcd", b"\xe4\xb8"])
    tok = subword.load_tiktoken(path)
    assert tok.config.ignore_merges and tok.config.merge_rule == "ranks"
    # tiktoken takes a pre-token that is itself a token whole: "abcd" is reachable...
    assert tok.encode("abcd") == [259]
    result = health.check(tok)
    assert result.unreachable == []
    # ...but without that rule it is not.
    spec = tok.spec
    strict = Tokenizer(
        ModelSpec(replace(spec.config, ignore_merges=False), dict(spec.vocab), spec.merges, {})
    )
    assert strict.tokenize("abcd") == ["a", "bc", "d"]
    result = health.check(strict)
    assert names(strict, result.unreachable) == ["abcd"]
    # b"\xe4\xb8" (two bytes of 丐..丿) has no text of its own; the merges build it.
    assert strict.token_to_id(bytes_to_token(b"\xe4\xb8")) not in result.split_alone


def test_tiktoken_unreachable_partial_character(tmp_path: Path) -> None:
    # Bytes that are no text (the end of one 4-byte character and the start of the next)
    # come only from merges. Here 96 f0 ranks first, and then neither a4+96f0 nor 96f0+9f is
    # a token: a4 96 f0 9f is never built, while the parts of a character alone are.
    path = tiktoken_file(tmp_path, [b"\x96\xf0", b"\xa4\x96", b"\xf0\x9f", b"\xa4\x96\xf0\x9f"])
    tok = subword.load_tiktoken(path)
    # 🤖🤖 is f0 9f a4 96 f0 9f a4 96: the a4 96 f0 9f in its middle never comes together.
    assert tok.encode("\U0001f916\U0001f916") == [258, 0xA4, 256, 0x9F, 257]
    result = health.check(tok)
    assert names(tok, result.unreachable) == [bytes_to_token(b"\xa4\x96\xf0\x9f")]
    assert result.split_alone == []  # no token here has a text of its own but single bytes


def test_pre_tokenizer_split_is_reported(tmp_path: Path) -> None:
    # cl100k's pre-tokenizer cuts digits in threes: a made-up token "1234" is built by the
    # merges but its own text never comes as one piece.
    path = tiktoken_file(tmp_path, [b"12", b"34", b"1234"])
    tok = subword.load_tiktoken(path)
    result = health.check(tok)
    assert names(tok, result.split_alone) == ["1234"]
    assert result.unreachable == []


def _rank_bpe(ranks: dict[bytes, int], piece: bytes) -> list[bytes]:
    """Plain rank BPE (tiktoken's rule, no whole-piece shortcut)."""
    parts = [piece[i : i + 1] for i in range(len(piece))]
    while len(parts) > 1:
        found = [
            (ranks[a + b], i) for i, (a, b) in enumerate(zip(parts, parts[1:])) if a + b in ranks
        ]
        if not found:
            break
        _, i = min(found)
        parts[i : i + 2] = [parts[i] + parts[i + 1]]
    return parts


def test_cl100k_merges_check_agrees_with_plain_rank_bpe(cl100k_path: Path) -> None:
    tok = load_model("cl100k")
    ranks = {tok.decode_bytes([i]): i for i in tok.spec.vocab.values()}
    sample = random.Random(13).sample(sorted(tok.spec.vocab.items()), 3000)
    built = health._built_by_merges(tok, sample)
    for (token, id_), ok in zip(sample, built):
        raw = tok.decode_bytes([id_])
        assert ok == (_rank_bpe(ranks, raw) == [raw]), token


def _o200k() -> Tokenizer:
    try:
        return load_model("o200k")
    except Exception as exc:  # noqa: BLE001 - the reason is shown
        missing(f"o200k not available: {exc}")
        raise


@pytest.mark.slow
def test_cl100k_and_o200k_figures(cl100k_path: Path) -> None:
    # The figures the README reports (a run of `health.check`).
    cl100k = health.check(load_model("cl100k"))
    assert (cl100k.checked, len(cl100k.unreachable), len(cl100k.split_alone)) == (100256, 0, 0)
    o200k = health.check(_o200k())
    assert (o200k.checked, len(o200k.unreachable), len(o200k.split_alone)) == (199998, 0, 12)


def test_unused_ids() -> None:
    tok = subword.train({"low": 5, "lower": 2}, num_merges=3, special_tokens=["<s>"])
    used = set(tok.encode("low"))
    never = health.unused(tok, used)
    assert tok.special_tokens["<s>"] not in never
    assert set(never) == set(tok.spec.vocab.values()) - used - {tok.special_tokens["<s>"]}


WORDS = st.dictionaries(
    st.text(alphabet="abcde", min_size=1, max_size=6), st.integers(1, 9), min_size=1, max_size=8
)


@settings(max_examples=60, deadline=None)
@given(WORDS, st.sampled_from(["first", "lexicographic", "subword-nmt"]), st.integers(0, 12))
def test_trained_models_have_no_unreachable_token(words, tie_break: str, num_merges: int) -> None:
    # Every merged token of a trained model was built on some training word, and encoding
    # re-segments the training words as training left them: none can be unreachable.
    tok = subword.train(words, num_merges=num_merges, tie_break=tie_break, min_frequency=1)
    assert health.check(tok).unreachable == []


@settings(max_examples=60, deadline=None)
@given(WORDS, st.randoms(use_true_random=False), st.sampled_from(["separate", "attached"]))
def test_merges_check_equals_the_reference(words, rng, end_of_word: str) -> None:
    # Shuffled merges leave some tokens unbuildable: the core's check must say which,
    # exactly as the pure-Python reference applies merges to each token's own symbols.
    trained = subword.train(words, num_merges=12, min_frequency=1, end_of_word=end_of_word)
    merges = trained.merges
    rng.shuffle(merges)
    spec = trained.spec
    tok = Tokenizer(ModelSpec(spec.config, dict(spec.vocab), merges, {}))
    mark = "</w>"
    entries = health.checked_entries(tok)
    built = health._built_by_merges(tok, entries)
    for (token, _), ok in zip(entries, built):
        if token == mark:
            expected = True
        elif token.endswith(mark):
            symbols = reference.split_word(token[: -len(mark)], end_of_word, mark)
            expected = reference.apply(symbols, merges) == [token]
        else:
            expected = reference.apply(list(token), merges) == [token]
        assert ok == expected, (token, merges)
    result = health.check(tok)
    for token, id_ in entries:
        whole = token.endswith(mark) and token != mark and tok.encode(token[:-4]) == [id_]
        expect_unreachable = not built[entries.index((token, id_))] and not whole
        assert (id_ in result.unreachable) == expect_unreachable, token
