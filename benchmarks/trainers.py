"""The byte-level training contestants, one function per library. Each trains on one file to
one vocabulary size with every core (the libraries' own defaults for threads) and returns
the size of the vocabulary it produced. The suite runs each in its own process, so the peak
RSS it reads for that process belongs to that one training run.

They do not all train the same thing: HF, bpeasy, rustbpe and subword split with the cl100k
regex and merge bytes; gigatoken uses its own built-in pre-tokenizer; sentencepiece is not
byte-level (it merges characters of whitespace-delimited sentences). The table says so.
"""

from __future__ import annotations

import importlib
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from benchmarks import vocabs
from benchmarks.timing import current_rss_mb, vm_hwm_mb
from benchmarks.vocabs import Unavailable


def _lines(path: str) -> Iterator[str]:
    with open(path, encoding="utf-8") as f:
        yield from f


def _subword(path: str, vocab_size: int, threads: int) -> int:
    try:
        import subword
    except ImportError as e:
        raise Unavailable(f"subword is not installed: {e}") from e
    tok = subword.train(
        [path], kind="byte", pre_tokenizer="cl100k", vocab_size=vocab_size, show_progress=False
    )
    return len(tok.vocab) + len(getattr(tok, "special_tokens", {}) or {})


def _hf(path: str, vocab_size: int, threads: int) -> int:
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(vocabs.PATTERN_ONIGURUMA), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=[],
    )
    tok.train([path], trainer)
    return tok.get_vocab_size()


def _sentencepiece(path: str, vocab_size: int, threads: int) -> int:
    import sentencepiece as spm

    with tempfile.TemporaryDirectory() as tmp:
        spm.SentencePieceTrainer.train(
            input=path,
            model_prefix=os.path.join(tmp, "spm"),
            vocab_size=vocab_size,
            model_type="bpe",
            input_sentence_size=100_000_000,
            shuffle_input_sentence=False,
            max_sentence_length=1 << 16,
            num_threads=threads,
            minloglevel=2,
        )
        proc = spm.SentencePieceProcessor(model_file=os.path.join(tmp, "spm.model"))
        return proc.get_piece_size()


def _bpeasy(path: str, vocab_size: int, threads: int) -> int:
    import bpeasy

    vocab = bpeasy.train_bpe(_lines(path), vocabs.PATTERN, 128, vocab_size)
    return len(vocab)


def _rustbpe(path: str, vocab_size: int, threads: int) -> int:
    import rustbpe

    tok = rustbpe.Tokenizer()
    tok.train_from_iterator(_lines(path), vocab_size, pattern=vocabs.PATTERN)
    return tok.vocab_size


def _gigatoken(path: str, vocab_size: int, threads: int) -> int:
    import gigatoken

    vocab, _merges = gigatoken.train_bpe(path, vocab_size, [])
    return len(vocab)


@dataclass
class Trainer:
    dists: tuple[str, ...]  # PyPI distributions whose versions are reported
    modules: tuple[str, ...]  # imported before the clock starts
    train: Callable[[str, int, int], int]
    how: str  # what is called, for the tables


TRAINERS: dict[str, Trainer] = {
    "subword": Trainer(
        ("subword",), ("subword",), _subword, "train(kind='byte', pre_tokenizer='cl100k')"
    ),
    "tokenizers": Trainer(
        ("tokenizers",), ("tokenizers",), _hf, "BpeTrainer, cl100k Split + ByteLevel"
    ),
    "sentencepiece": Trainer(
        ("sentencepiece",),
        ("sentencepiece",),
        _sentencepiece,
        "model_type='bpe' (characters, not bytes; its own whitespace handling)",
    ),
    "bpeasy": Trainer(
        ("bpeasy",), ("bpeasy",), _bpeasy, "train_bpe(lines, cl100k regex, max_token_length=128)"
    ),
    "rustbpe": Trainer(
        ("rustbpe",), ("rustbpe",), _rustbpe, "train_from_iterator(lines, pattern=cl100k regex)"
    ),
    "gigatoken": Trainer(
        ("gigatoken",), ("gigatoken",), _gigatoken, "train_bpe(path), its built-in pre-tokenizer"
    ),
}


def run_train(job: dict, record: Callable[..., None]) -> None:
    """Worker side of one training run: import, note the RSS, train, report."""
    name = job["peer"]
    trainer = TRAINERS[name]
    base = dict(type="train", peer=name, input=job["input"], vocab_size=job["vocab_size"])
    try:
        for module in trainer.modules:
            importlib.import_module(module)
        rss_before = current_rss_mb()
        t0 = time.perf_counter()
        got = trainer.train(job["path"], job["vocab_size"], job["threads"])
    except Unavailable as e:
        record(**base, error=f"not available: {e}")
        return
    except ImportError as e:
        record(**base, error=f"not installed: {e}")
        return
    except Exception as e:  # a failed run is a result for its cell
        msg = str(e).splitlines()[0] if str(e) else ""
        record(**base, error=f"{type(e).__name__}: {msg}"[:300])
        return
    seconds = time.perf_counter() - t0
    record(
        **base,
        seconds=seconds,
        got_vocab=got,
        rss_before_mb=rss_before,
        peak_rss_self_mb=vm_hwm_mb(),
    )
