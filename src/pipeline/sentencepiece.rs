//! A tokenizer for a SentencePiece BPE model: its normalizer, pieces cut at spaces where the
//! model allows, its merge rule, and its decoding (a space in front of the first word is the
//! one the normalizer added, and goes).

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::cache::new_owner;
use super::offsets::{to_char_spans, Span};
use super::specials::{Part, SpecialMatcher};
use super::PieceIds;
use super::{Tokenizer, TokenizerConfig};
use crate::algorithms::sentencepiece::SentencePieceBpe;
use crate::algorithms::{Algorithm, AlgorithmConfig, Unknown, Vocab};
use crate::error::{Error, Result};
use crate::formats::sentencepiece::{byte_value, PieceType, SentencePieceModel};
use crate::normalize::sentencepiece::{SentencePieceNormalizer, SPACE_SYMBOL};
use crate::normalize::Normalizer;
use crate::pretokenize::PreTokenizer;
use crate::symbols::{EndOfWord, Kind, SymbolRules};
use crate::vocab::{TokenBytes, TokenNames};

/// What decoding does with a leading `▁`, the space the normalizer puts in front.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeadingSpace {
    /// Kept (not a SentencePiece model, or one that adds no space).
    Keep,
    /// Dropped from the first piece that is not a control token.
    FirstPiece,
    /// Dropped from each piece while nothing has been decoded (the normalizer also drops
    /// leading spaces of the text).
    WhileEmpty,
}

impl LeadingSpace {
    pub fn name(self) -> &'static str {
        match self {
            LeadingSpace::Keep => "keep",
            LeadingSpace::FirstPiece => "first_piece",
            LeadingSpace::WhileEmpty => "while_empty",
        }
    }
}

impl Tokenizer {
    /// Control pieces (`<s>`, `</s>`, `[INST]`, ...) are the special tokens; every other
    /// piece is in the vocabulary.
    pub fn from_sentencepiece(model: &SentencePieceModel) -> Result<Self> {
        let user_defined: Vec<&str> = model
            .pieces
            .iter()
            .filter(|p| p.kind == PieceType::UserDefined)
            .map(|p| p.text.as_str())
            .collect();
        let normalizer = SentencePieceNormalizer::new(&model.normalizer, &user_defined)?;
        let algorithm = SentencePieceBpe::new(model)?;
        let config = TokenizerConfig {
            normalizer: Normalizer {
                sentencepiece: Some(Arc::new(normalizer)),
                ..Normalizer::default()
            },
            pre_tokenizer: PreTokenizer::Metaspace {
                cut: SentencePieceBpe::cuts_at_spaces(model),
            },
            rules: SymbolRules {
                kind: Kind::Classic,
                end_of_word: EndOfWord::None,
                end_of_word_symbol: String::new(),
            },
            ignore_merges: false,
            unknown: Unknown::Unk(0),
            algorithm: AlgorithmConfig::SentencePiece,
            specials_in_pattern: false,
        };
        let mut tokens = TokenNames::with_capacity(model.pieces.len(), 0);
        let mut token_bytes = TokenBytes::with_capacity(model.pieces.len(), 0);
        let mut vocab = Vocab::default();
        let mut specials = Vec::new();
        for (id, piece) in model.pieces.iter().enumerate() {
            let id = id as u32;
            tokens.push(&piece.text);
            match piece.kind {
                PieceType::Control => token_bytes.push(b""),
                PieceType::Unknown => token_bytes.push(model.unk_surface.as_bytes()),
                PieceType::Byte => token_bytes.push(byte_value(&piece.text).as_slice()),
                _ => token_bytes.push(piece.text.replace(SPACE_SYMBOL, " ").as_bytes()),
            }
            if piece.kind == PieceType::Control {
                specials.push((piece.text.clone(), id));
            } else {
                vocab.insert(&piece.text, id);
            }
        }
        let mut config = config;
        if let Some(unk) = model
            .pieces
            .iter()
            .position(|p| p.kind == PieceType::Unknown)
        {
            config.unknown = Unknown::Unk(unk as u32);
        }
        Ok(Tokenizer {
            config,
            tokens,
            vocab,
            specials,
            algorithm: Algorithm::SentencePiece(algorithm),
            piece_ids: PieceIds::default(),
            special_pieces: FxHashMap::default(),
            token_bytes: Arc::new(token_bytes),
            cache_owner: new_owner(),
        })
    }

    /// How decoding treats the `▁` in front of the first word (SentencePiece's rule).
    pub fn leading_space(&self) -> LeadingSpace {
        match self.config.normalizer.sentencepiece.as_ref() {
            Some(n) if n.removes_extra_whitespace() => LeadingSpace::WhileEmpty,
            Some(n) if n.adds_dummy_prefix() => LeadingSpace::FirstPiece,
            _ => LeadingSpace::Keep,
        }
    }

    /// Whether token `id` is an ordinary piece whose text starts with `▁`: the piece whose
    /// leading space decoding drops when nothing came before it.
    pub(super) fn starts_with_space_symbol(&self, id: u32) -> bool {
        let token = &self.tokens[id as usize];
        token.starts_with(SPACE_SYMBOL)
            && self
                .token_bytes
                .get(id as usize)
                .is_some_and(|b| b.first() == Some(&b' '))
    }

    /// `encode_with_offsets` for SentencePiece: each token's span in the normalized text,
    /// taken back to the original through the normalizer's alignment (the first `▁` belongs
    /// to the first word; text the normalizer dropped belongs to no token).
    pub(super) fn sentencepiece_offsets(
        &self,
        text: &str,
        specials: Option<&SpecialMatcher>,
    ) -> Result<(Vec<u32>, Vec<Span>)> {
        let (Some(normalizer), Some(sp)) = (
            self.config.normalizer.sentencepiece.as_ref(),
            self.algorithm.sentencepiece(),
        ) else {
            return Err(Error::invalid("not a SentencePiece model"));
        };
        let mut normalized = String::with_capacity(text.len() + 8);
        let mut origin = Vec::with_capacity(text.len() + 8);
        normalizer.normalize_into(text, &mut normalized, Some(&mut origin));
        let base = normalized.as_ptr() as usize;
        let mut ids = Vec::new();
        let mut spans: Vec<Span> = Vec::new();
        let ordinary = |part: &str, ids: &mut Vec<u32>, spans: &mut Vec<Span>| {
            self.config.pre_tokenizer.for_each_piece(part, |piece| {
                let offset = piece.as_ptr() as usize - base;
                let first = spans.len();
                sp.encode_with_spans(piece, ids, Some(spans));
                for span in &mut spans[first..] {
                    *span = (span.0 + offset, span.1 + offset);
                }
            })
        };
        match specials {
            None => ordinary(&normalized, &mut ids, &mut spans)?,
            Some(matcher) => matcher.for_each_part(&normalized, |part| match part {
                Part::Ordinary(part) => ordinary(part, &mut ids, &mut spans),
                Part::Special(id) => {
                    // Where it was found: right after what came before.
                    let at = spans.last().map_or(0, |s| s.1);
                    let at = normalized[at..]
                        .find(&self.tokens[id as usize])
                        .map_or(at, |k| at + k);
                    ids.push(id);
                    spans.push((at, at + self.tokens[id as usize].len()));
                    Ok(())
                }
            })?,
        }
        for span in &mut spans {
            let at = |k: usize| origin.get(k).copied().unwrap_or(text.len());
            *span = (at(span.0), at(span.1));
        }
        to_char_spans(text, &mut spans);
        Ok((ids, spans))
    }
}
