"""What a run measures: the full run's sizes and the `--quick` run's, and the command-line
options that change them."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.encoders import PEERS
from benchmarks.trainers import TRAINERS

MB = 1_000_000
SECTIONS = ("encoding", "cold", "training", "classic", "scaling", "worst", "scale")
ENCODINGS = ("cl100k_base", "o200k_base")
# Peers whose batch call is also timed with one thread (the `batch1/...` rows): subword's
# batch speed-up on all cores is one of the targets; two peers give it context.
BATCH1_PEERS = ("subword", "toktok-rs", "gigatoken")
# Peers whose cold start is measured by default (the others take seconds to load or convert).
COLD_PEERS = ("subword", "tiktoken", "toktok-rs", "gigatoken", "kitoken", "bpe-openai", "rs-bpe")
WORST_CASES = (
    "one letter repeated",
    "random letters",
    "random lower-case letters",
    "digits",
    "spaces",
    "newlines",
    "emoji",
    "single-line JSON",
)


@dataclass
class Config:
    quick: bool = False
    sections: tuple[str, ...] = SECTIONS
    out: Path = Path(__file__).resolve().parent / "results"
    cache: Path = Path(__file__).resolve().parent / ".cache"
    threads: int = field(default_factory=lambda: len(os.sched_getaffinity(0)))
    # Encoding: every corpus (whole files unless encode_bytes cuts a prefix), each encoding.
    encodings: tuple[str, ...] = ENCODINGS
    peers: tuple[str, ...] = tuple(PEERS)
    batch1_peers: tuple[str, ...] = BATCH1_PEERS
    # The fixed cost of a call: one call per line on this many one-word lines.
    percall_lines: int = 200_000
    encode_corpora: tuple[str, ...] = ()  # () = every .txt in the corpora folder
    encode_bytes: int | None = None
    repeats: int = 5
    budget: float = 10.0  # seconds of timed calls after which repeats stop (min one call)
    # A short call goes on past `repeats` until its timed calls add up to short_seconds, at
    # most short_most calls: a call of under a millisecond varies by 2x on a shared machine.
    short_seconds: float = 0.5
    short_most: int = 50
    call_timeout: float = 600.0  # seconds one measurement may take before it is abandoned
    # Cold start: import + load in fresh processes (median of cold_repeats), then the first
    # call on new text against warm calls on fresh texts of the same size.
    cold_peers: tuple[str, ...] = COLD_PEERS
    cold_repeats: int = 5
    cold_text_bytes: int = 50_000
    # Byte-level training.
    trainers: tuple[str, ...] = tuple(TRAINERS)
    train_corpora: tuple[str, ...] = ("en-large.txt", "ko-help.txt")
    train_sizes: tuple[int, ...] = (8000, 32000, 64000)
    train_bytes: int | None = None
    train_timeout: float = 1800.0
    # Classic </w> training and applying against subword-nmt (a pure-Python reference, so a
    # prefix of the large English corpus).
    classic_corpus: str = "en-large.txt"
    classic_bytes: int = 10 * MB
    classic_sizes: tuple[int, ...] = (8000, 32000)
    # Scaling points: prefixes of all corpora concatenated.
    scaling_bytes: tuple[int, ...] = (10 * MB, 25 * MB, 50 * MB, 100 * MB)
    scaling_encoders: tuple[str, ...] = ("subword", "tiktoken")
    scaling_trainers: tuple[str, ...] = ("subword", "tokenizers")
    scaling_vocab: int = 32000
    # Worst cases (hostile input), each in one call at worst_bytes, and at a tenth of it
    # when worst_tenth (to see growth); each call in worst_repeats fresh processes (the
    # median time and the largest peak RSS are kept).
    worst_cases: tuple[str, ...] = WORST_CASES
    worst_bytes: int = 10 * MB
    worst_tenth: bool = True
    worst_encoding: str = "cl100k_base"
    worst_encoders: tuple[str, ...] = ("subword", "tiktoken", "toktok-rs", "gigatoken")
    worst_timeout: float = 120.0
    worst_repeats: int = 3
    # Scale-out: Ray and the process pool against one process, on this much mixed text.
    scale_bytes: int = 100 * MB


def quick() -> Config:
    """A few minutes: 1 MB prefixes, 8k vocabularies, small scaling and worst cases."""
    return Config(
        quick=True,
        out=Path(__file__).resolve().parent / "results" / "quick",
        encode_bytes=1 * MB,
        repeats=3,
        budget=2.0,
        short_seconds=0.2,
        short_most=20,
        call_timeout=120.0,
        train_sizes=(8000,),
        train_bytes=2 * MB,
        train_timeout=300.0,
        classic_bytes=1 * MB,
        classic_sizes=(8000,),
        scaling_bytes=(1 * MB, 2_500_000, 5 * MB, 10 * MB),
        scaling_vocab=8000,
        percall_lines=50_000,
        cold_repeats=3,
        worst_bytes=1 * MB,
        worst_tenth=False,
        worst_timeout=30.0,
        worst_repeats=1,
        scale_bytes=10 * MB,
    )


def _names(text: str, allowed) -> tuple[str, ...]:
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    if names == ("all",):
        return tuple(allowed)
    bad = [n for n in names if n not in allowed]
    if bad:
        raise SystemExit(f"unknown name(s) {', '.join(bad)}; choose from {', '.join(allowed)}")
    return names


def _sizes(text: str) -> tuple[int, ...]:
    out = []
    for part in text.split(","):
        part = part.strip().lower()
        if part.endswith("mb"):
            out.append(int(float(part[:-2]) * MB))
        elif part.endswith("k"):
            out.append(int(float(part[:-1]) * 1000))
        else:
            out.append(int(float(part)))
    return tuple(out)


def parse(argv: list[str] | None = None) -> Config:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.suite",
        description="Side-by-side benchmarks of subword against the BPE libraries on PyPI.",
    )
    p.add_argument("--quick", action="store_true", help="small prefixes, 8k vocabularies only")
    p.add_argument("--sections", help=f"comma list of {', '.join(SECTIONS)} (default: all)")
    p.add_argument("--out", type=Path, help="results folder (default benchmarks/results)")
    p.add_argument("--peers", help="encoding peers, comma list or 'all'")
    p.add_argument("--encodings", help=f"comma list of {', '.join(ENCODINGS)} (default: both)")
    p.add_argument("--batch1-peers", help="peers whose batch call is also timed on one thread")
    p.add_argument("--cold-peers", help="peers in the cold-start section, comma list or 'all'")
    p.add_argument("--worst-cases", help=f"hostile inputs, comma list of {', '.join(WORST_CASES)}")
    p.add_argument("--worst-bytes", help="size of each hostile input, e.g. 10MB")
    p.add_argument("--worst-repeats", type=int, help="fresh processes per hostile input (median)")
    p.add_argument("--corpora", help="encoding corpora (file names), comma list")
    p.add_argument("--encode-bytes", help="encode a prefix of each corpus, e.g. 5MB")
    p.add_argument("--repeats", type=int, help="timed calls per measurement (best is kept)")
    p.add_argument("--trainers", help="byte-level trainers, comma list or 'all'")
    p.add_argument("--train-corpora", help="training corpora (file names), comma list")
    p.add_argument("--train-sizes", help="vocabulary sizes, e.g. 8k,32k,64k")
    p.add_argument("--train-bytes", help="train on a prefix of each corpus, e.g. 20MB")
    p.add_argument("--classic-bytes", help="prefix of the corpus for subword-nmt, e.g. 10MB")
    p.add_argument("--classic-sizes", help="subword-nmt -s values, e.g. 8k,32k")
    p.add_argument("--scaling-bytes", help="scaling points, e.g. 10MB,25MB,50MB,100MB")
    p.add_argument("--worst-encoders", help="peers for the worst cases, comma list or 'all'")
    p.add_argument("--threads", type=int, help="threads for batch calls (default: all cores)")
    p.add_argument("--cache", type=Path, help="work folder (default benchmarks/.cache)")
    a = p.parse_args(argv)
    cfg = quick() if a.quick else Config()
    if a.sections:
        cfg.sections = _names(a.sections, SECTIONS)
    if a.out:
        cfg.out = a.out
    if a.peers:
        cfg.peers = _names(a.peers, PEERS)
    if a.encodings:
        cfg.encodings = _names(a.encodings, ENCODINGS)
    if a.batch1_peers:
        cfg.batch1_peers = _names(a.batch1_peers, PEERS)
    if a.cold_peers:
        cfg.cold_peers = _names(a.cold_peers, PEERS)
    if a.worst_cases:
        cfg.worst_cases = _names(a.worst_cases, WORST_CASES)
    if a.worst_bytes:
        cfg.worst_bytes = _sizes(a.worst_bytes)[0]
    if a.worst_repeats is not None:
        if a.worst_repeats < 1:
            raise SystemExit("--worst-repeats must be at least 1")
        cfg.worst_repeats = a.worst_repeats
    if a.corpora:
        cfg.encode_corpora = tuple(n.strip() for n in a.corpora.split(","))
    if a.encode_bytes:
        cfg.encode_bytes = _sizes(a.encode_bytes)[0]
    if a.repeats:
        cfg.repeats = a.repeats
    if a.trainers:
        cfg.trainers = _names(a.trainers, TRAINERS)
    if a.train_corpora:
        cfg.train_corpora = tuple(n.strip() for n in a.train_corpora.split(","))
    if a.train_sizes:
        cfg.train_sizes = _sizes(a.train_sizes)
    if a.train_bytes:
        cfg.train_bytes = _sizes(a.train_bytes)[0]
    if a.classic_bytes:
        cfg.classic_bytes = _sizes(a.classic_bytes)[0]
    if a.classic_sizes:
        cfg.classic_sizes = _sizes(a.classic_sizes)
    if a.scaling_bytes:
        cfg.scaling_bytes = _sizes(a.scaling_bytes)
    if a.worst_encoders:
        cfg.worst_encoders = _names(a.worst_encoders, PEERS)
    if a.threads:
        cfg.threads = a.threads
    if a.cache:
        cfg.cache = a.cache
    return cfg
