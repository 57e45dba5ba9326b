"""`subword encode` and `subword decode`: line by line, files or stdin to a file or stdout."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from subword.errors import InvalidInputError, UsageError
from subword.files import output, read_lines
from subword.options import int_arg

if TYPE_CHECKING:
    from subword.tokenizer import SpecialSet

_BATCH = 2048  # lines encoded per parallel batch


def register(subparsers: argparse._SubParsersAction) -> None:
    enc = subparsers.add_parser(
        "encode",
        help="text → ids (or tokens), one output line per input line",
        description="Encode each input line; prints the ids (or tokens with --tokens) "
        "separated by spaces.",
    )
    enc.add_argument("inputs", nargs="*", metavar="FILE", help="text files; none or - = stdin")
    enc.add_argument("-m", "--model", required=True, help="model file")
    enc.add_argument("-o", "--output", metavar="FILE", help="output file (default stdout)")
    enc.add_argument("--tokens", action="store_true", help="print tokens instead of ids")
    enc.add_argument(
        "--allowed-special",
        nargs="+",
        metavar="TOKEN",
        help="special tokens to encode as themselves where the text holds them, or 'all' "
        "(as the API's allowed_special); others found in the text are an error",
    )
    enc.add_argument(
        "--allow-special",
        dest="allowed_special",
        action="store_const",
        const=["all"],
        help="older spelling of --allowed-special all",
    )
    enc.add_argument(
        "--disallowed-special",
        nargs="+",
        metavar="TOKEN",
        help="special tokens whose presence is an error: 'all' (default: every special "
        "token not allowed), 'none' (treat them as ordinary text), or a list",
    )
    enc.add_argument(
        "--count",
        action="store_true",
        help="print the number of tokens of each line instead of its ids",
    )
    enc.add_argument(
        "--max-tokens",
        type=int_arg,
        metavar="N",
        help="keep the first N ids of each line (as the API's encode(max_tokens=N))",
    )
    enc.add_argument("--errors", choices=("strict", "replace"), default="strict")
    enc.add_argument("--dropout", type=float, metavar="P", help="BPE-dropout probability")
    enc.add_argument("--seed", type=int_arg, default=0, help="seed for --dropout (default 0)")
    _add_shard_flags(enc)
    enc.set_defaults(func=run_encode)

    dec = subparsers.add_parser(
        "decode",
        help="ids → text, one output line per input line",
        description="Decode each input line of space-separated ids back to text.",
    )
    dec.add_argument("inputs", nargs="*", metavar="FILE", help="id files; none or - = stdin")
    dec.add_argument("-m", "--model", required=True, help="model file")
    dec.add_argument("-o", "--output", metavar="FILE", help="output file (default stdout)")
    dec.set_defaults(func=run_decode)


def _batches(lines, size):
    batch = []
    for line in lines:
        batch.append(line)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _special_sets(args: argparse.Namespace) -> tuple[SpecialSet, SpecialSet]:
    """The API's allowed_special and disallowed_special from the flags."""
    allowed: SpecialSet = frozenset()
    if args.allowed_special:
        allowed = "all" if args.allowed_special == ["all"] else frozenset(args.allowed_special)
    disallowed: SpecialSet = "all"
    if args.disallowed_special:
        if args.disallowed_special == ["none"]:
            disallowed = ()
        elif args.disallowed_special != ["all"]:
            disallowed = frozenset(args.disallowed_special)
    return allowed, disallowed


def check_inputs(inputs: list[str]) -> None:
    """Every input named exists and is a file, before any output is written."""
    from pathlib import Path

    for name in inputs:
        if name == "-":
            continue
        path = Path(name)
        if path.is_dir():
            raise UsageError(f"{name}: is a folder; give text files")
        if not path.exists():
            raise UsageError(f"{name}: no such file")


def run_encode(args: argparse.Namespace) -> int:
    import subword

    if args.shards is not None:
        return _run_shards(args)
    if args.dropout is not None and not 0.0 <= args.dropout <= 1.0:
        raise UsageError(f"--dropout must be between 0 and 1, got {args.dropout}")
    if args.seed < 0:
        raise UsageError(f"--seed must be >= 0, got {args.seed}")
    if args.max_tokens is not None and args.max_tokens < 0:
        raise UsageError(f"--max-tokens must be >= 0, got {args.max_tokens}")
    if args.count and (args.tokens or args.dropout is not None or args.max_tokens is not None):
        raise UsageError(
            "--count prints counts: it does not combine with --tokens, --dropout or --max-tokens"
        )
    check_inputs(args.inputs)
    tok = subword.load(args.model)
    allowed, disallowed = _special_sets(args)
    with output(args.output) as out:
        for number, batch in enumerate(_batches(read_lines(args.inputs, args.errors), _BATCH)):
            if args.count:
                counts = tok.count_batch(
                    batch, allowed_special=allowed, disallowed_special=disallowed
                )
                out.write("".join(f"{n}\n" for n in counts))
                continue
            if args.dropout is None:
                encoded = tok.encode_batch(
                    batch, allowed_special=allowed, disallowed_special=disallowed
                )
            else:
                # One seed per line, derived from --seed and the line number: reproducible.
                first = number * _BATCH
                encoded = [
                    tok.encode(
                        line,
                        allowed_special=allowed,
                        disallowed_special=disallowed,
                        dropout=args.dropout,
                        seed=args.seed * 1_000_003 + first + i,
                    )
                    for i, line in enumerate(batch)
                ]
            if args.max_tokens is not None:
                encoded = [ids[: args.max_tokens] for ids in encoded]
            for ids in encoded:
                if args.tokens:
                    out.write(" ".join(tok.id_to_token(i) or "" for i in ids) + "\n")
                else:
                    out.write(" ".join(map(str, ids)) + "\n")
    return 0


def run_decode(args: argparse.Namespace) -> int:
    import subword

    check_inputs(args.inputs)
    tok = subword.load(args.model)
    with output(args.output) as out:
        for number, line in enumerate(read_lines(args.inputs), 1):
            try:
                ids = [int(x) for x in line.split()]
            except ValueError:
                raise UsageError(f"line {number}: expected space-separated integer ids") from None
            try:
                text = tok.decode(ids)
            except InvalidInputError as exc:
                raise UsageError(f"line {number}: {exc}") from None
            out.write(text + "\n")
    return 0


# --- token shards (issue 12: scale-out) ----------------------------------------------------
def _add_shard_flags(enc: argparse.ArgumentParser) -> None:
    from subword.commands.scale import add_ray_flag

    group = enc.add_argument_group(
        "token shards",
        "Write the ids as flat .bin/.idx shards and a manifest (numpy.memmap-readable, "
        "resumable) instead of text; see docs/scaling.md.",
    )
    group.add_argument("--shards", metavar="OUT_DIR", help="write token shards into OUT_DIR")
    group.add_argument(
        "--workers", type=int_arg, metavar="N", help="processes (default: every core)"
    )
    group.add_argument("--dtype", choices=("uint16", "uint32"), help="id type (default: fits)")
    group.add_argument(
        "--shard-bytes",
        type=int_arg,
        metavar="N",
        help="input bytes per shard, cut at a line start (default 256 MiB)",
    )
    add_ray_flag(group, "encode")  # type: ignore[arg-type]


def _run_shards(args: argparse.Namespace) -> int:
    import sys

    import subword
    from subword.scale.shards import SHARD_BYTES

    files = [f for f in args.inputs if f != "-"]
    if not files or len(files) != len(args.inputs):
        raise UsageError("--shards encodes files; give file names, not stdin")
    if args.output or args.tokens or args.dropout is not None:
        raise UsageError("--shards writes OUT_DIR alone: leave out -o, --tokens and --dropout")
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers must be >= 1, got {args.workers}")
    check_inputs(args.inputs)
    tok = subword.load(args.model)
    allowed, _ = _special_sets(args)
    options = {
        "dtype": args.dtype,
        "shard_bytes": args.shard_bytes or SHARD_BYTES,
        "errors": args.errors,
        "allowed_special": allowed,
    }
    if args.ray is not None:
        from subword.scale.ray import write_tokens

        manifest = write_tokens(files, tok, args.shards, address=args.ray or None, **options)
    else:
        from subword.scale.shards import write_shards

        manifest = write_shards(files, tok, args.shards, workers=args.workers, **options)
    print(
        f"subword encode: {len(manifest['shards'])} shards, {manifest['documents']} "
        f"documents, {manifest['tokens']} tokens ({manifest['dtype']}) → {args.shards}",
        file=sys.stderr,
    )
    return 0
