"""Long pieces of ranked byte-level models are cut where no token joins two bytes, and their
parts over 1024 bytes are encoded by backtracking (`src/algorithms/backtrack.rs`), the
shorter ones merged: tiktoken's ids for cl100k_base and o200k_base on hostile inputs (one
piece of thousands of bytes: one letter, random letters, spaces, line ends, emoji, digits, a
JSON line), and, for o200k_base, on every line and whole file of the shared corpora
(cl100k_base's are in test_tiktoken_identity.py). Megabyte pieces, where tiktoken takes
minutes, are compared with bpe-openai (an exact linear-time encoder)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from peers import CORPORA, corpus_lines, corpus_text, peer

import subword
from subword.formats import default_special_tokens
from subword.pre_tokenizers.patterns import PATTERNS

pytestmark = [pytest.mark.peer]


@pytest.fixture(scope="module", params=["cl100k", "o200k"])
def pair(
    request: pytest.FixtureRequest, cl100k_path: Path, o200k_path: Path
) -> tuple[subword.Tokenizer, Any, str]:
    """(ours, tiktoken's encoding, name) for one encoding."""
    name = request.param
    tiktoken = peer("tiktoken")
    from tiktoken.load import load_tiktoken_bpe

    path = cl100k_path if name == "cl100k" else o200k_path
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TIKTOKEN_CACHE_DIR", "")
        ranks = load_tiktoken_bpe(str(path))
    theirs = tiktoken.Encoding(
        f"{name}_base",
        pat_str=PATTERNS[name],
        mergeable_ranks=ranks,
        special_tokens=default_special_tokens(f"{name}_base"),
    )
    return subword.load_tiktoken(path, pre_tokenizer=name), theirs, name


def _hostile(rng: random.Random, n: int) -> dict[str, str]:
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    emoji = [chr(c) for c in range(0x1F300, 0x1F650)]
    record = {"id": 7, "name": "Zürich 日本 한국어 naïve", "v": [1.5, -2, None, True], "x": "y"}
    return {
        "one letter": "a" * n,
        "two letters": "ab" * (n // 2),
        "a run then b": "a" * n + "b",
        "random letters": "".join(rng.choice(letters) for _ in range(n)),
        "random lower": "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n)),
        "random upper": "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(n)),
        "dna": "".join(rng.choice("ACGT") for _ in range(n)),
        "digits": "".join(rng.choice("0123456789") for _ in range(n)),
        "spaces": " " * n,
        "spaces then a word": " " * n + "word",
        "newlines": "\n" * n,
        "crlf": "\r\n" * (n // 2),
        "tabs and spaces": "\t " * (n // 2),
        "emoji": "".join(rng.choice(emoji) for _ in range(n // 4)),
        "cjk": "".join(chr(rng.randrange(0x4E00, 0x9FFF)) for _ in range(n // 3)),
        "hangul": "".join(chr(rng.randrange(0xAC00, 0xD7A3)) for _ in range(n // 3)),
        "punctuation": "".join(rng.choice("!?.,;:-=+*/<>()[]{}") for _ in range(n)),
        "json": json.dumps([record] * (n // 60 + 1), separators=(",", ":")),
        "bytes of every kind": "".join(chr(rng.randrange(1, 0x800)) for _ in range(n // 2)),
    }


@pytest.mark.parametrize("n", [49, 200, 3_000, 20_000])
def test_hostile_pieces_match_tiktoken(pair: tuple, n: int) -> None:
    ours, theirs, name = pair
    for case, text in _hostile(random.Random(n), n).items():
        want = theirs.encode_ordinary(text)
        assert ours.encode_ordinary(text) == want, f"{name}, {case}, {n} characters"
        assert ours.encode_to_numpy(text, disallowed_special=()).tolist() == want
        assert ours.decode(want) == text


@settings(max_examples=150, deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from("aabbc xyzQ é한😀0\n'"), min_size=40, max_size=400),
    cut=st.integers(0, 400),
)
def test_long_pieces_of_few_characters_match_tiktoken(pair: tuple, text: str, cut: int) -> None:
    """Few distinct characters make long pieces full of overlapping tokens, where the
    search must backtrack."""
    ours, theirs, name = pair
    text = text.replace(" ", "") if cut % 2 else text
    assert ours.encode_ordinary(text) == theirs.encode_ordinary(text), name


@pytest.mark.corpus
@pytest.mark.parametrize("name", [*CORPORA, "code-c-headers.txt"])
def test_o200k_every_line_and_whole_file(pair: tuple, name: str) -> None:
    ours, theirs, encoding = pair
    if encoding != "o200k":
        pytest.skip("cl100k_base: test_tiktoken_identity.py")
    lines = corpus_lines(name)
    expected = theirs.encode_ordinary_batch(lines, num_threads=2)
    got = ours.encode_batch(lines)
    for i, (line, want, have) in enumerate(zip(lines, expected, got)):
        assert have == want, f"{name} line {i + 1}: {line!r}"
    text = corpus_text(name)
    whole = theirs.encode_ordinary(text)
    assert ours.encode_ordinary(text) == whole
    assert ours.encode_to_numpy(text).tolist() == whole
    # The flat batch (a large list on two threads is encoded while it is read).
    flat, offsets = ours.encode_batch_to_numpy(lines, num_threads=2)
    assert offsets[0] == 0 and offsets[-1] == len(flat) == sum(map(len, expected))
    for i in range(len(lines)):
        if flat[offsets[i] : offsets[i + 1]].tolist() != expected[i]:
            pytest.fail(f"{name} line {i + 1} in the flat batch: {lines[i]!r}")


def test_megabyte_pieces_match_bpe_openai(pair: tuple) -> None:
    """One piece of a megabyte, where tiktoken's quadratic merge takes minutes."""
    ours, _, name = pair
    bindings = pytest.importorskip("bpe_openai._bindings")
    exact = bindings.tokenizer_for_encoding(f"{name}_base")
    n = 1_000_000
    for case, text in _hostile(random.Random(5), n).items():
        if case in ("cjk", "hangul", "json", "bytes of every kind", "tabs and spaces"):
            continue  # many pieces: the small sizes above cover them against tiktoken
        want = exact.encode(text)
        assert ours.encode_to_numpy(text, disallowed_special=()).tolist() == want, case
