"""Cold start, per encoding: import + load in a fresh process (the median of several
processes), and in each of them the first call on new text against warm calls on fresh
texts of the same size (see cold_worker). tiktoken runs first: its ids are the reference."""

from __future__ import annotations

import statistics
from collections.abc import Callable

from benchmarks import inputs
from benchmarks.config import Config
from benchmarks.encoders import REFERENCE
from benchmarks.sections.encoding import peer_order
from benchmarks.timing import failure_reason, run_worker

CORPUS = "en-large.txt"


def run(cfg: Config, log: Callable[[str], None]) -> dict:
    path = str(inputs.corpus(CORPUS))
    rows = []
    for encoding in cfg.encodings:
        for peer in peer_order(cfg.cold_peers):
            log(f"cold start {encoding}: {peer} ({cfg.cold_repeats} processes)")
            runs, reason = [], None
            for _ in range(cfg.cold_repeats):
                job = {
                    "kind": "cold",
                    "peer": peer,
                    "encoding": encoding,
                    "cache": str(cfg.cache),
                    "ref_dir": str(cfg.cache / "refs"),
                    "write_ref": peer == REFERENCE,
                    "threads": cfg.threads,
                    "path": path,
                    "text_bytes": cfg.cold_text_bytes,
                }
                records, res = run_worker(job, cfg.cache / "jobs", timeout=cfg.call_timeout)
                got = [r for r in records if r.get("type") == "cold"]
                if not got:
                    reason = failure_reason(res, cfg.call_timeout)
                    break
                if not got[0].get("ok"):
                    reason = got[0].get("reason")
                    break
                runs.append(got[0])
            row: dict = {"encoding": encoding, "peer": peer, "runs": runs}
            if reason:
                row["error"] = reason
            if runs:
                for k in ("load_seconds", "first_ns_per_byte", "warm_ns_per_byte"):
                    row[k] = statistics.median(r[k] for r in runs)
                row["call"] = runs[0]["call"]
                bad = [r["check"] for r in runs if r["check"] not in ("identical", "reference")]
                row["check"] = bad[0] if bad else runs[0]["check"]
            rows.append(row)
    return {"corpus": CORPUS, "text_bytes": cfg.cold_text_bytes, "rows": rows}
