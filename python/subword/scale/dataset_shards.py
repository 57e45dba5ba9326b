"""Token shards from a Ray Data dataset (`subword.ray.write_tokens(dataset, ...)`): the
dataset is encoded by `subword.ray.encode` in dataset order, and this process writes the
shards as the encoded batches arrive, a new shard after every `shard_bytes` of text (at a
row boundary). The shards are those of `subword.scale.shards` (same files, manifest and done
marks). A re-run encodes the dataset again but rewrites only the shards not finished."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from subword.errors import InvalidInputError
from subword.scale import shards

if TYPE_CHECKING:
    from subword.tokenizer import Tokenizer


def write_dataset(
    dataset: Any,
    tokenizer: Tokenizer,
    out_dir: str | os.PathLike[str],
    *,
    dtype: str | None,
    shard_bytes: int,
    column: str,
    allowed_special: Any,
    show_progress: bool | None,
) -> dict[str, Any]:
    import numpy as np
    import ray.data

    from subword.scale.ray import encode

    if isinstance(shard_bytes, bool) or not isinstance(shard_bytes, int) or shard_bytes < 1:
        raise InvalidInputError(f"shard_bytes must be a positive integer, got {shard_bytes!r}")
    dtype = shards.choose_dtype(tokenizer, dtype)
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {
        "format": shards.FORMAT,
        "version": shards.VERSION,
        "tokenizer_sha256": shards.tokenizer_sha256(tokenizer),
        "dtype": dtype,
        "shard_bytes": shard_bytes,
        "inputs": [{"dataset_column": column}],
        "complete": False,
        "shards": [],
    }
    existing = folder / "manifest.json"
    if existing.exists():
        import json

        old = json.loads(existing.read_text(encoding="utf-8"))
        for key in ("format", "tokenizer_sha256", "dtype", "shard_bytes", "inputs"):
            if old.get(key) != manifest[key]:
                raise InvalidInputError(
                    f"{out_dir} holds token shards of another run ({key} differs: "
                    f"{old.get(key)!r}); use a new folder, or delete it to start over"
                )
        if old.get("complete"):
            return old
    shards._write_json(existing, manifest)
    context = ray.data.DataContext.get_current()
    kept = context.execution_options.preserve_order
    context.execution_options.preserve_order = True  # shards must not depend on timing
    records: list[dict[str, Any]] = []
    state: dict[str, Any] = {"flats": [], "ends": [], "tokens": 0, "bytes": 0, "first": 0}
    row = 0

    def close_shard() -> None:
        index = len(records)
        expect = {"first_row": state["first"], "rows": row - state["first"]}
        done = shards.finished(folder, index, dtype, expect)
        if done is None:
            done = shards.write_shard(folder, index, state["flats"], state["ends"], dtype, expect)
        records.append(done)
        state.update(flats=[], ends=[], tokens=0, bytes=0, first=row)

    try:
        encoded = encode(dataset, tokenizer, column=column, allowed_special=allowed_special)
        for batch in encoded.iter_batches(batch_format="pyarrow", batch_size=None):
            texts = batch.column(column).to_pylist()
            ids = batch.column("ids").combine_chunks()
            flat = ids.values.to_numpy(zero_copy_only=False)
            offsets = ids.offsets.to_numpy().astype(np.uint64)
            start = 0
            for i, text in enumerate(texts):
                state["bytes"] += len(text.encode("utf-8", "surrogatepass"))
                row += 1
                if state["bytes"] >= shard_bytes:
                    _take(state, flat, offsets, start, i + 1)
                    start = i + 1
                    close_shard()
            _take(state, flat, offsets, start, len(texts))
        if row > state["first"] or not records:
            close_shard()
    finally:
        context.execution_options.preserve_order = kept
    manifest["shards"] = [dict(name=r["name"]) for r in records]
    return shards.finish(out_dir, manifest, records)


def _take(state: dict[str, Any], flat: Any, offsets: Any, a: int, b: int) -> None:
    """Adds rows [a, b) of an encoded batch to the shard being built."""
    if b <= a:
        return
    lo, hi = int(offsets[a]), int(offsets[b])
    state["flats"].append(flat[lo:hi])
    state["ends"].append(offsets[a + 1 : b + 1] - lo + state["tokens"])
    state["tokens"] += hi - lo
