"""Turns one run's measurements into results.json, RESULTS.md and results.png. Every ratio
is computed here from figures of the same run."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import report_tables, targets
from benchmarks.encoders import PEERS, REFERENCE
from benchmarks.report_util import COUNTS, MB, index, mbps, short, table
from benchmarks.trainers import TRAINERS

# The training peers the performance bar names (gigatoken is shown but not in the bar).
TRAIN_BAR = ("tokenizers", "sentencepiece", "bpeasy", "rustbpe")


# ---------------------------------------------------------------------------- cells


def enc_text(cell: dict | None) -> str:
    if cell is None or "skip" in cell:
        return "—"
    if "error" in cell:
        return short(cell["error"])
    v = mbps(cell)
    if v is None:
        return short(cell.get("check", "?"))
    text = f"{v:.1f}" if v < 100 else f"{v:.0f}"
    return text + ("*" if warmed_by_repeats(cell) else "")


def warmed_by_repeats(cell: dict) -> bool:
    """The first timed call took at least 1.5 times the best one: typically a cache of
    pieces filled by the first pass over the same text."""
    runs = cell.get("runs") or []
    return len(runs) > 1 and runs[0] >= 1.5 * min(runs)


def _short_words(results: dict) -> str:
    """How short calls were timed (results of runs before the setting existed: nothing)."""
    cfg = results["config"]
    if not cfg.get("short_seconds"):
        return ""
    return (
        f" (a shorter call: until its timed calls add up to {cfg['short_seconds']:g} s, "
        f"at most {cfg['short_most']} calls)"
    )


def _fmt_s(x: float) -> str:
    return f"{x:.2f}" if x < 10 else f"{x:.1f}" if x < 100 else f"{x:.0f}"


def _ratio(a: float | None, b: float | None) -> str:
    if not a or not b:
        return "—"
    return f"{a / b:.2f}×"


# ---------------------------------------------------------------------------- headlines


def encoding_headlines(enc: dict) -> list[dict]:
    """subword's MB/s over the fastest identical peer's, per call kind and corpus."""
    idx = index(enc["cells"])
    peers = list(enc["loads"])
    out = []
    for call in ("whole/list", "whole/array", "lines/list", "lines/array", "batch/list",
                 "batch/array", "whole/decode", "lines/decode"):  # fmt: skip
        for item in enc["inputs"]:
            key = item["name"]
            ours = mbps(idx.get(("subword", key, call)))
            best, best_peer = None, None
            for p in peers:
                if p == "subword":
                    continue
                v = mbps(idx.get((p, key, call)))
                if v is not None and (best is None or v > best):
                    best, best_peer = v, p
            if best is None and ours is None:
                continue
            out.append(
                {
                    "call": call,
                    "input": key,
                    "subword_mbps": ours,
                    "fastest_peer": best_peer,
                    "fastest_peer_mbps": best,
                    "ratio": ours / best if ours and best else None,
                }
            )
    return out


def training_headlines(tr: dict) -> list[dict]:
    out = []
    groups = sorted({(c["input"], c["vocab_size"]) for c in tr["cells"]})
    for key, size in groups:
        cells = {c["peer"]: c for c in tr["cells"] if (c["input"], c["vocab_size"]) == (key, size)}
        ours = cells.get("subword")
        ok = {p: c for p, c in cells.items() if "seconds" in c}
        rivals = [(c["seconds"], p) for p, c in ok.items() if p in TRAIN_BAR]
        best = min(rivals) if rivals else None
        hf = ok.get("tokenizers")
        out.append(
            {
                "input": key,
                "vocab_size": size,
                "subword_seconds": ours.get("seconds") if ours else None,
                "subword_vocab": ours.get("got_vocab") if ours else None,
                "fastest_peer": best[1] if best else None,
                "fastest_peer_seconds": best[0] if best else None,
                "speedup": best[0] / ours["seconds"]
                if best and ours and "seconds" in ours
                else None,
                "subword_peak_rss_mb": ours.get("peak_rss_mb")
                if ours and "seconds" in ours
                else None,
                "hf_peak_rss_mb": hf.get("peak_rss_mb") if hf else None,
            }
        )
    return out


def _peer_rank(name: str) -> int:
    order = list(PEERS)
    return order.index(name) if name in order else len(order)


# ---------------------------------------------------------------------------- markdown


def _build_words(build: str) -> str:
    if build == "pgo":
        return "profile-guided build (`scripts/build_wheel_pgo.sh`)"
    return f"{build} build (`pip install .`)" if build == "release" else f"build: {build}"


def _meta_lines(results: dict) -> list[str]:
    m = results["meta"]
    mode = "quick (`--quick`: small prefixes)" if results["config"]["quick"] else "full"
    lines = [
        "# Benchmark results",
        "",
        f"- Date: {m['date']}; mode: {mode}; subword commit {m['subword_commit']}, "
        f"{_build_words(m.get('subword_build', 'release'))}.",
        f"- Machine: {m['cpu']}, {m['cores']} cores ({m['cores_usable']} usable), "
        f"{m['memory_gib']} GiB, {m['os']}, Python {m['python']}; load average at start "
        f"{', '.join(str(x) for x in m['load_average_at_start'])}.",
        f"- Wall time of the run: {results['seconds'] / 60:.1f} min.",
        "- MB = 10^6 bytes of UTF-8 input. One-thread figures: best of up to "
        f"{results['config']['repeats']} timed calls after a warm-up{_short_words(results)}, "
        "in a process pinned to one CPU. A figure counts only when its ids equal tiktoken's "
        "from this run.",
        f"- Methodology and what each number means: [benchmarks/README.md]({results['readme']}).",
        "",
        "Versions: " + ", ".join(f"{k} {v}" for k, v in m["versions"].items()) + ".",
        "",
    ]
    return lines


def _peer_status(results: dict, enc: dict) -> list[str]:
    name = enc["encoding"]
    versions = results["meta"]["versions"]
    rows = []
    for peer, load in enc["loads"].items():
        cells = [c for c in enc["cells"] if c["peer"] == peer]
        checks = [c.get("check") for c in cells if "check" in c]
        if not load or not load.get("ok"):
            status = "not available: " + short((load or {}).get("reason", "?"), 90)
            ids = "—"
        else:
            status = "loaded"
            differ = [f"{c['input']} {c['call']}" for c in cells if c.get("check") not in COUNTS
                      and "check" in c]  # fmt: skip
            if peer == REFERENCE:
                ids = "reference" + (f"; its arrays differ: {', '.join(differ)}" if differ else "")
            elif not checks:
                ids = "—"
            elif not differ:
                ids = f"identical ({len(checks)} checks)"
            else:
                ids = f"differ in {len(differ)} of {len(checks)}: " + short(", ".join(differ), 80)
        dists = PEERS[peer].dists if peer in PEERS else (peer,)
        ver = ", ".join(versions.get(d, "?") for d in dists)
        notes = (load or {}).get("notes") or {}
        how = short(notes.get("list") or notes.get("array") or "", 70)
        rows.append([peer, ver, status, ids, how])
    return [f"## Peers: {name} offline, ids against tiktoken", ""] + table(
        ["peer", "version", name, "ids", "call (list, else array)"], rows
    )


def _headline_lines(results: dict) -> list[str]:
    out = ["## Headline ratios (from this run)", ""]
    rows = []
    for name, enc in (results.get("encoding") or {}).items():
        sub = enc["loads"].get("subword") or {}
        if not sub.get("ok"):
            out.append(f"- {name}: subword not available: {sub.get('reason', 'not run')}.")
        for h in results["headlines"]["encoding"][name]:
            rows.append(
                [
                    name,
                    h["call"],
                    h["input"],
                    f"{h['subword_mbps']:.1f}" if h["subword_mbps"] else "—",
                    f"{h['fastest_peer']} {h['fastest_peer_mbps']:.1f}"
                    if h["fastest_peer"]
                    else "—",
                    f"{h['ratio']:.2f}×" if h["ratio"] else "—",
                ]
            )
    if rows:
        out += ["Encoding, subword against the fastest peer with identical ids (MB/s):", ""]
        out += table(["encoding", "call", "corpus", "subword", "fastest peer", "ratio"], rows)
    tr = results["headlines"].get("training") or []
    if tr:
        rows = []
        for h in tr:
            rows.append(
                [
                    h["input"],
                    str(h["vocab_size"]),
                    (_fmt_s(h["subword_seconds"]) if h["subword_seconds"] else "—")
                    + (
                        f" (vocab {h['subword_vocab']})"
                        if h.get("subword_vocab") not in (None, h["vocab_size"])
                        else ""
                    ),
                    f"{h['fastest_peer']} {_fmt_s(h['fastest_peer_seconds'])}"
                    if h["fastest_peer"]
                    else "—",
                    f"{h['speedup']:.2f}×" if h["speedup"] else "—",
                    f"{h['subword_peak_rss_mb']:.0f}" if h["subword_peak_rss_mb"] else "—",
                    f"{h['hf_peak_rss_mb']:.0f}" if h["hf_peak_rss_mb"] else "—",
                ]
            )
        out += [
            "Byte-level training, subword against the fastest of "
            + ", ".join(TRAIN_BAR)
            + " (seconds; peak RSS in MB):",
            "",
        ]
        out += table(
            ["corpus", "vocab", "subword s", "fastest peer s", "speed-up", "subword RSS", "HF RSS"],
            rows,
        )
    return out


def _encoding_lines(enc: dict) -> list[str]:
    idx = index(enc["cells"])
    keys = [i["name"] for i in enc["inputs"]]
    out = [
        f"## Encoding, {enc['encoding']} (MB/s)",
        "",
        "`*`: the first timed call took at least 1.5× the best (usually a cache of pieces "
        "filled by the first pass over the same text; results.json has every call's time). "
        "`—`: the library has no call of that kind.",
        "",
    ]
    titles = {
        "whole/list": "One thread, whole file in one call, list of ints",
        "whole/array": "One thread, whole file in one call, numpy uint32 array",
        "lines/list": "One thread, one call per line, lists",
        "lines/array": "One thread, one call per line, arrays",
        "batch/list": "Batch, all lines in one call with every core, lists",
        "batch/array": "Batch, all lines in one call with every core, flat array (+ offsets)",
        "batch1/list": "Batch call on one thread (pinned, threads=1), lists",
        "batch1/array": "Batch call on one thread (pinned, threads=1), flat array (+ offsets)",
        "whole/decode": "Decoding on one thread: the whole file's ids (a list) in one call, to str",
        "lines/decode": "Decoding on one thread: one call per line's ids, to str",
    }
    peers = [p for p, load in enc["loads"].items() if load and load.get("ok")]
    for call, title in titles.items():
        rows = []
        for p in peers:
            row = [enc_text(idx.get((p, k, call))) for k in keys]
            if any(x != "—" for x in row):
                rows.append([p] + row)
        if rows:
            out += [f"### {title}", ""] + table(["peer"] + keys, rows)
    return out


def _training_lines(tr: dict) -> list[str]:
    out = ["## Byte-level training (wall seconds / peak RSS MB)", ""]
    sizes = ", ".join(f"{i['name']} {i['bytes'] / MB:.1f} MB" for i in tr["inputs"])
    out += [f"Inputs: {sizes}. Each run is its own process; peak RSS is that process's.", ""]
    peers = [p for p in TRAINERS if any(c["peer"] == p for c in tr["cells"])]
    groups = sorted({(c["input"], c["vocab_size"]) for c in tr["cells"]})
    rows = []
    for key, size in groups:
        row = [key, str(size)]
        for p in peers:
            c = next(
                (
                    c
                    for c in tr["cells"]
                    if (c["peer"], c["input"], c["vocab_size"]) == (p, key, size)
                ),
                None,
            )
            if c is None:
                row.append("—")
            elif "seconds" in c:
                got = c.get("got_vocab")
                mark = "" if got == size else f" (vocab {got})"
                row.append(f"{_fmt_s(c['seconds'])} / {c['peak_rss_mb']:.0f}{mark}")
            else:
                row.append(short(c.get("error", "?")))
        rows.append(row)
    out += table(["corpus", "vocab"] + peers, rows)
    out += ["What each trainer runs:", ""]
    out += [f"- {p}: {TRAINERS[p].how}" for p in peers] + [""]
    return out


def _classic_lines(cl: dict) -> list[str]:
    inp = cl["input"]
    out = [
        "## Classic `</w>` BPE against subword-nmt (command lines, wall seconds)",
        "",
        f"Input: the first {inp['bytes'] / MB:.1f} MB of {inp['corpus']} (subword-nmt is "
        "pure Python and slow on the whole corpus). Both apply subword-nmt's codes.",
        "",
    ]
    for tool, reason in cl["available"].items():
        if reason:
            out.append(f"- {tool}: not available: {reason}")
    rows = []
    groups = sorted(
        {(c["step"], c["symbols"]) for c in cl["cells"]}, key=lambda g: (g[1], g[0] != "learn-bpe")
    )
    for step, size in groups:
        cells = {c["tool"]: c for c in cl["cells"] if (c["step"], c["symbols"]) == (step, size)}
        ref, ours = cells.get("subword-nmt", {}), cells.get("subword", {})

        def show(c: dict) -> str:
            if "seconds" in c and "error" not in c:
                return f"{_fmt_s(c['seconds'])} s / {c['peak_rss_mb']:.0f} MB"
            return short(c.get("error", "—"))

        speed = (
            _ratio(ref.get("seconds"), ours.get("seconds"))
            if "error" not in ref and "error" not in ours
            else "—"
        )
        rows.append([step, str(size), show(ref), show(ours), speed, ours.get("check", "—")])
    return out + [""] + table(["step", "-s", "subword-nmt", "subword", "speed-up", "output"], rows)


def _scaling_lines(sc: dict) -> list[str]:
    out = [
        "## Scaling (seconds per MB; flat means linear)",
        "",
        "Inputs: prefixes of all the corpora concatenated, largest first; past their ~85 MB "
        "the text repeats from the start.",
        "",
    ]
    keys = [i["name"] for i in sc["inputs"]]
    idx = index([c for c in sc["encode"] if "input" in c])
    rows = []
    for p in sorted({c["peer"] for c in sc["encode"]}, key=_peer_rank):
        for call in ("whole/list", "whole/array"):
            row = [f"encode {p} ({call.split('/')[1]})"]
            for k in keys:
                c = idx.get((p, k, call))
                v = mbps(c)
                row.append(f"{1 / v:.3f}" if v else enc_text(c))
            if any(x != "—" for x in row[1:]):
                rows.append(row)
    for p in sorted({c["peer"] for c in sc["train"]}, key=list(TRAINERS).index):
        row = [f"train {p} ({sc['vocab_size']})"]
        for k in keys:
            c = next((c for c in sc["train"] if (c["peer"], c["input"]) == (p, k)), None)
            size = next(i["bytes"] for i in sc["inputs"] if i["name"] == k)
            if c and "seconds" in c:
                row.append(f"{c['seconds'] / (size / MB):.3f}")
            else:
                row.append(short((c or {}).get("error", "—")))
        rows.append(row)
    return out + table(["what"] + keys, rows)


def markdown(results: dict) -> str:
    lines = _meta_lines(results)
    lines += targets.target_lines(results["headlines"].get("targets") or [])
    lines += _headline_lines(results)
    encodings = results.get("encoding") or {}
    for enc in encodings.values():
        lines += _peer_status(results, enc)
    for enc in encodings.values():
        lines += _encoding_lines(enc)
    if encodings:
        lines += report_tables.per_call_lines(encodings)
    if results.get("cold"):
        lines += report_tables.cold_lines(results["cold"])
    if results.get("training"):
        lines += _training_lines(results["training"])
    if results.get("classic"):
        lines += _classic_lines(results["classic"])
    if results.get("scaling"):
        lines += _scaling_lines(results["scaling"])
    if results.get("scale"):
        from benchmarks.sections.scale import lines as scale_lines

        lines += scale_lines(results["scale"])
    if results.get("worst"):
        lines += report_tables.worst_lines(results["worst"], results["headlines"]["worst"])
    lines += ["![results](results.png)", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------------------- plot


def plot(results: dict, path: Path) -> str | None:
    """A 2×2 figure: one-thread MB/s, batch MB/s, training seconds, scaling s/MB. Returns
    None, or why no plot was made."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        return f"matplotlib not available: {e}"
    fig, axes = plt.subplots(2, 2, figsize=(15, 10))
    # The first encoding of the run (cl100k_base by default); the tables have every one.
    enc = next(iter((results.get("encoding") or {}).values()), None)
    for ax, calls, title in (
        (axes[0][0], ("whole/list", "whole/array"), "Encoding, one thread, whole file (MB/s)"),
        (axes[0][1], ("batch/list", "batch/array"), "Encoding, batch, every core (MB/s)"),
    ):
        if not enc:
            ax.set_axis_off()
            continue
        idx = index(enc["cells"])
        keys = [i["name"] for i in enc["inputs"]]
        bars = []
        for p in enc["loads"]:
            for call in calls:
                vals = [mbps(idx.get((p, k, call))) for k in keys]
                if any(v is not None for v in vals):
                    bars.append((f"{p} ({call.split('/')[1]})", [v or 0 for v in vals]))
        width = 0.8 / max(1, len(bars))
        colors = plt.get_cmap("tab20").colors
        for i, (label, vals) in enumerate(bars):
            xs = [x + i * width for x in range(len(keys))]
            ax.bar(xs, vals, width, label=label, color=colors[i % len(colors)])
        ax.set_xticks([x + 0.4 - width / 2 for x in range(len(keys))], keys, fontsize=8)
        ax.set_yscale("log")
        ax.set_title(f"{title}, {enc['encoding']}, log scale")
        ax.legend(fontsize=6, ncol=2)
    tr = results.get("training")
    ax = axes[1][0]
    if tr:
        groups = sorted({(c["input"], c["vocab_size"]) for c in tr["cells"]})
        peers = [p for p in TRAINERS if any(c["peer"] == p for c in tr["cells"])]
        width = 0.8 / max(1, len(peers))
        for i, p in enumerate(peers):
            vals = []
            for g in groups:
                c = next(
                    (c for c in tr["cells"] if (c["peer"], c["input"], c["vocab_size"]) == (p, *g)),
                    None,
                )
                vals.append(c["seconds"] if c and "seconds" in c else 0)
            ax.bar([x + i * width for x in range(len(groups))], vals, width, label=p)
        ax.set_xticks(
            [x + 0.4 - width / 2 for x in range(len(groups))],
            [f"{k} {v // 1000}k" for k, v in groups],
            fontsize=8,
        )
        ax.set_yscale("log")
        ax.set_title("Byte-level training (seconds, lower is better), log scale")
        ax.legend(fontsize=7)
    else:
        ax.set_axis_off()
    sc = results.get("scaling")
    ax = axes[1][1]
    if sc:
        sizes = {i["name"]: i["bytes"] / MB for i in sc["inputs"]}
        idx = index([c for c in sc["encode"] if "input" in c])
        for p in sorted({c["peer"] for c in sc["encode"]}, key=_peer_rank):
            for call in ("whole/list", "whole/array"):
                pts = [(sizes[k], 1 / v) for k in sizes if (v := mbps(idx.get((p, k, call))))]
                if pts:
                    ax.plot(*zip(*pts), marker="o", label=f"encode {p} ({call.split('/')[1]})")
        for p in sorted({c["peer"] for c in sc["train"]}, key=list(TRAINERS).index):
            pts = [
                (sizes[c["input"]], c["seconds"] / sizes[c["input"]])
                for c in sc["train"]
                if c["peer"] == p and "seconds" in c
            ]
            if pts:
                ax.plot(*zip(*pts), marker="s", linestyle="--", label=f"train {p}")
        ax.set_xlabel("input (MB)")
        ax.set_ylabel("seconds per MB")
        ax.set_yscale("log")
        ax.set_title("Scaling: cost per MB against input size")
        ax.legend(fontsize=7)
    else:
        ax.set_axis_off()
    m = results["meta"]
    fig.suptitle(f"subword benchmarks, {m['date']}, {m['cpu']}, {m['cores']} cores", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None


# ---------------------------------------------------------------------------- files


def write(results: dict, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    headlines: dict = {}
    if results.get("encoding"):
        headlines["encoding"] = {n: encoding_headlines(e) for n, e in results["encoding"].items()}
    if results.get("training"):
        headlines["training"] = training_headlines(results["training"])
    if results.get("worst"):
        headlines["worst"] = report_tables.worst_summary(results["worst"])
    headlines["targets"] = targets.targets(results)
    results["headlines"] = headlines
    problem = plot(results, out / "results.png")
    if problem:
        results["plot"] = problem
    for name, text in (
        ("results.json", json.dumps(results, indent=1, ensure_ascii=False)),
        ("RESULTS.md", markdown(results)),
    ):
        tmp = out / (name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(out / name)


def main(argv: list[str] | None = None) -> int:
    """`python -m benchmarks.report results.json`: rewrites RESULTS.md and results.png
    beside a results.json (after a change to the report, without measuring again)."""
    import argparse
    import os

    p = argparse.ArgumentParser(prog="python -m benchmarks.report", description=main.__doc__)
    p.add_argument("results", type=Path)
    a = p.parse_args(argv)
    results = json.loads(a.results.read_text(encoding="utf-8"))
    out = a.results.resolve().parent
    results["readme"] = os.path.relpath(Path(__file__).resolve().parent / "README.md", out)
    write(results, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
