"""`subword report`: the corpus view and vocabulary health of several models as one static
HTML file — tables and inline SVG plots, no script, nothing fetched from the network."""

from __future__ import annotations

import html
from pathlib import Path

from subword.lab import corpus, health
from subword.tokenizer import Tokenizer

_STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em; color: #1d2330; max-width: 1000px; }
table { border-collapse: collapse; margin: .5em 0 1.5em; }
td, th { border: 1px solid #d8dde6; padding: .2em .6em; text-align: right; }
th { background: #eef1f6; } td.l, th.l { text-align: left; }
.mono { font-family: ui-monospace, monospace; }
svg text { font: 11px system-ui, sans-serif; fill: #333; }
"""
_COLOURS = ("#4a7bd0", "#e08a2c", "#3a9b4a", "#c0457c", "#7d5cc7", "#a0a030")


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def bars(groups: list[str], series: dict[str, list[float]], label: str, fmt: str = "{:.3f}") -> str:
    """A grouped bar chart as inline SVG: one group per entry of `groups`, one bar per
    series (model) in each, with a legend."""
    width, height, top = 900, 180, 20
    names = list(series)
    peak = max([v for values in series.values() for v in values] + [1e-9])
    group_w = width / max(1, len(groups))
    bar_w = max(1.0, (group_w - 6) / max(1, len(names)))
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 60}">']
    for g, group in enumerate(groups):
        for s, name in enumerate(names):
            value = series[name][g]
            h = value / peak * height
            x = g * group_w + 3 + s * bar_w
            parts.append(
                f'<rect x="{x:.1f}" y="{top + height - h:.1f}" width="{max(bar_w - 1, 1):.1f}" '
                f'height="{h:.1f}" fill="{_COLOURS[s % len(_COLOURS)]}">'
                f"<title>{_e(name)} · {_e(group)}: {_e(fmt.format(value))}</title></rect>"
            )
        if len(groups) <= 30 or g % -(-len(groups) // 30) == 0:
            parts.append(
                f'<text x="{g * group_w + group_w / 2:.1f}" y="{top + height + 14}" '
                f'text-anchor="middle">{_e(group)}</text>'
            )
    for s, name in enumerate(names):
        x = s * 160
        parts.append(
            f'<rect x="{x}" y="{top + height + 26}" width="10" height="10" '
            f'fill="{_COLOURS[s % len(_COLOURS)]}"/><text x="{x + 14}" y="{top + height + 35}">'
            f"{_e(name)}</text>"
        )
    parts.append(f'<text x="0" y="12">{_e(label)} (highest {_e(fmt.format(peak))})</text>')
    parts.append("</svg>")
    return "".join(parts)


def _table(header: list[str], rows: list[list[object]], left: int = 1) -> str:
    def cell(tag: str, i: int, value: object) -> str:
        return f'<{tag} class="{"l" if i < left else ""}">{_e(value)}</{tag}>'

    head = "".join(cell("th", i, h) for i, h in enumerate(header))
    body = "".join(
        "<tr>" + "".join(cell("td", i, v) for i, v in enumerate(row)) + "</tr>" for row in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"


def render(models: dict[str, Tokenizer], lines: list[str], corpus_path: str | Path) -> str:
    """The whole report as one HTML document."""
    figures = {name: corpus.measure(tok, lines) for name, tok in models.items()}
    checks = {name: health.check(tok) for name, tok in models.items()}
    names = list(models)
    out = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>subword report: {_e(Path(corpus_path).name)}</title><style>{_STYLE}</style>",
        f"</head><body><h1>subword report: {_e(Path(corpus_path).name)}</h1>",
        f"<p>{len(lines)} non-empty lines, {figures[names[0]]['bytes']} bytes of UTF-8; "
        f"models: {_e(', '.join(names))}.</p>",
        "<h2>Tokens per byte</h2>",
        _table(
            ["model", "tokens", "tokens per byte", "bytes per token", "distinct tokens"],
            [
                [n, f["tokens"], f"{f['tokens_per_byte']:.4f}", _ratio(f), f["distinct_tokens"]]
                for n, f in figures.items()
            ],
        ),
    ]
    scripts = list(dict.fromkeys(s for f in figures.values() for s in f["by_script"]))
    series = {
        n: [f["by_script"].get(s, {}).get("tokens_per_byte", 0.0) for s in scripts]
        for n, f in figures.items()
    }
    out += ["<h2>Tokens per byte, by script</h2>", bars(scripts, series, "tokens per byte")]
    out.append(
        _table(
            ["script", *[f"{n} tokens/byte" for n in names]],
            [[s, *[f"{series[n][i]:.4f}" for n in names]] for i, s in enumerate(scripts)],
        )
    )
    shown = min(200, len(lines))
    line_series = {
        n: [t / b if b else 0.0 for t, b in f["by_line"][:shown]] for n, f in figures.items()
    }
    out += [
        f"<h2>Tokens per byte, line by line (first {shown} lines)</h2>",
        bars([str(i + 1) for i in range(shown)], line_series, "tokens per byte"),
    ]
    lengths = sorted({int(k) for f in figures.values() for k in f["token_lengths"]})
    shares = {
        n: [f["token_lengths"].get(str(k), 0) / max(1, f["tokens"]) for k in lengths]
        for n, f in figures.items()
    }
    out += [
        "<h2>Token lengths (bytes), share of the tokens used</h2>",
        bars([str(k) for k in lengths], shares, "share of tokens", "{:.3f}"),
    ]
    out.append("<h2>Vocabulary health</h2>")
    out.append(
        _table(
            ["model", "tokens checked", "unreachable", "own text encodes otherwise", "never used"],
            [
                [
                    n,
                    checks[n].checked,
                    _count(len(checks[n].unreachable), checks[n].checked),
                    len(checks[n].split_alone),
                    _count(figures[n]["never_used_count"], checks[n].checked),
                ]
                for n in names
            ],
        )
    )
    out.append(f"<p>{_e(health.__doc__.split(chr(10) + chr(10))[1] if health.__doc__ else '')}</p>")
    for n in names:
        tok = models[n]
        listed = checks[n].as_json(tok, 50)
        out.append(f"<h3>{_e(n)}</h3>")
        if listed["unreachable"]:
            out.append(
                "<p>unreachable: <span class='mono'>"
                + _e(", ".join(repr(t["text"]) for t in listed["unreachable"]))
                + "</span></p>"
            )
        out.append("<p>most frequent tokens:</p>")
        out.append(
            _table(
                ["token", "id", "count"],
                [[repr(t["text"]), t["id"], t["count"]] for t in figures[n]["top_tokens"][:15]],
            )
        )
    out.append("<p>Made by <span class='mono'>subword report</span>.</p></body></html>\n")
    return "\n".join(out)


def _ratio(f: dict) -> str:
    return f"{f['bytes'] / f['tokens']:.3f}" if f["tokens"] else "–"


def _count(part: int, whole: int) -> str:
    return f"{part} ({100 * part / whole:.2f}%)" if whole else str(part)
