"""`subword lab`: the tokenizer lab, a local web page (tokens, side by side, merge steps,
training replay, corpus view, vocabulary health); `subword report`: the corpus view and
vocabulary health as one static HTML file. Both run offline."""

from __future__ import annotations

import argparse
import signal
import sys

from subword.errors import UsageError

NAMED_HELP = "cl100k, o200k (pip install bpe-openai), clip, or a model file subword loads"


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "lab",
        help="open the tokenizer lab in the browser (local, offline)",
        description="Serve the tokenizer lab on a local port and open it in the browser: "
        "tokens with ids and spans, several models side by side, a word's merge steps, "
        "a training replay, the corpus view and vocabulary health. Stop it with Ctrl-C.",
    )
    p.add_argument(
        "models",
        nargs="*",
        metavar="MODEL",
        help=f"{NAMED_HELP} (default: those of cl100k, o200k, clip that are installed)",
    )
    p.add_argument("--corpus", metavar="FILE", help="UTF-8 text for the corpus view")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=0, help="port to listen on (default 0: a free one)")
    p.add_argument("--no-browser", action="store_true", help="print the URL, open no browser")
    p.set_defaults(func=run_lab)

    r = subparsers.add_parser(
        "report",
        help="write the corpus view and vocabulary health as one HTML file",
        description="Measure models on a corpus (tokens per byte by line and script, token "
        "lengths, frequent and never-used tokens, unreachable tokens) and write one static "
        "HTML file with inline SVG plots, for a CI job or a paper appendix.",
    )
    r.add_argument("models", nargs="+", metavar="MODEL", help=NAMED_HELP)
    r.add_argument("--corpus", metavar="FILE", required=True, help="UTF-8 text to measure")
    r.add_argument("-o", "--output", metavar="FILE", required=True, help="HTML file to write")
    r.set_defaults(func=run_report)


def load_models(names: list[str]) -> dict:
    from subword.lab.models import NAMED, load_model, short_name

    loaded = {}
    if not names:
        for name in NAMED:
            try:
                loaded[name] = load_model(name)
            except (UsageError, FileNotFoundError):
                continue
        if not loaded:
            raise UsageError("no model given and none of cl100k, o200k, clip is installed")
        return loaded
    for name in names:
        label = short_name(name)
        if label in loaded:
            label = name
        loaded[label] = load_model(name)
    return loaded


def run_lab(args: argparse.Namespace) -> int:
    from pathlib import Path

    from subword.lab.corpus import read_corpus
    from subword.lab.server import Lab, make_server, url_of

    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be from 0 to 65535, got {args.port}")
    lines = read_corpus(args.corpus) if args.corpus else None
    lab = Lab(load_models(args.models), Path(args.corpus).name if args.corpus else None, lines)
    server = make_server(lab, args.host, args.port)
    url = url_of(server)
    print(f"subword lab: serving {', '.join(lab.models)} at {url} (Ctrl-C stops)", flush=True)
    if not args.no_browser:
        import webbrowser

        webbrowser.open(url)
    # A child inherits an ignored or blocked SIGINT (from a test runner, a background job);
    # Ctrl-C is how the lab stops, so it takes SIGINT back.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("subword lab: stopped", file=sys.stderr)
    finally:
        server.server_close()
    return 0


def run_report(args: argparse.Namespace) -> int:
    from subword.files import write_atomic
    from subword.lab.corpus import read_corpus
    from subword.lab.report import render

    lines = read_corpus(args.corpus)
    if not lines:
        raise UsageError(f"--corpus {args.corpus}: no text in it")
    html = render(load_models(args.models), lines, args.corpus)
    write_atomic(args.output, html)
    print(f"subword report: wrote {args.output}", file=sys.stderr)
    return 0
