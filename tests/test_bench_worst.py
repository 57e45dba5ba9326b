"""The hostile-input section's figure from its fresh processes (`benchmarks/sections/worst.py`):
the median time, every run kept, the largest peak memory, and a failed run reported as is."""

from __future__ import annotations

import pytest
from benchmarks.sections.worst import combine_runs


def cell(seconds: float, rss: int, check: str = "identical") -> dict:
    return {"peer": "p", "input": "x", "call": "whole/list", "seconds": seconds,
            "runs": [seconds], "bytes": 10, "check": check, "rss_added_bytes": rss}  # fmt: skip


def test_the_median_run_is_kept_with_every_time_and_the_largest_peak() -> None:
    got = combine_runs([cell(3.0, 50), cell(1.0, 70, "first"), cell(2.0, 60, "median")])
    assert got["seconds"] == 2.0
    assert got["check"] == "median"  # the whole cell of that run, not a mix
    assert got["runs"] == [3.0, 1.0, 2.0]
    assert got["rss_added_bytes"] == 70
    assert got["rss_added_runs"] == [50, 70, 60]


def test_of_two_runs_the_slower_is_not_kept() -> None:
    assert combine_runs([cell(4.0, 1), cell(2.0, 1)])["seconds"] == 2.0


def test_one_run_stands_as_it_was() -> None:
    only = cell(1.5, 9)
    got = combine_runs([only])
    assert (got["seconds"], got["rss_added_bytes"], got["runs"]) == (1.5, 9, [1.5])


def test_a_run_that_failed_is_reported_alone() -> None:
    failed = {"peer": "p", "input": "x", "call": "whole/list", "error": "timed out after 120 s"}
    assert combine_runs([cell(1.0, 5), failed]) == failed


def test_the_number_of_processes_is_at_least_one() -> None:
    from benchmarks.config import parse

    assert parse(["--worst-repeats", "5"]).worst_repeats == 5
    assert parse([]).worst_repeats == 3 and parse(["--quick"]).worst_repeats == 1
    with pytest.raises(SystemExit, match="at least 1"):
        parse(["--worst-repeats", "0"])
