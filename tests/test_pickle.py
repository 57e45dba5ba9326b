"""Tokenizers pickle small (their model file's text, compressed) and come back giving the
same ids: in this process, and in worker processes started by fork and by spawn."""

from __future__ import annotations

import multiprocessing
import pickle

import pytest

import subword
from subword.tokenizer import Tokenizer

TEXTS = [
    "the lowest newer widest",
    "Ünïcödé — 한국어 텍스트, emoji 🙂 and\ttabs",
    "",
    "x" * 300,
]
WORDS = {"low": 5, "lower": 2, "newest": 6, "widest": 3, "Ünïcödé": 2}


def _models() -> dict[str, Tokenizer]:
    return {
        "classic": subword.train(WORDS, num_merges=10, tie_break="first", min_frequency=1),
        "attached": subword.train(WORDS, num_merges=10, end_of_word="attached", min_frequency=1),
        "greedy": subword.train(WORDS, num_merges=10, algorithm="greedy", min_frequency=1),
        "byte": subword.train(
            iter(TEXTS * 3),
            kind="byte",
            pre_tokenizer="cl100k",
            num_merges=30,
            min_frequency=1,
            special_tokens=["<|end|>"],
        ),
    }


def _encode_all(tok: Tokenizer) -> list[list[int]]:
    return [tok.encode(t) for t in TEXTS]


@pytest.mark.parametrize("name", ["classic", "attached", "greedy", "byte"])
def test_round_trip_in_process(name: str) -> None:
    tok = _models()[name]
    back = pickle.loads(pickle.dumps(tok))
    assert type(back) is type(tok)
    assert back.spec == tok.spec and back.training == tok.training
    assert _encode_all(back) == _encode_all(tok)
    assert back.decode(back.encode(TEXTS[0])) == tok.decode(tok.encode(TEXTS[0]))


def test_cl100k_pickles_small_and_identical(cl100k_path) -> None:
    tok = subword.load_tiktoken(cl100k_path)
    data = pickle.dumps(tok)
    # The .tiktoken file is 1.7 MB; the pickle carries it compressed.
    assert len(data) < 1_200_000
    back = pickle.loads(data)
    text = "Hello world <|endoftext|> again"
    assert back.encode(text, allowed_special="all") == tok.encode(text, allowed_special="all")
    assert back.special_tokens == tok.special_tokens
    assert back.config == tok.config
    # The plain data, made on demand, is the same on both sides.
    assert back.spec == tok.spec == subword.formats.read_tiktoken(cl100k_path)


def _batch_in_child(texts: list[str]) -> tuple[list[list[int]], list[tuple[str, str]]]:
    trained = subword.train(iter(texts), num_merges=5, min_frequency=1)
    on_one_thread = _TOKENIZER_FOR_FORK.encode_batch(texts, num_threads=1)
    assert on_one_thread == _TOKENIZER_FOR_FORK.encode_batch(texts)
    assert on_one_thread == _TOKENIZER_FOR_FORK.encode_batch(texts, num_threads=2)
    return on_one_thread, trained.merges


_TOKENIZER_FOR_FORK = subword.train(WORDS, num_merges=10, min_frequency=1)


def test_batches_in_a_child_forked_after_the_parent_used_threads() -> None:
    """Pools have no threads in a forked child; parallel work there must not hang."""
    # 144 kB: past the size a batch shares with helper threads.
    texts = ["the lowest newer widest"] * 6000
    # These start the helpers of a team of one thread per core and of two, and training
    # starts rayon's global pool.
    expected = _TOKENIZER_FOR_FORK.encode_batch(texts)
    assert _TOKENIZER_FOR_FORK.encode_batch(texts, num_threads=2) == expected
    assert _TOKENIZER_FOR_FORK.encode_batch(texts, num_threads=1) == expected
    merges = subword.train(iter(texts), num_merges=5, min_frequency=1).merges
    context = multiprocessing.get_context("fork")
    with context.Pool(1) as pool:
        result = pool.apply_async(_batch_in_child, (texts,)).get(timeout=60)
    assert result == (expected, merges)


def test_clip_pickles_as_clip(clip_spec) -> None:
    from subword.clip import ClipTokenizer

    tok = ClipTokenizer(clip_spec)
    back = pickle.loads(pickle.dumps(tok))
    assert isinstance(back, ClipTokenizer)
    assert back.encode("A photo of a CAT!") == tok.encode("A photo of a CAT!")


def _worker(payload: bytes) -> list[list[int]]:
    return _encode_all(pickle.loads(payload))


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_same_ids_in_worker_processes(method: str) -> None:
    models = _models()
    expected = {name: _encode_all(tok) for name, tok in models.items()}
    context = multiprocessing.get_context(method)
    with context.Pool(2) as pool:
        # The pool pickles each tokenizer to send it to a worker.
        results = pool.map(_encode_all, list(models.values()), chunksize=1)
    assert dict(zip(models, results)) == expected
