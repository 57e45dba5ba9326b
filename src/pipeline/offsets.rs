//! Offsets: for each token of `encode`, the span of the text it came from, in character
//! (Unicode scalar) indices of the caller's text.
//!
//! Encoding runs as in `encode.rs` (same pieces, same cache, same ids) and records the byte
//! span of each token in the normalized text: a byte-level token covers as many bytes as it
//! decodes to; a classic token covers its characters (an end-of-word marker covers nothing,
//! an unknown token one character). Byte spans then become character indices:
//! - a span that starts inside a multi-byte character starts at that character, and one
//!   that ends inside a character ends after it (tiktoken's `decode_with_offsets` rule for
//!   the start; the end mirrors it), so every token's span holds whole characters;
//! - when the normalizer changes the text, the original text is cut into segments at
//!   normalization boundaries (a character whose decomposition starts with a starter that
//!   does not compose with what precedes it) and each segment normalized alone; a token
//!   covers the original segments its normalized bytes fall in. If normalizing segment by
//!   segment does not give the normalized text (a case the boundary rule misses), the
//!   segment grows until it does, and after that the rest of the text is one segment.

use rustc_hash::FxHashSet;
use unicode_normalization::char::{canonical_combining_class, decompose_canonical};
use unicode_normalization::char::{decompose_compatible, is_combining_mark};
use unicode_normalization::{is_nfc_quick, is_nfkc_quick, IsNormalized};

use super::cache::PieceCache;
use super::specials::{Part, SpecialMatcher};
use super::Tokenizer;
use crate::error::Result;
use crate::normalize::{Form, Normalizer};
use crate::symbols::{EndOfWord, Kind};

/// A token's span: (start, end) character indices into the text.
pub type Span = (usize, usize);

impl Tokenizer {
    /// The ids of `encode(text, specials)` and each token's span in `text`.
    pub fn encode_with_offsets(
        &self,
        text: &str,
        specials: Option<&SpecialMatcher>,
    ) -> Result<(Vec<u32>, Vec<Span>)> {
        if self.algorithm.sentencepiece().is_some() {
            return self.sentencepiece_offsets(text, specials);
        }
        let normalized = self.config.normalizer.normalize(text);
        let mut ids = Vec::with_capacity(normalized.len() / 4);
        let mut spans: Vec<Span> = Vec::with_capacity(normalized.len() / 4);
        let walk = TokenWalk::new(self);
        let base = normalized.as_ptr() as usize;
        let mut result = Ok(());
        let outcome = PieceCache::with(self.cache_owner, |cache| {
            let mut ordinary = |part: &str, ids: &mut Vec<u32>, spans: &mut Vec<Span>| {
                self.config.pre_tokenizer.for_each_piece(part, |piece| {
                    if result.is_err() {
                        return;
                    }
                    let start = ids.len();
                    if !cache.extend_with(piece.as_bytes(), ids) {
                        if let Err(e) = self.encode_piece(piece, ids) {
                            result = Err(e);
                            return;
                        }
                        cache.insert(piece.as_bytes(), &ids[start..]);
                    }
                    walk.spans(piece, piece.as_ptr() as usize - base, &ids[start..], spans);
                })
            };
            match specials {
                None => ordinary(&normalized, &mut ids, &mut spans),
                Some(matcher) => {
                    let mut at = 0;
                    matcher.for_each_part(&normalized, |part| match part {
                        Part::Ordinary(text) => {
                            at = text.as_ptr() as usize - base + text.len();
                            ordinary(text, &mut ids, &mut spans)
                        }
                        Part::Special(id) => {
                            let len = self.token_bytes[id as usize].len();
                            ids.push(id);
                            spans.push((at, at + len));
                            at += len;
                            Ok(())
                        }
                    })
                }
            }
        });
        if outcome.and(result).is_err() {
            // The error exactly as `encode` words it (position in the whole text).
            self.encode(text, specials)?;
        }
        // Text the normalizer left as it was (most text, under NFC) maps one to one.
        if self.config.normalizer.is_identity() || *normalized == *text {
            to_char_spans(&normalized, &mut spans);
        } else {
            let segments = Segments::new(&self.config.normalizer, text, &normalized);
            segments.to_original(&mut spans);
        }
        Ok((ids, spans))
    }
}

/// How many bytes of a piece each token covers.
struct TokenWalk<'a> {
    tokenizer: &'a Tokenizer,
    special_ids: FxHashSet<u32>,
    /// The bytes an unknown token decodes to (`<unk>`): such a token covers one character.
    unknown: Option<&'a [u8]>,
    marks_end: bool,
}

impl<'a> TokenWalk<'a> {
    fn new(tokenizer: &'a Tokenizer) -> Self {
        let unknown = match tokenizer.config.unknown {
            crate::algorithms::Unknown::Unk(id) => tokenizer.token_bytes.get(id as usize),
            crate::algorithms::Unknown::Error => None,
        };
        TokenWalk {
            tokenizer,
            special_ids: tokenizer.specials.iter().map(|(_, id)| *id).collect(),
            unknown,
            marks_end: tokenizer.config.rules.end_of_word != EndOfWord::None,
        }
    }

    /// The bytes of `id` that stand for text: its decoded bytes without the end-of-word
    /// space.
    fn text_bytes(&self, id: u32) -> &[u8] {
        let t = self.tokenizer;
        let bytes = &t.token_bytes[id as usize];
        let eow = t.config.rules.end_of_word_symbol.as_str();
        if self.marks_end && !self.special_ids.contains(&id) && t.tokens[id as usize].ends_with(eow)
        {
            &bytes[..bytes.len().saturating_sub(1)]
        } else {
            bytes
        }
    }

    /// Appends the byte spans (in the normalized text; `offset` is where `piece` starts)
    /// of `ids`, the tokens of `piece`.
    fn spans(&self, piece: &str, offset: usize, ids: &[u32], spans: &mut Vec<Span>) {
        let classic = self.tokenizer.config.rules.kind == Kind::Classic;
        let bytes = piece.as_bytes();
        let mut at = 0;
        for &id in ids {
            let own = self.text_bytes(id);
            let len = if classic && (Some(own) == self.unknown || !bytes[at..].starts_with(own)) {
                // An unknown character: one character of the piece.
                piece[at..].chars().next().map_or(0, char::len_utf8)
            } else {
                own.len()
            };
            let end = (at + len).min(bytes.len());
            spans.push((offset + at, offset + end));
            at = end;
        }
        // Pieces are covered whole; should a token table disagree, the last token takes the
        // rest rather than leaving a gap.
        if let Some(last) = spans
            .last_mut()
            .filter(|_| !ids.is_empty() && at < bytes.len())
        {
            last.1 = offset + bytes.len();
        }
    }
}

/// Byte spans of `text` → character spans, in place. Spans come in order (each start is at
/// or after the previous end), so one pass over the text converts them.
pub(super) fn to_char_spans(text: &str, spans: &mut [Span]) {
    let bytes = text.as_bytes();
    // `chars` counts the characters that start before byte `at`.
    let (mut at, mut chars) = (0usize, 0usize);
    let mut advance = |to: usize| {
        chars += bytes[at.min(to)..to]
            .iter()
            .filter(|&&b| !is_continuation(b))
            .count();
        at = at.max(to);
        chars
    };
    for span in spans.iter_mut() {
        let (start, end) = *span;
        // A start inside a character: that character's start.
        let begun = advance(start);
        let start_char = if start < bytes.len() && is_continuation(bytes[start]) {
            begun - 1
        } else {
            begun
        };
        // An end inside a character: after it (the characters begun before `end`).
        let end_char = advance(end);
        *span = (start_char, end_char.max(start_char));
    }
}

#[inline]
fn is_continuation(b: u8) -> bool {
    (0x80..0xC0).contains(&b)
}

/// The original text cut where normalization may be cut, with where each segment's
/// normalized form lies in the normalized text.
struct Segments {
    /// (original start char, normalized start byte), in order; a final entry closes the
    /// last segment.
    starts: Vec<(usize, usize)>,
}

impl Segments {
    fn new(normalizer: &Normalizer, text: &str, normalized: &str) -> Self {
        let form = normalizer.form;
        // Candidate segments: character index and byte index of each boundary.
        let mut cuts: Vec<(usize, usize)> = Vec::new();
        for (k, (b, c)) in text.char_indices().enumerate() {
            if k == 0 || boundary_before(c, form) {
                cuts.push((k, b));
            }
        }
        let total_chars = text.chars().count();
        cuts.push((total_chars, text.len()));
        let mut starts = Vec::with_capacity(cuts.len());
        let mut pos = 0; // in `normalized`
        let mut i = 0;
        let lower = normalizer.lowercase;
        while i + 1 < cuts.len() {
            // Grow the segment (up to a bound) until its normal form is what comes next.
            let mut matched = None;
            for j in (i + 1)..cuts.len().min(i + 18) {
                let segment = normalizer.normalize(&text[cuts[i].1..cuts[j].1]);
                let next = normalized.get(pos..pos + segment.len());
                if next.is_some_and(|n| same_text(n, &segment, lower)) {
                    matched = Some((j, segment.len()));
                    break;
                }
            }
            match matched {
                Some((j, len)) => {
                    starts.push((cuts[i].0, pos));
                    pos += len;
                    i = j;
                }
                None => {
                    // The rest as one segment (wide but honest spans).
                    starts.push((cuts[i].0, pos));
                    pos = normalized.len();
                    break;
                }
            }
        }
        starts.push((total_chars, normalized.len().max(pos)));
        Segments { starts }
    }

    /// Byte spans of the normalized text → character spans of the original text: a span
    /// covers every segment its bytes touch; an empty span stays empty, at the segment
    /// boundary at or after it. Spans come in order, so one pass.
    fn to_original(&self, spans: &mut [Span]) {
        let starts = &self.starts;
        let n = starts.len(); // the last entry closes the last segment
        let mut k = 0; // the segment holding the current start
        for span in spans.iter_mut() {
            let (s, e) = *span;
            while k + 2 < n && starts[k + 1].1 <= s {
                k += 1;
            }
            if e <= s {
                let c = if starts[k].1 == s || k + 1 >= n {
                    starts[k].0
                } else {
                    starts[k + 1].0
                };
                *span = (c, c);
                continue;
            }
            let mut m = k;
            while m + 2 < n && starts[m + 1].1 < e {
                m += 1;
            }
            let last = starts.get(m + 1).map_or(starts[m].0, |s| s.0);
            *span = (starts[k].0, last.max(starts[k].0));
        }
    }
}

/// Whether normalization may cut the text before `c`: `c` decomposes to a starter first
/// (so no reordering with what precedes) that, under a composing form, cannot compose with
/// a preceding character.
fn boundary_before(c: char, form: Option<Form>) -> bool {
    let mut first = None;
    let mut take = |d: char| {
        first.get_or_insert(d);
    };
    match form {
        Some(Form::Nfkc | Form::Nfkd) => decompose_compatible(c, &mut take),
        _ => decompose_canonical(c, &mut take),
    }
    let d = first.unwrap_or(c);
    if canonical_combining_class(d) != 0 || is_combining_mark(d) {
        return false;
    }
    let composes_back = match form {
        Some(Form::Nfc | Form::Jamo) => is_nfc_quick(std::iter::once(d)) != IsNormalized::Yes,
        Some(Form::Nfkc) => is_nfkc_quick(std::iter::once(d)) != IsNormalized::Yes,
        _ => false,
    };
    // (Hangul vowel and trailing jamo are starters that compose backward: quick check
    // "maybe", so they are no boundary.)
    !composes_back
}

/// Equal texts, where lower-casing may give final sigma (`ς`) in the whole text and `σ` in a
/// segment alone (both two bytes).
fn same_text(whole: &str, segment: &str, lowercase: bool) -> bool {
    whole == segment
        || (lowercase
            && whole.len() == segment.len()
            && whole
                .chars()
                .zip(segment.chars())
                .all(|(a, b)| a == b || (a == 'ς' && b == 'σ') || (a == 'σ' && b == 'ς')))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Byte spans of `text` for consecutive pieces of the given byte lengths.
    fn byte_spans(lengths: &[usize]) -> Vec<Span> {
        let mut at = 0;
        lengths
            .iter()
            .map(|&len| {
                at += len;
                (at - len, at)
            })
            .collect()
    }

    #[test]
    fn split_characters_belong_to_both_tokens() {
        // "a" | "é" split 1+1 | "🎉" split 2+1+1
        let text = "aé🎉";
        let mut spans = byte_spans(&[1, 1, 1, 2, 1, 1]);
        to_char_spans(text, &mut spans);
        assert_eq!(spans, [(0, 1), (1, 2), (1, 2), (2, 3), (2, 3), (2, 3)]);
    }

    #[test]
    fn empty_spans_stay_empty() {
        let mut spans = vec![(0, 2), (2, 2), (3, 4)];
        to_char_spans("ab cd", &mut spans);
        assert_eq!(spans, [(0, 2), (2, 2), (3, 4)]);
    }

    fn normalizer(form: Option<Form>, lowercase: bool) -> Normalizer {
        Normalizer {
            form,
            lowercase,
            ..Normalizer::default()
        }
    }

    #[test]
    fn nfkc_ligature_maps_to_the_one_character() {
        let n = normalizer(Some(Form::Nfkc), false);
        let text = "aﬁb";
        let normalized = n.normalize(text);
        assert_eq!(normalized, "afib");
        let segments = Segments::new(&n, text, &normalized);
        // "f" and "i" (bytes 1 and 2) both come from "ﬁ" (character 1).
        let mut spans = byte_spans(&[1, 1, 1, 1]);
        segments.to_original(&mut spans);
        assert_eq!(spans, [(0, 1), (1, 2), (1, 2), (2, 3)]);
    }

    #[test]
    fn nfc_composition_keeps_the_base_with_its_mark() {
        let n = normalizer(Some(Form::Nfc), false);
        let text = "xe\u{301}y"; // e + combining acute → é
        let normalized = n.normalize(text);
        assert_eq!(normalized, "xéy");
        let segments = Segments::new(&n, text, &normalized);
        let mut spans = byte_spans(&[1, 2, 1]);
        segments.to_original(&mut spans);
        assert_eq!(spans, [(0, 1), (1, 3), (3, 4)]);
    }

    #[test]
    fn final_sigma_maps_letter_for_letter() {
        let n = normalizer(None, true);
        let text = "ΟΔΟΣ Σ";
        let normalized = n.normalize(text);
        assert_eq!(normalized, "οδος σ");
        let segments = Segments::new(&n, text, &normalized);
        let mut spans = byte_spans(&[2, 2, 2, 2, 1, 2]);
        segments.to_original(&mut spans);
        assert_eq!(spans, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6)]);
    }

    #[test]
    fn hangul_jamo_map_to_their_syllable() {
        let n = normalizer(Some(Form::Jamo), false);
        let text = "한국";
        let normalized = n.normalize(text);
        assert_eq!(normalized.chars().count(), 6);
        let segments = Segments::new(&n, text, &normalized);
        // One span per jamo (3 bytes each).
        let mut spans = byte_spans(&[3; 6]);
        segments.to_original(&mut spans);
        assert_eq!(spans, [(0, 1), (0, 1), (0, 1), (1, 2), (1, 2), (1, 2)]);
    }
}
