//! Encoding: normalize → special tokens → pre-tokenize → per piece, the cache or the
//! algorithm → ids. Once the cache is large, pieces may go through a short queue so that
//! each one's cache slot is prefetched before it is looked up, when timing says that is
//! faster. Batches: `batch.rs`.
//! Why the cache and the prefetch queue: see docs/performance.md#encoding.

use super::cache::{self, PieceCache, Run, SlotIds, INLINE_IDS, RUN_BLOCK};
use super::specials::{Part, SpecialMatcher};
use super::Tokenizer;
use crate::algorithms::UnknownChar;
use crate::error::{Error, Result};
use crate::pretokenize::PieceSink;
use crate::rng::SplitMix64;
use std::time::{Duration, Instant};

impl Tokenizer {
    /// Encodes `text`; special tokens in `specials` are recognised first, the rest of the
    /// text is ordinary.
    pub fn encode(&self, text: &str, specials: Option<&SpecialMatcher>) -> Result<Vec<u32>> {
        let mut out = crate::pages::result_buffer(text.len());
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
    pub(super) fn encode_with_cache(
        &self,
        text: &str,
        specials: Option<&SpecialMatcher>,
        out: &mut Vec<u32>,
        cache: &mut PieceCache,
    ) -> Result<()> {
        let normalized = self.config.normalizer.normalize(text);
        // One id per two bytes: text has 0.23 to 0.41 (cl100k, o200k), so the buffer is not
        // copied as it grows (docs/performance.md#the-outputs-first-room-2026-12-06-third).
        crate::pages::reserve(out, normalized.len() / 2);
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
        let mut encoder = PieceEncoder::new(self, text, out, cache, NoEnds);
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
            // In a run's shared queue the piece may be an earlier text's: that error is
            // dropped and the run encoded again text by text, so only the arithmetic must
            // hold here.
            let offset = (piece.as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
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
}

/// Pieces are looked up this many pieces after their cache slot was prefetched.
const AHEAD: usize = 16;
/// The lookup mode is chosen again every this many pieces (the cache grows as it fills).
pub(super) const RECHECK: usize = 4096;
/// On a large table, every this many windows of `RECHECK` pieces one window is timed with
/// direct lookups and the next with the queue, and the faster way is kept until the next
/// trial (a trial costs at most one window in the slower way).
pub(super) const TRIAL_EVERY: u32 = 16;

/// Which way a thread looks pieces up once its cache's table is large, learnt by timing
/// both: whether the queue pays depends on how much of the table the text keeps near the
/// core, not on the table's size alone. Kept with the thread's cache, so that the next
/// call starts with what the last one learnt. Measured:
/// docs/performance.md#lookup-modes-chosen-by-timing-sixteen-pieces-ahead-2026-11-28.
#[derive(Clone, Copy, Debug)]
pub(super) struct LookupChoice {
    /// The queue rather than direct lookups.
    pub(super) queue: bool,
    /// Windows until the next trial.
    until_trial: u32,
}

impl LookupChoice {
    #[cfg(test)]
    pub(super) fn until_trial(self) -> u32 {
        self.until_trial
    }

    /// The queue until a trial says otherwise; the first window on a large table is one.
    pub(super) const FIRST: LookupChoice = LookupChoice {
        queue: true,
        until_trial: 1,
    };
}

/// A trial under way: where its window began, and the direct window's time and bytes.
#[derive(Clone, Copy)]
enum Trial {
    Off,
    Direct(Mark),
    Queue(Mark, Duration, Option<usize>),
}

/// Where a window began: the time, the text and the place in it.
#[derive(Clone, Copy)]
struct Mark {
    time: Instant,
    text: usize,
    at: usize,
}

impl Mark {
    /// The time since `self`, and the bytes when the window stayed in one text (a run of
    /// a batch may go on into other texts: then the windows' pieces are compared).
    fn since(self, now: Mark) -> (Duration, Option<usize>) {
        let bytes = (now.text == self.text && now.at > self.at).then(|| now.at - self.at);
        (now.time - self.time, bytes)
    }
}

/// Whether the queue's window was faster than the direct one: by time per byte, for
/// text whose pieces change in length from window to window; by time alone when a
/// window's bytes are unknown (both windows have as many pieces).
fn queue_was_faster(direct: (Duration, Option<usize>), queue: (Duration, Option<usize>)) -> bool {
    match (direct, queue) {
        ((d, Some(db)), (q, Some(qb))) => q.as_nanos() * (db as u128) < d.as_nanos() * (qb as u128),
        ((d, _), (q, _)) => q < d,
    }
}

/// Encoding ordinary text (one text, or a batch's run of texts one after another: `E`
/// notes where each ends), piece by piece as the pre-tokenizer finds them. While the
/// cache's table is small, each piece is looked up as it is found; once it is large, the
/// same, or (as `LookupChoice` has it) each piece's slot is prefetched when it is found and
/// looked up `AHEAD` pieces later, so the memory latency of lookups overlaps (why both:
/// docs/performance.md#lookup-modes). Inlined
/// into the splitting loop: a cached piece costs no function call.
pub(super) struct PieceEncoder<'a, 't, E: Ends> {
    tokenizer: &'a Tokenizer,
    /// The text being split (a run's texts in turn).
    pub(super) text: &'t str,
    pub(super) out: IdWriter<'a>,
    cache: &'a mut PieceCache,
    /// The waiting pieces and their keys: the last `min(queued, AHEAD)` queued, piece `i`
    /// at `i % AHEAD`, so the oldest is where the next one goes.
    queue: [(&'t str, u64); AHEAD],
    /// Pieces queued since the queue was last empty.
    queued: usize,
    /// Pieces found before the last choice of mode, and pieces left until the next: the
    /// mode is chosen again each `RECHECK` pieces (a count down costs the loop one
    /// instruction where a count and a remainder cost five).
    checked: usize,
    left: usize,
    /// Looking up each piece as it is found, with no queue; never after an error.
    direct: bool,
    trial: Trial,
    /// The first error; later pieces are skipped.
    failure: Option<Error>,
    /// Where each text of a run ends in `out` (nothing for one text).
    pub(super) ends: E,
}

/// Told of every lookup, in the pieces' order, with the number of ids written by then.
pub(super) trait Ends {
    fn looked_up(&mut self, out_len: usize);
}

/// One text: nothing to note.
struct NoEnds;

impl Ends for NoEnds {
    #[inline(always)]
    fn looked_up(&mut self, _: usize) {}
}

impl<'a, 't, E: Ends> PieceEncoder<'a, 't, E> {
    pub(super) fn new(
        tokenizer: &'a Tokenizer,
        text: &'t str,
        out: &'a mut Vec<u32>,
        cache: &'a mut PieceCache,
        ends: E,
    ) -> Self {
        let direct = cache.is_small() || !cache.lookups.queue;
        PieceEncoder {
            tokenizer,
            text,
            out: IdWriter::new(out),
            cache,
            queue: [("", 0); AHEAD],
            queued: 0,
            // The mode is chosen here, not at the first piece: a batch of short texts
            // would otherwise pay a call per text for it.
            checked: 0,
            left: RECHECK,
            direct,
            trial: Trial::Off,
            failure: None,
            ends,
        }
    }
}

impl<'t, E: Ends> PieceSink<'t> for PieceEncoder<'_, 't, E> {
    #[inline(always)]
    fn piece(&mut self, piece: &'t str) {
        let start = piece.as_ptr() as usize - self.text.as_ptr() as usize;
        self.piece_at(piece, start);
    }

    #[inline(always)]
    fn piece_at(&mut self, piece: &'t str, start: usize) {
        self.left -= 1;
        if self.left == 0 {
            self.choose_mode(start);
        }
        if self.direct {
            // Short pieces (most of them) take their own path, decided once per piece.
            match cache::short_key_in(self.text.as_bytes(), start, piece.len()) {
                Some(key) => self.lookup_short(piece, key),
                None => self.lookup_any(piece, cache::key_of(piece.as_bytes())),
            }
            self.ends.looked_up(self.out.len);
            return;
        }
        self.queue_piece(piece, start);
    }
}

impl<'t, E: Ends> PieceEncoder<'_, 't, E> {
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

impl<E: Ends> PieceEncoder<'_, '_, E> {
    /// A short piece: its slot's ids are copied whole and `n` of them kept, so the number
    /// of ids costs no branch.
    #[inline(always)]
    fn lookup_short(&mut self, piece: &str, key: u64) {
        let found = self.cache.find_short(key);
        self.write_slot_ids(piece, found);
    }

    /// A short or medium piece's ids, as its slot holds them (`None`: not cached).
    #[inline(always)]
    fn write_slot_ids(&mut self, piece: &str, found: Option<SlotIds>) {
        match found {
            Some(found) => {
                let (ids, n) = found.inline();
                if n.wrapping_sub(1) < INLINE_IDS {
                    self.out.push_inline(&ids, n);
                } else {
                    self.out.extend_run(found.arena(self.cache));
                }
            }
            None => self.uncached(piece),
        }
    }

    /// A medium or long piece.
    #[inline(always)]
    fn lookup(&mut self, piece: &str, key: u64) {
        if cache::is_medium_key(key) {
            let found = self.cache.find_medium(key, piece.as_bytes());
            return match found.and_then(|found| found.block(self.cache)) {
                Some((block, n)) => self.out.push_block(&block, n),
                None => self.write_slot_ids(piece, found),
            };
        }
        match self.cache.find_run(key, piece.as_bytes()) {
            Some(run) => self.out.extend_run(run),
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
            // Later pieces are skipped, which only the queue's path checks for.
            self.direct = false;
        }
    }

    /// A piece taken out of the queue. Short pieces take their own path here too: once the
    /// table is large, the queue's lookups are most of the pieces.
    #[inline(always)]
    fn lookup_queued(&mut self, piece: &str, key: u64) {
        // After an error the pieces are skipped (the direct path is never taken then).
        if self.failure.is_none() {
            self.lookup_any(piece, key);
        }
        self.ends.looked_up(self.out.len);
    }

    /// A piece of either kind: short pieces have their own table.
    #[inline(always)]
    fn lookup_any(&mut self, piece: &str, key: u64) {
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

    /// Direct lookups while the cache's table is small; beyond, the way the last trial
    /// found faster. Never direct after an error.
    #[inline(never)]
    fn choose_mode(&mut self, at: usize) {
        self.checked += RECHECK;
        self.left = RECHECK;
        let direct = if self.failure.is_some() {
            false
        } else if self.cache.is_small() {
            self.trial = Trial::Off;
            true
        } else {
            !self.timed_choice(at)
        };
        if direct {
            self.drain();
        }
        self.direct = direct;
    }

    /// Whether the next window of a large table goes through the queue: a trial's two
    /// windows, or the faster way of the last trial.
    fn timed_choice(&mut self, at: usize) -> bool {
        let now = Mark {
            time: Instant::now(),
            text: self.text.as_ptr() as usize,
            at,
        };
        let choice = &mut self.cache.lookups;
        match self.trial {
            Trial::Direct(start) => {
                let (time, bytes) = start.since(now);
                self.trial = Trial::Queue(now, time, bytes);
                true
            }
            Trial::Queue(start, time, bytes) => {
                self.trial = Trial::Off;
                choice.queue = queue_was_faster((time, bytes), start.since(now));
                choice.until_trial = TRIAL_EVERY;
                choice.queue
            }
            Trial::Off => {
                choice.until_trial = choice.until_trial.saturating_sub(1);
                if choice.until_trial == 0 {
                    self.trial = Trial::Direct(now);
                    return false;
                }
                choice.queue
            }
        }
    }

    /// How many pieces were found so far.
    pub(super) fn found(&self) -> usize {
        self.checked + (RECHECK - self.left)
    }

    /// Looks up the pieces still waiting; the first error, if any.
    pub(super) fn finish(&mut self) -> Result<()> {
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
pub(super) struct IdWriter<'a> {
    vec: &'a mut Vec<u32>,
    ptr: *mut u32,
    /// Ids written.
    pub(super) len: usize,
    cap: usize,
    /// `cap + 1 - INLINE_IDS` (0 below): while `len < inline_end`, a short piece's ids fit
    /// whole (one comparison a piece instead of a subtraction and a comparison).
    inline_end: usize,
}

impl<'a> IdWriter<'a> {
    fn new(vec: &'a mut Vec<u32>) -> Self {
        let (ptr, len, cap) = (vec.as_mut_ptr(), vec.len(), vec.capacity());
        let inline_end = inline_end(cap);
        IdWriter {
            vec,
            ptr,
            len,
            cap,
            inline_end,
        }
    }

    /// Appends the first `n` of `ids` (`n <= INLINE_IDS`), writing all of them.
    #[inline(always)]
    fn push_inline(&mut self, ids: &[u32; INLINE_IDS], n: usize) {
        if self.len >= self.inline_end {
            self.grow(INLINE_IDS);
        }
        self.put_block(ids, n);
    }

    /// Writes all `N` ids of `block` after the last and keeps the first `n` (`n <= N`);
    /// the caller has made room for `N`.
    #[inline(always)]
    fn put_block<const N: usize>(&mut self, block: &[u32; N], n: usize) {
        debug_assert!(n <= N && self.len + N <= self.cap);
        // SAFETY: `len + N <= cap` (the callers grow first), the capacity of the
        // allocation at `ptr`, which only this writer uses until `vec` hands the `Vec`
        // out; `block` is the cache's memory or a copy of it, never this buffer. `n <= N`
        // ids count as written.
        unsafe { std::ptr::copy_nonoverlapping(block.as_ptr(), self.ptr.add(self.len), N) };
        self.len += n;
    }

    #[inline(always)]
    fn extend(&mut self, ids: &[u32]) {
        if self.cap - self.len < ids.len() {
            self.grow(ids.len());
        }
        // SAFETY: as in `put_block`, with `len + ids.len() <= cap`.
        unsafe { std::ptr::copy_nonoverlapping(ids.as_ptr(), self.ptr.add(self.len), ids.len()) };
        self.len += ids.len();
    }

    /// Appends the first `n` of `block` (`n <= RUN_BLOCK`), writing all of them.
    #[inline(always)]
    fn push_block(&mut self, block: &[u32; RUN_BLOCK], n: usize) {
        if self.cap - self.len < RUN_BLOCK {
            self.grow(RUN_BLOCK);
        }
        self.put_block(block, n);
    }

    /// Appends a run of ids from the cache: one fixed-size copy of `RUN_BLOCK` ids when
    /// they are that many or fewer and readable (most runs of the arena), else `extend`.
    #[inline(always)]
    fn extend_run(&mut self, run: Run<'_>) {
        match run.window.first_chunk::<RUN_BLOCK>() {
            Some(block) if run.n <= RUN_BLOCK => self.push_block(block, run.n),
            _ => self.extend(run.ids()),
        }
    }

    /// Room for `more` ids past the last.
    #[inline(always)]
    fn grow(&mut self, more: usize) {
        (self.ptr, self.cap) = reserve(self.vec, self.len, more);
        self.inline_end = inline_end(self.cap);
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
        self.inline_end = inline_end(self.cap);
    }
}

/// `IdWriter::inline_end` for a capacity.
#[inline(always)]
fn inline_end(cap: usize) -> usize {
    (cap + 1).saturating_sub(INLINE_IDS)
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
