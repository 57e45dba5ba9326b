"""Korean pre-tokenizer (stage 2, in Python): words are split into morphemes by the Kiwi
analyser (`kiwipiepy`, installed with `pip install subword[korean]`) before BPE sees them.
Korean writes particles and endings onto their word (`영화가`, `봤는데`), so a word-level
table is full of rare inflected forms; splitting them off first (morpheme-aware BPE) lets BPE
learn stems and endings once each.

Pieces are surface forms: slices of the (normalized) text, never Kiwi's dictionary forms.
When Kiwi analyses one syllable as two morphemes (`봤` = 보 + 었, `함` = 하 + ㅁ) their
spans overlap; overlapping morphemes make one piece (`봤`). Characters Kiwi leaves out
become pieces of their own, so nothing is lost unless it is dropped on purpose.

Options (fields of `TokenizerConfig`, saved with the model, `subword.train` keywords):

- `korean_drop_tags`: morphemes to leave out, as Kiwi tags (`"JKS"`, `"SF"`, ...; an
  irregular-stem tag such as `VV-I` matches `VV`) or as the group names of the Okt analyser
  (used by the Korean BPE tutorials this follows), mapped to Kiwi's tag set:

  ============  ==============================================  ==========================
  group         Kiwi tags                                       what they are
  ============  ==============================================  ==========================
  Josa          JKS JKC JKG JKO JKB JKV JKQ JX JC               case, auxiliary and
                                                                conjunctive particles
  Punctuation   SF SP SS SSO SSC SE SO                          . ! ? , · / : brackets,
                                                                quotes, … - ~
  Foreign       SH                                              Hanja (Chinese characters)
  ============  ==============================================  ==========================

  Okt's Foreign also covers other non-Korean scripts; Kiwi files those under SW together
  with symbols and with the ㅋㅋ/ㅠㅠ letter runs that the tutorial keeps, so SW is in no group.
  A piece made of overlapping morphemes is dropped only if all of them are (`난` = 나 +
  는 stays). The default drops nothing.
- `korean_spacing` (default True): the first kept piece of each whitespace-separated word
  carries the mark `▁` (U+2581), so the ids record the spacing and `Tokenizer.decode`
  rebuilds it (`join`): with nothing dropped, `decode(encode(x))` is x's words, normalized,
  with their original single spaces. False: pieces carry no mark (the tutorial's table) and
  decode separates every piece by a space. Text that itself contains `▁` does not
  round-trip.
- `normalization`: Korean models default to `"nfc"`. With `"jamo"` Kiwi still reads
  syllables (the text is composed for the analysis) and the pieces are then split into
  conjoining jamo; decode composes them again.

Speed: one Kiwi instance per process (its model takes seconds to load), and batches of
texts go through Kiwi's multi-threaded `tokenize` over an iterable.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

from subword import _core
from subword import pre_tokenizers as pretokenizers
from subword.config import TokenizerConfig
from subword.errors import InvalidInputError, MissingDependencyError

SPACE_MARK = "\u2581"
EXTRA_HINT = "pip install subword[korean]"

TAG_GROUPS: dict[str, tuple[str, ...]] = {
    "Josa": ("JKS", "JKC", "JKG", "JKO", "JKB", "JKV", "JKQ", "JX", "JC"),
    "Punctuation": ("SF", "SP", "SS", "SSO", "SSC", "SE", "SO"),
    "Foreign": ("SH",),
}

# Kiwi's tag set (Sejong tags plus Kiwi's own W_*, Z_* and USER*).
KIWI_TAGS = frozenset(
    """NNG NNP NNB NR NP VV VA VX VCP VCN MM MAG MAJ IC JKS JKC JKG JKO JKB JKV JKQ JX JC
    EP EF EC ETN ETM XPN XSN XSV XSA XSM XR SF SP SS SSO SSC SE SO SW SB SL SH SN UN
    W_URL W_EMAIL W_HASHTAG W_MENTION W_SERIAL W_EMOJI Z_CODA Z_SIOT
    USER0 USER1 USER2 USER3 USER4""".split()
)

_WORD = re.compile(r"\S+")


def expand_tags(names: Iterable[str]) -> frozenset[str]:
    """Kiwi tags for `names` (tags or group names); ValueError naming an unknown one."""
    tags: set[str] = set()
    for name in names:
        if name in TAG_GROUPS:
            tags.update(TAG_GROUPS[name])
        elif name in KIWI_TAGS:
            tags.add(name)
        else:
            raise InvalidInputError(
                f"korean_drop_tags: {name!r} is neither a Kiwi tag (NNG, JKS, SF, ...) nor "
                f"a group ({', '.join(TAG_GROUPS)})"
            )
    return frozenset(tags)


_KIWI: Any = None
_KIWI_LOCK = threading.Lock()


def kiwi() -> Any:
    """The process's Kiwi analyser, loaded once (its model takes seconds to load)."""
    global _KIWI
    with _KIWI_LOCK:
        if _KIWI is None:
            try:
                from kiwipiepy import Kiwi

                # -1: a thread per core for batches (0 would be one thread, and batches
                # then fail).
                analyser = Kiwi(num_workers=-1)
                analyser.tokenize("")  # Kiwi loads lazily: load now, so errors show here
            except ImportError as exc:
                raise MissingDependencyError(
                    f"the Korean pre-tokenizer needs kiwipiepy and kiwipiepy-model ({exc}); "
                    f"install them with: {EXTRA_HINT}"
                ) from exc
            _KIWI = analyser
        return _KIWI


class KoreanPreTokenizer:
    """Splits text into morpheme pieces with Kiwi; `join` rebuilds text from pieces."""

    def __init__(self, config: TokenizerConfig) -> None:
        self.drop = expand_tags(config.korean_drop_tags)
        self.spacing = config.korean_spacing
        self._jamo = config.normalization == "jamo"
        self._to_jamo = _core.Normalizer("jamo").normalize if self._jamo else None
        self._kiwi = kiwi()

    def pieces(self, text: str) -> list[str]:
        return self.pieces_batch([text])[0]

    def pieces_batch(self, texts: Sequence[str]) -> list[list[str]]:
        """The pieces of each text, analysing the batch on Kiwi's threads."""
        if self._jamo:
            # Kiwi reads syllables: compose what jamo normalization split. The text was NFC
            # before the split, so this is exactly the NFC text.
            texts = [unicodedata.normalize("NFC", t) for t in texts]
        if len(texts) == 1:
            analyses: Iterable = [self._kiwi.tokenize(texts[0])]
        else:
            analyses = self._kiwi.tokenize(texts)
        result = [self._split(text, tokens) for text, tokens in zip(texts, analyses)]
        if self._to_jamo is not None:
            to_jamo = self._to_jamo
            result = [[to_jamo(p) for p in pieces] for pieces in result]
        return result

    def _split(self, text: str, tokens: Sequence[Any]) -> list[str]:
        # Spans of overlapping morphemes, with the tags each holds; gaps Kiwi left out
        # become spans with no tag (always kept).
        spans: list[tuple[int, int, list[str]]] = []
        covered = 0
        for token in tokens:
            start, end = token.start, token.start + token.len
            if spans and start < spans[-1][1]:
                last = spans[-1]
                spans[-1] = (last[0], max(last[1], end), last[2] + [token.tag])
                covered = max(covered, end)
                continue
            if start > covered:
                spans.append((covered, start, []))
            spans.append((start, end, [token.tag]))
            covered = max(covered, end)
        if covered < len(text):
            spans.append((covered, len(text), []))

        pieces: list[str] = []
        word_start = True  # the next kept piece starts a word
        for start, end, tags in spans:
            drop = bool(tags) and all(tag.split("-")[0] in self.drop for tag in tags)
            # A span may hold whitespace (a gap, or a morpheme across a space): its parts
            # are pieces, and a part after whitespace starts a word.
            for match in _WORD.finditer(text, start, end):
                at = match.start()
                if at == 0 or text[at - 1].isspace():
                    word_start = True
                if drop:
                    continue
                piece = match.group()
                if self.spacing and word_start:
                    piece = SPACE_MARK + piece
                word_start = False
                pieces.append(piece)
        return pieces

    def join(self, pieces: Sequence[str]) -> str:
        """Text from decoded pieces: with spacing kept, a word starts at each mark;
        without, pieces are separated by single spaces."""
        if not self.spacing:
            return " ".join(p for p in pieces if p)
        return " ".join(word for word in "".join(pieces).split(SPACE_MARK) if word)


pretokenizers.register("korean", KoreanPreTokenizer)
