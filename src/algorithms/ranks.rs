//! tiktoken's rule, merges from ranks: a ranked byte vocabulary lists no merges, but each
//! token's merge is the one its lower-ranked tokens leave; recovering them lets ranked
//! vocabularies be written as merge lists (GPT-2, HF formats).

use rustc_hash::FxHashMap;

use super::merge::MergeTable;
use super::Pair;

/// The merge table under tiktoken's rule: every cut of a token into two tokens is a pair
/// that makes it, and a pair that makes several tokens makes the lowest-ranked one.
/// `cuts(i, found)` adds token `i`'s ((left, right), id) pairs to `found`, for `i` below
/// `count`; the tokens' halves are cut on two threads (most of the work is lookups, each a
/// cache miss in a 200k-token table) and the table is filled on one.
pub fn ranked_merges(
    count: usize,
    cuts: impl Fn(usize, &mut Vec<(Pair, u32)>) + Sync,
) -> MergeTable {
    let pairs_in = |tokens: std::ops::Range<usize>| {
        let mut found = Vec::with_capacity(3 * tokens.len());
        for i in tokens {
            cuts(i, &mut found);
        }
        found
    };
    let half = count / 2;
    let (first, second) =
        crate::threads::beside(count, || pairs_in(0..half), || pairs_in(half..count));
    // About two pairs a token (446,189 for o200k's 199,998): sized once rather than grown
    // through rehashes (docs/performance.md#cold-start-the-first-call).
    let mut table = MergeTable::default();
    table.reserve(first.len() + second.len());
    for (pair, id) in first.into_iter().chain(second) {
        let slot = table.entry(pair).or_insert((id, id));
        if id < slot.0 {
            *slot = (id, id);
        }
    }
    table
}

/// For a byte vocabulary with ranks (tiktoken's), where the merge that builds each token
/// cuts it: the length of the left part, or 0 when the token has no merge (a single byte,
/// or bytes that do not end in exactly two parts).
///
/// The parts are what tiktoken's algorithm leaves when it encodes the token's bytes with
/// only the tokens ranked below it: repeatedly merge the adjacent pair forming the
/// lowest-ranked token, the leftmost on a tie. `formats/tiktoken.py` keeps the same
/// algorithm in Python (`split_by_lower_ranks`), which tests compare with this one.
pub fn recover_merge_cuts(tokens: &[(&[u8], u32)]) -> Vec<usize> {
    let ranks: FxHashMap<&[u8], u32> = tokens.iter().copied().collect();
    let mut cuts = Vec::with_capacity(tokens.len());
    // parts[i] = (start, end) in the token; pair_ranks[i]: rank of parts[i] + parts[i + 1].
    let mut parts: Vec<(usize, usize)> = Vec::new();
    let mut pair_ranks: Vec<u32> = Vec::new();
    for &(token, limit) in tokens {
        let rank_of = |start: usize, end: usize| {
            ranks
                .get(&token[start..end])
                .copied()
                .filter(|&r| r < limit)
                .unwrap_or(limit)
        };
        parts.clear();
        parts.extend((0..token.len()).map(|i| (i, i + 1)));
        pair_ranks.clear();
        pair_ranks.extend((1..parts.len()).map(|i| rank_of(i - 1, i + 1)));
        while let Some((i, &best)) = pair_ranks
            .iter()
            .enumerate()
            .min_by_key(|&(i, &rank)| (rank, i))
        {
            if best >= limit {
                break;
            }
            parts[i].1 = parts[i + 1].1;
            parts.remove(i + 1);
            pair_ranks.remove(i);
            if i > 0 {
                pair_ranks[i - 1] = rank_of(parts[i - 1].0, parts[i].1);
            }
            if i < pair_ranks.len() {
                pair_ranks[i] = rank_of(parts[i].0, parts[i + 1].1);
            }
        }
        cuts.push(if parts.len() == 2 { parts[0].1 } else { 0 });
    }
    cuts
}
