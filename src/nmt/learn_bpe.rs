//! subword-nmt 0.3.8's `learn_bpe.py`, step for step: its statistics, its pruning and its
//! merge rule, including where they are not textbook BPE.
//!
//! Invariant: every merge, count and stop equals subword-nmt's on any word table, because
//! this is its algorithm step for step (`get_pair_statistics`, `replace_pair`,
//! `update_pair_statistics`, `prune_stats` and the threshold fallback of `learn_bpe`), on
//! interned symbol ids instead of strings. Reason: its quirks change the codes file as
//! soon as a word holds whitespace other than a space (tabs in code) or the text `</w>`:
//!
//! - `replace_pair` merges with the regex `(?<!\S)A B(?!\S)` over the word's symbols
//!   joined by spaces, which also matches a suffix of a symbol that follows whitespace
//!   inside it (and a prefix before whitespace): the two symbols are glued whole, making
//!   a symbol no merge names, and the statistics are not told;
//! - `update_pair_statistics` counts the neighbours of every symbol equal to the new
//!   string, so a string that already existed (made from a literal `</w>`) counts twice;
//! - pruned pairs keep their count in `big_stats`; a change to one is kept in `stats` as a
//!   delta, and a positive delta then replaces the pruned count.
//!
//! Words without whitespace (the symbols of such a word never hold any) merge as plain
//! adjacent pairs, without strings; only words with whitespace take the regex's path.
//! `learn` decides which tables need this.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::rc::Rc;

use rustc_hash::FxHashMap;

use crate::count::WordTable;
use crate::nmt::END_OF_WORD;

type Pair = (u32, u32);

/// Python's `str.isspace` (what `\s` and `\S` of `re` test): Unicode's White_Space, which
/// is Rust's `char::is_whitespace`, and the separators U+001C to U+001F.
pub fn is_python_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// A learned merge: the pair and the count subword-nmt reports for it.
pub type Merge = (String, String, i64);

/// Strings ↔ ids; equal strings share an id, as equal strings are one symbol to
/// subword-nmt.
#[derive(Default)]
struct Interner {
    ids: FxHashMap<Rc<str>, u32>,
    names: Vec<Rc<str>>,
}

impl Interner {
    fn id(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = self.names.len() as u32;
        let name: Rc<str> = Rc::from(s);
        self.names.push(name.clone());
        self.ids.insert(name, id);
        id
    }
}

/// A heap entry: a count seen in `stats` for a pair. Valid while `stats` still holds it.
struct Entry {
    count: i64,
    pair: Pair,
    left: Rc<str>,
    right: Rc<str>,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    /// `max(stats, key=lambda x: (stats[x], x))`: count, then the pair's strings.
    fn cmp(&self, other: &Self) -> Ordering {
        self.count
            .cmp(&other.count)
            .then_with(|| self.left.cmp(&other.left))
            .then_with(|| self.right.cmp(&other.right))
    }
}

struct Learner {
    symbols: Interner,
    /// Each word's symbols and count (`sorted_vocab`; the order does not matter).
    words: Vec<Vec<u32>>,
    counts: Vec<i64>,
    /// Whether the word holds whitespace: its merges go through the regex's rule.
    spaced: Vec<bool>,
    stats: FxHashMap<Pair, i64>,
    big_stats: FxHashMap<Pair, i64>,
    /// `indices`, both ways: each word's (pair, count) entries, and each pair's words.
    /// A word's few entries are searched in place: one hash map of (pair, word) keys
    /// made every lookup a cache miss, half of the time on code (docs/performance.md#subword-nmt-commands).
    word_index: Vec<Vec<(Pair, i32)>>,
    index_words: FxHashMap<Pair, Vec<u32>>,
    /// The maximum of `stats`, lazily: stale entries are dropped when seen.
    heap: BinaryHeap<Entry>,
    /// Pairs whose count changed since the heap last heard of them.
    dirty: Vec<Pair>,
}

impl Learner {
    fn new(table: &WordTable) -> Self {
        let mut learner = Learner {
            symbols: Interner::default(),
            words: Vec::with_capacity(table.len()),
            counts: Vec::with_capacity(table.len()),
            spaced: Vec::with_capacity(table.len()),
            stats: FxHashMap::default(),
            big_stats: FxHashMap::default(),
            word_index: Vec::with_capacity(table.len()),
            index_words: FxHashMap::default(),
            heap: BinaryHeap::new(),
            dirty: Vec::new(),
        };
        let mut buf = [0u8; 4];
        for (word, count) in table.iter() {
            let Some(last) = word.chars().last() else {
                continue;
            };
            let cut = word.len() - last.len_utf8();
            let mut ids: Vec<u32> = word[..cut]
                .chars()
                .map(|c| learner.symbols.id(c.encode_utf8(&mut buf)))
                .collect();
            ids.push(learner.symbols.id(&format!("{last}{END_OF_WORD}")));
            learner.spaced.push(word.chars().any(is_python_space));
            learner.words.push(ids);
            learner.counts.push(count as i64);
        }
        // get_pair_statistics
        learner.word_index = vec![Vec::new(); learner.words.len()];
        for j in 0..learner.words.len() {
            let count = learner.counts[j];
            for k in 1..learner.words[j].len() {
                let pair = (learner.words[j][k - 1], learner.words[j][k]);
                *learner.stats.entry(pair).or_insert(0) += count;
                learner.add_index(pair, j as u32, 1);
            }
        }
        learner.big_stats = learner.stats.clone();
        learner.rebuild_heap();
        learner
    }

    fn entry(&self, pair: Pair, count: i64) -> Entry {
        Entry {
            count,
            pair,
            left: self.symbols.names[pair.0 as usize].clone(),
            right: self.symbols.names[pair.1 as usize].clone(),
        }
    }

    fn rebuild_heap(&mut self) {
        let entries: Vec<Entry> = self.stats.iter().map(|(&p, &c)| self.entry(p, c)).collect();
        self.heap = BinaryHeap::from(entries);
        self.dirty.clear();
    }

    /// `max(stats, key=(count, pair))`, None when `stats` is empty.
    fn most_frequent(&mut self) -> Option<(Pair, i64)> {
        let mut dirty = std::mem::take(&mut self.dirty);
        dirty.sort_unstable();
        dirty.dedup();
        for pair in dirty {
            if let Some(&count) = self.stats.get(&pair) {
                let entry = self.entry(pair, count);
                self.heap.push(entry);
            }
        }
        while let Some(top) = self.heap.peek() {
            if self.stats.get(&top.pair) == Some(&top.count) {
                return Some((top.pair, top.count));
            }
            self.heap.pop();
        }
        None
    }

    /// `max(stats, key=(count, pair))` by one pass over `stats`.
    fn max_by_scan(&self) -> Option<(Pair, i64)> {
        let names = &self.symbols.names;
        let key = |p: &Pair, c: i64| (c, &names[p.0 as usize], &names[p.1 as usize]);
        self.stats
            .iter()
            .max_by(|(p, &c), (q, &d)| key(p, c).cmp(&key(q, d)))
            .map(|(&p, &c)| (p, c))
    }

    /// `stats[pair] += delta` on a defaultdict: a pruned pair comes back as its delta.
    fn add_stat(&mut self, pair: Pair, delta: i64) {
        *self.stats.entry(pair).or_insert(0) += delta;
        self.dirty.push(pair);
    }

    fn set_stat(&mut self, pair: Pair, value: i64) {
        self.stats.insert(pair, value);
        self.dirty.push(pair);
    }

    /// `indices[pair][j] += delta`.
    fn add_index(&mut self, pair: Pair, j: u32, delta: i32) {
        let entries = &mut self.word_index[j as usize];
        match entries.iter_mut().find(|(p, _)| *p == pair) {
            Some((_, count)) => *count += delta,
            None => {
                entries.push((pair, delta));
                self.index_words.entry(pair).or_default().push(j);
            }
        }
    }

    /// `indices[pair][j]`.
    fn index_count(&self, pair: Pair, j: u32) -> i32 {
        self.word_index[j as usize]
            .iter()
            .find(|(p, _)| *p == pair)
            .map_or(0, |&(_, count)| count)
    }

    /// `prune_stats`: pairs below the threshold leave `stats` for `big_stats`.
    fn prune(&mut self, threshold: f64) {
        let big = &mut self.big_stats;
        self.stats.retain(|&pair, &mut count| {
            if (count as f64) >= threshold {
                return true;
            }
            if count < 0 {
                *big.entry(pair).or_insert(0) += count;
            } else {
                big.insert(pair, count);
            }
            false
        });
    }

    /// `replace_pair`: every word that `indices` lists with a count of at least one, merged;
    /// returns (word, its old symbols) for each.
    fn replace_pair(&mut self, pair: Pair) -> Vec<(u32, Vec<u32>)> {
        let (a, b) = pair;
        let merged_name = format!(
            "{}{}",
            self.symbols.names[a as usize], self.symbols.names[b as usize]
        );
        let merged = self.symbols.id(&merged_name);
        let listed = self.index_words.get(&pair).cloned().unwrap_or_default();
        let mut changes = Vec::new();
        for j in listed {
            if self.index_count(pair, j) < 1 {
                continue;
            }
            let old = &self.words[j as usize];
            let new = if self.spaced[j as usize] {
                self.regex_merge(j, pair)
            } else {
                merge_adjacent(old, a, b, merged)
            };
            let old = std::mem::replace(&mut self.words[j as usize], new);
            changes.push((j, old));
        }
        changes
    }

    /// `pattern.sub(A+B, ' '.join(word)).split(' ')` with the pattern `(?<!\S)A B(?!\S)`,
    /// on symbols: a match spans one boundary (symbols hold no space), from a suffix A of
    /// the left symbol that starts it or follows whitespace, to a prefix B of the right one
    /// that ends it or precedes whitespace; removing that space glues the two symbols whole.
    /// Matches do not overlap: a suffix must start after the previous match's prefix.
    fn regex_merge(&mut self, j: u32, (a, b): Pair) -> Vec<u32> {
        let word = std::mem::take(&mut self.words[j as usize]);
        let names = &self.symbols.names;
        let (na, nb) = (names[a as usize].clone(), names[b as usize].clone());
        let mut matched = vec![false; word.len()];
        let mut consumed = 0; // bytes of the current symbol that the last match took
        for k in 0..word.len().saturating_sub(1) {
            let (s, t) = (&names[word[k] as usize], &names[word[k + 1] as usize]);
            let hit = s.len() >= na.len() + consumed
                && s.ends_with(&*na)
                && {
                    let start = s.len() - na.len();
                    start == 0 || s[..start].chars().next_back().is_some_and(is_python_space)
                }
                && t.starts_with(&*nb)
                && t[nb.len()..].chars().next().is_none_or(is_python_space);
            matched[k] = hit;
            consumed = if hit { nb.len() } else { 0 };
        }
        let mut out = Vec::with_capacity(word.len());
        let mut glued = String::new();
        for (k, &id) in word.iter().enumerate() {
            if matched[k] || (k > 0 && matched[k - 1]) {
                glued.push_str(&self.symbols.names[id as usize]);
                if !matched[k] {
                    out.push(self.symbols.id(&glued));
                    glued.clear();
                }
            } else {
                out.push(id);
            }
        }
        self.words[j as usize] = word;
        out
    }

    /// `update_pair_statistics`, line for line.
    fn update_pair_statistics(&mut self, pair: Pair, changes: &[(u32, Vec<u32>)]) {
        self.set_stat(pair, 0);
        if let Some(words) = self.index_words.remove(&pair) {
            for j in words {
                self.word_index[j as usize].retain(|(p, _)| *p != pair);
            }
        }
        let (first, second) = pair;
        let new_name = format!(
            "{}{}",
            self.symbols.names[first as usize], self.symbols.names[second as usize]
        );
        let new_pair = self.symbols.id(&new_name);
        for (j, old) in changes {
            let j = *j;
            let freq = self.counts[j as usize];
            let n = old.len();
            let mut i = 0;
            while let Some(k) = old[i.min(n)..].iter().position(|&s| s == first) {
                i += k;
                if i + 1 < n && old[i + 1] == second {
                    if i > 0 {
                        let prev = (old[i - 1], old[i]);
                        self.add_stat(prev, -freq);
                        self.add_index(prev, j, -1);
                    }
                    if i + 2 < n && (old[i + 2] != first || i + 3 >= n || old[i + 3] != second) {
                        let next = (old[i + 1], old[i + 2]);
                        self.add_stat(next, -freq);
                        self.add_index(next, j, -1);
                    }
                    i += 2;
                } else {
                    i += 1;
                }
            }
            let word = std::mem::take(&mut self.words[j as usize]);
            let n = word.len();
            for i in (0..n).filter(|&i| word[i] == new_pair) {
                if i > 0 {
                    let prev = (word[i - 1], word[i]);
                    self.add_stat(prev, freq);
                    self.add_index(prev, j, 1);
                }
                if i + 1 < n && word[i + 1] != new_pair {
                    let next = (word[i], word[i + 1]);
                    self.add_stat(next, freq);
                    self.add_index(next, j, 1);
                }
            }
            self.words[j as usize] = word;
        }
    }
}

/// Merges the non-overlapping occurrences of (a, b), left to right.
fn merge_adjacent(word: &[u32], a: u32, b: u32, merged: u32) -> Vec<u32> {
    let mut out = Vec::with_capacity(word.len());
    let mut i = 0;
    while i < word.len() {
        if i + 1 < word.len() && word[i] == a && word[i + 1] == b {
            out.push(merged);
            i += 2;
        } else {
            out.push(word[i]);
            i += 1;
        }
    }
    out
}

/// subword-nmt's `learn_bpe` loop on a word table (counts at least 1): up to `num_symbols`
/// merges with the counts it reports; fewer when the best pair falls below
/// `min_frequency`. `progress` gets the number of merges done so far.
pub fn learn_as_subword_nmt(
    table: &WordTable,
    num_symbols: usize,
    min_frequency: i64,
    progress: &mut dyn FnMut(usize),
) -> Vec<Merge> {
    let mut l = Learner::new(table);
    let mut merges = Vec::new();
    let Some((_, top)) = l.most_frequent() else {
        return merges; // subword-nmt fails on `max()` of nothing; no pairs, no merges
    };
    let mut threshold = top as f64 / 10.0;
    for i in 0..num_symbols {
        let mut best = l.most_frequent();
        let below = |best: Option<(Pair, i64)>| best.is_some_and(|(_, c)| (c as f64) < threshold);
        if best.is_none() || (i > 0 && below(best)) {
            // Back to full statistics: the maximum by one pass, the heap only for what
            // stays after pruning (building it over all pairs took most of the time).
            l.prune(threshold);
            l.stats = l.big_stats.clone();
            best = l.max_by_scan();
            let Some((_, count)) = best else {
                break; // subword-nmt fails here too (`max()` of nothing)
            };
            threshold = (count * i as i64) as f64 / (i as f64 + 10000.0);
            l.prune(threshold);
            l.rebuild_heap();
        }
        let Some((pair, count)) = best else {
            break;
        };
        if count < min_frequency {
            break;
        }
        let names = &l.symbols.names;
        merges.push((
            names[pair.0 as usize].to_string(),
            names[pair.1 as usize].to_string(),
            count,
        ));
        let changes = l.replace_pair(pair);
        l.update_pair_statistics(pair, &changes);
        l.set_stat(pair, 0);
        if i % 100 == 0 {
            l.prune(threshold);
        }
        progress(i + 1);
    }
    merges
}

#[cfg(test)]
mod tests {
    use super::*;

    fn learned(words: &[(&str, u64)], n: usize) -> Vec<(String, String)> {
        let mut table = WordTable::default();
        for (w, c) in words {
            table.add(w, *c);
        }
        learn_as_subword_nmt(&table, n, 1, &mut |_| {})
            .into_iter()
            .map(|(a, b, _)| (a, b))
            .collect()
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    impl Learner {
        /// `pattern.sub(A+B, ' '.join(word)).split(' ')` with the pattern `(?<!\S)A B(?!\S)`.
        fn regex_merge_by_strings(&mut self, j: u32, (a, b): Pair) -> Vec<u32> {
            let names = &self.symbols.names;
            let joined = self.words[j as usize]
                .iter()
                .map(|&id| &*names[id as usize])
                .collect::<Vec<&str>>()
                .join(" ");
            let needle = format!("{} {}", names[a as usize], names[b as usize]);
            let mut out = String::with_capacity(joined.len());
            let mut p = 0;
            let mut before: Option<char> = None; // the character before `p`
            while p < joined.len() {
                let rest = &joined[p..];
                if before.is_none_or(is_python_space) && rest.starts_with(&needle) {
                    let after = rest[needle.len()..].chars().next();
                    if after.is_none_or(is_python_space) {
                        out.push_str(&names[a as usize]);
                        out.push_str(&names[b as usize]);
                        p += needle.len();
                        before = needle.chars().last();
                        continue;
                    }
                }
                let c = rest.chars().next().unwrap_or(' ');
                out.push(c);
                p += c.len_utf8();
                before = Some(c);
            }
            out.split(' ').map(|s| self.symbols.id(s)).collect()
        }
    }

    #[test]
    fn regex_rule_on_symbols_equals_the_regex_on_strings() {
        let mut state = 3u64;
        let mut next = |n: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % n
        };
        let alphabet = [
            "a", "b", "\t", "\u{a0}", "a\t", "\ta", "ab", "\t\t", "b\u{a0}a",
        ];
        for _ in 0..3000 {
            let mut table = WordTable::default();
            let len = 2 + next(8) as usize;
            let word: String = (0..len).map(|_| alphabet[next(9) as usize]).collect();
            table.add(&word, 1);
            let mut l = Learner::new(&table);
            let symbols: Vec<u32> = (0..len)
                .map(|_| l.symbols.id(alphabet[next(9) as usize]))
                .collect();
            l.words[0] = symbols;
            let w = &l.words[0];
            let k = next(w.len() as u64 - 1) as usize;
            let pair = if next(2) == 0 {
                (w[k], w[k + 1])
            } else {
                (
                    l.symbols.id(alphabet[next(9) as usize]),
                    l.symbols.id(alphabet[next(9) as usize]),
                )
            };
            let by_strings = l.regex_merge_by_strings(0, pair);
            assert_eq!(l.regex_merge(0, pair), by_strings);
        }
    }

    #[test]
    fn python_space_is_isspace() {
        for c in [
            '\t', '\x0b', '\x0c', '\x1c', '\x1f', '\u{a0}', '\u{3000}', '\u{85}',
        ] {
            assert!(is_python_space(c), "{c:?}");
        }
        for c in ['a', '\u{200b}', '\u{180e}', '\x1b'] {
            assert!(!is_python_space(c), "{c:?}");
        }
    }

    #[test]
    fn whitespace_inside_a_symbol_glues_whole_symbols() {
        // subword-nmt (checked by tests/test_nmt.py): the fourth merge is (nbnb, a), made
        // from a regex match inside the symbol nbnbnbnb.
        let nb = "\u{a0}";
        let table = [
            (format!("b{nb}abb"), 1),
            (format!("{nb}a{nb}{nb}{nb}{nb}a{nb}"), 5),
        ];
        let words: Vec<(&str, u64)> = table.iter().map(|(w, c)| (w.as_str(), *c)).collect();
        let got = learned(&words, 4);
        let nb2 = nb.repeat(2);
        assert_eq!(
            got,
            pairs(&[(nb, nb), (nb, "a"), (&nb2, &nb2), (&nb2, "a")])
        );
    }

    #[test]
    fn literal_end_of_word_counts_twice() {
        let got = learned(&[("b</w></w>b", 3)], 5);
        assert_eq!(
            got,
            pairs(&[
                ("w", ">"),
                ("<", "/"),
                ("</", "w>"),
                ("b", "</w>"),
                ("</w>", "b</w>")
            ])
        );
    }

    #[test]
    fn plain_words_learn_textbook_bpe() {
        // As subword-nmt learns them (`low` ends in `w</w>`, so (w, est</w>) wins).
        let got = learned(&[("low", 5), ("lower", 2), ("newest", 6), ("widest", 3)], 6);
        assert_eq!(
            got,
            pairs(&[
                ("s", "t</w>"),
                ("e", "st</w>"),
                ("l", "o"),
                ("w", "est</w>"),
                ("n", "e"),
                ("ne", "west</w>")
            ])
        );
    }
}
