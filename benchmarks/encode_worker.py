"""The encoding job, run inside a worker process: load one peer, time each of its calls on
each input, and check every output against the reference ids (tiktoken's, from the same
run) before its figure counts.

Calls, by how the text is given and what comes back:
  whole/list, whole/array  the whole file as one string (one call)
  lines/list, lines/array  one call per line, in a Python loop (lines without their "\\n")
  batch/list, batch/array  one batch call on all the lines, with every core
  batch1/list, batch1/array  the same batch call in the pinned one-thread process (threads=1)
  whole/decode, lines/decode  the reference ids (tiktoken's) back to text, as a list of ints
                             for the whole file or one list per line; the text must come
                             back exactly

A job with "rss" also records the call's peak resident memory above what the process held
just before it (see `timing.call_with_rss`); such jobs time one call.
"""

from __future__ import annotations

import hashlib
import itertools
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import encoders
from benchmarks.timing import best_of, call_with_rss
from benchmarks.vocabs import VOCABS, Unavailable

WARM_CHARS = 100_000
# The warm-up text of a "cold" job: ordinary text unrelated to the inputs, so that a library
# that caches pieces has nothing of the measured input cached before its one timed call.
COLD_WARM_TEXT = "The quick brown fox, 1234 times; jumps over the lazy dog's back.\n" * 500
WARM_LINES = 1_000


def _flat_lists(rows: list) -> tuple[np.ndarray, np.ndarray]:
    counts = np.fromiter((len(r) for r in rows), dtype=np.uint64, count=len(rows))
    offsets = np.zeros(len(rows) + 1, dtype=np.uint64)
    np.cumsum(counts, out=offsets[1:])
    total = int(offsets[-1])
    if rows and isinstance(rows[0], np.ndarray):
        ids = np.concatenate(rows).astype(np.uint32) if total else np.zeros(0, np.uint32)
    else:
        ids = np.fromiter(itertools.chain.from_iterable(rows), dtype=np.uint32, count=total)
    return ids, offsets


def _diff(ids: np.ndarray, ref: np.ndarray, off=None, ref_off=None) -> str | None:
    """None when identical, else a short description of the first difference."""
    if off is not None and ref_off is not None:
        if len(off) != len(ref_off):
            return f"{len(off) - 1} outputs for {len(ref_off) - 1} texts"
        if np.array_equal(off, ref_off) and np.array_equal(ids, ref):
            return None
        bad = np.nonzero(off != ref_off)[0]
        first_line = int(bad[0]) - 1 if len(bad) else None
        if first_line is None:
            pos = int(np.nonzero(ids != ref)[0][0])
            first_line = int(np.searchsorted(ref_off, pos, side="right")) - 1
        return f"ids differ (first at text {first_line})"
    if len(ids) == len(ref) and np.array_equal(ids, ref):
        return None
    n = min(len(ids), len(ref))
    neq = np.nonzero(ids[:n] != ref[:n])[0]
    where = int(neq[0]) if len(neq) else n
    return f"ids differ ({len(ids)} tokens vs {len(ref)}, first difference at token {where})"


class References:
    """The reference ids of each input, as .npy files in the run's cache."""

    def __init__(self, folder: Path, write: bool) -> None:
        self.folder = folder
        self.write = write

    def _paths(self, key: str, shape: str) -> tuple[Path, Path]:
        stem = hashlib.sha1(key.encode()).hexdigest()[:16] + "." + shape
        return self.folder / f"{stem}.ids.npy", self.folder / f"{stem}.off.npy"

    def check(self, key: str, shape: str, ids: np.ndarray, off: np.ndarray | None) -> str:
        ids_path, off_path = self._paths(key, shape)
        if self.write and not ids_path.is_file():
            np.save(off_path, off if off is not None else np.zeros(0, np.uint64))
            np.save(ids_path, ids)
            return "reference"
        if not ids_path.is_file():
            return "unchecked (no reference ids)"
        ref = np.load(ids_path)
        ref_off = np.load(off_path) if off is not None else None
        problem = _diff(ids, ref, off, ref_off)
        return problem or "identical"

    def load(self, key: str, shape: str) -> tuple[np.ndarray, np.ndarray] | None:
        ids_path, off_path = self._paths(key, shape)
        if not ids_path.is_file():
            return None
        return np.load(ids_path), np.load(off_path)


def _text_check(got: object, want: object) -> str:
    if got == want:
        return "identical"
    if isinstance(got, list) and isinstance(want, list):
        if len(got) != len(want):
            return f"{len(got)} texts for {len(want)} lines"
        first = next(i for i, (a, b) in enumerate(zip(got, want)) if a != b)
        return f"text differs (first at line {first})"
    if not isinstance(got, str) or not isinstance(want, str):
        return f"gave {type(got).__name__}, not str"
    n = min(len(got), len(want))
    first = next((i for i in range(n) if got[i] != want[i]), n)
    return f"text differs ({len(got)} characters vs {len(want)}, first at {first})"


def _make_decode(
    kind: str, op: Callable, refs: References, key: str, text: str, lines: list[str]
) -> tuple[Callable[[], Any], Callable[[], Any], Callable[[Any], dict]] | None:
    """(timed call, warm-up, check) of a decode call, or None without reference ids."""
    ref = refs.load(key, "whole" if kind == "whole" else "lines")
    if ref is None:
        return None
    ids, off = ref
    tokens = int(len(ids))
    if kind == "whole":
        whole = ids.tolist()

        def check_whole(result: Any) -> dict:
            return {"tokens": tokens, "check": _text_check(result, text)}

        return lambda: op(whole), lambda: op(whole[:20_000]), check_whole
    flat = ids.tolist()
    bounds = off.tolist()
    per_line = [flat[a:b] for a, b in zip(bounds, bounds[1:])]
    del flat

    def check_lines(result: Any) -> dict:
        return {"tokens": tokens, "check": _text_check(result, lines)}

    return (
        lambda: [op(x) for x in per_line],
        lambda: [op(x) for x in per_line[:WARM_LINES]],
        check_lines,
    )


def _make(
    kind: str, how: str, op: Callable, ops: encoders.Ops, text: str, lines: list[str]
) -> tuple[Callable[[], Any], Callable[[], Any], Callable[[Any], tuple], str]:
    """(timed call, warm-up, result -> (ids, offsets or None), reference shape)."""
    if kind == "whole":
        return (
            lambda: op(text),
            lambda: op(text[:WARM_CHARS]),
            lambda r: (np.asarray(r, dtype=np.uint32), None),
            "whole",
        )
    if kind == "lines":
        return (
            lambda: [op(s) for s in lines],
            lambda: [op(s) for s in lines[:WARM_LINES]],
            _flat_lists,
            "lines",
        )
    flat = ops.flat if how == "array" else _flat_lists
    return lambda: op(lines), lambda: op(lines[:WARM_LINES]), flat, "lines"


def _read(path: str, need_lines: bool) -> tuple[str, list[str], int, int]:
    """The text, its lines (only when a call needs them: a list of 10 million empty lines
    would weigh on a memory figure), and the bytes of each."""
    text = Path(path).read_text(encoding="utf-8")
    lines = text.split("\n") if need_lines else []
    if lines and lines[-1] == "":
        lines.pop()
    whole_bytes = len(text.encode("utf-8"))
    return text, lines, whole_bytes, whole_bytes - text.count("\n")


def run_encode(job: dict, record: Callable[..., None]) -> None:
    """Runs job["tasks"] in order: each {"key", "path", "call"}; one record per task."""
    peer = job["peer"]
    vocab = VOCABS[job.get("encoding", "cl100k_base")]
    ctx = encoders.Ctx(cache=Path(job["cache"]), threads=job["threads"], vocab=vocab)
    t0 = time.perf_counter()
    try:
        ops = encoders.load(peer, ctx)
    except Unavailable as e:
        record(type="load", peer=peer, ok=False, reason=str(e))
        return
    record(
        type="load",
        peer=peer,
        ok=True,
        seconds=time.perf_counter() - t0,
        notes=ops.notes,
        cpu=job.get("cpu"),
    )
    refs = References(Path(job["ref_dir"]), write=job.get("write_ref", False))
    loaded_path, data = None, None
    need_lines = any(not t["call"].startswith("whole/") for t in job["tasks"])
    for task in job["tasks"]:
        key, call = task["key"], task["call"]
        base = dict(type="time", peer=peer, input=key, call=call)
        kind, how = call.split("/")
        op = getattr(ops, "batch_" + how if kind.startswith("batch") else how)
        if op is None:
            record(**base, skip="not offered")
            continue
        if task["path"] != loaded_path:
            data = None  # free the previous input first
            data = _read(task["path"], need_lines)
            loaded_path = task["path"]
        text, lines, whole_bytes, lines_bytes = data
        key = f"{vocab.name}:{key}"  # the reference ids are per encoding
        repeats, short = job["repeats"], tuple(job.get("short", (0.0, 0)))
        if how == "decode":
            made = _make_decode(kind, op, refs, key, text, lines)
            if made is None:
                record(**base, skip="no reference ids")
                continue
            timed, warm, check = made
        else:
            timed, warm, to_flat, shape = _make(kind, how, op, ops, text, lines)
            if job.get("cold"):
                warm, repeats, short = (lambda op=op: op(COLD_WARM_TEXT)), 1, (0.0, 0)

            def check(result: Any, to_flat=to_flat, shape=shape, key=key) -> dict:
                ids, off = to_flat(result)
                return {"tokens": int(len(ids)), "check": refs.check(key, shape, ids, off)}

        nbytes = whole_bytes if kind == "whole" else lines_bytes
        extra: dict = {"calls": len(lines)} if kind == "lines" else {}
        try:
            if job.get("rss"):
                timing, checked, memory = call_with_rss(timed, warm, check)
                extra.update(memory)
            else:
                timing, checked = best_of(timed, warm, repeats, job["budget"], check, short)
        except Exception as e:  # a failing call is a result for its cell
            msg = str(e).splitlines()[0] if str(e) else ""
            record(**base, error=f"{type(e).__name__}: {msg}"[:300])
            continue
        record(**base, seconds=timing.best, runs=timing.runs, bytes=nbytes, **checked, **extra)
