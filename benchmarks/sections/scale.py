"""Scale-out (issue 12): counting and encoding with 1 and 2 Ray workers against the
single-process paths on the same input, training from counts against training from text
(time and peak RSS), and the count file's size per GB of text. Each step runs in a fresh
process (`benchmarks/scale_worker.py`); Ray clusters are local, on 127.0.0.1."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from benchmarks import inputs
from benchmarks.config import Config

STEPS = (
    ("count", 1),
    ("ray-count", 1),
    ("ray-count", 2),
    ("shards", 1),
    ("shards", 2),
    ("ray-shards", 1),
    ("ray-shards", 2),
    ("train-text", 1),
    ("train-counts", 1),
)


def _step(cfg: Config, job: dict) -> dict:
    run = subprocess.run(
        [sys.executable, "-m", "benchmarks.scale_worker", json.dumps(job)],
        capture_output=True,
        text=True,
        timeout=cfg.call_timeout,
        cwd=Path(__file__).resolve().parents[2],
    )
    if run.returncode != 0:
        return {"error": (run.stderr.strip().splitlines() or ["failed"])[-1][:300]}
    return json.loads(run.stdout.strip().splitlines()[-1])


def run(cfg: Config, log: Callable[[str], None]) -> dict:
    nbytes = cfg.scale_bytes
    text = inputs.mixed(nbytes, cfg.cache)
    # Four files of the same text cut at line ends: one Ray task each.
    data = text.read_bytes()
    files, start = [], 0
    for i in range(4):
        end = len(data) if i == 3 else data.index(b"\n", (i + 1) * len(data) // 4) + 1
        path = cfg.cache / f"scale.{nbytes}.{i}.txt"
        path.write_bytes(data[start:end])
        files.append(str(path))
        start = end
    counts = str(cfg.cache / f"scale.{nbytes}.swc")
    rows = []
    for what, workers in STEPS:
        log(f"scale: {what} with {workers} worker(s)")
        out = counts if what == "count" else str(cfg.cache / f"scale-out.{what}")
        job = {"what": what, "files": files, "workers": workers, "out": out, "counts": counts}
        row = {"step": what, "workers": workers, **_step(cfg, job)}
        if "seconds" in row:
            row["mb_per_s"] = len(data) / 1e6 / row["seconds"]
        rows.append(row)
    return {"bytes": len(data), "rows": rows}


def lines(scale: dict) -> list[str]:
    """The section of RESULTS.md."""
    out = [
        "## Scale-out (subword alone: Ray against one process)",
        "",
        f"{scale['bytes'] / 1e6:.1f} MB of the mixed corpora as 4 files; byte-level, cl100k "
        "pre-tokenizer; each step in a fresh process (Ray: a local cluster of that many CPUs).",
        "",
        "| step | workers | seconds | MB/s | peak RSS MB | result |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for r in scale["rows"]:
        if "error" in r:
            out.append(f"| {r['step']} | {r['workers']} | — | — | — | failed: {r['error']} |")
            continue
        made = ", ".join(
            f"{k} {v:,}"
            for k, v in r.items()
            if k in ("words", "tokens", "merges", "count_file_bytes")
        )
        out.append(
            f"| {r['step']} | {r['workers']} | {r['seconds']:.2f} | {r['mb_per_s']:.1f} "
            f"| {r['peak_rss_mb']:.0f} | {made} |"
        )
    size = next((r.get("count_file_bytes") for r in scale["rows"] if r["step"] == "count"), None)
    if size:
        out += ["", f"Count file: {size / scale['bytes'] * 1e3:.1f} MB per GB of text.", ""]
    return out
