"""One model written in the format the user names, or a clear refusal naming what that format
cannot hold (`Tokenizer.save` calls this)."""

from __future__ import annotations

import json
from pathlib import Path

from subword.config import ModelSpec
from subword.errors import InvalidInputError
from subword.files import write_atomic
from subword.formats._files import PathLike

FORMATS = ("native", "hf", "tiktoken", "gpt2", "sentencepiece")


def save_model(spec: ModelSpec, path: PathLike, format: str, training: dict | None) -> None:
    """Writes `spec` to `path` as `format` (one of `FORMATS`); `training` goes into the
    native file's record of how the model was trained."""
    if format not in FORMATS:
        raise InvalidInputError(f"format={format!r}: use {', '.join(FORMATS)}")
    sentencepiece = spec.sentencepiece
    if sentencepiece is not None and format not in ("hf", "sentencepiece"):
        raise InvalidInputError(
            f"format={format!r} cannot express a SentencePiece model (its normalizer, and "
            "merges by entry score): save as 'sentencepiece' (the .model file) or 'hf' "
            "(tokenizer.json with byte fallback)"
        )
    if format == "sentencepiece":
        if sentencepiece is None:
            raise InvalidInputError(
                "format='sentencepiece' writes models loaded from a SentencePiece .model "
                "file; this model is not one: save as 'native' or 'hf'"
            )
        write_atomic(path, sentencepiece.model_file)
    elif format == "native":
        from subword.formats.native import write_native

        write_native(spec, path, training)
    elif format == "hf" and sentencepiece is not None:
        from subword.formats.sentencepiece import to_hf_json

        text = json.dumps(to_hf_json(spec), ensure_ascii=False, indent=2) + "\n"
        write_atomic(path, text.encode("utf-8"))
    elif format == "hf":
        from subword.formats.hf import write_hf

        write_hf(spec, path)
    elif format == "tiktoken":
        from subword.formats.tiktoken import write_tiktoken

        write_tiktoken(spec, path)
    else:  # gpt2
        if spec.config.pre_tokenizer != "gpt2":
            raise InvalidInputError(
                "GPT-2 files cannot record the pre-tokenizer "
                f"{spec.config.pre_tokenizer!r} (loading them assumes 'gpt2'): save as "
                "'hf' or 'native' instead"
            )
        from subword.formats.gpt2 import write_gpt2

        folder = Path(path)
        folder.mkdir(parents=True, exist_ok=True)
        write_gpt2(spec, folder / "vocab.json", folder / "merges.txt")
