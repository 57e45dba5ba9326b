"""Training on the real shared corpora, then encoding every line and decoding it back."""

from __future__ import annotations

import pytest

import subword

pytestmark = [pytest.mark.corpus, pytest.mark.slow]

CORPORA = [
    "en-kjv.txt",
    "en-shakespeare.txt",
    "ko-help.txt",
    "ko-constitution.txt",
    "multi-fortunes.txt",
]


@pytest.mark.parametrize("name", CORPORA)
@pytest.mark.parametrize("end_of_word", ["separate", "attached"])
def test_round_trip_every_line(corpora_dir, name, end_of_word):
    path = corpora_dir / name
    tok = subword.train([str(path)], vocab_size=8000, end_of_word=end_of_word)
    lines = path.read_text(encoding="utf-8").splitlines()
    encoded = tok.encode_batch(lines)
    assert len(encoded) == len(lines)
    unk = tok.vocab["<unk>"]
    for line, ids in zip(lines, encoded):
        assert unk not in ids  # every character was seen in training
        assert tok.decode(ids) == " ".join(line.split())
    # Merges shorten the text: fewer tokens than characters.
    assert sum(map(len, encoded)) < 0.7 * sum(len(line.replace(" ", "")) for line in lines)


def test_file_and_texts_give_the_same_model(corpora_dir):
    path = corpora_dir / "ko-constitution.txt"
    from_file = subword.train([str(path)], num_merges=500)
    lines = path.read_text(encoding="utf-8").splitlines()
    from_texts = subword.train(iter(lines), num_merges=500)
    assert from_file.merges == from_texts.merges
    assert from_file.vocab == from_texts.vocab


def test_saved_model_reloads_identically(corpora_dir, tmp_path):
    path = corpora_dir / "en-kjv.txt"
    tok = subword.train([str(path)], vocab_size=4000, tie_break="subword-nmt")
    tok.save(tmp_path / "kjv.json")
    again = subword.load(tmp_path / "kjv.json")
    assert again.merges == tok.merges and again.vocab == tok.vocab
    sample = path.read_text(encoding="utf-8").splitlines()[:2000]
    assert again.encode_batch(sample) == tok.encode_batch(sample)
