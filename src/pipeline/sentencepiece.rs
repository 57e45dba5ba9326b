//! A tokenizer for a SentencePiece BPE model: its normalizer, pieces cut at spaces where the
//! model allows, its merge rule, and its decoding (a space in front of the first word is the
//! one the normalizer added, and goes).

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::cache::{new_owner, PieceIds};
use super::{Tokenizer, TokenizerConfig};
use crate::algorithms::sentencepiece::SentencePieceBpe;
use crate::algorithms::{Algorithm, AlgorithmConfig, Unknown, Vocab};
use crate::error::Result;
use crate::formats::sentencepiece::{byte_value, PieceType, SentencePieceModel};
use crate::normalize::sentencepiece::{SentencePieceNormalizer, SPACE_SYMBOL};
use crate::normalize::Normalizer;
use crate::pretokenize::PreTokenizer;
use crate::symbols::{EndOfWord, Kind, SymbolRules};

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
        let mut tokens = Vec::with_capacity(model.pieces.len());
        let mut token_bytes = Vec::with_capacity(model.pieces.len());
        let mut vocab = Vocab::default();
        let mut specials = Vec::new();
        for (id, piece) in model.pieces.iter().enumerate() {
            let id = id as u32;
            tokens.push(piece.text.clone());
            token_bytes.push(match piece.kind {
                PieceType::Control => Vec::new(),
                PieceType::Unknown => model.unk_surface.as_bytes().to_vec(),
                PieceType::Byte => byte_value(&piece.text).map(|b| vec![b]).unwrap_or_default(),
                _ => piece.text.replace(SPACE_SYMBOL, " ").into_bytes(),
            });
            if piece.kind == PieceType::Control {
                specials.push((piece.text.clone(), id));
            } else {
                vocab.insert(piece.text.clone(), id);
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
            token_bytes,
            cache_owner: new_owner(),
        })
    }

    /// Whether decoding drops the space in front of the first word: it is the one the
    /// normalizer added (SentencePiece drops it when the model adds a dummy prefix or
    /// removes extra whitespace).
    pub(super) fn strips_leading_space(&self) -> bool {
        self.config
            .normalizer
            .sentencepiece
            .as_ref()
            .is_some_and(|n| n.strips_leading_space())
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
}
