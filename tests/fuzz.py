"""Fuzz targets for every entry point that takes outside data: encode (each model kind and
each call), decode, every model loader (mutated files of each format), decompress, and the
command line. Each target takes a `random.Random` and a deadline, runs cases until the
deadline, and raises `FuzzFailure` naming the seed and case number that reproduce a failure.

Rules checked on every case:
- no crash, no hang (each case is small; the worker's time and memory are capped);
- an error is one of the library's named errors (`SubwordError`, `OSError`) — never a bare
  `ValueError`, `TypeError`, `KeyError`, `OverflowError`, `RecursionError`, ...;
- where an oracle exists, the same answer as the oracle: tiktoken for cl100k, the pure-Python
  reference for classic models, `decode(encode(x)) == x` for byte-level models.

`tests/test_fuzz.py` runs each target in a child process with a fixed seed, a time budget
and a memory limit (so a blow-up fails the test, not the machine); `scripts/fuzz.py` runs
the same targets for as long as a maintainer likes.
"""

from __future__ import annotations

import base64
import json
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import subword
from subword.errors import SubwordError
from subword.text import utf8_safe
from subword.tokenizer import Tokenizer

WORDS = {"low": 5, "lower": 2, "newest": 6, "widest": 3, "lowest": 1, "new": 4}
SPECIALS = ["<|endoftext|>", "<|fim|>"]

# Characters that exercise the pre-tokenizers' branches and the encoders' edges.
_ALPHABET = (
    list("abcdefghijklmnopqrstuvwxyz ABCXYZ0123456789'\".,;:!?-_/\\()[]{}<>|@#$%^&*+=~`")
    + list(" \t\n\r\x0b\x0c\x00\x85\u00a0\u2028\u2029\u3000\u200b")
    + list("éüßçøñ한국어テキスト中文𝔘𝔫𝔦🙂👍🏽\u0301\u0308\ufeff\ufffd")
    + ["'s", "'ll", "\r\n", "<|", "|>", "</w>", "##", "\ud800", "\udfff"]
)


class FuzzFailure(AssertionError):
    """A case broke a rule; the message holds the target, seed and case to reproduce it."""


def random_text(rng: random.Random, max_len: int = 60) -> str:
    parts: list[str] = []
    for _ in range(rng.randrange(max_len + 1)):
        r = rng.random()
        if r < 0.04:
            parts.append(rng.choice(SPECIALS))
        elif r < 0.08:
            parts.append(rng.choice(_ALPHABET) * rng.randrange(2, 40))
        elif r < 0.12:
            parts.append(chr(rng.randrange(0x110000)))
        else:
            parts.append(rng.choice(_ALPHABET))
    return "".join(parts)


def _allowed(exc: BaseException) -> bool:
    """The errors a fuzz case may raise: the library's own, and OSError for files."""
    return isinstance(exc, (SubwordError, OSError))


def _models() -> dict[str, Tokenizer]:
    texts = [random_text(random.Random(i), 80) for i in range(200)]
    return {
        "classic": subword.train(WORDS, num_merges=12, min_frequency=1),
        "attached": subword.train(WORDS, num_merges=12, end_of_word="attached", min_frequency=1),
        "greedy": subword.train(WORDS, num_merges=12, algorithm="greedy", min_frequency=1),
        "byte": subword.train(
            iter(texts),
            kind="byte",
            pre_tokenizer="cl100k",
            num_merges=200,
            min_frequency=1,
            special_tokens=SPECIALS,
        ),
        "byte-gpt2": subword.train(
            iter(texts), kind="byte", pre_tokenizer="gpt2", num_merges=100, min_frequency=1
        ),
    }


def _check(target: str, seed: int, case: int, fn: Callable[[], None]) -> None:
    try:
        fn()
    except FuzzFailure:
        raise
    except BaseException as exc:  # noqa: BLE001 - the point is to see every kind
        if _allowed(exc):
            return
        raise FuzzFailure(
            f"{target}: seed {seed} case {case}: {type(exc).__name__}: {exc}"
        ) from exc


# --- encode ---------------------------------------------------------------------------
def fuzz_encode(rng: random.Random, seed: int, deadline: float) -> int:
    models = _models()
    oracle = _cl100k_pair()
    case = 0
    while time.monotonic() < deadline:
        case += 1
        text = random_text(rng)
        name = rng.choice(sorted(models))
        tok = models[name]

        def one() -> None:
            ids = tok.encode(text, disallowed_special=())
            assert tok.encode_batch([text], disallowed_special=())[0] == ids
            assert tok.encode_to_numpy(text, disallowed_special=()).tolist() == ids
            if tok.config.kind == "byte":
                back = tok.decode(ids)
                if back != utf8_safe(text):
                    raise FuzzFailure(f"{name}: decode(encode({text!r})) gave {back!r}")
            if rng.random() < 0.3:
                dropped = tok.encode(
                    text, disallowed_special=(), dropout=rng.random(), seed=rng.randrange(2**32)
                )
                assert all(isinstance(i, int) for i in dropped)
            if oracle is not None and rng.random() < 0.5:
                ours, theirs = oracle
                got = ours.encode(text, allowed_special="all")
                want = theirs.encode(text, allowed_special="all")
                if got != want:
                    raise FuzzFailure(f"cl100k differs from tiktoken on {text!r}")

        _check("encode", seed, case, one)
    return case


def _cl100k_pair():
    try:
        import tiktoken
    except ImportError:
        return None
    from subword.formats import default_special_tokens, find_tiktoken_file
    from subword.pre_tokenizers.patterns import PATTERNS

    path = find_tiktoken_file("cl100k_base")
    if path is None:
        return None
    from tiktoken.load import load_tiktoken_bpe

    theirs = tiktoken.Encoding(
        "cl100k_base",
        pat_str=PATTERNS["cl100k"],
        mergeable_ranks=load_tiktoken_bpe(str(path)),
        special_tokens=default_special_tokens("cl100k_base"),
    )
    return subword.load_tiktoken(path), theirs


# --- decode ---------------------------------------------------------------------------
def fuzz_decode(rng: random.Random, seed: int, deadline: float) -> int:
    models = _models()
    edge = [-1, -(2**63), 2**31 - 1, 2**32, 2**64, 10**30, True, False, 1.5, "1", None]
    case = 0
    while time.monotonic() < deadline:
        case += 1
        tok = models[rng.choice(sorted(models))]
        size = tok.vocab_size
        ids: list = [rng.randrange(size + 3) for _ in range(rng.randrange(12))]
        if rng.random() < 0.3:
            ids.insert(rng.randrange(len(ids) + 1), rng.choice(edge))

        def one() -> None:
            text = tok.decode(ids)
            assert isinstance(text, str)

        _check("decode", seed, case, one)
    return case


# --- loaders --------------------------------------------------------------------------
def _mutate(rng: random.Random, data: bytes) -> bytes:
    data = bytearray(data)
    for _ in range(rng.randrange(1, 6)):
        if not data:
            break
        op = rng.random()
        at = rng.randrange(len(data))
        if op < 0.3:
            data[at] = rng.randrange(256)
        elif op < 0.5:
            del data[at : at + rng.randrange(1, 20)]
        elif op < 0.65:
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 8)))
        elif op < 0.8:
            digits = str(rng.choice([2**31 - 1, 2**32, 2**64, 10**8, -1, 0, 99999999999]))
            data[at:at] = digits.encode()
        elif op < 0.9:
            data[at:at] = rng.choice([b"[[[[[[", b"{", b'"', b"\\u0000", b"\xff\xfe", b"\n"])
        else:
            del data[at:]
    return bytes(data)


def _format_files(folder: Path) -> list[Path]:
    """One small file of each format subword loads."""
    models = _models()
    out = []
    for name in ("classic", "attached", "byte"):
        path = folder / f"{name}.json"
        models[name].save(path)
        out.append(path)
    models["byte"].save(folder / "tokenizer.json", format="hf")
    out.append(folder / "tokenizer.json")
    gpt2 = folder / "gpt2"
    models["byte-gpt2"].save(gpt2, format="gpt2")
    out += [gpt2 / "vocab.json", gpt2 / "merges.txt"]
    ranks = folder / "mine.tiktoken"
    lines = [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256)]
    lines += [
        f"{base64.b64encode(t.encode()).decode()} {256 + i}"
        for i, t in enumerate(["ab", "abc", " the", "lo", "low"])
    ]
    ranks.write_text("\n".join(lines) + "\n")
    out.append(ranks)
    out += _sentencepiece_files(folder)
    return out


def _sentencepiece_files(folder: Path) -> list[Path]:
    """Two small SentencePiece BPE models made by its trainer (nmt_nfkc with its character
    map; identity with byte fallback), when the package is installed."""
    try:
        import sentencepiece as spm
    except ImportError:
        return []
    text = folder / "sp-train.txt"
    rng = random.Random(5)
    words = ["low", "lower", "newest", "widest", "the", "ünï", "한국어", "ｆｕｌｌ", "①"]
    text.write_text(
        "\n".join(" ".join(rng.choice(words) for _ in range(8)) for _ in range(400)), "utf-8"
    )
    out = []
    for name, options in (
        ("nfkc", {}),
        ("bytes", {"normalization_rule_name": "identity", "byte_fallback": True}),
    ):
        prefix = folder / f"sp-{name}"
        spm.SentencePieceTrainer.train(
            input=str(text),
            model_prefix=str(prefix),
            model_type="bpe",
            vocab_size=300 if name == "bytes" else 60,
            minloglevel=2,
            **options,
        )
        out.append(prefix.with_suffix(".model"))
    return out


def fuzz_loaders(rng: random.Random, seed: int, deadline: float) -> int:
    case = 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        originals = {p: p.read_bytes() for p in _format_files(folder)}
        while time.monotonic() < deadline:
            case += 1
            path = rng.choice(sorted(originals))
            path.write_bytes(_mutate(rng, originals[path]))

            def one() -> None:
                target = path if path.name != "merges.txt" else path.with_name("vocab.json")
                tok = subword.load(target)
                text = random_text(rng, 20)
                ids = tok.encode(text, disallowed_special=())
                tok.decode(ids)

            _check("loaders", seed, case, one)
            path.write_bytes(originals[path])
    return case


# --- decompress -----------------------------------------------------------------------
def fuzz_decompress(rng: random.Random, seed: int, deadline: float) -> int:
    valid = [
        subword.compress(random_text(random.Random(i), 200).encode("utf-8", "replace"))
        for i in range(8)
    ]
    case = 0
    while time.monotonic() < deadline:
        case += 1
        if rng.random() < 0.2:
            data = bytes(rng.randrange(256) for _ in range(rng.randrange(64)))
        else:
            data = _mutate(rng, rng.choice(valid))
        _check("decompress", seed, case, lambda: subword.decompress(data))
    return case


# --- command line ---------------------------------------------------------------------
def fuzz_cli(rng: random.Random, seed: int, deadline: float) -> int:
    """Random flag combinations and bad files: the exit code is 0 or 2, never a traceback."""
    import os

    from subword.cli import main

    # Relative paths in the random argv (`-o 3`) land in the temporary folder, not in the
    # caller's working directory.
    home = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        try:
            return _fuzz_cli_in(rng, seed, deadline, Path(tmp), main)
        finally:
            os.chdir(home)


def _fuzz_cli_in(rng: random.Random, seed: int, deadline: float, folder: Path, main) -> int:
    import contextlib
    import io

    case = 0
    corpus = folder / "corpus.txt"
    corpus.write_text("low lower newest widest\n" * 20)
    model = folder / "m.json"
    subword.train([corpus], num_merges=10).save(model)
    bad = folder / "bad.bin"
    bad.write_bytes(b"\xff\xfe\x00garbage")
    files = [str(corpus), str(model), str(bad), str(folder), str(folder / "missing")]
    numbers = ["-5", "0", "1", "3", "2.5", "x", "99999999999999999999999", "-0"]
    commands = [
        ["train", "-o", str(folder / "out.json")],
        ["encode", "-m"],
        ["decode", "-m"],
        ["explain", "--words"],
        ["learn-bpe", "-s"],
        ["apply-bpe", "-c"],
        ["compress", "-o", str(folder / "c.bin")],
        ["decompress", "-o", str(folder / "d.bin")],
    ]
    flags = [
        "--num-merges",
        "--vocab-size",
        "--min-frequency",
        "--dropout",
        "--seed",
        "--kind",
        "--tie-break",
        "--errors",
        "--allowed-special",
        "-i",
        "-o",
    ]
    while time.monotonic() < deadline:
        case += 1
        argv = list(rng.choice(commands))
        for _ in range(rng.randrange(5)):
            r = rng.random()
            if r < 0.4:
                argv.append(rng.choice(files))
            elif r < 0.7:
                argv += [rng.choice(flags), rng.choice(numbers + files)]
            else:
                argv.append(rng.choice(numbers))
        err = io.StringIO()
        out = io.StringIO()
        code: object = None
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
                code = main(argv)
        except SystemExit as exc:  # argparse's usage errors
            code = exc.code
        except BaseException as exc:  # noqa: BLE001
            raise FuzzFailure(
                f"cli: seed {seed} case {case}: {argv}: {type(exc).__name__}: {exc}"
            ) from exc
        if code not in (0, 2, None):
            raise FuzzFailure(f"cli: seed {seed} case {case}: {argv}: exit {code}")
        if "Traceback" in err.getvalue():
            raise FuzzFailure(f"cli: seed {seed} case {case}: {argv}: traceback")
    return case


TARGETS: dict[str, Callable[[random.Random, int, float], int]] = {
    "encode": fuzz_encode,
    "decode": fuzz_decode,
    "loaders": fuzz_loaders,
    "decompress": fuzz_decompress,
    "cli": fuzz_cli,
}


def run(target: str, seed: int, seconds: float) -> int:
    """Runs one target for `seconds`; returns the number of cases tried."""
    rng = random.Random(seed)
    return TARGETS[target](rng, seed, time.monotonic() + seconds)


def run_in_limits(target: str, seed: int, seconds: float, memory_mb: int) -> dict:
    """`run` under an address-space limit, as a child process does it; the result as JSON."""
    import resource

    limit = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    started = time.monotonic()
    cases = run(target, seed, seconds)
    return {
        "target": target,
        "seed": seed,
        "cases": cases,
        "seconds": round(time.monotonic() - started, 1),
    }


if __name__ == "__main__":
    import sys

    name, seed_text, seconds_text, memory_text = sys.argv[1:5]
    print(json.dumps(run_in_limits(name, int(seed_text), float(seconds_text), int(memory_text))))
