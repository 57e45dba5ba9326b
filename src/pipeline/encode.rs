//! Encoding: normalize → special tokens → pre-tokenize → per piece, the cache or the
//! algorithm → ids. Once the cache is large, pieces go through a short queue so that each
//! one's cache slot is prefetched before it is looked up; batches run on the calling thread
//! and a rayon pool's.
//! Why the cache and the prefetch queue: see docs/performance.md#encoding.

use super::cache::{self, PieceCache, INLINE_IDS};
use super::specials::{Part, SpecialMatcher};
use super::Tokenizer;
use crate::algorithms::UnknownChar;
use crate::error::{Error, Result};
use crate::pretokenize::PieceSink;
use crate::rng::SplitMix64;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

impl Tokenizer {
    /// Encodes `text`; special tokens in `specials` are recognised first, the rest of the
    /// text is ordinary.
    pub fn encode(&self, text: &str, specials: Option<&SpecialMatcher>) -> Result<Vec<u32>> {
        let mut out = Vec::new();
        self.encode_into(text, specials, &mut out)?;
        Ok(out)
    }

    /// `encode`, appending to `out`.
    pub fn encode_into(
        &self,
        text: &str,
        specials: Option<&SpecialMatcher>,
        out: &mut Vec<u32>,
    ) -> Result<()> {
        PieceCache::with(self.cache_owner, |cache| {
            self.encode_with_cache(text, specials, out, cache)
        })
    }

    /// `encode_into` with this thread's cache already taken: a run of a batch takes it
    /// once for all its texts.
    fn encode_with_cache(
        &self,
        text: &str,
        specials: Option<&SpecialMatcher>,
        out: &mut Vec<u32>,
        cache: &mut PieceCache,
    ) -> Result<()> {
        let normalized = self.config.normalizer.normalize(text);
        crate::pages::reserve(out, normalized.len() / 4);
        match specials {
            None => self.encode_ordinary_into(&normalized, out, cache),
            Some(matcher) => matcher.for_each_part(&normalized, |part| match part {
                Part::Ordinary(text) => self.encode_ordinary_into(text, out, cache),
                Part::Special(id) => {
                    out.push(id);
                    Ok(())
                }
            }),
        }
    }

    /// Encodes already-normalized text with no special tokens.
    fn encode_ordinary_into(
        &self,
        text: &str,
        out: &mut Vec<u32>,
        cache: &mut PieceCache,
    ) -> Result<()> {
        let direct = cache.is_small();
        let mut encoder = PieceEncoder {
            tokenizer: self,
            text,
            out: IdWriter::new(out),
            cache,
            queue: [("", 0); AHEAD],
            queued: 0,
            // The mode is chosen here, not at the first piece: a batch of short texts
            // would otherwise pay a call per text for it.
            seen: 1,
            direct,
            failure: None,
        };
        self.config.pre_tokenizer.send_pieces(text, &mut encoder)?;
        encoder.finish()
    }

    /// Encodes `piece` (a piece of `text`) and caches its ids; the cache had no entry.
    #[inline(never)]
    fn encode_uncached(
        &self,
        text: &str,
        piece: &str,
        out: &mut Vec<u32>,
        cache: &mut PieceCache,
    ) -> Result<()> {
        let start = out.len();
        if let Err(unknown) = self.encode_word(piece, out) {
            let offset = piece.as_ptr() as usize - text.as_ptr() as usize;
            return Err(unknown.into_error(text, offset));
        }
        cache.insert(piece.as_bytes(), &out[start..]);
        Ok(())
    }

    /// Encodes one pre-tokenized piece (a word), appending its ids.
    pub fn encode_piece(&self, piece: &str, out: &mut Vec<u32>) -> Result<()> {
        self.encode_word(piece, out)
            .map_err(|u| u.into_error(piece, 0))
    }

    /// The id of a piece that is encoded whole: a special token found by the pattern
    /// (CLIP), or a piece that is itself a token when merges are ignored (tiktoken).
    #[inline]
    fn whole_piece(&self, piece: &str) -> Option<u32> {
        if !self.special_pieces.is_empty() {
            if let Some(&id) = self.special_pieces.get(piece) {
                return Some(id);
            }
        }
        if self.config.ignore_merges {
            return self.piece_ids.get(piece.as_bytes());
        }
        None
    }

    /// Encodes one piece: whole, or by the algorithm.
    #[inline]
    fn encode_word(&self, piece: &str, out: &mut Vec<u32>) -> std::result::Result<(), UnknownChar> {
        if let Some(id) = self.whole_piece(piece) {
            out.push(id);
            return Ok(());
        }
        self.algorithm.encode_word(piece, out)
    }

    /// Encodes with BPE-dropout: each merge is skipped with probability `p` when its turn
    /// comes (skipped merges may apply later, once a neighbour changed). Seeded, so the same
    /// text, `p` and seed give the same ids; `p = 0` is plain encoding. No cache, and no
    /// whole-piece tokens: every piece goes through the merges.
    pub fn encode_dropout(
        &self,
        text: &str,
        specials: Option<&SpecialMatcher>,
        p: f64,
        seed: u64,
    ) -> Result<Vec<u32>> {
        if !(0.0..=1.0).contains(&p) {
            return Err(Error::invalid(format!(
                "dropout must be between 0 and 1, got {p}"
            )));
        }
        if p > 0.0 && self.algorithm.sentencepiece().is_some() {
            return Err(Error::invalid(
                "dropout is not available for SentencePiece models; encode without dropout",
            ));
        }
        if p == 0.0 || self.algorithm.greedy().is_some() {
            return self.encode(text, specials);
        }
        let mut rng = SplitMix64::new(seed);
        let normalized = self.config.normalizer.normalize(text);
        let mut out = Vec::new();
        let mut ordinary = |part: &str, out: &mut Vec<u32>| -> Result<()> {
            let mut failure = None;
            self.config.pre_tokenizer.for_each_piece(part, |piece| {
                if failure.is_some() {
                    return;
                }
                if let Err(u) = self.algorithm.encode_word_dropout(piece, out, p, &mut rng) {
                    let offset = piece.as_ptr() as usize - part.as_ptr() as usize;
                    failure = Some(u.into_error(part, offset));
                }
            })?;
            failure.map_or(Ok(()), Err)
        };
        match specials {
            None => ordinary(&normalized, &mut out)?,
            Some(matcher) => matcher.for_each_part(&normalized, |part| match part {
                Part::Ordinary(text) => ordinary(text, &mut out),
                Part::Special(id) => {
                    out.push(id);
                    Ok(())
                }
            })?,
        }
        Ok(out)
    }

    /// Text `index` of a batch, its ids appended to `out`: the forbidden-token check,
    /// then `encode`; an error names the text.
    fn encode_in_batch(
        &self,
        index: usize,
        text: &str,
        specials: Option<&SpecialMatcher>,
        forbidden: Option<&SpecialMatcher>,
        out: &mut Vec<u32>,
        cache: &mut PieceCache,
    ) -> Result<()> {
        forbidden
            .map_or(Ok(()), |f| f.refuse_in(text))
            .and_then(|()| self.encode_with_cache(text, specials, out, cache))
            .map_err(|e| in_text(index, e))
    }

    /// A batch as one flat list of ids and the offsets where each text's ids start (one
    /// more offset than texts, the last being the total), encoded on the calling thread
    /// and all but one of `pool`'s threads (rayon's global pool for `None`).
    pub fn encode_batch_flat(
        &self,
        texts: &[&str],
        specials: Option<&SpecialMatcher>,
        forbidden: Option<&SpecialMatcher>,
        pool: Option<&rayon::ThreadPool>,
    ) -> Result<(Vec<u32>, Vec<u64>)> {
        // Runs of texts, each encoded into one buffer: no vector per text.
        let runs = Runs::for_pool(texts, pool);
        if runs.count() == 1 {
            // One run straight into the result: nothing to join.
            let mut offsets = Vec::with_capacity(texts.len() + 1);
            offsets.push(0);
            let ids = self.encode_run_into(0, texts, specials, forbidden, &mut offsets)?;
            return Ok((ids, offsets));
        }
        let parts = runs.each(pool, |part| {
            self.encode_part(&runs, part, specials, forbidden)
        })?;
        // The runs are joined by the team too: copying tens of megabytes of ids into fresh
        // pages is a few percent of a batch, serial if done by one thread.
        let mut flat = vec![0u32; parts.iter().map(|(ids, _)| ids.len()).sum()];
        crate::pages::advise_huge_pages(flat.as_ptr(), flat.len());
        let mut offsets = vec![0u64; texts.len() + 1];
        let mut slots = Vec::with_capacity(parts.len());
        let (mut ids_left, mut ends_left) = (&mut flat[..], &mut offsets[1..]);
        let mut base = 0u64;
        for (ids, ends) in &parts {
            let (ids_slot, ids_rest) = ids_left.split_at_mut(ids.len());
            let (ends_slot, ends_rest) = ends_left.split_at_mut(ends.len());
            slots.push((ids_slot, ends_slot, base, ids, ends));
            (ids_left, ends_left) = (ids_rest, ends_rest);
            base += ids.len() as u64;
        }
        let slots = Mutex::new(slots);
        let join = || {
            while let Some((ids_slot, ends_slot, base, ids, ends)) = lock(&slots).pop() {
                ids_slot.copy_from_slice(ids);
                for (slot, end) in ends_slot.iter_mut().zip(ends) {
                    *slot = base + end;
                }
            }
        };
        if base >= PARALLEL_JOIN_MIN_IDS {
            crate::threads::team(pool, join);
        } else {
            join();
        }
        Ok((flat, offsets))
    }

    /// Run `part` of `runs`: its ids and where each of its texts' ids end.
    pub fn encode_part(
        &self,
        runs: &Runs<'_, '_>,
        part: usize,
        specials: Option<&SpecialMatcher>,
        forbidden: Option<&SpecialMatcher>,
    ) -> Result<(Vec<u32>, Vec<u64>)> {
        let texts = runs.texts(part);
        let mut ends = Vec::with_capacity(texts.len());
        let ids = self.encode_run_into(runs.first(part), texts, specials, forbidden, &mut ends)?;
        Ok((ids, ends))
    }

    /// Texts `first..` of a batch into one buffer of ids, pushing where each text's ids end
    /// onto `ends`. The thread's cache is taken once for the run, not once a text.
    fn encode_run_into(
        &self,
        first: usize,
        texts: &[&str],
        specials: Option<&SpecialMatcher>,
        forbidden: Option<&SpecialMatcher>,
        ends: &mut Vec<u64>,
    ) -> Result<Vec<u32>> {
        let mut ids = Vec::new();
        PieceCache::with(self.cache_owner, |cache| {
            texts.iter().enumerate().try_for_each(|(k, text)| {
                self.encode_in_batch(first + k, text, specials, forbidden, &mut ids, cache)?;
                ends.push(ids.len() as u64);
                Ok(())
            })
        })?;
        Ok(ids)
    }
}

/// A batch cut into runs of consecutive texts of about equal bytes (a text is never cut),
/// which threads claim one at a time, each run once: a thread that also has other work
/// (making Python lists) claims a run only when it is idle, so the work is shared out as
/// it goes rather than fixed in advance. By bytes, not by count: one long text among
/// short ones makes a run of its own instead of a run as long as many others.
pub struct Runs<'b, 't> {
    all: &'b [&'t str],
    /// Where each run starts, then the number of texts.
    starts: Vec<usize>,
    next: AtomicUsize,
}

impl<'b, 't> Runs<'b, 't> {
    /// `texts` in about `parts` runs (fewer when there are fewer texts, a few more when
    /// long texts take whole runs).
    pub fn new(texts: &'b [&'t str], parts: usize) -> Self {
        // A text weighs its bytes plus one (a batch of empty texts is cut by count). A run
        // goes up to its share of the weight, past it only for a text alone in its run.
        let weight: usize = texts.iter().map(|t| t.len() + 1).sum();
        let share = weight.div_ceil(parts.max(1)).max(1);
        let mut starts = vec![0];
        let mut run = 0;
        for (i, text) in texts.iter().enumerate() {
            let w = text.len() + 1;
            if run > 0 && run + w > share {
                starts.push(i);
                run = 0;
            }
            run += w;
        }
        starts.push(texts.len());
        Runs {
            all: texts,
            starts,
            next: AtomicUsize::new(0),
        }
    }

    /// `texts` cut for work on `pool` (`crate::threads::team`): one run for a batch under
    /// `PARALLEL_MIN_BYTES` or a pool of one thread, else several runs a thread, which
    /// keep the threads evenly loaded.
    pub fn for_pool(texts: &'b [&'t str], pool: Option<&rayon::ThreadPool>) -> Self {
        if Self::worth_sharing(texts, pool) {
            Runs::new(texts, 8 * crate::threads::pool_threads(pool))
        } else {
            Runs::new(texts, 1)
        }
    }

    /// Whether a batch of `texts` is worth sharing among `pool`'s threads: it has at least
    /// `PARALLEL_MIN_BYTES` and the pool more than one thread.
    pub fn worth_sharing(texts: &[&str], pool: Option<&rayon::ThreadPool>) -> bool {
        crate::threads::pool_threads(pool) >= 2
            && texts.iter().map(|t| t.len()).sum::<usize>() >= PARALLEL_MIN_BYTES
    }

    /// How many runs there are (one, empty, for a batch of no texts).
    pub fn count(&self) -> usize {
        self.starts.len() - 1
    }

    /// The number of the next run no thread has claimed yet.
    pub fn claim(&self) -> Option<usize> {
        let part = self.next.fetch_add(1, Ordering::Relaxed);
        (part < self.count()).then_some(part)
    }

    /// `f` of every run, in run order, computed by the calling thread and all but one of
    /// `pool`'s threads (`crate::threads::team`); the error of the earliest run that failed.
    pub fn each<T: Send>(
        &self,
        pool: Option<&rayon::ThreadPool>,
        f: impl Fn(usize) -> Result<T> + Sync,
    ) -> Result<Vec<T>> {
        if self.count() == 1 {
            return Ok(vec![f(0)?]);
        }
        let done = Mutex::new(Vec::with_capacity(self.count()));
        crate::threads::team(pool, || {
            let mut mine = Vec::new();
            while let Some(part) = self.claim() {
                mine.push((part, f(part)));
            }
            lock(&done).extend(mine);
        });
        let mut done = done.into_inner().unwrap_or_else(|e| e.into_inner());
        done.sort_unstable_by_key(|(part, _)| *part);
        done.into_iter().map(|(_, result)| result).collect()
    }

    /// The index in the batch of run `part`'s first text.
    pub fn first(&self, part: usize) -> usize {
        self.starts[part]
    }

    pub(super) fn texts(&self, part: usize) -> &'b [&'t str] {
        &self.all[self.starts[part]..self.starts[part + 1]]
    }
}

/// `err` as an error of text `index` of a batch.
pub(super) fn in_text(index: usize, err: Error) -> Error {
    Error {
        message: format!("text {index} of the batch: {}", err.message),
        ..err
    }
}

/// A batch with fewer ids is joined on the calling thread: handing the copies to the pool
/// costs more than they take.
const PARALLEL_JOIN_MIN_IDS: u64 = 1 << 18;

/// A batch of fewer bytes is encoded on the calling thread alone: a sleeping pool thread
/// wakes too late to take a share of it
/// (docs/performance.md#batches-the-calling-thread-works-one-thread-stays-on-it).
pub const PARALLEL_MIN_BYTES: usize = 1 << 17;

/// `mutex`'s guard; a thread that panicked holding it left nothing half-written here.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// Pieces are looked up this many pieces after their cache slot was prefetched.
const AHEAD: usize = 8;
/// The lookup mode is chosen again every this many pieces (the cache grows as it fills).
const RECHECK: usize = 4096;

/// Encoding one ordinary text, piece by piece as the pre-tokenizer finds them. While the
/// cache's table is small, each piece is looked up as it is found; once it is large, each
/// piece's slot is prefetched when it is found and looked up `AHEAD` pieces later, so the
/// memory latency of lookups overlaps (why both: docs/performance.md#lookup-modes). Inlined
/// into the splitting loop: a cached piece costs no function call.
struct PieceEncoder<'a, 't> {
    tokenizer: &'a Tokenizer,
    text: &'t str,
    out: IdWriter<'a>,
    cache: &'a mut PieceCache,
    /// The waiting pieces and their keys: the last `min(queued, AHEAD)` queued, piece `i`
    /// at `i % AHEAD`, so the oldest is where the next one goes.
    queue: [(&'t str, u64); AHEAD],
    /// Pieces queued since the queue was last empty.
    queued: usize,
    /// Pieces found so far, plus one: the mode is chosen again each `RECHECK` pieces.
    seen: usize,
    /// Looking up each piece as it is found, with no queue.
    direct: bool,
    /// The first error; later pieces are skipped.
    failure: Option<Error>,
}

impl<'t> PieceSink<'t> for PieceEncoder<'_, 't> {
    #[inline(always)]
    fn piece(&mut self, piece: &'t str) {
        let start = piece.as_ptr() as usize - self.text.as_ptr() as usize;
        if self.seen.is_multiple_of(RECHECK) {
            self.choose_mode();
        }
        self.seen += 1;
        if self.direct {
            // Short pieces (most of them) take their own path, decided once per piece.
            match cache::short_key_in(self.text.as_bytes(), start, piece.len()) {
                Some(key) => self.lookup_short(piece, key),
                None => self.lookup(piece, cache::key_of(piece.as_bytes())),
            }
            return;
        }
        self.queue_piece(piece, start);
    }
}

impl<'t> PieceEncoder<'_, 't> {
    /// A piece found while the table is large: its slot prefetched, the piece queued, and
    /// the oldest queued piece looked up. Out of the splitting loop: inlined there, it made
    /// the direct path slower (docs/performance.md#the-queue-short-pieces-path-one-index-this-round).
    #[inline(never)]
    fn queue_piece(&mut self, piece: &'t str, start: usize) {
        let key = cache::key_in(self.text.as_bytes(), start, piece.len());
        self.cache.prefetch(key);
        // The oldest piece's place takes the new one: no head or count to keep apart.
        let (oldest, oldest_key) =
            std::mem::replace(&mut self.queue[self.queued % AHEAD], (piece, key));
        self.queued += 1;
        if self.queued > AHEAD {
            self.lookup_queued(oldest, oldest_key);
        }
    }
}

impl PieceEncoder<'_, '_> {
    /// A short piece: its slot's ids are copied whole and `n` of them kept, so the number
    /// of ids costs no branch.
    #[inline(always)]
    fn lookup_short(&mut self, piece: &str, key: u64) {
        if self.failure.is_some() {
            return;
        }
        match self.cache.find_short(key) {
            Some(found) => {
                let (ids, n) = found.inline();
                if n.wrapping_sub(1) < INLINE_IDS {
                    self.out.push_inline(ids, n);
                } else {
                    self.out.extend(found.arena());
                }
            }
            None => self.uncached(piece),
        }
    }

    #[inline(always)]
    fn lookup(&mut self, piece: &str, key: u64) {
        if self.failure.is_some() {
            return;
        }
        match self.cache.find(key, piece.as_bytes()) {
            Some(&[id]) => self.out.push(id),
            Some(ids) => self.out.extend(ids),
            None => self.uncached(piece),
        }
    }

    /// A piece the cache does not hold: merged, then cached.
    #[inline(always)]
    fn uncached(&mut self, piece: &str) {
        let ids = self.out.vec();
        let result = self
            .tokenizer
            .encode_uncached(self.text, piece, ids, self.cache);
        self.out.reload();
        if let Err(err) = result {
            self.failure = Some(err);
        }
    }

    /// A piece taken out of the queue. Short pieces take their own path here too: once the
    /// table is large, the queue's lookups are most of the pieces.
    #[inline(always)]
    fn lookup_queued(&mut self, piece: &str, key: u64) {
        if cache::is_short_key(key) {
            self.lookup_short(piece, key);
        } else {
            self.lookup(piece, key);
        }
    }

    /// Looks up the pieces still in the queue, oldest first.
    fn drain(&mut self) {
        for i in self.queued.saturating_sub(AHEAD)..self.queued {
            let (piece, key) = self.queue[i % AHEAD];
            self.lookup_queued(piece, key);
        }
        self.queued = 0;
    }

    /// Direct lookups while the cache's table stays near the core; the queue beyond.
    #[inline(never)]
    fn choose_mode(&mut self) {
        let direct = self.cache.is_small();
        if direct {
            self.drain();
        }
        self.direct = direct;
    }

    /// Looks up the pieces still waiting; the first error, if any.
    fn finish(&mut self) -> Result<()> {
        self.drain();
        self.out.vec();
        self.failure.take().map_or(Ok(()), Err)
    }
}

/// Appends ids to a `Vec` through a pointer, length and capacity of its own, and may write
/// past the last id (within the capacity) so that a short piece's ids are copied whole.
/// The `Vec`'s length is brought up to date by `vec`, before anything else touches it;
/// until then it is behind, never ahead, so a panic in between loses ids but exposes no
/// unwritten one.
struct IdWriter<'a> {
    vec: &'a mut Vec<u32>,
    ptr: *mut u32,
    len: usize,
    cap: usize,
}

impl<'a> IdWriter<'a> {
    fn new(vec: &'a mut Vec<u32>) -> Self {
        let (ptr, len, cap) = (vec.as_mut_ptr(), vec.len(), vec.capacity());
        IdWriter { vec, ptr, len, cap }
    }

    /// Appends the first `n` of `ids` (`n <= INLINE_IDS`), writing all of them.
    #[inline(always)]
    fn push_inline(&mut self, ids: &[u32; INLINE_IDS], n: usize) {
        if self.cap - self.len < INLINE_IDS {
            self.grow(INLINE_IDS);
        }
        // SAFETY: `len + INLINE_IDS <= cap`, the capacity of the allocation at `ptr`,
        // which only this writer uses until `vec` hands the `Vec` out; `ids` is the
        // cache's memory, never this buffer. `n <= INLINE_IDS` ids count as written.
        unsafe { std::ptr::copy_nonoverlapping(ids.as_ptr(), self.ptr.add(self.len), INLINE_IDS) };
        self.len += n;
    }

    #[inline(always)]
    fn push(&mut self, id: u32) {
        if self.len == self.cap {
            self.grow(1);
        }
        // SAFETY: as in `push_inline`, with `len < cap`.
        unsafe { self.ptr.add(self.len).write(id) };
        self.len += 1;
    }

    #[inline(always)]
    fn extend(&mut self, ids: &[u32]) {
        if self.cap - self.len < ids.len() {
            self.grow(ids.len());
        }
        // SAFETY: as in `push_inline`, with `len + ids.len() <= cap`.
        unsafe { std::ptr::copy_nonoverlapping(ids.as_ptr(), self.ptr.add(self.len), ids.len()) };
        self.len += ids.len();
    }

    /// Room for `more` ids past the last.
    #[inline(always)]
    fn grow(&mut self, more: usize) {
        (self.ptr, self.cap) = reserve(self.vec, self.len, more);
    }

    /// The `Vec`, its length up to date, for code that appends to it; `reload` after.
    fn vec(&mut self) -> &mut Vec<u32> {
        // SAFETY: the first `len` ids were written (by the methods above, or were there).
        unsafe { self.vec.set_len(self.len) };
        self.vec
    }

    /// Takes the `Vec` back after `vec`'s user appended to it.
    fn reload(&mut self) {
        (self.ptr, self.len, self.cap) =
            (self.vec.as_mut_ptr(), self.vec.len(), self.vec.capacity());
    }
}

/// `IdWriter::grow`: the `Vec`'s length set to `len` (ids written so far), then room for
/// `more` ids, at least doubling; the new pointer and capacity. Given the `Vec`, not the
/// writer, so that the writer's fields need not live in memory.
#[cold]
#[inline(never)]
fn reserve(vec: &mut Vec<u32>, len: usize, more: usize) -> (*mut u32, usize) {
    // SAFETY: as in `IdWriter::vec`.
    unsafe { vec.set_len(len) };
    crate::pages::reserve(vec, more.max(len));
    (vec.as_mut_ptr(), vec.capacity())
}
