"""One scale-out measurement in a fresh process: `python -m benchmarks.scale_worker JOB`.

JOB is a JSON object: `what` (count, ray-count, shards, ray-shards, train-counts,
train-text), `files`, `workers`, `out`. Prints one JSON line: seconds, peak RSS (MB) and
what the step produced. A fresh process per step keeps peak RSS the step's own and starts
Ray clusters of exactly `workers` CPUs."""

from __future__ import annotations

import json
import os
import resource
import shutil
import sys
import time

OPTIONS = {"kind": "byte", "pre_tokenizer": "cl100k"}
VOCAB = 32000


def main(job: dict) -> dict:
    import subword

    what, files, workers, out = job["what"], job["files"], job.get("workers", 1), job["out"]
    result: dict = {}
    if what.startswith("ray"):
        import ray

        ray.init(
            num_cpus=workers,
            include_dashboard=False,
            log_to_driver=False,
            _node_ip_address="127.0.0.1",
        )
    t0 = time.perf_counter()
    if what == "count":
        counts = subword.count(files, **OPTIONS)
        counts.save(out)
        result = {"words": len(counts), "count_file_bytes": os.path.getsize(out)}
    elif what == "ray-count":
        import subword.ray

        counts = subword.ray.count(files, **OPTIONS)
        result = {"words": len(counts)}
    elif what in ("shards", "ray-shards"):
        tok = subword.load_tiktoken()
        shutil.rmtree(out, ignore_errors=True)
        t0 = time.perf_counter()  # the tokenizer's loading is not the step's
        if what == "shards":
            from subword.scale.shards import write_shards

            manifest = write_shards(files, tok, out, workers=workers, shard_bytes=16 << 20)
        else:
            import subword.ray

            manifest = subword.ray.write_tokens(files, tok, out, shard_bytes=16 << 20)
        result = {"tokens": manifest["tokens"]}
    elif what == "train-counts":
        tok = subword.train(
            subword.load_counts(job["counts"]), vocab_size=VOCAB, tie_break="lexicographic"
        )
        result = {"merges": len(tok.merges)}
    elif what == "train-text":
        tok = subword.train(files, vocab_size=VOCAB, tie_break="lexicographic", **OPTIONS)
        result = {"merges": len(tok.merges)}
    else:
        raise SystemExit(f"unknown step {what!r}")
    result["seconds"] = time.perf_counter() - t0
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return result


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]))))
