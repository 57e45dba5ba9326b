//! `WordMap`: apply-bpe's cache of segmented words, word → its output text.
//!
//! Not the core's `count::WordTable` (which counts learn-bpe's and get-vocab's words): the
//! cache stores text after each key and is prefetched in batches. Invariant: a lookup is
//! two reads. Reason: apply-bpe is bound by memory latency, one lookup per word. So the
//! layout keeps a lookup to two reads: an open-addressing slot (a 32-bit hash tag, the
//! key's place in one text arena, its length and the number) and the key in the arena,
//! compared eight bytes at a time. hashbrown's map of `String`s takes four (control
//! bytes, bucket, key, value). An entry may store text right after its key (the cache
//! keeps a word's segmentation there), read in the same stretch of memory. Callers that
//! look up many words can `prefetch` them first so that the reads overlap.

/// A map from words to numbers; entries are never removed.
#[derive(Default)]
pub struct WordMap {
    /// Each entry's key, followed by its trailing text.
    text: String,
    /// A power of two many slots, at most half of them used; `key_len == 0` is empty.
    slots: Vec<Slot>,
    len: usize,
}

#[derive(Clone, Copy, Default)]
struct Slot {
    tag: u32,
    start: u32,
    key_len: u32,
    number: u32,
}

impl WordMap {
    /// The hash that `get`, `insert` and `prefetch` take (computed once per word).
    pub fn hash(word: &str) -> u64 {
        use std::hash::Hasher;
        let mut h = rustc_hash::FxHasher::default();
        h.write(word.as_bytes());
        h.finish()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The slot holding `word`, if any.
    fn find(&self, word: &str, hash: u64) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let word = word.as_bytes();
        let tag = (hash >> 32) as u32;
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            let slot = self.slots[i];
            if slot.key_len == 0 {
                return None;
            }
            if slot.tag == tag && slot.key_len as usize == word.len() {
                let start = slot.start as usize;
                if same_bytes(&self.text.as_bytes()[start..start + word.len()], word) {
                    return Some(i);
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// The number of `word` (whose hash is `hash`) and the `trailing_len` bytes of text
    /// stored after it.
    pub fn get(
        &self,
        word: &str,
        hash: u64,
        trailing_len: impl Fn(u32) -> usize,
    ) -> Option<(u32, &str)> {
        let slot = self.slots[self.find(word, hash)?];
        let end = (slot.start + slot.key_len) as usize;
        let trailing = self.text.get(end..end + trailing_len(slot.number))?;
        Some((slot.number, trailing))
    }

    /// Adds `word`, which is not in the map, with its number and the text stored after
    /// it. Returns false, storing nothing, for an empty word or an arena past 4 GB.
    pub fn insert(&mut self, word: &str, hash: u64, number: u32, trailing: &str) -> bool {
        let start = self.text.len();
        if word.is_empty() || start + word.len() + trailing.len() > u32::MAX as usize {
            return false;
        }
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        self.text.push_str(word);
        self.text.push_str(trailing);
        self.place(
            Slot {
                tag: (hash >> 32) as u32,
                start: start as u32,
                key_len: word.len() as u32,
                number,
            },
            hash,
        );
        self.len += 1;
        true
    }

    /// Asks the processor to load the slot where a lookup of `hash` starts.
    #[inline]
    pub fn prefetch_slot(&self, hash: u64) {
        if !self.slots.is_empty() {
            crate::pages::prefetch(&self.slots[hash as usize & (self.slots.len() - 1)]);
        }
    }

    fn place(&mut self, slot: Slot, hash: u64) {
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        while self.slots[i].key_len != 0 {
            i = (i + 1) & mask;
        }
        self.slots[i] = slot;
    }

    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(1024);
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); size]);
        for slot in old.into_iter().filter(|s| s.key_len != 0) {
            let start = slot.start as usize;
            let hash = Self::hash(&self.text[start..start + slot.key_len as usize]);
            self.place(slot, hash);
        }
    }
}

/// Byte-wise equality of two slices of the same length, eight bytes at a time: cheaper
/// than a call to `memcmp` for words a few bytes long.
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let (mut ca, mut cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let word = |c: &[u8]| u64::from_ne_bytes(c.try_into().unwrap_or_default());
    if (&mut ca).zip(&mut cb).any(|(x, y)| word(x) != word(y)) {
        return false;
    }
    ca.remainder()
        .iter()
        .zip(cb.remainder())
        .all(|(x, y)| x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_it_holds() {
        let mut map = WordMap::default();
        let words: Vec<String> = (0..5000)
            .map(|i| format!("w{i}é{}", "x".repeat(i % 19)))
            .collect();
        let value = |i: usize| format!("v{i}");
        for (i, w) in words.iter().enumerate() {
            let h = WordMap::hash(w);
            assert_eq!(map.get(w, h, |n| n as usize), None);
            assert!(map.insert(w, h, value(i).len() as u32, &value(i)));
        }
        assert_eq!(map.len(), words.len());
        for (i, w) in words.iter().enumerate() {
            let got = map.get(w, WordMap::hash(w), |n| n as usize);
            assert_eq!(got, Some((value(i).len() as u32, value(i).as_str())));
        }
        assert_eq!(map.get("w1é", WordMap::hash("w1é"), |_| 0), None);
        assert!(!map.insert("", WordMap::hash(""), 1, "empty words are not stored"));
        assert!(
            same_bytes(b"abcdefghij", b"abcdefghij") && !same_bytes(b"abcdefghij", b"abcdefghik")
        );
    }
}
