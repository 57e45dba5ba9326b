"""One measurement job in a child process: `python -m benchmarks.worker JOB.json`.

The parent (the suite) writes the job, runs this with a timeout, and reads the records this
appends to `job["out"]`, one JSON object a line, flushed as each is done: what was measured
before a crash or a timeout is kept. A pinned job pins itself to one CPU before importing
anything that might start threads.

Job kinds: "encode" (encoding calls on inputs, checked against the reference ids), "cold"
(import + load + first call, in a fresh process) and "train" (one training run).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


class Recorder:
    def __init__(self, path: str) -> None:
        self.path = path

    def __call__(self, **record: Any) -> None:
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")


def main(job_path: str) -> None:
    job = json.loads(Path(job_path).read_text(encoding="utf-8"))
    if job.get("pin"):
        from benchmarks.timing import pin_to_one_cpu

        job["cpu"] = pin_to_one_cpu()
    record = Recorder(job["out"])
    if job["kind"] == "encode":
        from benchmarks.encode_worker import run_encode

        run_encode(job, record)
    elif job["kind"] == "cold":
        from benchmarks.cold_worker import run_cold

        run_cold(job, record)
    elif job["kind"] == "train":
        from benchmarks.trainers import run_train

        run_train(job, record)
    else:
        raise SystemExit(f"unknown job kind {job['kind']!r}")


if __name__ == "__main__":
    main(sys.argv[1])
