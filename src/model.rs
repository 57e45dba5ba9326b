//! The applied model: vocabulary, merge table and how words become initial symbol ids.
//! Built once from plain data (token → id, merges in rank order); `encode` and `decode`
//! read it. Everything here is immutable after construction, so one model serves all
//! threads.

use rustc_hash::FxHashMap;

use crate::cache::{new_owner, short_key};
use crate::error::{Error, Result};
use crate::normalize::Normalizer;
use crate::pretokenize::PreTokenizer;
use crate::symbols::{byte_to_unicode, unicode_to_byte, EndOfWord, SymbolRules, Unit};

pub type Pair = (u32, u32);

/// How merges are looked up when applying.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeRule {
    /// The merge list: pair (a, b) has the rank of its line (GPT-2, HF, subword-nmt).
    Merges,
    /// Token ranks: any adjacent pair whose concatenation is a token merges, ranked by that
    /// token's id (tiktoken).
    Ranks,
}

/// What classic encoding does with a symbol that is not in the vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unknown {
    Unk(u32),
    Error,
}

/// How a word is cut into tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Algorithm {
    /// Apply merges by rank (standard BPE).
    Bpe,
    /// Greedy longest match against the vocabulary at each position (seed 003); pieces
    /// after the first of a word use their continuation form, `prefix` + token.
    Greedy { prefix: String },
}

#[derive(Debug, Clone)]
pub struct ModelConfig {
    pub normalizer: Normalizer,
    pub pre_tokenizer: PreTokenizer,
    pub rules: SymbolRules,
    pub merge_rule: MergeRule,
    pub ignore_merges: bool,
    pub unknown: Unknown,
    pub algorithm: Algorithm,
    /// Special tokens are recognised as whole pieces of the pre-tokenizer (CLIP), not
    /// split off before it.
    pub specials_in_pattern: bool,
}

#[derive(Debug, Clone)]
pub struct Model {
    pub config: ModelConfig,
    /// id → token string (empty for unused ids).
    pub tokens: Vec<String>,
    pub vocab: FxHashMap<String, u32>,
    /// (left, right) → (rank, merged id).
    pub merges: FxHashMap<Pair, (u32, u32)>,
    /// Special tokens: literal text → id, matched before pre-tokenization.
    pub specials: Vec<(String, u32)>,
    /// Initial symbol ids: characters (classic) or bytes (byte-level), plain and as the
    /// last symbol of a word in attached end-of-word mode.
    pub(crate) char_ids: FxHashMap<char, u32>,
    pub(crate) char_end_ids: FxHashMap<char, u32>,
    pub(crate) byte_ids: [u32; 256],
    pub(crate) byte_end_ids: [u32; 256],
    pub(crate) end_id: Option<u32>,
    /// Whole pieces that are tokens, by their text, for `ignore_merges`.
    pub(crate) piece_ids: PieceIds,
    /// Pieces that are special tokens, when `specials_in_pattern`.
    pub(crate) special_pieces: FxHashMap<String, u32>,
    /// id → the text bytes it decodes to (end-of-word markers become a space).
    pub(crate) token_bytes: Vec<Vec<u8>>,
    /// Greedy matching: plain token text → (id, continuation id), and the longest token
    /// in characters.
    pub(crate) greedy: FxHashMap<String, (u32, u32)>,
    pub(crate) greedy_max_chars: usize,
    /// id → whether it is a continuation token (greedy models), for decoding.
    pub(crate) continuation: Vec<bool>,
    /// Identifies this model's entries in the per-thread piece caches (`cache.rs`).
    pub(crate) cache_owner: u64,
    /// Byte-level models: the byte pairs some token contains, where long pieces cannot be
    /// cut (`encode.rs`).
    pub(crate) joined_bytes: Option<BytePairs>,
}

const NONE: u32 = u32::MAX;

impl Model {
    pub fn new(
        config: ModelConfig,
        vocab: Vec<(String, u32)>,
        merges: &[(String, String)],
        specials: Vec<(String, u32)>,
    ) -> Result<Self> {
        let size = vocab
            .iter()
            .chain(&specials)
            .map(|(_, id)| *id as usize + 1)
            .max()
            .unwrap_or(0);
        let mut tokens = vec![String::new(); size];
        let mut map: FxHashMap<String, u32> = FxHashMap::default();
        for (token, id) in &vocab {
            if let Some(other) = map.insert(token.clone(), *id) {
                return Err(Error::invalid(format!(
                    "token {token:?} appears twice in the vocabulary (ids {other} and {id})"
                )));
            }
            if !tokens[*id as usize].is_empty() {
                return Err(Error::invalid(format!(
                    "id {id} is given to two tokens: {:?} and {token:?}",
                    tokens[*id as usize]
                )));
            }
            tokens[*id as usize] = token.clone();
        }
        for (token, id) in &specials {
            tokens[*id as usize] = token.clone();
        }
        let mut model = Model {
            config,
            tokens,
            vocab: map,
            merges: FxHashMap::default(),
            specials,
            char_ids: FxHashMap::default(),
            char_end_ids: FxHashMap::default(),
            byte_ids: [NONE; 256],
            byte_end_ids: [NONE; 256],
            end_id: None,
            piece_ids: PieceIds::default(),
            special_pieces: FxHashMap::default(),
            token_bytes: Vec::new(),
            greedy: FxHashMap::default(),
            greedy_max_chars: 0,
            continuation: Vec::new(),
            cache_owner: new_owner(),
            joined_bytes: None,
        };
        if model.config.specials_in_pattern {
            model.special_pieces = model.specials.iter().cloned().collect();
        }
        model.build_greedy()?;
        model.build_merges(merges)?;
        model.build_initial_ids()?;
        model.build_token_bytes()?;
        model.build_joined_bytes();
        Ok(model)
    }

    fn build_greedy(&mut self) -> Result<()> {
        let Algorithm::Greedy { prefix } = &self.config.algorithm else {
            return Ok(());
        };
        if self.config.rules.end_of_word != EndOfWord::None || self.config.rules.unit != Unit::Chars
        {
            return Err(Error::invalid(
                "greedy matching works on classic models without an end-of-word symbol \
                 (kind=\"classic\", end_of_word=\"none\")",
            ));
        }
        self.continuation = vec![false; self.tokens.len()];
        let unk = match self.config.unknown {
            Unknown::Unk(id) => Some(id),
            Unknown::Error => None,
        };
        for (token, &id) in &self.vocab {
            if Some(id) == unk {
                continue;
            }
            if let Some(stem) = token.strip_prefix(prefix.as_str()) {
                if !stem.is_empty() && self.vocab.contains_key(stem) {
                    self.continuation[id as usize] = true;
                    continue;
                }
            }
            let cont = self
                .vocab
                .get(&format!("{prefix}{token}"))
                .copied()
                .ok_or_else(|| {
                    Error::invalid(format!(
                        "greedy model: token {token:?} has no continuation form {:?} in the \
                     vocabulary",
                        format!("{prefix}{token}")
                    ))
                })?;
            self.greedy_max_chars = self.greedy_max_chars.max(token.chars().count());
            self.greedy.insert(token.clone(), (id, cont));
        }
        Ok(())
    }

    fn build_merges(&mut self, merges: &[(String, String)]) -> Result<()> {
        match self.config.merge_rule {
            MergeRule::Merges => {
                for (rank, (a, b)) in merges.iter().enumerate() {
                    let line = rank + 1;
                    let id = |s: &str| {
                        self.vocab.get(s).copied().ok_or_else(|| {
                            Error::invalid(format!(
                                "merge {line} ({a:?} {b:?}): {s:?} is not in the vocabulary"
                            ))
                        })
                    };
                    let pair = (id(a)?, id(b)?);
                    let merged = id(&format!("{a}{b}"))?;
                    self.merges.entry(pair).or_insert((rank as u32, merged));
                }
            }
            MergeRule::Ranks => {
                // Every split of a token into two tokens is a pair that makes it.
                for (token, &id) in &self.vocab {
                    for (cut, _) in token.char_indices().skip(1) {
                        let (a, b) = token.split_at(cut);
                        if let (Some(&ia), Some(&ib)) = (self.vocab.get(a), self.vocab.get(b)) {
                            let slot = self.merges.entry((ia, ib)).or_insert((id, id));
                            if id < slot.0 {
                                *slot = (id, id);
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn build_initial_ids(&mut self) -> Result<()> {
        let eow = self.config.rules.end_of_word_symbol.clone();
        let attached = self.config.rules.end_of_word == EndOfWord::Attached;
        if self.config.rules.end_of_word == EndOfWord::Separate {
            self.end_id = Some(*self.vocab.get(&eow).ok_or_else(|| {
                Error::invalid(format!(
                    "the end-of-word symbol {eow:?} is not in the vocabulary"
                ))
            })?);
        }
        match self.config.rules.unit {
            Unit::Chars => {
                for (token, &id) in &self.vocab {
                    let mut chars = token.chars();
                    if let (Some(c), None) = (chars.next(), chars.next()) {
                        self.char_ids.insert(c, id);
                    }
                    if attached {
                        if let Some(stem) = token.strip_suffix(eow.as_str()) {
                            let mut chars = stem.chars();
                            if let (Some(c), None) = (chars.next(), chars.next()) {
                                self.char_end_ids.insert(c, id);
                            }
                        }
                    }
                }
            }
            Unit::Bytes => {
                for (b, c) in byte_to_unicode().iter().enumerate() {
                    let symbol = c.to_string();
                    self.byte_ids[b] = *self.vocab.get(&symbol).ok_or_else(|| {
                        Error::invalid(format!(
                            "the byte-level vocabulary has no token for byte {b:#04x} ({symbol:?})"
                        ))
                    })?;
                    if attached {
                        let end = format!("{symbol}{eow}");
                        self.byte_end_ids[b] = *self.vocab.get(&end).ok_or_else(|| {
                            Error::invalid(format!(
                                "the byte-level vocabulary has no token {end:?} for byte {b:#04x} \
                                 at the end of a word"
                            ))
                        })?;
                    }
                }
                if self.config.ignore_merges && !attached {
                    for (token, &id) in &self.vocab {
                        if let Some(bytes) = byte_level_bytes(token) {
                            self.piece_ids.insert(&bytes, id);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn build_token_bytes(&mut self) -> Result<()> {
        let eow = self.config.rules.end_of_word_symbol.clone();
        let marks_end = self.config.rules.end_of_word != EndOfWord::None;
        let mut out = Vec::with_capacity(self.tokens.len());
        for token in &self.tokens {
            let (stem, end) = match token.strip_suffix(eow.as_str()) {
                Some(stem) if marks_end => (stem, true),
                _ => (token.as_str(), false),
            };
            let mut bytes = match self.config.rules.unit {
                Unit::Chars => stem.as_bytes().to_vec(),
                // Specials and stray tokens outside the byte table decode as their text.
                Unit::Bytes => byte_level_bytes(stem).unwrap_or_else(|| stem.as_bytes().to_vec()),
            };
            if end {
                bytes.push(b' ');
            }
            out.push(bytes);
        }
        if let Algorithm::Greedy { prefix } = &self.config.algorithm {
            for (id, bytes) in out.iter_mut().enumerate() {
                if self.continuation.get(id) == Some(&true) {
                    bytes.drain(..prefix.len());
                }
            }
        }
        for (token, id) in &self.specials {
            out[*id as usize] = token.as_bytes().to_vec();
        }
        self.token_bytes = out;
        Ok(())
    }

    /// Every byte pair inside a token's bytes (a CLIP token "ab</w>" gives "ab", "b<", ...:
    /// extra pairs only mean fewer cuts, never a wrong one).
    fn build_joined_bytes(&mut self) {
        if self.config.rules.unit != Unit::Bytes {
            return;
        }
        let mut pairs = BytePairs::default();
        for (token, &id) in &self.vocab {
            let bytes = match byte_level_bytes(token) {
                Some(bytes) => bytes,
                None => self.token_bytes[id as usize].clone(),
            };
            for pair in bytes.windows(2) {
                pairs.insert(pair[0], pair[1]);
            }
        }
        self.joined_bytes = Some(pairs);
    }

    pub fn vocab_size(&self) -> usize {
        self.vocab.len()
            + self
                .specials
                .iter()
                .filter(|(t, _)| !self.vocab.contains_key(t))
                .count()
    }
}

/// A set of byte pairs (a 64 Kbit table).
#[derive(Debug, Clone)]
pub struct BytePairs(Box<[u64; 1024]>);

impl Default for BytePairs {
    fn default() -> Self {
        BytePairs(Box::new([0; 1024]))
    }
}

impl BytePairs {
    pub fn insert(&mut self, a: u8, b: u8) {
        let bit = (a as usize) << 8 | b as usize;
        self.0[bit / 64] |= 1 << (bit % 64);
    }

    #[inline]
    pub fn contains(&self, a: u8, b: u8) -> bool {
        let bit = (a as usize) << 8 | b as usize;
        self.0[bit / 64] & (1 << (bit % 64)) != 0
    }
}

/// Whole pieces → token ids. Most pieces of real text are short (four bytes on average
/// in English under cl100k), so pieces of up to 7 bytes are keyed by one u64 (bytes plus
/// length): hashing and comparing a u64 is several times cheaper than a byte slice.
#[derive(Debug, Clone, Default)]
pub struct PieceIds {
    short: FxHashMap<u64, u32>,
    long: FxHashMap<Box<[u8]>, u32>,
}

impl PieceIds {
    pub fn insert(&mut self, bytes: &[u8], id: u32) {
        match short_key(bytes) {
            Some(key) => self.short.insert(key, id),
            None => self.long.insert(bytes.into(), id),
        };
    }

    #[inline]
    pub(crate) fn get(&self, bytes: &[u8]) -> Option<u32> {
        match short_key(bytes) {
            Some(key) => self.short.get(&key).copied(),
            None => self.long.get(bytes).copied(),
        }
    }
}

/// The bytes a byte-level token stands for, or None if it has a character outside the table.
pub fn byte_level_bytes(token: &str) -> Option<Vec<u8>> {
    token.chars().map(unicode_to_byte).collect()
}

/// For a byte vocabulary with ranks (tiktoken's), where the merge that builds each token
/// cuts it: the length of the left part, or 0 when the token has no merge (a single byte,
/// or bytes that do not end in exactly two parts).
///
/// The parts are what tiktoken's algorithm leaves when it encodes the token's bytes with
/// only the tokens ranked below it: repeatedly merge the adjacent pair forming the
/// lowest-ranked token, the leftmost on a tie. `formats/tiktoken.py` keeps the same
/// algorithm in Python (`split_by_lower_ranks`), which tests compare with this one.
pub fn recover_merge_cuts(tokens: &[(&[u8], u32)]) -> Vec<usize> {
    let ranks: FxHashMap<&[u8], u32> = tokens.iter().copied().collect();
    let mut cuts = Vec::with_capacity(tokens.len());
    // parts[i] = (start, end) in the token; pair_ranks[i]: rank of parts[i] + parts[i + 1].
    let mut parts: Vec<(usize, usize)> = Vec::new();
    let mut pair_ranks: Vec<u32> = Vec::new();
    for &(token, limit) in tokens {
        let rank_of = |start: usize, end: usize| {
            ranks
                .get(&token[start..end])
                .copied()
                .filter(|&r| r < limit)
                .unwrap_or(limit)
        };
        parts.clear();
        parts.extend((0..token.len()).map(|i| (i, i + 1)));
        pair_ranks.clear();
        pair_ranks.extend((1..parts.len()).map(|i| rank_of(i - 1, i + 1)));
        while let Some((i, &best)) = pair_ranks
            .iter()
            .enumerate()
            .min_by_key(|&(i, &rank)| (rank, i))
        {
            if best >= limit {
                break;
            }
            parts[i].1 = parts[i + 1].1;
            parts.remove(i + 1);
            pair_ranks.remove(i);
            if i > 0 {
                pair_ranks[i - 1] = rank_of(parts[i - 1].0, parts[i].1);
            }
            if i < pair_ranks.len() {
                pair_ranks[i] = rank_of(parts[i].0, parts[i + 1].1);
            }
        }
        cuts.push(if parts.len() == 2 { parts[0].1 } else { 0 });
    }
    cuts
}
