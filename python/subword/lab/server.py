"""The lab's web server: the standard library's `http.server` (one page, three static files
and a small JSON API do not need more), bound to 127.0.0.1 unless told otherwise.

Every API answer is JSON. A request the user got wrong (unknown model, bad JSON, text too
large, a bad argument) is 400 with `{"error": message}`; an unknown path is 404; anything
else is a bug of ours and answers 500 with a one-line message, never a traceback page.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from subword.errors import SubwordError
from subword.lab import api, corpus, health, models
from subword.tokenizer import Tokenizer

MAX_TEXT = 100_000  # characters per request: the page is for looking, not for bulk work
MAX_BODY = 1 << 20
STATIC = Path(__file__).parent / "static"
_FILES = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/lab.js": ("lab.js", "text/javascript; charset=utf-8"),
    "/lab.css": ("lab.css", "text/css; charset=utf-8"),
}


class BadRequest(Exception):
    """A request the user got wrong: answered 400 with its message."""


@dataclass
class Lab:
    """What the server holds: the models by label, the corpus lines, and figures computed
    once (health and corpus views take seconds on large vocabularies)."""

    models: dict[str, Tokenizer]
    corpus_name: str | None = None
    corpus_lines: list[str] | None = None
    _cache: dict[tuple[str, str], dict] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def model(self, name: Any) -> tuple[str, Tokenizer]:
        if name is None:
            if len(self.models) == 1:
                return next(iter(self.models.items()))
            raise BadRequest(f'"model" is required: one of {", ".join(self.models)}')
        if not isinstance(name, str) or name not in self.models:
            raise BadRequest(f"unknown model {name!r}: one of {', '.join(self.models)}")
        return name, self.models[name]

    def cached(self, kind: str, name: str, compute) -> dict:
        with self._lock:
            if (kind, name) not in self._cache:
                self._cache[kind, name] = compute()
            return self._cache[kind, name]


def _text(body: dict, key: str = "text") -> str:
    text = body.get(key)
    if not isinstance(text, str):
        raise BadRequest(f'"{key}" must be a string')
    if len(text) > MAX_TEXT:
        raise BadRequest(f'"{key}" has {len(text)} characters; the lab takes at most {MAX_TEXT}')
    return text


def handle(lab: Lab, method: str, path: str, query: dict, body: dict) -> dict:
    """The API: one answer per route (see docs/lab.md)."""
    if method == "GET" and path == "/api/models":
        return {
            "models": [{"name": n, **models.describe(t)} for n, t in lab.models.items()],
            "corpus": lab.corpus_name,
            "default_words": api.DEFAULT_WORDS,
            "tie_breaks": list(api.reference.TIE_BREAKS),
        }
    if method == "POST" and path == "/api/encode":
        return api.encode(lab.model(body.get("model"))[1], _text(body))
    if method == "POST" and path == "/api/compare":
        names = body.get("models", list(lab.models))
        if not isinstance(names, list) or not names:
            raise BadRequest('"models" must be a non-empty list of model names')
        text = _text(body)
        return {"results": {n: api.encode(lab.model(n)[1], text) for n in names}}
    if method == "POST" and path == "/api/explain":
        return api.explain(lab.model(body.get("model"))[1], _text(body, "word"))
    if method == "POST" and path == "/api/train-replay":
        num_merges = body.get("num_merges", 10)
        tie_break = body.get("tie_break", "first")
        if tie_break not in api.reference.TIE_BREAKS:
            raise BadRequest(f'"tie_break" must be one of {", ".join(api.reference.TIE_BREAKS)}')
        return api.train_replay(body.get("words", api.DEFAULT_WORDS), num_merges, tie_break)
    if method == "GET" and path == "/api/health":
        name, tok = lab.model(query.get("model"))
        return lab.cached("health", name, lambda: health.check(tok).as_json(tok))
    if method == "GET" and path == "/api/corpus":
        name, tok = lab.model(query.get("model"))
        lines = lab.corpus_lines
        if lines is None:
            raise BadRequest("no corpus: start the lab with --corpus FILE")
        return lab.cached("corpus", name, lambda: corpus.measure(tok, lines))
    raise LookupError(path)


class Handler(BaseHTTPRequestHandler):
    lab: Lab  # set on the subclass `serve` makes
    server_version = "subword-lab"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # one line per request would drown the URL the user needs

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, payload: dict) -> None:
        # ASCII escapes: a lone surrogate in the user's text must not break the answer.
        data = json.dumps(payload).encode("ascii")
        self._send(status, data, "application/json; charset=utf-8")

    def do_GET(self) -> None:
        self._answer("GET")

    def do_POST(self) -> None:
        self._answer("POST")

    def _answer(self, method: str) -> None:
        url = urlsplit(self.path)
        if method == "GET" and url.path in _FILES:
            name, content_type = _FILES[url.path]
            self._send(200, (STATIC / name).read_bytes(), content_type)
            return
        try:
            query = {k: v[-1] for k, v in parse_qs(url.query).items()}
            body = self._body() if method == "POST" else {}
            self._json(200, handle(self.lab, method, url.path, query, body))
        except LookupError:
            self._json(404, {"error": f"no such page or API call: {method} {url.path}"})
        except (BadRequest, SubwordError) as exc:
            self._json(400, {"error": str(exc)})
        except Exception as exc:  # a bug of ours: a message, not a traceback page
            self._json(500, {"error": f"internal error: {type(exc).__name__}: {exc}"})

    def _body(self) -> dict:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            raise BadRequest("bad Content-Length") from None
        if length > MAX_BODY:
            raise BadRequest(f"request body of {length} bytes; the lab takes at most {MAX_BODY}")
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw.decode("utf-8")) if raw else {}
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise BadRequest(f"the request body is not JSON: {exc}") from None
        if not isinstance(body, dict):
            raise BadRequest("the request body must be a JSON object")
        return body


def make_server(lab: Lab, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """A server for `lab` (port 0: a free port; read it from `server.server_address`)."""
    handler = type("LabHandler", (Handler,), {"lab": lab})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server


def url_of(server: ThreadingHTTPServer) -> str:
    host, port = str(server.server_address[0]), int(server.server_address[1])
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"
