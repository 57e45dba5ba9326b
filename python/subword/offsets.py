"""Offsets: for each token of `encode`, the (start, end) character span of the caller's text
it came from (`Tokenizer.encode_with_offsets`), and truncation at a token boundary
(`Tokenizer.truncate`).

The Rust core (`src/pipeline/offsets.rs`) encodes and records the spans, through its
normalizer; this module maps them back through what runs before the core: a text cleaner
(CLIP's: ftfy, HTML entities, whitespace collapse, lower case) and the repair of lone
surrogates (tiktoken's, which joins a split surrogate pair into one character).

Rules (README, "Offsets"):
- a token that starts inside a multi-byte character starts at that character (tiktoken's
  `decode_with_offsets`); one that ends inside a character ends after it. So consecutive
  byte-level tokens that split a character both cover it;
- a classic token covers its characters, not the whitespace between words; an end-of-word
  token of its own (`</w>` under end_of_word="separate") has an empty span at the word's
  end; an unknown token covers the one character it stands for; a special token covers its
  text;
- text the normalizer changes: a token covers the original characters its normalized text
  came from (for NFKC "ﬁ" → "fi" both "f" and "i" map to the one "ﬁ", so spans of tokens
  inside it are that whole character);
- text the cleaner changes: the cleaned text is walked back along the original (characters
  as themselves or lower-cased, whitespace runs to the one space they became); a rewritten
  run (an HTML entity, an ftfy repair) maps to the original run it replaced, found by a
  diff of the next few characters. The walk is Python, linear in the text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from subword import _core
from subword.errors import InvalidInputError

if TYPE_CHECKING:
    from subword.tokenizer import SpecialSet, Tokenizer

Span = tuple[int, int]


def encode_with_offsets(
    tok: Tokenizer, text: str, allowed: SpecialSet, disallowed: SpecialSet
) -> tuple[list[int], list[Span]]:
    if not isinstance(text, str):
        raise InvalidInputError(f"text must be a str, got {type(text).__name__}")
    if tok._python_pre_tokenizer is not None:
        raise InvalidInputError(
            f"offsets are not available with the {tok.config.pre_tokenizer!r} "
            "pre-tokenizer: its pieces are analysed forms, not spans of the text"
        )
    from subword.text import utf8_safe

    matcher, forbidden = tok._special_plan(allowed, disallowed)
    fixed = utf8_safe(text)
    cleaned = tok._clean(fixed) if tok._clean is not None else fixed
    ids, spans = _core.encode_with_offsets(tok._core, cleaned, matcher, forbidden)
    if cleaned != fixed:
        spans = remap(spans, *align(fixed, cleaned))
    if fixed is not text:
        spans = remap(spans, *surrogate_map(text))
    return ids, spans


def remap(spans: list[Span], lo: list[int], hi: list[int]) -> list[Span]:
    """Spans of a derived text → spans of its source: derived character j came from source
    characters lo[j]..hi[j] (lo has one more entry, the source's length)."""
    out = []
    for start, end in spans:
        if end > start:
            out.append((lo[start], max(hi[end - 1], lo[start])))
        else:
            out.append((lo[start], lo[start]))
    return out


def surrogate_map(text: str) -> tuple[list[int], list[int]]:
    """Where each character of `without_surrogates(text)` comes from: a surrogate pair
    became one character, everything else stays one for one."""
    lo: list[int] = []
    hi: list[int] = []
    i = 0
    while i < len(text):
        pair = (
            "\ud800" <= text[i] <= "\udbff"
            and i + 1 < len(text)
            and "\udc00" <= text[i + 1] <= "\udfff"
        )
        width = 2 if pair else 1
        lo.append(i)
        hi.append(i + width)
        i += width
    lo.append(len(text))
    return lo, hi


def _fold(c: str) -> str:
    return " " if c.isspace() else c.lower() if len(c.lower()) == 1 else c


def align(source: str, derived: str) -> tuple[list[int], list[int]]:
    """Where each character of `derived` (a cleaned `source`) comes from, as `remap` takes
    it. A walk along both texts: characters match as themselves or lower-cased; a
    whitespace run matches the one space it became, or nothing (stripped). Where they
    disagree (an HTML entity, an ftfy repair), a diff of the next few characters (Python's
    difflib) finds where they agree again, and the rewritten run maps to the source run it
    replaced. Linear in the text: the diff only ever sees a short window."""
    lo: list[int] = []
    hi: list[int] = []
    i, j, n, m = 0, 0, len(source), len(derived)
    while j < m:
        c = derived[j]
        if i < n:
            s = source[i]
            if s == c or s.lower() == c or (s == "Σ" and c == "ς"):
                lo.append(i)
                hi.append(i + 1)
                i, j = i + 1, j + 1
                continue
            lowered = s.lower()
            if len(lowered) > 1 and derived.startswith(lowered, j):
                lo.extend([i] * len(lowered))
                hi.extend([i + 1] * len(lowered))
                i, j = i + 1, j + len(lowered)
                continue
            if s.isspace():
                k = i
                while k < n and source[k].isspace():
                    k += 1
                if c.isspace():  # a collapsed run
                    lo.append(i)
                    hi.append(k)
                    j += 1
                i = k  # else stripped
                continue
        found = _agree_again(source, i, derived, j)
        if found is None:
            # No agreement in sight: the rest comes from the rest (wide, not wrong).
            lo.extend([i] * (m - j))
            hi.extend([max(n, i)] * (m - j))
            break
        a, b = found
        if b == 0:  # source characters dropped: they belong to the character before
            dropped = source[i : i + a].rstrip()
            if hi and dropped:
                hi[-1] = max(hi[-1], i + len(dropped))
        else:
            lo.extend([i] * b)
            hi.extend([i + max(a, 1) if i < n else n] * b)
        i, j = i + a, j + b
    lo.append(n)
    return lo, hi


def _agree_again(source: str, i: int, derived: str, j: int) -> tuple[int, int] | None:
    """(a, b): after skipping a source and b derived characters the texts agree again for
    a few characters (or both end), within a window of the next characters."""
    import difflib

    window = 64
    left = "".join(_fold(c) for c in source[i : i + window])
    right = derived[j : j + window]
    matcher = difflib.SequenceMatcher(None, left, right, autojunk=False)
    for block in matcher.get_matching_blocks():
        ends = block.a + block.size == len(left) and block.b + block.size == len(right)
        if block.size >= 3 or (ends and block.size > 0):
            return block.a, block.b
        if block.size == 0 and i + len(left) >= len(source) and j + len(right) >= len(derived):
            return len(left), len(right)  # both texts end in the rewritten run
    return None


def truncate(tok: Tokenizer, text: str, max_tokens: int, allowed, disallowed) -> str:
    """The longest start of `text` made of the first `max_tokens` tokens' characters; a
    character the next token also covers (split between them) is left out."""
    check_max_tokens(max_tokens)
    ids, spans = encode_with_offsets(tok, text, allowed, disallowed)
    if max_tokens >= len(ids):
        return text
    if max_tokens == 0:
        return ""
    cut = min(spans[max_tokens - 1][1], spans[max_tokens][0])
    return text[:cut]


def check_max_tokens(max_tokens: object) -> int:
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 0:
        raise InvalidInputError(f"max_tokens must be an integer >= 0, got {max_tokens!r}")
    return max_tokens


def split_flat(ids: Any, offsets: Any) -> list[list[int]]:
    """A flat array of ids and the offsets where each text's ids start (one more than the
    texts, first 0, last the number of ids) → one id list per text."""
    import numpy as np

    flat = np.asarray(ids)
    bounds = np.asarray(offsets)
    if flat.ndim != 1 or bounds.ndim != 1:
        raise InvalidInputError(
            f"decode_batch with offsets: ids and offsets must be 1-D arrays, got shapes "
            f"{flat.shape} and {bounds.shape}"
        )
    for name, array in (("ids", flat), ("offsets", bounds)):
        if array.size and array.dtype.kind not in "iu":
            raise InvalidInputError(
                f"decode_batch with offsets: {name} must hold integers, got dtype {array.dtype}"
            )
    if bounds.size == 0:
        raise InvalidInputError(
            "decode_batch with offsets: offsets is empty; it has one entry more than there "
            "are texts (0 for no text is [0])"
        )
    if int(bounds[0]) != 0 or int(bounds[-1]) != flat.size:
        raise InvalidInputError(
            f"decode_batch with offsets: offsets must start at 0 and end at the number of "
            f"ids ({flat.size}), got {int(bounds[0])} ... {int(bounds[-1])}"
        )
    steps = np.diff(bounds.astype(np.int64))
    if (steps < 0).any():
        at = int(np.argmax(steps < 0))
        raise InvalidInputError(
            f"decode_batch with offsets: offsets must not decrease, but offsets[{at}] = "
            f"{int(bounds[at])} > offsets[{at + 1}] = {int(bounds[at + 1])}"
        )
    as_list = flat.tolist()
    cuts = bounds.tolist()
    return [as_list[cuts[i] : cuts[i + 1]] for i in range(len(cuts) - 1)]
