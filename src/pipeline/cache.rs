//! The pipeline's memory: the ids of pieces already encoded, kept per thread across calls
//! (why a cache that outlives a call, and prefetching: docs/performance.md#cache).
//!
//! Text is Zipfian: a few thousand distinct pieces make up most of any corpus, so after
//! the first occurrences almost every piece is found here and costs one hash probe instead
//! of a vocabulary lookup and a merge loop. The cache outlives a call, so encoding a text
//! line by line, or the same kind of text again, finds its pieces already merged.
//!
//! Layout: two open-addressing tables (linear probing) and two arenas. A piece of at most
//! 7 bytes is its own key (the bytes and the length packed in a u64), so finding it
//! compares one integer; such short pieces, nine in ten of English text's, have a table of
//! 16-byte slots, each holding up to `INLINE_IDS` ids packed in one word, which the encoder
//! writes out whole whatever their number (no branch on it). Longer pieces have 32-byte
//! slots: one of 8 to 16 bytes is keyed by its hash and keeps its bytes and up to
//! `INLINE_IDS` packed ids in its slot, as a short one does; a longer one is keyed by its
//! hash and its bytes are compared in the byte arena. Other results live in the id arena.
//! Nothing is allocated per piece. A piece over 128 bytes is kept only when met a second
//! time, one over 1,024 never.
//!
//! Each thread owns one cache, lent to an encoding call for its whole duration (a
//! thread-local access per call, not per piece), and tied to one model: a call with
//! another model empties it. It holds at most `MAX_PIECES` pieces; when full it starts
//! over, so memory stays bounded and the cache follows the text being encoded.

use std::cell::RefCell;
use std::hash::Hasher;
use std::hint::select_unpredictable;
use std::sync::atomic::{AtomicU64, Ordering};

use rustc_hash::FxHasher;

use super::encode::LookupChoice;

/// Pieces kept before the cache starts over (the tables are then at most 16 MiB), and the
/// most ids and long-piece bytes its arenas hold (16 MiB each): at most 48 MiB a thread.
const MAX_PIECES: usize = 1 << 18;
const MAX_ARENA_IDS: usize = 1 << 22;
const MAX_ARENA_BYTES: usize = 1 << 24;
/// Longer pieces are not kept: they are rare in text and would fill the arenas.
pub const MAX_PIECE_BYTES: usize = 1024;
/// Pieces longer than this are kept only from their second sighting (`seen_before`): most
/// are met once (a long word, a sentence of Chinese), but some repeat, like the rules of a
/// box-drawn table, and merging one again costs far more than its lookup.
pub const KEPT_AT_ONCE_BYTES: usize = 128;
/// Hashes of long pieces met once, direct-mapped (8 KiB).
const SEEN_SLOTS: usize = 1 << 10;
/// Slots of a table when it is first used; doubled while more than half full.
const INITIAL_SLOTS: usize = 1 << 12;
/// Up to this size the tables are near enough to the core for lookups without a prefetch
/// (docs/performance.md#lookup-modes).
const SMALL_BYTES: usize = 4 << 20;

/// The longest piece whose bytes its slot holds (two words).
const MEDIUM_BYTES: usize = 16;
/// The top byte of a medium piece's key (short pieces have their length, 1..=7, there).
const MEDIUM: u64 = 0xFE << 56;
/// The top byte of a long piece's key.
const LONG: u64 = 0xFF << 56;
/// The key's top byte, which tells a piece's kind (a length, `MEDIUM` or `LONG`).
const MARK: u64 = 0xFF << 56;
/// Where a medium key keeps the piece's length (8..=16), above the hash bits that choose
/// its slot (`slot_of` reads bits 0..=50 for any table the cache grows to).
const MEDIUM_LEN_SHIFT: u32 = 51;

/// A short or medium piece's slot holds this many ids in place, of `PACKED_ID_BITS` each
/// (ids up to a million: any vocabulary in use; larger ones go to the arena).
pub const INLINE_IDS: usize = 3;
const PACKED_ID_BITS: u32 = 20;
const PACKED_ID: u64 = (1 << PACKED_ID_BITS) - 1;
/// Where a short slot's key, and a medium slot's value, keep their number of ids (a short
/// key's bits stop at 59, packed ids at 59).
const COUNT_SHIFT: u32 = 60;
const KEY_BITS: u64 = (1 << COUNT_SHIFT) - 1;
/// The id arena keeps this many ids readable past its last run, so that the encoder
/// copies a run of up to this many as one fixed-size block (`Run`), not by a call to
/// memcpy of a variable length.
pub const RUN_BLOCK: usize = 8;

/// A short piece's slot: 16 bytes, aligned so that a lookup reads one cache line.
#[derive(Clone, Copy, Default)]
#[repr(C, align(16))]
struct ShortSlot {
    /// 0: empty. Else the piece's short key, with the number of ids in `ids` (1 to
    /// `INLINE_IDS`, or 0 when they are in the arena) at `COUNT_SHIFT`.
    key: u64,
    /// The ids, `PACKED_ID_BITS` each, the first lowest; or where the arena holds them.
    ids: u64,
}

/// A medium or long piece's slot: 32 bytes, aligned so that a lookup reads one line.
#[derive(Clone, Copy, Default)]
#[repr(C, align(32))]
struct Slot {
    /// 0: empty. Else the piece's hash with the `MEDIUM` (and the length) or `LONG` mark.
    key: u64,
    /// Medium pieces: up to `INLINE_IDS` ids packed as a short slot packs them, their
    /// number at `COUNT_SHIFT` (0: `value` is where the arena holds them). Long pieces:
    /// where `bytes` holds the piece (length first, as a u32 LE) in the low half, where
    /// the arena holds its ids in the high half.
    value: u64,
    /// Medium pieces: the first and the last 8 bytes (overlapping below 16).
    words: [u64; 2],
}

/// A slot of either table, as the code shared by both sees it.
trait Keyed: Copy + Default {
    fn key(&self) -> u64;
}

impl Keyed for ShortSlot {
    fn key(&self) -> u64 {
        self.key
    }
}

impl Keyed for Slot {
    fn key(&self) -> u64 {
        self.key
    }
}

/// A medium piece's first and last 8 bytes (overlapping below 16).
#[inline(always)]
fn first_and_last(piece: &[u8]) -> (u64, u64) {
    let n = piece.len();
    let word = |s: &[u8]| <[u8; 8]>::try_from(s).map_or(0, u64::from_le_bytes);
    (word(&piece[..8]), word(&piece[n - 8..]))
}

/// The mixed first and last 8 bytes of a medium piece: its hash.
#[inline(always)]
fn medium_hash(piece: &[u8]) -> u64 {
    let (first, last) = first_and_last(piece);
    let mixed =
        (first ^ last.rotate_left(29) ^ piece.len() as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93);
    mixed ^ mixed >> 32
}

/// A piece's ids as the cache holds them: the first `n` of `window`, which goes on past
/// them where their memory does (at least `RUN_BLOCK` ids for a run in the arena).
#[derive(Clone, Copy)]
pub struct Run<'c> {
    pub window: &'c [u32],
    pub n: usize,
}

impl<'c> Run<'c> {
    #[inline(always)]
    pub fn ids(&self) -> &'c [u32] {
        self.window.get(..self.n).unwrap_or(&[])
    }
}

/// The ids a short or medium piece's slot holds, found by `PieceCache::find_short` or
/// `find_medium`: packed in one word, or where the arena holds them.
#[derive(Clone, Copy)]
pub struct SlotIds {
    /// Up to `INLINE_IDS` ids, `PACKED_ID_BITS` each (the first lowest), or (`n == 0`)
    /// where the arena holds them.
    packed: u64,
    n: usize,
}

impl SlotIds {
    /// `INLINE_IDS` ids of which the first `n` are the piece's, when `n` is in
    /// `1..=INLINE_IDS`; else the piece's ids are `arena()`'s. The encoder writes all
    /// `INLINE_IDS` and keeps `n`, whatever `n` is.
    #[inline(always)]
    pub fn inline(&self) -> ([u32; INLINE_IDS], usize) {
        let packed = self.packed;
        let ids =
            std::array::from_fn(|k| (packed >> (k as u32 * PACKED_ID_BITS) & PACKED_ID) as u32);
        (ids, self.n)
    }

    /// The piece's ids as a block of `RUN_BLOCK`, of which the first `n` are the piece's,
    /// whether its slot or the arena holds them, chosen without a branch: in some text a
    /// medium piece's ids are in one place or the other about as often (Korean under
    /// cl100k), which a branch would mispredict. `None` for a run longer than the block,
    /// and while the arena is empty.
    #[inline(always)]
    pub fn block(&self, cache: &PieceCache) -> Option<([u32; RUN_BLOCK], usize)> {
        let (inline, n) = self.inline();
        let in_arena = n == 0;
        // A slot's own ids read the arena's first run instead, a line that stays cached.
        let start = select_unpredictable(in_arena, (self.packed & KEY_BITS) as usize, 0);
        let run = cache.ids.get(start..start + 1 + RUN_BLOCK)?;
        let (count, from_arena) = run.split_first()?;
        let from_arena: [u32; RUN_BLOCK] = from_arena.try_into().ok()?;
        let mut own = [0; RUN_BLOCK];
        own[..INLINE_IDS].copy_from_slice(&inline);
        let count = select_unpredictable(in_arena, *count as usize, n);
        (count <= RUN_BLOCK).then_some((select_unpredictable(in_arena, from_arena, own), count))
    }

    /// The piece's ids when they are not in its slot.
    #[inline(never)]
    pub fn arena<'c>(&self, cache: &'c PieceCache) -> Run<'c> {
        cache.arena_run((self.packed & KEY_BITS) as usize)
    }

    /// Appends the piece's ids to `out`, wherever they are (off the encoder's path).
    pub fn extend(&self, cache: &PieceCache, out: &mut Vec<u32>) {
        match self.inline() {
            (ids, n @ 1..=INLINE_IDS) => out.extend_from_slice(&ids[..n]),
            _ => out.extend_from_slice(self.arena(cache).ids()),
        }
    }
}

pub struct PieceCache {
    owner: u64,
    /// Short pieces' table, and how many it holds.
    short: Vec<ShortSlot>,
    short_len: usize,
    /// Medium and long pieces' table, and how many it holds.
    slots: Vec<Slot>,
    len: usize,
    ids: Vec<u32>,
    bytes: Vec<u8>,
    /// Keys of pieces longer than `KEPT_AT_ONCE_BYTES` met once and not kept; empty until
    /// the first one.
    seen: Vec<u64>,
    /// How the encoder looks pieces up while the table is large (`encode.rs`).
    pub(super) lookups: LookupChoice,
}

static NEXT_OWNER: AtomicU64 = AtomicU64::new(1);

/// A fresh identity for a model's cache entries.
pub fn new_owner() -> u64 {
    NEXT_OWNER.fetch_add(1, Ordering::Relaxed)
}

thread_local! {
    static CACHE: RefCell<PieceCache> = const { RefCell::new(PieceCache::empty(0)) };
}

/// The bytes (at most 7) in the low bytes of a u64, the length in the top byte; `None`
/// for longer pieces. Built from two overlapping loads instead of a copy into a buffer
/// (why: docs/performance.md#cache).
#[inline]
pub fn short_key(bytes: &[u8]) -> Option<u64> {
    let n = bytes.len();
    let packed = match n {
        0 => 0,
        1..=3 => {
            bytes[0] as u64
                | (bytes[n / 2] as u64) << (8 * (n / 2))
                | (bytes[n - 1] as u64) << (8 * (n - 1))
        }
        4..=7 => {
            let lo = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as u64;
            let hi = u32::from_le_bytes([bytes[n - 4], bytes[n - 3], bytes[n - 2], bytes[n - 1]]);
            lo | (hi as u64) << (8 * (n - 4))
        }
        _ => return None,
    };
    Some(packed | (n as u64) << 56)
}

/// `key_of(&bytes[start..start + len])`, for a piece of a longer text: a short piece with
/// 8 bytes of text from its start is keyed from one load, masked to its length (the
/// branches of `short_key` on the length mispredict on the varied lengths of real pieces).
#[inline(always)]
pub fn key_in(bytes: &[u8], start: usize, len: usize) -> u64 {
    short_key_in(bytes, start, len).unwrap_or_else(|| key_of(&bytes[start..start + len]))
}

/// `key_in` for a short piece with 8 bytes of text from its start (one load, masked to its
/// length); `None` for longer pieces and near the end of the text (`key_in` keys those).
#[inline(always)]
pub fn short_key_in(bytes: &[u8], start: usize, len: usize) -> Option<u64> {
    if len.wrapping_sub(1) >= 7 {
        return None;
    }
    let word = bytes.get(start..start + 8)?;
    let word = u64::from_le_bytes(<[u8; 8]>::try_from(word).ok()?);
    let mask = u64::MAX >> (64 - 8 * len);
    Some(word & mask | (len as u64) << 56)
}

/// Whether `key` is a short piece's (its length, 1..=7, in the top byte), as `short_key`
/// and `short_key_in` make them, rather than a medium or long piece's (a mark there).
#[inline(always)]
pub fn is_short_key(key: u64) -> bool {
    key & MARK < MEDIUM
}

/// Whether `key` is a medium piece's (8 to 16 bytes).
#[inline(always)]
pub fn is_medium_key(key: u64) -> bool {
    key & MARK == MEDIUM
}

/// The cache key of a piece: its short key, or its hash marked as medium or long.
#[inline]
pub fn key_of(piece: &[u8]) -> u64 {
    short_key(piece).unwrap_or_else(|| {
        // The mark keeps these keys apart from short ones (and from the empty key 0).
        if piece.len() <= MEDIUM_BYTES {
            let len = (piece.len() as u64) << MEDIUM_LEN_SHIFT;
            return medium_hash(piece) & ((1 << MEDIUM_LEN_SHIFT) - 1) | len | MEDIUM;
        }
        let mut h = FxHasher::default();
        h.write(piece);
        (h.finish() & !MARK) | LONG
    })
}

impl PieceCache {
    /// Runs `f` with this thread's cache for the model `owner` (emptied first if it held
    /// another model's pieces). A nested call on the same thread gets an empty cache that
    /// is dropped afterwards. Borrowed in place: moving the cache out of the thread's slot
    /// and back cost a few percent of a one-word call (docs/performance.md).
    #[inline]
    pub fn with<T>(owner: u64, f: impl FnOnce(&mut PieceCache) -> T) -> T {
        CACHE.with(|c| match c.try_borrow_mut() {
            Ok(mut cache) => {
                if cache.owner != owner {
                    cache.owner = owner;
                    cache.clear();
                }
                f(&mut cache)
            }
            Err(_) => f(&mut PieceCache::empty(owner)),
        })
    }

    const fn empty(owner: u64) -> PieceCache {
        PieceCache {
            owner,
            short: Vec::new(),
            short_len: 0,
            slots: Vec::new(),
            len: 0,
            ids: Vec::new(),
            bytes: Vec::new(),
            seen: Vec::new(),
            lookups: LookupChoice::FIRST,
        }
    }

    fn clear(&mut self) {
        self.short.clear();
        self.short_len = 0;
        self.slots.clear();
        self.len = 0;
        self.ids.clear();
        self.bytes.clear();
        self.seen.clear();
    }

    /// Whether a piece keyed `key` was met before (then forgotten), else notes it. Two
    /// pieces whose keys share a place push each other out: both are kept later, never
    /// wrongly (a kept piece is found by its bytes, not by this table).
    fn seen_before(&mut self, key: u64) -> bool {
        if self.seen.is_empty() {
            self.seen.resize(SEEN_SLOTS, 0);
        }
        let at = Self::slot_of(key, SEEN_SLOTS - 1);
        if self.seen[at] == key {
            self.seen[at] = 0;
            return true;
        }
        self.seen[at] = key;
        false
    }

    #[inline]
    fn slot_of(key: u64, mask: usize) -> usize {
        // Fibonacci hashing: the top bits of key × 2^64/φ.
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & mask
    }

    /// Whether the tables are small enough to look pieces up without prefetching them.
    #[inline]
    pub fn is_small(&self) -> bool {
        size_of_val(&self.short[..]) + size_of_val(&self.slots[..]) <= SMALL_BYTES
    }

    /// Asks the CPU to fetch the slot where `key` would start, so that the lookup a few
    /// pieces later finds it in cache (why: docs/performance.md#cache).
    #[inline]
    pub fn prefetch(&self, key: u64) {
        fn first_slot<S>(table: &[S], key: u64) {
            if let Some(slot) = table.get(PieceCache::slot_of(key, table.len().wrapping_sub(1))) {
                crate::pages::prefetch(slot);
            }
        }
        if is_short_key(key) {
            first_slot(&self.short, key);
        } else {
            first_slot(&self.slots, key);
        }
    }

    /// Appends the cached ids of `piece` to `out`; false if it is not cached.
    #[inline]
    pub fn extend_with(&self, piece: &[u8], out: &mut Vec<u32>) -> bool {
        let key = key_of(piece);
        let found = if is_short_key(key) {
            self.find_short(key)
        } else if is_medium_key(key) {
            self.find_medium(key, piece)
        } else {
            return match self.find_run(key, piece) {
                Some(run) => {
                    out.extend_from_slice(run.ids());
                    true
                }
                None => false,
            };
        };
        match found {
            Some(found) => {
                found.extend(self, out);
                true
            }
            None => false,
        }
    }

    /// The cached ids of a long `piece`, whose key is `key` (`key_of(piece)`), with the
    /// memory past them (`Run`). Short pieces: `find_short`; medium ones: `find_medium`.
    #[inline(always)]
    pub fn find_run(&self, key: u64, piece: &[u8]) -> Option<Run<'_>> {
        debug_assert!(!is_short_key(key) && !is_medium_key(key));
        let mask = self.slots.len().wrapping_sub(1);
        let mut at = Self::slot_of(key, mask);
        loop {
            let slot = self.slots.get(at)?;
            if slot.key == 0 {
                return None;
            }
            if slot.key == key && self.same_text(slot.value as u32, piece) {
                return Some(self.arena_run((slot.value >> 32) as usize));
            }
            at = (at + 1) & mask;
        }
    }

    /// The slot of the medium piece `piece`, whose key is `key` (`key_of(piece)`, which
    /// holds its length), for the encoder's copy of its ids (`SlotIds`).
    #[inline(always)]
    pub fn find_medium(&self, key: u64, piece: &[u8]) -> Option<SlotIds> {
        debug_assert!(is_medium_key(key));
        let words = first_and_last(piece);
        let mask = self.slots.len().wrapping_sub(1);
        let mut at = Self::slot_of(key, mask);
        loop {
            let slot = self.slots.get(at)?;
            if slot.key == key && slot.words == [words.0, words.1] {
                return Some(SlotIds {
                    packed: slot.value,
                    n: (slot.value >> COUNT_SHIFT) as usize,
                });
            }
            if slot.key == 0 {
                return None;
            }
            at = (at + 1) & mask;
        }
    }

    /// The slot of the short piece whose key is `key` (`short_key`), for the encoder's
    /// copy of its ids (`ShortIds`). Inlined into the encoding loop: a hit is most of what
    /// encoding a piece costs, and a short key alone tells a hit (no bytes to compare, no
    /// branch on the kind of piece). The probe loop is `find_run`'s written out: one shared
    /// through a closure measured 4-8% slower (docs/performance.md#cache).
    #[inline(always)]
    pub fn find_short(&self, key: u64) -> Option<SlotIds> {
        // An empty table's mask is all ones and its first probe finds no slot: no test of
        // its own (the bounds check is needed anyway).
        let mask = self.short.len().wrapping_sub(1);
        let mut at = Self::slot_of(key, mask);
        loop {
            let slot = self.short.get(at)?;
            if slot.key & KEY_BITS == key {
                return Some(SlotIds {
                    packed: slot.ids,
                    n: (slot.key >> COUNT_SHIFT) as usize,
                });
            }
            if slot.key == 0 {
                return None;
            }
            at = (at + 1) & mask;
        }
    }

    /// The run of the id arena at `start` (its count, then its ids), whose window goes on
    /// to the arena's end.
    #[inline(always)]
    fn arena_run(&self, start: usize) -> Run<'_> {
        let count = self.ids.get(start).map_or(0, |&n| n as usize);
        let window = self.ids.get(start + 1..).unwrap_or(&[]);
        Run {
            window,
            n: count.min(window.len()),
        }
    }

    /// Whether the byte arena holds `piece` at `text` (a long piece's slot's).
    #[inline(always)]
    fn same_text(&self, text: u32, piece: &[u8]) -> bool {
        let at = text as usize;
        let Some(len) = self.bytes.get(at..at + 4) else {
            return false;
        };
        let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
        match self.bytes.get(at + 4..at + 4 + len) {
            Some(kept) if len == piece.len() => same_bytes(kept, piece),
            _ => false,
        }
    }

    /// Remembers that `piece` encodes to `ids` (a piece not yet cached), unless it is
    /// longer than `MAX_PIECE_BYTES`, or longer than `KEPT_AT_ONCE_BYTES` and met for the
    /// first time.
    pub fn insert(&mut self, piece: &[u8], ids: &[u32]) {
        if piece.len() > MAX_PIECE_BYTES {
            return;
        }
        let key = key_of(piece);
        if piece.len() > KEPT_AT_ONCE_BYTES && !self.seen_before(key) {
            return;
        }
        if self.short_len + self.len >= MAX_PIECES
            || self.ids.len() + ids.len() + 1 + RUN_BLOCK > MAX_ARENA_IDS
            || self.bytes.len() + piece.len() + 4 > MAX_ARENA_BYTES
        {
            self.clear();
        }
        if is_short_key(key) {
            let slot = match pack(ids) {
                Some(packed) => ShortSlot {
                    key: key | (ids.len() as u64) << COUNT_SHIFT,
                    ids: packed,
                },
                None => ShortSlot {
                    key,
                    ids: self.push_run(ids) as u64,
                },
            };
            make_room(&mut self.short, self.short_len);
            place(&mut self.short, slot);
            self.short_len += 1;
            return;
        }
        let slot = if is_medium_key(key) {
            let (first, last) = first_and_last(piece);
            let value = match pack(ids) {
                Some(packed) => packed | (ids.len() as u64) << COUNT_SHIFT,
                None => self.push_run(ids) as u64,
            };
            Slot {
                key,
                value,
                words: [first, last],
            }
        } else {
            let text = self.bytes.len() as u64;
            self.bytes
                .extend_from_slice(&(piece.len() as u32).to_le_bytes());
            self.bytes.extend_from_slice(piece);
            Slot {
                key,
                value: text | (self.push_run(ids) as u64) << 32,
                words: [0; 2],
            }
        };
        make_room(&mut self.slots, self.len);
        place(&mut self.slots, slot);
        self.len += 1;
    }

    /// Appends a run of ids to the id arena; where it starts.
    fn push_run(&mut self, ids: &[u32]) -> usize {
        // The last run's padding (`RUN_BLOCK`) makes room for this one, padded.
        let end = self.ids.len().saturating_sub(RUN_BLOCK);
        self.ids.truncate(end);
        self.ids.push(ids.len() as u32);
        self.ids.extend_from_slice(ids);
        self.ids.resize(self.ids.len() + RUN_BLOCK, 0);
        end
    }
}

/// 1 to `INLINE_IDS` ids packed in one word as a short or medium slot holds them; `None` for more,
/// none, or an id too large to pack.
fn pack(ids: &[u32]) -> Option<u64> {
    let fits =
        (1..=INLINE_IDS).contains(&ids.len()) && ids.iter().all(|&id| u64::from(id) <= PACKED_ID);
    fits.then(|| {
        ids.iter().enumerate().fold(0, |packed, (k, &id)| {
            packed | u64::from(id) << (k as u32 * PACKED_ID_BITS)
        })
    })
}

/// Makes a table holding `len` pieces ready for one more: allocated at first use, doubled
/// while more than half full.
fn make_room<S: Keyed>(table: &mut Vec<S>, len: usize) {
    if table.is_empty() {
        *table = vec![S::default(); INITIAL_SLOTS];
    } else if 2 * (len + 1) > table.len() {
        let doubled = vec![S::default(); 2 * table.len()];
        let old = std::mem::replace(table, doubled);
        for slot in old.into_iter().filter(|s| s.key() != 0) {
            place(table, slot);
        }
    }
}

/// Puts a slot in the first free place from its key's.
fn place<S: Keyed>(table: &mut [S], slot: S) {
    let mask = table.len() - 1;
    let mut at = PieceCache::slot_of(slot.key(), mask);
    while table[at].key() != 0 {
        at = (at + 1) & mask;
    }
    table[at] = slot;
}

/// `a == b` for slices of equal length, 8 bytes at a time: long pieces are mostly 8 to 16
/// bytes, where a call to memcmp costs more than the comparison.
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let word = |s: &[u8]| <[u8; 8]>::try_from(s).map_or(0, u64::from_ne_bytes);
    let (mut a8, mut b8) = (a.chunks_exact(8), b.chunks_exact(8));
    for (x, y) in (&mut a8).zip(&mut b8) {
        if word(x) != word(y) {
            return false;
        }
    }
    // The last 0 to 7 bytes one by one: a slice comparison would call memcmp again.
    let (ra, rb) = (a8.remainder(), b8.remainder());
    ra.len() == rb.len() && ra.iter().zip(rb).all(|(x, y)| x == y)
}

#[cfg(test)]
#[path = "cache_tests.rs"]
mod tests;
