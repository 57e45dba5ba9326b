//! SentencePiece `.model` files: a protobuf `ModelProto` (pieces with scores and types, the
//! trainer's settings, the normalizer's). Only the fields encoding needs are declared; prost
//! skips the rest. Unigram, word and char models are refused with the reason: subword does
//! BPE.

use prost::Message;

use crate::error::{Error, Location, Result};

#[derive(Clone, PartialEq, Message)]
struct ModelProto {
    #[prost(message, repeated, tag = "1")]
    pieces: Vec<PieceProto>,
    #[prost(message, optional, tag = "2")]
    trainer_spec: Option<TrainerSpec>,
    #[prost(message, optional, tag = "3")]
    normalizer_spec: Option<NormalizerSpec>,
}

#[derive(Clone, PartialEq, Message)]
struct PieceProto {
    #[prost(string, optional, tag = "1")]
    piece: Option<String>,
    #[prost(float, optional, tag = "2")]
    score: Option<f32>,
    #[prost(int32, optional, tag = "3")]
    kind: Option<i32>,
}

#[derive(Clone, PartialEq, Message)]
struct TrainerSpec {
    #[prost(int32, optional, tag = "3")]
    model_type: Option<i32>,
    #[prost(bool, optional, tag = "24")]
    treat_whitespace_as_suffix: Option<bool>,
    #[prost(bool, optional, tag = "35")]
    byte_fallback: Option<bool>,
    #[prost(string, optional, tag = "44")]
    unk_surface: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
struct NormalizerSpec {
    #[prost(string, optional, tag = "1")]
    name: Option<String>,
    #[prost(bytes = "vec", optional, tag = "2")]
    precompiled_charsmap: Option<Vec<u8>>,
    #[prost(bool, optional, tag = "3")]
    add_dummy_prefix: Option<bool>,
    #[prost(bool, optional, tag = "4")]
    remove_extra_whitespaces: Option<bool>,
    #[prost(bool, optional, tag = "5")]
    escape_whitespaces: Option<bool>,
}

/// A piece's type, as `ModelProto.SentencePiece.Type` numbers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PieceType {
    Normal,
    Unknown,
    Control,
    UserDefined,
    Unused,
    Byte,
}

impl PieceType {
    fn from_proto(value: i32) -> Option<Self> {
        Some(match value {
            1 => PieceType::Normal,
            2 => PieceType::Unknown,
            3 => PieceType::Control,
            4 => PieceType::UserDefined,
            5 => PieceType::Unused,
            6 => PieceType::Byte,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            PieceType::Normal => "normal",
            PieceType::Unknown => "unknown",
            PieceType::Control => "control",
            PieceType::UserDefined => "user_defined",
            PieceType::Unused => "unused",
            PieceType::Byte => "byte",
        }
    }

    /// Pieces that merges may build (SentencePiece keeps them in one table; the others are
    /// only looked up by id or name).
    pub fn is_mergeable(self) -> bool {
        matches!(
            self,
            PieceType::Normal | PieceType::UserDefined | PieceType::Unused
        )
    }
}

#[derive(Debug, Clone)]
pub struct Piece {
    pub text: String,
    pub score: f32,
    pub kind: PieceType,
}

/// How text is normalized before merging (`NormalizerSpec`).
#[derive(Debug, Clone)]
pub struct NormalizerSettings {
    pub name: String,
    /// A serialized double-array trie and the replacement strings (empty: no rules).
    pub charsmap: Vec<u8>,
    pub add_dummy_prefix: bool,
    pub remove_extra_whitespaces: bool,
    pub escape_whitespaces: bool,
}

/// A SentencePiece BPE model, as plain data.
#[derive(Debug, Clone)]
pub struct SentencePieceModel {
    /// By id.
    pub pieces: Vec<Piece>,
    pub byte_fallback: bool,
    /// What an unknown piece decodes to.
    pub unk_surface: String,
    pub normalizer: NormalizerSettings,
}

const UNIGRAM: i32 = 1;
const BPE: i32 = 2;

/// Reads a `.model` file's bytes; `path` names the file in errors.
pub fn read_model(data: &[u8], path: &str) -> Result<SentencePieceModel> {
    let at = || Location {
        path: Some(path.to_string()),
        ..Location::default()
    };
    let proto = ModelProto::decode(data).map_err(|e| {
        Error::format(
            format!(
                "{path}: not a SentencePiece model (its protobuf does not parse: {e}); \
                 pass a SentencePiece `.model` file"
            ),
            at(),
        )
    })?;
    let trainer = proto.trainer_spec.unwrap_or_default();
    match trainer.model_type.unwrap_or(UNIGRAM) {
        BPE => {}
        other => {
            let name = match other {
                UNIGRAM => "a Unigram",
                3 => "a word",
                4 => "a char",
                _ => "an unknown kind of",
            };
            return Err(Error::format(
                format!(
                    "{path}: this is {name} SentencePiece model (model_type {other}); subword \
                     reads SentencePiece BPE models only (model_type BPE) — load it with the \
                     sentencepiece package"
                ),
                at(),
            ));
        }
    }
    if trainer.treat_whitespace_as_suffix.unwrap_or(false) {
        return Err(Error::format(
            format!(
                "{path}: models trained with treat_whitespace_as_suffix are not supported; \
                 load it with the sentencepiece package"
            ),
            at(),
        ));
    }
    if proto.pieces.is_empty() {
        return Err(Error::format(
            format!("{path}: the model has no pieces"),
            at(),
        ));
    }
    let mut pieces = Vec::with_capacity(proto.pieces.len());
    let mut unknowns = 0;
    let mut bytes = 0;
    for (id, p) in proto.pieces.into_iter().enumerate() {
        let text = p.piece.unwrap_or_default();
        let kind_number = p.kind.unwrap_or(1);
        let kind = PieceType::from_proto(kind_number).ok_or_else(|| {
            Error::format(
                format!("{path}: piece {id} ({text:?}) has an unknown type {kind_number}"),
                at(),
            )
        })?;
        if text.is_empty() {
            return Err(Error::format(
                format!("{path}: piece {id} is empty; the file is damaged"),
                at(),
            ));
        }
        match kind {
            PieceType::Unknown => unknowns += 1,
            PieceType::Byte => {
                if byte_value(&text).is_none() {
                    return Err(Error::format(
                        format!("{path}: byte piece {id} is {text:?}, not of the form <0xNN>"),
                        at(),
                    ));
                }
                bytes += 1;
            }
            _ => {}
        }
        pieces.push(Piece {
            text,
            score: p.score.unwrap_or(0.0),
            kind,
        });
    }
    if unknowns != 1 {
        return Err(Error::format(
            format!(
                "{path}: a model needs exactly one unknown piece (<unk>); this one has {unknowns}"
            ),
            at(),
        ));
    }
    let byte_fallback = trainer.byte_fallback.unwrap_or(false);
    if byte_fallback && bytes != 256 {
        return Err(Error::format(
            format!("{path}: byte_fallback is on but the model has {bytes} byte pieces, not 256"),
            at(),
        ));
    }
    let normalizer = proto.normalizer_spec.unwrap_or_default();
    Ok(SentencePieceModel {
        pieces,
        byte_fallback,
        unk_surface: trainer
            .unk_surface
            .unwrap_or_else(|| " \u{2047} ".to_string()),
        normalizer: NormalizerSettings {
            name: normalizer.name.unwrap_or_default(),
            charsmap: normalizer.precompiled_charsmap.unwrap_or_default(),
            add_dummy_prefix: normalizer.add_dummy_prefix.unwrap_or(true),
            remove_extra_whitespaces: normalizer.remove_extra_whitespaces.unwrap_or(true),
            escape_whitespaces: normalizer.escape_whitespaces.unwrap_or(true),
        },
    })
}

/// The byte of a `<0xNN>` piece.
pub fn byte_value(piece: &str) -> Option<u8> {
    let hex = piece.strip_prefix("<0x")?.strip_suffix('>')?;
    if hex.len() != 2 {
        return None;
    }
    u8::from_str_radix(hex, 16).ok()
}
