//! learn-bpe: subword-nmt's learner by default, the textbook one on request.
//!
//! Invariant: with `Rule::SubwordNmt` the merges equal subword-nmt 0.3.8's on any word
//! table. Reason: its codes files are compared and cached by its users. Its statistics
//! leave true pair counts only on words holding whitespace other than a space (tabs in
//! code) or the text `</w>` (`learn_bpe`, its algorithm step for step, says how); a table
//! without such a word goes to the core trainer (`crate::train`, `TieBreak::SubwordNmt`),
//! which gives the same codes there (the corpora of tests/test_nmt.py and
//! `plain_tables_learn_alike` below) and is 3× faster (docs/performance.md#subword-nmt-commands).

use super::learn_bpe::{is_python_space, learn_as_subword_nmt, Merge};
use crate::count::WordTable;
use crate::error::Result;
use crate::nmt::END_OF_WORD;
use crate::symbols::{EndOfWord, Kind, SymbolRules};
use crate::train::{train, TieBreak, TrainConfig};

/// Which learner: subword-nmt's own (its codes on any text) or the textbook one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    SubwordNmt,
    Textbook,
}

/// Whether subword-nmt's statistics can leave true counts on this word: it holds whitespace
/// (its symbols will), the text of the end-of-word marker, or it is counted 0 times
/// (`--dict-input`: its updates still put pruned pairs back into `stats` at 0, and pruning
/// them again sets their kept count to 0).
fn may_mislead(word: &str, count: u64) -> bool {
    count == 0 || word.chars().any(is_python_space) || word.contains(END_OF_WORD)
}

/// learn-bpe on a word table (words in order of first appearance; with `--dict-input`
/// counts may be 0): up to `num_symbols` merges, each with the count reported for it;
/// fewer when the best pair falls below `min_frequency`. `progress` gets the number of
/// merges done so far.
pub fn learn(
    table: &WordTable,
    num_symbols: usize,
    min_frequency: u64,
    rule: Rule,
    progress: &mut dyn FnMut(usize),
) -> Result<Vec<Merge>> {
    if rule == Rule::SubwordNmt && table.iter().any(|(w, c)| may_mislead(w, c)) {
        let min = i64::try_from(min_frequency).unwrap_or(i64::MAX);
        return Ok(learn_as_subword_nmt(table, num_symbols, min, progress));
    }
    // Words counted 0 times add no pair count: the textbook learner leaves them out.
    let counted;
    let table = if table.iter().any(|(_, c)| c == 0) {
        let mut t = WordTable::default();
        table
            .iter()
            .filter(|&(_, c)| c > 0)
            .for_each(|(w, c)| t.add(w, c));
        counted = t;
        &counted
    } else {
        table
    };
    let config = TrainConfig {
        rules: SymbolRules {
            kind: Kind::Classic,
            end_of_word: EndOfWord::Attached,
            end_of_word_symbol: END_OF_WORD.to_string(),
        },
        num_merges: Some(num_symbols),
        vocab_size: None,
        min_frequency,
        tie_break: TieBreak::SubwordNmt,
        reserved: 0,
    };
    let trained = train(table, &config, &mut |done: usize, _: Option<usize>| {
        progress(done)
    })?;
    // More merges than asked come back when a merge makes a string that already existed.
    Ok(trained
        .merges
        .into_iter()
        .zip(trained.counts)
        .map(|((a, b), count)| (a, b, i64::try_from(count).unwrap_or(i64::MAX)))
        .take(num_symbols)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_tables_learn_alike() {
        // Words of a few letters, Zipf-like counts: many ties, overlapping pairs (aaa).
        let mut state = 7u64;
        let mut next = |n: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % n
        };
        let mut table = WordTable::default();
        for _ in 0..3000 {
            let len = 1 + next(7) as usize;
            let word: String = (0..len)
                .map(|_| b"aabcde"[next(6) as usize] as char)
                .collect();
            table.add(&word, 1 + next(4) * next(4));
        }
        for min in [1, 2, 5] {
            let exact = learn_as_subword_nmt(&table, 400, min as i64, &mut |_| {});
            let textbook = learn(&table, 400, min, Rule::Textbook, &mut |_| {}).unwrap();
            assert_eq!(exact, textbook, "min_frequency {min}");
            assert!(exact.len() > 50);
        }
    }
}
