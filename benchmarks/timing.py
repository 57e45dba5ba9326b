"""Timing helpers: best-of-N with a warm-up and a time budget, CPU pinning, and running a
worker in a child process with a timeout while reading that child's own peak RSS."""

from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def pin_to_one_cpu() -> int:
    """Pins this process (and every thread it starts later) to one CPU: the last one it may
    use. Call before importing a peer, so thread pools sized at import see one CPU."""
    cpus = sorted(os.sched_getaffinity(0))
    cpu = cpus[-1]
    os.sched_setaffinity(0, {cpu})
    return cpu


def single_thread_env() -> dict[str, str]:
    """Thread-count variables the peers read, set to one for the pinned runs (pinning alone
    already keeps them on one CPU; this keeps them from starting idle threads)."""
    return {
        "RAYON_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }


@dataclass
class Timing:
    best: float  # seconds, the fastest timed call
    runs: list[float] = field(default_factory=list)


def best_of(
    call: Callable[[], Any],
    warm_up: Callable[[], Any] | None,
    repeats: int,
    budget: float,
    check: Callable[[Any], Any] | None = None,
    short: tuple[float, int] = (0.0, 0),
) -> tuple[Timing, Any]:
    """Calls `warm_up` once (untimed), then `call` up to `repeats` times, stopping early once
    the timed calls together pass `budget` seconds (at least one timed call). A short call
    is timed more often: `short` = (seconds, most calls) goes on past `repeats` until the
    timed calls add up to that many seconds, so that a call of a fraction of a millisecond
    is not judged on a few samples of a shared machine. The first timed call's result goes
    to `check` (untimed) and is then dropped; returns the timings and what `check` returned.
    The cyclic garbage collector runs once before the timed calls and is off through them
    (as timeit does), so one library's garbage is not collected on another's clock. Once,
    not before each call: a collection walks every object of the process and leaves the
    CPU's caches cold, which made a call of a fraction of a millisecond a cold-cache call
    (benchmarks/README.md#warm-calls)."""
    if warm_up is not None:
        warm_up()
    short_seconds, short_most = short
    runs: list[float] = []
    checked = None
    gc.collect()
    gc.disable()
    try:
        for i in range(max(1, repeats, short_most)):
            t0 = time.perf_counter()
            out = call()
            runs.append(time.perf_counter() - t0)
            if i == 0 and check is not None:
                checked = check(out)
            del out
            total = sum(runs)
            if total >= budget or (len(runs) >= repeats and total >= short_seconds):
                break
    finally:
        gc.enable()
    return Timing(min(runs), runs), checked


@dataclass
class ChildResult:
    ok: bool
    seconds: float  # wall time of the whole child process
    peak_rss_mb: float  # the child's own peak resident set (VmHWM), in MiB
    returncode: int | None
    timed_out: bool
    stderr_tail: str


def run_child(
    argv: list[str],
    *,
    timeout: float,
    env: dict[str, str] | None = None,
    stdin_path: Path | None = None,
    stdout_path: Path | None = None,
    progress_path: Path | None = None,
) -> ChildResult:
    """Runs a command in its own process group and kills the group on timeout. With
    `progress_path`, the timeout counts from the last change of that file (the worker
    appends a record after each measurement), so it bounds one measurement, not the job.
    Peak RSS is the child's VmHWM, polled from /proc while it runs (wait4's ru_maxrss would
    also count the parent's own RSS, which a forked child inherits across exec)."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    stdout = open(stdout_path, "wb") if stdout_path else subprocess.DEVNULL
    stderr = tempfile.TemporaryFile()
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        stdin=stdin,
        stdout=stdout,
        stderr=stderr,
        env=full_env,
        cwd=REPO,
        start_new_session=True,
    )
    timed_out = False
    last_change, last_size = t0, -1
    peak = 0.0
    while True:
        peak = max(peak, vm_hwm_mb(proc.pid))
        pid, status, _usage = os.wait4(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            break
        now = time.perf_counter()
        if progress_path is not None:
            size = progress_path.stat().st_size if progress_path.exists() else 0
            if size != last_size:
                last_change, last_size = now, size
        if now - last_change > timeout:
            timed_out = True
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            _, status, _usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.02)
    seconds = time.perf_counter() - t0
    returncode = os.waitstatus_to_exitcode(status)
    proc.returncode = returncode
    for f in (stdin, stdout):
        if hasattr(f, "close"):
            f.close()
    stderr.seek(0)
    tail = stderr.read().decode("utf-8", errors="replace")[-2000:]
    stderr.close()
    return ChildResult(
        ok=returncode == 0 and not timed_out,
        seconds=seconds,
        peak_rss_mb=peak,
        returncode=returncode,
        timed_out=timed_out,
        stderr_tail=tail,
    )


def failure_reason(res: ChildResult, timeout: float) -> str:
    if res.timed_out:
        return f"timed out (> {timeout:g} s)"
    lines = [ln for ln in res.stderr_tail.splitlines() if ln.strip()]
    last = lines[-1].strip() if lines else ""
    if res.returncode is not None and res.returncode < 0:
        return f"crashed (signal {-res.returncode}) {last}".strip()[:300]
    return f"failed (exit {res.returncode}): {last}"[:300]


def run_worker(
    job: dict[str, Any], work: Path, *, timeout: float
) -> tuple[list[dict], ChildResult]:
    """Runs `python -m benchmarks.worker` on one job (a JSON file) and reads back the
    records it appended to its output file, one JSON object a line. Records written before
    a crash or a timeout are kept; `timeout` bounds the time between two records."""
    work.mkdir(parents=True, exist_ok=True)
    stamp = f"{job['kind']}-{job.get('peer', 'x')}-{time.monotonic_ns()}"
    job_path = work / f"job-{stamp}.json"
    out_path = work / f"out-{stamp}.jsonl"
    job = dict(job, out=str(out_path))
    job_path.write_text(json.dumps(job), encoding="utf-8")
    env = single_thread_env() if job.get("pin") else {}
    res = run_child(
        [sys.executable, "-m", "benchmarks.worker", str(job_path)],
        timeout=timeout,
        env=env,
        progress_path=out_path,
    )
    records = []
    if out_path.is_file():
        for line in out_path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                records.append(json.loads(line))
        out_path.unlink()
    job_path.unlink(missing_ok=True)
    return records, res


def vm_hwm_mb(pid: int | str = "self") -> float:
    """A process's peak resident set since its exec (VmHWM), in MiB; 0 if it is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def current_rss_mb() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def _status_kb(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def _reset_peak() -> bool:
    """Resets this process's VmHWM to its current RSS (Linux ≥ 4.0: "5" to clear_refs)."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _trim_heap() -> bool:
    """Hands the C heap's free memory back to the system (glibc's malloc_trim), so that
    memory freed while loading is not silently reused by the measured call and hidden from
    its figure."""
    try:
        import ctypes

        return bool(ctypes.CDLL("libc.so.6").malloc_trim(0) >= 0)
    except (OSError, AttributeError):
        return False


def call_with_rss(
    call: Callable[[], Any], warm_up: Callable[[], Any] | None, check: Callable[[Any], Any]
) -> tuple[Timing, Any, dict]:
    """One timed call after `warm_up`, and the memory it needed: the process's peak resident
    set during the call (VmHWM, reset to the current RSS just before it) minus its resident
    set just before it (VmRSS: interpreter, library, tokenizer and input already loaded, the
    free C heap handed back first).
    The peak is read right after the call returns, before its result is checked; the result
    (list or array) is part of what the call made, so it counts."""
    if warm_up is not None:
        warm_up()
    gc.collect()
    trimmed = _trim_heap()
    reset = _reset_peak()
    before = _status_kb("VmRSS")
    gc.disable()
    try:
        t0 = time.perf_counter()
        out = call()
        seconds = time.perf_counter() - t0
        peak = _status_kb("VmHWM")
    finally:
        gc.enable()
    checked = check(out)
    del out
    memory = {
        "rss_before_mb": before / 1024,
        "rss_peak_mb": peak / 1024,
        "rss_added_bytes": max(0, peak - before) * 1024,
        "rss_method": ("VmHWM reset by clear_refs" if reset else "VmHWM (not resettable)")
        + (", heap trimmed" if trimmed else ""),
    }
    return Timing(seconds, [seconds]), checked, memory
