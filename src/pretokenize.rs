//! Stage 2 — pre-tokenize: split normalized text into the pieces ("words") that BPE works
//! inside. Merges never cross a piece boundary.
//!
//! `Whitespace` is the classic split (Python's `str.split()`: runs of Unicode whitespace
//! separate words and are dropped). `Regex` keeps every match and drops nothing between
//! matches only if the pattern covers all text, as the GPT-style patterns do.

use fancy_regex::Regex;

use crate::error::{Error, Result};

#[derive(Debug, Clone)]
pub enum PreTokenizer {
    Whitespace,
    Regex(Regex),
}

impl PreTokenizer {
    pub fn regex(pattern: &str) -> Result<Self> {
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
        }
    }
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
