"""Cost against corpus size: encoding (one thread, whole text) and training at prefixes of
all the corpora concatenated (repeated from the start past ~85 MB: see inputs.mixed)."""

from __future__ import annotations

from collections.abc import Callable

from benchmarks import inputs
from benchmarks.config import Config
from benchmarks.encoders import REFERENCE
from benchmarks.runner import Task, run_tasks
from benchmarks.sections.encoding import peer_order
from benchmarks.sections.training import train_once

CALLS = ("whole/list", "whole/array")


def label(nbytes: int) -> str:
    return f"mixed-{nbytes / inputs.MB:g}MB"


def run(cfg: Config, log: Callable[[str], None]) -> dict:
    items = [(label(n), str(inputs.mixed(n, cfg.cache)), n) for n in cfg.scaling_bytes]
    encode_cells = []
    for peer in peer_order(cfg.scaling_encoders):
        log(f"scaling: encoding with {peer}")
        tasks = [Task(key, path, c, group=c) for key, path, _n in items for c in CALLS]
        res = run_tasks(
            cfg, peer, tasks, pin=True, write_ref=peer == REFERENCE, timeout=cfg.call_timeout
        )
        encode_cells.extend(res.cells)
        if not res.load.get("ok"):
            encode_cells.append({"peer": peer, "error": res.load.get("reason")})
    train_cells = []
    for key, path, _n in items:
        for trainer in cfg.scaling_trainers:
            log(f"scaling: training {trainer} on {key}")
            train_cells.append(train_once(cfg, trainer, key, path, cfg.scaling_vocab))
    return {
        "inputs": [{"name": k, "path": p, "bytes": n} for k, p, n in items],
        "vocab_size": cfg.scaling_vocab,
        "encode": encode_cells,
        "train": train_cells,
    }
