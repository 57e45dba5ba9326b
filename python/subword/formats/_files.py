"""Small helpers shared by the formats: vocabulary checks, and the error and file helpers
they all use (from `subword.errors` and `subword.files`)."""

from __future__ import annotations

import os
from typing import Any, Union

from subword.errors import FormatError, field_error, line_error  # noqa: F401  (for the formats)
from subword.files import read_json, write_atomic  # noqa: F401  (for the formats)

PathLike = Union[str, "os.PathLike[str]"]


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
            raise FormatError(f"{where}: special token {text!r} has id {id_}, the vocab {other}")
    return merged
