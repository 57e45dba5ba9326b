//! Parallel work from Python, safe in forked processes.
//!
//! rayon's global pool starts its threads once per process. A process forked after that
//! (multiprocessing's default start method on Linux, and many data loaders) inherits the
//! pool without its threads, so the first parallel call there would wait forever. Work
//! that may run on the pool goes through `parallel`: in the process that first used the
//! pool it runs as usual; in a forked child it runs on a pool of the child's own.

use std::sync::{Arc, Mutex, OnceLock};

use pyo3::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};

use super::errors::invalid_input;

/// The process that owns rayon's global pool (the first to call `parallel`).
static GLOBAL_POOL_PID: OnceLock<u32> = OnceLock::new();
/// A forked child's pool, with the child's pid.
static CHILD_POOL: Mutex<Option<(u32, Arc<ThreadPool>)>> = Mutex::new(None);

/// Runs `work` without the GIL on a pool whose threads exist in this process.
pub(crate) fn parallel<T: Send>(py: Python<'_>, work: impl FnOnce() -> T + Send) -> PyResult<T> {
    let pid = std::process::id();
    if *GLOBAL_POOL_PID.get_or_init(|| pid) == pid {
        return Ok(py.detach(work));
    }
    let pool = child_pool(pid)?;
    Ok(py.detach(|| pool.install(work)))
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
