"""Models trained here, exported as `tokenizer.json`, loaded by HF `tokenizers`: the same ids
on every line of the shared corpora (byte-level with a GPT-style pattern, and classic `</w>`);
and HF files loading here."""

from __future__ import annotations

import pytest
from peers import CORPORA, corpus, corpus_lines, peer

import subword

pytestmark = [pytest.mark.peer, pytest.mark.corpus]


@pytest.fixture(scope="module")
def hf():
    return peer("tokenizers")


@pytest.fixture(scope="module")
def byte_model():
    sources = [str(corpus("en-kjv.txt")), str(corpus("ko-constitution.txt"))]
    return subword.train(
        sources,
        kind="byte",
        pre_tokenizer="cl100k",
        vocab_size=6000,
        special_tokens=["<|endoftext|>"],
    )


@pytest.fixture(scope="module")
def classic_model():
    return subword.train([str(corpus("en-kjv.txt"))], vocab_size=6000, end_of_word="attached")


def _compare(ours, theirs, name):
    lines = corpus_lines(name)
    expected = [e.ids for e in theirs.encode_batch(lines, add_special_tokens=False)]
    got = ours.encode_batch(lines)
    # The one known difference: HF's BPE has no end-of-word form of the unknown token, so
    # where a word ends in an unknown character it gives `<unk>` and we give `<unk></w>`.
    vocab = ours.vocab
    unk_end = vocab.get("<unk></w>")
    for i, (line, want, have) in enumerate(zip(lines, expected, got)):
        have = [vocab["<unk>"] if t == unk_end else t for t in have]
        assert have == want, f"{name} line {i + 1}: {line!r}"


@pytest.mark.slow
@pytest.mark.parametrize("name", CORPORA)
def test_byte_level_export(hf, byte_model, tmp_path, name):
    path = tmp_path / "tokenizer.json"
    byte_model.save(path, format="hf")
    theirs = hf.Tokenizer.from_file(str(path))
    _compare(byte_model, theirs, name)
    text = "one<|endoftext|>two"
    assert theirs.encode(text).ids == byte_model.encode(text, allowed_special="all")


@pytest.mark.slow
@pytest.mark.parametrize("name", CORPORA)
def test_end_of_word_export(hf, classic_model, tmp_path, name):
    path = tmp_path / "tokenizer.json"
    classic_model.save(path, format="hf")
    theirs = hf.Tokenizer.from_file(str(path))
    _compare(classic_model, theirs, name)


def test_hf_file_loads_here_and_round_trips(byte_model, tmp_path):
    path = tmp_path / "tokenizer.json"
    byte_model.save(path, format="hf")
    again = subword.load(path)
    assert again.merges == byte_model.merges and again.vocab == byte_model.vocab
    lines = corpus_lines("multi-fortunes.txt")[:2000]
    assert again.encode_batch(lines) == byte_model.encode_batch(lines)
    for line in lines[:200]:
        assert again.decode(again.encode(line)) == line


def test_convert_command_between_formats(byte_model, tmp_path, capsys):
    from subword.cli import main

    gpt2_model = subword.train([str(corpus("en-kjv.txt"))], kind="byte", vocab_size=1000)
    lines = corpus_lines("en-kjv.txt")[:500]
    for model, fmt, out in [
        (byte_model, "hf", "t.json"),
        (byte_model, "native", "n.json"),
        (gpt2_model, "gpt2", "gpt2"),
    ]:
        native = tmp_path / "m.json"
        model.save(native)
        assert main(["convert", str(native), str(tmp_path / out), "--to", fmt]) == 0
        again = subword.load(tmp_path / out)
        assert again.encode_batch(lines) == model.encode_batch(lines), fmt
    # GPT-2 files cannot say that the model splits with the cl100k pattern.
    native = tmp_path / "m.json"
    byte_model.save(native)
    assert main(["convert", str(native), str(tmp_path / "g2"), "--to", "gpt2"]) == 2
    assert "cannot record the pre-tokenizer 'cl100k'" in capsys.readouterr().err


def test_tiktoken_export_loads_in_tiktoken(byte_model, tmp_path):
    tiktoken = peer("tiktoken")
    from tiktoken.load import load_tiktoken_bpe

    from subword.pre_tokenizers.patterns import PATTERNS

    path = tmp_path / "mine.tiktoken"
    byte_model.save(path, format="tiktoken")
    enc = tiktoken.Encoding(
        "mine",
        pat_str=PATTERNS["cl100k"],
        mergeable_ranks=load_tiktoken_bpe(str(path)),
        special_tokens=byte_model.special_tokens,
    )
    lines = corpus_lines("multi-fortunes.txt")[:5000]
    assert enc.encode_ordinary_batch(lines) == byte_model.encode_batch(lines)
    again = subword.load_tiktoken(
        path, pre_tokenizer="cl100k", special_tokens=byte_model.special_tokens
    )
    assert again.encode_batch(lines) == byte_model.encode_batch(lines)
