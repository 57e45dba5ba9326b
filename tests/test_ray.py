"""`subword.ray` on a real local Ray cluster (started here on 127.0.0.1 with 2 CPUs, shut
down after): counts, training, `encode` and token shards equal the single-process paths.
Skipped with the reason outside CI when Ray is missing; under CI=true that fails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from peers import peer

import subword

LINES = [
    "the lowest newer widest",
    "Ünïcödé — 한국어 텍스트, emoji 🙂 and\ttabs",
    "low lower lowest new newer newest wide wider widest",
    "",
    "x" * 120,
] * 30


@pytest.fixture(scope="module")
def ray():
    ray = peer("ray")
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        _node_ip_address="127.0.0.1",
    )
    yield ray
    ray.shutdown()


@pytest.fixture
def files(tmp_path: Path) -> list[Path]:
    paths = []
    for i in range(3):
        p = tmp_path / f"part{i}.txt"
        p.write_text("\n".join(LINES[i * 50 : (i + 1) * 50]) + "\n", encoding="utf-8")
        paths.append(p)
    return paths


def test_counts_equal_single_process(ray, files: list[Path]) -> None:
    import subword.ray as sray

    options = {"kind": "byte", "pre_tokenizer": "cl100k"}
    on_ray = sray.count(files, **options)
    here = subword.count(files, **options)
    assert dict(on_ray.most_common(len(here))) == dict(here.most_common(len(here)))
    assert on_ray.total == here.total and len(on_ray) == len(here)


def test_training_equals_single_process(ray, files: list[Path]) -> None:
    import subword.ray as sray

    options = {"kind": "byte", "pre_tokenizer": "cl100k", "num_merges": 40, "min_frequency": 1}
    on_ray = sray.train(files, tie_break="lexicographic", **options)
    here = subword.train(files, tie_break="lexicographic", **options)
    assert on_ray.merges == here.merges and on_ray.vocab == here.vocab


def test_encode_equals_encode_batch_row_for_row(ray) -> None:
    import subword.ray as sray

    tok = subword.load_tiktoken()
    texts = [t for t in LINES if t]
    dataset = ray.data.from_items([{"text": t} for t in texts])
    rows = sray.encode(dataset, tok).take_all()
    assert [r["text"] for r in rows] == texts
    assert [list(r["ids"]) for r in rows] == tok.encode_batch(texts)


def test_token_shards_decode_back(ray, files: list[Path], tmp_path: Path) -> None:
    import numpy as np

    import subword.ray as sray

    tok = subword.load_tiktoken()
    out = tmp_path / "shards"
    manifest = sray.write_tokens(files, tok, out, shard_bytes=1500)
    assert manifest["complete"] and len(manifest["shards"]) > 3
    docs = []
    for shard in json.loads((out / "manifest.json").read_text())["shards"]:
        ids = np.memmap(out / f"{shard['name']}.bin", dtype=manifest["dtype"], mode="r")
        ends = np.fromfile(out / f"{shard['name']}.idx", dtype="<u8")
        start = 0
        for end in ends:
            docs.append(tok.decode([int(i) for i in ids[start:end]]))
            start = int(end)
    assert docs == LINES[:150]
    # The same files written again (every shard finished) come back unchanged.
    again = sray.write_tokens(files, tok, out, shard_bytes=1500)
    assert again == manifest
