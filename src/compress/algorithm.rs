//! Packing: blocks compressed one pair at a time, with pair counts kept up to date (not
//! recounted) and the best pair from a lazy max-heap.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rayon::prelude::*;

use super::format::write_stream;
use super::{check_block_size, Step};
use crate::error::{Error, Result};

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
pub(super) type Replacements = Vec<(u8, (u8, u8))>;

/// A block after packing: its table and its data.
pub(super) struct PackedBlock {
    pub(super) table: Replacements,
    pub(super) data: Vec<u8>,
}

/// Calls `f` with every pair of `data` that counts: left to right, and a pair of equal bytes
/// only when it does not overlap the previous counted one (`aaa` holds `aa` once, `aaaa`
/// twice), which is what left-to-right replacement consumes. Pairs as `left << 8 | right`.
pub(super) fn for_each_counted_pair(data: &[u8], mut f: impl FnMut(usize)) {
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
pub(super) struct PairCounts {
    pub(super) counts: Vec<u32>,
    pub(super) heap: BinaryHeap<(u32, Reverse<u16>)>,
    /// Pairs whose count changed in this step, each once (`queued` marks them).
    pub(super) changed: Vec<u16>,
    pub(super) queued: Vec<bool>,
    /// Scratch: where the chosen pair occurs, and one window after replacement.
    pub(super) occurrences: Vec<usize>,
    pub(super) window: Vec<u8>,
}

impl PairCounts {
    pub(super) fn new() -> Self {
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
    pub(super) fn start(&mut self, data: &[u8]) {
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
    pub(super) fn clear(&mut self) {
        for (_, Reverse(pair)) in self.heap.drain() {
            self.counts[usize::from(pair)] = 0;
        }
    }

    /// The pair to replace next and its count, or `None` when no pair is left.
    pub(super) fn best(&mut self) -> Option<((u8, u8), u32)> {
        while let Some(&(count, Reverse(pair))) = self.heap.peek() {
            if self.counts[usize::from(pair)] == count {
                return Some((((pair >> 8) as u8, pair as u8), count));
            }
            self.heap.pop();
        }
        None
    }

    pub(super) fn queue_changed(&mut self) {
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
    pub(super) fn replace(&mut self, data: &mut Vec<u8>, pair: (u8, u8), symbol: u8) -> usize {
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
pub(super) fn pack_block<E, F>(
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
