//! Work on several threads: two independent pieces side by side on plain scoped threads
//! (`beside`), and the same work on the calling thread and a pool's threads, its helpers
//! (`team`).

use rayon::ThreadPool;

/// Vocabularies from this size build their independent tables on two threads.
const TWO_THREADS_FROM: usize = 50_000;

/// `(a(), b())`, run side by side for a vocabulary of `entries` tokens if it is large.
/// Plain scoped threads, not the rayon pool: a process forked after the pool started
/// has no pool threads, and building a tokenizer there (unpickling one in a worker) would
/// wait forever.
pub fn beside<A: Send, B: Send>(
    entries: usize,
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    if entries < TWO_THREADS_FROM {
        return (a(), b());
    }
    std::thread::scope(|scope| {
        let second = scope.spawn(b);
        let first = a();
        let second = second
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (first, second)
    })
}

/// How many threads a team on `helpers` has: the calling thread and each of the pool's
/// threads (`None`: the calling thread alone).
pub fn team_size(helpers: Option<&ThreadPool>) -> usize {
    helpers.map_or(1, |pool| pool.current_num_threads() + 1)
}

/// Runs `work` on the calling thread and, at the same time, on each of `helpers`' threads;
/// returns when every copy has returned. The copies share out the work themselves (a
/// counter of runs, say). The calling thread works from the start instead of sleeping
/// while the pool wakes, and with no helpers nothing changes threads
/// (docs/performance.md#batches-the-calling-thread-works-one-thread-stays-on-it). Every
/// pool thread gets a copy: an idle one would spin and yield, taking the CPU from those at
/// work (docs/performance.md#batches-no-idle-pool-thread).
pub fn team(helpers: Option<&ThreadPool>, work: impl Fn() + Sync) {
    let Some(pool) = helpers else {
        return work();
    };
    let work = &work;
    pool.in_place_scope(|scope| {
        for _ in 0..pool.current_num_threads() {
            scope.spawn(move |_| work());
        }
        work();
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_results_come_back_small_or_large() {
        for entries in [10, TWO_THREADS_FROM] {
            let (a, b) = beside(entries, || 1 + 1, || "two".to_string());
            assert_eq!((a, b.as_str()), (2, "two"));
        }
    }

    #[test]
    fn a_team_is_the_calling_thread_and_every_helper() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::sync::Mutex;
        for helpers in [0, 1, 2] {
            let pool = (helpers > 0).then(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(helpers)
                    .build()
                    .unwrap()
            });
            assert_eq!(team_size(pool.as_ref()), helpers + 1);
            let (calls, ids) = (AtomicUsize::new(0), Mutex::new(Vec::new()));
            team(pool.as_ref(), || {
                calls.fetch_add(1, Ordering::Relaxed);
                ids.lock().unwrap().push(std::thread::current().id());
            });
            assert_eq!(calls.into_inner(), helpers + 1);
            assert!(ids
                .into_inner()
                .unwrap()
                .contains(&std::thread::current().id()));
        }
    }
}
