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


@pytest.mark.parametrize("tie_break", ["lexicographic", "first", "subword-nmt"])
def test_same_model_whatever_the_thread_count(corpora_dir, tmp_path, tie_break):
    import subprocess
    import sys

    script = (
        "import subword, sys; tok = subword.train([sys.argv[1]], vocab_size=6000, "
        f"tie_break={tie_break!r}, kind=sys.argv[3], show_progress=False); tok.save(sys.argv[2])"
    )
    source = str(corpora_dir / "multi-fortunes.txt")
    for kind in ("classic", "byte"):
        saved = []
        for threads in ("1", "3"):
            out = tmp_path / f"{kind}-{threads}.json"
            env = {**__import__("os").environ, "RAYON_NUM_THREADS": threads}
            subprocess.run(
                [sys.executable, "-c", script, source, str(out), kind],
                env=env,
                check=True,
                timeout=300,
            )
            saved.append(out.read_text())
        assert saved[0] == saved[1], kind
