//! apply-bpe's merge rule: subword-nmt merges *every* occurrence of the lowest-rank pair
//! at each step (and with BPE-dropout skips each pair occurrence with some probability).
//!
//! Invariant: `merge_all_occurrences` is subword-nmt's `encode` loop; `apply` uses the
//! faster one-pair-at-a-time `merge::apply_merges` only when
//! `merging_one_at_a_time_is_exact` says both agree, because that is O(n log n) on long
//! words where this loop is O(n) per merge.

use rustc_hash::FxHashMap;

use crate::algorithms::Pair;
use crate::rng::SplitMix64;

/// Merging one lowest-rank pair at a time (leftmost first) equals subword-nmt's merging of
/// all occurrences of the lowest-rank pair at once, unless a merge's result is a part of a
/// lower-rank merge: only then can a pair made by the first occurrence's merge jump ahead
/// of the remaining occurrences. Learned codes have that only when a string is made twice.
pub fn merging_one_at_a_time_is_exact(merges: &FxHashMap<Pair, (u32, u32)>) -> bool {
    let mut first_use: FxHashMap<u32, u32> = FxHashMap::default();
    for (&(a, b), &(rank, _)) in merges {
        for symbol in [a, b] {
            let slot = first_use.entry(symbol).or_insert(rank);
            *slot = (*slot).min(rank);
        }
    }
    merges
        .values()
        .all(|(rank, merged)| first_use.get(merged).is_none_or(|used| used > rank))
}

/// subword-nmt's merge loop: at each step, among the adjacent pairs that survive dropout
/// (each is dropped with probability `dropout`), take the one with the lowest rank and
/// merge all its surviving occurrences, left to right without overlap; stop when no pair
/// survives. O(n) per step: only used for dropout and for codes where one at a time differs.
pub fn merge_all_occurrences(
    table: &FxHashMap<Pair, (u32, u32)>,
    ids: &mut Vec<u32>,
    dropout: f64,
    rng: &mut SplitMix64,
) {
    let mut kept: Vec<bool> = Vec::with_capacity(ids.len());
    let mut next: Vec<u32> = Vec::with_capacity(ids.len());
    while ids.len() > 1 {
        kept.clear();
        let mut best: Option<(u32, u32, Pair)> = None;
        for w in ids.windows(2) {
            let keep = dropout <= 0.0 || rng.next_f64() > dropout;
            kept.push(keep);
            if !keep {
                continue;
            }
            let pair = (w[0], w[1]);
            if let Some(&(rank, merged)) = table.get(&pair) {
                if best.is_none_or(|(r, _, _)| rank < r) {
                    best = Some((rank, merged, pair));
                }
            }
        }
        let Some((_, merged, pair)) = best else {
            break;
        };
        next.clear();
        let mut i = 0;
        while i < ids.len() {
            if i + 1 < ids.len() && kept[i] && (ids[i], ids[i + 1]) == pair {
                next.push(merged);
                i += 2;
            } else {
                next.push(ids[i]);
                i += 1;
            }
        }
        std::mem::swap(ids, &mut next);
    }
}
