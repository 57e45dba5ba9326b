//! Counting: how many tokens `encode` gives, without handing the ids to the caller. The
//! ids go into one reused buffer per thread, so a count costs an encode and nothing else.

use super::batch::{in_text, Runs};
use super::specials::SpecialMatcher;
use super::Tokenizer;
use crate::error::Result;

impl Tokenizer {
    /// `encode(text, specials).len()`; a `forbidden` special token in `text` is an error.
    pub fn count(
        &self,
        text: &str,
        specials: Option<&SpecialMatcher>,
        forbidden: Option<&SpecialMatcher>,
    ) -> Result<usize> {
        let mut buffer = Vec::new();
        self.count_into(text, specials, forbidden, &mut buffer)
    }

    fn count_into(
        &self,
        text: &str,
        specials: Option<&SpecialMatcher>,
        forbidden: Option<&SpecialMatcher>,
        buffer: &mut Vec<u32>,
    ) -> Result<usize> {
        if let Some(forbidden) = forbidden {
            forbidden.refuse_in(text)?;
        }
        buffer.clear();
        self.encode_into(text, specials, buffer)?;
        Ok(buffer.len())
    }

    /// `count` of each text, in input order, on the calling thread and all but one of
    /// `pool`'s threads (rayon's global pool for `None`); an error names the text.
    pub fn count_batch(
        &self,
        texts: &[&str],
        specials: Option<&SpecialMatcher>,
        forbidden: Option<&SpecialMatcher>,
        pool: Option<&rayon::ThreadPool>,
    ) -> Result<Vec<usize>> {
        let runs = Runs::for_pool(texts, pool);
        let counts = runs.each(pool, |part| {
            let mut buffer = Vec::new();
            let first = runs.first(part);
            (runs.texts(part).iter().enumerate())
                .map(|(k, text)| {
                    self.count_into(text, specials, forbidden, &mut buffer)
                        .map_err(|e| in_text(first + k, e))
                })
                .collect::<Result<Vec<_>>>()
        })?;
        Ok(counts.concat())
    }
}
