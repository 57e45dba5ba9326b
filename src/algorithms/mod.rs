//! Stage 4 — algorithms: how one pre-tokenized piece becomes token ids, each algorithm with
//! its own tables, built from the vocabulary. The pipeline (`crate::pipeline`) runs
//! whichever one the model uses on every piece; nothing here knows about texts, special
//! tokens or caches.
//!
//! - `backtrack`: BPE of ranked byte-level vocabularies found token by token (long pieces);
//! - `bpe`: initial symbols, then merges by rank (`merge`: the merge loops), with
//!   BPE-dropout as an option;
//! - `greedy`: WordPiece-style greedy longest match with a continuation prefix;
//! - `ranks`: recovering merges from a tiktoken-style ranked vocabulary;
//! - `sentencepiece`: SentencePiece's BPE (merges by entry score, byte fallback).

pub mod backtrack;
pub mod bpe;
pub mod greedy;
pub mod merge;
pub mod ranks;
pub mod sentencepiece;

use crate::error::Error;
use crate::rng::SplitMix64;

/// Two adjacent symbol ids.
pub type Pair = (u32, u32);

pub use crate::vocab::Vocab;

/// What to do with a character that has no initial symbol (classic models).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unknown {
    Unk(u32),
    Error,
}

/// Which algorithm a model uses, with its own options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AlgorithmConfig {
    /// Apply merges by rank (standard BPE).
    Bpe { merge_rule: bpe::MergeRule },
    /// Greedy longest match against the vocabulary at each position; pieces after the
    /// first of a word use their continuation form, `prefix` + token.
    Greedy { prefix: String },
    /// SentencePiece BPE: built from its model file (`Tokenizer::from_sentencepiece`).
    SentencePiece,
}

/// An algorithm with its tables. One per tokenizer, so the size of the BPE variant (its
/// byte tables inline) costs nothing, and boxing it would add a load per piece.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)]
pub enum Algorithm {
    Bpe(bpe::Bpe),
    Greedy(greedy::Greedy),
    SentencePiece(sentencepiece::SentencePieceBpe),
}

impl Algorithm {
    /// Appends the ids of one piece.
    #[inline]
    pub fn encode_word(&self, piece: &str, out: &mut Vec<u32>) -> Result<(), UnknownChar> {
        match self {
            Algorithm::Bpe(bpe) => bpe.encode_word(piece, out),
            Algorithm::Greedy(greedy) => greedy.encode_word(piece, out),
            Algorithm::SentencePiece(sp) => sp.encode_word(piece, out),
        }
    }

    /// `encode_word` with BPE-dropout at rate `p` (greedy matching has no dropout).
    pub fn encode_word_dropout(
        &self,
        piece: &str,
        out: &mut Vec<u32>,
        p: f64,
        rng: &mut SplitMix64,
    ) -> Result<(), UnknownChar> {
        match self {
            Algorithm::Bpe(bpe) => bpe.encode_word_dropout(piece, out, p, rng),
            Algorithm::Greedy(greedy) => greedy.encode_word(piece, out),
            Algorithm::SentencePiece(sp) => sp.encode_word(piece, out),
        }
    }

    pub fn greedy(&self) -> Option<&greedy::Greedy> {
        match self {
            Algorithm::Greedy(greedy) => Some(greedy),
            Algorithm::Bpe(_) | Algorithm::SentencePiece(_) => None,
        }
    }

    pub fn sentencepiece(&self) -> Option<&sentencepiece::SentencePieceBpe> {
        match self {
            Algorithm::SentencePiece(sp) => Some(sp),
            _ => None,
        }
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
    pub fn into_error(self, text: &str, piece_offset: usize) -> Error {
        let byte = piece_offset + self.byte;
        let at = text.get(..byte).map_or(0, |s| s.chars().count());
        Error::invalid(format!(
            "unknown character {:?} (U+{:04X}) at character {at}: it is not in the \
             vocabulary; encode with unknown=\"unk\" to map it to the unknown token",
            self.c, self.c as u32
        ))
    }
}
