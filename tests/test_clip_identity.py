"""Identical ids to OpenAI CLIP's tokenizer (clip-anytorch's `simple_tokenizer`, loaded by
path without torch) on every line of the shared corpora, and identical `tokenize` arrays."""

from __future__ import annotations

import multiprocessing

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from peers import CORPORA, classes_changed_since_python_unicode, corpus_lines

import subword
from subword.clip import tokenize

pytestmark = [pytest.mark.peer]

_oracle = None


def _init_oracle(vocab: str, module_path: str) -> None:
    global _oracle
    import importlib.util

    spec = importlib.util.spec_from_file_location("clip_simple_tokenizer", module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _oracle = module.SimpleTokenizer(vocab)


def _oracle_encode(lines: list[str]) -> list[list[int]]:
    return [_oracle.encode(line) for line in lines]


def clip_reference_tokenize(simple, texts, context_length=77, truncate=False):
    """clip/clip.py's `tokenize` (which imports torch) restated on the simple tokenizer:
    sot + encode + eot, zero padding, truncation keeping eot last, RuntimeError else."""
    sot, eot = simple.encoder["<|startoftext|>"], simple.encoder["<|endoftext|>"]
    result = np.zeros((len(texts), context_length), dtype=np.int64)
    for i, text in enumerate(texts):
        tokens = [sot, *simple.encode(text), eot]
        if len(tokens) > context_length:
            if not truncate:
                raise RuntimeError(f"Input {text} is too long for context length {context_length}")
            tokens = tokens[:context_length]
            tokens[-1] = eot
        result[i, : len(tokens)] = tokens
    return result


@pytest.fixture(scope="module")
def ours(clip_simple):
    return subword.load_clip()


@pytest.fixture(scope="module")
def oracle_pool(clip_simple):
    from subword.formats import find_clip_vocab

    vocab = find_clip_vocab()
    context = multiprocessing.get_context("fork")
    with context.Pool(
        2, _init_oracle, (str(vocab), str(vocab.parent / "simple_tokenizer.py"))
    ) as pool:
        yield pool


@pytest.mark.corpus
@pytest.mark.slow
@pytest.mark.parametrize("name", CORPORA)
def test_every_line(ours, oracle_pool, name):
    lines = corpus_lines(name)
    chunks = [lines[i : i + 2000] for i in range(0, len(lines), 2000)]
    expected = [ids for chunk in oracle_pool.map(_oracle_encode, chunks) for ids in chunk]
    got = ours.encode_batch(lines)
    for i, (line, want, have) in enumerate(zip(lines, expected, got)):
        assert have == want, f"{name} line {i + 1}: {line!r}"


TRICKY = [
    "a photo of a cat",
    "A Photo OF a CAT &amp; &lt;dog&gt;",
    "<|startoftext|>hello<|endoftext|>",
    "!<|endoftext|> and 'ſ 's",
    "schÃ¶n mojibake",
    "  many   spaces\t\tand\nnewlines  ",
    "emoji 👍🏽 🏳️‍🌈 日本語 한국어",
    "",
]


def test_tricky_texts(ours, clip_tokenizer):
    for text in TRICKY:
        assert ours.encode(text) == clip_tokenizer.encode(text), text


@pytest.mark.corpus
def test_tokenize_arrays(ours, clip_tokenizer):
    lines = [line for line in corpus_lines("en-large.txt")[:40000] if line.strip()]
    long = [line for line in lines if len(clip_tokenizer.encode(line)) > 75][:50]
    short = [line for line in lines if len(clip_tokenizer.encode(line)) <= 75][:200]
    assert len(long) == 50 and len(short) == 200
    batch = short + long + TRICKY
    for context_length in (77, 16):
        want = clip_reference_tokenize(clip_tokenizer, batch, context_length, truncate=True)
        got = tokenize(batch, context_length, truncate=True, tokenizer=ours)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.array_equal(got, want)
    want = clip_reference_tokenize(clip_tokenizer, short)
    assert np.array_equal(tokenize(short, tokenizer=ours), want)
    assert np.array_equal(tokenize(short[0], tokenizer=ours), want[:1])
    with pytest.raises(RuntimeError, match="is too long for context length 77"):
        tokenize(short + long[:1], tokenizer=ours)
    with pytest.raises(RuntimeError) as theirs:
        clip_reference_tokenize(clip_tokenizer, long[:1])
    with pytest.raises(RuntimeError) as mine:
        tokenize(long[:1], tokenizer=ours)
    assert str(mine.value) == str(theirs.value)


def test_decode(ours, clip_tokenizer):
    for text in TRICKY[:3] + ["hello world, again"]:
        ids = clip_tokenizer.encode(text)
        assert ours.decode(ids) == clip_tokenizer.decode(ids)


def test_long_words_are_cut_where_no_token_joins(ours, clip_tokenizer):
    """Words longer than the linear merge's limit are cut between bytes no token joins;
    CLIP's end-of-word stays on the last part, and the ids stay CLIP's."""
    import random

    rng = random.Random(3)
    for n in (49, 60, 300, 3000):
        for alphabet in ("abcdefghijklmnopqrstuvwxyz", "qxzjkv", "éßøü한"):
            word = "".join(rng.choice(alphabet) for _ in range(n))
            text = f"{word} and {word[: n // 2]}"
            assert ours.encode(text) == clip_tokenizer.encode(text), (n, alphabet)


# --- Unicode: CLIP's reference splits with the `regex` module, whose Unicode version is
# newer than the Rust regex tables; the `clip` pre-tokenizer follows the `regex` module.


def test_code_points_assigned_in_newer_unicode_match_clip(ours, clip_tokenizer):
    changed = classes_changed_since_python_unicode()
    assert len(changed) > 1000  # the check has something to check
    texts = [f"a{c}b 1{c}2 !{c}! {c}{c}'s" for c in changed]
    for start in range(0, len(texts), 500):
        chunk = texts[start : start + 500]
        got = ours.encode_batch(chunk)
        for text, have in zip(chunk, got):
            assert have == clip_tokenizer.encode(text), f"{text!r} (U+{ord(text[1]):04X})"


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.text(st.characters(codec=None), max_size=40))
def test_any_code_points_match_clip(ours, clip_tokenizer, text):
    assert ours.encode(text) == clip_tokenizer.encode(text)


# --- CLIP's cleaning without ftfy on plain text ------------------------------------------
# `clean_text` skips `ftfy.fix_text` on plain text (ASCII, no `&`, no control character but
# tab and line feed), where ftfy changes nothing. These check that claim against ftfy itself.


def _cleaned_with_ftfy(text: str) -> str:
    """CLIP's `basic_clean` then `whitespace_clean` and lower case, always calling ftfy."""
    import html

    import ftfy

    from subword.formats.clip import _WHITESPACE

    text = html.unescape(html.unescape(ftfy.fix_text(text))).strip()
    return _WHITESPACE.sub(" ", text).strip().lower()


@pytest.mark.corpus
@pytest.mark.parametrize("name", CORPORA)
def test_ftfy_leaves_plain_text_alone_on_every_line(name):
    import ftfy

    from subword.formats.clip import is_plain

    lines = corpus_lines(name)
    plain = [line for line in lines if is_plain(line)]
    for line in plain:
        assert ftfy.fix_text(line) == line, line
    whole = "".join(plain)
    assert is_plain(whole) and ftfy.fix_text(whole) == whole


# Printable ASCII with the characters ftfy acts on among them, so that both sides of the
# check are generated: `&` (entities), `\r`, `\x0b`, NUL, ESC (terminal escapes), DEL.
_PLAIN_AND_NOT = st.lists(
    st.sampled_from(
        [chr(c) for c in range(0x20, 0x7F)]
        + ["\t", "\n", "&amp;", "&lt;", "&#39;", "\r", "\r\n", "\x0b", "\x00", "\x1b[31m", "\x7f"]
        + ["é", "Ã©", "\u2019", "\ufb01", "\uff21", "\x85", "\u2028"]
    ),
    max_size=40,
).map("".join)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_PLAIN_AND_NOT)
def test_plain_text_is_what_ftfy_leaves_alone(text):
    import ftfy

    from subword.formats.clip import clean_text, is_plain

    if is_plain(text):
        assert ftfy.fix_text(text) == text
    assert clean_text(text) == _cleaned_with_ftfy(text)


def test_ftfy_is_called_exactly_when_the_text_is_not_plain(monkeypatch):
    import ftfy

    from subword.formats.clip import clean_text

    calls = []
    real = ftfy.fix_text
    monkeypatch.setattr(ftfy, "fix_text", lambda text, *a, **k: calls.append(text) or real(text))
    assert clean_text("  A Photo\tof a CAT\n") == "a photo of a cat"
    assert calls == []
    for text in ["fish &amp; chips", "caf\u00e9", "a\rb", "bell\x07"]:
        clean_text(text)
    assert calls == ["fish &amp; chips", "caf\u00e9", "a\rb", "bell\x07"]
