"""The option schema: each option declared once (subword.config), with the checks, the
command-line flags and the README table derived from it; the old names still work, with a
warning."""

from __future__ import annotations

import argparse
import dataclasses
import re
import warnings
from pathlib import Path

import pytest

import subword
from subword.cli import build_parser
from subword.config import TokenizerConfig, TrainConfig
from subword.errors import InvalidInputError
from subword.options import declared, markdown_table

README = Path(__file__).resolve().parents[1] / "README.md"


def test_every_config_field_is_declared() -> None:
    for cls in (TokenizerConfig, TrainConfig):
        names = [f.name for f in dataclasses.fields(cls)]
        assert [o.name for o in declared(cls)] == names
        for opt in declared(cls):
            assert opt.help and opt.flag.startswith("--")


def test_readme_table_is_generated_from_the_declarations() -> None:
    table = markdown_table()
    assert table in README.read_text(encoding="utf-8"), (
        "README's option table is out of date: paste `python -m subword.options` output"
    )


def test_train_flags_are_the_declared_options() -> None:
    parser = build_parser("train")
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    train = sub.choices["train"]
    flags = {s for a in train._actions for s in a.option_strings}
    for cls in (TrainConfig, TokenizerConfig):
        for opt in declared(cls):
            if opt.cli and opt.name != "continuation_prefix":
                assert opt.flag in flags, opt.name
                assert all(alias in flags for alias in opt.aliases)
            elif not opt.cli:
                assert opt.flag not in flags


def test_train_signature_defaults_are_the_declared_ones() -> None:
    import inspect

    params = inspect.signature(subword.train).parameters
    for cls in (TrainConfig, TokenizerConfig):
        for opt in declared(cls):
            if opt.name in params and params[opt.name].default is not None:
                assert params[opt.name].default == opt.default, opt.name


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_merges": "3"}, "num_merges must be an integer, got '3'"),
        ({"num_merges": 2**64}, "num_merges must be at most 2\\*\\*63 - 1"),
        ({"num_merges": -1}, "num_merges must be >= 0"),
        ({"vocab_size": 0}, "vocab_size must be >= 1"),
        ({"min_frequency": True, "num_merges": 3}, "min_frequency must be an integer"),
        ({"tie_break": "random", "num_merges": 3}, "tie_break='random' is not one of"),
        ({"kind": "bytes", "num_merges": 3}, "kind='bytes' is not one of 'classic', 'byte'"),
        ({"lowercase": "yes", "num_merges": 3}, "lowercase must be True or False"),
        ({"end_of_word_symbol": 5, "num_merges": 3}, "end_of_word_symbol must be a string"),
    ],
)
def test_bad_options_name_the_option(kwargs: dict, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        subword.train({"low": 5, "lower": 2}, **kwargs)


def test_config_lists_become_tuples() -> None:
    config = TokenizerConfig(pre_tokenizer="korean", korean_drop_tags=["Josa"])
    assert config.korean_drop_tags == ("Josa",)
    with pytest.raises(InvalidInputError, match="korean_drop_tags must be a list"):
        TokenizerConfig(pre_tokenizer="korean", korean_drop_tags="Josa")


def test_deprecated_pattern_keyword_warns(cl100k_path) -> None:
    with pytest.warns(DeprecationWarning, match="use pre_tokenizer="):
        old = subword.load_tiktoken(cl100k_path, pattern="cl100k")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = subword.load_tiktoken(cl100k_path, pre_tokenizer="cl100k")
    assert old.encode("hello world") == new.encode("hello world")
    with pytest.raises(InvalidInputError, match="pre_tokenizer= only"):
        subword.load_tiktoken(cl100k_path, pattern="gpt2", pre_tokenizer="cl100k")


def test_load_tiktoken_takes_the_pre_tokenizer_from_the_file_name(cl100k_path, tmp_path) -> None:
    for name, expected in [
        ("p50k_base.tiktoken", "gpt2"),
        ("o200k_base.tiktoken", "o200k"),
        ("cl100k_base.tiktoken", "cl100k"),
        ("mine.tiktoken", "cl100k"),
    ]:
        copy = tmp_path / name
        copy.write_bytes(Path(cl100k_path).read_bytes())
        assert subword.load_tiktoken(copy, special_tokens={}).config.pre_tokenizer == expected
        if name != "p50k_base.tiktoken":  # p50k's special token ids are cl100k ranks
            assert subword.load(copy).config.pre_tokenizer == expected


def test_help_texts_name_no_internal_documents() -> None:
    text = markdown_table()
    for command in ("train", "encode", "explain", "learn-bpe", "apply-bpe"):
        parser = build_parser(command)
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        text += sub.choices[command].format_help()
    assert not re.search(r"\bseed \d|\bseeds\b", text, re.IGNORECASE)
