"""The command line: train → encode → decode through files and pipes; errors are one line
on stderr with exit code 2."""

from __future__ import annotations

import subprocess
import sys

import pytest

from subword.cli import main

TEXT = "low lower newest widest\nlow low newest\nthe lowest widest news\n"


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "subword", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture()
def model(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(TEXT * 5)
    path = tmp_path / "m.json"
    assert main(["train", str(corpus), "--merges", "12", "-o", str(path), "-q"]) == 0
    return path


def test_train_encode_decode_round_trip(model, tmp_path):
    text = tmp_path / "in.txt"
    text.write_text(TEXT)
    ids = tmp_path / "ids.txt"
    assert main(["encode", "-m", str(model), str(text), "-o", str(ids)]) == 0
    back = tmp_path / "back.txt"
    assert main(["decode", "-m", str(model), str(ids), "-o", str(back)]) == 0
    assert back.read_text() == TEXT
    assert len(ids.read_text().splitlines()) == 3


def test_pipes_and_tokens(model):
    done = run("encode", "-m", str(model), "--tokens", stdin="lowest newer\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[:2] == ["low", "est</w>"]
    ids = run("encode", "-m", str(model), stdin="lowest newer\n").stdout
    assert run("decode", "-m", str(model), stdin=ids).stdout == "lowest newer\n"


def test_train_from_stdin(tmp_path):
    out = tmp_path / "stdin.json"
    done = run("train", "--merges", "5", "-o", str(out), stdin=TEXT)
    assert done.returncode == 0, done.stderr
    assert "5 merges" in done.stderr and out.exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["train", "missing.txt", "--merges", "3", "-o", "x.json"], "missing.txt: no such file"),
        (["train", "--merges", "x", "-o", "x.json"], "invalid integer"),
        (["train", "-o", "x.json"], "give --vocab-size N or --num-merges N"),
        (["encode", "-m", "missing.json"], "no such file"),
    ],
)
def test_errors_are_one_line_exit_2(tmp_path, args, message):
    done = subprocess.run(
        [sys.executable, "-m", "subword", *args],
        input="",
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "Traceback" not in done.stderr


def test_bad_ids_and_bad_model(model, tmp_path):
    done = run("decode", "-m", str(model), stdin="1 2\n3 x\n")
    assert done.returncode == 2 and "line 2: expected space-separated integer ids" in done.stderr
    done = run("decode", "-m", str(model), stdin="99999\n")
    assert done.returncode == 2 and "line 1: id 99999" in done.stderr
    broken = tmp_path / "broken.json"
    broken.write_text('{\n  "format": "subword",\n oops\n}')
    done = run("encode", "-m", str(broken), stdin="low\n")
    assert done.returncode == 2 and "line 3" in done.stderr


def test_invalid_utf8_input_names_byte(model, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"low\nlo\xffw\n")
    out = tmp_path / "out.txt"
    done = run("encode", "-m", str(model), str(bad), "-o", str(out))
    assert done.returncode == 2
    assert "bad.txt: invalid UTF-8 at byte 6 (line 2)" in done.stderr
    assert not out.exists()  # no partial output file
    assert list(tmp_path.glob(".out.txt*")) == []


def test_demo_runs(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "subword", "demo", "-q", "--vocab-size", "2000"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "round trip restores the words, single-spaced: yes" in done.stdout
    assert (tmp_path / "subword-demo.json").exists()


def test_every_command_has_help():
    for command in ["train", "encode", "decode", "explain", "demo"]:
        done = run(command, "--help")
        assert done.returncode == 0 and "usage:" in done.stdout


def test_greedy_pipeline_writes_vocab_txt(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(TEXT * 5)
    model, vocab = tmp_path / "g.json", tmp_path / "vocab.txt"
    done = run(
        "train",
        str(corpus),
        "--algorithm",
        "greedy",
        "--vocab-size",
        "20",
        "--min-frequency",
        "1",
        "-o",
        str(model),
        "--vocab-txt",
        str(vocab),
    )
    assert done.returncode == 0, done.stderr
    tokens = vocab.read_text().splitlines()
    assert len(tokens) == 19 and not any(t.startswith("##") for t in tokens)  # 20 - <unk>
    out = run("encode", "-m", str(model), "--tokens", stdin="slowestestest\n").stdout.split()
    assert out[0] in tokens and all(t.startswith("##") for t in out[1:])
    ids = run("encode", "-m", str(model), stdin="slowestestest lowest\n").stdout
    assert run("decode", "-m", str(model), stdin=ids).stdout == "slowestestest lowest\n"


def test_encode_dropout_is_reproducible(model):
    first = run("encode", "-m", str(model), "--dropout", "0.5", "--seed", "7", stdin=TEXT)
    again = run("encode", "-m", str(model), "--dropout", "0.5", "--seed", "7", stdin=TEXT)
    plain = run("encode", "-m", str(model), stdin=TEXT)
    assert first.returncode == 0 and first.stdout == again.stdout != plain.stdout
    assert run("decode", "-m", str(model), stdin=first.stdout).stdout == TEXT


def test_each_command_registers_from_its_own_module():
    """`subword CMD` imports only CMD's module; the map it uses must name every command."""
    import argparse

    from subword.cli import build_parser
    from subword.commands import COMMANDS

    def choices(parser: argparse.ArgumentParser) -> list[str]:
        actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        return list(actions[0].choices)

    assert choices(build_parser()) == list(COMMANDS)
    for command in COMMANDS:
        assert command in choices(build_parser(command))
    assert choices(build_parser("no-such-command")) == list(COMMANDS)


def test_sigterm_leaves_no_partial_output(model, tmp_path):
    """SIGTERM while `encode` writes: the temporary file is removed, as with Ctrl-C."""
    import os
    import signal
    import time

    big = tmp_path / "big.txt"
    big.write_text(TEXT * 400_000)  # ~28 MB: encoding takes seconds
    out = tmp_path / "out.txt"
    proc = subprocess.Popen(
        [sys.executable, "-m", "subword", "encode", "-m", str(model), str(big), "-o", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while not list(tmp_path.glob(".out.txt.*.tmp")):
            assert proc.poll() is None, "encode finished before it could be interrupted"
            assert time.monotonic() < deadline, "no temporary output appeared"
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130
    assert not out.exists()
    assert list(tmp_path.glob(".out.txt.*")) == []
