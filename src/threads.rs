//! Two independent pieces of work side by side, on plain scoped threads.

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
}
