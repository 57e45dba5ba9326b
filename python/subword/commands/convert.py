"""`subword convert`: read a model in any format `subword.load` knows, write it in another."""

from __future__ import annotations

import argparse

from subword.formats.save import FORMATS


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "convert",
        help="convert a model between formats (native, hf, tiktoken, gpt2, sentencepiece; "
        "CLIP and Tekken in)",
        description="Load IN (subword JSON, HF tokenizer.json, .tiktoken, SentencePiece BPE "
        ".model, Tekken JSON, CLIP vocab .txt.gz, GPT-2 vocab.json+merges.txt or their folder) "
        "and write OUT in the format --to names (a SentencePiece model goes to hf as "
        "tokenizer.json with byte fallback). "
        "A format that cannot express the model is an error saying what it lacks.",
    )
    p.add_argument("input", metavar="IN")
    p.add_argument("output", metavar="OUT", help="file, or folder for --to gpt2")
    p.add_argument("--to", choices=FORMATS, required=True)
    p.add_argument(
        "--from",
        dest="source_format",
        choices=(*FORMATS, "clip", "tekken"),
        help="skip format detection",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import subword

    tok = subword.load(args.input, format=args.source_format)
    tok.save(args.output, format=args.to)
    return 0
