//! Backtracking against the merge loop (`merge.rs`) on hand-made, trained and random
//! ranked vocabularies.

use proptest::prelude::*;

use super::*;
use crate::rng::SplitMix64;

/// A ranked byte vocabulary, id = rank = index: the 256 bytes first, then `extra`.
fn vocab(extra: &[&[u8]]) -> Vec<Vec<u8>> {
    (0..=255u8)
        .map(|b| vec![b])
        .chain(extra.iter().map(|t| t.to_vec()))
        .collect()
}

/// tiktoken's rule as `bpe.rs` builds it: every split of a token into two tokens is a
/// pair that makes it, ranked by its id.
fn rank_table(tokens: &[Vec<u8>]) -> MergeTable {
    let ids: rustc_hash::FxHashMap<&[u8], u32> = tokens
        .iter()
        .enumerate()
        .map(|(id, t)| (t.as_slice(), id as u32))
        .collect();
    let mut table = MergeTable::default();
    for (id, t) in tokens.iter().enumerate() {
        for cut in 1..t.len() {
            if let (Some(&a), Some(&b)) = (ids.get(&t[..cut]), ids.get(&t[cut..])) {
                let slot = table.entry((a, b)).or_insert((id as u32, id as u32));
                if (id as u32) < slot.0 {
                    *slot = (id as u32, id as u32);
                }
            }
        }
    }
    table
}

fn build(tokens: &[Vec<u8>]) -> (Option<Backtrack>, MergeTable) {
    let table = rank_table(tokens);
    let with_ids = tokens
        .iter()
        .enumerate()
        .map(|(id, t)| (id as u32, t.as_slice()));
    (Backtrack::new(with_ids, tokens.len(), &table), table)
}

/// The merge loop's result (`merge.rs`), the reference; bytes are ids 0..=255.
fn by_merging(table: &MergeTable, bytes: &[u8]) -> Vec<u32> {
    let mut ids: Vec<u32> = bytes.iter().map(|&b| b as u32).collect();
    apply_merges(table, &mut ids);
    ids
}

fn by_backtracking(bt: &Backtrack, table: &MergeTable, bytes: &[u8]) -> Vec<u32> {
    let mut out = vec![7, 7];
    assert!(bt.encode(table, bytes, &mut out), "{bytes:?}");
    assert_eq!(out[..2], [7, 7]);
    out.split_off(2)
}

fn assert_same(tokens: &[Vec<u8>], texts: impl Iterator<Item = Vec<u8>>) -> usize {
    let (bt, table) = build(tokens);
    let bt = bt.expect("backtracking applies to this vocabulary");
    let mut n = 0;
    for text in texts.chain(tokens.iter().cloned()) {
        let want = by_merging(&table, &text);
        assert_eq!(by_backtracking(&bt, &table, &text), want, "{text:?}");
        n += 1;
    }
    n
}

/// Every string over `alphabet` up to `max` bytes.
fn all_strings(alphabet: &[u8], max: usize) -> Vec<Vec<u8>> {
    let mut level = vec![Vec::new()];
    let mut all = Vec::new();
    for _ in 0..max {
        level = level
            .iter()
            .flat_map(|s| {
                alphabet.iter().map(move |&c| {
                    let mut t = s.clone();
                    t.push(c);
                    t
                })
            })
            .collect();
        all.extend(level.iter().cloned());
    }
    all
}

#[test]
fn hand_made_vocabularies_match_merging() {
    // Runs of one letter, overlapping words, a token longer than its merges suggest.
    let runs = vocab(&[
        b"aa", b"aaaa", b"aaa", b"ab", b"ba", b"aab", b"abab", b"bab",
    ]);
    assert_same(&runs, all_strings(b"ab", 10).into_iter());
    let words = vocab(&[
        b"th", b"he", b"the", b" t", b" the", b"er", b"her", b" her", b"ee", b"eee",
    ]);
    assert_same(&words, all_strings(b" ehrt", 6).into_iter());
    let long: Vec<u8> = b"aab".repeat(400);
    assert_same(&runs, [long, vec![b'a'; 1000], vec![b'b'; 999]].into_iter());
}

#[test]
fn tokens_merging_never_makes_are_left_out() {
    // "bc" merges first in "abcd", and neither "abc" nor "bcd" is a token: "abcd" is
    // never made, and the search must not take it.
    let tokens = vocab(&[b"bc", b"abcd", b"xy", b"xyz", b"yz"]);
    let (bt, table) = build(&tokens);
    assert_eq!(by_merging(&table, b"abcd"), [97, 256, 100]);
    assert_eq!(bt.expect("applies").info[257].len, 0);
    assert_same(&tokens, all_strings(b"abcdxyz", 5).into_iter());
}

#[test]
fn a_token_made_by_a_higher_ranked_part_refuses() {
    // BPE of "abc" merges "ab" (rank 257) then "abc" (rank 256): the pair check could
    // not undo that order, so the model keeps merging.
    let tokens = vocab(&[b"abc", b"ab"]);
    let (bt, table) = build(&tokens);
    assert_eq!(by_merging(&table, b"abc"), [256]);
    assert!(bt.is_none());
}

#[test]
fn duplicate_or_missing_bytes_refuse() {
    let mut tokens = vocab(&[b"ab"]);
    tokens.push(b"ab".to_vec());
    assert!(build(&tokens).0.is_none());
    let no_byte: Vec<Vec<u8>> = (0..255u8).map(|b| vec![b]).collect();
    assert!(build(&no_byte).0.is_none());
}

/// A vocabulary learned as BPE learns one: the most frequent adjacent pair in a word
/// list becomes the next token.
fn trained(rng: &mut SplitMix64, alphabet: &[u8], merges: usize) -> Vec<Vec<u8>> {
    let words: Vec<Vec<Vec<u8>>> = (0..300)
        .map(|_| {
            let len = rng.below(1, 12) as usize;
            let pick = |rng: &mut SplitMix64| {
                // Skewed letters, so that some pairs are much more frequent.
                let i = rng.below(0, alphabet.len() as u32) as usize;
                vec![alphabet[i * rng.below(0, 2) as usize]]
            };
            (0..len).map(|_| pick(rng)).collect()
        })
        .collect();
    let mut tokens = vocab(&[]);
    let mut words = words;
    for _ in 0..merges {
        let mut counts: std::collections::BTreeMap<(Vec<u8>, Vec<u8>), usize> = Default::default();
        for w in &words {
            for p in w.windows(2) {
                *counts.entry((p[0].clone(), p[1].clone())).or_default() += 1;
            }
        }
        let Some(((a, b), _)) = counts.into_iter().max_by_key(|(k, c)| (*c, k.clone())) else {
            break;
        };
        let joined = [a.clone(), b.clone()].concat();
        if !tokens.contains(&joined) {
            tokens.push(joined.clone());
        }
        for w in words.iter_mut() {
            let mut i = 0;
            while i + 1 < w.len() {
                if w[i] == a && w[i + 1] == b {
                    w[i] = joined.clone();
                    w.remove(i + 1);
                }
                i += 1;
            }
        }
    }
    tokens
}

fn random_text(rng: &mut SplitMix64, alphabet: &[u8], len: usize) -> Vec<u8> {
    (0..len)
        .map(|_| alphabet[rng.below(0, alphabet.len() as u32) as usize])
        .collect()
}

#[test]
fn trained_vocabularies_match_merging() {
    let mut rng = SplitMix64::new(3);
    for round in 0..40 {
        let alphabet: &[u8] = if round % 2 == 0 { b"ab c" } else { b"abcdefg " };
        let tokens = trained(&mut rng, alphabet, 60);
        let texts: Vec<Vec<u8>> = (0..60)
            .map(|i| {
                let len = if i % 10 == 0 { 500 } else { i % 40 };
                random_text(&mut rng, alphabet, len)
            })
            .collect();
        assert_same(&tokens, texts.into_iter());
    }
}

#[test]
fn random_vocabularies_match_merging_where_they_apply() {
    // Tokens in any rank order: many vocabularies refuse, the rest must match.
    let mut rng = SplitMix64::new(5);
    let (mut applied, mut refused) = (0, 0);
    for _ in 0..400 {
        let mut tokens = vocab(&[]);
        for _ in 0..rng.below(0, 40) {
            let len = rng.below(2, 6) as usize;
            let t = random_text(&mut rng, b"abc", len);
            if !tokens.contains(&t) {
                tokens.push(t);
            }
        }
        match build(&tokens).0 {
            Some(_) => {
                let texts = (0..30).map(|i| random_text(&mut rng, b"abc", i * 3));
                assert_same(&tokens, texts.collect::<Vec<_>>().into_iter());
                applied += 1;
            }
            None => refused += 1,
        }
    }
    assert!(
        applied > 100 && refused > 20,
        "{applied} applied, {refused} refused"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None,
        ..ProptestConfig::default() })]

    /// Any ranked vocabulary over a small alphabet (tokens in any rank order): where
    /// backtracking applies it gives the merge loop's result, on any text.
    #[test]
    fn random_vocabularies_match_merging_or_refuse(
        extra in proptest::collection::vec("[abc]{2,5}", 0..30),
        texts in proptest::collection::vec("[abc]{0,80}", 1..20),
    ) {
        let mut tokens = vocab(&[]);
        for t in extra {
            if !tokens.contains(&t.as_bytes().to_vec()) {
                tokens.push(t.into_bytes());
            }
        }
        let (bt, table) = build(&tokens);
        if let Some(bt) = bt {
            for text in texts.iter().map(|t| t.as_bytes()).chain(tokens.iter().map(|t| &t[..])) {
                prop_assert_eq!(by_backtracking(&bt, &table, text), by_merging(&table, text));
            }
        }
    }
}
