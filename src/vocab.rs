//! A vocabulary's tables: each token's bytes by id (the table decoding reads and a
//! byte-level model's tables are built from), each token's name by id, and the index from
//! names to ids (`Vocab`). Each keeps its strings back to back in one buffer: one
//! allocation for a whole vocabulary instead of one per token (200k for o200k), which is
//! memory, loading time and the time to drop a model (docs/performance.md#loading).

use std::hash::BuildHasher;
use std::ops::Index;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenBytes {
    bytes: Vec<u8>,
    /// Token `i` is `bytes[starts[i]..starts[i + 1]]`; one more entry than tokens.
    starts: Vec<usize>,
}

impl Default for TokenBytes {
    fn default() -> Self {
        Self::with_capacity(0, 0)
    }
}

impl TokenBytes {
    /// Room for `tokens` tokens of `bytes` bytes in all.
    pub fn with_capacity(tokens: usize, bytes: usize) -> Self {
        let mut starts = Vec::with_capacity(tokens + 1);
        starts.push(0);
        TokenBytes {
            bytes: Vec::with_capacity(bytes),
            starts,
        }
    }

    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Adds a token.
    pub fn push(&mut self, token: &[u8]) {
        self.bytes.extend_from_slice(token);
        self.starts.push(self.bytes.len());
    }

    /// Adds the token `write` appends to the buffer; if it fails, nothing is added.
    pub fn push_with<R, E>(
        &mut self,
        write: impl FnOnce(&mut Vec<u8>) -> Result<R, E>,
    ) -> Result<R, E> {
        let start = self.bytes.len();
        match write(&mut self.bytes) {
            Ok(value) => {
                self.starts.push(self.bytes.len());
                Ok(value)
            }
            Err(err) => {
                self.bytes.truncate(start);
                Err(err)
            }
        }
    }

    /// A table of `size` tokens, token `id` being `token(id)`.
    pub fn from_fn<'a>(size: usize, mut token: impl FnMut(usize) -> &'a [u8]) -> Self {
        let mut table = TokenBytes::with_capacity(size, 0);
        for id in 0..size {
            table.push(token(id));
        }
        table
    }

    /// Token `id`'s bytes.
    #[inline]
    pub fn get(&self, id: usize) -> Option<&[u8]> {
        let (start, end) = (*self.starts.get(id)?, *self.starts.get(id + 1)?);
        self.bytes.get(start..end)
    }

    /// Appends token `id`'s bytes to `out`; their length, or `None` for an id past the
    /// table. A token of at most 16 bytes is copied as 16 (the rest cut off again), which
    /// the compiler makes one fixed move instead of a `memcpy` call (most tokens are a few
    /// bytes: docs/performance.md#decoding).
    #[inline]
    pub fn append_to(&self, id: usize, out: &mut Vec<u8>) -> Option<usize> {
        let (start, end) = (*self.starts.get(id)?, *self.starts.get(id + 1)?);
        let len = end.checked_sub(start)?;
        if len <= 16 {
            if let Some(window) = self.bytes.get(start..start + 16) {
                let window: &[u8; 16] = window.try_into().ok()?;
                let at = out.len();
                out.extend_from_slice(window);
                out.truncate(at + len);
                return Some(len);
            }
        }
        out.extend_from_slice(self.bytes.get(start..end)?);
        Some(len)
    }

    /// The bytes `ids` decode to (ids past the table count nothing).
    pub fn total_len(&self, ids: &[u32]) -> usize {
        ids.iter()
            .map(|&id| match self.starts.get(id as usize..id as usize + 2) {
                Some(&[start, end]) => end - start,
                _ => 0,
            })
            .sum()
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[u8]> + '_ {
        self.starts.windows(2).map(|w| &self.bytes[w[0]..w[1]])
    }

    /// The table by id of tokens given with their ids: `size` entries, empty where no token
    /// has the id, the last token given where several have it. Every id must be below
    /// `size`. Tokens already in id order are kept.
    pub fn into_by_id(self, ids: &[u32], size: usize) -> TokenBytes {
        if size == self.len() && ids.iter().enumerate().all(|(i, &id)| id as usize == i) {
            return self;
        }
        let mut lengths = vec![0; size];
        for (token, &id) in self.iter().zip(ids) {
            lengths[id as usize] = token.len();
        }
        let mut starts = Vec::with_capacity(size + 1);
        let mut total = 0;
        starts.push(0);
        for len in lengths {
            total += len;
            starts.push(total);
        }
        let mut bytes = vec![0; total];
        for (token, &id) in self.iter().zip(ids) {
            let slot = &mut bytes[starts[id as usize]..starts[id as usize + 1]];
            // Of tokens sharing an id, only the last is as long as the slot is sure to be.
            if slot.len() == token.len() {
                slot.copy_from_slice(token);
            }
        }
        TokenBytes { bytes, starts }
    }
}

/// Tokens and their ranks (ids), in the order a file lists them (`.tiktoken` files).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Ranks {
    pub tokens: TokenBytes,
    pub ranks: Vec<u32>,
}

impl Ranks {
    /// (token bytes, rank) pairs, in file order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&[u8], u32)> + '_ {
        self.tokens.iter().zip(self.ranks.iter().copied())
    }

    pub fn len(&self) -> usize {
        self.ranks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ranks.is_empty()
    }
}

impl<T: AsRef<[u8]>> FromIterator<(T, u32)> for Ranks {
    fn from_iter<I: IntoIterator<Item = (T, u32)>>(pairs: I) -> Self {
        let mut out = Ranks::default();
        for (token, rank) in pairs {
            out.tokens.push(token.as_ref());
            out.ranks.push(rank);
        }
        out
    }
}

impl Index<usize> for TokenBytes {
    type Output = [u8];

    #[inline]
    fn index(&self, id: usize) -> &[u8] {
        &self.bytes[self.starts[id]..self.starts[id + 1]]
    }
}

/// Each token's name by id (empty for an unused id), in one buffer.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TokenNames(TokenBytes);

impl TokenNames {
    /// Room for `tokens` names of `bytes` bytes in all.
    pub fn with_capacity(tokens: usize, bytes: usize) -> Self {
        TokenNames(TokenBytes::with_capacity(tokens, bytes))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn push(&mut self, name: &str) {
        self.0.push(name.as_bytes());
    }

    /// Token `id`'s name.
    #[inline]
    pub fn get(&self, id: usize) -> Option<&str> {
        // SAFETY: every entry was pushed as a whole `str`.
        self.0
            .get(id)
            .map(|bytes| unsafe { std::str::from_utf8_unchecked(bytes) })
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        // SAFETY: as in `get`.
        self.0
            .iter()
            .map(|bytes| unsafe { std::str::from_utf8_unchecked(bytes) })
    }
}

impl Index<usize> for TokenNames {
    type Output = str;

    #[inline]
    fn index(&self, id: usize) -> &str {
        // SAFETY: as in `get`.
        unsafe { std::str::from_utf8_unchecked(&self.0[id]) }
    }
}

/// Byte strings → ids. The strings are kept in the order they were added, back to back,
/// and found through a hash table of their entry numbers, as the word table
/// (`crate::count`) finds its words.
#[derive(Clone, Default)]
pub struct BytesIndex {
    keys: TokenBytes,
    ids: Vec<u32>,
    index: HashTable<u32>,
}

fn hash_key(key: &[u8]) -> u64 {
    FxBuildHasher.hash_one(key)
}

impl BytesIndex {
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Room for `more` strings.
    pub fn reserve(&mut self, more: usize) {
        let keys = &self.keys;
        self.ids.reserve(more);
        self.index
            .reserve(more, |&entry| hash_key(&keys[entry as usize]));
    }

    fn entry(&self, key: &[u8]) -> Option<usize> {
        let keys = &self.keys;
        self.index
            .find(hash_key(key), |&entry| &keys[entry as usize] == key)
            .map(|&entry| entry as usize)
    }

    #[inline]
    pub fn get(&self, key: &[u8]) -> Option<&u32> {
        self.entry(key).map(|entry| &self.ids[entry])
    }

    /// Gives `key` the id `id`; the id it had before, if it was there.
    pub fn insert(&mut self, key: &[u8], id: u32) -> Option<u32> {
        if let Some(entry) = self.entry(key) {
            return Some(std::mem::replace(&mut self.ids[entry], id));
        }
        let entry = self.ids.len() as u32;
        self.keys.push(key);
        self.ids.push(id);
        let keys = &self.keys;
        self.index
            .insert_unique(hash_key(key), entry, |&e| hash_key(&keys[e as usize]));
        None
    }

    /// (string, id) pairs, in the order the strings were added.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&[u8], &u32)> + '_ {
        self.keys.iter().zip(&self.ids)
    }
}

/// Equal when they map the same strings to the same ids, in any order.
impl PartialEq for BytesIndex {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().all(|(key, id)| other.get(key) == Some(id))
    }
}

impl std::fmt::Debug for BytesIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// Token name → id, for the ordinary tokens (not the special ones), in one `BytesIndex`.
#[derive(Clone, Default, PartialEq)]
pub struct Vocab(BytesIndex);

impl Vocab {
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Room for `more` tokens.
    pub fn reserve(&mut self, more: usize) {
        self.0.reserve(more);
    }

    #[inline]
    pub fn get(&self, name: &str) -> Option<&u32> {
        self.0.get(name.as_bytes())
    }

    pub fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Gives `name` the id `id`; the id it had before, if it was there.
    pub fn insert(&mut self, name: &str, id: u32) -> Option<u32> {
        self.0.insert(name.as_bytes(), id)
    }

    /// (name, id) pairs, in the order the names were added.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &u32)> + '_ {
        // SAFETY: every key was inserted as a whole `str`.
        self.0
            .iter()
            .map(|(key, id)| (unsafe { std::str::from_utf8_unchecked(key) }, id))
    }
}

impl std::fmt::Debug for Vocab {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

#[cfg(test)]
impl Index<&str> for Vocab {
    type Output = u32;

    fn index(&self, name: &str) -> &u32 {
        self.get(name).expect("a token of the vocabulary")
    }
}

impl<T: AsRef<[u8]>> FromIterator<T> for TokenBytes {
    fn from_iter<I: IntoIterator<Item = T>>(tokens: I) -> Self {
        let mut table = TokenBytes::default();
        for token in tokens {
            table.push(token.as_ref());
        }
        table
    }
}

#[cfg(test)]
mod tests {
    use super::{TokenBytes, TokenNames, Vocab};

    #[test]
    fn holds_each_token_apart() {
        let table: TokenBytes = [&b"ab"[..], b"", b"xyz"].into_iter().collect();
        assert_eq!(table.len(), 3);
        assert_eq!(&table[0], b"ab");
        assert_eq!(table.get(1), Some(&b""[..]));
        assert_eq!(table.get(2), Some(&b"xyz"[..]));
        assert_eq!(table.get(3), None);
        let all: Vec<&[u8]> = table.iter().collect();
        assert_eq!(all, [&b"ab"[..], b"", b"xyz"]);
    }

    #[test]
    fn append_to_copies_exactly_each_token_short_long_and_last() {
        // Lengths around the 16-byte copy, and short tokens at the buffer's end, where
        // fewer than 16 bytes follow their start.
        let tokens: Vec<Vec<u8>> = [0, 1, 5, 15, 16, 17, 40, 3, 1]
            .iter()
            .enumerate()
            .map(|(i, &n)| (0..n).map(|j| (i * 31 + j) as u8).collect())
            .collect();
        let table: TokenBytes = tokens.iter().map(Vec::as_slice).collect();
        let mut out = b"start".to_vec();
        let mut want = out.clone();
        for (id, token) in tokens.iter().enumerate() {
            assert_eq!(table.append_to(id, &mut out), Some(token.len()));
            want.extend_from_slice(token);
            assert_eq!(out, want, "after token {id}");
        }
        assert_eq!(table.append_to(tokens.len(), &mut out), None);
        assert_eq!(out, want, "an id past the table adds nothing");
        // The measured length of ids, an id past the table counting nothing.
        let ids = [6, 0, 2, 99, 6, 4];
        assert_eq!(table.total_len(&ids), 40 + 5 + 40 + 16);
        assert_eq!(table.total_len(&[]), 0);
    }

    #[test]
    fn names_are_whole_strs() {
        let mut names = TokenNames::with_capacity(3, 0);
        for name in ["é", "", "ab"] {
            names.push(name);
        }
        assert_eq!(
            (&names[0], names.get(1), names.get(3)),
            ("é", Some(""), None)
        );
        assert_eq!(names.iter().collect::<Vec<_>>(), ["é", "", "ab"]);
    }

    #[test]
    fn vocab_finds_names_through_growth_and_compares_in_any_order() {
        let mut vocab = Vocab::default();
        let names: Vec<String> = (0..5000).map(|i| format!("t{i}")).collect();
        for (id, name) in names.iter().enumerate() {
            assert_eq!(vocab.insert(name, id as u32), None);
        }
        assert_eq!(vocab.len(), 5000);
        assert!(names
            .iter()
            .enumerate()
            .all(|(id, n)| vocab.get(n) == Some(&(id as u32))));
        assert_eq!((vocab.get("t5000"), vocab.contains_key("t")), (None, false));
        // Given again, a name keeps its place and takes the new id.
        assert_eq!(vocab.insert("t7", 9999), Some(7));
        assert_eq!((vocab.len(), vocab["t7"]), (5000, 9999));
        let mut reversed = Vocab::default();
        reversed.reserve(vocab.len());
        let all: Vec<(&str, &u32)> = vocab.iter().collect();
        for &(name, &id) in all.iter().rev() {
            reversed.insert(name, id);
        }
        assert_eq!(reversed, vocab);
        reversed.insert("t8", 1);
        assert_ne!(reversed, vocab);
    }

    #[test]
    fn a_failed_push_adds_nothing() {
        let mut table = TokenBytes::default();
        table.push(b"a");
        let failed: Result<(), ()> = table.push_with(|buf| {
            buf.extend_from_slice(b"partial");
            Err(())
        });
        assert!(failed.is_err());
        let pushed: Result<u8, ()> = table.push_with(|buf| {
            buf.push(b'b');
            Ok(7)
        });
        assert_eq!(pushed, Ok(7));
        assert_eq!(table.iter().collect::<Vec<_>>(), [&b"a"[..], b"b"]);
    }

    #[test]
    fn by_id_places_tokens_at_their_ids() {
        let table: TokenBytes = [&b"c"[..], b"a", b"bb"].into_iter().collect();
        let in_order = table.clone().into_by_id(&[0, 1, 2], 3);
        assert_eq!(in_order, table);
        let by_id = table.clone().into_by_id(&[4, 0, 2], 6);
        let all: Vec<&[u8]> = by_id.iter().collect();
        assert_eq!(all, [&b"a"[..], b"", b"bb", b"", b"c", b""]);
        let shared = table.into_by_id(&[1, 1, 1], 2);
        assert_eq!(shared.iter().collect::<Vec<_>>(), [&b""[..], b"bb"]);
    }
}
