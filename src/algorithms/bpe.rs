//! Byte Pair Encoding applied to one piece: its initial symbol ids (characters, or bytes
//! through the bytes-to-unicode table, with the end-of-word symbol), then merges by rank
//! (`merge.rs`) until none applies. Tables are built once from the vocabulary and the merge
//! list (or the token ranks) and never change, so one `Bpe` serves all threads.

use std::sync::{Arc, Mutex, OnceLock};

use rustc_hash::FxHashMap;

use super::backtrack::Backtrack;
use super::merge::{
    apply_merges_from, merge_heap_dropout, BytePairMerges, MergeTable, HEAP_MAX, LINEAR_MAX,
};
use super::ranks::ranked_merges;
use super::{Unknown, UnknownChar, Vocab};
use crate::error::{Error, Result};
use crate::rng::SplitMix64;
use crate::symbols::{byte_to_unicode, unicode_to_byte, EndOfWord, Kind, SymbolRules};
use crate::vocab::TokenBytes;

/// How merges are looked up when applying.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeRule {
    /// The merge list: pair (a, b) has the rank of its line (GPT-2, HF, subword-nmt).
    Merges,
    /// Token ranks: any adjacent pair whose concatenation is a token merges, ranked by that
    /// token's id (tiktoken).
    Ranks,
}

const NONE: u32 = u32::MAX;

/// Parts of long pieces longer than this many bytes are encoded by backtracking when the
/// model allows (shorter ones merge faster, with a heap: docs/performance.md#backtracking).
const BACKTRACK_MIN: usize = HEAP_MAX;

#[derive(Debug, Clone)]
pub struct Bpe {
    /// (left, right) → (rank, merged id).
    pub merges: MergeTable,
    rules: SymbolRules,
    unknown: Unknown,
    /// Initial symbol ids: characters (classic) or bytes (byte-level), plain and as the
    /// last symbol of a word in attached end-of-word mode.
    char_ids: FxHashMap<char, u32>,
    char_end_ids: FxHashMap<char, u32>,
    byte_ids: [u32; 256],
    byte_end_ids: [u32; 256],
    end_id: Option<u32>,
    /// Attached end-of-word: the unknown token's end form (`<unk></w>`), for an unknown
    /// character that ends a word, so that decoding keeps the word's end. Vocabularies
    /// without it (HF files, whose BPE gives the plain unknown token there) use `<unk>`.
    unknown_end: Option<u32>,
    /// Byte-level models: the byte pairs some token contains, where long pieces cannot be
    /// cut (`merge_long_piece`).
    joined_bytes: Option<BytePairs>,
    /// Ranked byte-level models: long pieces are encoded by backtracking (`backtrack.rs`),
    /// in linear time and bounded memory, when the vocabulary allows it.
    backtrack: Option<Arc<LazyBacktrack>>,
}

/// The backtracking tables, built when a long piece first needs them: building takes tens
/// of milliseconds for a 200k-token vocabulary, which loading should not pay for models
/// that never see a long piece. Clones of a model share one build.
#[derive(Debug)]
struct LazyBacktrack {
    tables: OnceLock<Option<Backtrack>>,
    /// For the short parts of long pieces; built on their first use (a few milliseconds).
    byte_pairs: OnceLock<BytePairMerges>,
    /// Held by the thread building either table (see `built`).
    building: Mutex<()>,
    token_bytes: Arc<TokenBytes>,
    /// Ids with bytes that are not tokens of the vocabulary (special tokens), sorted.
    not_tokens: Vec<u32>,
}

impl LazyBacktrack {
    fn get(&self, merges: &MergeTable) -> Option<&Backtrack> {
        built(&self.tables, &self.building, || {
            let tokens = self
                .token_bytes
                .iter()
                .enumerate()
                .filter_map(|(id, bytes)| {
                    let id = u32::try_from(id).ok()?;
                    let token = !bytes.is_empty() && self.not_tokens.binary_search(&id).is_err();
                    token.then_some((id, bytes))
                });
            Backtrack::new(tokens, self.token_bytes.len(), merges)
        })
        .and_then(Option::as_ref)
    }

    fn byte_pairs(&self, merges: &MergeTable, byte_ids: &[u32; 256]) -> Option<&BytePairMerges> {
        built(&self.byte_pairs, &self.building, || {
            BytePairMerges::new(merges, byte_ids)
        })
    }
}

/// `cell`'s value, built by this thread unless another one is building it (then `None`,
/// and the caller merges as it would without the table). Never waits: in a process forked
/// while another thread was building, the cell would stay "being built" forever.
fn built<'a, T>(
    cell: &'a OnceLock<T>,
    building: &Mutex<()>,
    build: impl FnOnce() -> T,
) -> Option<&'a T> {
    if let Some(value) = cell.get() {
        return Some(value);
    }
    let _only_builder = building.try_lock().ok()?;
    Some(cell.get_or_init(build))
}

/// Where a model's merge table comes from.
pub enum Merges<'a> {
    /// Merges in rank order (`MergeRule::Merges`); none under `MergeRule::Ranks`, whose
    /// table is then found from the vocabulary.
    Listed(&'a [(String, String)]),
    /// The table, already found (`MergeRule::Ranks`, from the tokens' bytes).
    Found(MergeTable),
}

impl Bpe {
    /// The tables for `vocab` and `merges`.
    /// `token_bytes` (id → the bytes the token decodes to) covers tokens outside the
    /// byte table when finding the byte pairs tokens contain; `not_tokens` are the ids in
    /// it that are not in `vocab` (special tokens).
    pub fn new(
        vocab: &Vocab,
        merges: Merges<'_>,
        merge_rule: MergeRule,
        rules: &SymbolRules,
        unknown: Unknown,
        token_bytes: &Arc<TokenBytes>,
        mut not_tokens: Vec<u32>,
    ) -> Result<Self> {
        let (merges, joined) = crate::threads::beside(
            vocab.len(),
            || match merges {
                Merges::Listed(merges) => build_merges(vocab, merges, merge_rule),
                Merges::Found(table) => Ok(table),
            },
            || (rules.kind == Kind::Byte).then(|| joined_bytes(vocab, token_bytes)),
        );
        let mut bpe = Bpe {
            merges: merges?,
            rules: rules.clone(),
            unknown,
            char_ids: FxHashMap::default(),
            char_end_ids: FxHashMap::default(),
            byte_ids: [NONE; 256],
            byte_end_ids: [NONE; 256],
            end_id: None,
            unknown_end: None,
            joined_bytes: joined,
            backtrack: None,
        };
        bpe.build_initial_ids(vocab)?;
        if merge_rule == MergeRule::Ranks
            && rules.kind == Kind::Byte
            && rules.end_of_word == EndOfWord::None
        {
            not_tokens.sort_unstable();
            bpe.backtrack = Some(Arc::new(LazyBacktrack {
                tables: OnceLock::new(),
                byte_pairs: OnceLock::new(),
                building: Mutex::new(()),
                token_bytes: Arc::clone(token_bytes),
                not_tokens,
            }));
        }
        Ok(bpe)
    }

    fn build_initial_ids(&mut self, vocab: &Vocab) -> Result<()> {
        let eow = self.rules.end_of_word_symbol.clone();
        let attached = self.rules.end_of_word == EndOfWord::Attached;
        if self.rules.end_of_word == EndOfWord::Separate {
            self.end_id = Some(*vocab.get(&eow).ok_or_else(|| {
                Error::invalid(format!(
                    "the end-of-word symbol {eow:?} is not in the vocabulary"
                ))
            })?);
        }
        match self.rules.kind {
            Kind::Classic => {
                if let (true, Unknown::Unk(unk)) = (attached, self.unknown) {
                    self.unknown_end = vocab
                        .iter()
                        .find(|(_, &id)| id == unk)
                        .and_then(|(token, _)| vocab.get(&format!("{token}{eow}")))
                        .copied();
                }
                for (token, &id) in vocab.iter() {
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
            Kind::Byte => {
                for (b, c) in byte_to_unicode().iter().enumerate() {
                    let symbol = c.to_string();
                    self.byte_ids[b] = *vocab.get(&symbol).ok_or_else(|| {
                        Error::invalid(format!(
                            "the byte-level vocabulary has no token for byte {b:#04x} ({symbol:?})"
                        ))
                    })?;
                    if attached {
                        let end = format!("{symbol}{eow}");
                        self.byte_end_ids[b] = *vocab.get(&end).ok_or_else(|| {
                            Error::invalid(format!(
                                "the byte-level vocabulary has no token {end:?} for byte {b:#04x} \
                                 at the end of a word"
                            ))
                        })?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Encodes one piece, appending its ids.
    #[inline]
    pub fn encode_word(
        &self,
        piece: &str,
        out: &mut Vec<u32>,
    ) -> std::result::Result<(), UnknownChar> {
        if let (Some(lazy), Some(joined)) = (&self.backtrack, &self.joined_bytes) {
            if piece.len() > LINEAR_MAX {
                self.encode_long_ranked(piece.as_bytes(), lazy, joined, out);
                return Ok(());
            }
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

    /// A long piece of a ranked byte-level model (one byte, one symbol; no end of word): cut
    /// where no token joins two bytes, as `merge_long_piece` does, but with no symbol array
    /// for the whole piece, so memory is the output's. Short parts merge; long ones (runs of
    /// one letter, of spaces) are found by backtracking, in linear time.
    fn encode_long_ranked(
        &self,
        bytes: &[u8],
        lazy: &LazyBacktrack,
        joined: &BytePairs,
        out: &mut Vec<u32>,
    ) {
        let mut from = 0;
        for i in 1..=bytes.len() {
            if i < bytes.len() && joined.contains(bytes[i - 1], bytes[i]) {
                continue;
            }
            let part = &bytes[from..i];
            from = i;
            if part.len() > BACKTRACK_MIN {
                if let Some(bt) = lazy.get(&self.merges) {
                    if bt.encode(&self.merges, part, out) {
                        continue;
                    }
                }
            }
            let byte_pairs = match part.len() {
                0..=HEAP_MAX => lazy.byte_pairs(&self.merges, &self.byte_ids),
                _ => None,
            };
            if let Some(byte_pairs) = byte_pairs {
                byte_pairs.merge_bytes(&self.merges, &self.byte_ids, part, out);
            } else {
                let at = out.len();
                out.extend(part.iter().map(|&b| self.byte_ids[b as usize]));
                apply_merges_from(&self.merges, out, at);
            }
        }
    }

    #[cfg(test)]
    pub(crate) fn merge_table(&self) -> &MergeTable {
        &self.merges
    }

    /// Whether long pieces are encoded by backtracking (building its tables if needed).
    pub fn backtracks(&self) -> bool {
        (self.backtrack.as_deref()).is_some_and(|b| b.get(&self.merges).is_some())
    }

    /// Merges a long byte-level piece whose initial symbols are `out[start..]`, one byte
    /// each (plus an end-of-word symbol in some models). Between two bytes that no token
    /// contains side by side no merge can ever happen, so the piece is cut there and each
    /// part merged alone: the result is the same, and a long piece costs like many short
    /// ones (why: docs/performance.md#encoding; text with no cut still takes the heap).
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

    /// Encodes one piece with BPE-dropout: each merge is skipped with probability `p` when
    /// its turn comes (skipped merges may apply later, once a neighbour changed).
    pub fn encode_word_dropout(
        &self,
        piece: &str,
        out: &mut Vec<u32>,
        p: f64,
        rng: &mut SplitMix64,
    ) -> std::result::Result<(), UnknownChar> {
        let start = out.len();
        self.initial_ids(piece, out)?;
        let mut word: Vec<u32> = out.drain(start..).collect();
        merge_heap_dropout(&self.merges, &mut word, p, rng);
        out.extend_from_slice(&word);
        Ok(())
    }

    /// The initial symbol ids of a piece.
    pub fn initial_ids(
        &self,
        piece: &str,
        out: &mut Vec<u32>,
    ) -> std::result::Result<(), UnknownChar> {
        let attached = self.rules.end_of_word == EndOfWord::Attached;
        match self.rules.kind {
            Kind::Byte => {
                let bytes = piece.as_bytes();
                out.extend(bytes.iter().map(|&b| self.byte_ids[b as usize]));
                if attached && !bytes.is_empty() {
                    let last = out.len() - 1;
                    out[last] = self.byte_end_ids[bytes[bytes.len() - 1] as usize];
                }
            }
            Kind::Classic => {
                let last = piece.char_indices().last().map_or(0, |(b, _)| b);
                for (byte, c) in piece.char_indices() {
                    let table = if attached && byte == last {
                        &self.char_end_ids
                    } else {
                        &self.char_ids
                    };
                    match (table.get(&c), self.unknown) {
                        (Some(&id), _) => out.push(id),
                        (None, Unknown::Unk(id)) => match self.unknown_end {
                            Some(end) if attached && byte == last => out.push(end),
                            _ => out.push(id),
                        },
                        (None, Unknown::Error) => return Err(UnknownChar { byte, c }),
                    }
                }
            }
        }
        if self.rules.end_of_word == EndOfWord::Separate {
            // Models are checked to hold their end-of-word symbol when built.
            out.extend(self.end_id);
        }
        Ok(())
    }
}

/// The merge table under `rule`.
fn build_merges(vocab: &Vocab, merges: &[(String, String)], rule: MergeRule) -> Result<MergeTable> {
    Ok(match rule {
        MergeRule::Merges => {
            let mut table = MergeTable::default();
            for (rank, (a, b)) in merges.iter().enumerate() {
                let line = rank + 1;
                let id = |s: &str| {
                    vocab.get(s).copied().ok_or_else(|| {
                        Error::invalid(format!(
                            "merge {line} ({a:?} {b:?}): {s:?} is not in the vocabulary"
                        ))
                    })
                };
                let pair = (id(a)?, id(b)?);
                let merged = id(&format!("{a}{b}"))?;
                table.entry(pair).or_insert((rank as u32, merged));
            }
            table
        }
        MergeRule::Ranks => {
            // Each split at a character boundary into two names, looked up as strings.
            let tokens: Vec<(&str, u32)> = vocab.iter().map(|(t, &id)| (t, id)).collect();
            ranked_merges(tokens.len(), |i, found| {
                let (token, id) = tokens[i];
                for (cut, _) in token.char_indices().skip(1) {
                    let (a, b) = token.split_at(cut);
                    // The right part is looked up only when the left one is a token
                    // (each lookup in a 200k-token table is a cache miss).
                    let Some(&ia) = vocab.get(a) else { continue };
                    if let Some(&ib) = vocab.get(b) {
                        found.push(((ia, ib), id));
                    }
                }
            })
        }
    })
}

/// Every byte pair inside a token's bytes (a CLIP token "ab</w>" gives "ab", "b<", ...:
/// extra pairs only mean fewer cuts, never a wrong one).
fn joined_bytes(vocab: &Vocab, token_bytes: &TokenBytes) -> BytePairs {
    let mut pairs = BytePairs::default();
    for (token, &id) in vocab.iter() {
        // The token's bytes through the byte table, with no allocation per token.
        let mut previous = None;
        let mut in_table = true;
        for c in token.chars() {
            let Some(b) = unicode_to_byte(c) else {
                in_table = false;
                break;
            };
            if let Some(a) = previous {
                pairs.insert(a, b);
            }
            previous = Some(b);
        }
        if !in_table {
            for pair in token_bytes[id as usize].windows(2) {
                pairs.insert(pair[0], pair[1]);
            }
        }
    }
    pairs
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_another_thread_builds_is_not_waited_for() {
        let cell = OnceLock::new();
        let building = Mutex::new(());
        let held = building.lock();
        assert_eq!(built(&cell, &building, || 1), None);
        drop(held);
        assert_eq!(built(&cell, &building, || 2), Some(&2));
        assert_eq!(built(&cell, &building, || 3), Some(&2));
    }
}
