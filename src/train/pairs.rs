//! Pair statistics and the order in which pairs are merged: a max-heap of candidates
//! with lazy invalidation, ordered by count and then by the tie-break rule.

use std::cmp::Ordering;
use std::sync::Arc;

use super::TieBreak;

#[derive(Default)]
pub(super) struct PairStat {
    pub(super) count: i64,
    /// The words that may contain the pair, ascending (a superset: words that lost the
    /// pair are pruned lazily).
    pub(super) words: Vec<u32>,
    /// The merge (1-based) that is touching this pair, to list it once; 0 when none is.
    pub(super) touched: u32,
    /// Whether that merge added occurrences.
    pub(super) gained: bool,
}

/// A heap entry: a pair with its count and its tie key. For `First` the key is
/// (word, offset) when pushed; for the string rules, the first 8 bytes of each symbol,
/// which settle most ties without reading the strings.
#[derive(Clone, Copy)]
pub(super) struct Candidate {
    pub(super) count: u64,
    pub(super) pair: (u32, u32),
    pub(super) tie: (u64, u64),
}

/// The first 8 bytes of `name`, big-endian, zero-padded: ordered as the names are, except
/// that names equal in these bytes must be compared in full.
pub(super) fn prefix(name: &str) -> u64 {
    let mut bytes = [0u8; 8];
    let n = name.len().min(8);
    bytes[..n].copy_from_slice(&name.as_bytes()[..n]);
    u64::from_be_bytes(bytes)
}

/// A binary max-heap whose order needs the symbol table (for string tie keys), so it
/// takes the comparison as an argument: `better(x, y)` is true when x pops before y.
#[derive(Default)]
pub(super) struct Heap {
    pub(super) items: Vec<Candidate>,
}

impl Heap {
    pub(super) fn push(&mut self, c: Candidate, better: impl Fn(&Candidate, &Candidate) -> bool) {
        let items = &mut self.items;
        items.push(c);
        let mut i = items.len() - 1;
        while i > 0 {
            let parent = (i - 1) / 2;
            if !better(&items[i], &items[parent]) {
                break;
            }
            items.swap(i, parent);
            i = parent;
        }
    }

    pub(super) fn pop(
        &mut self,
        better: impl Fn(&Candidate, &Candidate) -> bool,
    ) -> Option<Candidate> {
        let items = &mut self.items;
        let last = items.pop()?;
        if items.is_empty() {
            return Some(last);
        }
        let top = std::mem::replace(&mut items[0], last);
        self.sift_down(0, &better);
        Some(top)
    }

    pub(super) fn sift_down(
        &mut self,
        mut i: usize,
        better: &impl Fn(&Candidate, &Candidate) -> bool,
    ) {
        let items = &mut self.items;
        loop {
            let left = 2 * i + 1;
            if left >= items.len() {
                break;
            }
            let right = left + 1;
            let child = if right < items.len() && better(&items[right], &items[left]) {
                right
            } else {
                left
            };
            if !better(&items[child], &items[i]) {
                break;
            }
            items.swap(i, child);
            i = child;
        }
    }

    pub(super) fn heapify(&mut self, better: impl Fn(&Candidate, &Candidate) -> bool) {
        for i in (0..self.items.len() / 2).rev() {
            self.sift_down(i, &better);
        }
    }
}

/// The heap order: greater count first, then the rule's preferred pair.
pub(super) fn better(
    tie: TieBreak,
    names: &[Arc<str>],
) -> impl Fn(&Candidate, &Candidate) -> bool + '_ {
    move |x, y| {
        if x.count != y.count {
            return x.count > y.count;
        }
        match tie {
            TieBreak::Lexicographic => strings_order(x, y, names) == Ordering::Less,
            TieBreak::SubwordNmt => strings_order(x, y, names) == Ordering::Greater,
            TieBreak::First => x.tie < y.tie,
        }
    }
}

/// (first symbol, second symbol) of x against y, as strings.
pub(super) fn strings_order(x: &Candidate, y: &Candidate, names: &[Arc<str>]) -> Ordering {
    let name = |id: u32| &names[id as usize];
    x.tie
        .0
        .cmp(&y.tie.0)
        .then_with(|| name(x.pair.0).cmp(name(y.pair.0)))
        .then_with(|| x.tie.1.cmp(&y.tie.1))
        .then_with(|| name(x.pair.1).cmp(name(y.pair.1)))
}
