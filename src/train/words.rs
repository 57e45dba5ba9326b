//! Words as symbol ids: interning symbols, cutting words into their initial symbols, and
//! merging a pair inside one word while reporting how its neighbouring pairs change.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::symbols::{EndOfWord, Kind, SymbolRules};

/// Interned symbols: strings ↔ ids, with each symbol's length in characters.
#[derive(Default)]
pub(super) struct Symbols {
    pub(super) names: Vec<Arc<str>>,
    pub(super) lengths: Vec<u32>,
    pub(super) ids: FxHashMap<Arc<str>, u32>,
}

impl Symbols {
    pub(super) fn intern(&mut self, name: &str) -> u32 {
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
pub(super) struct Splitter<'r> {
    pub(super) rules: &'r SymbolRules,
    pub(super) bytes: [u32; 256],
    pub(super) chars: FxHashMap<char, u32>,
    /// Attached mode: symbol → symbol with the end-of-word suffix.
    pub(super) attached: FxHashMap<u32, u32>,
    pub(super) end_of_word: u32,
}

impl<'r> Splitter<'r> {
    pub(super) fn new(rules: &'r SymbolRules, symbols: &mut Symbols) -> Self {
        let mut bytes = [0u32; 256];
        if rules.kind == Kind::Byte {
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

    pub(super) fn split(&mut self, word: &str, symbols: &mut Symbols, out: &mut Vec<u32>) {
        let start = out.len();
        match self.rules.kind {
            Kind::Byte => out.extend(word.bytes().map(|b| self.bytes[b as usize])),
            Kind::Classic => {
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
pub(super) struct Word {
    pub(super) start: usize,
    pub(super) len: u32,
    pub(super) count: u64,
}

pub(super) fn key(a: u32, b: u32) -> u64 {
    (u64::from(a) << 32) | u64::from(b)
}

pub(super) fn unkey(k: u64) -> (u32, u32) {
    ((k >> 32) as u32, k as u32)
}

/// Merges every non-overlapping (a, b) of `s`, left to right, into `x`; reports each
/// change of a neighbouring pair's count by one occurrence (the merged pair itself is
/// dropped whole). Returns the new length.
pub(super) fn merge_word(
    s: &mut [u32],
    a: u32,
    b: u32,
    x: u32,
    mut change: impl FnMut(u64, bool),
) -> usize {
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
pub(super) fn first_offset(s: &[u32], a: u32, b: u32, lengths: &[u32]) -> Option<u32> {
    let mut offset = 0;
    for w in s.windows(2) {
        if w[0] == a && w[1] == b {
            return Some(offset);
        }
        offset += lengths[w[0] as usize];
    }
    None
}
