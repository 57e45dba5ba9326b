//! Stage 5 — the whole encode path: normalize → special tokens → pre-tokenize → initial
//! symbol ids → merges (`merge.rs`) → ids, with a per-thread cache of encoded pieces
//! (`cache.rs`).
//!
//! Performance notes (cl100k through Python, one thread, MB/s of the shared 2-core
//! machine while other jobs ran, so ±25%):
//! - fancy-regex pre-tokenizer: 18 MB/s on en-kjv; hand-written splitter
//!   (`pretokenize/fast.rs`): 32.
//! - Short words keep their pair ranks in a stack array (two lookups per merge, not one
//!   per pair): multi-fortunes 16 → 19 MB/s.
//! - A per-thread cache of encoded pieces that outlives the call (`cache.rs`), replacing a
//!   per-call map and a small per-thread table of whole-token pieces: en-kjv 119 → 183,
//!   multi-fortunes 32 → 83, ko-help 37 → 99 (`encode_to_numpy`, whole file).
//! - The cache slot of each piece is prefetched eight pieces before it is looked up:
//!   ko-help 61 → 140, multi-fortunes 60 → 110, en-kjv 170 → 200 (whole file).
//! - Outside this module: the special-token check runs in Rust (aho-corasick, one pass)
//!   instead of one `str.__contains__` per token in Python; arrays are handed to NumPy
//!   without a copy; lists reuse one Python int per id made when the model is built.
//!   Together with the cache, per-line `encode_to_numpy` on en-kjv went 20 → 80–115.

use aho_corasick::{AhoCorasick, MatchKind};
use rand::rngs::SmallRng;
use rand::SeedableRng;

use crate::cache::{self, PieceCache};
use crate::error::{Error, Result};
use crate::merge::{apply_merges_from, merge_heap_dropout, LINEAR_MAX};
use crate::model::{Algorithm, BytePairs, Model, Unknown};
use crate::symbols::{EndOfWord, Unit};

/// A set of special tokens: those recognised in a text (allowed), or those whose presence
/// is an error (disallowed, as tiktoken's `encode` has it).
pub struct SpecialMatcher {
    automaton: AhoCorasick,
    ids: Vec<u32>,
    tokens: Vec<String>,
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

impl Model {
    /// Encodes `text`; special tokens in `specials` are recognised first, the rest of the
    /// text is ordinary.
    pub fn encode(&self, text: &str, specials: Option<&SpecialMatcher>) -> Result<Vec<u32>> {
        let mut out = Vec::new();
        self.encode_into(text, specials, &mut out)?;
        Ok(out)
    }

    /// `encode`, appending to `out`.
    pub fn encode_into(
        &self,
        text: &str,
        specials: Option<&SpecialMatcher>,
        out: &mut Vec<u32>,
    ) -> Result<()> {
        let normalized = self.config.normalizer.normalize(text);
        out.reserve(normalized.len() / 4);
        let mut cache = PieceCache::take(self.cache_owner);
        let result = match specials {
            None => self.encode_ordinary_into(&normalized, out, &mut cache),
            Some(matcher) => {
                let mut start = 0;
                let mut result = Ok(());
                for m in matcher.automaton.find_iter(normalized.as_ref()) {
                    result =
                        self.encode_ordinary_into(&normalized[start..m.start()], out, &mut cache);
                    if result.is_err() {
                        break;
                    }
                    out.push(matcher.ids[m.pattern().as_usize()]);
                    start = m.end();
                }
                result
                    .and_then(|()| self.encode_ordinary_into(&normalized[start..], out, &mut cache))
            }
        };
        cache.give_back();
        result
    }

    /// Encodes already-normalized text with no special tokens. Pieces go through a short
    /// queue: each one's cache slot is prefetched when it is split off and looked up
    /// `AHEAD` pieces later, so the memory latency of lookups overlaps.
    fn encode_ordinary_into(
        &self,
        text: &str,
        out: &mut Vec<u32>,
        cache: &mut PieceCache,
    ) -> Result<()> {
        const AHEAD: usize = 8;
        let mut queue: [(&str, u64); AHEAD] = [("", 0); AHEAD];
        let (mut head, mut queued) = (0, 0);
        let mut failure = None;
        self.config.pre_tokenizer.for_each_piece(text, |piece| {
            let key = cache::key_of(piece.as_bytes());
            cache.prefetch(key);
            if queued == AHEAD {
                let (first, first_key) = std::mem::replace(&mut queue[head], (piece, key));
                head = (head + 1) % AHEAD;
                self.encode_cached(text, first, first_key, out, cache, &mut failure);
            } else {
                queue[(head + queued) % AHEAD] = (piece, key);
                queued += 1;
            }
        })?;
        for i in 0..queued {
            let (piece, key) = queue[(head + i) % AHEAD];
            self.encode_cached(text, piece, key, out, cache, &mut failure);
        }
        failure.map_or(Ok(()), Err)
    }

    /// Appends the ids of `piece` (a piece of `text` with cache key `key`): from the cache,
    /// or encoded and then cached. After a failure, does nothing.
    #[inline]
    fn encode_cached(
        &self,
        text: &str,
        piece: &str,
        key: u64,
        out: &mut Vec<u32>,
        cache: &mut PieceCache,
        failure: &mut Option<Error>,
    ) {
        if failure.is_some() || cache.extend_with_key(key, piece.as_bytes(), out) {
            return;
        }
        let start = out.len();
        if let Err(unknown) = self.encode_word(piece, out) {
            let offset = piece.as_ptr() as usize - text.as_ptr() as usize;
            *failure = Some(unknown.into_error(text, offset));
            return;
        }
        cache.insert(piece.as_bytes(), &out[start..]);
    }

    /// Encodes one pre-tokenized piece (a word), appending its ids.
    pub fn encode_piece(&self, piece: &str, out: &mut Vec<u32>) -> Result<()> {
        self.encode_word(piece, out)
            .map_err(|u| u.into_error(piece, 0))
    }

    /// The id of a piece that is encoded whole: a special token found by the pattern
    /// (CLIP), or a piece that is itself a token when merges are ignored (tiktoken).
    #[inline]
    fn whole_piece(&self, piece: &str) -> Option<u32> {
        if !self.special_pieces.is_empty() {
            if let Some(&id) = self.special_pieces.get(piece) {
                return Some(id);
            }
        }
        if self.config.ignore_merges {
            return self.piece_ids.get(piece.as_bytes());
        }
        None
    }

    /// Encodes one piece.
    fn encode_word(&self, piece: &str, out: &mut Vec<u32>) -> std::result::Result<(), UnknownChar> {
        if let Some(id) = self.whole_piece(piece) {
            out.push(id);
            return Ok(());
        }
        if matches!(self.config.algorithm, Algorithm::Greedy { .. }) {
            return self.greedy_word(piece, out);
        }
        let start = out.len();
        self.initial_ids(piece, out)?;
        match &self.joined_bytes {
            Some(joined) if out.len() - start > LINEAR_MAX => {
                self.merge_long_piece(piece.as_bytes(), joined, out, start)
            }
            _ => apply_merges_from(&self.merges, out, start),
        }
        Ok(())
    }

    /// Merges a long byte-level piece whose initial symbols are `out[start..]`, one byte
    /// each (plus an end-of-word symbol in some models). Between two bytes that no token
    /// contains side by side no merge can ever happen, so the piece is cut there and each
    /// part merged alone: the result is the same, and a long piece costs like many short
    /// ones. (Random letters have such a cut every five bytes or so under cl100k: 1 MB of
    /// them went from 470 to 40 ns a byte. Text with no cut, like one letter repeated,
    /// still takes the heap.)
    fn merge_long_piece(&self, bytes: &[u8], joined: &BytePairs, out: &mut Vec<u32>, start: usize) {
        let symbols = out.split_off(start);
        // Cuts are between bytes i - 1 and i, never before the last symbol, which may carry
        // the end of the word.
        let last_cut = bytes.len().min(symbols.len()).saturating_sub(1);
        let mut from = 0;
        for i in 1..last_cut {
            if !joined.contains(bytes[i - 1], bytes[i]) {
                out.extend_from_slice(&symbols[from..i]);
                apply_merges_from(&self.merges, out, out.len() - (i - from));
                from = i;
            }
        }
        let at = out.len();
        out.extend_from_slice(&symbols[from..]);
        apply_merges_from(&self.merges, out, at);
    }

    /// Greedy longest match (seed 003): at each position the longest token that matches;
    /// a character no token starts with becomes the unknown token. Tokens after the first
    /// of the word take their continuation form.
    fn greedy_word(&self, piece: &str, out: &mut Vec<u32>) -> std::result::Result<(), UnknownChar> {
        // Character boundaries, so candidate lengths are counted in characters.
        let bounds: Vec<usize> = piece
            .char_indices()
            .map(|(b, _)| b)
            .chain([piece.len()])
            .collect();
        let chars = bounds.len() - 1;
        let mut at = 0;
        while at < chars {
            let longest = self.greedy_max_chars.min(chars - at);
            let found = (1..=longest).rev().find_map(|n| {
                self.greedy
                    .get(&piece[bounds[at]..bounds[at + n]])
                    .map(|&ids| (n, ids))
            });
            match found {
                Some((n, (id, cont))) => {
                    out.push(if at == 0 { id } else { cont });
                    at += n;
                }
                None => {
                    let c = piece[bounds[at]..].chars().next().unwrap_or('\u{fffd}');
                    match self.config.unknown {
                        Unknown::Unk(id) => out.push(id),
                        Unknown::Error => {
                            return Err(UnknownChar {
                                byte: bounds[at],
                                c,
                            })
                        }
                    }
                    at += 1;
                }
            }
        }
        Ok(())
    }

    /// Encodes with BPE-dropout: each merge is skipped with probability `p` when its turn
    /// comes (skipped merges may apply later, once a neighbour changed). Seeded, so the same
    /// text, `p` and seed give the same ids; `p = 0` is plain encoding.
    pub fn encode_dropout(
        &self,
        text: &str,
        specials: Option<&SpecialMatcher>,
        p: f64,
        seed: u64,
    ) -> Result<Vec<u32>> {
        if !(0.0..=1.0).contains(&p) {
            return Err(Error::invalid(format!(
                "dropout must be between 0 and 1, got {p}"
            )));
        }
        if p == 0.0 || matches!(self.config.algorithm, Algorithm::Greedy { .. }) {
            return self.encode(text, specials);
        }
        let mut rng = SmallRng::seed_from_u64(seed);
        let normalized = self.config.normalizer.normalize(text);
        let mut out = Vec::new();
        let mut ordinary = |part: &str, out: &mut Vec<u32>| -> Result<()> {
            let mut failure = None;
            self.config.pre_tokenizer.for_each_piece(part, |piece| {
                if failure.is_some() {
                    return;
                }
                let start = out.len();
                if let Err(u) = self.initial_ids(piece, out) {
                    let offset = piece.as_ptr() as usize - part.as_ptr() as usize;
                    failure = Some(u.into_error(part, offset));
                    return;
                }
                let mut word: Vec<u32> = out.drain(start..).collect();
                merge_heap_dropout(&self.merges, &mut word, p, &mut rng);
                out.extend_from_slice(&word);
            })?;
            failure.map_or(Ok(()), Err)
        };
        match specials {
            None => ordinary(&normalized, &mut out)?,
            Some(matcher) => {
                let mut start = 0;
                for m in matcher.automaton.find_iter(normalized.as_ref()) {
                    ordinary(&normalized[start..m.start()], &mut out)?;
                    out.push(matcher.ids[m.pattern().as_usize()]);
                    start = m.end();
                }
                ordinary(&normalized[start..], &mut out)?;
            }
        }
        Ok(out)
    }

    /// The initial symbol ids of a piece.
    pub fn initial_ids(
        &self,
        piece: &str,
        out: &mut Vec<u32>,
    ) -> std::result::Result<(), UnknownChar> {
        let attached = self.config.rules.end_of_word == EndOfWord::Attached;
        match self.config.rules.unit {
            Unit::Bytes => {
                let bytes = piece.as_bytes();
                out.extend(bytes.iter().map(|&b| self.byte_ids[b as usize]));
                if attached && !bytes.is_empty() {
                    let last = out.len() - 1;
                    out[last] = self.byte_end_ids[bytes[bytes.len() - 1] as usize];
                }
            }
            Unit::Chars => {
                let last = piece.char_indices().last().map_or(0, |(b, _)| b);
                for (byte, c) in piece.char_indices() {
                    let table = if attached && byte == last {
                        &self.char_end_ids
                    } else {
                        &self.char_ids
                    };
                    match (table.get(&c), self.config.unknown) {
                        (Some(&id), _) | (None, Unknown::Unk(id)) => out.push(id),
                        (None, Unknown::Error) => return Err(UnknownChar { byte, c }),
                    }
                }
            }
        }
        if self.config.rules.end_of_word == EndOfWord::Separate {
            // Models are checked to hold their end-of-word symbol when built.
            out.extend(self.end_id);
        }
        Ok(())
    }

    /// Encodes each text on the rayon pool; results in input order. A text containing a
    /// `forbidden` special token is an error naming the text.
    pub fn encode_batch(
        &self,
        texts: &[&str],
        specials: Option<&SpecialMatcher>,
        forbidden: Option<&SpecialMatcher>,
    ) -> Result<Vec<Vec<u32>>> {
        use rayon::prelude::*;
        texts
            .par_iter()
            .enumerate()
            .map(|(i, text)| {
                let mut ids = Vec::new();
                self.encode_in_batch(i, text, specials, forbidden, &mut ids)
                    .map(|()| ids)
            })
            .collect()
    }

    /// Text `index` of a batch, its ids appended to `out`: the forbidden-token check,
    /// then `encode`; an error names the text.
    fn encode_in_batch(
        &self,
        index: usize,
        text: &str,
        specials: Option<&SpecialMatcher>,
        forbidden: Option<&SpecialMatcher>,
        out: &mut Vec<u32>,
    ) -> Result<()> {
        forbidden
            .map_or(Ok(()), |f| f.refuse_in(text))
            .and_then(|()| self.encode_into(text, specials, out))
            .map_err(|e| in_text(index, e))
    }

    /// `encode_batch` as one flat list of ids and the offsets where each text's ids start
    /// (one more offset than texts, the last being the total).
    pub fn encode_batch_flat(
        &self,
        texts: &[&str],
        specials: Option<&SpecialMatcher>,
        forbidden: Option<&SpecialMatcher>,
    ) -> Result<(Vec<u32>, Vec<u64>)> {
        use rayon::prelude::*;
        // Runs of texts, each encoded into one buffer: no vector per text, and the runs are
        // joined once. Several runs a thread keep the threads evenly loaded.
        let run = texts
            .len()
            .div_ceil(8 * rayon::current_num_threads())
            .max(1);
        let parts = texts
            .par_chunks(run)
            .enumerate()
            .map(|(part, chunk)| {
                let mut ids = Vec::new();
                let mut ends = Vec::with_capacity(chunk.len());
                for (k, text) in chunk.iter().enumerate() {
                    self.encode_in_batch(part * run + k, text, specials, forbidden, &mut ids)?;
                    ends.push(ids.len() as u64);
                }
                Ok((ids, ends))
            })
            .collect::<Result<Vec<_>>>()?;
        let mut flat = Vec::with_capacity(parts.iter().map(|(ids, _)| ids.len()).sum());
        let mut offsets = Vec::with_capacity(texts.len() + 1);
        offsets.push(0);
        for (ids, ends) in &parts {
            let base = flat.len() as u64;
            offsets.extend(ends.iter().map(|end| base + end));
            flat.extend_from_slice(ids);
        }
        Ok((flat, offsets))
    }
}

fn in_text(index: usize, err: Error) -> Error {
    Error {
        message: format!("text {index} of the batch: {}", err.message),
        ..err
    }
}

/// A character with no initial symbol, at a byte offset within its piece.
#[derive(Debug, Clone, Copy)]
pub struct UnknownChar {
    pub byte: usize,
    pub c: char,
}

impl UnknownChar {
    /// The error for the person: the character and where it is in the whole text.
    fn into_error(self, text: &str, piece_offset: usize) -> Error {
        let byte = piece_offset + self.byte;
        let at = text.get(..byte).map_or(0, |s| s.chars().count());
        Error::invalid(format!(
            "unknown character {:?} (U+{:04X}) at character {at}: it is not in the \
             vocabulary; encode with unknown=\"unk\" to map it to the unknown token",
            self.c, self.c as u32
        ))
    }
}
