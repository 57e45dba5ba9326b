//! Stage 6 — decode: ids back to text bytes. Each id's bytes are precomputed by the model
//! (byte-level tokens through the inverse bytes-to-unicode table, end-of-word markers as a
//! space); the caller turns bytes into a string with the UTF-8 error policy it chose.

use crate::error::{Error, Result};
use crate::model::{Algorithm, Model};
use crate::normalize::{compose_hangul, Form};
use crate::symbols::Unit;

impl Model {
    pub fn decode_bytes(&self, ids: &[u32]) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(ids.len() * 4);
        let greedy = matches!(self.config.algorithm, Algorithm::Greedy { .. });
        for (i, &id) in ids.iter().enumerate() {
            match self.token_bytes.get(id as usize) {
                Some(bytes) if !self.tokens[id as usize].is_empty() => {
                    // Greedy models mark continuations instead of word ends: a word starts
                    // at every other token.
                    if greedy && i > 0 && !self.continuation[id as usize] {
                        out.push(b' ');
                    }
                    out.extend_from_slice(bytes)
                }
                _ => {
                    return Err(Error::invalid(format!(
                        "id {id} at position {i} is not in the vocabulary (ids go up to {})",
                        self.tokens.len().saturating_sub(1)
                    )))
                }
            }
        }
        // Classic text is words separated by single spaces: the last word's end-of-word
        // space is not part of it.
        if self.config.rules.unit == Unit::Chars && out.last() == Some(&b' ') {
            out.pop();
        }
        // Jamo normalization split Hangul syllables into conjoining jamo; put them back
        // together (bytes that are not UTF-8, possible in byte-level ids, are left as
        // they are for the caller's error policy).
        if self.config.normalizer.form == Some(Form::Jamo) {
            out = compose_jamo(&out);
        }
        Ok(out)
    }

    pub fn token(&self, id: u32) -> Option<&str> {
        self.tokens
            .get(id as usize)
            .map(String::as_str)
            .filter(|t| !t.is_empty())
    }
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
    use super::compose_jamo;

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
