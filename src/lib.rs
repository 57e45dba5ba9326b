//! subword: Byte Pair Encoding, training and applying.
//!
//! The modules follow the data path, in order:
//! `normalize` → `pretokenize` → `symbols` (initial symbols) → `count` (word table)
//! → `train` (learn merges) | `algorithms` (one piece → ids: BPE merges, greedy longest
//! match) run by `pipeline` (the tokenizer: special tokens, pre-tokenizing, the piece
//! cache, encode → ids, decode).
//! `nmt` is subword-nmt's learn-bpe, apply-bpe and get-vocab, byte-identical.
//! `compress` is the separate Gage (1994) byte-pair compression algorithm.
//! `formats` reads the model files too large to read quickly in Python (`.tiktoken`).
//! `vocab` holds a vocabulary's tables: names and bytes by id, name → id, each with its
//! strings back to back in one buffer.
//! `rng` is the one seeded random number generator (BPE-dropout); `error` the errors;
//! `threads` runs two table builds side by side when a large model is built; `pages` puts
//! large outputs on huge pages.
//! `bindings` is the thin PyO3 layer (conversion only), built with the `python` feature.
//!
//! Dependencies point one way: `pipeline` → `algorithms` → `symbols`; `train` and `count`
//! read the word table; nothing in the core depends on `bindings`.

pub mod algorithms;
pub mod compress;
pub mod count;
pub mod error;
pub mod formats;
pub mod nmt;
pub mod normalize;
pub mod pages;
pub mod pipeline;
pub mod pretokenize;
pub mod rng;
pub mod symbols;
pub mod threads;
pub mod train;
pub mod vocab;

#[cfg(test)]
mod proptests;

#[cfg(feature = "python")]
mod bindings;
