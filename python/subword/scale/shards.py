"""Token shards: a corpus encoded once into flat files a training loop reads with
`numpy.memmap`, written by a process pool (`write_shards`) or Ray tasks
(`subword.ray.write_tokens`) with the same plan and the same writer.

    OUT_DIR/manifest.json        the plan, the tokenizer's SHA-256, counts per shard
    OUT_DIR/shard-00000.bin      token ids back to back (uint16 or uint32, little-endian)
    OUT_DIR/shard-00000.idx      uint64 end of each document in the .bin (in tokens)

Documents are the input's lines, line ends left out (as `subword encode`): document i of a
shard is `bin[idx[i-1]:idx[i]]` (`idx[-1]` is the shard's token count). The plan cuts each
plain file at the first line start after every `shard_bytes` of input (a gzip file is one
shard), so names and contents depend only on the inputs, the tokenizer and the options,
never on the number of workers. Each shard is written to temporary files and renamed, then
marked done (`shard-N.json`); a re-run skips finished shards and does the rest, and the
manifest is completed when every shard is there.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from subword.errors import InvalidInputError, MissingDependencyError

if TYPE_CHECKING:
    from subword.tokenizer import Tokenizer

FORMAT = "subword-token-shards"
VERSION = 1
SHARD_BYTES = 256 << 20  # input bytes per shard: ~64M tokens, a few seconds per core
_LINES = 4096  # documents per encode_batch call
DTYPES = ("uint16", "uint32")


@dataclass(frozen=True)
class Part:
    """One shard's input: bytes [start, end) of a file (end None: to its end)."""

    path: str
    start: int
    end: int | None


def tokenizer_sha256(tokenizer: Tokenizer) -> str:
    """The SHA-256 of the tokenizer's model file (without its training record)."""
    from subword.formats.native import native_text

    return hashlib.sha256(native_text(tokenizer.spec, None).encode()).hexdigest()


def choose_dtype(tokenizer: Tokenizer, dtype: str | None) -> str:
    ids = [*tokenizer.vocab.values(), *tokenizer.special_tokens.values()]
    top = max(ids, default=0)
    if dtype is None:
        return "uint16" if top < 1 << 16 else "uint32"
    if dtype not in DTYPES:
        raise InvalidInputError(f"dtype={dtype!r}: use 'uint16' or 'uint32'")
    if dtype == "uint16" and top >= 1 << 16:
        raise InvalidInputError(
            f"dtype='uint16' cannot hold id {top} of this tokenizer: use dtype='uint32'"
        )
    return dtype


def plan(paths: Sequence[str | os.PathLike[str]], shard_bytes: int) -> list[Part]:
    """The shards' inputs, in input order: each plain file cut at the first line start
    after every `shard_bytes` bytes."""
    if isinstance(shard_bytes, bool) or not isinstance(shard_bytes, int) or shard_bytes < 1:
        raise InvalidInputError(f"shard_bytes must be a positive integer, got {shard_bytes!r}")
    parts: list[Part] = []
    for item in paths:
        path = os.fspath(item)
        if not Path(path).is_file():
            raise FileNotFoundError(f"{path}: no such file")
        with open(path, "rb") as f:
            if f.read(2) == b"\x1f\x8b":
                parts.append(Part(path, 0, None))
                continue
            size = f.seek(0, os.SEEK_END)
            start = 0
            while start < size:
                cut = _line_start_after(f, start + shard_bytes, size)
                parts.append(Part(path, start, cut))
                start = cut
    return parts


def _line_start_after(f: Any, at: int, size: int) -> int:
    """The first line start at or after byte `at - 1`'s line end, or `size`."""
    if at >= size:
        return size
    f.seek(at - 1)
    while True:
        block = f.read(1 << 16)
        if not block:
            return size
        i = block.find(b"\n")
        if i >= 0:
            return f.tell() - len(block) + i + 1


def _documents(part: Part, errors: str) -> list[str]:
    import gzip

    if part.end is None:
        with gzip.open(part.path, "rb") as g:
            data = g.read()
    else:
        with open(part.path, "rb") as f:
            f.seek(part.start)
            data = f.read(part.end - part.start)
    try:
        text = data.decode("utf-8", errors)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        where = "of the decompressed data " if part.end is None else ""
        raise InvalidInputError(
            f"{part.path}: invalid UTF-8 at byte {part.start + exc.start} {where}(line {line} "
            f"of the shard starting at byte {part.start}); convert it to UTF-8 or pass "
            f'errors="replace"'
        ) from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def shard_name(index: int) -> str:
    return f"shard-{index:05d}"


def encode_part(
    tokenizer: Tokenizer,
    part: Part,
    index: int,
    out_dir: str,
    dtype: str,
    errors: str = "strict",
    allowed_special: Any = frozenset(),
) -> dict[str, Any]:
    """Encodes one shard's documents into its .bin and .idx (temporary files renamed into
    place), then marks it done; returns its counts."""
    _need_numpy()
    docs = _documents(part, errors)
    flats, ends, tokens = [], [], 0
    for i in range(0, len(docs), _LINES):
        flat, offsets = tokenizer.encode_batch_to_numpy(
            docs[i : i + _LINES], allowed_special=allowed_special
        )
        flats.append(flat)
        ends.append(offsets[1:].astype("<u8") + tokens)
        tokens += len(flat)
    record = {**asdict(part), "documents": len(docs)}
    return write_shard(out_dir, index, flats, ends, dtype, record)


def write_shard(
    out_dir: str | os.PathLike[str],
    index: int,
    flats: list[Any],
    ends: list[Any],
    dtype: str,
    record: dict[str, Any],
) -> dict[str, Any]:
    """Writes shard `index` from its ids (arrays, in order) and document ends (uint64
    arrays): temporary files renamed into place, then the done mark. Returns the mark."""
    import numpy as np

    name = shard_name(index)
    folder = Path(out_dir)
    tokens = 0
    tmp_bin = folder / f".{name}.bin.tmp"
    with open(tmp_bin, "wb") as out:
        for flat in flats:
            out.write(flat.astype("<u2" if dtype == "uint16" else "<u4").tobytes())
            tokens += len(flat)
    tmp_idx = folder / f".{name}.idx.tmp"
    idx = np.concatenate(ends) if ends else np.zeros(0, dtype="<u8")
    tmp_idx.write_bytes(idx.astype("<u8").tobytes())
    os.replace(tmp_bin, folder / f"{name}.bin")
    os.replace(tmp_idx, folder / f"{name}.idx")
    done = {"name": name, **record, "documents": len(idx), "tokens": tokens}
    _write_json(folder / f"{name}.json", done)
    return done


def _need_numpy() -> None:
    try:
        import numpy  # noqa: F401
    except ImportError:
        raise MissingDependencyError(
            "token shards need numpy: pip install 'subword[numpy]'"
        ) from None


def _write_json(path: Path, data: dict[str, Any]) -> None:
    from subword.files import write_atomic

    write_atomic(path, json.dumps(data, indent=1, sort_keys=True) + "\n")


def finished(folder: Path, index: int, dtype: str, expect: dict[str, Any]) -> dict[str, Any] | None:
    """The done record of shard `index` if it is the one `expect` describes and its files
    are whole, else None."""
    name = shard_name(index)
    try:
        done = json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))
        size = 2 if dtype == "uint16" else 4
        whole = (
            {k: done.get(k) for k in expect} == expect
            and (folder / f"{name}.bin").stat().st_size == done["tokens"] * size
            and (folder / f"{name}.idx").stat().st_size == done["documents"] * 8
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return done if whole else None


@dataclass
class Job:
    """What every shard of a run shares."""

    out_dir: str
    dtype: str
    errors: str
    allowed_special: Any


def prepare(
    paths: Sequence[str | os.PathLike[str]],
    tokenizer: Tokenizer,
    out_dir: str | os.PathLike[str],
    *,
    dtype: str | None,
    shard_bytes: int,
) -> tuple[list[Part], dict[str, Any], list[int], list[dict[str, Any] | None]]:
    """Plans the run, checks a manifest already in `out_dir` is this run's, writes the
    manifest (incomplete), and finds the finished shards. Returns the parts, the manifest,
    the indices still to do and the done records (None where not done)."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    dtype = choose_dtype(tokenizer, dtype)
    parts = plan(paths, shard_bytes)
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "tokenizer_sha256": tokenizer_sha256(tokenizer),
        "dtype": dtype,
        "shard_bytes": shard_bytes,
        "inputs": [{"path": os.fspath(p), "bytes": os.path.getsize(p)} for p in paths],
        "complete": False,
        "shards": [dict(name=shard_name(i), **asdict(p)) for i, p in enumerate(parts)],
    }
    existing = folder / "manifest.json"
    if existing.exists():
        try:
            old = json.loads(existing.read_text(encoding="utf-8"))
        except ValueError:
            old = {}
        for key in ("format", "tokenizer_sha256", "dtype", "shard_bytes", "inputs"):
            if old.get(key) != manifest[key]:
                raise InvalidInputError(
                    f"{out_dir} holds token shards of another run ({key} differs: "
                    f"{old.get(key)!r}); use a new folder, or delete it to start over"
                )
        if old.get("complete"):
            records: list[dict[str, Any] | None] = list(old["shards"])
            return parts, old, [], records
    _write_json(existing, manifest)
    records = [finished(folder, i, dtype, asdict(p)) for i, p in enumerate(parts)]
    todo = [i for i, r in enumerate(records) if r is None]
    return parts, manifest, todo, records


def finish(out_dir: str | os.PathLike[str], manifest: dict[str, Any], records: list) -> dict:
    """Writes the complete manifest (counts per shard and in all) and drops the done
    marks."""
    folder = Path(out_dir)
    if manifest.get("complete"):
        return manifest
    manifest = dict(manifest, shards=records, complete=True)
    manifest["documents"] = sum(r["documents"] for r in records)
    manifest["tokens"] = sum(r["tokens"] for r in records)
    _write_json(folder / "manifest.json", manifest)
    for r in records:
        with contextlib.suppress(OSError):
            (folder / f"{r['name']}.json").unlink()
    return manifest


def failed(index: int, part: Part, exc: BaseException, done: int) -> InvalidInputError:
    return InvalidInputError(
        f"shard {shard_name(index)} ({part.path}, bytes {part.start}-"
        f"{'end' if part.end is None else part.end}) failed: {exc}; the {done} shards "
        "finished are kept: run the same call again to resume"
    )


def progress(total: int, what: str, show: bool | None) -> Callable[[], None]:
    """A function to call once per finished shard: a tqdm bar if tqdm is installed, a
    count on stderr otherwise; nothing when not shown (default: stderr is a terminal)."""
    if show is None:
        show = sys.stderr.isatty()
    if not show:
        return lambda: None
    try:
        from tqdm import tqdm
    except ImportError:
        state = {"done": 0}

        def tick() -> None:
            state["done"] += 1
            print(f"\r{what} {state['done']}/{total}", end="", file=sys.stderr, flush=True)

        return tick
    bar = tqdm(total=total, desc=what, unit="shard")
    return lambda: bar.update(1)


# --- the process pool ---------------------------------------------------------------------
_WORKER: dict[str, Any] = {}


def _init_worker(tokenizer: Tokenizer, job: Job) -> None:
    _WORKER["tokenizer"], _WORKER["job"] = tokenizer, job


def _encode_in_worker(task: tuple[int, Part]) -> dict[str, Any]:
    index, part = task
    job: Job = _WORKER["job"]
    return encode_part(
        _WORKER["tokenizer"], part, index, job.out_dir, job.dtype, job.errors, job.allowed_special
    )


def write_shards(
    paths: Sequence[str | os.PathLike[str]] | str | os.PathLike[str],
    tokenizer: Tokenizer,
    out_dir: str | os.PathLike[str],
    *,
    dtype: str | None = None,
    shard_bytes: int = SHARD_BYTES,
    workers: int | None = None,
    errors: str = "strict",
    allowed_special: Iterable[str] | str = frozenset(),
    show_progress: bool | None = None,
) -> dict[str, Any]:
    """Encodes text files (one document per line) into token shards in `out_dir` with a
    pool of `workers` processes (default: every core; 1: in this process), each building
    the tokenizer once. Returns the manifest. Resumable: see the module's docstring."""
    paths = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    parts, manifest, todo, records = prepare(
        paths, tokenizer, out_dir, dtype=dtype, shard_bytes=shard_bytes
    )
    allowed = allowed_special if isinstance(allowed_special, str) else frozenset(allowed_special)
    job = Job(os.fspath(out_dir), manifest["dtype"], errors, allowed)
    workers = workers or len(os.sched_getaffinity(0))
    tick = progress(len(todo), "shards", show_progress)
    tasks = [(i, parts[i]) for i in todo]
    for index, record in _run(tasks, tokenizer, job, workers):
        if isinstance(record, BaseException):
            done = sum(r is not None for r in records)
            raise failed(index, parts[index], record, done) from record
        records[index] = record
        tick()
    return finish(out_dir, manifest, records)


def _run(
    tasks: list[tuple[int, Part]], tokenizer: Tokenizer, job: Job, workers: int
) -> Iterator[tuple[int, Any]]:
    """(index, done record or the exception) for each task, as they finish."""
    if workers <= 1 or len(tasks) <= 1:
        _init_worker(tokenizer, job)
        for task in tasks:
            try:
                yield task[0], _encode_in_worker(task)
            except Exception as exc:  # noqa: BLE001 - reported with the shard's name
                yield task[0], exc
        return
    from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait

    with ProcessPoolExecutor(
        max_workers=min(workers, len(tasks)), initializer=_init_worker, initargs=(tokenizer, job)
    ) as pool:
        futures = {pool.submit(_encode_in_worker, t): t[0] for t in tasks}
        pending = set(futures)
        while pending:
            finished, pending = wait(pending, return_when=FIRST_EXCEPTION)
            for future in finished:
                failure = future.exception()
                yield futures[future], failure if failure is not None else future.result()
                if failure is not None:
                    for other in pending:
                        other.cancel()
                    return
