"""The targets of issue 10 (the fastest exact encoder), each computed from one run's figures:
target, subword's figure, the peer's, their ratio and met/missed. Nothing here is typed in
but the goals; a figure counts only when its ids equal tiktoken's (see report.mbps)."""

from __future__ import annotations

from collections.abc import Callable

from benchmarks.report_tables import per_call_us, worst_summary
from benchmarks.report_util import COUNTS, index, mbps, table

# The corpora the one-thread array target names; "never below 1.0×" covers every corpus.
TARGET_CORPORA = ("en-kjv", "en-shakespeare", "en-large", "multi-fortunes", "ko-help",
                  "code-c-headers")  # fmt: skip
SPEED = 1.5  # × the fastest peer
BATCH_SELF = 1.8  # batch on all cores over our own batch call on one thread
PER_CALL_US = 0.3
LOAD_S = 0.2
FIRST_OVER_WARM = 1.5
HOSTILE_TIME = 3.0  # time per byte over normal text's
HOSTILE_RSS = {"list": 12.0, "array": 8.0}  # peak bytes per input byte


def _row(target: str, enc: str, where: str, ours: str, peer: str, ratio: float | None,
         met: bool | None) -> dict:  # fmt: skip
    return {"target": target, "encoding": enc, "where": where, "subword": ours, "peer": peer,
            "ratio": ratio, "met": met}  # fmt: skip


def _fastest(idx: dict, peers: list[str], key: str, call: str) -> tuple[float | None, str]:
    best, who = None, ""
    for p in peers:
        if p == "subword":
            continue
        v = mbps(idx.get((p, key, call)))
        if v is not None and (best is None or v > best):
            best, who = v, p
    return best, who


def _per_corpus(
    target: str,
    enc: dict,
    call: str,
    goal: float,
    keys: list[str],
    rival: Callable[[dict, str], tuple[float | None, str]],
) -> dict:
    """One row for a target that must hold on every corpus: the worst corpus is shown, met
    only when every corpus met it (a corpus without both figures counts as missed)."""
    idx = index(enc["cells"])
    found = []  # (ratio, corpus, ours, peer's, peer)
    for key in keys:
        ours = mbps(idx.get(("subword", key, call)))
        other, who = rival(idx, key)
        found.append((ours / other if ours and other else None, key, ours, other, who))
    if not found:
        return _row(target, enc["encoding"], "no corpus", "—", "—", None, None)
    missing = [f for f in found if f[0] is None]
    met = sum(1 for f in found if f[0] is not None and f[0] >= goal)
    worst = missing[0] if missing else min(found, key=lambda f: f[0] or 0.0)
    r, key, ours, other, who = worst
    where = f"{'no figure: ' if r is None else 'worst: '}{key} ({met}/{len(keys)} met)"
    return _row(
        target,
        enc["encoding"],
        where,
        f"{ours:.1f} MB/s" if ours else "no figure",
        f"{who} {other:.1f} MB/s" if other else "no figure",
        r,
        met == len(keys) and bool(keys),
    )


def encoding_targets(enc: dict) -> list[dict]:
    peers = list(enc["loads"])
    all_keys = [i["name"] for i in enc["inputs"]]
    named = [k for k in TARGET_CORPORA if k in all_keys]

    def giga(idx: dict, key: str, call: str = "whole/array") -> tuple[float | None, str]:
        return mbps(idx.get(("gigatoken", key, call))), "gigatoken"

    def fastest(call: str) -> Callable[[dict, str], tuple[float | None, str]]:
        return lambda idx, key: _fastest(idx, peers, key, call)

    def own_one_thread(call: str) -> Callable[[dict, str], tuple[float | None, str]]:
        return lambda idx, key: (mbps(idx.get(("subword", key, call))), "subword 1 thread")

    rows = [
        _per_corpus(f"one thread, whole text, arrays ≥ {SPEED}× gigatoken", enc, "whole/array",
                    SPEED, named, giga),
        _per_corpus("one thread, whole text, arrays never below 1.0× gigatoken", enc,
                    "whole/array", 1.0, all_keys, giga),
        _per_corpus(f"one thread, whole text, lists ≥ {SPEED}× fastest list peer", enc,
                    "whole/list", SPEED, all_keys, fastest("whole/list")),
        _per_corpus(f"per-line calls, lists ≥ {SPEED}× fastest peer", enc, "lines/list", SPEED,
                    all_keys, fastest("lines/list")),
        _per_corpus(f"per-line calls, arrays ≥ {SPEED}× fastest peer", enc, "lines/array",
                    SPEED, all_keys, fastest("lines/array")),
    ]  # fmt: skip
    rows += per_call_targets(enc)
    rows += [
        _per_corpus(f"batch, all cores, lists ≥ {SPEED}× fastest peer's batch", enc,
                    "batch/list", SPEED, all_keys, fastest("batch/list")),
        _per_corpus(f"batch, all cores, arrays ≥ {SPEED}× fastest peer's batch", enc,
                    "batch/array", SPEED, all_keys, fastest("batch/array")),
        _per_corpus(f"batch, all cores, lists ≥ {BATCH_SELF}× our batch on one thread", enc,
                    "batch/list", BATCH_SELF, all_keys, own_one_thread("batch1/list")),
        _per_corpus(f"batch, all cores, arrays ≥ {BATCH_SELF}× our batch on one thread", enc,
                    "batch/array", BATCH_SELF, all_keys, own_one_thread("batch1/array")),
    ]  # fmt: skip
    return rows


def per_call_targets(enc: dict) -> list[dict]:
    """Fixed cost of a call (one-word lines): ≤ 0.3 µs; the ratio is the fastest peer's cost
    over ours."""
    costs = per_call_us(enc)
    rows = []
    for how in ("list", "array"):
        ours = costs.get(("subword", how))
        rivals = [(v, p) for (p, h), v in costs.items() if h == how and p != "subword"]
        best = min(rivals) if rivals else None
        rows.append(
            _row(
                f"fixed cost per call, {how}s ≤ {PER_CALL_US} µs",
                enc["encoding"],
                "one-word lines",
                f"{ours:.3f} µs" if ours is not None else "no figure",
                f"{best[1]} {best[0]:.3f} µs" if best else "no figure",
                best[0] / ours if best and ours else None,
                ours <= PER_CALL_US if ours is not None else None,
            )
        )
    return rows


def cold_targets(cold: dict) -> list[dict]:
    rows = []
    for enc in dict.fromkeys(r["encoding"] for r in cold["rows"]):
        got = {r["peer"]: r for r in cold["rows"] if r["encoding"] == enc}
        ok = {p: r for p, r in got.items() if "load_seconds" in r and r["check"] in COUNTS}
        ours = ok.get("subword")
        others = [(r["load_seconds"], p) for p, r in ok.items() if p != "subword"]
        best = min(others) if others else None
        rows.append(
            _row(
                f"cold start: import + load ≤ {LOAD_S} s",
                enc,
                "fresh process, median",
                f"{ours['load_seconds']:.3f} s" if ours else "no figure",
                f"{best[1]} {best[0]:.3f} s" if best else "no figure",
                best[0] / ours["load_seconds"] if best and ours else None,
                ours["load_seconds"] <= LOAD_S if ours else None,
            )
        )
        mine = ours["first_ns_per_byte"] / ours["warm_ns_per_byte"] if ours else None
        peer_first = [(r["first_ns_per_byte"], p) for p, r in ok.items() if p != "subword"]
        best = min(peer_first) if peer_first else None
        rows.append(
            _row(
                f"cold start: first call ≤ {FIRST_OVER_WARM}× a warm call",
                enc,
                f"{cold['text_bytes'] // 1000} kB of new text",
                f"{mine:.2f}× ({ours['first_ns_per_byte']:.1f} ns/B first)"
                if ours and mine
                else "no figure",
                f"{best[1]} first {best[0]:.1f} ns/B" if best else "no figure",
                best[0] / ours["first_ns_per_byte"] if best and ours else None,
                mine <= FIRST_OVER_WARM if mine else None,
            )
        )
    return rows


def hostile_targets(worst: dict) -> list[dict]:
    """Worst case of all the hostile inputs (full size), per output kind: time per byte over
    normal text's, and peak bytes of memory per input byte."""
    summary = [r for r in worst_summary(worst) if r["size"] == "full"]
    rows = []
    for how in ("list", "array"):
        mine = [r for r in summary if r["peer"] == "subword" and r["call"] == "whole/" + how]
        cases = [r["case"] for r in mine]
        for field, goal, unit, label in (
            ("vs_normal", HOSTILE_TIME, "×", f"time per byte ≤ {HOSTILE_TIME}× normal text"),
            ("rss_per_byte", HOSTILE_RSS[how], " B/B", f"peak RSS ≤ {HOSTILE_RSS[how]:g} B/B"),
        ):
            counted = [r for r in mine if r.get(field) is not None]
            missing = len(mine) - len(counted)
            worst_r = max(counted, key=lambda r: r[field]) if counted else None
            peer = None
            if worst_r:
                same = [r for r in summary if r["case"] == worst_r["case"]
                        and r["call"] == worst_r["call"] and r["peer"] != "subword"
                        and r.get(field) is not None]  # fmt: skip
                peer = min(same, key=lambda r: r[field]) if same else None
            met = sum(1 for r in counted if r[field] <= goal)
            where = (f"worst: {worst_r['case']} ({met}/{len(cases)} met"
                     + (f", {missing} without a figure" if missing else "") + ")"
                     if worst_r else "no figure")  # fmt: skip
            rows.append(
                _row(
                    f"hostile input, {how}s: {label}",
                    worst["encoding"],
                    where,
                    f"{worst_r[field]:.2f}{unit}" if worst_r else "no figure",
                    f"{peer['peer']} {peer[field]:.2f}{unit}" if peer else "no figure",
                    peer[field] / worst_r[field] if peer and worst_r and worst_r[field] else None,
                    met == len(cases) and bool(cases) if worst_r else None,
                )
            )
    return rows


def targets(results: dict) -> list[dict]:
    rows: list[dict] = []
    for enc in (results.get("encoding") or {}).values():
        rows += encoding_targets(enc)
    if results.get("cold"):
        rows += cold_targets(results["cold"])
    if results.get("worst"):
        rows += hostile_targets(results["worst"])
    return rows


def target_lines(rows: list[dict]) -> list[str]:
    if not rows:
        return []
    met = sum(1 for r in rows if r["met"])
    out = [
        "## Targets of issue 10 (from this run)",
        "",
        f"{met} of {len(rows)} met. `ratio`: how many times better subword is than the peer "
        "(its MB/s over the peer's; for costs, the peer's over ours); a per-corpus target "
        "shows its worst corpus and is met only when every corpus meets it.",
        "",
    ]
    body = []
    for r in rows:
        verdict = {True: "met", False: "**missed**", None: "no figure"}[r["met"]]
        ratio = f"{r['ratio']:.2f}×" if r["ratio"] else "—"
        body.append([r["target"], r["encoding"], r["where"], r["subword"], r["peer"], ratio,
                     verdict])  # fmt: skip
    return out + table(["target", "encoding", "where", "subword", "peer", "ratio", "verdict"], body)
