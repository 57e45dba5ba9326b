"""What a run ran on and with: date, machine, Python, and every library's version (read
from the installed distributions, without importing them)."""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
from importlib import metadata

from benchmarks.encoders import PEERS
from benchmarks.timing import REPO
from benchmarks.trainers import TRAINERS

EXTRA = ("subword-nmt", "numpy", "matplotlib")


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def versions() -> dict[str, str]:
    dists = {d for p in PEERS.values() for d in p.dists}
    dists |= {d for t in TRAINERS.values() for d in t.dists}
    dists |= set(EXTRA)
    out = {}
    for d in sorted(dists):
        try:
            out[d] = metadata.version(d)
        except metadata.PackageNotFoundError:
            out[d] = "not installed"
    return out


def git_commit() -> str:
    if os.environ.get("BENCH_COMMIT"):  # when the suite runs from a copy of the tree
        return os.environ["BENCH_COMMIT"]
    try:
        res = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        )
        dirty = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        return res.stdout.strip() + (" (with uncommitted changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def subword_build() -> str:
    """How the installed subword was built: "pgo" (scripts/build_wheel_pgo.sh) or "release"."""
    try:
        import subword._core as core
    except ImportError:
        return "not installed"
    return getattr(core, "_build", "release")


def describe() -> dict:
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "cores_usable": len(os.sched_getaffinity(0)),
        "memory_gib": round(mem, 1),
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "subword_commit": git_commit(),
        "subword_build": subword_build(),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "versions": versions(),
    }
