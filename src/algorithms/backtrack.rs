//! Backtracking BPE for ranked byte-level vocabularies (tiktoken's rule: a pair merges into
//! the token its bytes make, ranked by that token's id): the encoding of a piece found token
//! by token, left to right, instead of by merging. Time is linear in the piece and memory is
//! the output plus one bit per byte (the idea of GitHub's rust-gems `bpe` crate; written
//! here from its description).
//!
//! Two tokens side by side are a *valid pair* when BPE of their two byte strings joined
//! gives those two tokens back. Tokens whose adjacent pairs are all valid are the BPE
//! encoding of their bytes (no merge across a boundary happens in the whole if none happens
//! in any pair, as each side evolves the same in both), so that encoding is the only chain
//! of valid pairs over the bytes, and the chain over any prefix is fixed too. The search
//! takes at each position the longest token that fits, then shorter ones, and backtracks
//! when none does, marking the position so that it is never tried again.
//!
//! This equals BPE when every token that BPE can produce is built by a last merge of two
//! lower-ranked tokens (found by BPE of its bytes with the tokens ranked below it): then a
//! pair's check can undo both tokens' merges in reverse rank order. `Backtrack::new` checks
//! that and returns `None` for vocabularies where it fails; tokens that BPE never produces
//! (BPE of their own bytes gives something else) are left out of the search.

use super::bpe::BytePairs;
use super::merge::{apply_merges, pair_hash, MergeTable};

const NONE: u32 = u32::MAX;

#[derive(Debug, Clone)]
pub struct Backtrack {
    trie: Trie,
    /// Per id, what the search and the pair check read together (one cache line).
    info: Vec<Info>,
    /// Byte pairs that some token holds side by side: a pair of tokens whose boundary
    /// bytes are not one cannot merge across it at any depth.
    joined: BytePairs,
    /// A bit per hashed pair of ids, set for every pair of the merge table: most pairs the
    /// check asks about are not merges, and this answers them from 1 MiB instead of the
    /// merge table (several MiB: a cache miss each).
    pairs: Vec<u64>,
}

#[derive(Debug, Clone, Copy)]
struct Info {
    /// Byte length (0: not searched for).
    len: u16,
    first: u8,
    last: u8,
    /// The longest searched-for token that is a proper prefix of this one, or `NONE`.
    shorter: u32,
    /// The two tokens its last merge joins; `NONE` for a single byte.
    left: u32,
    right: u32,
}

const NO_INFO: Info = Info {
    len: 0,
    first: 0,
    last: 0,
    shorter: NONE,
    left: NONE,
    right: NONE,
};

const PAIR_BITS: u32 = 23;

#[inline]
fn pair_bit(a: u32, b: u32) -> usize {
    (pair_hash(a, b) >> (64 - PAIR_BITS)) as usize
}

impl Backtrack {
    /// The tables for the tokens `(id, bytes)` (ids below `size`) and the merge table built
    /// from them by rank; `None` when backtracking would not give BPE's result (see the
    /// module header), when two tokens have the same bytes, or when a byte has no token.
    pub fn new<'a>(
        tokens: impl Iterator<Item = (u32, &'a [u8])>,
        size: usize,
        merges: &MergeTable,
    ) -> Option<Backtrack> {
        let mut info = vec![NO_INFO; size];
        let mut all: Vec<(u32, &[u8])> = Vec::new();
        let mut joined = BytePairs::default();
        for (id, bytes) in tokens {
            let slot = info.get_mut(id as usize)?;
            let (&first, &last) = (bytes.first()?, bytes.last()?);
            if slot.len != 0 || id == NONE {
                return None;
            }
            *slot = Info {
                len: u16::try_from(bytes.len()).ok()?,
                first,
                last,
                ..NO_INFO
            };
            for pair in bytes.windows(2) {
                joined.insert(pair[0], pair[1]);
            }
            all.push((id, bytes));
        }
        let mut pairs = vec![0u64; 1 << (PAIR_BITS - 6)];
        for &(a, b) in merges.keys() {
            let bit = pair_bit(a, b);
            pairs[bit / 64] |= 1 << (bit % 64);
        }
        let trie = Trie::new(&all)?;
        let mut bt = Backtrack {
            trie,
            info,
            joined,
            pairs,
        };
        bt.find_shorter();
        for b in 0..=255u8 {
            let id = bt.byte_token(b);
            if id == NONE || bt.info[id as usize].len != 1 {
                return None;
            }
        }
        // Splits in rank order: a token's parts are lower-ranked, so already split.
        if !all.is_sorted_by_key(|&(id, _)| id) {
            all.sort_unstable_by_key(|&(id, _)| id);
        }
        // Each token's splits into two tokens, from the merge table (which holds them all),
        // grouped by token.
        let mut starts = vec![0u32; size + 1];
        for &(_, merged) in merges.values() {
            if let Some(count) = starts.get_mut(merged as usize + 1) {
                *count += 1;
            }
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut splits = vec![(NONE, NONE); starts[size] as usize];
        let mut filled = starts.clone();
        for (&pair, &(_, merged)) in merges {
            if let Some(at) = filled
                .get_mut(merged as usize)
                .filter(|_| (merged as usize) < size)
            {
                splits[*at as usize] = pair;
                *at += 1;
            }
        }
        let mut dropped = false;
        for &(t, bytes) in &all {
            if bytes.len() == 1 {
                continue;
            }
            let candidates = &splits[starts[t as usize] as usize..starts[t as usize + 1] as usize];
            match bt.find_split(merges, t, candidates) {
                Some((l, r)) => {
                    bt.info[t as usize].left = l;
                    bt.info[t as usize].right = r;
                }
                None => {
                    // Not built from two lower-ranked tokens: BPE must never produce it
                    // (else the rank order that the pair check relies on does not hold).
                    let mut ids: Vec<u32> = bytes.iter().map(|&b| bt.byte_token(b)).collect();
                    apply_merges(merges, &mut ids);
                    if ids == [t] {
                        return None;
                    }
                    bt.info[t as usize].len = 0;
                    dropped = true;
                }
            }
        }
        if dropped {
            for node in bt.trie.nodes.iter_mut() {
                if node.token != NONE && bt.info[node.token as usize].len == 0 {
                    node.token = NONE;
                }
            }
            bt.find_shorter();
        }
        Some(bt)
    }

    fn byte_token(&self, b: u8) -> u32 {
        self.trie.nodes[self.trie.root[b as usize] as usize].token
    }

    /// `shorter` from the trie: each token's nearest ancestor that is a token.
    fn find_shorter(&mut self) {
        let trie = &self.trie;
        // above[node]: the nearest token strictly above `node` (nodes are numbered parents
        // first).
        let mut above = vec![NONE; trie.nodes.len()];
        for node in 0..trie.nodes.len() - 1 {
            let here = match trie.nodes[node].token {
                NONE => above[node],
                token => token,
            };
            for child in trie.children(node as u32) {
                above[child as usize] = here;
            }
        }
        for (node, n) in trie.nodes.iter().enumerate() {
            if n.token != NONE {
                self.info[n.token as usize].shorter = above[node];
            }
        }
    }

    /// The last merge of token `t`: of the `candidates` (its splits into two tokens), the
    /// lower-ranked pair that is valid when only tokens ranked below `t` may merge. At most
    /// one is: the last merge of BPE restricted to those tokens.
    fn find_split(
        &self,
        merges: &MergeTable,
        t: u32,
        candidates: &[(u32, u32)],
    ) -> Option<(u32, u32)> {
        let usable = |x: u32| x < t && self.info.get(x as usize).is_some_and(|i| i.len != 0);
        candidates
            .iter()
            .copied()
            .find(|&(l, r)| usable(l) && usable(r) && self.valid_pair(merges, l, r, t))
    }

    /// Whether BPE of the bytes of `a` then `b` gives `a`, `b`, counting only merges ranked
    /// below `limit`. Both tokens' merges are undone toward the boundary, the later one first;
    /// at each step the two tokens facing each other must not merge before the merge that
    /// was just undone (which ended their being neighbours).
    #[inline]
    fn valid_pair(&self, merges: &MergeTable, mut a: u32, mut b: u32, mut limit: u32) -> bool {
        let (ia, ib) = (&self.info[a as usize], &self.info[b as usize]);
        if !self.joined.contains(ia.last, ib.first) {
            return true;
        }
        let (mut a_right, mut b_left) = (ia.right, ib.left);
        loop {
            let bit = pair_bit(a, b);
            if self.pairs[bit / 64] >> (bit % 64) & 1 != 0 {
                if let Some(&(rank, _)) = merges.get(&(a, b)) {
                    if rank < limit {
                        return false;
                    }
                }
            }
            if a_right != NONE && (b_left == NONE || a > b) {
                // `a` was made last; a merge across of the same rank would be to its right,
                // so it would come after.
                limit = a;
                a = a_right;
                a_right = self.info[a as usize].right;
            } else if b_left != NONE {
                // `b` was made last; a merge across of the same rank is to its left: first.
                limit = b.saturating_add(1);
                b = b_left;
                b_left = self.info[b as usize].left;
            } else {
                return true;
            }
        }
    }

    /// Appends the BPE encoding of `bytes`; false (and `out` unchanged) if the search found
    /// none, which a vocabulary accepted by `new` never gives.
    pub fn encode(&self, merges: &MergeTable, bytes: &[u8], out: &mut Vec<u32>) -> bool {
        let start = out.len();
        let n = bytes.len();
        if n == 0 {
            return true;
        }
        // Positions from which no continuation fits (the tokens before them are fixed).
        let mut dead = vec![0u64; n / 64 + 1];
        let mut pos = 0;
        let mut token = self.trie.longest_at(bytes, 0);
        loop {
            let end = pos + self.info[token as usize].len as usize;
            let fits = dead[end / 64] >> (end % 64) & 1 == 0
                && (out.len() == start || self.valid_pair(merges, out[out.len() - 1], token, NONE));
            if fits {
                out.push(token);
                if end == n {
                    return true;
                }
                pos = end;
                token = self.trie.longest_at(bytes, pos);
            } else if self.info[token as usize].shorter != NONE {
                token = self.info[token as usize].shorter;
            } else {
                dead[pos / 64] |= 1 << (pos % 64);
                if out.len() == start {
                    return false;
                }
                let Some(last) = out.pop() else {
                    return false;
                };
                // Retried from its position: its end is now dead, so shorter ones come next.
                token = last;
                pos -= self.info[token as usize].len as usize;
            }
        }
    }
}

/// The tokens' bytes as a trie; nodes are numbered level by level, in byte order within a
/// level, so a node's children are consecutive nodes.
#[derive(Debug, Clone)]
struct Trie {
    /// The node of each first byte.
    root: Box<[u32; 256]>,
    /// Per node, and one more whose `first` ends the last node's children.
    nodes: Vec<Node>,
    /// Per node: the byte leading to it.
    label: Vec<u8>,
}

#[derive(Debug, Clone, Copy)]
struct Node {
    /// The first child; the children of node n are `nodes[n].first..nodes[n + 1].first`.
    first: u32,
    /// The token ending here, or `NONE`.
    token: u32,
}

impl Trie {
    /// The trie of `tokens`; `None` if two have the same bytes.
    fn new(tokens: &[(u32, &[u8])]) -> Option<Trie> {
        // In byte order. Most comparisons are settled by the first 8 bytes as one integer
        // (zero-padded: a tie on them falls back to the bytes, where shorter comes first).
        let head = |b: &[u8]| {
            let mut word = [0u8; 8];
            let n = b.len().min(8);
            word[..n].copy_from_slice(&b[..n]);
            u64::from_be_bytes(word)
        };
        let mut sorted: Vec<(u64, &[u8], u32)> =
            tokens.iter().map(|&(id, b)| (head(b), b, id)).collect();
        sorted.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)));
        // The bytes again in that order, in one buffer: each level below reads every
        // token's next byte, which from scattered allocations would be a cache miss each.
        let mut flat = Vec::with_capacity(sorted.iter().map(|t| t.1.len()).sum());
        let mut spans = Vec::with_capacity(sorted.len());
        for &(_, bytes, id) in &sorted {
            spans.push((flat.len(), bytes.len(), id));
            flat.extend_from_slice(bytes);
        }
        drop(sorted);
        let mut token = vec![NONE];
        let mut label = vec![0u8];
        let mut children = vec![0u32];
        // The node each token reached so far (its prefix of the current depth), among the
        // tokens at least that long.
        let mut at: Vec<(u32, usize)> = (0..spans.len()).map(|k| (0, k)).collect();
        let mut depth = 0;
        while !at.is_empty() {
            let mut last: Option<(u32, u8)> = None;
            for (node, k) in at.iter_mut() {
                let (start, len, id) = spans[*k];
                let b = flat[start + depth];
                if last != Some((*node, b)) {
                    last = Some((*node, b));
                    children[*node as usize] += 1;
                    token.push(NONE);
                    label.push(b);
                    children.push(0);
                }
                let here = token.len() as u32 - 1;
                *node = here;
                if len == depth + 1 {
                    if token[here as usize] != NONE {
                        return None;
                    }
                    token[here as usize] = id;
                }
            }
            depth += 1;
            at.retain(|&(_, k)| spans[k].1 > depth);
        }
        // Children follow their parents' order, so the first child of node n comes after
        // the children of all nodes before it.
        let mut nodes = Vec::with_capacity(token.len() + 1);
        let mut next = 1u32;
        for (&count, &token) in children.iter().zip(&token) {
            nodes.push(Node { first: next, token });
            next += count;
        }
        nodes.push(Node {
            first: next,
            token: NONE,
        });
        let mut root = Box::new([0u32; 256]);
        for child in nodes[0].first..nodes[1].first {
            root[label[child as usize] as usize] = child;
        }
        Some(Trie { root, nodes, label })
    }

    fn children(&self, node: u32) -> std::ops::Range<u32> {
        self.nodes[node as usize].first..self.nodes[node as usize + 1].first
    }

    #[inline]
    fn child(&self, node: u32, b: u8) -> Option<u32> {
        let range = self.children(node);
        let labels = &self.label[range.start as usize..range.end as usize];
        labels
            .binary_search(&b)
            .ok()
            .map(|i| range.start + i as u32)
    }

    /// The longest token starting at `bytes[pos]` (every byte is a token).
    #[inline]
    fn longest_at(&self, bytes: &[u8], pos: usize) -> u32 {
        let mut node = self.root[bytes[pos] as usize];
        let mut best = self.nodes[node as usize].token;
        for &b in &bytes[pos + 1..] {
            match self.child(node, b) {
                Some(c) => {
                    node = c;
                    if self.nodes[c as usize].token != NONE {
                        best = self.nodes[c as usize].token;
                    }
                }
                None => break,
            }
        }
        best
    }
}

#[cfg(test)]
#[path = "backtrack_tests.rs"]
mod tests;
