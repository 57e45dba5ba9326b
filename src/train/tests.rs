//! Training on hand-made tables: tie-break rules, overlapping runs, thread counts.

use super::*;

fn table(words: &[(&str, u64)]) -> WordTable {
    let mut t = WordTable::default();
    for (w, c) in words {
        t.add(w, *c);
    }
    t
}

fn config(tie_break: TieBreak, n: usize) -> TrainConfig {
    TrainConfig {
        rules: SymbolRules {
            kind: Kind::Classic,
            end_of_word: EndOfWord::Separate,
            end_of_word_symbol: "</w>".into(),
        },
        num_merges: Some(n),
        vocab_size: None,
        min_frequency: 1,
        tie_break,
        reserved: 0,
    }
}

fn pairs(t: &Trained) -> Vec<(&str, &str)> {
    t.merges
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect()
}

#[test]
fn sennrich_2016_example_first_ties() {
    let t = table(&[("low", 5), ("lower", 2), ("newest", 6), ("widest", 3)]);
    let got = train(&t, &config(TieBreak::First, 10), &mut |_, _| {}).unwrap();
    assert_eq!(
        pairs(&got),
        [
            ("e", "s"),
            ("es", "t"),
            ("est", "</w>"),
            ("l", "o"),
            ("lo", "w"),
            ("n", "e"),
            ("ne", "w"),
            ("new", "est</w>"),
            ("low", "</w>"),
            ("w", "i")
        ]
    );
}

#[test]
fn overlapping_runs_merge_left_to_right() {
    let t = table(&[("aaaa", 1), ("aaa", 1)]);
    let got = train(&t, &config(TieBreak::First, 2), &mut |_, _| {}).unwrap();
    // "aaaa" → aa aa and "aaa" → aa a: the first pair of the new table is (aa, aa).
    assert_eq!(pairs(&got), [("a", "a"), ("aa", "aa")]);
    let lex = train(&t, &config(TieBreak::Lexicographic, 2), &mut |_, _| {}).unwrap();
    // All remaining pairs count 1; "a" < "aa" makes (a, </w>) the smallest.
    assert_eq!(pairs(&lex), [("a", "a"), ("a", "</w>")]);
}

#[test]
fn same_merges_on_any_number_of_threads() {
    // Enough words sharing pairs that the first merges take the parallel path.
    let mut t = WordTable::default();
    let mut state = 12345u64;
    for i in 0..6 * PARALLEL_WORDS as u64 {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let len = 3 + (state >> 60) as usize;
        let word: String = (0..len)
            .map(|k| char::from(b'a' + ((state >> (4 * (k % 16))) % 5) as u8))
            .collect();
        t.add(&word, 1 + i % 7);
    }
    for tie in [
        TieBreak::Lexicographic,
        TieBreak::First,
        TieBreak::SubwordNmt,
    ] {
        let run = |threads| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| train(&t, &config(tie, 300), &mut |_, _| {}).unwrap())
        };
        let one = run(1);
        assert_eq!(one.merges.len(), 300);
        assert_eq!(one, run(3), "{tie:?}");
    }
}

#[test]
fn vocab_size_below_alphabet_is_an_error() {
    let t = table(&[("abc", 1)]);
    let mut c = config(TieBreak::First, 10);
    c.vocab_size = Some(2);
    let err = train(&t, &c, &mut |_, _| {}).unwrap_err();
    assert!(err.message.contains("at least 4"), "{}", err.message);
    assert!(train(&WordTable::default(), &c, &mut |_, _| {}).is_err());
}
