"""`subword.ray`: counting, training and encoding on a Ray cluster (`pip install
'subword[ray]'`). Files are counted by Ray tasks with the Rust counter and the partial
tables merged in a tree; Ray Data datasets are counted and encoded with `map_batches`
(the tokenizer travels pickled, as its compressed model file, and is built once per
worker); token shards are written by Ray tasks with the plan and writer of
`subword.scale.shards`, so a re-run resumes.

Each function connects to Ray when it is not connected yet: `address` as `ray.init` takes
it ("auto", "ray://host:10001"), or None to start a local cluster.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from subword.errors import InvalidInputError, MissingDependencyError
from subword.scale.counts import COUNT_SETTINGS, WordCounts
from subword.scale.shards import SHARD_BYTES

if TYPE_CHECKING:
    from subword.tokenizer import Tokenizer

FAN_IN = 8  # tables merged per task in the tree
_COUNT_OPTIONS = (*COUNT_SETTINGS, "errors")


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise MissingDependencyError(
            "subword.ray needs Ray: pip install 'subword[ray]' (ray[data])"
        ) from None
    return ray


def connect(address: str | None = None) -> Any:
    """The `ray` module, connected: to `address`, or to a new local cluster when None
    (nothing is done if Ray is connected already)."""
    ray = _ray()
    if not ray.is_initialized():
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(include_dashboard=False, log_to_driver=False)
    return ray


def _is_dataset(source: Any) -> bool:
    return type(source).__module__.startswith("ray.data")


def _paths(source: Any) -> list[str]:
    if isinstance(source, (str, os.PathLike)):
        source = [source]
    paths = [os.fspath(p) for p in source]
    for p in paths:
        if not os.path.isfile(p):
            raise FileNotFoundError(f"{p}: no such file")
    return paths


# --- counting -----------------------------------------------------------------------------
def _count_file(path: str, options: dict[str, Any]) -> WordCounts:
    from subword.scale.counts import count as count_one

    return count_one(path, show_progress=False, **options)


def _merge(*parts: Any) -> WordCounts:
    tables = []
    for part in parts:
        if isinstance(part, WordCounts):
            tables.append(part)
        else:  # an Arrow table of counted batches
            tables.extend(WordCounts.from_bytes(b) for b in part.column("counts").to_pylist())
    return WordCounts.merge_all(tables)


def _count_batch(batch: Any, *, column: str, options: dict[str, Any]) -> dict[str, list]:
    from subword.scale.counts import count as count_one

    texts = batch.column(column).to_pylist()
    counts = count_one(iter(texts), show_progress=False, **options)
    return {"counts": [counts.to_bytes()]}


def _tree(ray: Any, refs: list[Any]) -> WordCounts:
    """Merges the partial tables in a tree of tasks, neighbours together (order kept)."""
    merge = ray.remote(_merge)
    while len(refs) > 1:
        refs = [merge.remote(*refs[i : i + FAN_IN]) for i in range(0, len(refs), FAN_IN)]
    result = ray.get(refs[0])
    return result if isinstance(result, WordCounts) else _merge(result)


def count(
    source: Any,
    *,
    column: str = "text",
    address: str | None = None,
    show_progress: bool | None = None,
    **options: Any,
) -> WordCounts:
    """The word table of files (one Ray task per file) or of a Ray Data dataset's `column`
    (one table per batch), merged in a tree of tasks. A file is one task: split very large
    files (or give many) to use every worker. `options` are `subword.count`'s; the result
    equals `subword.count` over the same files in the same order (and over the dataset's
    texts, in any order)."""
    unknown = sorted(set(options) - set(_COUNT_OPTIONS))
    if unknown:
        raise InvalidInputError(
            f"unknown counting option {unknown[0]!r}; counting takes {', '.join(_COUNT_OPTIONS)}"
        )
    ray = connect(address)
    if _is_dataset(source):
        counted = source.map_batches(
            _count_batch,
            fn_kwargs={"column": column, "options": options},
            batch_format="pyarrow",
        )
        refs = counted.to_arrow_refs()
        if not refs:
            from subword.scale.counts import count as count_one

            return count_one(iter(()), **options)
        result = _tree(ray, list(refs))
        result.ordered = False  # the order of a dataset's blocks is Ray's
        result.source = f"Ray dataset column {column!r}"
        return result
    paths = _paths(source)
    if not paths:
        raise InvalidInputError("give at least one file to count")
    from subword.scale.shards import progress

    task = ray.remote(_count_file)
    refs = [task.remote(p, options) for p in paths]
    tick = progress(len(refs), "counted", show_progress)
    pending = list(refs)
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        for ref in ready:
            _get(ray, ref, paths[refs.index(ref)])
            tick()
    result = _tree(ray, refs)
    result.source = ", ".join(paths)
    return result


def _get(ray: Any, ref: Any, what: str) -> Any:
    """`ray.get`; a task that raised one of our errors re-raises it here (it names the
    file and byte), any other failure is named with `what`."""
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as exc:
        cause = getattr(exc, "cause", None)
        if isinstance(cause, (InvalidInputError, OSError)):
            raise cause from None
        raise InvalidInputError(f"{what}: a Ray task failed: {exc}") from None
    except ray.exceptions.RayError as exc:
        raise InvalidInputError(f"{what}: a Ray worker failed: {exc}; run again") from None


def train(
    source: Any,
    *,
    column: str = "text",
    address: str | None = None,
    **options: Any,
) -> Tokenizer:
    """`count` on Ray, then `subword.train` on the merged table in this process (the
    central step: its memory grows with the number of distinct words)."""
    import subword

    counting = {k: options.pop(k) for k in list(options) if k in _COUNT_OPTIONS}
    counts = count(
        source,
        column=column,
        address=address,
        show_progress=options.get("show_progress"),
        **counting,
    )
    return subword.train(counts, **options)


# --- encoding -----------------------------------------------------------------------------
class _Encoder:
    """A Ray Data callable class: the tokenizer is unpickled once per worker."""

    def __init__(
        self, tokenizer: Tokenizer, column: str, output_column: str, allowed_special: Any
    ) -> None:
        self.tokenizer = tokenizer
        self.column = column
        self.output_column = output_column
        self.allowed_special = allowed_special

    def __call__(self, batch: Any) -> Any:
        import numpy as np
        import pyarrow as pa

        texts = batch.column(self.column).to_pylist()
        flat, offsets = self.tokenizer.encode_batch_to_numpy(
            texts, allowed_special=self.allowed_special
        )
        values = pa.array(flat, type=pa.uint32())
        if len(flat) < 2**31:
            ids = pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), values)
        else:
            ids = pa.LargeListArray.from_arrays(pa.array(offsets.astype(np.int64)), values)
        if self.output_column in batch.column_names:
            batch = batch.drop_columns([self.output_column])
        return batch.append_column(self.output_column, ids)


def encode(
    dataset: Any,
    tokenizer: Tokenizer,
    *,
    column: str = "text",
    output_column: str = "ids",
    batch_size: int = 1024,
    concurrency: int | tuple[int, int] | None = None,
    allowed_special: Iterable[str] | str = frozenset(),
) -> Any:
    """The dataset with a column `output_column` of Arrow `list<uint32>`: the ids of each
    row's `column`, as `tokenizer.encode_batch` gives them. Lazy, as Ray Data is.
    concurrency: the number of encoding actors (or a (min, max) range; default Ray's)."""
    _ray()
    allowed = allowed_special if isinstance(allowed_special, str) else frozenset(allowed_special)
    options: dict[str, Any] = {}
    if concurrency is not None:
        options["concurrency"] = concurrency
    return dataset.map_batches(
        _Encoder,
        fn_constructor_args=(tokenizer, column, output_column, allowed),
        batch_format="pyarrow",
        batch_size=batch_size,
        **options,
    )


# --- token shards -------------------------------------------------------------------------


def _encode_shard(tokenizer: Any, part: Any, index: int, job: Any) -> dict[str, Any]:
    from subword.scale.shards import encode_part

    return encode_part(
        tokenizer, part, index, job.out_dir, job.dtype, job.errors, job.allowed_special
    )


def write_tokens(
    source: Any,
    tokenizer: Tokenizer,
    out_dir: str | os.PathLike[str],
    *,
    dtype: str | None = None,
    shard_bytes: int = SHARD_BYTES,
    column: str = "text",
    address: str | None = None,
    errors: str = "strict",
    allowed_special: Iterable[str] | str = frozenset(),
    show_progress: bool | None = None,
) -> dict[str, Any]:
    """Token shards in `out_dir` (`.bin` + `.idx` + `manifest.json`; see
        `subword.scale.shards`), one Ray task per shard (each builds the tokenizer from the
    object store once). `source`: text files (one document
        per line; shards cut at line starts every `shard_bytes`), or a Ray Data dataset (its
        `column` in dataset order; shards of `shard_bytes` of text, written here as the
        encoded batches arrive). Resumable: finished shards are skipped. Returns the
        manifest."""
    from subword.scale import shards

    ray = connect(address)
    allowed = allowed_special if isinstance(allowed_special, str) else frozenset(allowed_special)
    if _is_dataset(source):
        from subword.scale.dataset_shards import write_dataset

        return write_dataset(
            source, tokenizer, out_dir, dtype=dtype, shard_bytes=shard_bytes, column=column,
            allowed_special=allowed, show_progress=show_progress,
        )  # fmt: skip
    paths = _paths(source)
    parts, manifest, todo, records = shards.prepare(
        paths, tokenizer, out_dir, dtype=dtype, shard_bytes=shard_bytes
    )
    job = shards.Job(os.fspath(out_dir), manifest["dtype"], errors, allowed)
    tokenizer_ref = ray.put(tokenizer)
    task = ray.remote(_encode_shard)
    refs = {task.remote(tokenizer_ref, parts[i], i, job): i for i in todo}
    tick = shards.progress(len(refs), "shards", show_progress)
    pending = list(refs)
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        for ref in ready:
            index = refs[ref]
            try:
                records[index] = ray.get(ref)
            except ray.exceptions.RayError as exc:
                for other in pending:
                    ray.cancel(other)
                done = sum(r is not None for r in records)
                cause = getattr(exc, "cause", None) or exc
                raise shards.failed(index, parts[index], cause, done) from None
            tick()
    return shards.finish(out_dir, manifest, records)


__all__: Sequence[str] = ("connect", "count", "encode", "train", "write_tokens")
