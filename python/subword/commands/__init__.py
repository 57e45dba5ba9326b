"""CLI commands, one module each. Every module defines `register(subparsers)`."""

from __future__ import annotations

import argparse
import importlib

# Each command and the module that defines it, in the order `subword --help` lists them.
# Running a command imports its module alone: start-up time is most of a short run.
COMMANDS = {
    "demo": "demo",
    "train": "train",
    "encode": "encode",
    "decode": "encode",
    "explain": "explain",
    "compress": "compress",
    "decompress": "compress",
    "convert": "convert",
    "learn-bpe": "nmt",  # learn-bpe, apply-bpe and get-vocab, as subword-nmt
    "apply-bpe": "nmt",
    "get-vocab": "nmt",
    # The tokenizer lab (a local web page) and its static report.
    "lab": "lab",
    "report": "lab",
    # Scale-out: word counts that add up across shards and machines.
    "count": "scale",
    "merge-counts": "scale",
}
COMMAND_MODULES = tuple(dict.fromkeys(COMMANDS.values()))


def register_all(subparsers: argparse._SubParsersAction) -> None:
    for name in COMMAND_MODULES:
        importlib.import_module(f"subword.commands.{name}").register(subparsers)


def register_command(subparsers: argparse._SubParsersAction, command: str) -> bool:
    """Registers the module that defines `command` (with its other commands); False if no
    module defines it."""
    module = COMMANDS.get(command)
    if module is None:
        return False
    importlib.import_module(f"subword.commands.{module}").register(subparsers)
    return True
