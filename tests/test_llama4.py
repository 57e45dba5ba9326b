"""Llama 4's `tokenizer.model` (from the PyPI package llama-models): identical ids to the
reference — tiktoken built with Llama 4's own regex, 200,000 ranks and 2048 special tokens, as
`llama_models/llama4/tokenizer.py` builds it — on every line and whole file of the shared
corpora, with special tokens allowed and refused; `subword.load` detects the file."""

from __future__ import annotations

from pathlib import Path

import pytest
from peers import CORPORA, assert_same_as_tiktoken, llama_models_file

import subword
from subword.pre_tokenizers.patterns import PATTERNS

pytestmark = [pytest.mark.peer]


@pytest.fixture(scope="module")
def llama4_path() -> Path:
    return llama_models_file("llama4")


@pytest.fixture(scope="module")
def reference(llama4_path):
    from llama_models.llama4.tokenizer import Tokenizer

    return Tokenizer(llama4_path)


@pytest.fixture(scope="module")
def ours(llama4_path):
    return subword.load_llama4(llama4_path)


def test_regex_and_specials_are_llama4s(reference, ours) -> None:
    assert type(reference).O200K_PATTERN == PATTERNS["o200k"]
    assert ours.special_tokens == reference.special_tokens
    assert ours.vocab_size == reference.model.n_vocab == 202_048


def test_load_detects_llama4(llama4_path, ours) -> None:
    loaded = subword.load(llama4_path)
    assert loaded.special_tokens == ours.special_tokens
    assert loaded.config.pre_tokenizer == "o200k"


@pytest.mark.corpus
@pytest.mark.parametrize("name", [*CORPORA, "code-c-headers.txt"])
def test_every_line_and_whole_file(reference, ours, name) -> None:
    assert_same_as_tiktoken(reference.model, ours, name)


def test_special_tokens_allowed_and_refused(reference, ours) -> None:
    model = reference.model
    text = "<|begin_of_text|><|header_start|>user<|header_end|>\n\nHi!<|eot|><|patch|>"
    assert ours.encode(text, allowed_special="all") == model.encode(text, allowed_special="all")
    assert ours.encode(text, disallowed_special=()) == model.encode(text, disallowed_special=())
    with pytest.raises(ValueError, match="special token"):
        ours.encode(text)
    ids = model.encode(text, allowed_special="all")
    assert ours.decode(ids) == model.decode(ids)
