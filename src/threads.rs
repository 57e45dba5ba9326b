//! Work on several threads: two independent pieces side by side on plain scoped threads
//! (`beside`), and the same work on the calling thread and a pool's threads (`team`).

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

/// How many threads `pool` has (rayon's global pool for `None`).
pub fn pool_threads(pool: Option<&ThreadPool>) -> usize {
    pool.map_or_else(rayon::current_num_threads, ThreadPool::current_num_threads)
}

/// Runs `work` on the calling thread and, at the same time, on all but one of `pool`'s
/// threads (rayon's global pool for `None`); returns when every copy has returned. The
/// copies share out the work themselves (a counter of runs, say). The calling thread works
/// from the start instead of sleeping while the pool wakes, and on one thread nothing
/// changes threads (docs/performance.md#batches-the-calling-thread-works-one-thread-stays-on-it).
pub fn team(pool: Option<&ThreadPool>, work: impl Fn() + Sync) {
    let threads = pool_threads(pool);
    if threads <= 1 {
        return work();
    }
    let work = &work;
    match pool {
        Some(pool) => pool.in_place_scope(|scope| spawn_and_work(scope, work, threads)),
        None => rayon::in_place_scope(|scope| spawn_and_work(scope, work, threads)),
    }
}

/// `work` spawned `threads - 1` times on `scope`'s pool, then run here.
fn spawn_and_work<'s, W: Fn() + Sync>(scope: &rayon::Scope<'s>, work: &'s W, threads: usize) {
    for _ in 1..threads {
        scope.spawn(move |_| work());
    }
    work();
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
    fn a_team_is_the_pool_s_size_and_the_calling_thread_works() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::sync::Mutex;
        for n in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap();
            let (calls, ids) = (AtomicUsize::new(0), Mutex::new(Vec::new()));
            team(Some(&pool), || {
                calls.fetch_add(1, Ordering::Relaxed);
                ids.lock().unwrap().push(std::thread::current().id());
            });
            assert_eq!(calls.into_inner(), n);
            let ids = ids.into_inner().unwrap();
            assert!(ids.contains(&std::thread::current().id()));
        }
    }
}
