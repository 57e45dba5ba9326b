"""Byte-level training: wall time and peak RSS of each trainer, each run in its own process
(the peak is that process's own, read with wait4), for each corpus and vocabulary size."""

from __future__ import annotations

from collections.abc import Callable

from benchmarks import inputs
from benchmarks.config import Config
from benchmarks.timing import failure_reason, run_worker


def train_once(cfg: Config, trainer: str, key: str, path: str, vocab_size: int) -> dict:
    job = {
        "kind": "train",
        "peer": trainer,
        "input": key,
        "path": path,
        "vocab_size": vocab_size,
        "threads": cfg.threads,
    }
    records, res = run_worker(job, cfg.cache / "jobs", timeout=cfg.train_timeout)
    cell = {"peer": trainer, "input": key, "vocab_size": vocab_size}
    if records:
        cell.update({k: v for k, v in records[-1].items() if k != "type"})
    else:
        cell["error"] = failure_reason(res, cfg.train_timeout)
    # The worker's own VmHWM at the end is exact; the parent's polling is the fallback.
    cell["peak_rss_mb"] = max(cell.pop("peak_rss_self_mb", 0.0), res.peak_rss_mb)
    cell["process_seconds"] = res.seconds
    return cell


def train_inputs(cfg: Config) -> list[tuple[str, str, int]]:
    out = []
    for name in cfg.train_corpora:
        path = inputs.corpus(name)
        if cfg.train_bytes:
            path = inputs.prefix(path, cfg.train_bytes, cfg.cache)
        out.append((name.split(".")[0], str(path), path.stat().st_size))
    return out


def run(cfg: Config, log: Callable[[str], None]) -> dict:
    items = train_inputs(cfg)
    cells = []
    for key, path, _size in items:
        for vocab_size in cfg.train_sizes:
            for trainer in cfg.trainers:
                log(f"training: {trainer} {key} {vocab_size}")
                cell = train_once(cfg, trainer, key, path, vocab_size)
                if "error" in cell:
                    log(f"  {trainer}: {cell['error']}")
                cells.append(cell)
    return {
        "inputs": [{"name": k, "path": p, "bytes": n} for k, p, n in items],
        "cells": cells,
    }
