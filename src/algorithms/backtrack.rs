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

use super::merge::{apply_merges, MergeTable};

const NONE: u32 = u32::MAX;

#[derive(Debug, Clone)]
pub struct Backtrack {
    trie: Trie,
    /// id → byte length (0: not searched for).
    len: Vec<u32>,
    /// id → the longest searched-for token that is a proper prefix of it, or `NONE`.
    shorter: Vec<u32>,
    /// id → the two tokens its last merge joins; `(NONE, NONE)` for a single byte.
    split: Vec<(u32, u32)>,
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
        let mut len = vec![0u32; size];
        let mut all: Vec<(u32, &[u8])> = Vec::new();
        for (id, bytes) in tokens {
            let slot = len.get_mut(id as usize)?;
            if bytes.is_empty() || *slot != 0 || id == NONE {
                return None;
            }
            *slot = u32::try_from(bytes.len()).ok()?;
            all.push((id, bytes));
        }
        let trie = Trie::new(&all)?;
        let mut bt = Backtrack {
            trie,
            len,
            shorter: vec![NONE; size],
            split: vec![(NONE, NONE); size],
        };
        bt.find_shorter();
        for b in 0..=255u8 {
            let id = bt.trie.token[bt.trie.root[b as usize] as usize];
            if id == NONE || bt.len[id as usize] != 1 {
                return None;
            }
        }
        // Splits in rank order: a token's parts are lower-ranked, so already split.
        if !all.is_sorted_by_key(|&(id, _)| id) {
            all.sort_unstable_by_key(|&(id, _)| id);
        }
        let mut dropped = false;
        for &(t, bytes) in &all {
            if bytes.len() == 1 {
                continue;
            }
            match bt.find_split(merges, t, bytes) {
                Some(parts) => bt.split[t as usize] = parts,
                None => {
                    // Not built from two lower-ranked tokens: BPE must never produce it
                    // (else the rank order that the pair check relies on does not hold).
                    let mut ids: Vec<u32> = bytes.iter().map(|&b| bt.byte_token(b)).collect();
                    apply_merges(merges, &mut ids);
                    if ids == [t] {
                        return None;
                    }
                    bt.len[t as usize] = 0;
                    dropped = true;
                }
            }
        }
        if dropped {
            for token in bt.trie.token.iter_mut() {
                if *token != NONE && bt.len[*token as usize] == 0 {
                    *token = NONE;
                }
            }
            bt.find_shorter();
        }
        Some(bt)
    }

    fn byte_token(&self, b: u8) -> u32 {
        self.trie.token[self.trie.root[b as usize] as usize]
    }

    /// `shorter` from the trie: each token's nearest ancestor that is a token.
    fn find_shorter(&mut self) {
        let trie = &self.trie;
        // above[node]: the nearest token strictly above `node` (nodes are numbered parents
        // first).
        let mut above = vec![NONE; trie.token.len()];
        for node in 0..trie.token.len() {
            let here = match trie.token[node] {
                NONE => above[node],
                token => token,
            };
            for child in trie.children(node as u32) {
                above[child as usize] = here;
            }
        }
        self.shorter.fill(NONE);
        for (node, &token) in trie.token.iter().enumerate() {
            if token != NONE {
                self.shorter[token as usize] = above[node];
            }
        }
    }

    /// The last merge of token `t`: the lower-ranked tokens `(l, r)` making its bytes that
    /// are a valid pair when only tokens ranked below `t` may merge.
    fn find_split(&self, merges: &MergeTable, t: u32, bytes: &[u8]) -> Option<(u32, u32)> {
        let usable = |x: u32| x < t && self.len[x as usize] != 0;
        let mut l = self.shorter[t as usize];
        while l != NONE {
            if usable(l) {
                let r = self.trie.exact(&bytes[self.len[l as usize] as usize..]);
                if r != NONE && usable(r) && self.valid_pair(merges, l, r, t) {
                    return Some((l, r));
                }
            }
            l = self.shorter[l as usize];
        }
        None
    }

    /// Whether BPE of the bytes of `a` then `b` gives `a`, `b`, counting only merges ranked
    /// below `limit`. Both tokens' merges are undone toward the boundary, the later one first;
    /// at each step the two tokens facing each other must not merge before the merge that
    /// was just undone (which ended their being neighbours).
    #[inline]
    fn valid_pair(&self, merges: &MergeTable, mut a: u32, mut b: u32, mut limit: u32) -> bool {
        loop {
            if let Some(&(rank, _)) = merges.get(&(a, b)) {
                if rank < limit {
                    return false;
                }
            }
            let a_right = self.split[a as usize].1;
            let b_left = self.split[b as usize].0;
            if a_right != NONE && (b_left == NONE || a > b) {
                // `a` was made last; a merge across of the same rank would be to its right,
                // so it would come after.
                limit = a;
                a = a_right;
            } else if b_left != NONE {
                // `b` was made last; a merge across of the same rank is to its left: first.
                limit = b.saturating_add(1);
                b = b_left;
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
            let end = pos + self.len[token as usize] as usize;
            let fits = dead[end / 64] >> (end % 64) & 1 == 0
                && (out.len() == start || self.valid_pair(merges, out[out.len() - 1], token, NONE));
            if fits {
                out.push(token);
                if end == n {
                    return true;
                }
                pos = end;
                token = self.trie.longest_at(bytes, pos);
            } else if self.shorter[token as usize] != NONE {
                token = self.shorter[token as usize];
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
                pos -= self.len[token as usize] as usize;
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
    /// Per node: the token ending there, or `NONE`.
    token: Vec<u32>,
    /// Per node: its first child; its children are `first[n]..first[n + 1]`.
    first: Vec<u32>,
    /// Per node: the byte leading to it.
    label: Vec<u8>,
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
        let tokens: Vec<(u32, &[u8])> = sorted.into_iter().map(|(_, b, id)| (id, b)).collect();
        let mut token = vec![NONE];
        let mut label = vec![0u8];
        let mut children = vec![0u32];
        // The node each token reached so far (its prefix of the current depth), among the
        // tokens at least that long.
        let mut at: Vec<(u32, usize)> = (0..tokens.len()).map(|k| (0, k)).collect();
        let mut depth = 0;
        while !at.is_empty() {
            let mut last: Option<(u32, u8)> = None;
            for (node, k) in at.iter_mut() {
                let bytes = tokens[*k].1;
                let b = bytes[depth];
                if last != Some((*node, b)) {
                    last = Some((*node, b));
                    children[*node as usize] += 1;
                    token.push(NONE);
                    label.push(b);
                    children.push(0);
                }
                let here = token.len() as u32 - 1;
                *node = here;
                if bytes.len() == depth + 1 {
                    if token[here as usize] != NONE {
                        return None;
                    }
                    token[here as usize] = tokens[*k].0;
                }
            }
            depth += 1;
            at.retain(|&(_, k)| tokens[k].1.len() > depth);
        }
        // Children follow their parents' order, so the first child of node n comes after
        // the children of all nodes before it.
        let mut first = Vec::with_capacity(token.len() + 1);
        let mut next = 1u32;
        for &count in &children {
            first.push(next);
            next += count;
        }
        first.push(next);
        let mut root = Box::new([0u32; 256]);
        for child in first[0]..first[1] {
            root[label[child as usize] as usize] = child;
        }
        Some(Trie {
            root,
            token,
            first,
            label,
        })
    }

    fn children(&self, node: u32) -> std::ops::Range<u32> {
        self.first[node as usize]..self.first[node as usize + 1]
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
        let mut best = self.token[node as usize];
        for &b in &bytes[pos + 1..] {
            match self.child(node, b) {
                Some(c) => {
                    node = c;
                    if self.token[c as usize] != NONE {
                        best = self.token[c as usize];
                    }
                }
                None => break,
            }
        }
        best
    }

    /// The token with exactly these bytes, or `NONE`.
    fn exact(&self, bytes: &[u8]) -> u32 {
        let Some((&b, rest)) = bytes.split_first() else {
            return NONE;
        };
        let mut node = self.root[b as usize];
        for &b in rest {
            match self.child(node, b) {
                Some(c) => node = c,
                None => return NONE,
            }
        }
        self.token[node as usize]
    }
}

#[cfg(test)]
#[path = "backtrack_tests.rs"]
mod tests;
