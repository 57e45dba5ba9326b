//! Stage 2 — pre-tokenize: split normalized text into the pieces ("words") that BPE works
//! inside. Merges never cross a piece boundary.
//!
//! `Whitespace` is the classic split (Python's `str.split()`: runs of Unicode whitespace
//! separate words and are dropped). `Regex` keeps every match and drops nothing between
//! matches only if the pattern covers all text, as the GPT-style patterns do. `Fast` is a
//! hand-written splitter for one of the fixed gpt2/cl100k/o200k patterns, giving the same
//! pieces as `Regex` on that pattern 15 to 40 times faster (see `fast.rs`).

mod classes;
mod fast;

use fancy_regex::Regex;
use rayon::prelude::*;

use crate::error::{Error, Result};

pub use fast::{FastPattern, CL100K, GPT2, O200K};

#[derive(Debug, Clone)]
pub enum PreTokenizer {
    Whitespace,
    Regex(Regex),
    Fast(FastPattern),
}

impl PreTokenizer {
    /// The pre-tokenizer for `pattern`: the fast splitter when `pattern` is exactly one of
    /// the fixed patterns, fancy-regex otherwise.
    pub fn regex(pattern: &str) -> Result<Self> {
        match FastPattern::from_regex(pattern) {
            Some(fast) => Ok(PreTokenizer::Fast(fast)),
            None => Self::regex_only(pattern),
        }
    }

    /// Always fancy-regex, even for the fixed patterns: the reference that the fast
    /// splitters are tested and benchmarked against.
    pub fn regex_only(pattern: &str) -> Result<Self> {
        Regex::new(pattern)
            .map(PreTokenizer::Regex)
            .map_err(|e| Error::invalid(format!("invalid pre-tokenizer regex {pattern:?}: {e}")))
    }

    /// Calls `f` with each piece of `text`, in order.
    pub fn for_each_piece<'t>(&self, text: &'t str, mut f: impl FnMut(&'t str)) -> Result<()> {
        match self {
            PreTokenizer::Whitespace => {
                text.split(is_python_whitespace)
                    .filter(|w| !w.is_empty())
                    .for_each(f);
                Ok(())
            }
            PreTokenizer::Regex(re) => {
                for m in re.find_iter(text) {
                    let m = m.map_err(|e| {
                        Error::invalid(format!("pre-tokenizer regex failed on this text: {e}"))
                    })?;
                    if !m.as_str().is_empty() {
                        f(m.as_str());
                    }
                }
                Ok(())
            }
            PreTokenizer::Fast(fast) => fast.for_each_piece(text, f),
        }
    }

    /// The pieces of `text`, owned; for tests and the Python `pretokenize` helper.
    pub fn pieces(&self, text: &str) -> Result<Vec<String>> {
        let mut out = Vec::new();
        self.for_each_piece(text, |p| out.push(p.to_string()))?;
        Ok(out)
    }
}

/// Where `a` and `b` first split `text` differently: the index of the first piece that
/// differs (or that one of them lacks), `None` when they agree. Compares without
/// collecting, so differential tests over whole corpora stay cheap.
pub fn first_difference(a: &PreTokenizer, b: &PreTokenizer, text: &str) -> Result<Option<usize>> {
    let mut theirs: Vec<&str> = Vec::new();
    b.for_each_piece(text, |p| theirs.push(p))?;
    let mut index = 0;
    let mut differs = None;
    a.for_each_piece(text, |p| {
        if differs.is_none() && theirs.get(index) != Some(&p) {
            differs = Some(index);
        }
        index += 1;
    })?;
    if differs.is_none() && index != theirs.len() {
        differs = Some(index.min(theirs.len()));
    }
    Ok(differs)
}

/// Checks the fast splitter for `pattern` against fancy-regex on every text, in parallel:
/// the first (text index, piece index) where they split differently, `None` when they agree
/// everywhere. For the differential tests over whole corpora.
pub fn check_fast_against_regex(pattern: &str, texts: &[&str]) -> Result<Option<(usize, usize)>> {
    let Some(fast) = FastPattern::from_regex(pattern) else {
        return Err(Error::invalid(
            "this pattern has no fast splitter; expected one of the fixed gpt2/cl100k/o200k patterns",
        ));
    };
    let fast = PreTokenizer::Fast(fast);
    let regex = PreTokenizer::regex_only(pattern)?;
    let found: Vec<Result<Option<(usize, usize)>>> = texts
        .par_iter()
        .enumerate()
        .map(|(i, text)| Ok(first_difference(&fast, &regex, text)?.map(|piece| (i, piece))))
        .collect();
    for result in found {
        if let Some(at) = result? {
            return Ok(Some(at));
        }
    }
    Ok(None)
}

/// Python's `str.isspace()`: Unicode White_Space plus the ASCII separators U+001C..U+001F,
/// so that splitting agrees with `str.split()` (and with subword-nmt and the seeds' code).
pub fn is_python_whitespace(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(p: &PreTokenizer, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        p.for_each_piece(text, |s| out.push(s.to_string())).unwrap();
        out
    }

    #[test]
    fn whitespace_like_python_split() {
        let p = PreTokenizer::Whitespace;
        assert_eq!(
            pieces(&p, "  low\tlower\n\u{3000}newest "),
            ["low", "lower", "newest"]
        );
        assert!(pieces(&p, " \n ").is_empty());
        assert_eq!(pieces(&p, "a\u{1f}b\u{85}c"), ["a", "b", "c"]);
    }

    #[test]
    fn regex_keeps_matches() {
        let p = PreTokenizer::regex(r"\s?\w+|\s+").unwrap();
        assert_eq!(pieces(&p, "a bc  d"), ["a", " bc", "  ", "d"]);
        assert!(PreTokenizer::regex("(").is_err());
    }
}
