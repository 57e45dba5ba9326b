"""subword's own model file: one versioned JSON document holding the whole configuration,
the vocabulary, the merges in rank order and the special tokens. Merges are written one per
line so the file diffs and reads well. Loading checks every field and names the one that is
wrong; writing goes to a temporary file that is renamed into place."""

from __future__ import annotations

import os
from dataclasses import asdict, fields
from typing import Any

from subword.config import ModelSpec, TokenizerConfig
from subword.errors import FormatError
from subword.files import read_json, write_atomic

FORMAT = "subword"
VERSION = 1


def write_native(spec: ModelSpec, path: str | os.PathLike[str], extra: dict | None = None) -> None:
    write_atomic(path, native_text(spec, extra))


def native_text(spec: ModelSpec, extra: dict | None = None) -> str:
    """The model file's text (what `write_native` writes; pickling sends it too)."""
    import json  # here: loading a model, the common case, writes none

    dumps = lambda value: json.dumps(value, ensure_ascii=False)  # noqa: E731
    lines = ["{", f'  "format": {dumps(FORMAT)},', f'  "version": {VERSION},']
    lines.append(f'  "config": {dumps(asdict(spec.config))},')
    if extra:
        lines.append(f'  "training": {dumps(extra)},')
    lines.append(f'  "special_tokens": {dumps(spec.special_tokens)},')
    ordered = sorted(spec.vocab.items(), key=lambda item: item[1])
    lines.append('  "vocab": {')
    lines.append(",\n".join(f"    {dumps(t)}: {i}" for t, i in ordered))
    lines.append("  },")
    lines.append('  "merges": [')
    lines.append(",\n".join(f"    {dumps([a, b])}" for a, b in spec.merges))
    lines.append("  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def read_native(path: str | os.PathLike[str]) -> tuple[ModelSpec, dict]:
    """Reads a model file; returns the spec and the optional training record."""
    name = str(path)
    doc = read_json(path)
    spec = spec_from_document(doc, name)
    return spec, doc.get("training") or {}


def _fail(name: str, field: str, problem: str) -> FormatError:
    return FormatError(problem, path=name, field=f"field {field}")


def spec_from_document(doc: Any, name: str) -> ModelSpec:
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise FormatError(f'{name}: not a subword model file (no "format": "{FORMAT}")')
    version = doc.get("version")
    if version != VERSION:
        raise _fail(name, "version", f"{version!r} is not supported (this subword reads {VERSION})")
    for key in ("config", "vocab", "merges", "special_tokens"):
        if key not in doc:
            raise _fail(name, key, "missing")
    config = _read_config(doc["config"], name)
    vocab = _read_ids(doc["vocab"], name, "vocab")
    specials = _read_ids(doc["special_tokens"], name, "special_tokens")
    merges = doc["merges"]
    if not isinstance(merges, list):
        raise _fail(name, "merges", "expected a list of [left, right] pairs")
    pairs: list[tuple[str, str]] = []
    for i, pair in enumerate(merges):
        ok = isinstance(pair, list) and len(pair) == 2 and all(isinstance(s, str) for s in pair)
        if not ok:
            raise _fail(name, f"merges[{i}]", f"expected a pair of strings, got {pair!r}")
        if pair[0] + pair[1] not in vocab:
            raise _fail(name, f"merges[{i}]", f"{pair[0] + pair[1]!r} is not in the vocab")
        pairs.append((pair[0], pair[1]))
    return ModelSpec(config=config, vocab=vocab, merges=pairs, special_tokens=specials)


def _read_config(raw: Any, name: str) -> TokenizerConfig:
    if not isinstance(raw, dict):
        raise _fail(name, "config", "expected an object")
    known = {f.name for f in fields(TokenizerConfig)}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise _fail(name, f"config.{unknown[0]}", "unknown setting (a newer subword's file?)")
    try:
        return TokenizerConfig(**raw)
    except (TypeError, ValueError) as exc:
        raise _fail(name, "config", str(exc)) from None


def _read_ids(raw: Any, name: str, field: str) -> dict[str, int]:
    if not isinstance(raw, dict):
        raise _fail(name, field, "expected an object mapping tokens to ids")
    seen: dict[int, str] = {}
    for token, id_ in raw.items():
        if not isinstance(id_, int) or isinstance(id_, bool) or id_ < 0:
            raise _fail(
                name, f"{field}[{token!r}]", f"id must be a non-negative integer, got {id_!r}"
            )
        if id_ in seen:
            raise _fail(name, f"{field}[{token!r}]", f"id {id_} is also {seen[id_]!r}")
        seen[id_] = token
    return dict(raw)
