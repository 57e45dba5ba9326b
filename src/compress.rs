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
//! With these rules the seeds' example comes out letter for letter, reading Z = 0xff, Y = 0xfe,
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
//! # Performance notes
//!
//! Figures from one run on a shared 2-core machine, release build without LTO, one thread,
//! `en-kjv.txt` (4.1 MB of English, ratio 0.445).
//!
//! - Counts are kept, not recounted. Recounting every pair at every step (up to 255 passes of
//!   counting per block) ran at 2 MB/s. Now a step finds the chosen pair with
//!   `memchr::memmem` (SIMD), recounts only a small window around each replacement (see
//!   `PairCounts::replace`), and moves the data down with `copy_within`: 31 MB/s. Finding
//!   the occurrences byte by byte with `memchr` on the left byte instead gave 16 MB/s.
//! - The best pair comes from a lazy max-heap (stale entries dropped at the top), not from a
//!   scan of the ~2,000 distinct pairs of a text block at each of its ~200 steps.
//! - The simple recounting version stays in the tests as the oracle the fast one must match
//!   step for step.
//! - Default block size 8 KB, from the ratio on the first 1 MiB of each shared corpus:
//!
//!   | block   | 1 KB  | 2 KB  | 4 KB  | 8 KB  | 16 KB | 32 KB | 64 KB |
//!   |---------|-------|-------|-------|-------|-------|-------|-------|
//!   | KJV     | 0.620 | 0.514 | 0.443 | 0.417 | 0.412 | 0.414 | 0.419 |
//!   | Shakespeare | 0.741 | 0.641 | 0.572 | 0.542 | 0.532 | 0.529 | 0.530 |
//!   | ko-help | 0.617 | 0.506 | 0.465 | 0.463 | 0.477 | 0.496 | 0.518 |
//!   | stdlib `.py` | 0.541 | 0.447 | 0.392 | 0.381 | 0.392 | 0.406 | 0.426 |
//!
//!   Small blocks pay for their tables; large ones have only 255 symbols to spend on more
//!   data. 8 KB is best or within 2.5% of best on every corpus (Gage used 5,000 bytes).
//! - Decompression checks a block's expanded length before expanding it, then expands with a
//!   small stack: 86 MB/s.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rayon::prelude::*;

use crate::error::{Error, Result};

/// The block size used when none is given. See the performance notes.
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

/// Compresses `data` in blocks of `block_size` bytes, packing the blocks in parallel.
/// The output is the same as [`compress_with`]'s.
pub fn compress(data: &[u8], block_size: usize) -> Result<Vec<u8>> {
    check_block_size(block_size)?;
    let packed: Vec<PackedBlock> = data
        .par_chunks(block_size)
        .enumerate()
        .map_init(PairCounts::new, |counts, (index, block)| {
            let no_steps = |_: &Step<'_>| Ok::<(), std::convert::Infallible>(());
            match pack_block(block, index, counts, no_steps) {
                Ok(packed) => packed,
                Err(never) => match never {},
            }
        })
        .collect();
    Ok(write_stream(data, block_size, &packed))
}

/// Compresses `data` one block after the other, calling `on_step` after every replacement.
/// An error from `on_step` stops the work and is returned.
pub fn compress_with<E, F>(
    data: &[u8],
    block_size: usize,
    mut on_step: F,
) -> std::result::Result<Vec<u8>, E>
where
    E: From<Error>,
    F: FnMut(&Step<'_>) -> std::result::Result<(), E>,
{
    check_block_size(block_size)?;
    let mut counts = PairCounts::new();
    let mut packed = Vec::with_capacity(data.len().div_ceil(block_size));
    for (index, block) in data.chunks(block_size).enumerate() {
        packed.push(pack_block(block, index, &mut counts, &mut on_step)?);
    }
    Ok(write_stream(data, block_size, &packed))
}

/// A block's table as made: (symbol, pair), in the order of the replacements.
type Replacements = Vec<(u8, (u8, u8))>;

/// A block after packing: its table and its data.
struct PackedBlock {
    table: Replacements,
    data: Vec<u8>,
}

/// Calls `f` with every pair of `data` that counts: left to right, and a pair of equal bytes
/// only when it does not overlap the previous counted one (`aaa` holds `aa` once, `aaaa`
/// twice), which is what left-to-right replacement consumes. Pairs as `left << 8 | right`.
fn for_each_counted_pair(data: &[u8], mut f: impl FnMut(usize)) {
    let mut previous_counted_was_equal = false;
    for pair in data.windows(2) {
        if pair[0] == pair[1] {
            if previous_counted_was_equal {
                previous_counted_was_equal = false;
                continue;
            }
            previous_counted_was_equal = true;
        } else {
            previous_counted_was_equal = false;
        }
        f(usize::from(pair[0]) << 8 | usize::from(pair[1]));
    }
}

/// The pair counts of one block's current data, kept exact as replacements change it, and a
/// max-heap to find the best pair.
///
/// The heap is lazy: whenever a count changes, the pair is pushed again with its new count;
/// an entry whose count no longer matches is stale and dropped when it reaches the top. So
/// the top valid entry is the highest count, and among equal counts the smallest pair.
struct PairCounts {
    counts: Vec<u32>,
    heap: BinaryHeap<(u32, Reverse<u16>)>,
    /// Pairs whose count changed in this step, each once (`queued` marks them).
    changed: Vec<u16>,
    queued: Vec<bool>,
    /// Scratch: where the chosen pair occurs, and one window after replacement.
    occurrences: Vec<usize>,
    window: Vec<u8>,
}

impl PairCounts {
    fn new() -> Self {
        PairCounts {
            counts: vec![0; 1 << 16],
            heap: BinaryHeap::new(),
            changed: Vec::new(),
            queued: vec![false; 1 << 16],
            occurrences: Vec::new(),
            window: Vec::new(),
        }
    }

    /// Forgets the previous block and counts every pair of a new one.
    fn start(&mut self, data: &[u8]) {
        self.clear();
        let counts = &mut self.counts;
        let changed = &mut self.changed;
        for_each_counted_pair(data, |pair| {
            if counts[pair] == 0 {
                changed.push(pair as u16);
            }
            counts[pair] += 1;
        });
        self.queue_changed();
    }

    /// Every pair ever counted has a heap entry, so zeroing the heap's pairs zeroes all counts.
    fn clear(&mut self) {
        for (_, Reverse(pair)) in self.heap.drain() {
            self.counts[usize::from(pair)] = 0;
        }
    }

    /// The pair to replace next and its count, or `None` when no pair is left.
    fn best(&mut self) -> Option<((u8, u8), u32)> {
        while let Some(&(count, Reverse(pair))) = self.heap.peek() {
            if self.counts[usize::from(pair)] == count {
                return Some((((pair >> 8) as u8, pair as u8), count));
            }
            self.heap.pop();
        }
        None
    }

    fn queue_changed(&mut self) {
        for pair in self.changed.drain(..) {
            let count = self.counts[usize::from(pair)];
            self.queued[usize::from(pair)] = false;
            if count > 0 {
                self.heap.push((count, Reverse(pair)));
            }
        }
    }

    /// Replaces every occurrence of `pair` in `data` by `symbol`, left to right, and updates
    /// the counts. Returns the number of replacements.
    ///
    /// Only the pairs near a replacement change. Occurrences that touch (`ababab`) form a
    /// cluster; its window spans the cluster, the byte on each side, and, when that byte
    /// belongs to a run that the replacement shortens (`aaab`, `abbb` for the pair `ab`),
    /// the whole run, because a run of equal bytes counts as a whole (`floor(len / 2)`).
    /// The counts of the window before are taken away and those after added back. Windows
    /// share at most an unchanged edge byte, never a pair or a changed run, so this is exact.
    fn replace(&mut self, data: &mut Vec<u8>, pair: (u8, u8), symbol: u8) -> usize {
        let (left, right) = pair;
        let n = data.len();

        // Where the pair occurs, left to right without overlap (as `find_iter` reports).
        self.occurrences.clear();
        self.occurrences
            .extend(memchr::memmem::find_iter(data.as_slice(), &[left, right]));

        let mut k = 0;
        while k < self.occurrences.len() {
            let mut last = k;
            while last + 1 < self.occurrences.len()
                && self.occurrences[last + 1] == self.occurrences[last] + 2
            {
                last += 1;
            }
            let first_at = self.occurrences[k];
            let last_at = self.occurrences[last];
            k = last + 1;

            let mut start = first_at;
            if start > 0 {
                start -= 1;
                // `aaab` with the pair `ab`: the run of a's loses its last byte.
                while start > 0 && data[start] == left && data[start - 1] == left {
                    start -= 1;
                }
            }
            let mut end = last_at + 2;
            if end < n {
                end += 1;
                // `abbb` with the pair `ab`: the run of b's loses its first byte.
                if data[end - 1] == right {
                    while end < n && data[end] == right {
                        end += 1;
                    }
                }
            }
            let before = &data[start..end];

            self.window.clear();
            let mut i = 0;
            while i < before.len() {
                if i + 1 < before.len() && before[i] == left && before[i + 1] == right {
                    self.window.push(symbol);
                    i += 2;
                } else {
                    self.window.push(before[i]);
                    i += 1;
                }
            }

            let counts = &mut self.counts;
            let changed = &mut self.changed;
            let queued = &mut self.queued;
            let mut note = |pair: usize| {
                if !queued[pair] {
                    queued[pair] = true;
                    changed.push(pair as u16);
                }
            };
            for_each_counted_pair(before, |pair| {
                debug_assert!(counts[pair] > 0, "pair {pair:#06x} counted below zero");
                counts[pair] = counts[pair].saturating_sub(1);
                note(pair);
            });
            for_each_counted_pair(&self.window, |pair| {
                counts[pair] += 1;
                note(pair);
            });
        }
        self.queue_changed();

        // Compact in place: copy the stretches between occurrences down.
        let mut write = 0;
        let mut read = 0;
        for &i in &self.occurrences {
            data.copy_within(read..i, write);
            write += i - read;
            data[write] = symbol;
            write += 1;
            read = i + 2;
        }
        data.copy_within(read..n, write);
        write += n - read;
        data.truncate(write);
        self.occurrences.len()
    }
}

/// Packs one block: replaces the most frequent pair until no pair occurs twice or no unused
/// byte is left.
fn pack_block<E, F>(
    block: &[u8],
    index: usize,
    counts: &mut PairCounts,
    mut on_step: F,
) -> std::result::Result<PackedBlock, E>
where
    F: FnMut(&Step<'_>) -> std::result::Result<(), E>,
{
    let mut present = [false; 256];
    for &byte in block {
        present[usize::from(byte)] = true;
    }
    // Highest first; never a byte of the original block, even after it leaves the data.
    let mut unused = (0..=255u8)
        .rev()
        .filter(|&b| !present[usize::from(b)])
        .peekable();

    let mut data = block.to_vec();
    let mut table = Vec::new();
    if unused.peek().is_some() {
        counts.start(&data);
    }
    for symbol in unused {
        let Some((pair, count)) = counts.best().filter(|&(_, count)| count >= 2) else {
            break;
        };
        let replaced = counts.replace(&mut data, pair, symbol);
        debug_assert_eq!(replaced, count as usize);
        table.push((symbol, pair));
        on_step(&Step {
            block: index,
            pair,
            symbol,
            count: replaced,
            data: &data,
        })?;
    }
    Ok(PackedBlock { table, data })
}

fn write_stream(original: &[u8], block_size: usize, blocks: &[PackedBlock]) -> Vec<u8> {
    let packed_len: usize = blocks
        .iter()
        .map(|b| b.data.len() + 3 * b.table.len() + 4)
        .sum();
    let mut out = Vec::with_capacity(packed_len + 32);
    out.extend_from_slice(&MAGIC);
    out.push(VERSION);
    write_varint(&mut out, block_size as u64);
    write_varint(&mut out, original.len() as u64);
    out.extend_from_slice(&crc32(original).to_le_bytes());
    for block in blocks {
        write_table(&mut out, &block.table);
        write_varint(&mut out, block.data.len() as u64);
        out.extend_from_slice(&block.data);
    }
    out
}

fn write_table(out: &mut Vec<u8>, table: &[(u8, (u8, u8))]) {
    // At most 255 entries: one per byte value unused in a non-empty block.
    out.push(table.len() as u8);
    if table.len() <= LIST_TABLE_MAX {
        for &(symbol, (left, right)) in table {
            out.extend_from_slice(&[symbol, left, right]);
        }
        return;
    }
    let mut pairs: [Option<(u8, u8)>; 256] = [None; 256];
    let mut bitmap = [0u8; 32];
    for &(symbol, pair) in table {
        pairs[usize::from(symbol)] = Some(pair);
        bitmap[usize::from(symbol / 8)] |= 1 << (symbol % 8);
    }
    out.extend_from_slice(&bitmap);
    for (left, right) in pairs.iter().flatten() {
        out.extend_from_slice(&[*left, *right]);
    }
}

fn write_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8 & 0x7f) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// An error about the compressed stream at `offset`.
fn corrupt(offset: usize, what: impl std::fmt::Display) -> Error {
    Error::invalid(format!("compressed data, byte {offset}: {what}"))
}

/// Reads the stream front to back; every read names its offset when the data ends.
struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        let left = self.data.len() - self.pos;
        if n > left {
            return Err(corrupt(
                self.pos,
                format!("truncated: {what} needs {n} bytes, {left} remain"),
            ));
        }
        let bytes = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(bytes)
    }

    fn byte(&mut self, what: &str) -> Result<u8> {
        Ok(self.take(1, what)?[0])
    }

    fn varint(&mut self, what: &str) -> Result<u64> {
        let start = self.pos;
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let byte = self.byte(what)?;
            let bits = u64::from(byte & 0x7f);
            if shift == 63 && bits > 1 {
                return Err(corrupt(start, format!("{what} does not fit in 64 bits")));
            }
            value |= bits << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(corrupt(start, format!("{what} is longer than 10 bytes")))
    }
}

/// Restores the original data from the output of [`compress`], checking it on the way.
pub fn decompress(data: &[u8]) -> Result<Vec<u8>> {
    let mut reader = Reader { data, pos: 0 };
    let magic = reader
        .take(MAGIC.len(), "the magic \"SWPC\"")
        .map_err(|_| {
            corrupt(
                0,
                "not subword compressed data (too short for the magic \"SWPC\")",
            )
        })?;
    if magic != MAGIC {
        return Err(corrupt(
            0,
            format!(
                "not subword compressed data (bad magic {}, expected \"SWPC\")",
                show_bytes(magic)
            ),
        ));
    }
    let version_at = reader.pos;
    let version = reader.byte("the format version")?;
    if version != VERSION {
        return Err(corrupt(
            version_at,
            format!("unsupported format version {version} (this build reads version {VERSION})"),
        ));
    }
    let block_size_at = reader.pos;
    let block_size = reader.varint("the block size")?;
    let block_size = usize::try_from(block_size)
        .ok()
        .filter(|&b| check_block_size(b).is_ok())
        .ok_or_else(|| {
            corrupt(
                block_size_at,
                format!("block size {block_size} is out of range (1 ..= {MAX_BLOCK_SIZE})"),
            )
        })?;
    let length_at = reader.pos;
    let length = reader.varint("the original length")?;
    let length = usize::try_from(length)
        .map_err(|_| corrupt(length_at, format!("original length {length} is too large")))?;
    let checksum_at = reader.pos;
    let checksum = reader.take(4, "the checksum")?;
    let checksum = u32::from_le_bytes([checksum[0], checksum[1], checksum[2], checksum[3]]);

    let blocks = length.div_ceil(block_size);
    // Grows with what is actually restored, never with a length the data merely claims.
    let mut out = Vec::with_capacity(length.min(data.len().saturating_mul(4)));
    for index in 0..blocks {
        let expected = block_size.min(length - index * block_size);
        read_block(&mut reader, index, blocks, expected, &mut out)?;
    }
    if reader.pos < data.len() {
        return Err(corrupt(
            reader.pos,
            format!(
                "{} unexpected bytes after the last block",
                data.len() - reader.pos
            ),
        ));
    }
    let actual = crc32(&out);
    if actual != checksum {
        return Err(corrupt(
            checksum_at,
            format!("checksum mismatch: stored {checksum:#010x}, the restored data gives {actual:#010x}"),
        ));
    }
    Ok(out)
}

/// The table of one block, read and checked: which bytes are symbols and their pairs.
struct Table {
    pairs: [Option<(u8, u8)>; 256],
}

fn read_block(
    reader: &mut Reader<'_>,
    index: usize,
    blocks: usize,
    expected: usize,
    out: &mut Vec<u8>,
) -> Result<()> {
    let name = format!("block {index} (of {blocks})");
    let table_at = reader.pos;
    let table = read_table(reader, &name)?;
    let lengths = expansion_lengths(&table, &name, table_at)?;

    let packed_len_at = reader.pos;
    let packed_len = reader.varint(&format!("the data length of {name}"))?;
    let packed_len = usize::try_from(packed_len).map_err(|_| {
        corrupt(
            packed_len_at,
            format!("data length {packed_len} of {name} is too large"),
        )
    })?;
    let data_at = reader.pos;
    let packed = reader.take(packed_len, &format!("the data of {name}"))?;

    let restored = packed
        .iter()
        .fold(0u64, |sum, &b| sum.saturating_add(lengths[usize::from(b)]));
    if restored != expected as u64 {
        let restored = if restored > 1 << 63 {
            "more than 2^63".to_string()
        } else {
            restored.to_string()
        };
        return Err(corrupt(
            data_at,
            format!("{name} expands to {restored} bytes, expected {expected}"),
        ));
    }
    expand(&table, packed, out);
    Ok(())
}

fn read_table(reader: &mut Reader<'_>, name: &str) -> Result<Table> {
    let count = usize::from(reader.byte(&format!("the table size of {name}"))?);
    let mut table = Table { pairs: [None; 256] };
    if count <= LIST_TABLE_MAX {
        for entry in 0..count {
            let at = reader.pos;
            let bytes = reader.take(3, &format!("table entry {entry} of {name}"))?;
            let (symbol, pair) = (bytes[0], (bytes[1], bytes[2]));
            let slot = &mut table.pairs[usize::from(symbol)];
            if slot.is_some() {
                return Err(corrupt(
                    at,
                    format!("{name} defines symbol {symbol:#04x} twice"),
                ));
            }
            *slot = Some(pair);
        }
        return Ok(table);
    }
    let bitmap_at = reader.pos;
    let bitmap = reader.take(32, &format!("the symbol bitmap of {name}"))?;
    let marked: usize = bitmap.iter().map(|b| b.count_ones() as usize).sum();
    if marked != count {
        return Err(corrupt(
            bitmap_at,
            format!(
                "the symbol bitmap of {name} marks {marked} symbols, its table size says {count}"
            ),
        ));
    }
    let pairs = reader.take(2 * count, &format!("the table of {name}"))?;
    let symbols = (0..=255u8).filter(|&s| bitmap[usize::from(s / 8)] & (1 << (s % 8)) != 0);
    for (symbol, pair) in symbols.zip(pairs.chunks_exact(2)) {
        table.pairs[usize::from(symbol)] = Some((pair[0], pair[1]));
    }
    Ok(table)
}

/// The expanded length of every byte value (1 for plain bytes), saturating at `u64::MAX`.
/// Fails on an entry that reaches itself, naming the loop.
fn expansion_lengths(table: &Table, name: &str, table_at: usize) -> Result<[u64; 256]> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        New,
        OnPath,
        Done,
    }

    /// Depth-first; the recursion is at most 256 deep, one level per symbol on the path.
    fn visit(
        symbol: u8,
        table: &Table,
        state: &mut [State; 256],
        lengths: &mut [u64; 256],
        path: &mut Vec<u8>,
    ) -> std::result::Result<u64, Vec<u8>> {
        let Some((left, right)) = table.pairs[usize::from(symbol)] else {
            return Ok(1);
        };
        match state[usize::from(symbol)] {
            State::Done => return Ok(lengths[usize::from(symbol)]),
            State::OnPath => {
                let start = path.iter().position(|&s| s == symbol).unwrap_or(0);
                let mut cycle = path[start..].to_vec();
                cycle.push(symbol);
                return Err(cycle);
            }
            State::New => {}
        }
        state[usize::from(symbol)] = State::OnPath;
        path.push(symbol);
        let length = visit(left, table, state, lengths, path)?
            .saturating_add(visit(right, table, state, lengths, path)?);
        path.pop();
        state[usize::from(symbol)] = State::Done;
        lengths[usize::from(symbol)] = length;
        Ok(length)
    }

    let mut state = [State::New; 256];
    let mut lengths = [1u64; 256];
    let mut path = Vec::with_capacity(256);
    for symbol in 0..=255u8 {
        if let Err(cycle) = visit(symbol, table, &mut state, &mut lengths, &mut path) {
            let first = cycle[0];
            let (left, right) = table.pairs[usize::from(first)].unwrap_or((first, first));
            let chain: Vec<String> = cycle.iter().map(|s| format!("{s:#04x}")).collect();
            return Err(corrupt(
                table_at,
                format!(
                    "the table of {name} has entry {first:#04x} = ({left:#04x}, {right:#04x}) \
                     referring to itself in a loop: {}",
                    chain.join(" -> ")
                ),
            ));
        }
    }
    Ok(lengths)
}

/// Appends the expansion of `packed`. The table has been checked: no loops, and the total
/// length is known, so this ends and writes exactly that many bytes.
fn expand(table: &Table, packed: &[u8], out: &mut Vec<u8>) {
    let mut stack: Vec<u8> = Vec::with_capacity(256);
    for &byte in packed {
        stack.push(byte);
        while let Some(top) = stack.pop() {
            match table.pairs[usize::from(top)] {
                Some((left, right)) => {
                    stack.push(right);
                    stack.push(left);
                }
                None => out.push(top),
            }
        }
    }
}

fn show_bytes(bytes: &[u8]) -> String {
    let mut shown = String::from("\"");
    for &b in bytes {
        if b.is_ascii_graphic() || b == b' ' {
            shown.push(char::from(b));
        } else {
            shown.push_str(&format!("\\x{b:02x}"));
        }
    }
    shown.push('"');
    shown
}

/// The table of CRC-32 (reflected polynomial 0xEDB88320), built at compile time.
const CRC_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut crc = i as u32;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 1 != 0 {
                0xEDB8_8320 ^ (crc >> 1)
            } else {
                crc >> 1
            };
            bit += 1;
        }
        table[i] = crc;
        i += 1;
    }
    table
};

/// CRC-32 as zlib, gzip and PNG compute it.
pub fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in data {
        crc = CRC_TABLE[((crc ^ u32::from(byte)) & 0xff) as usize] ^ (crc >> 8);
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The steps of compressing `data` in one block: (symbol, pair, data after).
    fn steps(data: &[u8]) -> Vec<(u8, (u8, u8), Vec<u8>)> {
        let mut seen = Vec::new();
        compress_with::<Error, _>(data, DEFAULT_BLOCK_SIZE, |step| {
            seen.push((step.symbol, step.pair, step.data.to_vec()));
            Ok(())
        })
        .expect("compress");
        seen
    }

    /// Shows symbols 0xff, 0xfe, 0xfd as the seeds' Z, Y, X.
    fn as_seed(data: &[u8]) -> String {
        data.iter()
            .map(|&b| match b {
                0xff => 'Z',
                0xfe => 'Y',
                0xfd => 'X',
                _ => char::from(b),
            })
            .collect()
    }

    /// Every pair's count, computed apart from the compressor's code: pairs of two different
    /// bytes by adjacency, pairs of one byte by runs (`floor(len / 2)` each).
    fn naive_counts(data: &[u8]) -> std::collections::BTreeMap<(u8, u8), usize> {
        let mut counts = std::collections::BTreeMap::new();
        for pair in data.windows(2) {
            if pair[0] != pair[1] {
                *counts.entry((pair[0], pair[1])).or_insert(0) += 1;
            }
        }
        for run in data.chunk_by(|x, y| x == y) {
            if run.len() >= 2 {
                *counts.entry((run[0], run[0])).or_insert(0) += run.len() / 2;
            }
        }
        counts
    }

    fn most_pair_count(data: &[u8]) -> usize {
        naive_counts(data).values().copied().max().unwrap_or(0)
    }

    /// The algorithm as the module docs state it, recounting everything at every step.
    fn naive_pack(block: &[u8]) -> (Replacements, Vec<u8>) {
        let unused: Vec<u8> = (0..=255u8).rev().filter(|b| !block.contains(b)).collect();
        let mut data = block.to_vec();
        let mut table = Vec::new();
        for symbol in unused {
            let mut best: Option<((u8, u8), usize)> = None;
            for (pair, count) in naive_counts(&data) {
                if best.is_none_or(|(_, c)| count > c) {
                    best = Some((pair, count));
                }
            }
            let Some((pair, count)) = best.filter(|&(_, c)| c >= 2) else {
                break;
            };
            let mut next = Vec::new();
            let mut i = 0;
            while i < data.len() {
                if i + 1 < data.len() && (data[i], data[i + 1]) == pair {
                    next.push(symbol);
                    i += 2;
                } else {
                    next.push(data[i]);
                    i += 1;
                }
            }
            assert_eq!(data.len() - next.len(), count);
            data = next;
            table.push((symbol, pair));
        }
        (table, data)
    }

    #[test]
    fn incremental_counts_match_recounting() {
        let mut rng = Rng(42);
        let mut counts = PairCounts::new(); // shared: each block must start clean
        for round in 0..400 {
            let alphabet = [1, 2, 3, 4, 6, 26, 200][round % 7];
            let n = rng.below(if round % 5 == 0 { 3000 } else { 300 });
            // Runs of random lengths, to exercise the equal-byte pairs.
            let mut block = Vec::new();
            while block.len() < n {
                let byte = rng.below(alphabet) as u8;
                let run = if rng.below(3) == 0 {
                    1 + rng.below(6)
                } else {
                    1
                };
                block.extend(std::iter::repeat_n(byte, run));
            }
            let packed = pack_block(&block, 0, &mut counts, |_| Ok::<(), Error>(())).unwrap();
            let (table, data) = naive_pack(&block);
            assert_eq!(packed.table, table, "{block:?}");
            assert_eq!(packed.data, data, "{block:?}");
        }
        let text = &include_bytes!("compress.rs")[..3000];
        let packed = pack_block(text, 0, &mut counts, |_| Ok::<(), Error>(())).unwrap();
        assert_eq!((packed.table, packed.data), naive_pack(text));
    }

    fn round_trip(data: &[u8], block_size: usize) -> Vec<u8> {
        let packed = compress(data, block_size).expect("compress");
        let restored = decompress(&packed).expect("decompress");
        assert_eq!(restored, data, "round trip at block size {block_size}");
        packed
    }

    /// A small deterministic generator (xorshift64*), for data and fuzzing without crates.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn bytes(&mut self, n: usize, alphabet: usize) -> Vec<u8> {
            (0..n).map(|_| self.below(alphabet) as u8).collect()
        }
    }

    #[test]
    fn seeds_example_eleven_bytes() {
        let seen = steps(b"aaabdaaabac");
        let shown: Vec<String> = seen.iter().map(|(_, _, d)| as_seed(d)).collect();
        assert_eq!(shown, ["ZabdZabac", "ZYdZYac", "XdXac"]);
        let table: Vec<(u8, (u8, u8))> = seen.iter().map(|(s, p, _)| (*s, *p)).collect();
        assert_eq!(
            table,
            [
                (0xff, (b'a', b'a')),
                (0xfe, (b'a', b'b')),
                (0xfd, (0xff, 0xfe))
            ]
        );
        assert!(most_pair_count(&seen[2].2) < 2);
        round_trip(b"aaabdaaabac", DEFAULT_BLOCK_SIZE);
    }

    #[test]
    fn seeds_example_twelve_bytes() {
        let seen = steps(b"aaabdaaabacc");
        let lengths: Vec<usize> = seen.iter().map(|(_, _, d)| d.len()).collect();
        assert_eq!(lengths, [10, 8, 6]);
        assert_eq!(as_seed(&seen[2].2), "XdXacc");
        assert!(most_pair_count(&seen[2].2) < 2);
        round_trip(b"aaabdaaabacc", DEFAULT_BLOCK_SIZE);
    }

    #[test]
    fn runs_count_without_overlap() {
        assert!(steps(b"aaa").is_empty(), "aaa holds aa once");
        let seen = steps(b"aaaa");
        assert_eq!(seen.len(), 1, "aaaa holds aa twice, then ZZ once");
        assert_eq!(seen[0].2, [0xff, 0xff]);
        // 2^k equal bytes halve k times.
        let seen = steps(&[b'x'; 64]);
        assert_eq!(seen.len(), 5);
        assert_eq!(seen[4].2, [0xfb, 0xfb]);
        round_trip(&[b'x'; 64], DEFAULT_BLOCK_SIZE);
    }

    #[test]
    fn ties_take_the_smallest_pair() {
        // ab, bc, cd all occur twice; da once.
        let seen = steps(b"abcdabcd");
        assert_eq!(seen[0].1, (b'a', b'b'));
    }

    #[test]
    fn never_leaves_a_pair_occurring_twice_when_symbols_remain() {
        let mut rng = Rng(7);
        for n in [2, 3, 10, 50, 300] {
            let data = rng.bytes(n, 4);
            let seen = steps(&data);
            let last = seen.last().map_or(data.clone(), |s| s.2.clone());
            assert!(most_pair_count(&last) < 2, "{data:?}");
        }
    }

    #[test]
    fn empty_and_single_byte() {
        let packed = round_trip(b"", DEFAULT_BLOCK_SIZE);
        assert_eq!(packed.len(), 4 + 1 + 2 + 1 + 4);
        round_trip(b"q", DEFAULT_BLOCK_SIZE);
        round_trip(b"\0", 1);
    }

    #[test]
    fn all_byte_values_leave_nothing_to_spend() {
        let all: Vec<u8> = (0..=255u8).collect();
        assert!(steps(&all).is_empty());
        let twice: Vec<u8> = all.iter().chain(all.iter()).copied().collect();
        assert!(
            steps(&twice).is_empty(),
            "pairs repeat, but no byte is unused"
        );
        round_trip(&twice, DEFAULT_BLOCK_SIZE);
        // In blocks of 128, each block has unused bytes again.
        round_trip(&twice, 128);
    }

    #[test]
    fn random_data_round_trips_at_many_block_sizes() {
        let mut rng = Rng(0x5eed);
        for block_size in [1, 2, 3, 7, 64, 1000, DEFAULT_BLOCK_SIZE] {
            for alphabet in [1, 2, 5, 26, 200, 256] {
                let n = rng.below(3000);
                round_trip(&rng.bytes(n, alphabet), block_size);
            }
        }
    }

    #[test]
    fn long_run_packs_small() {
        let data = vec![b'a'; 1 << 20];
        let packed = round_trip(&data, DEFAULT_BLOCK_SIZE);
        assert!(packed.len() < data.len() / 100, "{}", packed.len());
    }

    #[test]
    fn text_gets_smaller() {
        let text = include_str!("compress.rs").as_bytes();
        let packed = round_trip(text, DEFAULT_BLOCK_SIZE);
        assert!(
            packed.len() * 10 < text.len() * 8,
            "{} of {}",
            packed.len(),
            text.len()
        );
    }

    #[test]
    fn parallel_and_sequential_agree() {
        let text = include_str!("compress.rs").as_bytes();
        for block_size in [100, 4096] {
            let sequential = compress_with::<Error, _>(text, block_size, |_| Ok(())).unwrap();
            assert_eq!(compress(text, block_size).unwrap(), sequential);
        }
    }

    #[test]
    fn callback_errors_stop_the_work() {
        let mut calls = 0;
        let result = compress_with(b"aaabdaaabac", DEFAULT_BLOCK_SIZE, |_| {
            calls += 1;
            Err(Error::invalid("stop"))
        });
        assert_eq!(result.unwrap_err().message, "stop");
        assert_eq!(calls, 1);
    }

    #[test]
    fn block_size_is_checked() {
        assert!(compress(b"abc", 0).is_err());
        assert!(compress(b"abc", MAX_BLOCK_SIZE + 1).is_err());
        assert!(compress(b"abc", MAX_BLOCK_SIZE).is_ok());
    }

    #[test]
    fn crc32_matches_the_standard_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn big_tables_use_the_bitmap_form() {
        // Many distinct repeated pairs in few byte values: more than 32 symbols.
        let mut rng = Rng(3);
        let data = rng.bytes(4000, 8);
        let seen = steps(&data);
        assert!(seen.len() > LIST_TABLE_MAX, "{}", seen.len());
        round_trip(&data, DEFAULT_BLOCK_SIZE);
    }

    /// A hand-made stream: one block with `table` entries and `packed` data, restoring `length`.
    fn stream(length: usize, table: &[(u8, u8, u8)], packed: &[u8], original: &[u8]) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.push(VERSION);
        write_varint(&mut out, DEFAULT_BLOCK_SIZE as u64);
        write_varint(&mut out, length as u64);
        out.extend_from_slice(&crc32(original).to_le_bytes());
        let table: Vec<(u8, (u8, u8))> = table.iter().map(|&(s, l, r)| (s, (l, r))).collect();
        write_table(&mut out, &table);
        write_varint(&mut out, packed.len() as u64);
        out.extend_from_slice(packed);
        out
    }

    fn error_of(data: &[u8]) -> String {
        decompress(data).expect_err("must be rejected").message
    }

    #[test]
    fn hand_made_stream_decodes() {
        let data = stream(
            5,
            &[(0xff, b'a', b'b'), (0xfe, 0xff, b'c')],
            b"\xfe\xff",
            b"abcab",
        );
        assert_eq!(decompress(&data).unwrap(), b"abcab");
    }

    #[test]
    fn bad_magic_and_version() {
        let good = compress(b"hello hello", DEFAULT_BLOCK_SIZE).unwrap();
        let mut bad = good.clone();
        bad[0] = b'X';
        assert!(error_of(&bad).contains("byte 0: not subword compressed data (bad magic"));
        assert!(error_of(b"SW").contains("byte 0: not subword compressed data (too short"));
        let mut bad = good.clone();
        bad[4] = 9;
        assert!(error_of(&bad).contains("byte 4: unsupported format version 9"));
    }

    #[test]
    fn every_truncation_is_an_error_naming_the_offset() {
        let text = include_str!("compress.rs").as_bytes();
        let good = compress(&text[..4000], 1000).unwrap();
        for cut in 0..good.len() {
            let message = error_of(&good[..cut]);
            assert!(message.starts_with("compressed data, byte "), "{message}");
        }
        let message = error_of(&good[..good.len() - 1]);
        assert!(message.contains("truncated"), "{message}");
    }

    #[test]
    fn loops_in_the_table_are_named() {
        let data = stream(2, &[(0xff, 0xff, b'a')], b"\xff", b"aa");
        let message = error_of(&data);
        assert!(
            message.contains("referring to itself in a loop: 0xff -> 0xff"),
            "{message}"
        );
        let data = stream(4, &[(0xff, 0xfe, b'a'), (0xfe, b'b', 0xff)], b"\x01", b"x");
        let message = error_of(&data);
        assert!(
            message.contains("0xfe -> 0xff -> 0xfe") || message.contains("0xff -> 0xfe -> 0xff"),
            "{message}"
        );
        assert!(
            message.starts_with("compressed data, byte 12:"),
            "{message}"
        );
    }

    #[test]
    fn wrong_lengths_and_trailing_bytes_are_named() {
        // Expands to 2 bytes where the header promises 3.
        let message = error_of(&stream(3, &[(0xff, b'a', b'a')], b"\xff", b"aaa"));
        assert!(
            message.contains("expands to 2 bytes, expected 3"),
            "{message}"
        );
        let mut data = stream(2, &[], b"ab", b"ab");
        data.push(0);
        assert!(error_of(&data).contains("1 unexpected bytes after the last block"));
        let message = error_of(&stream(2, &[(1, 2, 2), (1, 3, 3)], b"\x01", b"ab"));
        assert!(message.contains("defines symbol 0x01 twice"), "{message}");
    }

    #[test]
    fn checksum_catches_a_changed_plain_byte() {
        let mut data = compress(b"a plain text, a plain text", DEFAULT_BLOCK_SIZE).unwrap();
        // Symbols come from 0xff down, so a plain 't' turned into 'z' is still a plain byte.
        let last_t = data.iter().rposition(|&b| b == b't').unwrap();
        data[last_t] = b'z';
        let message = error_of(&data);
        assert!(message.contains("checksum mismatch"), "{message}");
    }

    #[test]
    fn exponential_tables_are_refused_without_expanding() {
        // Each symbol is twice the one before: symbol 0xff expands to 2^200 bytes.
        let table: Vec<(u8, u8, u8)> = (0..200u8)
            .map(|i| {
                let below = if i == 0 { 1 } else { 0x37 + i - 1 };
                (0x37 + i, below, below)
            })
            .collect();
        let message = error_of(&stream(10, &table, &[0x37 + 199], b""));
        assert!(
            message.contains("expands to more than 2^63 bytes"),
            "{message}"
        );
    }

    #[test]
    fn header_fields_out_of_range() {
        let mut data = MAGIC.to_vec();
        data.extend_from_slice(&[VERSION, 0, 0]);
        assert!(error_of(&data).contains("byte 5: block size 0 is out of range"));
        let mut data = MAGIC.to_vec();
        data.push(VERSION);
        data.extend_from_slice(&[0xff; 11]);
        assert!(error_of(&data).contains("byte 5: the block size does not fit in 64 bits"));
    }

    #[test]
    fn random_bytes_never_panic() {
        let mut rng = Rng(99);
        for _ in 0..20_000 {
            let n = rng.below(64);
            let mut data = rng.bytes(n, 256);
            if rng.below(2) == 0 && data.len() >= 5 {
                data[..4].copy_from_slice(&MAGIC);
                data[4] = VERSION;
            }
            let _ = decompress(&data);
        }
    }

    #[test]
    fn mutated_streams_never_panic() {
        let mut rng = Rng(1234);
        let text = include_str!("compress.rs").as_bytes();
        let good = compress(&text[..5000], 700).unwrap();
        for _ in 0..3_000 {
            let mut data = good.clone();
            for _ in 0..=rng.below(3) {
                match rng.below(3) {
                    0 => {
                        let i = rng.below(data.len());
                        data[i] = rng.next() as u8;
                    }
                    1 => {
                        let i = rng.below(data.len());
                        data.remove(i);
                    }
                    _ => {
                        let i = rng.below(data.len() + 1);
                        data.insert(i, rng.next() as u8);
                    }
                }
            }
            if let Ok(restored) = decompress(&data) {
                // Only a change the checksum cannot see survives; it must be harmless.
                assert_eq!(crc32(&restored), crc32(&text[..5000]));
            }
        }
    }
}
