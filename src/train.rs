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
//!
//! Performance notes (byte-level, cl100k, en-large 61 MB → 226k distinct words; a shared
//! 2-core machine, so figures are the best of 3 interleaved runs, CPU seconds in brackets):
//! - Words live in one flat `u32` buffer, each merged in place; initial symbols come from
//!   a table (bytes) or a small cache (characters), not from one string per symbol.
//! - Each pair is one map entry keyed by the two ids packed in a `u64` (count + words).
//!   A merge first sums its changes per pair in a small map, then visits the large map
//!   once per pair; merges over at least `PARALLEL_WORDS` words are split into runs of
//!   disjoint words on the rayon threads, combined in word order (same result).
//! - A merge's time is mostly cache misses on the words it visits: reading each block's
//!   words ahead in a tight loop lets those misses overlap (about -35% train time alone).
//! - The heap holds `Copy` entries whose tie key is the symbols' first 8 bytes (strings
//!   are compared only when those are equal), and no pair below `min_frequency`.
//!
//! Before → after, `examples/train_speed.rs` (count + train, both LTO builds):
//!   8k: count 1.42 s (0.83) → 1.10 s (0.59); train 1.09 s (0.78) → 0.54 s (0.42)
//!   32k: count 1.20 s (0.79) → 0.87 s (0.57); train 1.52 s (1.04) → 0.75 s (0.48)
//!   64k: count 1.01 s (0.79) → 0.50 s (0.49); train 1.39 s (1.30) → 0.67 s (0.59)
//! Peak RSS 108/144 MB → 69/97 MB (8k/64k). Through `subword.train` (wheel, LTO), best of
//! 2 back to back with the peers: 0.76/0.99/1.30 s at 8k/32k/64k against sentencepiece
//! 5.01/5.27/5.48 s and rustbpe 5.47/5.48/5.24 s (6.6x/5.3x/4.0x the fastest); peak RSS
//! 92/105/125 MB against HF tokenizers' 210/219/225 MB.

use std::cmp::Ordering;
use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::count::WordTable;
use crate::error::{Error, Result};
use crate::symbols::{EndOfWord, SymbolRules, Unit};

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

/// Turns words into initial symbol ids as `SymbolRules::split` would, without a string per
/// symbol: bytes and characters are looked up, the end-of-word forms interned once each.
struct Splitter<'r> {
    rules: &'r SymbolRules,
    bytes: [u32; 256],
    chars: FxHashMap<char, u32>,
    /// Attached mode: symbol → symbol with the end-of-word suffix.
    attached: FxHashMap<u32, u32>,
    end_of_word: u32,
}

impl<'r> Splitter<'r> {
    fn new(rules: &'r SymbolRules, symbols: &mut Symbols) -> Self {
        let mut bytes = [0u32; 256];
        if rules.unit == Unit::Bytes {
            let table = crate::symbols::byte_to_unicode();
            let mut buf = [0u8; 4];
            for (b, id) in bytes.iter_mut().enumerate() {
                *id = symbols.intern(table[b].encode_utf8(&mut buf));
            }
        }
        let end_of_word = match rules.end_of_word {
            EndOfWord::Separate => symbols.intern(&rules.end_of_word_symbol),
            _ => u32::MAX,
        };
        Splitter {
            rules,
            bytes,
            chars: FxHashMap::default(),
            attached: FxHashMap::default(),
            end_of_word,
        }
    }

    fn split(&mut self, word: &str, symbols: &mut Symbols, out: &mut Vec<u32>) {
        let start = out.len();
        match self.rules.unit {
            Unit::Bytes => out.extend(word.bytes().map(|b| self.bytes[b as usize])),
            Unit::Chars => {
                let mut buf = [0u8; 4];
                for c in word.chars() {
                    let id = *self
                        .chars
                        .entry(c)
                        .or_insert_with(|| symbols.intern(c.encode_utf8(&mut buf)));
                    out.push(id);
                }
            }
        }
        match self.rules.end_of_word {
            EndOfWord::Separate => out.push(self.end_of_word),
            EndOfWord::Attached if out.len() > start => {
                if let Some(last) = out.last_mut() {
                    let suffix = &self.rules.end_of_word_symbol;
                    *last = *self.attached.entry(*last).or_insert_with(|| {
                        let name = format!("{}{suffix}", symbols.names[*last as usize]);
                        symbols.intern(&name)
                    });
                }
            }
            _ => {}
        }
    }
}

/// A word: its symbols are `Trainer::symbols[start..start + len]` (shrinking as it merges).
struct Word {
    start: usize,
    len: u32,
    count: u64,
}

fn key(a: u32, b: u32) -> u64 {
    (u64::from(a) << 32) | u64::from(b)
}

fn unkey(k: u64) -> (u32, u32) {
    ((k >> 32) as u32, k as u32)
}

/// Merges every non-overlapping (a, b) of `s`, left to right, into `x`; reports each
/// change of a neighbouring pair's count by one occurrence (the merged pair itself is
/// dropped whole). Returns the new length.
fn merge_word(s: &mut [u32], a: u32, b: u32, x: u32, mut change: impl FnMut(u64, bool)) -> usize {
    let (mut read, mut write) = (0, 0);
    while read < s.len() {
        if read + 1 < s.len() && s[read] == a && s[read + 1] == b {
            if write > 0 {
                let prev = s[write - 1];
                change(key(prev, a), false);
                change(key(prev, x), true);
            }
            if read + 2 < s.len() {
                let next = s[read + 2];
                change(key(b, next), false);
                change(key(x, next), true);
            }
            s[write] = x;
            read += 2;
        } else {
            s[write] = s[read];
            read += 1;
        }
        write += 1;
    }
    write
}

/// Character offset of the first occurrence of (a, b) in `s`, if any.
fn first_offset(s: &[u32], a: u32, b: u32, lengths: &[u32]) -> Option<u32> {
    let mut offset = 0;
    for w in s.windows(2) {
        if w[0] == a && w[1] == b {
            return Some(offset);
        }
        offset += lengths[w[0] as usize];
    }
    None
}

#[derive(Default)]
struct PairStat {
    count: i64,
    /// The words that may contain the pair, ascending (a superset: words that lost the
    /// pair are pruned lazily).
    words: Vec<u32>,
    /// The merge (1-based) that is touching this pair, to list it once; 0 when none is.
    touched: u32,
    /// Whether that merge added occurrences.
    gained: bool,
}

/// A heap entry: a pair with its count and its tie key. For `First` the key is
/// (word, offset) when pushed; for the string rules, the first 8 bytes of each symbol,
/// which settle most ties without reading the strings.
#[derive(Clone, Copy)]
struct Candidate {
    count: u64,
    pair: (u32, u32),
    tie: (u64, u64),
}

/// The first 8 bytes of `name`, big-endian, zero-padded: ordered as the names are, except
/// that names equal in these bytes must be compared in full.
fn prefix(name: &str) -> u64 {
    let mut bytes = [0u8; 8];
    let n = name.len().min(8);
    bytes[..n].copy_from_slice(&name.as_bytes()[..n]);
    u64::from_be_bytes(bytes)
}

/// A binary max-heap whose order needs the symbol table (for string tie keys), so it
/// takes the comparison as an argument: `better(x, y)` is true when x pops before y.
#[derive(Default)]
struct Heap {
    items: Vec<Candidate>,
}

impl Heap {
    fn push(&mut self, c: Candidate, better: impl Fn(&Candidate, &Candidate) -> bool) {
        let items = &mut self.items;
        items.push(c);
        let mut i = items.len() - 1;
        while i > 0 {
            let parent = (i - 1) / 2;
            if !better(&items[i], &items[parent]) {
                break;
            }
            items.swap(i, parent);
            i = parent;
        }
    }

    fn pop(&mut self, better: impl Fn(&Candidate, &Candidate) -> bool) -> Option<Candidate> {
        let items = &mut self.items;
        let last = items.pop()?;
        if items.is_empty() {
            return Some(last);
        }
        let top = std::mem::replace(&mut items[0], last);
        self.sift_down(0, &better);
        Some(top)
    }

    fn sift_down(&mut self, mut i: usize, better: &impl Fn(&Candidate, &Candidate) -> bool) {
        let items = &mut self.items;
        loop {
            let left = 2 * i + 1;
            if left >= items.len() {
                break;
            }
            let right = left + 1;
            let child = if right < items.len() && better(&items[right], &items[left]) {
                right
            } else {
                left
            };
            if !better(&items[child], &items[i]) {
                break;
            }
            items.swap(i, child);
            i = child;
        }
    }

    fn heapify(&mut self, better: impl Fn(&Candidate, &Candidate) -> bool) {
        for i in (0..self.items.len() / 2).rev() {
            self.sift_down(i, &better);
        }
    }
}

/// The heap order: greater count first, then the rule's preferred pair.
fn better(tie: TieBreak, names: &[Arc<str>]) -> impl Fn(&Candidate, &Candidate) -> bool + '_ {
    move |x, y| {
        if x.count != y.count {
            return x.count > y.count;
        }
        match tie {
            TieBreak::Lexicographic => strings_order(x, y, names) == Ordering::Less,
            TieBreak::SubwordNmt => strings_order(x, y, names) == Ordering::Greater,
            TieBreak::First => x.tie < y.tie,
        }
    }
}

/// (first symbol, second symbol) of x against y, as strings.
fn strings_order(x: &Candidate, y: &Candidate, names: &[Arc<str>]) -> Ordering {
    let name = |id: u32| &names[id as usize];
    x.tie
        .0
        .cmp(&y.tie.0)
        .then_with(|| name(x.pair.0).cmp(name(y.pair.0)))
        .then_with(|| x.tie.1.cmp(&y.tie.1))
        .then_with(|| name(x.pair.1).cmp(name(y.pair.1)))
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

/// Below this many words a merge runs on one thread (the hand-over would cost more).
const PARALLEL_WORDS: usize = 4096;

/// What a merge does to the pairs of some words: each pair's net change of count and the
/// words where it gained occurrences, ascending. Aggregated per merge, so that the large
/// pair map is visited once per pair, not once per occurrence.
#[derive(Default)]
struct Changes {
    slots: FxHashMap<u64, u32>,
    list: Vec<Change>,
}

struct Change {
    key: u64,
    delta: i64,
    gained: Vec<u32>,
}

impl Changes {
    fn clear(&mut self) {
        self.slots.clear();
        self.list.clear();
    }

    fn note(&mut self, key: u64, delta: i64, word: Option<u32>) {
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
struct Run<'a> {
    list: &'a [u32],
    words: &'a mut [Word],
    first_word: usize,
    symbols: &'a mut [u32],
    first_symbol: usize,
}

/// How many words a merge reads ahead (see `Run::merge`).
const GATHER: usize = 64;

impl Run<'_> {
    fn merge(mut self, (a, b, x): (u32, u32, u32), changes: &mut Changes) {
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

    fn merge_block(
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
fn split_runs<'a>(
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
}
