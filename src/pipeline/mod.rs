//! The pipeline: a tokenizer's stages around its algorithm. Encoding is normalize →
//! special tokens (`specials`) → pre-tokenize → per piece: the piece cache (`cache`), or
//! whole-piece tokens, or the algorithm (`crate::algorithms`) → ids (`encode`); decoding
//! turns ids back into bytes (`decode`).
//!
//! A `Tokenizer` is built once from plain data (token → id, merges in rank order, special
//! tokens) and is immutable afterwards, so one serves all threads.

pub mod cache;
mod count;
mod decode;
mod encode;
pub mod offsets;
mod sentencepiece;
pub use sentencepiece::LeadingSpace;
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
use cache::{new_owner, PieceIds};

pub use encode::{Runs, PARALLEL_MIN_BYTES};
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
    pub tokens: Vec<String>,
    pub vocab: Vocab,
    /// Special tokens: literal text → id, matched before pre-tokenization.
    pub specials: Vec<(String, u32)>,
    pub algorithm: Algorithm,
    /// Whole pieces that are tokens, by their text, for `ignore_merges`.
    pub(crate) piece_ids: PieceIds,
    /// Pieces that are special tokens, when `specials_in_pattern`.
    pub(crate) special_pieces: FxHashMap<String, u32>,
    /// id → the text bytes it decodes to (end-of-word markers become a space).
    pub(crate) token_bytes: Arc<Vec<Vec<u8>>>,
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
                    Some(KnownParts { mut bytes, pieces }) if bytes.len() <= size => {
                        bytes.resize(size, Vec::new());
                        for (token, id) in &specials {
                            bytes[*id as usize] = token.as_bytes().to_vec();
                        }
                        (bytes, pieces)
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
        ranks: Vec<(Vec<u8>, u32)>,
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
                    (name, *rank)
                })
                .collect()
        };
        // The bytes `decode::token_bytes` would give, moved rather than decoded again: with no
        // end-of-word symbol a byte-level token decodes to its own bytes. (Ranks past the
        // id limit are left to `build`, which refuses them before allocating.)
        let size = ranks
            .iter()
            .map(|(_, r)| *r as usize + 1)
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
                for (bytes, rank) in &ranks {
                    pieces.insert(bytes, *rank);
                }
                pieces
            })
        };
        let (vocab, pieces) = crate::threads::beside(ranks.len(), names, pieces);
        let known = known.then(|| {
            let mut bytes = vec![Vec::new(); size];
            for (token, rank) in ranks {
                bytes[rank as usize] = token;
            }
            KnownParts { bytes, pieces }
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
    bytes: Vec<Vec<u8>>,
    pieces: Option<PieceIds>,
}

impl KnownParts {
    /// The merge table under tiktoken's rule, found from the bytes: the whole-piece table
    /// looks up each cut's sides, most of them by one integer key instead of a string.
    fn merges(&self) -> Option<MergeTable> {
        let pieces = self.pieces.as_ref()?;
        // Ids are indices here; an unused id's bytes are empty and have no cut.
        Some(ranked_merges(&self.bytes, |id, bytes, found| {
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

/// id → name for every id below `size` (empty for unused ids), and name → id for `vocab`
/// (not the special tokens): the two tables of names every model has.
fn index_names(
    vocab: Vec<(String, u32)>,
    specials: &[(String, u32)],
    size: usize,
) -> Result<(Vec<String>, Vocab)> {
    let mut tokens = vec![String::new(); size];
    let mut map = Vocab::default();
    map.reserve(vocab.len());
    for (token, id) in vocab {
        if !tokens[id as usize].is_empty() {
            return Err(Error::invalid(format!(
                "id {id} is given to two tokens: {:?} and {token:?}",
                tokens[id as usize]
            )));
        }
        tokens[id as usize] = token.clone();
        if let Some(other) = map.insert(token, id) {
            let token = &tokens[id as usize];
            return Err(Error::invalid(format!(
                "token {token:?} appears twice in the vocabulary (ids {other} and {id})"
            )));
        }
    }
    for (token, id) in specials {
        tokens[*id as usize] = token.clone();
    }
    Ok((tokens, map))
}

/// Whole pieces that are tokens (`ignore_merges`), by their bytes.
fn whole_pieces(config: &TokenizerConfig, map: &Vocab, token_bytes: &[Vec<u8>]) -> PieceIds {
    let mut piece_ids = PieceIds::default();
    let rules = &config.rules;
    if config.ignore_merges && rules.kind == Kind::Byte && rules.end_of_word != EndOfWord::Attached
    {
        piece_ids.reserve(map.len());
        for (token, &id) in map {
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
