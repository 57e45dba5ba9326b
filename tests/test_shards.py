"""Token shards without Ray: a process pool writes `.bin`/`.idx` files and a manifest that
`numpy.memmap` reads back into each line's ids; the same inputs give the same files for any
number of workers; a re-run resumes; bad input is a one-line error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import subword
from subword.errors import InvalidInputError
from subword.scale.shards import write_shards

np = pytest.importorskip("numpy")

LINES = [
    "the lowest newer widest",
    "Ünïcödé — 한국어 텍스트, emoji 🙂 and\ttabs",
    "",
    "x" * 300,
    "<|end|> is a special token here",
] * 40


def _model() -> subword.Tokenizer:
    return subword.train(
        iter(LINES), kind="byte", pre_tokenizer="cl100k", num_merges=60, min_frequency=1
    )


def _inputs(tmp_path: Path) -> list[Path]:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("\n".join(LINES[:120]) + "\n", encoding="utf-8")
    b.write_text("\n".join(LINES[120:]), encoding="utf-8")  # no final line end
    return [a, b]


def _documents(out: Path) -> list[list[int]]:
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"]
    docs = []
    for shard in manifest["shards"]:
        ids = np.memmap(out / f"{shard['name']}.bin", dtype=manifest["dtype"], mode="r")
        ends = np.fromfile(out / f"{shard['name']}.idx", dtype="<u8")
        assert len(ends) == shard["documents"] and len(ids) == shard["tokens"]
        start = 0
        for end in ends:
            docs.append([int(i) for i in ids[start:end]])
            start = int(end)
    assert sum(len(d) for d in docs) == manifest["tokens"]
    return docs


@pytest.mark.parametrize("workers", [1, 2])
def test_shards_hold_each_lines_ids(tmp_path: Path, workers: int) -> None:
    tok = _model()
    out = tmp_path / f"out{workers}"
    manifest = write_shards(_inputs(tmp_path), tok, out, workers=workers, shard_bytes=500)
    assert len(manifest["shards"]) > 4  # several shards per file
    docs = _documents(out)
    assert docs == tok.encode_batch(LINES)
    assert [tok.decode(d) for d in docs] == LINES
    assert manifest["dtype"] == "uint16"


def test_the_same_files_for_any_number_of_workers(tmp_path: Path) -> None:
    tok = _model()
    inputs = _inputs(tmp_path)
    write_shards(inputs, tok, tmp_path / "one", workers=1, shard_bytes=700)
    write_shards(inputs, tok, tmp_path / "two", workers=2, shard_bytes=700)
    one = sorted(p.name for p in (tmp_path / "one").iterdir())
    assert one == sorted(p.name for p in (tmp_path / "two").iterdir())
    for name in one:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


def test_a_rerun_resumes(tmp_path: Path) -> None:
    tok = _model()
    inputs = _inputs(tmp_path)
    out = tmp_path / "out"
    first = write_shards(inputs, tok, out, workers=1, shard_bytes=700)
    # As if the run had stopped before its last shard and the manifest was not completed.
    last = first["shards"][-1]["name"]
    (out / f"{last}.bin").unlink()
    (out / f"{last}.idx").unlink()
    for shard in first["shards"][:-1]:
        (out / f"{shard['name']}.json").write_text(json.dumps(shard))
    kept = {s["name"]: os.stat(out / f"{s['name']}.bin").st_mtime_ns for s in first["shards"][:-1]}
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["complete"] = False
    manifest.pop("tokens", None)
    manifest.pop("documents", None)
    (out / "manifest.json").write_text(json.dumps(manifest))
    again = write_shards(inputs, tok, out, workers=1, shard_bytes=700)
    assert again["tokens"] == first["tokens"]
    assert _documents(out) == tok.encode_batch(LINES)
    for name, mtime in kept.items():  # finished shards were not written again
        assert os.stat(out / f"{name}.bin").st_mtime_ns == mtime


def test_invalid_utf8_names_file_and_byte(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"good line\nbad \xff line\n")
    with pytest.raises(InvalidInputError, match=r"bad\.txt: invalid UTF-8 at byte 14"):
        write_shards([bad], _model(), tmp_path / "out", workers=1)


def test_command_line(tmp_path: Path) -> None:
    tok = _model()
    tok.save(tmp_path / "m.json")
    inputs = [str(p) for p in _inputs(tmp_path)]
    cmd = [sys.executable, "-m", "subword", "encode", *inputs, "-m", str(tmp_path / "m.json")]
    run = subprocess.run(
        [*cmd, "--shards", str(tmp_path / "out"), "--workers", "2", "--shard-bytes", "600"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert _documents(tmp_path / "out") == tok.encode_batch(LINES)
    run = subprocess.run(
        [sys.executable, "-m", "subword", "encode", "-", "-m", str(tmp_path / "m.json"),
         "--shards", str(tmp_path / "o2")],
        capture_output=True, text=True, timeout=60, input="text\n",
    )  # fmt: skip
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "file names" in run.stderr
