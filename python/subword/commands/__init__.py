"""CLI commands, one module each. Every module defines `register(subparsers)`."""

from __future__ import annotations

import argparse
import importlib

# Order here is the order `subword --help` lists them.
COMMAND_MODULES = (
    "demo",
    "train",
    "encode",  # encode and decode
    "explain",
    "compress",  # compress and decompress
    "nmt",  # learn-bpe, apply-bpe and get-vocab, as subword-nmt
)


def register_all(subparsers: argparse._SubParsersAction) -> None:
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"subword.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"subword.commands.{name}":
                raise
            continue  # a command not written yet
        module.register(subparsers)
