"""The cold-start job, run inside a fresh worker process: how long importing a peer and
loading the encoding takes, then its first call on new text against warm calls on fresh
texts of the same size.

Texts are consecutive runs of whole lines of a corpus, each about `text_bytes` long: the
first call gets text 0; texts 1..WARM_TEXTS warm the library up (caches, lazy set-up); the
next TIMED_WARM texts, each new to the library, give the warm figure (their median). So no
cache of the exact text helps either figure: the first call pays only for what is cold.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from benchmarks import encoders
from benchmarks.encode_worker import References
from benchmarks.vocabs import VOCABS, Unavailable

WARM_TEXTS = 20
TIMED_WARM = 5


def texts(path: str, text_bytes: int, count: int) -> list[str]:
    """`count` texts of consecutive whole lines, each at least `text_bytes` bytes of UTF-8."""
    out: list[str] = []
    part: list[str] = []
    size = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            part.append(line)
            size += len(line.encode("utf-8"))
            if size >= text_bytes:
                out.append("".join(part))
                part, size = [], 0
                if len(out) == count:
                    return out
    raise Unavailable(f"{path} holds fewer than {count} texts of {text_bytes} bytes")


def _timed(op: Callable[[str], object], text: str) -> tuple[float, object]:
    gc.disable()
    try:
        t0 = time.perf_counter()
        out = op(text)
        return time.perf_counter() - t0, out
    finally:
        gc.enable()


def run_cold(job: dict, record: Callable[..., None]) -> None:
    peer, vocab = job["peer"], VOCABS[job["encoding"]]
    ctx = encoders.Ctx(cache=Path(job["cache"]), threads=job["threads"], vocab=vocab)
    pieces = texts(job["path"], job["text_bytes"], 1 + WARM_TEXTS + TIMED_WARM)
    t0 = time.perf_counter()
    try:
        ops = encoders.load(peer, ctx)  # imports the library, then loads the encoding
    except Unavailable as e:
        record(type="cold", peer=peer, ok=False, reason=str(e))
        return
    load_seconds = time.perf_counter() - t0
    how = "array" if ops.array is not None else "list"
    op = ops.array if ops.array is not None else ops.list
    assert op is not None
    refs = References(Path(job["ref_dir"]), write=job.get("write_ref", False))

    def check(i: int, out: object) -> str:
        ids = np.asarray(out, dtype=np.uint32)
        return refs.check(f"{vocab.name}:cold:{job['text_bytes']}:{i}", "whole", ids, None)

    first, out = _timed(op, pieces[0])
    checks = [check(0, out)]
    for i in range(1, 1 + WARM_TEXTS):
        op(pieces[i])
    warm = []
    for i in range(1 + WARM_TEXTS, len(pieces)):
        seconds, out = _timed(op, pieces[i])
        warm.append(seconds / len(pieces[i].encode("utf-8")))
        checks.append(check(i, out))
    bad = [c for c in checks if c not in ("identical", "reference")]
    record(
        type="cold",
        peer=peer,
        ok=True,
        call=how,
        load_seconds=load_seconds,
        first_seconds=first,
        bytes=len(pieces[0].encode("utf-8")),
        # Per byte: the texts differ in length by up to a line.
        first_ns_per_byte=first / len(pieces[0].encode("utf-8")) * 1e9,
        warm_ns_per_byte=statistics.median(warm) * 1e9,
        check=bad[0] if bad else checks[0],
    )
