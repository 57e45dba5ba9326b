//! subword-nmt 0.3.8's commands, `learn-bpe`, `apply-bpe` and `get-vocab`, with output
//! byte-identical to its own (codes files, segmented text, vocabulary files).
//!
//! Invariant: for any input, each command's output equals subword-nmt's byte for byte,
//! quirks included, because its users compare and cache those files. The one exception is
//! asked for by name: `learn::Rule::Textbook` (`learn-bpe --textbook`) learns with true
//! pair counts, which differ from subword-nmt's only when a word holds whitespace other
//! than a space or the text `</w>`.
//!
//! - `lines`: lines and words cut as subword-nmt reads a file;
//! - `stream`: input read in byte blocks, handed on as whole lines of checked UTF-8;
//! - `words`: the word table of learn-bpe and get-vocab (the core's `count::WordTable`);
//! - `learn`: learn-bpe (which learner), `learn_bpe`: subword-nmt's learner step for step;
//! - `apply`, `merge_all`, `vocabulary`, `cache`: apply-bpe's segmenter, its merge rule,
//!   its vocabulary check and its cache of segmented words.
//!
//! Measured performance decisions: docs/performance.md#subword-nmt-commands.

pub mod apply;
pub mod cache;
pub mod learn;
pub mod learn_bpe;
pub mod lines;
pub mod merge_all;
pub mod stream;
pub mod vocabulary;
pub mod words;

/// The end-of-word marker of codes files.
pub const END_OF_WORD: &str = "</w>";
