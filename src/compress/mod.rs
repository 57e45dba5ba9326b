//! The 1994 byte-pair compression algorithm (Philip Gage, "A New Algorithm for Data
//! Compression", C/C++ Users Journal, February 1994): the ancestor of BPE tokenization.
//! It stands apart from the tokenizer's data path; nothing else depends on it.
//!
//! # The algorithm
//!
//! The input is cut into blocks of `block_size` bytes (the last one may be shorter). In each
//! block, repeatedly:
//!
//! 1. count every pair of adjacent symbols;
//! 2. take the most frequent pair and replace each of its occurrences by a byte value that does
//!    not occur in the block, recording `symbol = pair` in the block's table;
//!
//! until no pair occurs at least twice, or no unused byte value is left. Expanding each symbol
//! of the packed block back into its pair, recursively, restores the block exactly.
//!
//! The three rules that make the result well defined:
//!
//! - **Counting**: occurrences are counted the way replacement consumes them, left to right and
//!   non-overlapping, so `aaa` holds the pair `aa` once and `aaaa` holds it twice. (A pair of two
//!   different bytes can never overlap itself; only runs of one byte need the care.)
//! - **Ties**: the highest count wins; among equal counts, the smallest pair, comparing the left
//!   byte and then the right byte as unsigned values.
//! - **New symbols**: the highest byte value unused in the block first, then the next lower one.
//!   A byte that disappears from the data by replacement is never reused: the table's pairs may
//!   still contain it.
//!
//! With these rules Gage's own example comes out letter for letter, reading Z = 0xff, Y = 0xfe,
//! X = 0xfd: `aaabdaaabac` → `ZabdZabac` (Z = aa, the smallest of the pairs seen twice) →
//! `ZYdZYac` (Y = ab; `Za` is also seen twice but 0xff 0x61 > 0x61 0x62) → `XdXac` (X = ZY).
//!
//! Why blocks: a block of a few KB of text leaves well over a hundred byte values unused, so
//! there are symbols to spend, and each block costs at most 255 passes over at most
//! `block_size` bytes: the total time is linear in the input, and blocks are independent, so
//! [`compress`] packs them on all cores.
//!
//! # The format (version 1)
//!
//! Lengths are unsigned LEB128 varints (7 bits per byte, low group first, at most 10 bytes).
//!
//! ```text
//! magic        4 bytes  "SWPC"
//! version      1 byte   1
//! block size   varint   B, 1 ..= MAX_BLOCK_SIZE
//! length       varint   N, the length of the original data
//! checksum     4 bytes  CRC-32 of the original data (the one of zlib and gzip), little-endian
//! blocks       ceil(N / B) of them; block k restores min(B, N - k·B) bytes:
//!   count      1 byte   n, the number of table entries (0 ..= 255)
//!   table      n <= 32: n × 3 bytes (symbol, left, right), in the order they were made
//!              n  > 32: a 32-byte bitmap of the symbols (bit s % 8 of byte s / 8), then
//!                       n × 2 bytes (left, right), one per symbol in ascending order
//!   length     varint   P, the length of the packed data
//!   data       P bytes  bytes that are table symbols expand to their pair, recursively;
//!                       every other byte stands for itself
//! ```
//!
//! Nothing follows the last block. The table takes the cheaper of its two forms (3n bytes
//! against 32 + 2n), which the count alone tells. [`decompress`] checks everything and names
//! the byte offset of what is wrong: the magic, the version, truncation, a symbol defined
//! twice, an entry that refers to itself in a loop, a block that expands to the wrong length,
//! bytes after the last block, and the checksum.
//!
//! # Performance
//!
//! Counts are kept, not recounted: a step finds the chosen pair with `memchr::memmem` and
//! recounts only a window around each replacement; the best pair comes from a lazy
//! max-heap. Why, and the figures behind the default block size: see
//! docs/performance.md#compression.
//!
//! The code: `algorithm` packs blocks, `format` writes and reads the stream.

mod algorithm;
mod format;
#[cfg(test)]
mod tests;

use crate::error::{Error, Result};

pub use algorithm::{compress, compress_with};
pub use format::{crc32, decompress};

/// The block size used when none is given (why 8 KB: docs/performance.md#compression).
pub const DEFAULT_BLOCK_SIZE: usize = 8 * 1024;
/// The largest block size accepted (16 MiB); larger blocks gain nothing, since a block has at
/// most 255 symbols to spend.
pub const MAX_BLOCK_SIZE: usize = 1 << 24;
/// The first four bytes of every compressed stream.
pub const MAGIC: [u8; 4] = *b"SWPC";
/// The format version written, and the only one read.
pub const VERSION: u8 = 1;

/// Tables of at most this many entries are written as (symbol, left, right) triples; longer
/// ones as a bitmap of the symbols and their pairs.
const LIST_TABLE_MAX: usize = 32;

/// One replacement, as reported to the `on_step` callback of [`compress_with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step<'a> {
    /// Index of the block, from 0.
    pub block: usize,
    /// The pair replaced.
    pub pair: (u8, u8),
    /// The byte that now stands for the pair.
    pub symbol: u8,
    /// How many occurrences were replaced (at least 2).
    pub count: usize,
    /// The block's data after the replacement.
    pub data: &'a [u8],
}

/// Checks a block size: 1 ..= [`MAX_BLOCK_SIZE`].
pub fn check_block_size(block_size: usize) -> Result<()> {
    if block_size == 0 || block_size > MAX_BLOCK_SIZE {
        return Err(Error::invalid(format!(
            "block size must be between 1 and {MAX_BLOCK_SIZE} bytes, got {block_size}"
        )));
    }
    Ok(())
}
