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
//!   (reproduces the seeds); the key is (word index, character offset), both stable;
//! - `SubwordNmt`: the greatest pair, as subword-nmt's `max(stats, key=(count, pair))`.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::count::WordTable;
use crate::error::{Error, Result};
use crate::symbols::{EndOfWord, SymbolRules, Unit};

type Pair = (u32, u32);

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

/// Interned symbols: strings ↔ ids, with each symbol's length in characters.
#[derive(Default)]
struct Symbols {
    names: Vec<Arc<str>>,
    lengths: Vec<u32>,
    ids: FxHashMap<Arc<str>, u32>,
}

impl Symbols {
    fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        let name: Arc<str> = Arc::from(name);
        self.names.push(name.clone());
        self.lengths.push(name.chars().count() as u32);
        self.ids.insert(name, id);
        id
    }
}

struct Word {
    symbols: Vec<u32>,
    count: u64,
}

impl Word {
    /// Merges every non-overlapping (a, b), left to right, into `x`; records how the
    /// counts of the neighbouring pairs change (the merged pair itself is dropped whole).
    fn merge(&mut self, a: u32, b: u32, x: u32, changes: &mut Vec<(Pair, i64)>) {
        let s = &mut self.symbols;
        let (mut read, mut write) = (0, 0);
        while read < s.len() {
            if read + 1 < s.len() && s[read] == a && s[read + 1] == b {
                if write > 0 {
                    let prev = s[write - 1];
                    changes.push(((prev, a), -1));
                    changes.push(((prev, x), 1));
                }
                if read + 2 < s.len() {
                    let next = s[read + 2];
                    changes.push(((b, next), -1));
                    changes.push(((x, next), 1));
                }
                s[write] = x;
                read += 2;
            } else {
                s[write] = s[read];
                read += 1;
            }
            write += 1;
        }
        s.truncate(write);
    }

    /// Character offset of the first occurrence of (a, b), if any.
    fn first_offset(&self, (a, b): Pair, lengths: &[u32]) -> Option<u32> {
        let mut offset = 0;
        for w in self.symbols.windows(2) {
            if w[0] == a && w[1] == b {
                return Some(offset);
            }
            offset += lengths[w[0] as usize];
        }
        None
    }
}

#[derive(PartialEq, Eq)]
enum TieKey {
    Lexicographic(Arc<str>, Arc<str>),
    SubwordNmt(Arc<str>, Arc<str>),
    First(u32, u32),
}

#[derive(PartialEq, Eq)]
struct Candidate {
    count: u64,
    key: TieKey,
    pair: Pair,
}

impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> Ordering {
        // BinaryHeap pops the greatest: greater count first, then the rule's preferred pair.
        self.count
            .cmp(&other.count)
            .then_with(|| match (&self.key, &other.key) {
                (TieKey::Lexicographic(a1, a2), TieKey::Lexicographic(b1, b2)) => {
                    (b1, b2).cmp(&(a1, a2))
                }
                (TieKey::SubwordNmt(a1, a2), TieKey::SubwordNmt(b1, b2)) => (a1, a2).cmp(&(b1, b2)),
                (TieKey::First(aw, ao), TieKey::First(bw, bo)) => (bw, bo).cmp(&(aw, ao)),
                _ => Ordering::Equal,
            })
    }
}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
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
    symbols: Symbols,
    words: Vec<Word>,
    counts: FxHashMap<Pair, i64>,
    /// For each pair, the words that may contain it, ascending (a superset: words that
    /// lost the pair are pruned lazily).
    where_: FxHashMap<Pair, Vec<u32>>,
    heap: BinaryHeap<Candidate>,
}

impl Trainer<'_> {
    fn candidate(&mut self, pair: Pair, count: u64) -> Option<Candidate> {
        let names = &self.symbols.names;
        let key = match self.config.tie_break {
            TieBreak::Lexicographic => TieKey::Lexicographic(
                names[pair.0 as usize].clone(),
                names[pair.1 as usize].clone(),
            ),
            TieBreak::SubwordNmt => TieKey::SubwordNmt(
                names[pair.0 as usize].clone(),
                names[pair.1 as usize].clone(),
            ),
            TieBreak::First => {
                let (w, o) = self.first_occurrence(pair)?;
                TieKey::First(w, o)
            }
        };
        Some(Candidate { count, key, pair })
    }

    /// The first (word, offset) holding `pair`; prunes words that no longer hold it.
    fn first_occurrence(&mut self, pair: Pair) -> Option<(u32, u32)> {
        let list = self.where_.get_mut(&pair)?;
        let mut found = None;
        let mut dead = 0;
        for &w in list.iter() {
            if let Some(o) = self.words[w as usize].first_offset(pair, &self.symbols.lengths) {
                found = Some((w, o));
                break;
            }
            dead += 1;
        }
        list.drain(..dead);
        found
    }

    fn count_pairs(&mut self) {
        for (w, word) in self.words.iter().enumerate() {
            for win in word.symbols.windows(2) {
                let pair = (win[0], win[1]);
                *self.counts.entry(pair).or_insert(0) += word.count as i64;
                let list = self.where_.entry(pair).or_default();
                if list.last() != Some(&(w as u32)) {
                    list.push(w as u32);
                }
            }
        }
        let pairs: Vec<(Pair, i64)> = self.counts.iter().map(|(&p, &c)| (p, c)).collect();
        for (pair, count) in pairs {
            if let Some(c) = self.candidate(pair, count as u64) {
                self.heap.push(c);
            }
        }
    }

    /// Pops the best pair whose entry is up to date.
    fn pop_best(&mut self) -> Option<Candidate> {
        while let Some(top) = self.heap.pop() {
            let now = self.counts.get(&top.pair).copied().unwrap_or(0);
            if now <= 0 {
                continue;
            }
            let fresh = if now as u64 != top.count || self.config.tie_break == TieBreak::First {
                self.candidate(top.pair, now as u64)
            } else {
                None
            };
            match fresh {
                Some(c) if c != top => self.heap.push(c),
                _ => return Some(top),
            }
        }
        None
    }

    fn merge(&mut self, (a, b): Pair) -> u32 {
        let merged = format!(
            "{}{}",
            self.symbols.names[a as usize], self.symbols.names[b as usize]
        );
        let x = self.symbols.intern(&merged);
        let words = self.where_.remove(&(a, b)).unwrap_or_default();
        self.counts.remove(&(a, b));
        let mut deltas: FxHashMap<Pair, i64> = FxHashMap::default();
        let mut gained: FxHashMap<Pair, Vec<u32>> = FxHashMap::default();
        let mut changes = Vec::new();
        for w in words {
            let word = &mut self.words[w as usize];
            changes.clear();
            word.merge(a, b, x, &mut changes);
            for &(pair, d) in &changes {
                if pair == (a, b) {
                    continue;
                }
                *deltas.entry(pair).or_insert(0) += d * word.count as i64;
                if d > 0 {
                    let list = gained.entry(pair).or_default();
                    if list.last() != Some(&w) {
                        list.push(w);
                    }
                }
            }
        }
        for (pair, list) in gained {
            let into = self.where_.entry(pair).or_default();
            if into.is_empty() {
                *into = list;
            } else {
                // Only when a merge re-creates an existing symbol's string.
                into.extend(list);
                into.sort_unstable();
                into.dedup();
            }
        }
        let mut grown = Vec::new();
        for (pair, d) in deltas {
            let c = self.counts.entry(pair).or_insert(0);
            *c += d;
            if d > 0 {
                grown.push((pair, *c));
            }
            if *c <= 0 {
                self.counts.remove(&pair);
                self.where_.remove(&pair);
            }
        }
        for (pair, count) in grown {
            if count > 0 {
                if let Some(c) = self.candidate(pair, count as u64) {
                    self.heap.push(c);
                }
            }
        }
        x
    }
}

/// The alphabet of a table: every initial symbol, plus what encoding needs to never meet
/// an unseen form of a seen character (attached mode: both `c` and `c</w>`); byte-level
/// mode always has all 256 bytes.
fn alphabet(table: &WordTable, rules: &SymbolRules) -> Vec<String> {
    let mut units: Vec<String> = match rules.unit {
        Unit::Bytes => crate::symbols::byte_to_unicode()
            .iter()
            .map(|c| c.to_string())
            .collect(),
        Unit::Chars => {
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
        EndOfWord::Separate => units.push(rules.end_of_word_symbol.clone()),
        EndOfWord::Attached => {
            let suffixed: Vec<String> = units
                .iter()
                .map(|u| format!("{u}{}", rules.end_of_word_symbol))
                .collect();
            units.extend(suffixed);
        }
        EndOfWord::None => {}
    }
    if rules.unit == Unit::Chars {
        units.sort_unstable();
        units.dedup();
    }
    units
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
        symbols: Symbols::default(),
        words: Vec::with_capacity(table.len()),
        counts: FxHashMap::default(),
        where_: FxHashMap::default(),
        heap: BinaryHeap::new(),
    };
    for a in &alphabet {
        trainer.symbols.intern(a);
    }
    let mut split = Vec::new();
    for (word, count) in table.iter() {
        split.clear();
        config.rules.split(word, &mut split);
        let symbols = split.iter().map(|s| trainer.symbols.intern(s)).collect();
        trainer.words.push(Word { symbols, count });
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
        let known = trainer.symbols.names.len();
        trainer.merge(best.pair);
        if trainer.symbols.names.len() > known {
            new_tokens += 1;
        }
        let names = &trainer.symbols.names;
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

#[cfg(test)]
mod tests {
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
                unit: Unit::Chars,
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
    fn seed_000_first_ties() {
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
    fn vocab_size_below_alphabet_is_an_error() {
        let t = table(&[("abc", 1)]);
        let mut c = config(TieBreak::First, 10);
        c.vocab_size = Some(2);
        let err = train(&t, &c, &mut |_, _| {}).unwrap_err();
        assert!(err.message.contains("at least 4"), "{}", err.message);
        assert!(train(&WordTable::default(), &c, &mut |_, _| {}).is_err());
    }
}
