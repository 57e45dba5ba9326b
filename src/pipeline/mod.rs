//! The pipeline: a tokenizer's stages around its algorithm. Encoding is normalize →
//! special tokens (`specials`) → pre-tokenize → per piece: the piece cache (`cache`), or
//! whole-piece tokens, or the algorithm (`crate::algorithms`) → ids (`encode`); decoding
//! turns ids back into bytes (`decode`).
//!
//! A `Tokenizer` is built once from plain data (token → id, merges in rank order, special
//! tokens) and is immutable afterwards, so one serves all threads.

mod arriving;
mod batch;
pub mod cache;
mod count;
mod decode;
mod encode;
pub mod offsets;
mod sentencepiece;
pub use sentencepiece::LeadingSpace;
#[cfg(test)]
mod batch_tests;
pub mod specials;
mod stream;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::algorithms::bpe::{Bpe, MergeRule, Merges};
use crate::algorithms::greedy::Greedy;
use crate::algorithms::merge::MergeTable;
use crate::algorithms::ranks::ranked_merges;
use crate::algorithms::{Algorithm, AlgorithmConfig, Unknown, Vocab};
use crate::error::{Error, Result};
use crate::normalize::Normalizer;
use crate::pretokenize::PreTokenizer;
use crate::symbols::{
    byte_level_bytes, byte_to_unicode, unicode_to_byte, EndOfWord, Kind, SymbolRules,
};
use crate::vocab::{BytesIndex, Ranks, TokenBytes, TokenNames};
use cache::{new_owner, short_key};

pub use arriving::Arriving;
pub use batch::{Runs, PARALLEL_MIN_BYTES};
pub use specials::SpecialMatcher;

#[derive(Debug, Clone)]
pub struct TokenizerConfig {
    pub normalizer: Normalizer,
    pub pre_tokenizer: PreTokenizer,
    pub rules: SymbolRules,
    /// A piece that is itself a token is encoded whole, before any merge (tiktoken).
    pub ignore_merges: bool,
    pub unknown: Unknown,
    pub algorithm: AlgorithmConfig,
    /// Special tokens are recognised as whole pieces of the pre-tokenizer (CLIP), not
    /// split off before it.
    pub specials_in_pattern: bool,
}

#[derive(Debug, Clone)]
pub struct Tokenizer {
    pub config: TokenizerConfig,
    /// id → token string (empty for unused ids).
    pub tokens: TokenNames,
    pub vocab: Vocab,
    /// Special tokens: literal text → id, matched before pre-tokenization.
    pub specials: Vec<(String, u32)>,
    pub algorithm: Algorithm,
    /// Whole pieces that are tokens, by their text, for `ignore_merges`.
    pub(crate) piece_ids: PieceIds,
    /// Pieces that are special tokens, when `specials_in_pattern`.
    pub(crate) special_pieces: FxHashMap<String, u32>,
    /// id → the text bytes it decodes to (end-of-word markers become a space).
    pub(crate) token_bytes: Arc<TokenBytes>,
    /// Identifies this tokenizer's entries in the per-thread piece caches (`cache.rs`).
    pub(crate) cache_owner: u64,
}

impl Tokenizer {
    pub fn new(
        config: TokenizerConfig,
        vocab: Vec<(String, u32)>,
        merges: &[(String, String)],
        specials: Vec<(String, u32)>,
    ) -> Result<Self> {
        Self::build(config, vocab, merges, specials, None)
    }

    /// `new`, given the bytes of the ordinary tokens by id when the caller has them (a
    /// byte-level model read from its bytes): they are not decoded again from the names.
    fn build(
        config: TokenizerConfig,
        vocab: Vec<(String, u32)>,
        merges: &[(String, String)],
        specials: Vec<(String, u32)>,
        known: Option<KnownParts>,
    ) -> Result<Self> {
        // The id → token table has max id + 1 entries: refuse ids far past the number of
        // tokens, so that a forged id cannot make it allocate gigabytes. Specials count
        // twice: files list them in their vocabulary too, and the Python check
        // (`check_ids`), which counts them so, must stay the one that speaks first.
        let entries = vocab.len() + specials.len();
        let limit = 2 * (entries + specials.len()) + 1024;
        if let Some((token, id)) = vocab
            .iter()
            .chain(&specials)
            .find(|(_, id)| *id as usize >= limit)
        {
            return Err(Error::invalid(format!(
                "token {token:?} has id {id}, too large for a model of {entries} tokens (ids \
                 must be below {limit}): the ids are wrong, or the file is not a model"
            )));
        }
        let size = vocab
            .iter()
            .chain(&specials)
            .map(|(_, id)| *id as usize + 1)
            .max()
            .unwrap_or(0);
        // A byte-level model read from its bytes finds its merge table from them while the
        // names are indexed (docs/performance.md#loading).
        let ranked = matches!(
            config.algorithm,
            AlgorithmConfig::Bpe {
                merge_rule: MergeRule::Ranks
            }
        );
        let (found, names) = crate::threads::beside(
            vocab.len(),
            || {
                known
                    .as_ref()
                    .filter(|_| ranked)
                    .and_then(KnownParts::merges)
            },
            || index_names(vocab, &specials, size),
        );
        let (tokens, map) = names?;
        let (algorithm, token_bytes, piece_ids) = match &config.algorithm {
            AlgorithmConfig::Greedy { prefix } => {
                let greedy = Greedy::new(&map, size, prefix, &config.rules, config.unknown)?;
                let bytes = decode::token_bytes(&tokens, &specials, &config.rules, Some(&greedy));
                let pieces = whole_pieces(&config, &map, &bytes);
                (Algorithm::Greedy(greedy), Arc::new(bytes), pieces)
            }
            AlgorithmConfig::SentencePiece => {
                return Err(Error::invalid(
                    "a SentencePiece model is built from its model file",
                ))
            }
            AlgorithmConfig::Bpe { merge_rule } => {
                let (bytes, known_pieces) = match known {
                    Some(KnownParts { bytes, pieces }) if bytes.len() <= size => {
                        (with_specials(bytes, &specials, size), pieces)
                    }
                    _ => (
                        decode::token_bytes(&tokens, &specials, &config.rules, None),
                        None,
                    ),
                };
                let bytes = Arc::new(bytes);
                let not_tokens = specials
                    .iter()
                    .filter(|(token, id)| map.get(token) != Some(id))
                    .map(|(_, id)| *id)
                    .collect();
                let merges = match found {
                    Some(table) => Merges::Found(table),
                    None => Merges::Listed(merges),
                };
                let bpe = || {
                    Bpe::new(
                        &map,
                        merges,
                        *merge_rule,
                        &config.rules,
                        config.unknown,
                        &bytes,
                        not_tokens,
                    )
                };
                let (bpe, pieces) = match known_pieces {
                    Some(pieces) => (bpe(), pieces),
                    None => crate::threads::beside(map.len(), bpe, || {
                        whole_pieces(&config, &map, &bytes)
                    }),
                };
                (Algorithm::Bpe(bpe?), bytes, pieces)
            }
        };
        let special_pieces = if config.specials_in_pattern {
            specials.iter().cloned().collect()
        } else {
            FxHashMap::default()
        };
        Ok(Tokenizer {
            config,
            tokens,
            vocab: map,
            specials,
            algorithm,
            piece_ids,
            special_pieces,
            token_bytes,
            cache_owner: new_owner(),
        })
    }

    /// A byte-level model whose ids are merge ranks (tiktoken): the tokens by their bytes,
    /// named with the GPT-2 byte table as every byte-level vocabulary here is.
    pub fn from_byte_ranks(
        config: TokenizerConfig,
        ranks: Ranks,
        specials: Vec<(String, u32)>,
    ) -> Result<Self> {
        let table = byte_to_unicode();
        let width = table.map(char::len_utf8);
        let names = || {
            ranks
                .iter()
                .map(|(bytes, rank)| {
                    let mut name =
                        String::with_capacity(bytes.iter().map(|&b| width[b as usize]).sum());
                    name.extend(bytes.iter().map(|&b| table[b as usize]));
                    (name, rank)
                })
                .collect()
        };
        // The bytes `decode::token_bytes` would give, moved rather than decoded again: with no
        // end-of-word symbol a byte-level token decodes to its own bytes. (Ranks past the
        // id limit are left to `build`, which refuses them before allocating.)
        let size = ranks
            .ranks
            .iter()
            .map(|&r| r as usize + 1)
            .max()
            .unwrap_or(0);
        let plain = config.rules.kind == Kind::Byte && config.rules.end_of_word == EndOfWord::None;
        let known = plain && size <= 2 * ranks.len() + 1024;
        // Made from the bytes alone, the whole-piece table is built while the names are;
        // `build` then finds the merge table through it while it indexes the names
        // (docs/performance.md#loading).
        let pieces = || {
            (known && config.ignore_merges).then(|| {
                let mut pieces = PieceIds::default();
                pieces.reserve(ranks.len());
                for (bytes, rank) in ranks.iter() {
                    pieces.insert(bytes, rank);
                }
                pieces
            })
        };
        let (vocab, pieces) = crate::threads::beside(ranks.len(), names, pieces);
        let known = known.then(|| KnownParts {
            bytes: ranks.tokens.into_by_id(&ranks.ranks, size),
            pieces,
        });
        Self::build(config, vocab, &[], specials, known)
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

/// What a byte-level model read from its bytes already has when it is built: each ordinary
/// token's bytes by id, and the whole-piece table when it was made from them.
struct KnownParts {
    bytes: TokenBytes,
    pieces: Option<PieceIds>,
}

impl KnownParts {
    /// The merge table under tiktoken's rule, found from the bytes: the whole-piece table
    /// looks up each cut's sides, most of them by one integer key instead of a string.
    fn merges(&self) -> Option<MergeTable> {
        let pieces = self.pieces.as_ref()?;
        // Ids are indices here; an unused id's bytes are empty and have no cut.
        Some(ranked_merges(self.bytes.len(), |id, found| {
            let bytes = &self.bytes[id];
            let id = id as u32;
            for cut in 1..bytes.len() {
                let Some(a) = pieces.get(&bytes[..cut]) else {
                    continue;
                };
                if let Some(b) = pieces.get(&bytes[cut..]) {
                    found.push(((a, b), id));
                }
            }
        }))
    }
}

/// The token bytes by id of a byte-level model read from its bytes, `size` entries, with
/// the special tokens' text at their ids (the later of two given one id).
fn with_specials(bytes: TokenBytes, specials: &[(String, u32)], size: usize) -> TokenBytes {
    if specials.is_empty() && bytes.len() == size {
        return bytes;
    }
    let mut special: Vec<(usize, &[u8])> = specials
        .iter()
        .map(|(text, id)| (*id as usize, text.as_bytes()))
        .collect();
    // Stable: of two specials with one id, the later stays the later.
    special.sort_by_key(|&(id, _)| id);
    let mut next = special.iter().peekable();
    TokenBytes::from_fn(size, |id| {
        let mut text = bytes.get(id).unwrap_or_default();
        while let Some(&(_, special)) = next.next_if(|(at, _)| *at == id) {
            text = special;
        }
        text
    })
}

/// id → name for every id below `size` (empty for unused ids), and name → id for `vocab`
/// (not the special tokens, whose names win at their ids, the later of two given one id):
/// the two tables of names every model has.
fn index_names(
    vocab: Vec<(String, u32)>,
    specials: &[(String, u32)],
    size: usize,
) -> Result<(TokenNames, Vocab)> {
    const UNUSED: u32 = u32::MAX;
    // id → the entry of `vocab` that has it.
    let mut entry = vec![UNUSED; size];
    for (i, (token, id)) in vocab.iter().enumerate() {
        let slot = &mut entry[*id as usize];
        if *slot != UNUSED {
            let other = &vocab[*slot as usize].0;
            return Err(Error::invalid(format!(
                "id {id} is given to two tokens: {other:?} and {token:?}"
            )));
        }
        *slot = i as u32;
    }
    let special: FxHashMap<u32, &str> = specials
        .iter()
        .map(|(token, id)| (*id, token.as_str()))
        .collect();
    let bytes = vocab.iter().map(|(t, _)| t.len()).sum::<usize>()
        + specials.iter().map(|(t, _)| t.len()).sum::<usize>();
    let mut names = TokenNames::with_capacity(size, bytes);
    for (id, &at) in entry.iter().enumerate() {
        match special.get(&(id as u32)) {
            Some(text) => names.push(text),
            None if at == UNUSED => names.push(""),
            None => names.push(&vocab[at as usize].0),
        }
    }
    let mut map = Vocab::default();
    map.reserve(vocab.len());
    for (token, id) in &vocab {
        if let Some(other) = map.insert(token, *id) {
            return Err(Error::invalid(format!(
                "token {token:?} appears twice in the vocabulary (ids {other} and {id})"
            )));
        }
    }
    Ok((names, map))
}

/// Whole pieces that are tokens (`ignore_merges`), by their bytes.
fn whole_pieces(config: &TokenizerConfig, map: &Vocab, token_bytes: &TokenBytes) -> PieceIds {
    let mut piece_ids = PieceIds::default();
    let rules = &config.rules;
    if config.ignore_merges && rules.kind == Kind::Byte && rules.end_of_word != EndOfWord::Attached
    {
        piece_ids.reserve(map.len());
        for (token, &id) in map.iter() {
            if !token.chars().all(|c| unicode_to_byte(c).is_some()) {
                continue;
            }
            // With no end-of-word symbol the decoded bytes are the token's own.
            match rules.end_of_word {
                EndOfWord::None => piece_ids.insert(&token_bytes[id as usize], id),
                _ => piece_ids.insert(&byte_level_bytes(token).unwrap_or_default(), id),
            }
        }
    }
    piece_ids
}

/// Whole pieces → token ids (`ignore_merges`), keyed as the cache keys them: most pieces
/// of real text are short (four bytes on average in English under cl100k), so pieces of up
/// to 7 bytes are keyed by one u64, several times cheaper to hash and compare than a slice.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PieceIds {
    short: FxHashMap<u64, u32>,
    long: BytesIndex,
}

impl PieceIds {
    /// Room for `tokens` whole pieces (o200k: a third of them over 7 bytes).
    pub fn reserve(&mut self, tokens: usize) {
        self.short.reserve(tokens);
        self.long.reserve(tokens / 3);
    }

    pub fn insert(&mut self, bytes: &[u8], id: u32) {
        match short_key(bytes) {
            Some(key) => self.short.insert(key, id),
            None => self.long.insert(bytes, id),
        };
    }

    #[inline]
    pub fn get(&self, bytes: &[u8]) -> Option<u32> {
        match short_key(bytes) {
            Some(key) => self.short.get(&key).copied(),
            None => self.long.get(bytes).copied(),
        }
    }
}
