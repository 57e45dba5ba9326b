"""Streaming decode (`Tokenizer.decode_stream`): ids arrive one at a time (a model
generating), text leaves as soon as it is complete.

What makes it more than decoding each id alone:
- a byte-level token may end inside a UTF-8 sequence: its bytes wait until the sequence is
  complete (an incremental UTF-8 decoder, so invalid bytes become U+FFFD exactly as
  `decode(..., errors="replace")` makes them);
- classic models end words with a space (`</w>`), and `decode` drops the text's last one:
  a trailing space waits until more text follows it, and `flush` drops it;
- greedy (`##`) models put a space before every token that starts a word, except the
  first of the text;
- jamo-normalized models compose Hangul syllables across tokens: a leading consonant, or a
  syllable that could still take a trailing consonant, waits for the next token.

`prompt_ids` primes all of this state with the ids already shown (say, the prompt), so a
continuation that starts inside a character, or after a word's end, comes out as the whole
text would, and nothing of the prompt is repeated (vLLM issue #48853: a prompt ending
inside a character made the first streamed piece repeat the whole prompt).
Property: for ids P + C, the stream primed with P yields, over `step` on C and `flush`,
exactly the text `decode(P + C)` has after what the complete characters of P decode to.
"""

from __future__ import annotations

import codecs
from typing import TYPE_CHECKING

from subword import _core
from subword.errors import InvalidInputError

if TYPE_CHECKING:
    from collections.abc import Iterable

    from subword.tokenizer import Tokenizer

# Hangul syllable arithmetic (Unicode §3.12), as the core's `compose_hangul`.
_S_BASE, _L_BASE, _V_BASE, _T_BASE = 0xAC00, 0x1100, 0x1161, 0x11A7
_L_COUNT, _V_COUNT, _T_COUNT = 19, 21, 28
_S_COUNT = _L_COUNT * _V_COUNT * _T_COUNT


def _leading(c: str) -> bool:
    return 0 <= ord(c) - _L_BASE < _L_COUNT


def _open_syllable(c: str) -> bool:
    """A syllable with no trailing consonant, which a following one joins."""
    s = ord(c) - _S_BASE
    return 0 <= s < _S_COUNT and s % _T_COUNT == 0


def compose_hangul(text: str) -> str:
    """Conjoining jamo composed into syllables (leading + vowel, then + trailing)."""
    out: list[str] = []
    for c in text:
        code = ord(c)
        if out and _leading(out[-1]) and 0 <= code - _V_BASE < _V_COUNT:
            lead = ord(out[-1]) - _L_BASE
            out[-1] = chr(_S_BASE + (lead * _V_COUNT + code - _V_BASE) * _T_COUNT)
        elif out and _open_syllable(out[-1]) and 1 <= code - _T_BASE < _T_COUNT:
            out[-1] = chr(ord(out[-1]) + code - _T_BASE)
        else:
            out.append(c)
    return "".join(out)


class DecodeStream:
    """Text from ids given one at a time; see the module notes. Made by
    `Tokenizer.decode_stream(skip_special_tokens=False, prompt_ids=None)`."""

    def __init__(
        self,
        tok: Tokenizer,
        skip_special_tokens: bool = False,
        prompt_ids: Iterable[int] | None = None,
    ) -> None:
        if tok._python_pre_tokenizer is not None:
            raise InvalidInputError(
                f"decode_stream is not available with the {tok.config.pre_tokenizer!r} "
                "pre-tokenizer: its decode rebuilds the text from all pieces at once"
            )
        self._core = tok._core
        self._skip = frozenset(tok.special_tokens.values()) if skip_special_tokens else None
        config = tok.config
        sentencepiece = tok._core.is_sentencepiece()
        self._sentencepiece = sentencepiece
        # Classic decode drops the last space; SentencePiece's drops the first word's.
        self._hold_space = config.kind == "classic" and not sentencepiece
        # SentencePiece: "first_piece" or "while_empty" drop the normalizer's first space.
        self._leading = tok._core.leading_space()
        self._strip = self._leading != "keep"
        self._tok = tok
        self._jamo = config.normalization == "jamo"
        errors = "replace"
        if sentencepiece:
            from subword.text import register_bytewise_replace

            errors = register_bytewise_replace()
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors)
        self._space = False  # a held-back space
        self._held = ""  # jamo: text that may still compose
        self._count = 0  # ids decoded so far (greedy: the first gets no space)
        self._parts: dict[int, tuple[bytes, bool]] = {}
        if prompt_ids is not None:
            for id_ in prompt_ids:
                self.step(id_)
            # What the prompt's complete characters made is shown already; what waits (a
            # split character, a space, composable jamo) stays for the continuation.

    def _part(self, id_: int) -> tuple[bytes, bool]:
        part = self._parts.get(id_)
        if part is None:
            if isinstance(id_, bool) or not isinstance(id_, int):
                raise InvalidInputError(f"id {id_!r} is not an integer id")
            if not 0 <= id_ < 2**32:
                raise InvalidInputError(f"id {id_} is not in the vocabulary")
            part = _core.token_part(self._core, id_)
            if len(self._parts) < 65536:
                self._parts[id_] = part
        return part

    def step(self, id_: int) -> str:
        """Adds one id; returns the text that became complete ('' while it waits)."""
        if self._skip is not None and id_ in self._skip:
            return self._end_run()
        raw, starts_word = self._part(id_)
        if starts_word and self._count > 0:
            raw = b" " + raw
        self._count += 1
        if not raw:
            return self._end_run()
        if self._strip:
            # A piece that is not a control token, at the start: its `▁` is the normalizer's.
            token = self._tok.id_to_token(id_) or ""
            skip = token.startswith("\u2581") and raw.startswith(b" ")
            raw = raw[1:] if skip else raw
            self._strip = not raw and (not skip or self._leading == "while_empty")
            if not raw:
                return ""
        if self._space:
            raw = b" " + raw
            self._space = False
        if self._hold_space and raw.endswith(b" "):
            raw = raw[:-1]
            self._space = True
        return self._compose(self._utf8.decode(raw), final=False)

    def _end_run(self) -> str:
        """After an id with no text: SentencePiece decodes each run of byte pieces apart,
        so a control piece ends one and a character left open in it is replaced."""
        if not self._sentencepiece:
            return ""
        text = self._utf8.decode(b"", final=True)
        self._utf8.reset()
        return self._compose(text, final=False)

    def flush(self) -> str:
        """The rest: an unfinished UTF-8 sequence as U+FFFD (as `decode` with
        errors="replace"); a classic model's last space is dropped, as `decode` does. The
        text ends here: ids stepped afterwards start a new one."""
        text = self._compose(self._utf8.decode(b"", final=True), final=True)
        self._utf8.reset()
        self._space = False
        self._count = 0
        self._strip = self._leading != "keep"
        return text

    def _compose(self, text: str, final: bool) -> str:
        if not self._jamo:
            return text
        text = compose_hangul(self._held + text)
        keep = 0 if final or not text else int(_leading(text[-1]) or _open_syllable(text[-1]))
        self._held = text[len(text) - keep :]
        return text[: len(text) - keep]
