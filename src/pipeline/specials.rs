//! Special tokens in a text: one Aho-Corasick pass finds them (leftmost longest), so the
//! text is cut into ordinary parts and special-token ids. The same matcher, built from the
//! disallowed tokens, refuses texts that contain one (tiktoken's `disallowed_special`).

use aho_corasick::{AhoCorasick, MatchKind};

use crate::error::{Error, Result};

/// A set of special tokens: those recognised in a text (allowed), or those whose presence
/// is an error (disallowed, as tiktoken's `encode` has it).
pub struct SpecialMatcher {
    automaton: AhoCorasick,
    ids: Vec<u32>,
    tokens: Vec<String>,
}

/// A part of a text cut at its special tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part<'t> {
    Ordinary(&'t str),
    Special(u32),
}

impl SpecialMatcher {
    pub fn new(specials: &[(String, u32)]) -> Result<Option<Self>> {
        if specials.is_empty() {
            return Ok(None);
        }
        let automaton = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(specials.iter().map(|(t, _)| t.as_str()))
            .map_err(|e| Error::invalid(format!("cannot match special tokens: {e}")))?;
        Ok(Some(SpecialMatcher {
            automaton,
            ids: specials.iter().map(|(_, id)| *id).collect(),
            tokens: specials.iter().map(|(t, _)| t.clone()).collect(),
        }))
    }

    pub fn tokens(&self) -> &[String] {
        &self.tokens
    }

    /// Calls `f` with each part of `text` in order: the ordinary text before each special
    /// token (possibly empty), the token's id, and the ordinary rest. Stops at the first
    /// error `f` returns.
    pub fn for_each_part<'t>(
        &self,
        text: &'t str,
        mut f: impl FnMut(Part<'t>) -> Result<()>,
    ) -> Result<()> {
        let mut start = 0;
        for m in self.automaton.find_iter(text) {
            f(Part::Ordinary(&text[start..m.start()]))?;
            f(Part::Special(self.ids[m.pattern().as_usize()]))?;
            start = m.end();
        }
        f(Part::Ordinary(&text[start..]))
    }

    /// An error if `text` contains one of these tokens (one pass over the text).
    pub fn refuse_in(&self, text: &str) -> Result<()> {
        match self.automaton.find(text) {
            None => Ok(()),
            Some(m) => {
                let token = &self.tokens[m.pattern().as_usize()];
                Err(Error::invalid(format!(
                    "the text contains the special token {token:?}, which is not allowed; \
                     pass allowed_special={{{token:?}}} to encode it as a special token, or \
                     disallowed_special=() to encode it as ordinary text"
                )))
            }
        }
    }
}
