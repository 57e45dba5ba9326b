//! Batches: texts cut into runs of about equal bytes, which the calling thread and its
//! helpers (a rayon pool's threads) claim; each run encoded into one buffer through one
//! encoder.
//! Why runs, and why one encoder a run: docs/performance.md#batches-cut-by-bytes and
//! docs/performance.md#batches-one-queue-for-a-run.

use super::cache::PieceCache;
use super::encode::{Ends, PieceEncoder};
use super::specials::SpecialMatcher;
use super::Tokenizer;
use crate::error::{Error, Result};
use crate::pages::{give_back_run, joined_buffer, run_buffer};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

impl Tokenizer {
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
    /// and `helpers`' threads (`None`: the calling thread alone).
    pub fn encode_batch_flat(
        &self,
        texts: &[&str],
        specials: Option<&SpecialMatcher>,
        forbidden: Option<&SpecialMatcher>,
        helpers: Option<&crate::threads::Helpers>,
    ) -> Result<(Vec<u32>, Vec<u64>)> {
        // Runs of texts, each encoded into one buffer: no vector per text.
        let runs = Runs::for_team(texts, helpers);
        if runs.count() == 1 {
            // One run straight into the result: nothing to join.
            let mut offsets = Vec::with_capacity(texts.len() + 1);
            offsets.push(0);
            let buffer = crate::pages::result_buffer(text_bytes(texts));
            let ids = self.encode_run_into(0, texts, specials, forbidden, &mut offsets, buffer)?;
            return Ok((ids, offsets));
        }
        let parts = runs.each(helpers, |part| {
            self.encode_part(&runs, part, specials, forbidden)
        })?;
        Ok(join_runs(parts, texts.len(), helpers))
    }

    /// Run `part` of `runs`: its ids (in a spare buffer, `run_buffer`) and where each of its
    /// texts' ids end.
    pub fn encode_part(
        &self,
        runs: &Runs<'_, '_>,
        part: usize,
        specials: Option<&SpecialMatcher>,
        forbidden: Option<&SpecialMatcher>,
    ) -> Result<(Vec<u32>, Vec<u64>)> {
        let texts = runs.texts(part);
        let mut ends = Vec::with_capacity(texts.len());
        let first = runs.first(part);
        let ids =
            self.encode_run_into(first, texts, specials, forbidden, &mut ends, run_buffer())?;
        Ok((ids, ends))
    }

    /// Texts `first..` of a batch into `ids` (emptied first; its capacity is used), pushing
    /// where each text's ids end onto `ends`. The thread's cache is taken once for the run,
    /// not once a text.
    pub(super) fn encode_run_into(
        &self,
        first: usize,
        texts: &[&str],
        specials: Option<&SpecialMatcher>,
        forbidden: Option<&SpecialMatcher>,
        ends: &mut Vec<u64>,
        mut ids: Vec<u32>,
    ) -> Result<Vec<u32>> {
        let ends_before = ends.len();
        ids.clear();
        let bytes = text_bytes(texts);
        let started = (bytes >= pace::TIMED_FROM_BYTES).then(std::time::Instant::now);
        PieceCache::with(self.cache_owner, |cache| {
            if specials.is_none() && self.config.normalizer.is_identity() {
                if self.encode_run_queued(texts, bytes, forbidden, &mut ids, ends, cache) {
                    return Ok(());
                }
                ids.clear();
                ends.truncate(ends_before);
            }
            texts.iter().enumerate().try_for_each(|(k, text)| {
                self.encode_in_batch(first + k, text, specials, forbidden, &mut ids, cache)?;
                ends.push(ids.len() as u64);
                Ok(())
            })
        })?;
        if let Some(started) = started {
            pace::note(bytes, started.elapsed());
        }
        Ok(ids)
    }

    /// A run of a batch's texts through one encoder, so that the prefetch queue runs on
    /// from one text into the next instead of draining at each text's end
    /// (docs/performance.md#batches-one-queue-for-a-run). For texts encoded as they are:
    /// the caller checked that nothing is normalized and no special token recognised.
    /// False when a text failed, with `ids` and `ends` partly written: the caller encodes
    /// the run again text by text, which names the earliest failing text. `bytes`: the
    /// texts' bytes, which the caller has counted.
    fn encode_run_queued(
        &self,
        texts: &[&str],
        bytes: usize,
        forbidden: Option<&SpecialMatcher>,
        ids: &mut Vec<u32>,
        ends: &mut Vec<u64>,
        cache: &mut PieceCache,
    ) -> bool {
        // One id per four bytes, not `encode_with_cache`'s two: a run's buffer is kept for
        // later runs (`pages::run_buffer`), so it grows once, not at every call.
        crate::pages::reserve(ids, bytes / 4);
        let run_ends = RunEnds {
            ends,
            looked: 0,
            next: usize::MAX,
            pending: std::collections::VecDeque::new(),
        };
        let mut encoder = PieceEncoder::new(self, "", ids, cache, run_ends);
        for (i, text) in texts.iter().enumerate() {
            // A batch's texts lie apart in memory, where the CPU does not fetch ahead of
            // the reads: each short text's first block was a cache miss
            // (docs/performance.md#a-batchs-texts-fetched-ahead-2026-12-07).
            if let Some(ahead) = texts.get(i + TEXTS_AHEAD) {
                prefetch_text(ahead);
            }
            if forbidden.is_some_and(|f| f.refuse_in(text).is_err()) {
                return false;
            }
            encoder.text = text;
            if self
                .config
                .pre_tokenizer
                .send_pieces(text, &mut encoder)
                .is_err()
            {
                return false;
            }
            // The text ends once every piece found so far is looked up.
            let end = encoder.found();
            encoder.ends.text_ends_at(end, encoder.out.len);
        }
        encoder.finish().is_ok()
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

    /// `texts` cut for a team on `helpers` (`crate::threads::team`): one run for a batch
    /// not `worth_sharing` or a team of one thread, else several runs a thread, which keep
    /// the threads evenly loaded.
    pub fn for_team(texts: &'b [&'t str], helpers: Option<&crate::threads::Helpers>) -> Self {
        let (bytes, threads) = (text_bytes(texts), crate::threads::team_size(helpers));
        if Self::shares(bytes, threads) {
            Runs::cut(texts, bytes, threads, 8)
        } else {
            Runs::new(texts, 1)
        }
    }

    /// `texts` for `threads` threads in `per_thread` runs a thread, fewer where runs would
    /// be under `MIN_RUN_BYTES`, but one a thread at least.
    pub fn for_threads(texts: &'b [&'t str], threads: usize, per_thread: usize) -> Self {
        Runs::cut(texts, text_bytes(texts), threads, per_thread)
    }

    /// `for_threads` with the texts' bytes already counted.
    fn cut(texts: &'b [&'t str], bytes: usize, threads: usize, per_thread: usize) -> Self {
        let parts = (per_thread * threads)
            .min(bytes / MIN_RUN_BYTES)
            .max(threads);
        Runs::new(texts, parts)
    }

    /// Whether a batch of `texts` is worth sharing with `helpers`: there is a helper, and
    /// the batch has at least `PARALLEL_MIN_BYTES`, or at least `SHARED_FROM_BYTES` and
    /// this thread's pace says it takes at least `SHARED_FROM_NANOS` alone.
    pub fn worth_sharing(texts: &[&str], helpers: Option<&crate::threads::Helpers>) -> bool {
        Self::shares(text_bytes(texts), crate::threads::team_size(helpers))
    }

    /// `worth_sharing` of a batch of `bytes` on a team of `threads`.
    fn shares(bytes: usize, threads: usize) -> bool {
        threads >= 2
            && (bytes >= PARALLEL_MIN_BYTES
                || (bytes >= SHARED_FROM_BYTES && pace::nanos_for(bytes) >= SHARED_FROM_NANOS))
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

    /// `f` of every run, in run order, computed by the calling thread and `helpers`' threads
    /// (`crate::threads::team`); the error of the earliest run that failed.
    pub fn each<T: Send>(
        &self,
        helpers: Option<&crate::threads::Helpers>,
        f: impl Fn(usize) -> Result<T> + Sync,
    ) -> Result<Vec<T>> {
        if self.count() == 1 {
            return Ok(vec![f(0)?]);
        }
        let done = Mutex::new(Vec::with_capacity(self.count()));
        crate::threads::team(helpers, || {
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

/// The runs' ids as one flat list and the offsets where each of the `texts` texts' ids
/// start (one more than the texts, the last being the total); the runs' buffers are given
/// back. The runs are joined by the team too: copying tens of megabytes of ids into fresh
/// pages is a few percent of a batch, serial if done by one thread.
pub(super) fn join_runs(
    parts: Vec<(Vec<u32>, Vec<u64>)>,
    texts: usize,
    helpers: Option<&crate::threads::Helpers>,
) -> (Vec<u32>, Vec<u64>) {
    let total = parts.iter().map(|(ids, _)| ids.len()).sum();
    // A kept buffer where there is one: no page faults, and nothing zeroed that the copies
    // overwrite (docs/performance.md#a-batchs-joined-ids-in-a-kept-buffer-2026-12-07).
    let mut flat = joined_buffer(total);
    let mut offsets = vec![0u64; texts + 1];
    let mut slots = Vec::with_capacity(parts.len());
    let (mut ids_left, mut ends_left) =
        (&mut flat.spare_capacity_mut()[..total], &mut offsets[1..]);
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
            // SAFETY: `ids_slot` has exactly `ids.len()` places (split above), and a run's
            // buffer never overlaps the joined one.
            unsafe {
                std::ptr::copy_nonoverlapping(ids.as_ptr(), ids_slot.as_mut_ptr().cast(), ids.len())
            };
            for (slot, end) in ends_slot.iter_mut().zip(ends) {
                *slot = base + end;
            }
        }
    };
    if base >= PARALLEL_JOIN_MIN_IDS {
        crate::threads::team(helpers, join);
    } else {
        join();
    }
    // SAFETY: every slot was written by the loop above (each run's ids into its slot,
    // the slots covering `..total`), and the team returns only when all are done.
    unsafe { flat.set_len(total) };
    parts.into_iter().for_each(|(ids, _)| give_back_run(ids));
    (flat, offsets)
}

/// How many texts ahead of the one being encoded a run fetches a text's first bytes.
const TEXTS_AHEAD: usize = 4;

/// Asks for the first two cache lines of `text` (most of a line of prose).
#[inline(always)]
fn prefetch_text(text: &str) {
    let at = text.as_ptr();
    crate::pages::prefetch(at);
    if text.len() > 64 {
        crate::pages::prefetch(at.wrapping_add(64));
    }
}

/// A batch with fewer ids is joined on the calling thread: handing the copies to helpers
/// costs more than they take.
const PARALLEL_JOIN_MIN_IDS: u64 = 1 << 18;

/// A batch of at least this many bytes is shared whatever its pace.
pub const PARALLEL_MIN_BYTES: usize = 1 << 17;
/// A smaller one is shared from this size when this thread's pace says it takes at least
/// `SHARED_FROM_NANOS` alone: a helper's wake-up and the join cost tens of microseconds, so
/// a batch shorter than that is faster on the calling thread alone; and bytes alone do not
/// say how long a batch takes (Korean costs about twice English a byte, and a shared
/// machine's speed moves by as much)
/// (docs/performance.md#batches-small-ones-shared-by-their-pace-2026-11-30).
pub const SHARED_FROM_BYTES: usize = 1 << 14;
pub const SHARED_FROM_NANOS: u64 = 100_000;
/// A shared batch's runs are at least this long where it has the bytes: each run has a
/// fixed cost (its buffer, the thread's cache taken, a hand-over), which made a 45 kB batch
/// in 16 runs (lists: 64) slower than in 5 or 6
/// (docs/performance.md#batches-small-ones-shared-by-their-pace-2026-11-30).
pub const MIN_RUN_BYTES: usize = 1 << 13;

/// The bytes of a batch's texts.
fn text_bytes(texts: &[&str]) -> usize {
    texts.iter().map(|t| t.len()).sum()
}

/// How fast this thread has been encoding batches: each run (`encode_run_into`) of at
/// least `pace::TIMED_FROM_BYTES` notes its time a byte (a shared batch's runs are at
/// least `MIN_RUN_BYTES` where it has the bytes, so they are timed too), and the last note
/// stands (a first, cold run overstates it once). Each thread keeps its own; the calling
/// thread's is the one that decides whether to share.
pub mod pace {
    use std::cell::Cell;
    use std::time::Duration;

    /// Runs shorter than this are not timed: their time is mostly fixed costs.
    pub const TIMED_FROM_BYTES: usize = 1 << 12;

    thread_local! {
        /// Picoseconds a byte of this thread's last timed run (0: none yet).
        static PICOS_A_BYTE: Cell<u64> = const { Cell::new(0) };
    }

    /// Notes that `bytes` took `took`.
    pub fn note(bytes: usize, took: Duration) {
        if bytes >= TIMED_FROM_BYTES {
            let picos = took.as_nanos().saturating_mul(1000) / bytes as u128;
            PICOS_A_BYTE.with(|p| p.set(u64::try_from(picos).unwrap_or(u64::MAX)));
        }
    }

    /// How long `bytes` would take at this thread's last pace (0 before any timed run).
    pub fn nanos_for(bytes: usize) -> u64 {
        PICOS_A_BYTE.with(|p| p.get()).saturating_mul(bytes as u64) / 1000
    }
}

/// `mutex`'s guard; a thread that panicked holding it left nothing half-written here.
pub(super) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// A run of texts: each text's end in the output, known once its last piece is looked up.
struct RunEnds<'e> {
    ends: &'e mut Vec<u64>,
    /// Pieces looked up so far.
    looked: usize,
    /// The piece count at which the oldest text not yet ended ends (`usize::MAX`: none).
    next: usize,
    /// The piece counts at which later texts end, oldest first.
    pending: std::collections::VecDeque<usize>,
}

impl RunEnds<'_> {
    /// A text ends once `pieces` pieces are looked up (the pieces found so far).
    fn text_ends_at(&mut self, pieces: usize, out_len: usize) {
        if self.next == usize::MAX && self.looked == pieces {
            self.ends.push(out_len as u64);
        } else if self.next == usize::MAX {
            self.next = pieces;
        } else {
            self.pending.push_back(pieces);
        }
    }

    /// The texts that end at the current piece count.
    #[cold]
    #[inline(never)]
    fn reached(&mut self, out_len: usize) {
        while self.next == self.looked {
            self.ends.push(out_len as u64);
            self.next = self.pending.pop_front().unwrap_or(usize::MAX);
        }
    }
}

impl Ends for RunEnds<'_> {
    #[inline(always)]
    fn looked_up(&mut self, out_len: usize) {
        self.looked += 1;
        if self.looked == self.next {
            self.reached(out_len);
        }
    }
}
