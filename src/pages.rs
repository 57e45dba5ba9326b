//! Hints about memory: large output buffers on huge pages, and lines fetched ahead of use
//! (`prefetch`).
//!
//! A fresh buffer of tens of megabytes costs the kernel
//! a page fault for every 4 KiB written to it the first time, and an output that large is
//! fresh on every call: the allocator maps it anew and unmaps it when it is freed. On
//! transparent huge pages a fault maps 2 MiB. NumPy advises its own large arrays the same
//! way (why and how much: docs/performance.md#huge-pages-for-large-outputs).

/// Buffers smaller than this are left alone (NumPy draws its line at the same size); the
/// allocator reuses their memory from call to call anyway.
const MIN_BYTES: usize = 4 << 20;
#[cfg(target_os = "linux")]
const HUGE_PAGE: usize = 2 << 20;

#[cfg(test)]
thread_local! {
    /// How many times this thread asked for huge pages (tests count the system calls).
    pub static ADVICE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Asks the kernel to back the whole 2 MiB pages inside the `capacity` items at `ptr` with
/// huge pages, if the buffer is large enough to gain from it. Only advice: where the kernel
/// has no transparent huge pages, or refuses, nothing changes.
pub fn advise_huge_pages<T>(ptr: *const T, capacity: usize) {
    let bytes = capacity.saturating_mul(std::mem::size_of::<T>());
    #[cfg(target_os = "linux")]
    if let Some((start, end)) = huge_range(ptr as usize, bytes) {
        #[cfg(test)]
        ADVICE.with(|n| n.set(n.get() + 1));
        // SAFETY: madvise only changes how the kernel maps the range, never its contents;
        // the range lies inside the caller's allocation of `bytes` bytes at `ptr`. A
        // failure (no transparent huge pages) is ignored.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, bytes);
}

/// Asks the CPU to load the cache line at `ptr`, so that a read a little later finds it.
/// Only a hint: it reads nothing into the program and never faults, whatever the address.
#[inline(always)]
pub fn prefetch<T>(ptr: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch only hints at an address; it cannot fault or change memory.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(ptr.cast())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = ptr;
}

/// `vec.reserve(more)`, asking for huge pages when that allocated or grew the buffer: once
/// per allocation, not per call (a batch's run encodes many texts into one buffer).
pub fn reserve<T>(vec: &mut Vec<T>, more: usize) {
    let capacity = vec.capacity();
    vec.reserve(more);
    if vec.capacity() != capacity {
        advise_huge_pages(vec.as_ptr(), vec.capacity());
    }
}

/// The whole huge pages inside `bytes` bytes at `addr`, for a buffer of at least
/// `MIN_BYTES`.
#[cfg(target_os = "linux")]
fn huge_range(addr: usize, bytes: usize) -> Option<(usize, usize)> {
    if bytes < MIN_BYTES {
        return None;
    }
    let start = addr.checked_next_multiple_of(HUGE_PAGE)?;
    let end = addr.checked_add(bytes)? / HUGE_PAGE * HUGE_PAGE;
    (end > start).then_some((start, end))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn only_whole_huge_pages_of_large_buffers_are_advised() {
        let mb = 1 << 20;
        assert_eq!(
            huge_range(0, MIN_BYTES - 1),
            None,
            "small buffers are left alone"
        );
        assert_eq!(huge_range(0, MIN_BYTES), Some((0, MIN_BYTES)));
        // Unaligned at both ends: the pages inside.
        assert_eq!(huge_range(mb, 6 * mb), Some((2 * mb, 6 * mb)));
        assert_eq!(huge_range(mb + 1, 5 * mb), Some((2 * mb, 6 * mb)));
        assert_eq!(huge_range(usize::MAX - mb, MIN_BYTES), None, "no overflow");
    }

    /// The kernel's flags of the mapping that holds `addr` (`/proc/self/smaps`).
    fn vm_flags(addr: usize) -> Option<String> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            let range = line
                .split_whitespace()
                .next()
                .and_then(|r| r.split_once('-'));
            if let Some((lo, hi)) = range {
                if let (Ok(lo), Ok(hi)) =
                    (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
                {
                    inside = (lo..hi).contains(&addr);
                    continue;
                }
            }
            if inside {
                if let Some(flags) = line.strip_prefix("VmFlags:") {
                    return Some(flags.to_string());
                }
            }
        }
        None
    }

    #[test]
    fn a_large_buffer_is_marked_for_huge_pages_and_keeps_its_ids() {
        let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled");
        if thp.as_deref().map_or(true, |s| s.contains("[never]")) {
            eprintln!("skipped: this kernel has no transparent huge pages");
            return;
        }
        // 64 MiB: above the allocator's largest heap threshold, so a mapping of its own.
        let mut ids: Vec<u32> = Vec::with_capacity(16 << 20);
        ids.extend(0..1000);
        advise_huge_pages(ids.as_ptr(), ids.capacity());
        let inside = (ids.as_ptr() as usize).next_multiple_of(HUGE_PAGE);
        let flags = vm_flags(inside).expect("the buffer's mapping in /proc/self/smaps");
        assert!(
            flags.split_whitespace().any(|f| f == "hg"),
            "flags: {flags}"
        );
        ids.extend(1000..(16 << 20));
        assert!(ids.iter().enumerate().all(|(i, &id)| id == i as u32));
    }
}
