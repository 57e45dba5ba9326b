"""Offsets: for each token of `encode`, the (start, end) character span of the caller's text
it came from (`Tokenizer.encode_with_offsets`).

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
- text the cleaner changes: spans are matched back character by character (case folded,
  whitespace runs to the one space they became); where the cleaner rewrote text (HTML
  entities, ftfy repairs) the rewritten run maps to the original run it came from.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from subword import _core
from subword.errors import InvalidInputError

if TYPE_CHECKING:
    from subword.tokenizer import SpecialSet, Tokenizer

Span = tuple[int, int]
# How far the aligner looks for the text to agree again after a cleaner rewrote a run.
_RESYNC_WINDOW = 24
_RESYNC_CONTEXT = 3


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
    from subword.tokenizer import utf8_safe

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


def _same_char(source: str, derived: str) -> bool:
    # Python's str.lower turns a final capital sigma into ς.
    return source == derived or (source == "Σ" and derived == "ς")


def align(source: str, derived: str) -> tuple[list[int], list[int]]:
    """Where each character of `derived` (a cleaned `source`) comes from, as `remap` takes
    it. Characters match as themselves or lower-cased; a whitespace run matches the one
    space it became, or nothing (stripped); a rewritten run (an HTML entity, an ftfy
    repair) maps to the source run between the places where the texts agree again."""
    lo: list[int] = []
    hi: list[int] = []
    i, j, n, m = 0, 0, len(source), len(derived)
    while j < m:
        c = derived[j]
        if i < n and _same_char(source[i], c):
            lo.append(i)
            hi.append(i + 1)
            i, j = i + 1, j + 1
            continue
        lowered = source[i].lower() if i < n else ""
        if len(lowered) > 1 and derived.startswith(lowered, j):
            lo.extend([i] * len(lowered))
            hi.extend([i + 1] * len(lowered))
            i, j = i + 1, j + len(lowered)
            continue
        if i < n and source[i].isspace():
            k = i
            while k < n and source[k].isspace():
                k += 1
            if c.isspace():
                lo.append(i)
                hi.append(k)
                j += 1
            i = k
            continue
        # A rewritten run: the nearest (source skip, derived skip) after which the texts
        # agree for a few characters; the skipped derived characters come from the skipped
        # source run.
        found = _resync(source, i, derived, j)
        if found is None:
            # No agreement in sight: the rest of the derived text comes from the rest of the
            # source (wide spans rather than wrong ones).
            lo.extend([i] * (m - j))
            hi.extend([n] * (m - j))
            break
        a, b = found
        if b == 0:  # source characters dropped: they belong to the previous character
            if hi:
                hi[-1] = i + a
            i += a
            continue
        lo.extend([i] * b)
        hi.extend([i + max(a, 1)] * b)
        i, j = i + a, j + b
    lo.append(n)
    return lo, hi


def _resync(source: str, i: int, derived: str, j: int) -> tuple[int, int] | None:
    """The smallest skips (a in source, b in derived) after which both texts agree for
    `_RESYNC_CONTEXT` characters (or both end)."""
    best = None
    for total in range(1, 2 * _RESYNC_WINDOW + 1):
        for a in range(max(0, total - _RESYNC_WINDOW), min(total, _RESYNC_WINDOW) + 1):
            b = total - a
            s, d = source[i + a : i + a + _RESYNC_CONTEXT], derived[j + b : j + b + _RESYNC_CONTEXT]
            if i + a > len(source) or j + b > len(derived):
                continue
            if s.lower() == d and (s or (i + a == len(source) and j + b == len(derived))):
                best = (a, b)
                break
        if best is not None:
            return best
    return None

