//! Stage 6 — decode: ids back to text bytes. Each id's bytes are precomputed by the model
//! (byte-level tokens through the inverse bytes-to-unicode table, end-of-word markers as a
//! space); the caller turns bytes into a string with the UTF-8 error policy it chose.

use crate::error::{Error, Result};
use crate::model::{Algorithm, Model};
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
        Ok(out)
    }

    pub fn token(&self, id: u32) -> Option<&str> {
        self.tokens
            .get(id as usize)
            .map(String::as_str)
            .filter(|t| !t.is_empty())
    }
}
