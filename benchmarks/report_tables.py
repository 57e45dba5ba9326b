"""The report's tables for the fixed cost of a call, cold start and hostile input (time and
peak memory), from one run's results."""

from __future__ import annotations

from benchmarks.encoders import PEERS
from benchmarks.report_util import COUNTS, index, short, table


def _peer_rank(name: str) -> int:
    order = list(PEERS)
    return order.index(name) if name in order else len(order)


def per_call_us(enc: dict) -> dict[tuple[str, str], float]:
    """(peer, "list"/"array") -> µs per call on the one-word lines (identical ids only)."""
    pc = enc.get("per_call")
    if not pc:
        return {}
    out = {}
    for c in enc["cells"]:
        if c.get("input") != pc["name"] or "seconds" not in c or c.get("check") not in COUNTS:
            continue
        out[(c["peer"], c["call"].split("/")[1])] = c["seconds"] / c["calls"] * 1e6
    return out


def per_call_lines(encodings: dict) -> list[str]:
    rows = []
    for name, enc in encodings.items():
        costs = per_call_us(enc)
        for p in sorted({p for p, _ in costs}, key=_peer_rank):
            rows.append(
                [name, p]
                + [f"{costs[(p, h)]:.3f}" if (p, h) in costs else "—" for h in ("list", "array")]
            )
    if not rows:
        return []
    lines = next(iter(encodings.values()))["per_call"]["lines"]
    return [
        "## Fixed cost of a call (µs per call, one thread)",
        "",
        f"One call per line on {lines:,} lines of one short word each (a few words cycling, "
        "so every library's cache holds them): the cost of a call itself, as a server that "
        "encodes small requests pays it. Lower is better.",
        "",
    ] + table(["encoding", "peer", "list", "array"], rows)


def cold_lines(cold: dict) -> list[str]:
    rows = []
    for r in cold["rows"]:
        if "load_seconds" not in r:
            rows.append([r["encoding"], r["peer"], short(r.get("error", "?"), 60), "", "", "", ""])
            continue
        ok = r["check"] in COUNTS
        rows.append(
            [
                r["encoding"],
                r["peer"],
                f"{r['load_seconds']:.3f}",
                f"{r['first_ns_per_byte']:.1f}" if ok else short(r["check"], 40),
                f"{r['warm_ns_per_byte']:.1f}" if ok else "",
                f"{r['first_ns_per_byte'] / r['warm_ns_per_byte']:.2f}×" if ok else "",
                r["call"],
            ]
        )
    return [
        "## Cold start",
        "",
        "Import + load: a fresh process imports the library and loads the encoding (numpy "
        f"and the suite's own modules are imported before the clock starts); the median of "
        f"{len(cold['rows'][0]['runs']) if cold['rows'] else 0} processes. Then, in each "
        f"process, the first call on {cold['text_bytes'] // 1000} kB of new text "
        f"({cold['corpus']}) and warm calls on fresh texts of the same size after 20 others "
        "(no cache of the exact text helps either), in ns per byte.",
        "",
    ] + table(
        [
            "encoding",
            "peer",
            "import + load s",
            "first call ns/B",
            "warm ns/B",
            "first ÷ warm",
            "call",
        ],  # fmt: skip
        rows,
    )


def worst_summary(worst: dict) -> list[dict]:
    """Per peer, call and case: time per byte over the normal text's, and peak memory per
    input byte, at each size."""
    idx = index(worst["cells"])
    peers = sorted({c["peer"] for c in worst["cells"] if "peer" in c}, key=_peer_rank)
    out = []
    for peer in peers:
        for call in ("whole/list", "whole/array"):
            normal = idx.get((peer, worst["normal"], call))
            if not normal or "seconds" not in normal:
                continue
            per_byte_normal = normal["seconds"] / normal["bytes"]
            for case in worst["cases"]:
                c = idx.get((peer, case["key"], call))
                row = {"peer": peer, "call": call, "case": case["case"], "size": case["size"]}
                if c is None or "skip" in c:
                    continue
                if "seconds" in c:
                    row["check"] = c.get("check")
                    counts = row["check"] in COUNTS
                    row["ns_per_byte"] = c["seconds"] / c["bytes"] * 1e9
                    ratio = (c["seconds"] / c["bytes"]) / per_byte_normal
                    row["vs_normal"] = ratio if counts else None
                    added = c.get("rss_added_bytes")
                    row["rss_per_byte"] = (
                        added / c["bytes"] if counts and added is not None else None
                    )
                else:
                    row["error"] = c.get("error")
                out.append(row)
    return out


def worst_lines(worst: dict, summary: list[dict]) -> list[str]:
    idx = index(worst["cells"])
    normal_rss = {
        (p, call): c["rss_added_bytes"] / c["bytes"]
        for (p, key, call), c in idx.items()
        if key == worst["normal"] and "rss_added_bytes" in c
    }
    repeats = worst.get("repeats", 1)
    each = (
        "each call in a fresh process"
        if repeats == 1
        else f"each call in {repeats} fresh processes, of which the median time and the "
        "largest peak RSS are kept"
    )
    out = [
        f"## Hostile input ({worst['encoding']}; time per byte ÷ the same library's on normal "
        "text; peak RSS per input byte)",
        "",
        f"Baseline: {worst['normal']}. One thread, whole input in one call, {each}. "
        "Peak RSS per byte: the call's peak resident memory above what the "
        "process held just before it (tokenizer and input loaded), over the input's bytes. "
        f"A call taking more than {worst['timeout']:g} s is stopped. Ratio ~1 is ideal; the "
        "1/10 → full step shows growth (linear keeps the ratio, quadratic multiplies it by 10).",
        "",
    ]
    if normal_rss:
        out += ["Normal text, peak RSS per byte: " + ", ".join(
            f"{p} {call.split('/')[1]} {v:.2f}" for (p, call), v in sorted(normal_rss.items())
        ) + ".", ""]  # fmt: skip
    rows = []
    for r in summary:
        if "ns_per_byte" in r:
            if r["vs_normal"] is None:
                text, mem = f"{r['ns_per_byte']:.1f} ns/B ({short(r.get('check'), 30)})", "—"
            else:
                text = f"{r['vs_normal']:.2f} ({r['ns_per_byte']:.1f} ns/B)"
                mem = f"{r['rss_per_byte']:.2f}" if r["rss_per_byte"] is not None else "—"
        else:
            text, mem = short(r.get("error", "—")), "—"
        rows.append([r["peer"], r["call"].split("/")[1], r["case"], r["size"], text, mem])
    return out + table(
        ["peer", "output", "case", "size", "ratio to normal text", "peak RSS B/B"], rows
    )
