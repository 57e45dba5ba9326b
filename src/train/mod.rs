//! Stage 4a — train: learn merges from a word table.
//!
//! Pair counts (64-bit) and a pair → words index are built once, then kept up to date
//! after every merge from the words that contained the merged pair only: never a full
//! recount. The best pair comes from a max-heap with lazy invalidation: an entry whose
//! count or tie key went stale is corrected and pushed back when it reaches the top, which
//! is sound because an existing pair's count and first occurrence only get worse; pairs
//! that gain (those with the new symbol) are pushed fresh.
//!
//! Ties are broken by an explicit rule, so the result is deterministic and independent of
//! hash order and thread count:
//! - `Lexicographic`: the smallest pair, comparing the symbols as strings;
//! - `First`: the pair met first reading the table in order, each word left to right
//!   (reproduces Sennrich et al.'s (2016) reference code); the key is (word index, character offset), both stable;
//! - `SubwordNmt`: the greatest pair, as subword-nmt's `max(stats, key=(count, pair))`.
//!
//!
//! Layout: `words` holds the words as flat symbol ids and merges one in place; `pairs`
//! the pair statistics and the heap that picks the best pair; `parallel` splits a large
//! merge over the rayon threads. Words live in one flat `u32` buffer, pairs are keyed by
//! the two ids packed in a `u64`, and a merge's changes are summed per pair before the
//! large map is visited (why: see docs/performance.md#training).

mod pairs;
mod parallel;
#[cfg(test)]
mod tests;
mod words;

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::count::WordTable;
use crate::error::{Error, Result};
use crate::symbols::{EndOfWord, Kind, SymbolRules};
use pairs::{better, prefix, Candidate, Heap, PairStat};
use parallel::{split_runs, Changes, Run, PARALLEL_WORDS};
use words::{first_offset, key, unkey, Splitter, Symbols, Word};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TieBreak {
    Lexicographic,
    First,
    SubwordNmt,
}

impl TieBreak {
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "lexicographic" => Ok(TieBreak::Lexicographic),
            "first" => Ok(TieBreak::First),
            "subword-nmt" => Ok(TieBreak::SubwordNmt),
            other => Err(Error::invalid(format!(
                "unknown tie_break {other:?}: use lexicographic, first or subword-nmt"
            ))),
        }
    }
}

#[derive(Debug, Clone)]
pub struct TrainConfig {
    pub rules: SymbolRules,
    pub num_merges: Option<usize>,
    /// Target size of the whole vocabulary: `reserved` + alphabet + merged tokens.
    pub vocab_size: Option<usize>,
    pub min_frequency: u64,
    pub tie_break: TieBreak,
    /// Vocabulary entries outside the alphabet and merges (special tokens, `<unk>`).
    pub reserved: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trained {
    /// Every initial symbol, sorted (byte-level: the 256 bytes in byte order).
    pub alphabet: Vec<String>,
    pub merges: Vec<(String, String)>,
    /// How often each merge's pair occurred when it was chosen.
    pub counts: Vec<u64>,
}

/// Progress of a training run: merges done so far out of the expected number, if known.
pub trait Progress {
    fn merges(&mut self, done: usize, total: Option<usize>);
}

impl<F: FnMut(usize, Option<usize>)> Progress for F {
    fn merges(&mut self, done: usize, total: Option<usize>) {
        self(done, total)
    }
}

struct Trainer<'c> {
    config: &'c TrainConfig,
    names: Symbols,
    words: Vec<Word>,
    /// Every word's current symbols, back to back.
    symbols: Vec<u32>,
    pairs: FxHashMap<u64, PairStat>,
    heap: Heap,
    /// Merges done, for `PairStat::touched`.
    step: u32,
    /// The pairs the current merge touched (reused between merges).
    touched: Vec<u64>,
    /// The current merge's changes, on one thread (reused between merges).
    changes: Changes,
}

impl Trainer<'_> {
    /// A heap entry for `pair` as it is now, or None if no word holds it any more or it is
    /// too rare to be merged: a count never grows back without a fresh entry, so a pair
    /// below `min_frequency` can be left out (most pairs occur once: a smaller heap).
    fn candidate(&mut self, pair: (u32, u32), count: u64) -> Option<Candidate> {
        if count < self.config.min_frequency {
            return None;
        }
        let tie = match self.config.tie_break {
            TieBreak::First => {
                let (w, o) = self.first_occurrence(pair)?;
                (u64::from(w), u64::from(o))
            }
            _ => {
                let names = &self.names.names;
                (
                    prefix(&names[pair.0 as usize]),
                    prefix(&names[pair.1 as usize]),
                )
            }
        };
        Some(Candidate { count, pair, tie })
    }

    /// The first (word, offset) holding `pair`; prunes words that no longer hold it.
    fn first_occurrence(&mut self, (a, b): (u32, u32)) -> Option<(u32, u32)> {
        let stat = self.pairs.get_mut(&key(a, b))?;
        let mut found = None;
        let mut dead = 0;
        for &w in stat.words.iter() {
            let word = &self.words[w as usize];
            let s = &self.symbols[word.start..word.start + word.len as usize];
            if let Some(o) = first_offset(s, a, b, &self.names.lengths) {
                found = Some((w, o));
                break;
            }
            dead += 1;
        }
        stat.words.drain(..dead);
        found
    }

    fn count_pairs(&mut self) {
        for (w, word) in self.words.iter().enumerate() {
            let s = &self.symbols[word.start..word.start + word.len as usize];
            for win in s.windows(2) {
                let stat = self.pairs.entry(key(win[0], win[1])).or_default();
                stat.count += word.count as i64;
                if stat.words.last() != Some(&(w as u32)) {
                    stat.words.push(w as u32);
                }
            }
        }
        let mut keys: Vec<(u64, i64)> = self.pairs.iter().map(|(&k, s)| (k, s.count)).collect();
        // Hash order must not leak into anything: the heap order is total, but sorting
        // keeps even its layout independent of the hasher.
        keys.sort_unstable();
        let mut items = Vec::with_capacity(keys.len());
        for (k, count) in keys {
            if let Some(c) = self.candidate(unkey(k), count as u64) {
                items.push(c);
            }
        }
        self.heap.items = items;
        self.heap
            .heapify(better(self.config.tie_break, &self.names.names));
    }

    /// Pops the best pair whose entry is up to date.
    fn pop_best(&mut self) -> Option<Candidate> {
        let tie = self.config.tie_break;
        loop {
            let top = self.heap.pop(better(tie, &self.names.names))?;
            let k = key(top.pair.0, top.pair.1);
            let now = match self.pairs.get(&k) {
                Some(stat) if stat.count > 0 => stat.count as u64,
                _ => continue,
            };
            if now == top.count && tie != TieBreak::First {
                return Some(top);
            }
            match self.candidate(top.pair, now) {
                Some(c) if c.count != top.count || c.tie != top.tie => {
                    self.heap.push(c, better(tie, &self.names.names));
                }
                Some(_) => return Some(top),
                None => {}
            }
        }
    }

    fn merge(&mut self, (a, b): (u32, u32)) -> u32 {
        let merged = format!(
            "{}{}",
            self.names.names[a as usize], self.names.names[b as usize]
        );
        let known = self.names.names.len();
        let x = self.names.intern(&merged);
        // A merge may re-create an existing symbol's string: then lists it adds to may
        // already hold words, out of order.
        let x_is_new = self.names.names.len() > known;
        let list = match self.pairs.remove(&key(a, b)) {
            Some(stat) => stat.words,
            None => Vec::new(),
        };
        let symbols = (a, b, x);
        let mut changes = std::mem::take(&mut self.changes);
        let chunks = if list.len() >= PARALLEL_WORDS {
            rayon::current_num_threads().min(list.len() / (PARALLEL_WORDS / 2))
        } else {
            1
        };
        if chunks <= 1 {
            let run = Run {
                list: &list,
                words: &mut self.words,
                first_word: 0,
                symbols: &mut self.symbols,
                first_symbol: 0,
            };
            changes.clear();
            run.merge(symbols, &mut changes);
            self.apply(&mut changes);
        } else {
            let runs = split_runs(&list, chunks, &mut self.words, &mut self.symbols);
            let mut all: Vec<Changes> = runs
                .into_par_iter()
                .map(|run| {
                    let mut changes = Changes::default();
                    run.merge(symbols, &mut changes);
                    changes
                })
                .collect();
            // In run order, so that each gained list stays ascending.
            for changes in &mut all {
                self.apply(changes);
            }
        }
        self.changes = changes;
        self.step += 1;
        let step = self.step;
        let mut touched = std::mem::take(&mut self.touched);
        for &k in &touched {
            let Some(stat) = self.pairs.get_mut(&k) else {
                continue;
            };
            if stat.touched != step {
                continue; // listed twice (by two runs): done the first time
            }
            stat.touched = 0;
            if stat.count <= 0 {
                self.pairs.remove(&k);
                continue;
            }
            if !stat.gained {
                continue;
            }
            stat.gained = false;
            if !x_is_new {
                stat.words.sort_unstable();
                stat.words.dedup();
            }
            let count = stat.count as u64;
            if let Some(c) = self.candidate(unkey(k), count) {
                self.heap
                    .push(c, better(self.config.tie_break, &self.names.names));
            }
        }
        touched.clear();
        self.touched = touched;
        x
    }

    /// Adds one run's changes to the pair counts and lists; notes the pairs touched.
    fn apply(&mut self, changes: &mut Changes) {
        let step = self.step + 1;
        for change in changes.list.drain(..) {
            let stat = self.pairs.entry(change.key).or_default();
            if stat.touched != step {
                stat.touched = step;
                self.touched.push(change.key);
            }
            stat.count += change.delta;
            if !change.gained.is_empty() {
                stat.gained = true;
                if stat.words.is_empty() {
                    stat.words = change.gained;
                } else {
                    // Runs come in word order, so a new symbol's lists stay ascending; a
                    // re-created one's lists held words before, and `merge` sorts them.
                    stat.words.extend_from_slice(&change.gained);
                }
            }
        }
        changes.clear();
    }
}

/// The alphabet of a table: every initial symbol, plus what encoding needs to never meet
/// an unseen form of a seen character (attached mode: both `c` and `c</w>`); byte-level
/// mode always has all 256 bytes.
fn alphabet(table: &WordTable, rules: &SymbolRules) -> Vec<String> {
    let mut symbols: Vec<String> = match rules.kind {
        Kind::Byte => crate::symbols::byte_to_unicode()
            .iter()
            .map(|c| c.to_string())
            .collect(),
        Kind::Classic => {
            let mut seen: FxHashSet<char> = FxHashSet::default();
            for (word, _) in table.iter() {
                seen.extend(word.chars());
            }
            let mut chars: Vec<char> = seen.into_iter().collect();
            chars.sort_unstable();
            chars.into_iter().map(String::from).collect()
        }
    };
    match rules.end_of_word {
        EndOfWord::Separate => symbols.push(rules.end_of_word_symbol.clone()),
        EndOfWord::Attached => {
            let suffixed: Vec<String> = symbols
                .iter()
                .map(|u| format!("{u}{}", rules.end_of_word_symbol))
                .collect();
            symbols.extend(suffixed);
        }
        EndOfWord::None => {}
    }
    if rules.kind == Kind::Classic {
        symbols.sort_unstable();
        symbols.dedup();
    }
    symbols
}

pub fn train(
    table: &WordTable,
    config: &TrainConfig,
    progress: &mut dyn Progress,
) -> Result<Trained> {
    if table.is_empty() {
        return Err(Error::invalid(
            "no words to train on: the input is empty or only whitespace",
        ));
    }
    let alphabet = alphabet(table, &config.rules);
    let base = alphabet.len() + config.reserved;
    if let Some(size) = config.vocab_size {
        if size < base {
            return Err(Error::invalid(format!(
                "vocab_size {size} is below the alphabet: {} initial symbols + {} special \
                 tokens = {base}; ask for at least {base}",
                alphabet.len(),
                config.reserved
            )));
        }
    }
    let target = match (config.num_merges, config.vocab_size) {
        (Some(n), Some(v)) => Some(n.min(v - base)),
        (Some(n), None) => Some(n),
        (None, Some(v)) => Some(v - base),
        (None, None) => None,
    };

    let mut trainer = Trainer {
        config,
        names: Symbols::default(),
        words: Vec::with_capacity(table.len()),
        symbols: Vec::new(),
        pairs: FxHashMap::default(),
        heap: Heap::default(),
        step: 0,
        touched: Vec::new(),
        changes: Changes::default(),
    };
    for a in &alphabet {
        trainer.names.intern(a);
    }
    let mut splitter = Splitter::new(&config.rules, &mut trainer.names);
    for (word, count) in table.iter() {
        let start = trainer.symbols.len();
        splitter.split(word, &mut trainer.names, &mut trainer.symbols);
        let len = (trainer.symbols.len() - start) as u32;
        trainer.words.push(Word { start, len, count });
    }
    trainer.count_pairs();

    let mut merges = Vec::new();
    let mut counts = Vec::new();
    let mut new_tokens = 0usize;
    let step = target.map_or(100, |t| (t / 200).max(1));
    while target.is_none_or(|t| new_tokens < t) {
        let Some(best) = trainer.pop_best() else {
            break;
        };
        if best.count < config.min_frequency {
            break;
        }
        let (a, b) = best.pair;
        let known = trainer.names.names.len();
        trainer.merge(best.pair);
        if trainer.names.names.len() > known {
            new_tokens += 1;
        }
        let names = &trainer.names.names;
        merges.push((names[a as usize].to_string(), names[b as usize].to_string()));
        counts.push(best.count);
        if merges.len() % step == 0 {
            progress.merges(merges.len(), target);
        }
    }
    progress.merges(merges.len(), target);
    Ok(Trained {
        alphabet,
        merges,
        counts,
    })
}
