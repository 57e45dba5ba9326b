//! apply-bpe's vocabulary check (`--vocabulary`): segments not in the vocabulary (or
//! rarer than its threshold) are split back along the merges that made them, with
//! subword-nmt's quirks (`check_vocab_and_split`, `recursive_split`).

use rustc_hash::{FxHashMap, FxHashSet};

use super::apply::Segmenter;
use super::END_OF_WORD;
use crate::error::{Error, Result};

/// How deep the vocabulary check may split a segment (subword-nmt would hit Python's
/// recursion limit; only codes that merge into `</w>` itself get there).
const SPLIT_DEPTH_MAX: usize = 10_000;

impl Segmenter {
    /// subword-nmt's `check_vocab_and_split`: keeps segments in the vocabulary (non-final
    /// ones with the separator), splits the others back along their merges.
    pub(super) fn check_vocabulary(
        &self,
        symbols: Vec<String>,
        vocabulary: &FxHashSet<String>,
        out: &mut Vec<String>,
    ) -> Result<()> {
        let n = symbols.len();
        for (k, segment) in symbols.into_iter().enumerate() {
            let last = k + 1 == n;
            let known = if last {
                vocabulary.contains(&segment)
            } else {
                vocabulary.contains(&format!("{segment}{}", self.separator))
            };
            if known {
                out.push(segment);
            } else {
                self.split_back(&segment, last, vocabulary, out, 0)?;
            }
        }
        Ok(())
    }

    /// subword-nmt's `recursive_split`, including its quirks: a final segment is looked up
    /// with `</w>` appended and four characters are cut from the right half.
    fn split_back(
        &self,
        segment: &str,
        last: bool,
        vocabulary: &FxHashSet<String>,
        out: &mut Vec<String>,
        depth: usize,
    ) -> Result<()> {
        if depth > SPLIT_DEPTH_MAX {
            return Err(Error::invalid(format!(
                "the vocabulary check splits {segment:?} endlessly: the codes merge into \
                 \"</w>\" itself"
            )));
        }
        let found = if last {
            self.reverse.get(&format!("{segment}{END_OF_WORD}"))
        } else {
            self.reverse.get(segment)
        };
        let Some((left, right)) = found else {
            out.push(segment.to_string());
            return Ok(());
        };
        let right = if last {
            drop_last_chars(right, END_OF_WORD.len())
        } else {
            right.as_str()
        };
        if vocabulary.contains(&format!("{left}{}", self.separator)) {
            out.push(left.clone());
        } else {
            self.split_back(left, false, vocabulary, out, depth + 1)?;
        }
        let right_known = if last {
            vocabulary.contains(right)
        } else {
            vocabulary.contains(&format!("{right}{}", self.separator))
        };
        if right_known {
            out.push(right.to_string());
        } else {
            self.split_back(right, last, vocabulary, out, depth + 1)?;
        }
        Ok(())
    }
}

/// Python's `s[:-n]` on characters.
fn drop_last_chars(s: &str, n: usize) -> &str {
    match s.char_indices().rev().nth(n - 1) {
        Some((cut, _)) => &s[..cut],
        None => "",
    }
}

/// subword-nmt's `bpe_codes_reverse`: for a string made by several merges, the pair whose
/// last line in the codes comes first wins (an artefact of how it builds its dicts).
pub(super) fn reverse_merges(merges: &[(String, String)]) -> FxHashMap<String, (String, String)> {
    let mut last_line: FxHashMap<&(String, String), usize> = FxHashMap::default();
    for (i, pair) in merges.iter().enumerate() {
        last_line.insert(pair, i);
    }
    let mut best: FxHashMap<String, (usize, &(String, String))> = FxHashMap::default();
    for (pair, &line) in &last_line {
        let slot = best
            .entry(format!("{}{}", pair.0, pair.1))
            .or_insert((line, pair));
        if line < slot.0 {
            *slot = (line, pair);
        }
    }
    best.into_iter()
        .map(|(merged, (_, pair))| (merged, pair.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nmt::apply::CodesVersion;

    fn merges(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn vocabulary_splits_rare_segments_back() {
        let codes = merges(&[("l", "o"), ("lo", "w</w>")]);
        let vocabulary = Some(vec!["l@@".to_string(), "o@@".into(), "w".into()]);
        let mut s = Segmenter::new(&codes, CodesVersion::V0_2, "@@", vocabulary, false, 1).unwrap();
        assert_eq!(s.process_line("low", 0.0).unwrap(), "l@@ o@@ w");
    }

    #[test]
    fn drop_last_chars_like_python_slices() {
        assert_eq!(drop_last_chars("ab</w>", 4), "ab");
        assert_eq!(drop_last_chars("é</w>", 4), "é");
        assert_eq!(drop_last_chars("</w>", 4), "");
        assert_eq!(drop_last_chars("ab", 4), "");
    }

    #[test]
    fn reverse_prefers_the_pair_whose_last_line_is_first() {
        let codes = merges(&[("a", "bc"), ("ab", "c"), ("a", "bc")]);
        let r = reverse_merges(&codes);
        assert_eq!(r["abc"], ("ab".to_string(), "c".to_string()));
    }
}
