"""Text as the encoders take it: a Python str may hold lone surrogates, which have no UTF-8;
and SentencePiece replaces undecodable bytes one by one where Python replaces runs."""

from __future__ import annotations


def without_surrogates(text: str) -> str:
    """`text` as tiktoken encodes a str holding lone surrogates (which have no UTF-8): through
    UTF-16 with surrogatepass, so a split pair joins, and each lone one becomes U+FFFD."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def utf8_safe(text: str) -> str:
    """`text`, or `without_surrogates(text)` if it has no UTF-8 form."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return without_surrogates(text)
    return text


BYTEWISE_REPLACE = "subword-replace-each-byte"


def register_bytewise_replace() -> str:
    """The name of a `bytes.decode` error handler that puts one U+FFFD per undecodable
    byte (SentencePiece's rule), registered on first use."""
    import codecs

    try:
        codecs.lookup_error(BYTEWISE_REPLACE)
    except LookupError:

        def each_byte(exc: UnicodeError) -> tuple[str, int]:
            assert isinstance(exc, UnicodeDecodeError)
            return "\ufffd" * (exc.end - exc.start), exc.end

        codecs.register_error(BYTEWISE_REPLACE, each_byte)
    return BYTEWISE_REPLACE
