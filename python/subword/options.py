"""Every option is declared once, as a dataclass field with its default, choices and help
(`option(...)` below); the checks, the command-line flags and the README's option table are
all derived from those declarations, as SentencePiece derives its flags from one `.proto`.

    @dataclass
    class TrainConfig:
        min_frequency: int = option(2, minimum=1, help="stop when no pair occurs this often")

`validate(instance)` checks types, choices and bounds and names the option in its error;
`add_arguments(parser, TrainConfig)` adds `--min-frequency N`; `markdown_table()` writes the
README table (`python -m subword.options` prints it; a test keeps the README in step).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from subword.errors import InvalidInputError

if TYPE_CHECKING:
    import argparse

# Integers cross into the core as 64-bit values: larger ones are refused here, by name.
MAX_INT = 2**63 - 1


def option(
    default: Any,
    *,
    help: str,
    choices: Sequence[Any] | None = None,
    minimum: int | None = None,
    maximum: float | None = None,
    flag: str | None = None,
    aliases: Sequence[str] = (),
    metavar: str | None = None,
    cli: bool = True,
    cli_help: str | None = None,
) -> Any:
    """A dataclass field that declares an option.

    choices: the allowed values (None among them if the option may be unset).
    minimum / maximum: bounds of a number.
    flag: the command-line flag (default `--` + the name with dashes); aliases: older
        spellings still accepted (shown in --help as such).
    cli: False for options that files set but a command line does not (e.g. `merge_rule`).
    cli_help: the flag's help when it must differ from the API's (e.g. a default that the
        command line fills in)."""
    metadata = {
        "help": help,
        "choices": tuple(choices) if choices is not None else None,
        "minimum": minimum,
        "maximum": maximum,
        "flag": flag,
        "aliases": tuple(aliases),
        "metavar": metavar,
        "cli": cli,
        "cli_help": cli_help,
    }
    if isinstance(default, list):
        default = tuple(default)  # immutable, so a plain default is safe
    return dataclasses.field(default=default, metadata=metadata)


@dataclasses.dataclass(frozen=True)
class Declared:
    """One option as declared: its name, type and metadata."""

    name: str
    type: Any
    default: Any
    help: str
    choices: tuple[Any, ...] | None
    minimum: int | None
    maximum: float | None
    flag: str
    aliases: tuple[str, ...]
    metavar: str | None
    cli: bool
    cli_help: str | None

    @property
    def nullable(self) -> bool:
        return _allows_none(self.type)

    @property
    def base(self) -> Any:
        """The type without `| None`."""
        args = [a for a in typing.get_args(self.type) if a is not type(None)]
        if _is_union(self.type) and len(args) == 1:
            return args[0]
        return self.type


_DECLARED: dict[type, tuple[Declared, ...]] = {}


def declared(cls: type) -> tuple[Declared, ...]:
    """The options a config dataclass declares, in order."""
    if cls not in _DECLARED:
        _DECLARED[cls] = _read_declarations(cls)
    return _DECLARED[cls]


def _read_declarations(cls: type) -> tuple[Declared, ...]:
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        if "help" not in f.metadata:
            continue
        m = f.metadata
        default = f.default
        out.append(
            Declared(
                name=f.name,
                type=hints[f.name],
                default=default,
                help=m["help"],
                choices=m["choices"],
                minimum=m["minimum"],
                maximum=m["maximum"],
                flag=m["flag"] or "--" + f.name.replace("_", "-"),
                aliases=m["aliases"],
                metavar=m["metavar"],
                cli=m["cli"],
                cli_help=m["cli_help"],
            )
        )
    return tuple(out)


def _is_union(tp: Any) -> bool:
    return typing.get_origin(tp) in (typing.Union, types.UnionType)


def _allows_none(tp: Any) -> bool:
    return _is_union(tp) and type(None) in typing.get_args(tp)


def _type_name(tp: Any) -> str:
    if _is_union(tp):
        return " or ".join(_type_name(a) for a in typing.get_args(tp))
    if tp is type(None):
        return "None"
    if typing.get_origin(tp) is tuple:
        return f"list of {_type_name(typing.get_args(tp)[0])}"
    return getattr(tp, "__name__", str(tp))


def check_value(opt: Declared, value: Any) -> Any:
    """`value` checked against the declaration (and normalized: lists become tuples);
    InvalidInputError naming the option otherwise."""
    if value is None:
        if opt.nullable:
            return None
        raise InvalidInputError(f"{opt.name} must be {_type_name(opt.type)}, got None")
    base = opt.base
    if typing.get_origin(base) is tuple:
        item = typing.get_args(base)[0]
        if isinstance(value, str) or not isinstance(value, (list, tuple)):
            raise InvalidInputError(
                f"{opt.name} must be a list of {_type_name(item)}, got {value!r}"
            )
        if not all(isinstance(v, item) for v in value):
            raise InvalidInputError(
                f"{opt.name} must be a list of {_type_name(item)}, got {value!r}"
            )
        value = tuple(value)
    elif base is bool:
        if not isinstance(value, bool):
            raise InvalidInputError(f"{opt.name} must be True or False, got {value!r}")
    elif base is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidInputError(f"{opt.name} must be an integer, got {value!r}")
        if value > MAX_INT:
            raise InvalidInputError(f"{opt.name} must be at most 2**63 - 1, got {value}")
    elif base is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InvalidInputError(f"{opt.name} must be a number, got {value!r}")
        value = float(value)
    elif base is str:
        if not isinstance(value, str):
            raise InvalidInputError(f"{opt.name} must be a string, got {value!r}")
    if opt.choices is not None and value not in opt.choices:
        shown = ", ".join(repr(c) for c in opt.choices)
        raise InvalidInputError(f"{opt.name}={value!r} is not one of {shown}")
    if opt.minimum is not None and value < opt.minimum:
        raise InvalidInputError(f"{opt.name} must be >= {opt.minimum}, got {value}")
    if opt.maximum is not None and value > opt.maximum:
        raise InvalidInputError(f"{opt.name} must be <= {opt.maximum}, got {value}")
    return value


def validate(instance: Any) -> None:
    """Checks (and normalizes in place) every declared option of a config dataclass."""
    for opt in declared(type(instance)):
        checked = check_value(opt, getattr(instance, opt.name))
        object.__setattr__(instance, opt.name, checked)


# --- the command line ---------------------------------------------------------------------
def _cli_type(opt: Declared) -> Any:
    base = opt.base
    if typing.get_origin(base) is tuple:
        return str
    if base is int:
        return int_arg
    if base is float:
        return float
    return str


def int_arg(text: str) -> int:
    """An argparse type: an integer that fits the core (|value| <= 2**63 - 1)."""
    import argparse  # here: loading a model needs the options, not the command line

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid integer {text!r}") from None
    if abs(value) > MAX_INT:
        raise argparse.ArgumentTypeError(f"{text} is too large (at most 2**63 - 1)")
    return value


def add_arguments(
    parser: argparse.ArgumentParser | argparse._ArgumentGroup,
    *classes: type,
    only: Iterable[str] | None = None,
    skip: Iterable[str] = (),
) -> list[str]:
    """Adds a flag for each command-line option of `classes`; every flag defaults to None
    (not given), so the API's defaults apply. Returns the option names added."""
    import argparse

    wanted = set(only) if only is not None else None
    skipped = set(skip)
    names = []
    for cls in classes:
        for opt in declared(cls):
            if (
                not opt.cli
                or opt.name in skipped
                or (wanted is not None and opt.name not in wanted)
            ):
                continue
            flags = [opt.flag, *opt.aliases]
            help_text = opt.cli_help or opt.help
            if opt.aliases:
                help_text += f" ({', '.join(opt.aliases)}: older spelling)"
            kwargs: dict[str, Any] = {"dest": opt.name, "default": None, "help": help_text}
            base = opt.base
            if base is bool:
                kwargs["action"] = argparse.BooleanOptionalAction
            elif typing.get_origin(base) is tuple:
                kwargs["action"] = "append"
                kwargs["metavar"] = opt.metavar or "VALUE"
                kwargs["help"] = help_text + " (repeatable)"
                kwargs["type"] = str
            else:
                kwargs["type"] = _cli_type(opt)
                choices = [c for c in opt.choices or () if c is not None]
                if choices:
                    kwargs["choices"] = choices
                else:
                    kwargs["metavar"] = opt.metavar or ("N" if base is int else "VALUE")
            parser.add_argument(*flags, **kwargs)
            names.append(opt.name)
    return names


def given(args: argparse.Namespace, names: Iterable[str]) -> dict[str, Any]:
    """The options the command line gave (flags left out keep the API's defaults)."""
    return {n: getattr(args, n) for n in names if getattr(args, n, None) is not None}


# --- the README ---------------------------------------------------------------------------
def _shown(value: Any) -> str:
    if isinstance(value, tuple):
        return "`()`" if not value else "`" + repr(list(value)) + "`"
    return f"`{value!r}`"


def markdown_table(classes: Sequence[type] | None = None) -> str:
    """The README's table of options: API keyword, flag, type, default, choices, meaning."""
    if classes is None:
        from subword.config import TokenizerConfig, TrainConfig

        classes = (TrainConfig, TokenizerConfig)
    rows = [
        "| option | command line | type | default | meaning |",
        "|---|---|---|---|---|",
    ]
    for cls in classes:
        for opt in declared(cls):
            flag = f"`{opt.flag}`" if opt.cli else "—"
            if opt.cli and opt.aliases:
                flag += " (" + ", ".join(f"`{a}`" for a in opt.aliases) + ")"
            meaning = opt.help
            if opt.choices:
                meaning += "; one of " + ", ".join(_shown(c) for c in opt.choices)
            rows.append(
                f"| `{opt.name}` | {flag} | {_type_name(opt.type)} | {_shown(opt.default)} "
                f"| {meaning} |"
            )
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(markdown_table(), end="")
