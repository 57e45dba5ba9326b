//! Parallel work from Python, safe in forked processes.
//!
//! rayon's global pool starts its threads once per process. A process forked after that
//! (multiprocessing's default start method on Linux, and many data loaders) inherits the
//! pool without its threads, so the first parallel call there would wait forever. Work
//! that may run on the pool goes through `parallel`: in the process that first used the
//! pool it runs as usual; in a forked child it runs on a pool of the child's own.
//!
//! Batches run on a team: the calling thread and the helpers `helpers_for` gives, a pool
//! kept for the next call of the same size: a new pool has new threads, and each thread's
//! piece cache (`pipeline/cache.rs`) would start empty at every call. Sized pools are
//! made anew in a forked child too.

use std::sync::{Arc, Mutex, OnceLock};

use pyo3::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};

use crate::threads::Helpers;

use super::errors::invalid_input;

/// The process that owns rayon's global pool (the first to call `parallel`).
static GLOBAL_POOL_PID: OnceLock<u32> = OnceLock::new();
/// A forked child's pool, with the child's pid.
static CHILD_POOL: Mutex<Option<(u32, Arc<ThreadPool>)>> = Mutex::new(None);
/// Pools of a chosen size: (pid, threads, pool), the most recently used last.
static SIZED_POOLS: Mutex<Vec<(u32, usize, Arc<Helpers>)>> = Mutex::new(Vec::new());
/// Sizes kept at once; the least recently used goes first.
const SIZED_POOLS_KEPT: usize = 4;

/// Runs `work` without the GIL on a pool whose threads exist in this process, the calling
/// thread waiting (rayon's global pool, or a forked child's own).
pub(crate) fn parallel<T: Send>(py: Python<'_>, work: impl FnOnce() -> T + Send) -> PyResult<T> {
    let pool = global_pool()?;
    Ok(py.detach(|| match pool {
        Some(pool) => pool.install(work),
        None => work(),
    }))
}

/// The helpers of a team of `threads` threads (`None`: one per core), the calling thread
/// being the first (`crate::threads::team`): a pool of `threads - 1` threads, kept for the
/// next call of the same size; `None` for a team of one. No thread more: an idle pool
/// thread would spin and yield, taking the CPU from the team's
/// (docs/performance.md#batches-no-idle-pool-thread).
pub(crate) fn helpers_for(threads: Option<usize>) -> PyResult<Option<Arc<Helpers>>> {
    match threads.unwrap_or_else(default_threads) {
        0 | 1 => Ok(None),
        n => sized_pool(n - 1).map(Some),
    }
}

/// One thread per core (as the CPUs this process may use count them), or
/// `RAYON_NUM_THREADS` when set, as for rayon's own pool; read once, as rayon does.
fn default_threads() -> usize {
    static THREADS: OnceLock<usize> = OnceLock::new();
    *THREADS.get_or_init(|| {
        std::env::var("RAYON_NUM_THREADS")
            .ok()
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|&n| n > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    })
}

/// rayon's global pool in the process that owns it (`None`), else this forked child's own.
fn global_pool() -> PyResult<Option<Arc<ThreadPool>>> {
    let pid = std::process::id();
    if *GLOBAL_POOL_PID.get_or_init(|| pid) == pid {
        Ok(None)
    } else {
        child_pool(pid).map(Some)
    }
}

fn child_pool(pid: u32) -> PyResult<Arc<ThreadPool>> {
    let mut slot = CHILD_POOL.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((owner, pool)) = slot.as_ref() {
        if *owner == pid {
            return Ok(pool.clone());
        }
    }
    // A pool inherited from a parent has no threads here: dropping it would signal
    // threads that do not exist, so it is left alone.
    if let Some(inherited) = slot.take() {
        std::mem::forget(inherited);
    }
    let pool = Arc::new(
        ThreadPoolBuilder::new()
            .build()
            .map_err(|e| invalid_input(format!("cannot start worker threads: {e}")))?,
    );
    *slot = Some((pid, pool.clone()));
    Ok(pool)
}

fn sized_pool(n: usize) -> PyResult<Arc<Helpers>> {
    let pid = std::process::id();
    let mut pools = SIZED_POOLS.lock().unwrap_or_else(|e| e.into_inner());
    // Pools inherited through fork have no threads here (see `child_pool`).
    for inherited in pools.extract_if(.., |(owner, _, _)| *owner != pid) {
        std::mem::forget(inherited);
    }
    if let Some(at) = pools.iter().position(|(_, size, _)| *size == n) {
        let entry = pools.remove(at);
        let pool = entry.2.clone();
        pools.push(entry);
        return Ok(pool);
    }
    let pool = Arc::new(
        Helpers::new(n).map_err(|e| invalid_input(format!("cannot start {n} threads: {e}")))?,
    );
    if pools.len() >= SIZED_POOLS_KEPT {
        pools.remove(0);
    }
    pools.push((pid, n, pool.clone()));
    Ok(pool)
}
