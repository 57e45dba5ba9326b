//! Stage 4b, subword-nmt flavour — segment text with the merges of a codes file exactly as
//! `subword-nmt apply-bpe` 0.3.8 does, and much faster:
//!
//! - lines are cut where Python's `str.splitlines` cuts them (what `codecs.open` gives
//!   subword-nmt): `\n`, `\r\n`, `\r`, `\x0b`, `\x0c`, `\x1c`-`\x1e`, U+0085, U+2028, U+2029;
//!   leading and trailing `\r`, `\n` and spaces of a line are kept as they are, words are the
//!   runs between single spaces (other whitespace, such as tabs, belongs to the word);
//! - a word's initial symbols are its characters with `</w>` attached to the last one
//!   (codes version 0.2) or appended as a symbol of its own (version 0.1); characters the
//!   codes never mention pass through unchanged (there is no `<unk>` here);
//! - merges: subword-nmt merges *every* occurrence of the lowest-rank pair at each step.
//!   When no merge's result is a part of a lower-rank merge (true of codes learned by BPE
//!   unless a symbol's string is made twice) that equals merging one lowest-rank pair at a
//!   time, so `merge::apply_merges` does the work (O(n log n) on long words); otherwise,
//!   and with BPE-dropout, the all-occurrences loop below runs;
//! - with a vocabulary, segments that are not in it (or below its threshold) are split
//!   back along the merges that made them (`check_vocab_and_split`);
//! - glossaries are regular expressions with Python's `re` semantics, so Python works out
//!   how each distinct word is cut by them (`Isolation`) and hands that over; the core
//!   asks for the words it has not been told about (`unanalysed_words`).
//!
//! Every distinct word is segmented once and cached (bounded), like subword-nmt's cache.
//!
//! Performance notes. `benchmarks/nmt_speed.py --repeat 2-3 --baseline <main's build>`:
//! whole commands against subword-nmt 0.3.8, fastest of interleaved runs, LTO builds, on
//! the shared 2-core machine (load 3-4); ratio to subword-nmt, CPU (wall), main → now:
//!
//! | input                  | learn-bpe -s 10000       | apply-bpe              |
//! |------------------------|--------------------------|------------------------|
//! | en-kjv, 4.1 MB         | 37× (34×) → 48× (42×)    | 10× (9×) → 15× (13×)   |
//! | en-large prefix, 10 MB | 51× (47×) → 59× (51×)    | 13× (13×) → 18× (19×)  |
//! | en-large, 61 MB        | (not run)                | 18× (18×) → 28× (28×)  |
//! | ko-help, 3.7 MB        | 297× (204×) → 341× (283×)| 5× (5×) → 10× (9×)     |
//!
//! Outputs byte-identical in every run. Where the time went, and what changed:
//! - start-up: the interpreter alone takes 0.035-0.058 s of CPU here (`site`), a command
//!   used to import the whole package (~0.035 s more); now only its own module (~0.008);
//! - the text stays bytes: read in 4 MB blocks, cut at line ends and checked as UTF-8 in
//!   `stream::TextBlocks`, segmented output returned as bytes;
//! - building the segmenter as a general `Model` took 25 ms for 10k merges; `Symbols`, 4;
//! - a lookup per word in the cache (`wordmap::WordMap`) is bound by memory latency: the
//!   slots of a batch of words are prefetched first (10 MB, warm cache: 0.19 → 0.15 s);
//! - a new word's segmentation is written straight into the output (`write_plain`), and
//!   line ends are found with memchr plus a vectorised check for the rarer line breaks;
//! - learn-bpe: words counted per part in a `WordMap` on all cores (KJV: ~0.06 → ~0.04 s
//!   of CPU), the codes file formatted in one pass (14 → 2 ms); the merge loop
//!   (`train.rs`, unchanged here) is now most of a run;
//! - left: cutting the text into parts segmented on the rayon pool (each part with its
//!   own map of new words, no locks) was tried again and dropped: on this loaded machine
//!   the 61 MB run took 1.68-1.99 s of wall time against 1.41-1.57 s on one thread, and
//!   more CPU. It may pay on an idle multi-core machine; that could not be shown here.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::count::WordTable;
use crate::error::{Error, Result};
use crate::merge::apply_merges;
use crate::model::Pair;
use crate::wordmap::WordMap;

/// The end-of-word marker of codes files.
pub const END_OF_WORD: &str = "</w>";

/// How many words of a line are looked up together (their cache slots fetched at once).
const WORD_BATCH: usize = 32;
/// How many distinct words the cache keeps (then new words are segmented uncached).
const CACHE_MAX: usize = 1 << 20;
/// How deep the vocabulary check may split a segment (subword-nmt would hit Python's
/// recursion limit; only codes that merge into `</w>` itself get there).
const SPLIT_DEPTH_MAX: usize = 10_000;

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

/// The random numbers of BPE-dropout: SplitMix64, small and reproducible from a seed. Our
/// own rather than `rand`'s `SmallRng`, whose algorithm may change between rand versions
/// (its documentation says so): a seed must give the same segmentation in every release.
#[derive(Debug, Clone, Copy)]
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1), like Python's `random.random()`.
    fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

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
    reverse: FxHashMap<String, (String, String)>,
    separator: String,
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
            rng: SplitMix64(seed),
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
            merge_all_occurrences(&self.model.merges, &mut ids, 0.0, &mut SplitMix64(0));
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

    /// subword-nmt's `check_vocab_and_split`: keeps segments in the vocabulary (non-final
    /// ones with the separator), splits the others back along their merges.
    fn check_vocabulary(
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

/// Adds the words of `text` to `table` as subword-nmt's learn-bpe and get-vocab count them
/// (and as `Segmenter` segments them): lines cut by `lines`, each stripped of `\r`, `\n`
/// and spaces, words the runs between spaces. A plain loop rather than a regex
/// pre-tokenizer: 0.04 s instead of 0.12 s of CPU for the KJV Bible.
pub fn count_words(text: &str, table: &mut WordTable) {
    for line in lines(text) {
        for word in line.trim_matches(['\r', '\n', ' ']).split(' ') {
            if !word.is_empty() {
                table.add(word, 1);
            }
        }
    }
}

/// The least text a parallel counting task takes.
const COUNT_PART_MIN: usize = 1 << 18;

/// `count_words` on the rayon pool: the text is cut after line breaks into parts, each
/// counted into a `WordMap` of its own (one lookup per word, where `WordTable` takes
/// twice as long), and the maps are added to `table` in input order, so the order of
/// first appearance is the same as counting in one go.
pub fn count_words_parallel(text: &str, table: &mut WordTable) {
    use rayon::prelude::*;
    // One part per thread: each part's distinct words are added to `table` one by one,
    // so fewer, larger parts cost less.
    let size = (text.len() / rayon::current_num_threads().max(1)).max(COUNT_PART_MIN);
    let parts = parts_at_line_ends(text, size);
    let maps: Vec<Option<WordMap>> = if parts.len() == 1 {
        vec![count_part(text)]
    } else {
        parts.par_iter().map(|part| count_part(part)).collect()
    };
    for (part, map) in parts.iter().zip(maps) {
        match map {
            Some(map) => {
                for (word, count) in map.entries() {
                    table.add(word, u64::from(count));
                }
            }
            None => count_words(part, table),
        }
    }
}

/// The words of `part` and their counts, as `count_words` counts them; None for a part
/// of 4 GB or more, where a count or the map's arena could pass 32 bits.
fn count_part(part: &str) -> Option<WordMap> {
    if part.len() >= u32::MAX as usize {
        return None;
    }
    let mut map = WordMap::default();
    for line in lines(part) {
        let body = line.trim_matches(['\r', '\n', ' ']);
        // A byte loop rather than `split(' ')`, as in `render_line`.
        let bytes = body.as_bytes();
        let mut start = 0;
        for end in (0..=bytes.len()).filter(|&i| i == bytes.len() || bytes[i] == b' ') {
            if end > start {
                let word = &body[start..end];
                let hash = WordMap::hash(word);
                match map.number_mut(word, hash) {
                    Some(count) => *count += 1,
                    None => {
                        map.insert(word, hash, 1, "");
                    }
                }
            }
            start = end + 1;
        }
    }
    Some(map)
}

/// `text` cut into parts of about `size` bytes, each (but the last) ending with `\n`.
fn parts_at_line_ends(text: &str, size: usize) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut rest = text;
    while rest.len() > size {
        match memchr::memchr(b'\n', &rest.as_bytes()[size..]) {
            Some(i) => {
                let (part, tail) = rest.split_at(size + i + 1);
                parts.push(part);
                rest = tail;
            }
            None => break,
        }
    }
    if !rest.is_empty() || parts.is_empty() {
        parts.push(rest);
    }
    parts
}

/// subword-nmt's `process_line` around a word segmenter: the line's leading and trailing
/// `\r`, `\n` and spaces are kept as they are (trailing ones unless the line is nothing
/// else); in between, the words (runs between spaces) are segmented and joined by single
/// spaces.
fn render_line<'t>(
    line: &'t str,
    out: &mut String,
    mut segment_words: impl FnMut(&[&'t str], bool, &mut String) -> Result<()>,
) -> Result<()> {
    let is_strip = |c: char| c == '\r' || c == '\n' || c == ' ';
    let body = line.trim_matches(is_strip);
    let leading = line.len() - line.trim_start_matches(is_strip).len();
    let trailing = line.len() - line.trim_end_matches(is_strip).len();
    out.push_str(&line[..leading]);
    // A plain byte loop beats `split(' ')` (one memchr call per word) on short words:
    // 0.040 s instead of 0.054 s of CPU for the KJV Bible (4.1 MB), cached words.
    let bytes = body.as_bytes();
    let mut batch: [&str; WORD_BATCH] = [""; WORD_BATCH];
    let (mut n, mut continues) = (0, false);
    let mut start = 0;
    for end in (0..=bytes.len()).filter(|&i| i == bytes.len() || bytes[i] == b' ') {
        if end > start {
            batch[n] = &body[start..end];
            n += 1;
            if n == WORD_BATCH {
                segment_words(&batch, continues, out)?;
                (n, continues) = (0, true);
            }
        }
        start = end + 1;
    }
    if n > 0 {
        segment_words(&batch[..n], continues, out)?;
    }
    if trailing > 0 && trailing != line.len() {
        out.push_str(&line[line.len() - trailing..]);
    }
    Ok(())
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
fn reverse_merges(merges: &[(String, String)]) -> FxHashMap<String, (String, String)> {
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

/// Merging one lowest-rank pair at a time (leftmost first) equals subword-nmt's merging of
/// all occurrences of the lowest-rank pair at once, unless a merge's result is a part of a
/// lower-rank merge: only then can a pair made by the first occurrence's merge jump ahead
/// of the remaining occurrences. Learned codes have that only when a string is made twice.
fn merging_one_at_a_time_is_exact(merges: &FxHashMap<Pair, (u32, u32)>) -> bool {
    let mut first_use: FxHashMap<u32, u32> = FxHashMap::default();
    for (&(a, b), &(rank, _)) in merges {
        for symbol in [a, b] {
            let slot = first_use.entry(symbol).or_insert(rank);
            *slot = (*slot).min(rank);
        }
    }
    merges
        .values()
        .all(|(rank, merged)| first_use.get(merged).is_none_or(|used| used > rank))
}

/// subword-nmt's merge loop: at each step, among the adjacent pairs that survive dropout
/// (each is dropped with probability `dropout`), take the one with the lowest rank and
/// merge all its surviving occurrences, left to right without overlap; stop when no pair
/// survives. O(n) per step: only used for dropout and for codes where one at a time differs.
fn merge_all_occurrences(
    table: &FxHashMap<Pair, (u32, u32)>,
    ids: &mut Vec<u32>,
    dropout: f64,
    rng: &mut SplitMix64,
) {
    let mut kept: Vec<bool> = Vec::with_capacity(ids.len());
    let mut next: Vec<u32> = Vec::with_capacity(ids.len());
    while ids.len() > 1 {
        kept.clear();
        let mut best: Option<(u32, u32, Pair)> = None;
        for w in ids.windows(2) {
            let keep = dropout <= 0.0 || rng.next_f64() > dropout;
            kept.push(keep);
            if !keep {
                continue;
            }
            let pair = (w[0], w[1]);
            if let Some(&(rank, merged)) = table.get(&pair) {
                if best.is_none_or(|(r, _, _)| rank < r) {
                    best = Some((rank, merged, pair));
                }
            }
        }
        let Some((_, merged, pair)) = best else {
            break;
        };
        next.clear();
        let mut i = 0;
        while i < ids.len() {
            if i + 1 < ids.len() && kept[i] && (ids[i], ids[i + 1]) == pair {
                next.push(merged);
                i += 2;
            } else {
                next.push(ids[i]);
                i += 1;
            }
        }
        std::mem::swap(ids, &mut next);
    }
}

/// The lines of `text` as Python's `str.splitlines(keepends=True)` gives them.
pub fn lines(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= bytes.len() {
            return None;
        }
        // Most lines end at a "\n" with no other line break before it: found with memchr
        // and one branch-free pass (vectorised) instead of a byte-by-byte match, which
        // was a tenth of apply-bpe's time.
        let newline = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |k| start + k + 1);
        let other = bytes[start..newline]
            .iter()
            .fold(false, |any, &b| any | may_start_line_break(b));
        let end = if other {
            exact_line_end(bytes, start)
        } else {
            newline
        };
        let line = &text[start..end];
        start = end;
        Some(line)
    })
}

/// Whether a byte can begin a line break other than "\n" (`exact_line_end`'s list).
#[inline]
fn may_start_line_break(b: u8) -> bool {
    matches!(b, 0x0b..=0x0d | 0x1c..=0x1e | 0xc2 | 0xe2)
}

/// Where the line that starts at `start` ends (after its line break), byte by byte.
fn exact_line_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => return i + 2,
            b'\n' | b'\r' | 0x0b | 0x0c | 0x1c..=0x1e => return i + 1,
            // U+0085 is C2 85; U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
            0xc2 if bytes.get(i + 1) == Some(&0x85) => return i + 2,
            0xe2 if bytes.get(i + 1) == Some(&0x80)
                && matches!(bytes.get(i + 2), Some(0xa8 | 0xa9)) =>
            {
                return i + 3
            }
            _ => i += 1,
        }
    }
    bytes.len()
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
    fn lines_like_python_splitlines() {
        let text = "a b\x0bc\r\nd\re\nf\u{85}g\u{2028}h\u{2029}i\x1cj\x0ck\x1fl";
        let got: Vec<&str> = lines(text).collect();
        assert_eq!(
            got,
            [
                "a b\x0b",
                "c\r\n",
                "d\r",
                "e\n",
                "f\u{85}",
                "g\u{2028}",
                "h\u{2029}",
                "i\x1c",
                "j\x0c",
                "k\x1fl"
            ]
        );
        assert_eq!(lines("").count(), 0);
        assert_eq!(lines("x\n").collect::<Vec<_>>(), ["x\n"]);
        // Characters that begin like U+0085 or U+2028 but are not line breaks.
        let text = "a\u{a9}b\u{2014}c\u{2027}\nd\u{2029}\u{2028}e\r";
        assert_eq!(
            lines(text).collect::<Vec<_>>(),
            [
                "a\u{a9}b\u{2014}c\u{2027}\n",
                "d\u{2029}",
                "\u{2028}",
                "e\r"
            ]
        );
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

    #[test]
    fn vocabulary_splits_rare_segments_back() {
        let codes = merges(&[("l", "o"), ("lo", "w</w>")]);
        let vocabulary = Some(vec!["l@@".to_string(), "o@@".into(), "w".into()]);
        let mut s = Segmenter::new(&codes, CodesVersion::V0_2, "@@", vocabulary, false, 1).unwrap();
        assert_eq!(s.process_line("low", 0.0).unwrap(), "l@@ o@@ w");
    }

    #[test]
    fn counts_words_as_subword_nmt_reads_them() {
        let mut table = WordTable::default();
        count_words(" a  b\tc a\x0b\x0bd\r\ne\u{2028} \x0c", &mut table);
        let got: Vec<(&str, u64)> = table.iter().collect();
        assert_eq!(
            got,
            [
                ("a", 1),
                ("b\tc", 1),
                ("a\x0b", 1),
                ("\x0b", 1),
                ("d", 1),
                ("e\u{2028}", 1),
                ("\x0c", 1)
            ]
        );
    }

    #[test]
    fn counting_in_parts_gives_the_same_table() {
        let text = "b a\nc  a\r\nd\x0be a\n\nb f\n".repeat(40);
        let mut whole = WordTable::default();
        count_words(&text, &mut whole);
        for size in [1, 5, 17, 100, 10_000] {
            let parts = parts_at_line_ends(&text, size);
            assert_eq!(parts.concat(), text);
            let mut apart = WordTable::default();
            for part in &parts {
                let mut t = WordTable::default();
                count_words(part, &mut t);
                apart.absorb(t);
            }
            assert_eq!(
                apart.iter().collect::<Vec<_>>(),
                whole.iter().collect::<Vec<_>>()
            );
        }
        let mut parallel = WordTable::default();
        count_words_parallel(&text, &mut parallel);
        assert_eq!(parallel.len(), whole.len());
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
