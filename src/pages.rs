//! Memory: large output buffers on huge pages, buffers of ids kept from one call for the
//! next (`SpareIds`), and lines fetched ahead of use (`prefetch`).
//!
//! A fresh buffer of tens of megabytes costs the kernel
//! a page fault for every 4 KiB written to it the first time, and an output that large is
//! fresh on every call: the allocator maps it anew and unmaps it when it is freed. On
//! transparent huge pages a fault maps 2 MiB. NumPy advises its own large arrays the same
//! way (why and how much: docs/performance.md#huge-pages-for-large-outputs). A kept buffer
//! costs no fault at all.

use std::sync::{Mutex, MutexGuard};

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

/// Buffers of ids kept from one call for the next, up to a total size: a large call's
/// output is otherwise fresh memory every time, which the kernel faults in and zeroes.
pub struct SpareIds {
    /// Each buffer, and the ids of memory it holds: its capacity, or for a text's result
    /// the ids it was given back with (`give_result` lets go of the pages past them).
    buffers: Mutex<Vec<(Vec<u32>, usize)>>,
    /// The most ids of memory kept in all.
    max_ids: usize,
}

impl SpareIds {
    pub const fn new(max_ids: usize) -> Self {
        SpareIds {
            buffers: Mutex::new(Vec::new()),
            max_ids,
        }
    }

    /// `buffers`' guard; a thread that panicked holding it left nothing half-written.
    fn buffers(&self) -> MutexGuard<'_, Vec<(Vec<u32>, usize)>> {
        self.buffers.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// An empty buffer: a kept one if there is one.
    pub fn take(&self) -> Vec<u32> {
        self.buffers().pop().map(|(ids, _)| ids).unwrap_or_default()
    }

    /// An empty buffer holding at most `max_ids` of memory: the largest kept one that does,
    /// or a new one.
    pub fn take_within(&self, max_ids: usize) -> Vec<u32> {
        let mut buffers = self.buffers();
        let best = (buffers.iter().enumerate())
            .filter(|(_, (_, size))| *size <= max_ids)
            .max_by_key(|(_, (_, size))| *size)
            .map(|(i, _)| i);
        best.map_or_else(Vec::new, |i| buffers.swap_remove(i).0)
    }

    /// Keeps `ids`' memory for a later `take`, emptied, if that stays within `max_ids`.
    pub fn give(&self, ids: Vec<u32>) {
        let size = ids.capacity();
        self.keep(ids, size);
    }

    fn keep(&self, mut ids: Vec<u32>, size: usize) {
        ids.clear();
        let mut buffers = self.buffers();
        let kept: usize = buffers.iter().map(|(_, size)| size).sum();
        if kept + size <= self.max_ids {
            buffers.push((ids, size));
        }
    }

    /// An empty buffer for the ids of a text of `text_bytes`: when they may need
    /// `MIN_BYTES`, a kept one holding no more memory than the room a new one is given (an
    /// id for every two bytes: `encode_with_cache`), so that a smaller result never holds
    /// a larger result's memory; a new one otherwise.
    pub fn for_text(&self, text_bytes: usize) -> Vec<u32> {
        let room = text_bytes / 2;
        if room.saturating_mul(4) < MIN_BYTES {
            return Vec::new();
        }
        self.take_within(room)
    }

    /// An empty buffer with room for `ids` ids (a batch's joined ids, whose number is
    /// known): when they take `MIN_BYTES`, a kept one holding at most twice their memory
    /// (grown if it holds less), so a smaller result never holds a much larger one's.
    pub fn for_ids(&self, ids: usize) -> Vec<u32> {
        let mut buffer = if ids.saturating_mul(4) < MIN_BYTES {
            Vec::new()
        } else {
            self.take_within(ids.saturating_mul(2))
        };
        reserve(&mut buffer, ids);
        buffer
    }

    /// Keeps a text's buffer of ids once its result is gone, if it held `MIN_BYTES` of
    /// them. The pages past them go back to the kernel (an earlier, longer result may have
    /// written there), so the buffer holds about its ids' memory. Its room stays and its
    /// memory does not move: shrinking it moved it and cost its huge pages, which made the
    /// next call slower than a fresh buffer (docs/performance.md).
    pub fn give_result(&self, ids: Vec<u32>) {
        if ids.len().saturating_mul(4) < MIN_BYTES {
            return;
        }
        release_after(&ids);
        let size = ids.len();
        self.keep(ids, size);
    }
}

/// Gives the whole huge pages of `ids`' room past its ids back to the kernel, which maps
/// zeroed pages there if they are written again.
fn release_after(ids: &Vec<u32>) {
    #[cfg(target_os = "linux")]
    {
        let at = ids.as_ptr() as usize;
        let used = at.saturating_add(std::mem::size_of_val(&ids[..]));
        let end = at.saturating_add(ids.capacity().saturating_mul(4)) / HUGE_PAGE * HUGE_PAGE;
        if let Some(start) = used
            .checked_next_multiple_of(HUGE_PAGE)
            .filter(|&s| s < end)
        {
            // SAFETY: the range lies inside the Vec's allocation and past its ids, which
            // nothing reads before writing (a Vec's spare room); MADV_DONTNEED on private
            // anonymous memory only drops those pages. A failure leaves them as they are.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = ids;
}

/// The process's spare buffers for a batch's runs, shared by its threads: at most 64 MiB.
static RUN_IDS: SpareIds = SpareIds::new(16 << 20);

/// The process's spare buffers for large texts' ids, shared by its threads: at most 64 MiB.
static RESULT_IDS: SpareIds = SpareIds::new(16 << 20);

/// An empty buffer for a batch's run (`RUN_IDS`).
pub fn run_buffer() -> Vec<u32> {
    RUN_IDS.take()
}

/// Keeps a run's buffer for a later run once its ids are copied out (`RUN_IDS`).
pub fn give_back_run(ids: Vec<u32>) {
    RUN_IDS.give(ids);
}

/// An empty buffer for the ids of one text (`SpareIds::for_text`, from `RESULT_IDS`).
pub fn result_buffer(text_bytes: usize) -> Vec<u32> {
    RESULT_IDS.for_text(text_bytes)
}

/// An empty buffer with room for a batch's `ids` ids (`SpareIds::for_ids`, from
/// `RESULT_IDS`).
pub fn joined_buffer(ids: usize) -> Vec<u32> {
    RESULT_IDS.for_ids(ids)
}

/// Keeps a text's buffer once its result is gone (`SpareIds::give_result`, to
/// `RESULT_IDS`).
pub fn give_back_result(ids: Vec<u32>) {
    RESULT_IDS.give_result(ids);
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
    fn spare_ids_keep_their_memory_emptied_up_to_their_limit() {
        let spare = SpareIds::new(1000);
        assert_eq!(spare.take().capacity(), 0, "none kept yet: a new one");
        let mut ids = Vec::with_capacity(600);
        ids.extend(0..600u32);
        let at = ids.as_ptr();
        spare.give(ids);
        let again = spare.take();
        assert_eq!(
            (again.len(), again.capacity(), again.as_ptr()),
            (0, 600, at)
        );
        spare.give(again);
        // 600 + 500 ids of capacity would pass the limit: the second is let go.
        spare.give(Vec::with_capacity(500));
        spare.give(Vec::with_capacity(400));
        let mut kept: Vec<usize> = (0..3).map(|_| spare.take().capacity()).collect();
        kept.sort_unstable();
        assert_eq!(kept, [0, 400, 600]);
    }

    #[test]
    fn a_buffer_within_a_size_is_the_largest_that_fits() {
        let spare = SpareIds::new(1000);
        for n in [300, 100, 500] {
            spare.give(Vec::with_capacity(n));
        }
        assert_eq!(spare.take_within(50).capacity(), 0, "none fits: a new one");
        assert_eq!(spare.take_within(400).capacity(), 300);
        assert_eq!(spare.take_within(1000).capacity(), 500);
        assert_eq!(spare.take_within(1000).capacity(), 100);
        assert_eq!(spare.take().capacity(), 0, "all taken");
    }

    #[test]
    fn a_large_texts_buffer_is_kept_by_its_ids_for_the_next_large_text() {
        let min_ids = MIN_BYTES / 4;
        let spare = SpareIds::new(4 * min_ids);
        let mut ids = Vec::with_capacity(3 * min_ids);
        ids.extend((0..min_ids as u32).rev());
        spare.give_result(ids);
        // A text whose room is below the buffer's ids, or below MIN_BYTES: a new buffer.
        assert_eq!(spare.for_text(min_ids * 2 - 2).capacity(), 0);
        assert_eq!(spare.for_text(MIN_BYTES / 2 - 1).capacity(), 0);
        // Its room stays: the memory is not moved.
        let again = spare.for_text(min_ids * 2);
        assert_eq!((again.len(), again.capacity()), (0, 3 * min_ids));
        assert_eq!(spare.take().capacity(), 0, "taken");
        // Counted by its ids, not its room: four such buffers fit a limit of four times
        // their ids, where their room would let one in.
        for _ in 0..4 {
            let mut ids = Vec::with_capacity(3 * min_ids);
            ids.extend(0..min_ids as u32);
            spare.give_result(ids);
        }
        let kept = (0..5).filter(|_| spare.take().capacity() > 0).count();
        assert_eq!(kept, 4);
        // Fewer ids than MIN_BYTES: not kept.
        let mut small = Vec::with_capacity(3 * min_ids);
        small.extend(0..(min_ids - 1) as u32);
        spare.give_result(small);
        assert_eq!(spare.take().capacity(), 0);
    }

    #[test]
    fn a_batchs_joined_ids_take_a_kept_buffer_of_at_most_twice_their_memory() {
        let min_ids = MIN_BYTES / 4;
        let spare = SpareIds::new(8 * min_ids);
        let give = |room: usize, ids: usize| {
            let mut buffer = Vec::with_capacity(room);
            buffer.extend(0..ids as u32);
            spare.give_result(buffer);
        };
        give(3 * min_ids, 3 * min_ids);
        // Fewer ids than MIN_BYTES: a new buffer of their size, the kept one left.
        let small = spare.for_ids(min_ids - 1);
        assert_eq!((small.len(), small.capacity()), (0, min_ids - 1));
        // The kept buffer holds more than twice their memory: a new one.
        assert_eq!(spare.for_ids(min_ids).capacity(), min_ids);
        // Within twice: the kept one, empty, its memory not moved.
        let again = spare.for_ids(2 * min_ids);
        assert_eq!((again.len(), again.capacity()), (0, 3 * min_ids));
        assert_eq!(spare.take().capacity(), 0, "taken");
        // A kept buffer smaller than the ids is grown to hold them.
        give(min_ids, min_ids);
        let grown = spare.for_ids(3 * min_ids / 2);
        assert!(grown.is_empty() && grown.capacity() >= 3 * min_ids / 2);
        assert_eq!(spare.take().capacity(), 0, "taken");
    }

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
