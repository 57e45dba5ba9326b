"""The benchmark suite: `python -m benchmarks.suite [--quick] [options]` from the repository
root, inside the benchmark environment (`bash benchmarks/run.sh` makes it and runs this).

Runs the sections in order (encoding, cold start, training, classic, scaling, worst cases,
scale-out), each measurement in a child process, and writes results.json, RESULTS.md and
results.png to the results folder (benchmarks/results, or benchmarks/results/quick for
--quick).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import sys
import time
from pathlib import Path

from benchmarks import config, machine, report
from benchmarks.sections import classic, cold, encoding, scale, scaling, training, worst
from benchmarks.vocabs import VOCABS, Unavailable, check_rank_file, hf_json_file

RUNNERS = {
    "encoding": encoding.run,
    "cold": cold.run,
    "training": training.run,
    "classic": classic.run,
    "scaling": scaling.run,
    "worst": worst.run,
    "scale": scale.run,
}


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def prepare(cfg: config.Config) -> None:
    """The cache holds converted files and prefixes (kept between runs) and the reference
    ids (cleared: every run checks against tiktoken's ids from that same run)."""
    cfg.cache.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(cfg.cache / "refs", ignore_errors=True)
    shutil.rmtree(cfg.cache / "jobs", ignore_errors=True)
    (cfg.cache / "refs").mkdir()
    for name in cfg.encodings:
        vocab = VOCABS[name]
        path = vocab.rank_file(cfg.cache)
        check_rank_file(path, vocab.sha256)
        log(f"{name}: {path}")
        if "tokenizers" in cfg.peers or "tokie" in cfg.peers:
            log(f"converting {name} to a tokenizer.json for HF tokenizers and tokie (once)")
            hf_json_file(cfg.cache, vocab)


def main(argv: list[str] | None = None) -> int:
    cfg = config.parse(argv)
    t0 = time.perf_counter()
    try:
        prepare(cfg)
    except Unavailable as e:
        print(f"benchmarks: {e}", file=sys.stderr)
        return 2
    meta = machine.describe()
    log(f"{meta['cpu']}, {meta['cores']} cores; subword {meta['versions'].get('subword')}")
    settings = {
        k: (str(v) if isinstance(v, Path) else v) for k, v in dataclasses.asdict(cfg).items()
    }
    results: dict = {"meta": meta, "config": settings}
    for name in cfg.sections:
        log(f"== {name}")
        s0 = time.perf_counter()
        try:
            results[name] = RUNNERS[name](cfg, log)
        except Unavailable as e:
            results[name] = None
            results.setdefault("skipped", {})[name] = str(e)
            log(f"{name}: skipped: {e}")
        log(f"{name}: {time.perf_counter() - s0:.0f} s")
    results["seconds"] = time.perf_counter() - t0
    results["readme"] = os.path.relpath(Path(__file__).parent / "README.md", cfg.out)
    report.write(results, cfg.out)
    log(f"wrote {cfg.out / 'RESULTS.md'}, results.json, results.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
