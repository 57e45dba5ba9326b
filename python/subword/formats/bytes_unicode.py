"""The GPT-2/CLIP bytes-to-unicode table: every byte shown as one printable character.

Byte-level vocabularies (GPT-2's vocab.json, CLIP's merges, HF's ByteLevel) store tokens as
strings in which each character stands for one byte. Bytes that are printable Latin-1
characters keep their code point; the other 68 bytes (controls, space, NBSP, soft hyphen) are
given the code points 256, 257, ... in byte order, so no token contains whitespace.
"""

from __future__ import annotations

from subword.errors import InvalidInputError


def _printable(b: int) -> bool:
    # '!'..'~', '¡'..'¬', '®'..'ÿ': the Latin-1 characters that are visible and not spaces.
    return 0x21 <= b <= 0x7E or 0xA1 <= b <= 0xAC or 0xAE <= b <= 0xFF


def _build_table() -> list[str]:
    table = []
    next_extra = 256
    for b in range(256):
        if _printable(b):
            table.append(chr(b))
        else:
            table.append(chr(next_extra))
            next_extra += 1
    return table


BYTE_TO_UNICODE: list[str] = _build_table()
UNICODE_TO_BYTE: dict[str, int] = {c: b for b, c in enumerate(BYTE_TO_UNICODE)}

# str.translate tables: decoding bytes as Latin-1 then translating is ~20x faster than a
# per-byte join, which matters when a 100k-token vocabulary is read.
_ENCODE = {b: c for b, c in enumerate(BYTE_TO_UNICODE)}
# The reverse maps each table character to the Latin-1 character of its byte. Code points below
# 256 that are not in the table are mapped to a lone surrogate so that encoding fails on them.
_DECODE: dict[int, str] = {ord(c): chr(b) for b, c in enumerate(BYTE_TO_UNICODE)}
_DECODE.update({b: "\udfff" for b in range(256) if not _printable(b)})


def bytes_to_token(b: bytes) -> str:
    """Show bytes as a byte-level token string (b" the" -> "Ġthe")."""
    return b.decode("latin-1").translate(_ENCODE)


def token_to_bytes(s: str) -> bytes:
    """The bytes a byte-level token string stands for ("Ġthe" -> b" the").

    Raises InvalidInputError naming the first character that is not in the table.
    """
    try:
        return s.translate(_DECODE).encode("latin-1")
    except UnicodeEncodeError:
        bad = next(c for c in s if c not in UNICODE_TO_BYTE)
        raise InvalidInputError(
            f"{bad!r} (U+{ord(bad):04X}) in token {s!r} is not a byte-level character"
        ) from None
