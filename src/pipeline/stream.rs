//! What streaming decode (Python's `subword.streaming`) needs of each id: the bytes it
//! stands for, before `decode_bytes` joins them (end-of-word space kept, no jamo
//! composition), and whether it starts a word (greedy models put a space before it).

use super::Tokenizer;
use crate::error::{Error, Result};

impl Tokenizer {
    /// `id`'s bytes and, for greedy models, whether a space goes before it when it is not
    /// the first token.
    pub fn token_part(&self, id: u32) -> Result<(&[u8], bool)> {
        match self.token_bytes.get(id as usize) {
            Some(bytes) if !self.tokens[id as usize].is_empty() => {
                let starts_word = self
                    .algorithm
                    .greedy()
                    .is_some_and(|g| !g.is_continuation(id));
                Ok((bytes, starts_word))
            }
            _ => Err(Error::invalid(format!(
                "id {id} is not in the vocabulary (ids go up to {})",
                self.tokens.len().saturating_sub(1)
            ))),
        }
    }
}
