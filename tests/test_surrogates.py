"""Strings holding lone surrogates (no UTF-8 form) encode as tiktoken encodes them: through
UTF-16 with surrogatepass, each lone surrogate replaced by U+FFFD."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import subword

SURROGATE_TEXTS = [
    "x\ud800y",
    "\udfff",
    "a\ud83d\ude00b",  # a pair written as two code units: joins into one character
    "\ud83d",  # a lone high surrogate
    "end \udc00",
    "<|endoftext|>\ud800",
]


@pytest.fixture(scope="module")
def cl100k(cl100k_path):
    return subword.load_tiktoken(cl100k_path)


@pytest.mark.parametrize("text", SURROGATE_TEXTS)
def test_lone_surrogates_match_tiktoken(cl100k, cl100k_encoding, text: str) -> None:
    expected = cl100k_encoding.encode(text, disallowed_special=())
    assert cl100k.encode(text, disallowed_special=()) == expected
    assert cl100k.encode_ordinary(text) == cl100k_encoding.encode_ordinary(text)
    assert cl100k.encode_to_numpy(text, disallowed_special=()).tolist() == expected
    assert cl100k.encode_batch([text, "ok"], disallowed_special=()) == [
        expected,
        cl100k_encoding.encode("ok"),
    ]
    ids, offsets = cl100k.encode_batch_to_numpy([text], disallowed_special=())
    assert ids.tolist() == expected and offsets.tolist() == [0, len(expected)]


@settings(max_examples=150, deadline=None)
@given(st.text(st.characters(codec=None, exclude_categories=()), max_size=30))
def test_any_code_points_match_tiktoken(cl100k, cl100k_encoding, text: str) -> None:
    assert cl100k.encode_ordinary(text) == cl100k_encoding.encode_ordinary(text)


def test_classic_models_replace_lone_surrogates() -> None:
    tok = subword.train({"ab": 3, "a": 1}, num_merges=2, min_frequency=1)
    assert tok.encode("ab \ud800") == tok.encode("ab \ufffd")
