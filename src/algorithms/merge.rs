//! BPE's merge loops: apply merges to the initial symbols of one word.
//!
//! The rule: repeatedly merge the lowest-rank adjacent pair, the leftmost one on equal
//! ranks, until no pair has a rank. Short words use a linear scan per merge (fewer, cheaper
//! operations than a queue for a handful of symbols); the parts of long byte-level pieces up
//! to 255 bytes a vector scan of packed keys; long ones a priority queue over a linked list,
//! so a 10-million-character word is O(n log n) at worst.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;

use super::Pair;
use crate::rng::SplitMix64;

/// Above this many symbols a word is merged with a heap; below, by linear scans.
pub(crate) const LINEAR_MAX: usize = 48;
/// Up to this many symbols the heap is a binary heap over 16-bit links (`merge_heap_with`);
/// above, `merge_by_rank`'s buckets, made for words of millions of symbols.
pub(crate) const HEAP_MAX: usize = 1024;
/// A byte-level part of more than `LINEAR_MAX` and up to this many bytes is merged by a
/// scan of packed keys (`merge_scan_with`); longer ones by the binary heap.
pub(crate) const SCAN_MAX: usize = SCAN_SLOTS - 1;
/// The length of `merge_scan_with`'s arrays: positions and links are bytes, `u8::MAX`
/// meaning none.
const SCAN_SLOTS: usize = 256;
/// The low bits of a scan key: a symbol's position.
const SCAN_POSITION_BITS: u32 = SCAN_SLOTS.trailing_zeros();

/// (left, right) → (rank, merged id).
pub type MergeTable = FxHashMap<Pair, (u32, u32)>;

/// Applies `table` to `ids` in place.
pub fn apply_merges(table: &MergeTable, ids: &mut Vec<u32>) {
    apply_merges_from(table, ids, 0)
}

/// Applies `table` to the word that occupies `ids[start..]`, in place.
pub fn apply_merges_from(table: &MergeTable, ids: &mut Vec<u32>, start: usize) {
    let n = ids.len() - start;
    if n < 2 {
        return;
    }
    if n <= LINEAR_MAX {
        merge_linear_from(table, ids, start);
    } else if n <= HEAP_MAX {
        let pair = |a, b| lookup(table, a, b);
        merge_heap_with(pair, ids, start, |i, word| pair(word[i], word[i + 1]));
    } else {
        let mut word = ids.split_off(start);
        merge_by_rank(table, &mut word);
        ids.extend_from_slice(&word);
    }
}

/// Short words: the rank of each adjacent pair is looked up once and kept in an array on
/// the stack; a merge then costs a scan of that array (integer compares) and two lookups
/// for the new neighbours, instead of a lookup per pair per merge (why:
/// docs/performance.md#merging).
fn merge_linear_from(table: &MergeTable, ids: &mut Vec<u32>, start: usize) {
    debug_assert!(ids.len() - start <= LINEAR_MAX);
    let word = &ids[start..];
    // pairs[i] = (rank, merged id) of (word[i], word[i + 1]).
    let mut pairs = [NO_PAIR; LINEAR_MAX];
    for i in 0..word.len() - 1 {
        pairs[i] = lookup(table, word[i], word[i + 1]);
    }
    merge_linear_with(|a, b| lookup(table, a, b), ids, start, &mut pairs);
}

const NO_PAIR: (u32, u32) = (u32::MAX, 0);

#[inline]
fn lookup(table: &MergeTable, a: u32, b: u32) -> (u32, u32) {
    table.get(&(a, b)).copied().unwrap_or(NO_PAIR)
}

/// The merge loop of `merge_linear_from`, given the pairs' ranks and how to look up a pair.
fn merge_linear_with(
    lookup: impl Fn(u32, u32) -> (u32, u32),
    ids: &mut Vec<u32>,
    start: usize,
    pairs: &mut [(u32, u32); LINEAR_MAX],
) {
    let word = &mut ids[start..];
    let mut len = word.len();
    while len > 1 {
        let mut best = 0;
        for i in 1..len - 1 {
            if pairs[i].0 < pairs[best].0 {
                best = i;
            }
        }
        let (rank, merged) = pairs[best];
        if rank == u32::MAX {
            break;
        }
        word[best] = merged;
        word.copy_within(best + 2..len, best + 1);
        pairs.copy_within(best + 1..len - 1, best);
        len -= 1;
        if best + 1 < len {
            pairs[best] = lookup(word[best], word[best + 1]);
        } else if best < pairs.len() {
            pairs[best] = NO_PAIR;
        }
        if best > 0 {
            pairs[best - 1] = lookup(word[best - 1], word[best]);
        }
    }
    ids.truncate(start + len);
}

/// A symbol of a word that `merge_heap_with` merges: the pair it starts (its rank and the
/// merged id; `NO_PAIR` when it starts none or was merged away) and its neighbours.
#[derive(Clone, Copy)]
struct Node {
    rank: u32,
    merged: u32,
    next: u16,
    prev: u16,
}

/// Merges the word at `ids[start..]` (at most `HEAP_MAX` symbols) with a binary heap of
/// (rank, position) keys over a linked list. Each symbol keeps the rank of the pair it
/// starts, so a popped key is current exactly when the ranks agree: no second lookup, and
/// a word of a few hundred symbols costs two allocations, where `merge_by_rank`'s buckets
/// cost one per rank (docs/performance.md#parts-of-49-to-1024-bytes-a-binary-heap-2026-12-07).
/// `initial(i, word)` is the pair of symbols `i` and `i + 1` before any merge; `lookup`
/// the pairs that merges make.
fn merge_heap_with(
    lookup: impl Fn(u32, u32) -> (u32, u32),
    ids: &mut Vec<u32>,
    start: usize,
    initial: impl Fn(usize, &[u32]) -> (u32, u32),
) {
    const END: u16 = u16::MAX;
    let key = |rank: u32, at: usize| Reverse(u64::from(rank) << 32 | at as u64);
    let word = &mut ids[start..];
    let n = word.len();
    debug_assert!(n <= HEAP_MAX);
    if n < 2 {
        return;
    }
    let mut nodes: Vec<Node> = (0..n)
        .map(|i| {
            let (rank, merged) = if i + 1 < n { initial(i, word) } else { NO_PAIR };
            let next = if i + 1 < n { i as u16 + 1 } else { END };
            let prev = if i > 0 { i as u16 - 1 } else { END };
            Node {
                rank,
                merged,
                next,
                prev,
            }
        })
        .collect();
    let mut heap: BinaryHeap<Reverse<u64>> = (nodes.iter().enumerate())
        .filter(|(_, node)| node.rank != u32::MAX)
        .map(|(i, node)| key(node.rank, i))
        .collect();
    while let Some(Reverse(popped)) = heap.pop() {
        let (rank, i) = ((popped >> 32) as u32, popped as u32 as usize);
        let node = nodes[i];
        if node.rank != rank {
            continue;
        }
        // A symbol with a rank starts a pair, so it has a next symbol.
        let j = usize::from(node.next);
        let after = nodes[j].next;
        word[i] = node.merged;
        nodes[j].rank = u32::MAX;
        nodes[i].next = after;
        if after != END {
            nodes[usize::from(after)].prev = i as u16;
        }
        // The pairs the merge made: (i, after) and (prev, i).
        for (left, right) in [(i as u16, after), (node.prev, i as u16)] {
            if left != END {
                let (left, right) = (usize::from(left), usize::from(right));
                let (rank, merged) = match right < n {
                    true => lookup(word[left], word[right]),
                    false => NO_PAIR,
                };
                (nodes[left].rank, nodes[left].merged) = (rank, merged);
                if rank != u32::MAX {
                    heap.push(key(rank, left));
                }
            }
        }
    }
    // The symbols still linked from the first (never merged away), moved to the front.
    let (mut at, mut len) = (0, 0);
    while at != usize::from(END) {
        word[len] = word[at];
        len += 1;
        at = usize::from(nodes[at].next);
    }
    ids.truncate(start + len);
}

/// Merges the word at `ids[start..]` (at most `SCAN_MAX` symbols; every rank but
/// `NO_PAIR`'s below `u32::MAX >> SCAN_POSITION_BITS`) by scanning one array of keys,
/// `rank << SCAN_POSITION_BITS | position`, for its least: the lowest rank and, among equal
/// ranks, the leftmost pair, in one compare that the compiler turns into vector
/// instructions. Merged-away symbols keep their slot (key `u32::MAX`), so nothing is
/// moved; byte links find the neighbours. `initial(i)` is the pair of symbols `i` and `i +
/// 1` before any merge, `lookup` the pairs that merges make, and `ahead(a, b)` is told of
/// each pair that a merge of a current pair would make, so that its lookup can be
/// prefetched. For the parts of long pieces, where the binary heap spent its time sifting
/// (docs/performance.md#parts-of-49-to-255-bytes-a-scan-of-packed-keys-2026-12-07-later).
#[inline(always)]
fn merge_scan_with(
    lookup: impl Fn(u32, u32) -> (u32, u32),
    ids: &mut Vec<u32>,
    start: usize,
    initial: impl Fn(usize) -> (u32, u32),
    ahead: impl Fn(u32, u32),
) {
    const END: u8 = u8::MAX;
    const NONE: u32 = u32::MAX;
    let key = |rank: u32, at: usize| match rank {
        u32::MAX => NONE,
        _ => rank << SCAN_POSITION_BITS | at as u32,
    };
    let word = &mut ids[start..];
    let n = word.len();
    debug_assert!(n <= SCAN_MAX && SCAN_MAX == usize::from(END));
    if n < 2 {
        return;
    }
    // keys[i] and merged[i]: the pair that symbol i starts. Slots past n - 1 stay NONE, so
    // the scan may run over whole vectors.
    let mut keys = [NONE; SCAN_SLOTS];
    let mut merged = [0u32; SCAN_SLOTS];
    let mut next = [END; SCAN_SLOTS];
    let mut prev = [END; SCAN_SLOTS];
    for i in 0..n - 1 {
        let (rank, id) = initial(i);
        (keys[i], merged[i]) = (key(rank, i), id);
        next[i] = i as u8 + 1;
        prev[i + 1] = i as u8;
        if rank != u32::MAX {
            if i > 0 {
                ahead(word[i - 1], id);
            }
            if i + 2 < n {
                ahead(id, word[i + 2]);
            }
        }
    }
    let scan = (n - 1).next_multiple_of(16);
    loop {
        let least = keys[..scan].iter().fold(NONE, |a, &b| a.min(b));
        if least == NONE {
            break;
        }
        let i = (least & ((1 << SCAN_POSITION_BITS) - 1)) as usize;
        let j = usize::from(next[i]);
        let after = next[j];
        word[i] = merged[i];
        keys[j] = NONE;
        next[i] = after;
        keys[i] = NONE;
        if after != END {
            prev[usize::from(after)] = i as u8;
        }
        // The pairs the merge made: (i, after) and (prev, i).
        for (left, right) in [(i as u8, after), (prev[i], i as u8)] {
            if left == END || right == END {
                continue;
            }
            let (left, right) = (usize::from(left), usize::from(right));
            let (rank, id) = lookup(word[left], word[right]);
            (keys[left], merged[left]) = (key(rank, left), id);
            if rank != u32::MAX {
                if prev[left] != END {
                    ahead(word[usize::from(prev[left])], id);
                }
                if next[right] != END {
                    ahead(id, word[usize::from(next[right])]);
                }
            }
        }
    }
    // The symbols still linked from the first (never merged away), moved to the front.
    let (mut at, mut len) = (0, 0);
    while at != usize::from(END) {
        word[len] = word[at];
        len += 1;
        at = usize::from(next[at]);
    }
    ids.truncate(start + len);
}

/// `merge_scan_with` compiled for AVX2.
///
/// # Safety
/// Only on a CPU with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn merge_scan_avx2(
    lookup: impl Fn(u32, u32) -> (u32, u32),
    ids: &mut Vec<u32>,
    start: usize,
    initial: impl Fn(usize) -> (u32, u32),
    ahead: impl Fn(u32, u32),
) {
    merge_scan_with(lookup, ids, start, initial, ahead)
}

/// The merges of the pairs of single bytes of a byte-level model, by the two bytes: a
/// 512 KiB table that stays in the CPU's cache, where the merge table (several MiB) costs a
/// cache miss per lookup. Every pair of a word's initial symbols is such a pair. With it, a
/// filter of the merge table's pairs for the lookups after a merge.
#[derive(Debug)]
pub struct BytePairMerges {
    pairs: Box<[(u32, u32)]>,
    filter: PairFilter,
    /// Whether every rank fits a scan key (`merge_scan_with`); else the heap takes the
    /// parts the scan would.
    scan: bool,
    /// Whether the CPU has AVX2: the scan then compares eight keys an instruction, where
    /// SSE2 (x86-64's baseline) has no unsigned minimum and takes five for four.
    #[cfg(target_arch = "x86_64")]
    avx2: bool,
}

impl BytePairMerges {
    pub fn new(table: &MergeTable, byte_ids: &[u32; 256]) -> Self {
        let mut all = vec![NO_PAIR; 1 << 16];
        for (a, &ia) in byte_ids.iter().enumerate() {
            for (b, &ib) in byte_ids.iter().enumerate() {
                all[a << 8 | b] = lookup(table, ia, ib);
            }
        }
        let most = table.values().map(|&(rank, _)| rank).max().unwrap_or(0);
        BytePairMerges {
            pairs: all.into_boxed_slice(),
            filter: PairFilter::new(table),
            scan: most < u32::MAX >> SCAN_POSITION_BITS,
            #[cfg(target_arch = "x86_64")]
            avx2: is_x86_feature_detected!("avx2"),
        }
    }

    /// Appends the merged ids of `bytes` (at most `HEAP_MAX` of them; each byte's initial
    /// symbol is `byte_ids[b]`).
    pub fn merge_bytes(
        &self,
        table: &MergeTable,
        byte_ids: &[u32; 256],
        bytes: &[u8],
        out: &mut Vec<u32>,
    ) {
        debug_assert!(bytes.len() <= HEAP_MAX);
        let start = out.len();
        out.extend(bytes.iter().map(|&b| byte_ids[b as usize]));
        if bytes.len() < 2 {
            return;
        }
        let byte_pair = |i: usize| self.pairs[(bytes[i] as usize) << 8 | bytes[i + 1] as usize];
        let filtered = |a, b| match self.filter.may_hold(a, b) {
            true => lookup(table, a, b),
            false => NO_PAIR,
        };
        match bytes.len() {
            0..=LINEAR_MAX => {}
            ..=SCAN_MAX if self.scan => {
                let ahead = |a, b| self.filter.prefetch(a, b);
                #[cfg(target_arch = "x86_64")]
                if self.avx2 {
                    // SAFETY: `avx2` says the CPU has AVX2.
                    return unsafe { merge_scan_avx2(filtered, out, start, byte_pair, ahead) };
                }
                return merge_scan_with(filtered, out, start, byte_pair, ahead);
            }
            _ => return merge_heap_with(filtered, out, start, |i, _| byte_pair(i)),
        }
        let mut pairs = [NO_PAIR; LINEAR_MAX];
        for (i, pair) in pairs.iter_mut().enumerate().take(bytes.len() - 1) {
            *pair = byte_pair(i);
        }
        merge_linear_with(filtered, out, start, &mut pairs);
    }
}

/// A pair of ids hashed to 64 bits (Fibonacci hashing): the top bits are the best mixed.
#[inline(always)]
pub(crate) fn pair_hash(a: u32, b: u32) -> u64 {
    (u64::from(a) << 32 | u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// A Bloom filter of the merge table's pairs: two bits in one 64-bit word per pair, 16 to 32
/// bits per pair. Inside a long piece's parts most pairs made by a merge are not merges
/// (random letters, cl100k: 95% of them), and the merge table answers "no" only after a
/// probe that often misses the cache; the filter answers most of them from one word.
#[derive(Debug)]
struct PairFilter {
    words: Box<[u64]>,
    /// `64 - log2(words.len())`: a hash's top bits pick the word.
    shift: u32,
}

impl PairFilter {
    fn new(table: &MergeTable) -> Self {
        let words = (table.len() / 4).next_power_of_two().max(1);
        let mut filter = PairFilter {
            words: vec![0; words].into_boxed_slice(),
            shift: 64 - words.trailing_zeros(),
        };
        for &(a, b) in table.keys() {
            let (word, bits) = filter.place(a, b);
            filter.words[word] |= bits;
        }
        filter
    }

    /// The word and the two bits of the pair `(a, b)`.
    #[inline(always)]
    fn place(&self, a: u32, b: u32) -> (usize, u64) {
        let h = pair_hash(a, b);
        // A one-word filter has `shift` 64, which `>>` refuses: word 0.
        let word = h.checked_shr(self.shift).unwrap_or(0) as usize;
        (word, 1 << (h >> 20 & 63) | 1 << (h >> 26 & 63))
    }

    /// Brings the word of the pair `(a, b)` near the core.
    #[inline(always)]
    fn prefetch(&self, a: u32, b: u32) {
        let (word, _) = self.place(a, b);
        crate::pages::prefetch(self.words.as_ptr().wrapping_add(word));
    }

    /// False only for pairs that are not in the table.
    #[inline(always)]
    fn may_hold(&self, a: u32, b: u32) -> bool {
        let (word, bits) = self.place(a, b);
        self.words[word] & bits == bits
    }
}

#[cfg(test)]
fn merge_heap(table: &MergeTable, ids: &mut Vec<u32>) {
    merge_heap_skipping(table, ids, || false)
}

/// The heap algorithm with dropout: a popped merge is skipped with probability `p`; the
/// skipped ones go back on the heap after the next merge that happens.
pub(crate) fn merge_heap_dropout(
    table: &MergeTable,
    ids: &mut Vec<u32>,
    p: f64,
    rng: &mut SplitMix64,
) {
    merge_heap_skipping(table, ids, || rng.next_f64() < p)
}

/// Merges over a linked list with a heap of (rank, position): the lowest rank first, the
/// leftmost on ties; an entry whose pair changed since it was pushed is dropped when popped.
/// `skip()` is asked before each merge; a skipped entry returns to the heap after the next
/// merge (BPE-dropout), and merging stops when every candidate was skipped.
fn merge_heap_skipping(table: &MergeTable, ids: &mut Vec<u32>, mut skip: impl FnMut() -> bool) {
    const END: usize = usize::MAX;
    let n = ids.len();
    if n < 2 {
        return;
    }
    let mut next: Vec<usize> = (1..=n).map(|i| if i == n { END } else { i }).collect();
    let mut prev: Vec<usize> = (0..n).map(|i| if i == 0 { END } else { i - 1 }).collect();
    let mut alive = vec![true; n];
    let mut heap: BinaryHeap<Reverse<(u32, usize)>> = BinaryHeap::with_capacity(n);
    let mut skipped: Vec<Reverse<(u32, usize)>> = Vec::new();
    for i in 0..n - 1 {
        if let Some(&(rank, _)) = table.get(&(ids[i], ids[i + 1])) {
            heap.push(Reverse((rank, i)));
        }
    }
    while let Some(entry) = heap.pop() {
        let Reverse((rank, i)) = entry;
        let j = next[i];
        if !alive[i] || j == END {
            continue;
        }
        // The entry is stale unless the pair now at i still has this rank.
        let Some(&(r, merged)) = table.get(&(ids[i], ids[j])) else {
            continue;
        };
        if r != rank {
            continue;
        }
        if skip() {
            skipped.push(entry);
            continue;
        }
        ids[i] = merged;
        alive[j] = false;
        next[i] = next[j];
        if next[j] != END {
            prev[next[j]] = i;
        }
        heap.extend(skipped.drain(..));
        if prev[i] != END {
            if let Some(&(r, _)) = table.get(&(ids[prev[i]], ids[i])) {
                heap.push(Reverse((r, prev[i])));
            }
        }
        if next[i] != END {
            if let Some(&(r, _)) = table.get(&(ids[i], ids[next[i]])) {
                heap.push(Reverse((r, i)));
            }
        }
    }
    keep_alive(ids, &alive);
}

/// Long words: the heap algorithm's order (lowest rank, then leftmost), with the queue kept
/// as one bucket of positions per rank. Merges of one rank happen left to right and the
/// pairs they create arrive at their buckets in position order too, so nearly every push
/// is an append and every pop takes the front of a bucket: O(1) instead of a sift through
/// a heap of millions of entries (docs/performance.md#merging). Out-of-order positions go
/// to a small heap in the bucket.
pub(crate) fn merge_by_rank(table: &MergeTable, ids: &mut Vec<u32>) {
    const END: u32 = u32::MAX;
    let n = ids.len();
    if n < 2 {
        return;
    }
    if n >= END as usize {
        return merge_heap_skipping(table, ids, || false);
    }
    let mut next: Vec<u32> = (1..=n as u32)
        .map(|i| if i == n as u32 { END } else { i })
        .collect();
    let mut prev: Vec<u32> = (0..n as u32)
        .map(|i| i.checked_sub(1).unwrap_or(END))
        .collect();
    let mut alive = vec![true; n];
    let mut queue = RankQueue::default();
    for i in 0..n - 1 {
        if let Some(&(rank, _)) = table.get(&(ids[i], ids[i + 1])) {
            queue.push(rank, i as u32);
        }
    }
    while let Some((rank, at)) = queue.pop() {
        let i = at as usize;
        let j = next[i];
        if !alive[i] || j == END {
            continue;
        }
        let j = j as usize;
        // The entry is stale unless the pair now at i still has this rank.
        match table.get(&(ids[i], ids[j])) {
            Some(&(r, merged)) if r == rank => ids[i] = merged,
            _ => continue,
        }
        alive[j] = false;
        next[i] = next[j];
        if next[j] != END {
            prev[next[j] as usize] = at;
        }
        if prev[i] != END {
            let p = prev[i];
            if let Some(&(r, _)) = table.get(&(ids[p as usize], ids[i])) {
                queue.push(r, p);
            }
        }
        if next[i] != END {
            if let Some(&(r, _)) = table.get(&(ids[i], ids[next[i] as usize])) {
                queue.push(r, at);
            }
        }
    }
    keep_alive(ids, &alive);
}

/// Drops the symbols merged into their left neighbour.
fn keep_alive(ids: &mut Vec<u32>, alive: &[bool]) {
    let mut at = 0;
    ids.retain(|_| {
        at += 1;
        alive[at - 1]
    });
}

/// Positions waiting to merge, by rank: `pop` gives the lowest rank's leftmost position.
#[derive(Default)]
struct RankQueue {
    buckets: FxHashMap<u32, Bucket>,
    /// Ranks whose bucket may hold positions (a rank can be listed twice; an empty bucket
    /// found here is skipped).
    ranks: BinaryHeap<Reverse<u32>>,
}

#[derive(Default)]
struct Bucket {
    /// Positions pushed in increasing order.
    in_order: std::collections::VecDeque<u32>,
    /// Positions that arrived below the last of `in_order`.
    late: BinaryHeap<Reverse<u32>>,
}

impl RankQueue {
    fn push(&mut self, rank: u32, at: u32) {
        let bucket = self.buckets.entry(rank).or_default();
        if bucket.in_order.is_empty() && bucket.late.is_empty() {
            self.ranks.push(Reverse(rank));
        }
        match bucket.in_order.back() {
            Some(&last) if at < last => bucket.late.push(Reverse(at)),
            _ => bucket.in_order.push_back(at),
        }
    }

    fn pop(&mut self) -> Option<(u32, u32)> {
        loop {
            let &Reverse(rank) = self.ranks.peek()?;
            let bucket = self.buckets.get_mut(&rank)?;
            let front = bucket.in_order.front().copied();
            let late = bucket.late.peek().map(|&Reverse(at)| at);
            let at = match (front, late) {
                (Some(a), Some(b)) if b < a => bucket.late.pop().map(|Reverse(at)| at),
                (Some(_), _) => bucket.in_order.pop_front(),
                (None, Some(_)) => bucket.late.pop().map(|Reverse(at)| at),
                (None, None) => {
                    self.ranks.pop();
                    continue;
                }
            };
            return at.map(|at| (rank, at));
        }
    }
}

#[cfg(test)]
#[path = "merge_tests.rs"]
mod tests;
