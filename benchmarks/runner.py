"""Runs encoding tasks for one peer in worker processes, surviving hangs and crashes: a task
that times out or kills its worker is recorded as such, the rest of its group is skipped
with that reason, and a fresh worker goes on with the remaining tasks."""

from __future__ import annotations

from dataclasses import dataclass, field

from benchmarks.config import Config
from benchmarks.timing import failure_reason, run_worker


@dataclass
class Task:
    key: str  # the input's name in the tables
    path: str
    call: str  # whole/list, whole/array, lines/list, lines/array, batch[1]/list, batch[1]/array
    group: str = ""  # after a timeout, the remaining tasks of the same group are skipped

    def as_job(self) -> dict:
        return {"key": self.key, "path": self.path, "call": self.call}


@dataclass
class PeerRun:
    peer: str
    load: dict | None = None  # the worker's "load" record
    cells: list[dict] = field(default_factory=list)


def run_tasks(
    cfg: Config,
    peer: str,
    tasks: list[Task],
    *,
    pin: bool,
    write_ref: bool,
    timeout: float,
    cold: bool = False,
    encoding: str = "cl100k_base",
    rss: bool = False,
) -> PeerRun:
    """cold: one timed call per task, after a warm-up on unrelated text (no cache helps).
    rss: also the peak memory of that one call (see timing.call_with_rss)."""
    result = PeerRun(peer)
    pending = list(tasks)
    while pending:
        job = {
            "kind": "encode",
            "peer": peer,
            "pin": pin,
            "cache": str(cfg.cache),
            "ref_dir": str(cfg.cache / "refs"),
            "write_ref": write_ref,
            "cold": cold,
            "rss": rss,
            "encoding": encoding,
            # A pinned job has one CPU: its batch calls (batch1/...) ask for one thread.
            "threads": 1 if pin else cfg.threads,
            "repeats": cfg.repeats,
            "budget": cfg.budget,
            "short": [cfg.short_seconds, cfg.short_most],
            "tasks": [t.as_job() for t in pending],
        }
        records, res = run_worker(job, cfg.cache / "jobs", timeout=timeout)
        done = set()
        for r in records:
            if r["type"] == "load":
                result.load = r
            elif r["type"] == "time":
                result.cells.append(r)
                done.add((r["input"], r["call"]))
        if result.load is None:
            result.load = {"type": "load", "peer": peer, "ok": False}
            result.load["reason"] = failure_reason(res, timeout)
            return result
        if not result.load.get("ok"):
            return result
        pending = [t for t in pending if (t.key, t.call) not in done]
        if not pending:
            break
        if res.ok:  # the worker ended normally with tasks left: should not happen
            reason = "not run (the worker stopped early)"
        else:
            reason = failure_reason(res, timeout)
        failed, pending = pending[0], pending[1:]
        result.cells.append(
            {
                "type": "time",
                "peer": peer,
                "input": failed.key,
                "call": failed.call,
                "error": reason,
            }
        )
        if res.timed_out and failed.group:
            skipped = [t for t in pending if t.group == failed.group]
            pending = [t for t in pending if t.group != failed.group]
            for t in skipped:
                result.cells.append(
                    {
                        "type": "time",
                        "peer": peer,
                        "input": t.key,
                        "call": t.call,
                        "error": f"skipped: {failed.key} {failed.call} timed out",
                    }
                )
    return result
