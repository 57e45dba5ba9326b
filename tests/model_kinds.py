"""Small models of every kind the `Tokenizer` supports, trained on a few sentences in several
scripts, for the tests of the everyday calls (offsets, streaming decode, counting). Built once
per process; no corpus or peer needed."""

from __future__ import annotations

from functools import cache

import subword
from subword import Tokenizer

TEXTS = [
    "The quick brown fox jumps over the lazy dog. THE DOG SLEEPS!",
    "Grüße aus Köln: Straße, Ärger, Öl — naïve café déjà vu.",
    "한국어 문장은 띄어쓰기를 합니다. 대한민국 헌법 제1조.",
    "Emoji 🎉🎉 and symbols ∑ ≠ ≈ ½ ﬁ ① — ΟΔΟΣ Σίσυφος.",
    "def f(x):\n    return x ** 2  # tabs\tand\r\nnew lines",
    "日本語のテキストも少し。中文也有一点。",
] * 3
SPECIAL = "<|sep|>"


@cache
def models() -> dict[str, Tokenizer]:
    """Name → model. Names say what is special about each."""
    train = subword.train
    out = {
        "byte": train(iter(TEXTS), kind="byte", num_merges=120, special_tokens=[SPECIAL]),
        "byte-nfkc-lower": train(
            iter(TEXTS), kind="byte", num_merges=80, normalization="nfkc", lowercase=True
        ),
        "classic-separate": train(iter(TEXTS), num_merges=120, special_tokens=[SPECIAL]),
        "classic-attached": train(iter(TEXTS), num_merges=120, end_of_word="attached"),
        "classic-nfd-lower": train(iter(TEXTS), num_merges=80, normalization="nfd", lowercase=True),
        "classic-jamo": train(iter(TEXTS), num_merges=80, normalization="jamo"),
        "classic-regex": train(iter(TEXTS), num_merges=80, pre_tokenizer="gpt2"),
        "greedy": train(iter(TEXTS), num_merges=120, algorithm="greedy"),
    }
    return out


def kinds() -> list[str]:
    return list(models())
