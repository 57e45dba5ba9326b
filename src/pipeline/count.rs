//! Counting: how many tokens `encode` gives, without handing the ids to the caller. A
//! text's ids go into one reused buffer, a batch's into one buffer a slice of texts, so a
//! count costs an encode and nothing else.

use super::batch::Runs;
use super::specials::SpecialMatcher;
use super::Tokenizer;
use crate::error::Result;
use crate::pages::{give_back_run, run_buffer};

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

    /// `count` of each text, in input order, on the calling thread and `helpers`' threads
    /// (`None`: the calling thread alone); an error names the text. Each
    /// run is encoded as a batch's is (one encoder for many texts), a slice of
    /// `COUNT_TEXTS` texts at a time so that the ids held stay small.
    pub fn count_batch(
        &self,
        texts: &[&str],
        specials: Option<&SpecialMatcher>,
        forbidden: Option<&SpecialMatcher>,
        helpers: Option<&crate::threads::Helpers>,
    ) -> Result<Vec<usize>> {
        let runs = Runs::for_team(texts, helpers);
        let counts = runs.each(helpers, |part| {
            let mut counts = Vec::with_capacity(runs.texts(part).len());
            let mut ends = Vec::new();
            let mut ids = run_buffer();
            let mut first = runs.first(part);
            for slice in runs.texts(part).chunks(COUNT_TEXTS) {
                ends.clear();
                ids = self.encode_run_into(first, slice, specials, forbidden, &mut ends, ids)?;
                let mut start = 0;
                counts.extend(ends.iter().map(|&end| {
                    let count = (end - start) as usize;
                    start = end;
                    count
                }));
                first += slice.len();
            }
            give_back_run(ids);
            Ok(counts)
        })?;
        Ok(counts.concat())
    }
}

/// `count_batch` encodes this many texts at a time.
const COUNT_TEXTS: usize = 1024;
