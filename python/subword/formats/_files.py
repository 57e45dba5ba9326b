"""Small helpers shared by the formats: error messages and strict JSON reading (atomic
writes come from `subword.files`)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Union

from subword.files import write_atomic  # noqa: F401  (re-exported for the formats)

PathLike = Union[str, "os.PathLike[str]"]


def line_error(path: PathLike, lineno: int, message: str) -> ValueError:
    """The error every reader raises for a bad line: names the file and the 1-based line."""
    return ValueError(f"{path}, line {lineno}: {message}")


def field_error(path: PathLike, field: str, message: str) -> ValueError:
    """The error for a bad JSON field: names the file and the field's path (model.merges[3])."""
    return ValueError(f"{path}: {field}: {message}")


def check_vocab(data: Any, path: PathLike, field: str) -> dict[str, int]:
    """A token -> id mapping, checked (ids are distinct non-negative integers) and returned in
    id order."""
    if not isinstance(data, dict):
        raise field_error(path, field, "expected a JSON object of token -> id")
    owner: dict[int, str] = {}
    for token, id_ in data.items():
        if isinstance(id_, bool) or not isinstance(id_, int) or id_ < 0:
            raise field_error(path, field, f"id of {token!r} is {id_!r}, not an integer >= 0")
        if id_ in owner:
            raise field_error(path, field, f"{owner[id_]!r} and {token!r} share id {id_}")
        owner[id_] = token
    return dict(sorted(data.items(), key=lambda item: item[1]))


def add_special_tokens(
    vocab: dict[str, int], specials: dict[str, int], where: str
) -> dict[str, int]:
    """The vocab with the special tokens in it too (every format keeps them there, as GPT-2's
    vocab.json and CLIP do), refusing a special token whose text has another id there."""
    merged = dict(vocab)
    for text, id_ in sorted(specials.items(), key=lambda item: item[1]):
        if merged.setdefault(text, id_) != id_:
            other = vocab[text]
            raise ValueError(f"{where}: special token {text!r} has id {id_}, the vocab {other}")
    return merged


def read_json(path: PathLike) -> Any:
    """Parse a JSON file, rejecting duplicate object keys (json.load would keep the last one
    silently, which hides a corrupt vocabulary)."""

    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj: dict[str, Any] = {}
        for key, value in pairs:
            if key in obj:
                raise ValueError(f"{path}: duplicate key {key!r} in a JSON object")
            obj[key] = value
        return obj

    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not UTF-8 at byte offset {e.start}") from None
    try:
        return json.loads(text, object_pairs_hook=no_duplicates)
    except json.JSONDecodeError as e:
        where = f"line {e.lineno}, column {e.colno}"
        raise ValueError(f"{path}, {where}: bad JSON: {e.msg}") from None
