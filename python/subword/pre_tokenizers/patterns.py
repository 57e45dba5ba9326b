"""Named pre-tokenizer regexes, and their translation to and from Oniguruma (HF tokenizers).

The core compiles these with Rust `fancy-regex`: Unicode classes (\\p{L}, \\p{N}), lookahead,
possessive quantifiers and atomic groups, no global flags (case-insensitivity is written
inline as `(?i:...)` where a pattern needs it), `$` meaning the end of the text. The Rust core
keeps the matches and drops any text no match covers (like `findall`); the GPT-style patterns
below cover every character, so for them this is the same as splitting.

Flags each needs:
- gpt2, cl100k, o200k: none (tiktoken's own strings; cl100k and o200k carry `(?i:...)`).
- llama3: none (Llama 3's own string, with `(?i:...)`).
- clip: none in the form below. CLIP compiles its pattern (`CLIP_ORIGINAL`) with Python
  `regex` and IGNORECASE and applies it to lower-cased text. On lower-cased text IGNORECASE
  changes exactly two things, found by checking every code point: `ſ` (U+017F) matches `s`
  (so `'ſ` is one token), and U+0345 (combining ypogegrammeni, which folds to a letter) is
  matched by no branch at all, so CLIP drops it. fancy-regex's `(?i)` treats U+0345 as a
  letter instead, so `clip` spells both effects out and needs no flag.
"""

from __future__ import annotations

import re

from subword.errors import InvalidInputError

# tiktoken's r50k/p50k/gpt2 pattern: GPT-2's original regex rewritten with possessive
# quantifiers, which tiktoken documents as equivalent and faster.
_GPT2 = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""

_CL100K = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)

_O200K = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

# Llama 3's pattern as `llama_models/llama3/tokenizer.py` writes it: cl100k's older form, which
# differs from tiktoken's current cl100k only where a whitespace run with a line break ends
# the text (cut after the last break here, whole there).
_LLAMA3 = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"""
    r"""| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)

# CLIP's simple_tokenizer pattern exactly as it is written there (compiled with IGNORECASE).
CLIP_ORIGINAL = (
    r"""<\|startoftext\|>|<\|endoftext\|>|'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]"""
    r"""|[^\s\p{L}\p{N}]+"""
)

# The same pattern with IGNORECASE's effect on lower-cased text written out (see above).
_CLIP = (
    r"""<\|[s\u017f]tartoftext\|>|<\|endoftext\|>|'[s\u017f]|'t|'re|'ve|'m|'ll|'d|[\p{L}]+"""
    r"""|[\p{N}]|[^\s\p{L}\p{N}\u0345]+"""
)

PATTERNS: dict[str, str] = {
    "gpt2": _GPT2,
    "cl100k": _CL100K,
    "o200k": _O200K,
    "llama3": _LLAMA3,
    "clip": _CLIP,
}

# tiktoken's encoding names for the same patterns.
_ALIASES = {
    "r50k_base": "gpt2",
    "p50k_base": "gpt2",
    "cl100k_base": "cl100k",
    "o200k_base": "o200k",
}


def resolve_pattern(name_or_regex: str) -> str:
    """The regex for a pattern name ("cl100k", "cl100k_base", ...); any other string is taken
    to be a regex already and returned unchanged."""
    if not name_or_regex:
        raise InvalidInputError("the pre-tokenizer pattern must not be empty")
    if name_or_regex == "whitespace":
        raise InvalidInputError("'whitespace' is a pre-tokenizer mode, not a regex pattern")
    name = _ALIASES.get(name_or_regex, name_or_regex)
    return PATTERNS.get(name, name_or_regex)


def pattern_name(name_or_regex: str) -> str:
    """The short name for a named pattern, its alias or its regex; a user regex unchanged.
    Specs store names so that a file read back names the pattern it was written with."""
    name = _ALIASES.get(name_or_regex, name_or_regex)
    if name in PATTERNS:
        return name
    for known, regex in PATTERNS.items():
        if regex == name_or_regex:
            return known
    return name_or_regex


# --- Oniguruma (the regex engine of HF tokenizers) --------------------------------------
#
# Oniguruma's Ruby syntax differs from fancy-regex in three places that matter here:
# - `X{n,m}+` is not possessive but a repeat of `X{n,m}`: `\p{N}{1,3}+` would take a whole
#   run of digits. `(?>X{n,m})` (an atomic group) is possessive in both engines.
# - `$` and `^` are line anchors (before/after any "\n"); fancy-regex's are text anchors
#   unless (?m) is on. `\z` and `\A` mean the text's ends in both.
# Other possessive quantifiers (`?+ *+ ++`) and `(?i:...)` read the same in both.

_INTERVAL = re.compile(r"\{\d+(?:,\d*)?\}")


def _read_escape(regex: str, i: int) -> int:
    """End index of the escape starting at regex[i] == '\\'."""
    if i + 1 >= len(regex):
        raise InvalidInputError(f"regex {regex!r} ends with a lone backslash")
    nxt = regex[i + 1]
    if nxt in "pPxk" and i + 2 < len(regex) and regex[i + 2] in "{<":
        close = regex.find("}" if regex[i + 2] == "{" else ">", i + 2)
        if close < 0:
            raise InvalidInputError(f"regex {regex!r}: unclosed escape at offset {i}")
        return close + 1
    if nxt in "pP":  # \pL: a one-letter class name
        return i + 3
    if nxt == "x":  # \xHH
        return i + 4
    if nxt == "u":  # \uHHHH
        return i + 6
    return i + 2


def _read_class(regex: str, i: int) -> int:
    """End index of the bracket class starting at regex[i] == '['; classes may nest."""
    depth = 0
    j = i
    while j < len(regex):
        c = regex[j]
        if c == "\\":
            j = _read_escape(regex, j)
            continue
        if c == "[":
            depth += 1
            j += 1
            # A ']' right after '[' or '[^' is a literal, not the end.
            if regex.startswith("^", j):
                j += 1
            if regex.startswith("]", j):
                j += 1
            continue
        if c == "]":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    raise InvalidInputError(f"regex {regex!r}: unclosed character class at offset {i}")


def _rewrite(regex: str, interval_plus, anchors: dict[str, str]) -> str:
    """Copy `regex`, replacing anchors outside classes and passing each `ATOM{n,m}+` to
    `interval_plus(atom, interval)`. Pieces are kept per atom so a quantifier can see the
    whole atom (escape, class or group) it applies to."""
    pieces: list[str] = []
    groups: list[int] = []
    i = 0
    while i < len(regex):
        c = regex[i]
        if c == "\\":
            end = _read_escape(regex, i)
            pieces.append(regex[i:end])
            i = end
        elif c == "[":
            end = _read_class(regex, i)
            pieces.append(regex[i:end])
            i = end
        elif c == "(":
            groups.append(len(pieces))
            pieces.append(c)
            i += 1
        elif c == ")":
            if not groups:
                raise InvalidInputError(f"regex {regex!r}: unbalanced ')' at offset {i}")
            start = groups.pop()
            pieces[start:] = ["".join(pieces[start:]) + ")"]
            i += 1
        elif c == "{" and pieces and (m := _INTERVAL.match(regex, i)):
            interval = m.group()
            i = m.end()
            if regex.startswith("+", i):
                pieces[-1] = interval_plus(pieces[-1], interval)
                i += 1
            else:
                pieces[-1] += interval
        elif c in "*+?" and pieces:
            pieces[-1] += c
            i += 1
        else:
            pieces.append(anchors.get(c, c))
            i += 1
    if groups:
        raise InvalidInputError(f"regex {regex!r}: unclosed group")
    return "".join(pieces)


def to_oniguruma(regex: str) -> str:
    """Rewrite a fancy-regex pattern so that Oniguruma finds the same matches."""
    return _rewrite(regex, lambda atom, q: f"(?>{atom}{q})", {"$": r"\z", "^": r"\A"})


def from_oniguruma(regex: str) -> str:
    """Rewrite an Oniguruma pattern (from a tokenizer.json) for fancy-regex."""
    for name, known in PATTERNS.items():
        if to_oniguruma(known) == regex:
            return PATTERNS[name]
    return _rewrite(regex, lambda atom, q: f"(?:{atom}{q})+", {"$": "(?m:$)", "^": "(?m:^)"})
