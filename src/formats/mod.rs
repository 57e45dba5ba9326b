//! Reading other tools' model files where Python would be slow: the parts of a format that
//! run per token (100k–200k lines) live here; choosing and assembling formats stays in
//! `python/subword/formats/`.

pub mod sentencepiece;
pub mod tiktoken;
