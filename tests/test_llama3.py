"""Llama 3's `tokenizer.model` (from the PyPI package llama-models): identical ids to the
reference — tiktoken built with Llama 3's own regex, ranks and 256 special tokens, as
`llama_models/llama3/tokenizer.py` builds it — on every line and whole file of the shared
corpora, with special tokens allowed and refused, and on arbitrary text; `subword.load`
detects the file; the `llama3` pre-tokenizer equals Llama 3's regex."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from peers import CORPORA, assert_same_as_tiktoken, llama_models_file

import subword
from subword.pre_tokenizers.patterns import PATTERNS

pytestmark = [pytest.mark.peer]


@pytest.fixture(scope="module")
def llama3_path() -> Path:
    return llama_models_file("llama3")


@pytest.fixture(scope="module")
def reference(llama3_path):
    """Llama 3's own tokenizer class (it only wraps tiktoken with its regex and specials)."""
    from llama_models.llama3.tokenizer import Tokenizer

    return Tokenizer(llama3_path)


@pytest.fixture(scope="module")
def ours(llama3_path):
    return subword.load_llama3(llama3_path)


def test_regex_and_specials_are_llama3s(reference, ours) -> None:
    assert type(reference).pat_str == PATTERNS["llama3"]
    assert ours.special_tokens == reference.special_tokens
    assert ours.config.pre_tokenizer == "llama3"
    assert ours.vocab_size == reference.model.n_vocab == 128_256


def test_load_detects_llama3(llama3_path, ours) -> None:
    loaded = subword.load(llama3_path)
    assert loaded.special_tokens == ours.special_tokens
    assert loaded.config.pre_tokenizer == "llama3"


@pytest.mark.corpus
@pytest.mark.parametrize("name", [*CORPORA, "code-c-headers.txt"])
def test_every_line_and_whole_file(reference, ours, name) -> None:
    assert_same_as_tiktoken(reference.model, ours, name)


def test_special_tokens_allowed_and_refused(reference, ours) -> None:
    model = reference.model
    text = "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi!<|eot_id|>"
    assert ours.encode(text, allowed_special="all") == model.encode(text, allowed_special="all")
    assert ours.encode(text, disallowed_special=()) == model.encode(text, disallowed_special=())
    with pytest.raises(ValueError, match="special token"):
        ours.encode(text)
    ids = model.encode(text, allowed_special="all")
    assert ours.decode(ids) == model.decode(ids) == text


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.text(alphabet=st.sampled_from(" \t\n\r\x0ba1'sTé한🙂.,!?0\u00a0"), max_size=60))
@example("abc  \n  ")  # the one place Llama 3's regex and tiktoken's cl100k differ
@example("I'M here\n\n  ")
def test_arbitrary_text(reference, ours, text) -> None:
    assert ours.encode_ordinary(text) == reference.model.encode_ordinary(text)
