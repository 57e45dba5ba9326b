"""Mistral's Tekken tokenizer files (`tekken_*.json`, shipped in the `mistral-common` package).

A Tekken file is a tiktoken model in JSON: `vocab` lists `{rank, token_bytes (base64),
token_str}` in rank order, `config` gives the split `pattern`, `default_vocab_size` and
`default_num_special_tokens`. Mistral's tokenizer keeps the first `default_vocab_size -
default_num_special_tokens` ranks, gives the special tokens the first ids (`special_tokens`
in the file, or Mistral's twenty older ones for files without them, then fillers
`<SPECIAL_n>` up to the count) and shifts every rank up by that count. Since the shift keeps
the ranks' order, the model here is tiktoken's with ids = ranks + the shift.
"""

from __future__ import annotations

from typing import Any

from subword.errors import field_error
from subword.formats._files import PathLike

# Special tokens of Tekken files that do not list theirs (mistral-common's deprecated set).
_OLDER_SPECIALS = (
    "<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]",
    "[TOOL_RESULTS]", "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]",
    "[IMG_END]", "[PREFIX]", "[MIDDLE]", "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]",
    "[TOOL_CONTENT]",
)  # fmt: skip


def is_tekken(doc: Any) -> bool:
    return isinstance(doc, dict) and isinstance(doc.get("config"), dict) and "vocab" in doc


def read_tekken(path: PathLike, doc: Any) -> tuple[bytes, str, dict[str, int]]:
    """A Tekken file's model as (the ranks in `.tiktoken` form with ids shifted past the
    special tokens, the split pattern, the special tokens with their ids)."""
    config = doc.get("config")
    if not isinstance(config, dict):
        raise field_error(path, "config", "missing: not a Tekken file")
    pattern = config.get("pattern")
    if not isinstance(pattern, str) or not pattern:
        raise field_error(path, "config.pattern", "must be the split regex")
    size = _count(path, config, "default_vocab_size")
    specials_count = _count(path, config, "default_num_special_tokens")
    vocab = doc.get("vocab")
    if not isinstance(vocab, list):
        raise field_error(path, "vocab", "must be a list of {rank, token_bytes, token_str}")
    inner = size - specials_count
    if not 256 <= inner <= len(vocab):
        raise field_error(
            path,
            "config.default_vocab_size",
            f"{size} - {specials_count} special tokens = {inner} ranks, but the vocab has "
            f"{len(vocab)} (and a byte-level vocabulary needs at least the 256 bytes)",
        )
    lines = []
    for i, entry in enumerate(vocab[:inner]):
        where = f"vocab[{i}]"
        if not isinstance(entry, dict) or entry.get("rank") != i:
            raise field_error(path, where, f"must be an object with rank {i}")
        token = entry.get("token_bytes")
        if not isinstance(token, str):
            raise field_error(path, f"{where}.token_bytes", "must be base64 text")
        # Checked (base64, duplicates, every byte present) by the core's .tiktoken reader.
        lines.append(f"{token} {i + specials_count}\n")
    return "".join(lines).encode("ascii", "replace"), pattern, _specials(path, doc, specials_count)


def _count(path: PathLike, config: dict, name: str) -> int:
    value = config.get(name)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise field_error(path, f"config.{name}", f"must be a non-negative integer, got {value!r}")
    return value


def _specials(path: PathLike, doc: Any, count: int) -> dict[str, int]:
    listed = doc.get("special_tokens")
    if listed is None:
        names = list(_OLDER_SPECIALS[:count])
    else:
        if not isinstance(listed, list):
            raise field_error(path, "special_tokens", "must be a list of {rank, token_str}")
        names = []
        for i, entry in enumerate(listed):
            if not isinstance(entry, dict) or entry.get("rank") != i:
                raise field_error(path, f"special_tokens[{i}]", f"must be an object with rank {i}")
            if not isinstance(entry.get("token_str"), str):
                raise field_error(path, f"special_tokens[{i}].token_str", "must be a string")
            names.append(entry["token_str"])
    if len(names) > count:
        raise field_error(path, "special_tokens", f"{len(names)} listed, more than {count}")
    names += [f"<SPECIAL_{i}>" for i in range(len(names), count)]
    specials = {name: i for i, name in enumerate(names)}
    if len(specials) != len(names):
        raise field_error(path, "special_tokens", "a special token is listed twice")
    return specials
