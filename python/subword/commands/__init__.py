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
    "convert",
    "nmt",  # learn-bpe, apply-bpe and get-vocab, as subword-nmt
)


def register_all(subparsers: argparse._SubParsersAction) -> None:
    for name in COMMAND_MODULES:
        importlib.import_module(f"subword.commands.{name}").register(subparsers)
