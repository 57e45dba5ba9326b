//! Work on several threads: two independent pieces side by side on plain scoped threads
//! (`beside`), and the same work on the calling thread and a pool's threads, its helpers
//! (`team`).

use rayon::{Scope, ThreadPool, ThreadPoolBuilder};

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

/// A team's helpers: a pool of threads that work beside the calling thread, kept off the
/// CPU that thread is on when it calls them in. Left to itself, Linux put a woken helper
/// on the caller's busy CPU rather than on the idle one, where it waited until the caller
/// stopped: about 500 µs into a 500 µs job, against 60 µs when it may not go there
/// (docs/performance.md#batches-helpers-kept-off-the-callers-cpu).
pub struct Helpers {
    pool: ThreadPool,
    steering: steering::Steering,
}

impl Helpers {
    /// A pool of `threads` helpers.
    pub fn new(threads: usize) -> Result<Helpers, rayon::ThreadPoolBuildError> {
        let pool = ThreadPoolBuilder::new().num_threads(threads).build()?;
        let steering = steering::Steering::of(&pool);
        Ok(Helpers { pool, steering })
    }

    /// How many helpers there are.
    pub fn count(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// `op` in a scope whose spawned work runs on the helpers, kept off this thread's CPU.
    pub fn scope<'s, R>(&self, op: impl FnOnce(&Scope<'s>) -> R) -> R {
        self.steering.away_from_this_cpu();
        self.pool.in_place_scope(op)
    }
}

#[cfg(target_os = "linux")]
mod steering {
    use std::mem::{size_of, zeroed};
    use std::sync::atomic::{AtomicI32, Ordering};

    /// The helpers' thread ids with the CPUs each may use, and the CPU they were last kept
    /// off.
    pub struct Steering {
        threads: Vec<(libc::pid_t, libc::cpu_set_t)>,
        off: AtomicI32,
    }

    impl Steering {
        pub fn of(pool: &rayon::ThreadPool) -> Steering {
            let threads = pool.broadcast(|_| {
                // SAFETY: plain system calls on this thread, into a local set.
                unsafe {
                    let mut allowed: libc::cpu_set_t = zeroed();
                    let ok = libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), &mut allowed);
                    (ok == 0).then(|| (libc::gettid(), allowed))
                }
            });
            Steering {
                threads: threads.into_iter().flatten().collect(),
                off: AtomicI32::new(-1),
            }
        }

        /// Each helper may use its CPUs but the calling thread's (all of them when that
        /// leaves none). A system call a helper, only when the caller has moved.
        pub fn away_from_this_cpu(&self) {
            // SAFETY: reads the CPU this thread runs on.
            let cpu = unsafe { libc::sched_getcpu() };
            let Ok(index) = usize::try_from(cpu) else {
                return;
            };
            if index >= libc::CPU_SETSIZE as usize || self.off.swap(cpu, Ordering::Relaxed) == cpu {
                return;
            }
            for (tid, allowed) in &self.threads {
                let mut set = *allowed;
                // SAFETY: `index` is within the set (checked above); `tid` is a thread of the
                // pool, alive while the pool is (`&self`). A failure (the CPUs taken away
                // meanwhile) leaves the helper where it was.
                unsafe {
                    libc::CPU_CLR(index, &mut set);
                    if libc::CPU_COUNT(&set) == 0 {
                        set = *allowed;
                    }
                    libc::sched_setaffinity(*tid, size_of::<libc::cpu_set_t>(), &set);
                }
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod steering {
    pub struct Steering;

    impl Steering {
        pub fn of(_: &rayon::ThreadPool) -> Steering {
            Steering
        }

        pub fn away_from_this_cpu(&self) {}
    }
}

/// How many threads a team on `helpers` has: the calling thread and each helper (`None`:
/// the calling thread alone).
pub fn team_size(helpers: Option<&Helpers>) -> usize {
    helpers.map_or(1, |helpers| helpers.count() + 1)
}

/// Runs `work` on the calling thread and, at the same time, on each of `helpers`' threads;
/// returns when every copy has returned. The copies share out the work themselves (a
/// counter of runs, say). The calling thread works from the start instead of sleeping
/// while the pool wakes, and with no helpers nothing changes threads
/// (docs/performance.md#batches-the-calling-thread-works-one-thread-stays-on-it). Every
/// pool thread gets a copy: an idle one would spin and yield, taking the CPU from those at
/// work (docs/performance.md#batches-no-idle-pool-thread).
pub fn team(helpers: Option<&Helpers>, work: impl Fn() + Sync) {
    let Some(helpers) = helpers else {
        return work();
    };
    let work = &work;
    helpers.scope(|scope| {
        for _ in 0..helpers.count() {
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
            let pool = (helpers > 0).then(|| Helpers::new(helpers).unwrap());
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

    /// The CPUs the calling thread may use.
    #[cfg(target_os = "linux")]
    fn my_cpus() -> Vec<usize> {
        // SAFETY: plain system call into a local set.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            assert_eq!(
                libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set),
                0
            );
            (0..libc::CPU_SETSIZE as usize)
                .filter(|&c| libc::CPU_ISSET(c, &set))
                .collect()
        }
    }

    /// Lets the calling thread use only `cpus`.
    #[cfg(target_os = "linux")]
    fn keep_me_on(cpus: &[usize]) {
        // SAFETY: plain system call from a local set.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            for &c in cpus {
                libc::CPU_SET(c, &mut set);
            }
            assert_eq!(
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set),
                0
            );
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn helpers_are_kept_off_the_cpu_of_the_thread_that_calls_them_in() {
        use std::sync::Mutex;
        let allowed = my_cpus();
        // Made before this thread is pinned, so the helpers may use every CPU it may.
        let helpers = Helpers::new(2).unwrap();
        // Each CPU in turn (the first two) as the caller's: the helpers may use the others,
        // or all of them when there is no other.
        for &mine in allowed.iter().take(2) {
            keep_me_on(&[mine]);
            let seen = Mutex::new(Vec::new());
            team(Some(&helpers), || {
                if rayon::current_thread_index().is_some() {
                    seen.lock().unwrap().push(my_cpus());
                }
            });
            keep_me_on(&allowed);
            let seen = seen.into_inner().unwrap();
            assert_eq!(seen.len(), 2);
            let others: Vec<usize> = allowed.iter().copied().filter(|&c| c != mine).collect();
            let want = if others.is_empty() { &allowed } else { &others };
            for cpus in seen {
                assert_eq!(&cpus, want, "the caller on CPU {mine}");
            }
        }
    }
}
