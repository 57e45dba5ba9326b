//! Large merges on several threads: the words of a merge are cut into runs of disjoint
//! words, each run merged on its own thread, and the runs' changes combined in word order
//! (so the result is the same on any number of threads).

use rustc_hash::FxHashMap;

use super::words::{key, merge_word, Word};

/// Below this many words a merge runs on one thread (the hand-over would cost more).
pub(super) const PARALLEL_WORDS: usize = 4096;

/// What a merge does to the pairs of some words: each pair's net change of count and the
/// words where it gained occurrences, ascending. Aggregated per merge, so that the large
/// pair map is visited once per pair, not once per occurrence.
#[derive(Default)]
pub(super) struct Changes {
    pub(super) slots: FxHashMap<u64, u32>,
    pub(super) list: Vec<Change>,
}

pub(super) struct Change {
    pub(super) key: u64,
    pub(super) delta: i64,
    pub(super) gained: Vec<u32>,
}

impl Changes {
    pub(super) fn clear(&mut self) {
        self.slots.clear();
        self.list.clear();
    }

    pub(super) fn note(&mut self, key: u64, delta: i64, word: Option<u32>) {
        let list = &mut self.list;
        let slot = *self.slots.entry(key).or_insert_with(|| {
            list.push(Change {
                key,
                delta: 0,
                gained: Vec::new(),
            });
            (list.len() - 1) as u32
        });
        let change = &mut list[slot as usize];
        change.delta += delta;
        if let Some(w) = word {
            if change.gained.last() != Some(&w) {
                change.gained.push(w);
            }
        }
    }
}

/// Some of a merge's words (`list`, ascending) with the part of the table that holds them:
/// `words` starts at word `first_word`, `symbols` at symbol `first_symbol`.
pub(super) struct Run<'a> {
    pub(super) list: &'a [u32],
    pub(super) words: &'a mut [Word],
    pub(super) first_word: usize,
    pub(super) symbols: &'a mut [u32],
    pub(super) first_symbol: usize,
}

/// How many words a merge reads ahead (see `Run::merge`).
pub(super) const GATHER: usize = 64;

impl Run<'_> {
    pub(super) fn merge(mut self, (a, b, x): (u32, u32, u32), changes: &mut Changes) {
        let merged = key(a, b);
        for block in self.list.chunks(GATHER) {
            // Reading each word's place and first symbols in a tight loop of independent
            // loads lets their cache misses overlap; in the branchy merge loop below, each
            // would stall on its own (this is most of a large merge's time).
            let mut touch = 0u32;
            for &w in block {
                let word = &self.words[w as usize - self.first_word];
                touch ^= self.symbols[word.start - self.first_symbol];
            }
            std::hint::black_box(touch);
            self.merge_block(block, (a, b, x), merged, changes);
        }
    }

    pub(super) fn merge_block(
        &mut self,
        block: &[u32],
        (a, b, x): (u32, u32, u32),
        merged: u64,
        changes: &mut Changes,
    ) {
        for &w in block {
            let word = &mut self.words[w as usize - self.first_word];
            let count = word.count as i64;
            let start = word.start - self.first_symbol;
            let s = &mut self.symbols[start..start + word.len as usize];
            let len = merge_word(s, a, b, x, |k, gain| {
                if k != merged {
                    let (delta, word) = if gain {
                        (count, Some(w))
                    } else {
                        (-count, None)
                    };
                    changes.note(k, delta, word);
                }
            });
            word.len = len as u32;
        }
    }
}

/// Cuts a merge's word list into `n` runs, each with the disjoint part of the table its
/// words live in (words are stored in index order, so a range of words is a range of
/// symbols).
pub(super) fn split_runs<'a>(
    list: &'a [u32],
    n: usize,
    mut words: &'a mut [Word],
    mut symbols: &'a mut [u32],
) -> Vec<Run<'a>> {
    let mut runs = Vec::with_capacity(n);
    let (mut first_word, mut first_symbol) = (0, 0);
    let mut rest = list;
    for i in (1..=n).rev() {
        let take = rest.len() / i;
        let (here, after) = rest.split_at(take);
        // The run owns words up to the next run's first word.
        let end_word = after
            .first()
            .map_or(first_word + words.len(), |&w| w as usize);
        let end_symbol = match after.first() {
            Some(_) => words[end_word - first_word].start,
            None => first_symbol + symbols.len(),
        };
        let (w_here, w_rest) = std::mem::take(&mut words).split_at_mut(end_word - first_word);
        let (s_here, s_rest) = std::mem::take(&mut symbols).split_at_mut(end_symbol - first_symbol);
        runs.push(Run {
            list: here,
            words: w_here,
            first_word,
            symbols: s_here,
            first_symbol,
        });
        (words, symbols, rest) = (w_rest, s_rest, after);
        (first_word, first_symbol) = (end_word, end_symbol);
    }
    runs
}
