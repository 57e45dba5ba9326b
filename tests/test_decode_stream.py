"""`Tokenizer.decode_stream`: the text of ids given one at a time. Properties on every model
kind: the steps and the flush concatenate to `decode(ids)`, whatever the ids (split
characters, invalid bytes, end-of-word tokens) and wherever a prompt ends; classic models'
spaces; skipping special tokens; bad ids."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from model_kinds import SPECIAL, TEXTS, models

from subword.errors import InvalidInputError

KINDS = list(models())
SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))


def streamed(tok, ids, prompt=None, skip=False) -> tuple[list[str], str]:
    stream = tok.decode_stream(skip_special_tokens=skip, prompt_ids=prompt)
    steps = [stream.step(i) for i in ids]
    return steps, stream.flush()


def shown_by(tok, prompt: list[int]) -> str:
    """What the prompt's complete characters decode to: the text before the first place
    where the prompt's bytes stop being final (a split character, a trailing space of a
    classic model, Hangul jamo that may still compose)."""
    stream = tok.decode_stream()
    return "".join(stream.step(i) for i in prompt)


def ids_of(name: str):
    """Any ids of the model: real encodings cut anywhere, and arbitrary valid ids."""
    tok = models()[name]
    valid = sorted(set(tok.vocab.values()))
    encoded = st.sampled_from(TEXTS + ["ΟΔΟΣ 한국 🎉"]).map(lambda t: tok.encode(t)[:40])
    return st.one_of(encoded, st.lists(st.sampled_from(valid), max_size=30))


@pytest.mark.parametrize("name", KINDS)
@SETTINGS
@given(data=st.data())
def test_steps_concatenate_to_decode(name, data):
    tok = models()[name]
    ids = data.draw(ids_of(name))
    steps, rest = streamed(tok, ids)
    assert "".join(steps) + rest == tok.decode(ids)


@pytest.mark.parametrize("name", KINDS)
@SETTINGS
@given(data=st.data())
def test_prompt_then_continuation(name, data):
    """Primed with ids[:k], the stream gives the rest of `decode(ids)`: what follows the
    text the prompt's ids made final."""
    tok = models()[name]
    ids = data.draw(ids_of(name))
    k = data.draw(st.integers(0, len(ids)))
    steps, rest = streamed(tok, ids[k:], prompt=ids[:k])
    assert shown_by(tok, ids[:k]) + "".join(steps) + rest == tok.decode(ids)


def test_split_character_waits_for_its_last_byte():
    """vLLM #48853: a prompt that ends inside a character made the first streamed piece
    repeat the whole prompt. Primed with ids up to the middle of "🎊", the stream gives
    the whole "🎊" and nothing of the prompt."""
    tok = models()["byte"]
    text = "Hello world x🎊y"  # the emoji is not a token of its own: its bytes split
    ids = tok.encode(text)
    pieces = [tok.decode_bytes([i]) for i in ids]
    assert any(len(p) < 4 and p and p[0] >= 0xF0 for p in pieces)  # the emoji is split
    # The cut inside the emoji: after the token that holds its first byte.
    cut = next(k for k, p in enumerate(pieces) if p and p[-1] >= 0x80) + 1
    stream = tok.decode_stream(prompt_ids=ids[:cut])
    steps = [stream.step(i) for i in ids[cut:]]
    assert next(s for s in steps if s) == "🎊"
    assert "".join(steps) + stream.flush() == "🎊y"
    # Without the prompt the same ids start with a broken character, as decode has it.
    assert tok.decode(ids[cut:]).startswith("\ufffd")
    # Step by step, the split character comes out once, whole.
    stream = tok.decode_stream()
    steps = [stream.step(i) for i in ids]
    assert "" in steps and "".join(steps) + stream.flush() == text


def test_classic_spaces():
    """Classic models: a word's end-of-word space comes out with the next word; the text's
    last one never (as `decode` drops it). A continuation after a word's end starts with
    the space; one inside a word does not."""
    tok = models()["classic-separate"]
    ids = tok.encode("quick brown fox")
    steps, rest = streamed(tok, ids)
    assert "".join(steps) + rest == "quick brown fox" and rest == ""
    assert not any(s.endswith(" ") for s in steps)
    end_of_first = next(k for k, i in enumerate(ids) if tok.id_to_token(i).endswith("</w>"))
    steps, rest = streamed(tok, ids[end_of_first + 1 :], prompt=ids[: end_of_first + 1])
    assert "".join(steps) + rest == " brown fox"
    greedy = models()["greedy"]
    ids = greedy.encode("quick brown fox")
    steps, rest = streamed(greedy, ids[1:], prompt=ids[:1])
    assert greedy.decode(ids[:1]) + "".join(steps) + rest == "quick brown fox"


def test_skip_special_tokens():
    tok = models()["byte"]
    ids = tok.encode(f"ab{SPECIAL}cd", allowed_special="all")
    special = tok.special_tokens[SPECIAL]
    steps, rest = streamed(tok, ids, skip=True)
    assert "".join(steps) + rest == tok.decode([i for i in ids if i != special]) == "abcd"
    steps, rest = streamed(tok, ids)
    assert "".join(steps) + rest == f"ab{SPECIAL}cd"


def test_jamo_composes_across_tokens():
    tok = models()["classic-jamo"]
    text = "한국어 문장은"
    ids = tok.encode(text)
    steps, rest = streamed(tok, ids)
    assert "".join(steps) + rest == tok.decode(ids) == text
    assert all("\u1100" > c or c > "\u11ff" for c in "".join(steps) + rest)


def test_flush_ends_the_text():
    tok = models()["byte"]
    stream = tok.decode_stream()
    first = tok.encode("🎉")
    assert "".join(stream.step(i) for i in first[:-1]) == ""
    assert stream.flush() == tok.decode(first[:-1])  # the unfinished character: U+FFFD
    assert "".join(stream.step(i) for i in tok.encode("ok")) + stream.flush() == "ok"


@pytest.mark.parametrize("bad", [-1, 2**40, 10**30, 10**6, "1", 1.0, True, None])
def test_bad_ids(bad):
    tok = models()["byte"]
    stream = tok.decode_stream()
    with pytest.raises(InvalidInputError):
        stream.step(bad)
    with pytest.raises(InvalidInputError):
        tok.decode_stream(prompt_ids=[bad])


@SETTINGS
@given(text=st.text(alphabet=st.sampled_from("aB &amp;<|endoftext|>é Σ🎉\n"), max_size=40))
def test_clip_stream(clip_spec, text):
    from subword.clip import _default

    tok = _default()
    ids = tok.encode(text)
    steps, rest = streamed(tok, ids)
    assert "".join(steps) + rest == tok.decode(ids)
    k = len(ids) // 2
    steps, rest = streamed(tok, ids[k:], prompt=ids[:k])
    assert shown_by(tok, ids[:k]) + "".join(steps) + rest == tok.decode(ids)
