//! A batch whose texts arrive while it is encoded. The thread that reads them (from Python,
//! one at a time, holding the GIL) hands them over in runs, and the team's other threads
//! encode each run as soon as it is handed over: reading a large batch's texts is not a
//! serial phase before its encoding
//! (docs/performance.md#batches-texts-encoded-as-they-arrive).

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

use super::batch::{join_runs, lock};
use super::specials::SpecialMatcher;
use super::Tokenizer;
use crate::error::{Error, Result};
use crate::pages::run_buffer;

/// How many runs a thread of the team gets, about: as `Runs::for_team` cuts a batch.
const RUNS_PER_THREAD: usize = 8;
/// The first run's bytes, about (a text is never cut): small, so that the helpers start
/// early. Later runs are a share of the batch's bytes as the texts so far predict them,
/// within these bounds: many small runs cost more in all
/// (docs/performance.md#batches-texts-encoded-as-they-arrive).
const FIRST_RUN_BYTES: usize = 32 << 10;
const MAX_RUN_BYTES: usize = 4 << 20;

/// A run's ids and where each of its texts' ids end.
type Encoded = Result<(Vec<u32>, Vec<u64>)>;

/// The texts of a batch as they arrive, cut into runs, and the runs' results.
pub struct Arriving<'t> {
    /// The texts; slot i is written once, by the feeder, before a run holding it is
    /// handed over.
    texts: Box<[UnsafeCell<&'t str>]>,
    /// Where each run ends (one past its last text); slot k is written once, by the
    /// feeder, before run k is handed over.
    ends: Box<[UnsafeCell<usize>]>,
    /// How many runs are handed over.
    runs: AtomicUsize,
    /// No run will be handed over after this is set.
    closed: AtomicBool,
    /// The next run no thread has claimed.
    next: AtomicUsize,
    /// Whether the one feeder was made.
    fed: AtomicBool,
    /// The runs encoded so far, in the order they were finished.
    done: Mutex<Vec<(usize, Encoded)>>,
    /// The team's threads, and those still encoding, and a signal when none is.
    threads: usize,
    working: Mutex<usize>,
    idle: Condvar,
}

// SAFETY: the cells are written only by the one `Feeder`, each before the `Release` store
// of `runs` that hands its run over, and read only for runs below an `Acquire` load of
// `runs`; everything else is atomics and mutexes. `&str` is `Send` and `Sync`.
unsafe impl Sync for Arriving<'_> {}

impl<'t> Arriving<'t> {
    /// Room for `capacity` texts, encoded by a team of `threads` threads.
    pub fn new(capacity: usize, threads: usize) -> Self {
        Arriving {
            texts: (0..capacity).map(|_| UnsafeCell::new("")).collect(),
            ends: (0..capacity).map(|_| UnsafeCell::new(0)).collect(),
            runs: AtomicUsize::new(0),
            closed: AtomicBool::new(false),
            next: AtomicUsize::new(0),
            fed: AtomicBool::new(false),
            done: Mutex::new(Vec::new()),
            threads,
            working: Mutex::new(threads),
            idle: Condvar::new(),
        }
    }

    /// The one feeder of these texts (`None` if it was made before). The batch is closed
    /// when the feeder is dropped, on every path: no thread waits for texts forever.
    pub fn feeder(&self) -> Option<Feeder<'_, 't>> {
        if self.fed.swap(true, Ordering::AcqRel) {
            // No feeder may be made (and dropped) here: dropping one closes the batch.
            return None;
        }
        Some(Feeder {
            arriving: self,
            count: 0,
            run_start: 0,
            run_bytes: 0,
            run_target: FIRST_RUN_BYTES,
            bytes: 0,
            runs: 0,
        })
    }

    /// The number of the next unclaimed run, once it is handed over; `None` once the batch
    /// is closed and every run is claimed. Waits (spinning, then yielding) while the feeder
    /// is reading texts, which is a few microseconds a run.
    fn claim(&self) -> Option<usize> {
        let part = self.next.fetch_add(1, Ordering::Relaxed);
        let mut spins = 0u32;
        loop {
            // `closed` first: once it is seen set, `runs` is final.
            let closed = self.closed.load(Ordering::Acquire);
            if part < self.runs.load(Ordering::Acquire) {
                return Some(part);
            }
            if closed {
                return None;
            }
            spins += 1;
            if spins < 100 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }

    /// The index of run `part`'s first text, and its texts.
    fn run(&self, part: usize) -> (usize, &[&'t str]) {
        // SAFETY: `part` was handed over (`claim`), so its end, the previous run's end and
        // its texts were written before the `Release` store `claim` loaded, and none is
        // written again. `UnsafeCell<T>` has the layout of `T`.
        unsafe {
            let start = if part == 0 {
                0
            } else {
                *self.ends[part - 1].get()
            };
            let end = *self.ends[part].get();
            let cells = &self.texts[start..end];
            (
                start,
                std::slice::from_raw_parts(cells.as_ptr().cast::<&'t str>(), cells.len()),
            )
        }
    }

    /// Waits until every thread of the team has called `encode_arrived`.
    pub fn wait_for_team(&self) {
        let mut working = lock(&self.working);
        while *working > 0 {
            working = self.idle.wait(working).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// The batch's ids and offsets (one more than its texts) once every run is encoded,
    /// joined on the calling thread and `helpers`; the error of the earliest failing run.
    pub fn finish(
        mut self,
        helpers: Option<&crate::threads::Helpers>,
    ) -> Result<(Vec<u32>, Vec<u64>)> {
        let runs = *self.runs.get_mut();
        let texts = match runs {
            0 => 0,
            n => *self.ends[n - 1].get_mut(),
        };
        let mut done = self.done.into_inner().unwrap_or_else(|e| e.into_inner());
        if done.len() != runs {
            return Err(Error::invalid(format!(
                "a batch's runs went missing: {} of {runs} encoded",
                done.len()
            )));
        }
        done.sort_unstable_by_key(|(part, _)| *part);
        let parts = done
            .into_iter()
            .map(|(_, encoded)| encoded)
            .collect::<Result<Vec<_>>>()?;
        Ok(join_runs(parts, texts, helpers))
    }
}

/// Hands a batch's texts over as they are read, in runs.
pub struct Feeder<'a, 't> {
    arriving: &'a Arriving<'t>,
    /// Texts written so far.
    count: usize,
    /// The first text not in a handed-over run, and the weight of the texts from it.
    run_start: usize,
    run_bytes: usize,
    /// The weight at which the run is handed over, and the weight of all texts so far.
    run_target: usize,
    bytes: usize,
    /// Runs handed over so far.
    runs: usize,
}

impl<'t> Feeder<'_, 't> {
    /// The next text of the batch. False when there is no room left for it (more texts
    /// than the capacity): it is not taken.
    pub fn push(&mut self, text: &'t str) -> bool {
        let Some(slot) = self.arriving.texts.get(self.count) else {
            return false;
        };
        // SAFETY: slot `count` is in no handed-over run yet, so no other thread reads it,
        // and only this feeder writes.
        unsafe { *slot.get() = text };
        self.count += 1;
        // A text weighs its bytes plus one, as in `Runs`.
        self.run_bytes += text.len() + 1;
        if self.run_bytes >= self.run_target {
            self.hand_over();
        }
        true
    }

    /// The texts since the last run, handed over as a run (if there are any).
    fn hand_over(&mut self) {
        if self.count == self.run_start {
            return;
        }
        // SAFETY: there is a slot per text and a run has at least one, so `runs` is below
        // the capacity; run `runs` is not handed over yet, so nobody reads its slot.
        unsafe { *self.arriving.ends[self.runs].get() = self.count };
        self.runs += 1;
        self.run_start = self.count;
        self.bytes += self.run_bytes;
        self.run_bytes = 0;
        // The batch's weight if the texts to come are like those so far.
        let capacity = self.arriving.texts.len();
        let expected = (self.bytes / self.count).saturating_mul(capacity);
        self.run_target = (expected / (RUNS_PER_THREAD * self.arriving.threads.max(1)))
            .clamp(FIRST_RUN_BYTES, MAX_RUN_BYTES);
        self.arriving.runs.store(self.runs, Ordering::Release);
    }
}

impl Drop for Feeder<'_, '_> {
    /// The last texts as a run, and the batch closed.
    fn drop(&mut self) {
        self.hand_over();
        self.arriving.closed.store(true, Ordering::Release);
    }
}

impl Tokenizer {
    /// One thread's share of an arriving batch: runs claimed and encoded until none is
    /// left. Every thread of the team calls it once (see `Arriving::new`).
    pub fn encode_arrived(
        &self,
        arriving: &Arriving<'_>,
        specials: Option<&SpecialMatcher>,
        forbidden: Option<&SpecialMatcher>,
    ) {
        // Counted out when this returns or unwinds: the calling thread waits for the count.
        let _leaving = Leaving(&arriving.working, &arriving.idle);
        let mut mine = Vec::new();
        while let Some(part) = arriving.claim() {
            let (first, texts) = arriving.run(part);
            let mut ends = Vec::with_capacity(texts.len());
            let encoded = self
                .encode_run_into(first, texts, specials, forbidden, &mut ends, run_buffer())
                .map(|ids| (ids, ends));
            mine.push((part, encoded));
        }
        lock(&arriving.done).extend(mine);
    }
}

/// A thread of the team, counted out of `working` when dropped (a thread that panicked
/// too, so that `wait_for_team` returns and the panic reaches the caller).
struct Leaving<'a>(&'a Mutex<usize>, &'a Condvar);

impl Drop for Leaving<'_> {
    fn drop(&mut self) {
        let mut working = lock(self.0);
        *working = working.saturating_sub(1);
        if *working == 0 {
            self.1.notify_all();
        }
    }
}
