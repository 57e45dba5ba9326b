//! Stage 4b, subword-nmt flavour: segment text with the merges of a codes file exactly as
//! `subword-nmt apply-bpe` 0.3.8 does (`Segmenter`).
//!
//! - a word's initial symbols are its characters with `</w>` attached to the last one
//!   (codes version 0.2) or appended as a symbol of its own (version 0.1); characters the
//!   codes never mention pass through unchanged (there is no `<unk>` here);
//! - merges: subword-nmt merges *every* occurrence of the lowest-rank pair at each step.
//!   When no merge's result is a part of a lower-rank merge (true of codes learned by BPE
//!   unless a symbol's string is made twice) that equals merging one lowest-rank pair at a
//!   time, so `merge::apply_merges` does the work (O(n log n) on long words); otherwise,
//!   and with BPE-dropout, the all-occurrences loop below runs;
//! - with a vocabulary, segments not in it are split back (`vocabulary`);
//! - glossaries are regular expressions with Python's `re` semantics, so Python works out
//!   how each distinct word is cut by them (`Isolation`) and hands that over; the core
//!   asks for the words it has not been told about (`unanalysed_words`).
//!
//! Invariant: output byte-identical to subword-nmt's for any codes and text. Every distinct
//! word is segmented once and cached (bounded), like subword-nmt's cache, because a text
//! repeats a few thousand words (measured figures: docs/performance.md#subword-nmt-commands).

use rustc_hash::{FxHashMap, FxHashSet};

use super::cache::WordMap;
use super::lines::{lines, render_line, WORD_BATCH};
use super::merge_all::{merge_all_occurrences, merging_one_at_a_time_is_exact};
use super::vocabulary::reverse_merges;
use super::END_OF_WORD;
use crate::algorithms::merge::apply_merges;
use crate::algorithms::Pair;
use crate::error::{Error, Result};
use crate::rng::SplitMix64;

/// How many distinct words the cache keeps (then new words are segmented uncached).
const CACHE_MAX: usize = 1 << 20;

/// The codes file format version: where the end-of-word marker goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodesVersion {
    /// No header: `</w>` is a symbol of its own after the last character.
    V0_1,
    /// `#version: 0.2`: `</w>` is attached to the last character (`t</w>`).
    V0_2,
}

impl CodesVersion {
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "0.1" => Ok(CodesVersion::V0_1),
            "0.2" => Ok(CodesVersion::V0_2),
            other => Err(Error::invalid(format!(
                "codes version {other:?} is not supported: use 0.1 or 0.2"
            ))),
        }
    }
}

/// How glossaries cut one word: its segments, each either kept whole (it matches a
/// glossary) or segmented with the merges.
pub type Isolation = Vec<(String, bool)>;

/// What segmenting needs of a codes file: every symbol (id → string), the merges by pair
/// and the initial ids of characters. Built directly rather than as a general `Model`,
/// whose construction (vocabulary checks, decoding tables) took 25 ms for 10k merges,
/// a sixth of a whole apply-bpe run on the KJV Bible.
struct Symbols {
    tokens: Vec<String>,
    /// (left, right) → (rank, merged id); a pair listed twice keeps its first rank.
    merges: FxHashMap<Pair, (u32, u32)>,
    char_ids: FxHashMap<char, u32>,
    /// `c</w>` by its character `c`.
    char_end_ids: FxHashMap<char, u32>,
    end_id: u32,
}

impl Symbols {
    fn new(merges: &[(String, String)]) -> Self {
        let mut ids: FxHashMap<String, u32> = FxHashMap::default();
        ids.reserve(merges.len() * 2);
        let mut intern = |s: &str| -> u32 {
            if let Some(&id) = ids.get(s) {
                return id;
            }
            let id = ids.len() as u32;
            ids.insert(s.to_string(), id);
            id
        };
        let end_id = intern(END_OF_WORD);
        let mut table: FxHashMap<Pair, (u32, u32)> = FxHashMap::default();
        table.reserve(merges.len());
        let mut joined = String::new();
        for (rank, (a, b)) in merges.iter().enumerate() {
            let pair = (intern(a), intern(b));
            joined.clear();
            joined.push_str(a);
            joined.push_str(b);
            let merged = intern(&joined);
            table.entry(pair).or_insert((rank as u32, merged));
        }
        let mut tokens = vec![String::new(); ids.len()];
        let (mut char_ids, mut char_end_ids) = (FxHashMap::default(), FxHashMap::default());
        for (token, id) in ids {
            let single = |s: &str| {
                let mut chars = s.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => Some(c),
                    _ => None,
                }
            };
            if let Some(c) = single(&token) {
                char_ids.insert(c, id);
            }
            if let Some(c) = token.strip_suffix(END_OF_WORD).and_then(single) {
                char_end_ids.insert(c, id);
            }
            tokens[id as usize] = token;
        }
        Symbols {
            tokens,
            merges: table,
            char_ids,
            char_end_ids,
            end_id,
        }
    }
}

pub struct Segmenter {
    model: Symbols,
    version: CodesVersion,
    /// Whether merging one lowest-rank pair at a time gives subword-nmt's result.
    one_at_a_time: bool,
    /// Merged string → the pair the vocabulary check splits it into (subword-nmt's
    /// `bpe_codes_reverse`).
    pub(super) reverse: FxHashMap<String, (String, String)>,
    pub(super) separator: String,
    /// None when there is no vocabulary check (none given, or an empty one).
    vocabulary: Option<FxHashSet<String>>,
    /// With glossaries: every word Python has looked at, and how glossaries cut it (None:
    /// not at all). Without glossaries: None.
    isolations: Option<FxHashMap<String, Option<Isolation>>>,
    /// Word → its output tokens joined by spaces.
    cache: WordMap,
    rng: SplitMix64,
}

impl Segmenter {
    /// `merges` in rank order (already cut to the number wanted); duplicates count from
    /// their first line, as in subword-nmt.
    pub fn new(
        merges: &[(String, String)],
        version: CodesVersion,
        separator: &str,
        vocabulary: Option<Vec<String>>,
        glossaries: bool,
        seed: u64,
    ) -> Result<Self> {
        if merges.iter().any(|(a, b)| a.is_empty() || b.is_empty()) {
            return Err(Error::invalid("a merge has an empty symbol"));
        }
        let model = Symbols::new(merges);
        let one_at_a_time = merging_one_at_a_time_is_exact(&model.merges);
        let vocabulary = vocabulary
            .map(|words| words.into_iter().collect::<FxHashSet<String>>())
            .filter(|set| !set.is_empty());
        // Only the vocabulary check splits segments back.
        let reverse = match vocabulary {
            Some(_) => reverse_merges(merges),
            None => FxHashMap::default(),
        };
        Ok(Segmenter {
            model,
            version,
            one_at_a_time,
            reverse,
            separator: separator.to_string(),
            vocabulary,
            isolations: glossaries.then(FxHashMap::default),
            cache: WordMap::default(),
            rng: SplitMix64::new(seed),
        })
    }

    /// Whether `merge::apply_merges` gives subword-nmt's segmentation for these codes.
    pub fn merges_one_at_a_time(&self) -> bool {
        self.one_at_a_time
    }

    /// Segments every line of `text` (lines cut as subword-nmt reads files), keeping each
    /// line's leading and trailing whitespace; what `apply-bpe` writes for that input.
    pub fn process_text(&mut self, text: &str, dropout: f64) -> Result<String> {
        let mut out = String::with_capacity(text.len() + text.len() / 4);
        for line in lines(text) {
            render_line(line, &mut out, |words, continues, out| {
                self.segment_words_into(words, continues, dropout, out)
            })?;
        }
        Ok(out)
    }

    /// subword-nmt's `BPE.process_line`: `line` is one line, whatever characters it holds.
    pub fn process_line(&mut self, line: &str, dropout: f64) -> Result<String> {
        let mut out = String::with_capacity(line.len() + line.len() / 4);
        render_line(line, &mut out, |words, continues, out| {
            self.segment_words_into(words, continues, dropout, out)
        })?;
        Ok(out)
    }

    /// subword-nmt's `BPE.segment_tokens`: the output tokens of each word (non-final
    /// pieces carry the separator), all words flattened; empty words are skipped.
    pub fn segment_tokens(&mut self, words: &[&str], dropout: f64) -> Result<Vec<String>> {
        let mut out = Vec::with_capacity(words.len() * 2);
        for word in words.iter().filter(|w| !w.is_empty()) {
            out.extend(self.word_tokens(word, dropout)?);
        }
        Ok(out)
    }

    /// Appends the tokens of some words of a line, joined by spaces (and a space first
    /// when `continues`: words came before them). Lookups are bound by memory latency, so
    /// the cache slots of all the words are fetched first, then read: the reads overlap.
    fn segment_words_into(
        &mut self,
        words: &[&str],
        continues: bool,
        dropout: f64,
        out: &mut String,
    ) -> Result<()> {
        let mut hashes = [0u64; WORD_BATCH];
        if dropout <= 0.0 {
            for (hash, word) in hashes.iter_mut().zip(words) {
                *hash = WordMap::hash(word);
                self.cache.prefetch_slot(*hash);
            }
        }
        for (i, (word, &hash)) in words.iter().zip(&hashes).enumerate() {
            if i > 0 || continues {
                out.push(' ');
            }
            if dropout <= 0.0 {
                if let Some(joined) = self.cached(word, hash) {
                    out.push_str(joined);
                    continue;
                }
            }
            self.segment_word_into(word, dropout, out)?;
        }
        Ok(())
    }

    /// Appends a word's tokens joined by spaces. The cache holds that joined text, so a
    /// word seen before costs one lookup and one copy.
    fn segment_word_into(&mut self, word: &str, dropout: f64, out: &mut String) -> Result<()> {
        let hash = WordMap::hash(word);
        if dropout <= 0.0 {
            if let Some(joined) = self.cached(word, hash) {
                out.push_str(joined);
                return Ok(());
            }
        }
        if dropout <= 0.0 && self.vocabulary.is_none() && self.isolations.is_none() {
            let start = out.len();
            self.write_plain(word, out);
            if self.cache.len() < CACHE_MAX {
                let joined = &out[start..];
                self.cache.insert(word, hash, joined.len() as u32, joined);
            }
            return Ok(());
        }
        let joined = self.tokens_drawing(word, dropout)?.join(" ");
        out.push_str(&joined);
        if dropout <= 0.0 && self.cache.len() < CACHE_MAX {
            self.cache.insert(word, hash, joined.len() as u32, &joined);
        }
        Ok(())
    }

    /// `compute_tokens(word)` joined by spaces, written straight into `out`, when there are
    /// no glossaries, no vocabulary and no dropout (the usual apply-bpe run): no string
    /// per piece. Each distinct word passes here once; with the pieces as strings, then
    /// joined, that took as long as all the cached lookups of a text (en-large, 10 MB).
    fn write_plain(&self, word: &str, out: &mut String) {
        let mut chars = word.chars();
        if let (Some(_), None) = (chars.next(), chars.next()) {
            out.push_str(word); // a single character is never merged
            return;
        }
        let mut unknown: Vec<String> = Vec::new();
        let mut ids = self.initial_ids(word, &mut unknown);
        if self.one_at_a_time {
            apply_merges(&self.model.merges, &mut ids);
        } else {
            merge_all_occurrences(&self.model.merges, &mut ids, 0.0, &mut SplitMix64::new(0));
        }
        let base = self.model.tokens.len();
        let symbol = |id: u32| match self.model.tokens.get(id as usize) {
            Some(token) => token.as_str(),
            None => unknown[id as usize - base].as_str(),
        };
        // As `encode_segment`: a final "</w>" symbol is dropped, else the end-of-word
        // marker is cut from the last symbol.
        let mut n = ids.len();
        let popped = n > 0 && symbol(ids[n - 1]) == END_OF_WORD;
        if popped {
            n -= 1;
        }
        for (k, &id) in ids[..n].iter().enumerate() {
            let s = symbol(id);
            if k + 1 < n {
                out.push_str(s);
                out.push_str(&self.separator);
                out.push(' ');
            } else if popped {
                out.push_str(s);
            } else {
                out.push_str(s.strip_suffix(END_OF_WORD).unwrap_or(s));
            }
        }
    }

    /// A word's cached output: the cache stores it after the word, its length as the
    /// word's number.
    fn cached(&self, word: &str, hash: u64) -> Option<&str> {
        self.cache
            .get(word, hash, |len| len as usize)
            .map(|(_, joined)| joined)
    }

    /// The output tokens of one word. Cached as joined text, which splits back at spaces
    /// unless a token could hold one (a word or separator with a space: API use only).
    fn word_tokens(&mut self, word: &str, dropout: f64) -> Result<Vec<String>> {
        let cacheable = dropout <= 0.0 && !word.contains(' ') && !self.separator.contains(' ');
        if !cacheable {
            return self.tokens_drawing(word, dropout);
        }
        let hash = WordMap::hash(word);
        if let Some(joined) = self.cached(word, hash) {
            return Ok(joined.split(' ').map(String::from).collect());
        }
        let tokens = self.tokens_drawing(word, dropout)?;
        if self.cache.len() < CACHE_MAX {
            let joined = tokens.join(" ");
            self.cache.insert(word, hash, joined.len() as u32, &joined);
        }
        Ok(tokens)
    }

    /// `compute_tokens` with the segmenter's own random numbers.
    fn tokens_drawing(&mut self, word: &str, dropout: f64) -> Result<Vec<String>> {
        let mut rng = self.rng;
        let tokens = self.compute_tokens(word, dropout, &mut rng);
        self.rng = rng;
        tokens
    }

    /// subword-nmt's `segment_tokens` for one word: glossaries, then each segment encoded,
    /// the separator appended to every piece but the last.
    fn compute_tokens(
        &self,
        word: &str,
        dropout: f64,
        rng: &mut SplitMix64,
    ) -> Result<Vec<String>> {
        let isolation = match &self.isolations {
            None => None,
            Some(map) => match map.get(word) {
                Some(isolation) => isolation.as_ref(),
                None => {
                    return Err(Error::invalid(format!(
                        "internal: word {word:?} was not checked against the glossaries"
                    )))
                }
            },
        };
        let mut pieces = Vec::new();
        match isolation {
            None => self.encode_segment(word, dropout, rng, &mut pieces)?,
            Some(segments) => {
                for (segment, whole) in segments {
                    if *whole {
                        pieces.push(segment.clone());
                    } else {
                        self.encode_segment(segment, dropout, rng, &mut pieces)?;
                    }
                }
            }
        }
        let n = pieces.len();
        for piece in pieces.iter_mut().take(n.saturating_sub(1)) {
            piece.push_str(&self.separator);
        }
        Ok(pieces)
    }

    /// subword-nmt's `encode` for a segment that no glossary keeps whole: merges, the
    /// end-of-word marker removed, then the vocabulary check.
    fn encode_segment(
        &self,
        segment: &str,
        dropout: f64,
        rng: &mut SplitMix64,
        out: &mut Vec<String>,
    ) -> Result<()> {
        let mut chars = segment.chars();
        if let (Some(_), None) = (chars.next(), chars.next()) {
            // A single character is never merged nor checked against the vocabulary.
            out.push(segment.to_string());
            return Ok(());
        }
        let mut unknown: Vec<String> = Vec::new();
        let mut ids = self.initial_ids(segment, &mut unknown);
        if dropout > 0.0 || !self.one_at_a_time {
            merge_all_occurrences(&self.model.merges, &mut ids, dropout, rng);
        } else {
            apply_merges(&self.model.merges, &mut ids);
        }
        let base = self.model.tokens.len();
        let mut symbols: Vec<String> = ids
            .iter()
            .map(|&id| match self.model.tokens.get(id as usize) {
                Some(token) => token.clone(),
                None => unknown[id as usize - base].clone(),
            })
            .collect();
        if symbols.last().is_some_and(|s| s == END_OF_WORD) {
            symbols.pop();
        } else if let Some(last) = symbols.last_mut() {
            if last.ends_with(END_OF_WORD) {
                last.truncate(last.len() - END_OF_WORD.len());
            }
        }
        match &self.vocabulary {
            None => out.extend(symbols),
            Some(vocabulary) => self.check_vocabulary(symbols, vocabulary, out)?,
        }
        Ok(())
    }

    /// Initial symbol ids; a symbol the codes never mention gets an id past the model's,
    /// with its string in `unknown`, so it never merges and comes out unchanged.
    fn initial_ids(&self, segment: &str, unknown: &mut Vec<String>) -> Vec<u32> {
        let base = self.model.tokens.len() as u32;
        let attached = self.version == CodesVersion::V0_2;
        let mut ids = Vec::with_capacity(segment.len() + 1);
        let mut chars = segment.chars().peekable();
        while let Some(c) = chars.next() {
            let last = chars.peek().is_none();
            let table = if attached && last {
                &self.model.char_end_ids
            } else {
                &self.model.char_ids
            };
            match table.get(&c) {
                Some(&id) => ids.push(id),
                None => {
                    ids.push(base + unknown.len() as u32);
                    unknown.push(if attached && last {
                        format!("{c}{END_OF_WORD}")
                    } else {
                        c.to_string()
                    });
                }
            }
        }
        if self.version == CodesVersion::V0_1 {
            ids.push(self.model.end_id);
        }
        ids
    }

    /// With glossaries: the distinct words of `text` (cut into lines first when
    /// `as_lines`, else taken as one line) that Python has not yet said how to cut.
    pub fn unanalysed_words(&self, text: &str, as_lines: bool) -> Vec<String> {
        let Some(known) = &self.isolations else {
            return Vec::new();
        };
        let mut new: FxHashSet<&str> = FxHashSet::default();
        let mut order = Vec::new();
        let all: Box<dyn Iterator<Item = &str>> = if as_lines {
            Box::new(lines(text))
        } else {
            Box::new(std::iter::once(text))
        };
        for line in all {
            for word in line.trim_matches(['\r', '\n', ' ']).split(' ') {
                if !word.is_empty() && !known.contains_key(word) && new.insert(word) {
                    order.push(word.to_string());
                }
            }
        }
        order
    }

    /// Records how glossaries cut each word (None: they leave it alone).
    pub fn add_isolations(&mut self, words: Vec<(String, Option<Isolation>)>) {
        if let Some(map) = &mut self.isolations {
            map.extend(words);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn merges(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    fn segmenter(list: &[(&str, &str)], version: CodesVersion) -> Segmenter {
        Segmenter::new(&merges(list), version, "@@", None, false, 1).unwrap()
    }

    #[test]
    fn segments_like_subword_nmt() {
        let mut s = segmenter(
            &[("l", "o"), ("lo", "w</w>"), ("e", "s"), ("es", "t</w>")],
            CodesVersion::V0_2,
        );
        assert_eq!(
            s.process_line("  low  lowest tést\r\n", 0.0).unwrap(),
            "  low lo@@ w@@ est t@@ é@@ s@@ t\r\n"
        );
        assert_eq!(s.process_line("   \n", 0.0).unwrap(), "   \n");
        assert_eq!(
            s.segment_tokens(&["lowest", "", "x"], 0.0).unwrap(),
            ["lo@@", "w@@", "est", "x"]
        );
    }

    #[test]
    fn version_0_1_has_a_separate_end_symbol() {
        let mut s = segmenter(
            &[("e", "s"), ("es", "t"), ("est", "</w>")],
            CodesVersion::V0_1,
        );
        assert_eq!(
            s.process_line("test tests", 0.0).unwrap(),
            "t@@ est t@@ est@@ s"
        );
    }

    #[test]
    fn all_occurrences_differs_from_one_at_a_time_on_remade_strings() {
        // (ab, a) ranks before (a, b): merging every (a, b) first gives ab ab x;
        // one at a time would give aba b x.
        let mut s = segmenter(&[("ab", "a"), ("a", "b")], CodesVersion::V0_2);
        assert!(!s.merges_one_at_a_time());
        assert_eq!(s.process_line("ababx", 0.0).unwrap(), "ab@@ ab@@ x");
        let learned = segmenter(&[("a", "b"), ("ab", "a")], CodesVersion::V0_2);
        assert!(learned.merges_one_at_a_time());
    }

    #[test]
    fn dropout_one_gives_characters_and_zero_changes_nothing() {
        let mut s = segmenter(&[("a", "b"), ("ab", "c</w>")], CodesVersion::V0_2);
        assert_eq!(s.process_line("abc", 1.0).unwrap(), "a@@ b@@ c");
        assert_eq!(s.process_line("abc", 0.0).unwrap(), "abc");
    }
}
