//! subword: Byte Pair Encoding, training and applying.
//!
//! The modules follow the data path, in order:
//! normalize → pretokenize → symbols (initial symbols) → count (word table)
//! → train (learn merges) | model + merge (apply merges) + encode (→ ids, with `cache`)
//! → decode.
//! `nmt` is subword-nmt's learn-bpe, apply-bpe and get-vocab, byte-identical.
//! `compress` is the separate 1994 byte-pair compression algorithm.
//! `bindings` is the thin PyO3 layer (conversion only), built with the `python` feature.

pub mod cache;
pub mod compress;
pub mod count;
pub mod decode;
pub mod encode;
pub mod error;
pub mod merge;
pub mod model;
pub mod nmt;
pub mod normalize;
pub mod pretokenize;
pub mod symbols;
pub mod train;

#[cfg(feature = "python")]
mod bindings;
