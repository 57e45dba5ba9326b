"""The benchmark suite's timer (`benchmarks/timing.py`): how many calls a figure is the best
of. A fake clock stands in for the module's `time`, so each call lasts exactly as long as
the test says."""

from __future__ import annotations

import pytest
from benchmarks import timing


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(timing, "time", fake)  # the module's clock only, not the process's
    return fake


def calls_lasting(clock: FakeClock, seconds: list[float]):
    """A call whose n-th run lasts seconds[n] (the last one repeated), and its log."""
    made: list[int] = []

    def call() -> int:
        n = len(made)
        clock.now += seconds[min(n, len(seconds) - 1)]
        made.append(n)
        return n

    return call, made


def test_repeats_alone_without_the_short_rule(clock: FakeClock) -> None:
    call, made = calls_lasting(clock, [0.001])
    t, _ = timing.best_of(call, None, repeats=5, budget=10.0)
    assert len(made) == 5 and len(t.runs) == 5


def test_a_short_call_is_timed_until_the_short_seconds(clock: FakeClock) -> None:
    call, made = calls_lasting(clock, [0.25, 0.125])  # exact in binary: no rounding
    t, _ = timing.best_of(call, None, repeats=5, budget=10.0, short=(2.0, 50))
    # 0.25 + 14 × 0.125 = 2.0 s: the 15th call reaches the short seconds.
    assert len(t.runs) == 15
    assert t.best == 0.125


def test_the_short_rule_stops_at_its_most_calls(clock: FakeClock) -> None:
    call, made = calls_lasting(clock, [0.0001])
    t, _ = timing.best_of(call, None, repeats=5, budget=10.0, short=(1.0, 12))
    assert len(t.runs) == 12


def test_a_long_call_is_not_repeated_more(clock: FakeClock) -> None:
    call, made = calls_lasting(clock, [0.3])
    t, _ = timing.best_of(call, None, repeats=3, budget=10.0, short=(0.5, 50))
    assert len(t.runs) == 3


def test_the_budget_still_ends_the_repeats_first(clock: FakeClock) -> None:
    call, made = calls_lasting(clock, [4.0])
    t, _ = timing.best_of(call, None, repeats=5, budget=10.0, short=(0.5, 50))
    assert len(t.runs) == 3  # 12 s of timed calls after the third


def test_check_sees_the_first_timed_result_and_warm_up_is_untimed(clock: FakeClock) -> None:
    call, made = calls_lasting(clock, [5.0, 0.001])
    seen: list[int] = []
    t, checked = timing.best_of(
        call, call, repeats=2, budget=10.0, check=lambda r: seen.append(r) or "ok"
    )
    assert made == [0, 1, 2] and seen == [1] and checked == "ok"
    assert t.runs == [pytest.approx(0.001)] * 2


def test_garbage_is_collected_once_and_never_during_the_calls(clock: FakeClock) -> None:
    # A collection before each call left the CPU's caches cold for calls under a
    # millisecond: one collection before the timed calls, none between them.
    import gc

    call, made = calls_lasting(clock, [0.001])
    enabled: list[bool] = []
    collections: list[int] = []

    def timed() -> int:
        enabled.append(gc.isenabled())
        return call()

    def count(phase: str, info: dict) -> None:
        if phase == "start":
            collections.append(len(made))

    gc.callbacks.append(count)
    try:
        timing.best_of(timed, None, repeats=5, budget=10.0, short=(1.0, 12))
    finally:
        gc.callbacks.remove(count)
    assert len(made) == 12 and enabled == [False] * 12
    assert collections == [0]
    assert gc.isenabled()


def test_the_collector_is_on_again_after_a_failing_call(clock: FakeClock) -> None:
    import gc

    def failing() -> None:
        raise RuntimeError("the library failed")

    with pytest.raises(RuntimeError):
        timing.best_of(failing, None, repeats=3, budget=10.0)
    assert gc.isenabled()
