//! Stage 6 — decode: ids back to text bytes. Each id's bytes are precomputed when the
//! tokenizer is built
//! (byte-level tokens through the inverse bytes-to-unicode table, end-of-word markers as a
//! space); the caller turns bytes into a string with the UTF-8 error policy it chose.

use super::{LeadingSpace, Tokenizer};
use crate::algorithms::greedy::Greedy;
use crate::error::{Error, Result};
use crate::normalize::{compose_hangul, Form};
use crate::symbols::{byte_level_bytes, EndOfWord, Kind, SymbolRules};
use crate::vocab::{TokenBytes, TokenNames};
use rustc_hash::FxHashMap;

/// Inputs of at least this many ids get a buffer of their exact size
/// (docs/performance.md#decoding).
const MEASURED_IDS: usize = 1 << 20;
impl Tokenizer {
    pub fn decode_bytes(&self, ids: &[u32]) -> Result<Vec<u8>> {
        self.decode_runs(ids).map(|(bytes, _)| bytes)
    }

    /// `decode_bytes`, and where the bytes are to be decoded apart: SentencePiece decodes
    /// each run of byte pieces on its own, and a control piece between two runs ends the
    /// first even when the second would complete its last character. Only where a run ends
    /// inside a character (elsewhere, apart or together decode alike); none for other models.
    pub fn decode_runs(&self, ids: &[u32]) -> Result<(Vec<u8>, Vec<usize>)> {
        let sentencepiece = self.algorithm.sentencepiece().is_some();
        let mut runs = Vec::new();
        // Four bytes a token is typical of English; a long input is measured instead, so
        // that its buffer (on huge pages) never grows. 16 more for `append_to`'s last copy.
        let capacity = if ids.len() >= MEASURED_IDS {
            self.token_bytes.total_len(ids)
        } else {
            ids.len() * 4
        };
        let mut out = Vec::new();
        crate::pages::reserve(&mut out, capacity + 16);
        let greedy = self.algorithm.greedy();
        // SentencePiece drops the normalizer's space in front of the first word.
        let rule = self.leading_space();
        let mut strip = rule != LeadingSpace::Keep;
        if greedy.is_none() && !sentencepiece && !strip {
            // Each id's bytes as they are: one table read per id. Empty bytes are an unused
            // id or a token with no bytes, which only the names tell apart.
            for (i, &id) in ids.iter().enumerate() {
                match self.token_bytes.append_to(id as usize, &mut out) {
                    Some(1..) => {}
                    _ if self.token(id).is_some() => {}
                    _ => return Err(self.not_in_vocabulary(id, i)),
                }
            }
            return Ok((self.finish_decode(out), runs));
        }
        for (i, &id) in ids.iter().enumerate() {
            match self.token_bytes.get(id as usize) {
                Some(bytes) if strip && !bytes.is_empty() => {
                    let skip = usize::from(self.starts_with_space_symbol(id));
                    let rest = &bytes[skip..];
                    out.extend_from_slice(rest);
                    strip = rest.is_empty() && (skip == 0 || rule == LeadingSpace::WhileEmpty);
                }
                Some(bytes) if !self.tokens[id as usize].is_empty() => {
                    // Greedy models mark continuations instead of word ends: a word starts
                    // at every other token.
                    if greedy.is_some_and(|g| i > 0 && !g.is_continuation(id)) {
                        out.push(b' ');
                    }
                    if sentencepiece && bytes.is_empty() && ends_inside_character(&out) {
                        runs.push(out.len());
                    }
                    out.extend_from_slice(bytes)
                }
                _ => return Err(self.not_in_vocabulary(id, i)),
            }
        }
        Ok((self.finish_decode(out), runs))
    }

    fn not_in_vocabulary(&self, id: u32, position: usize) -> Error {
        Error::invalid(format!(
            "id {id} at position {position} is not in the vocabulary (ids go up to {})",
            self.tokens.len().saturating_sub(1)
        ))
    }

    /// What follows the ids' bytes, for every model.
    fn finish_decode(&self, mut out: Vec<u8>) -> Vec<u8> {
        // Classic text is words separated by single spaces: the last word's end-of-word
        // space is not part of it.
        if self.config.rules.kind == Kind::Classic
            && self.algorithm.sentencepiece().is_none()
            && out.last() == Some(&b' ')
        {
            out.pop();
        }
        // Jamo normalization split Hangul syllables into conjoining jamo; put them back
        // together (bytes that are not UTF-8, possible in byte-level ids, are left as
        // they are for the caller's error policy).
        if self.config.normalizer.form == Some(Form::Jamo) {
            out = compose_jamo(&out);
        }
        out
    }

    pub fn token(&self, id: u32) -> Option<&str> {
        self.tokens.get(id as usize).filter(|t| !t.is_empty())
    }
}

/// id → the bytes the token decodes to: end-of-word markers become a space, byte-level
/// tokens go through the inverse bytes-to-unicode table, greedy continuation tokens lose
/// their prefix, special tokens are their text (the later of two given one id).
pub(super) fn token_bytes(
    tokens: &TokenNames,
    specials: &[(String, u32)],
    rules: &SymbolRules,
    greedy: Option<&Greedy>,
) -> TokenBytes {
    let eow = rules.end_of_word_symbol.as_str();
    let marks_end = rules.end_of_word != EndOfWord::None;
    let special: FxHashMap<u32, &str> = specials
        .iter()
        .map(|(text, id)| (*id, text.as_str()))
        .collect();
    let mut out = TokenBytes::with_capacity(tokens.len(), tokens.iter().map(str::len).sum());
    for (id, token) in tokens.iter().enumerate() {
        let id = id as u32;
        if let Some(text) = special.get(&id) {
            out.push(text.as_bytes());
            continue;
        }
        let (stem, end) = match token.strip_suffix(eow) {
            Some(stem) if marks_end => (stem, true),
            _ => (token, false),
        };
        let mut bytes = match rules.kind {
            Kind::Classic => stem.as_bytes().to_vec(),
            // Stray tokens outside the byte table decode as their text.
            Kind::Byte => byte_level_bytes(stem).unwrap_or_else(|| stem.as_bytes().to_vec()),
        };
        if end {
            bytes.push(b' ');
        }
        let prefix = match greedy {
            Some(greedy) if greedy.is_continuation(id) => greedy.prefix().len().min(bytes.len()),
            _ => 0,
        };
        out.push(&bytes[prefix..]);
    }
    out
}

/// Whether `bytes` ends with the start of a UTF-8 character that more bytes could finish.
/// (It may say so of some bytes no continuation makes valid: decoded apart or together,
/// those give the same replacement characters.)
fn ends_inside_character(bytes: &[u8]) -> bool {
    for back in 1..=bytes.len().min(3) {
        let b = bytes[bytes.len() - back];
        if b & 0xC0 != 0x80 {
            let length = match b {
                0xC2..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF4 => 4,
                _ => return false,
            };
            return back < length;
        }
    }
    false
}

fn compose_jamo(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.extend_from_slice(compose_hangul(chunk.valid()).as_bytes());
        out.extend_from_slice(chunk.invalid());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{compose_jamo, ends_inside_character};

    #[test]
    fn knows_a_character_left_open() {
        let open: [&[u8]; 6] = [
            b"a\xC3",
            b"\xE2\x82",
            b"\xE2",
            b"\xF0\x9F\x98",
            b"\xF0",
            b"x\xF0\x9F",
        ];
        let closed: [&[u8]; 6] = [
            b"",
            b"a",
            b"\xC3\xA9",
            b"\xE2\x82\xAC",
            b"\x80",
            b"\xF0\x9F\x98\x80",
        ];
        assert!(open.iter().all(|b| ends_inside_character(b)));
        assert!(closed.iter().all(|b| !ends_inside_character(b)));
    }

    #[test]
    fn composes_around_invalid_bytes() {
        let mut bytes = "\u{1112}\u{1161}\u{11AB}".as_bytes().to_vec();
        bytes.push(0xFF);
        bytes.extend_from_slice("\u{1100}\u{1161}".as_bytes());
        let mut expected = "한".as_bytes().to_vec();
        expected.push(0xFF);
        expected.extend_from_slice("가".as_bytes());
        assert_eq!(compose_jamo(&bytes), expected);
    }
}
