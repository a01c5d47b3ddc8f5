//! The engine's only `unsafe` code: two hints about memory that change how fast the search
//! reads its tables, never what it reads.
//!
//! - [`prefetch`]: a search node asks for its children's table entries before it searches
//!   them. `_mm_prefetch` is an `unsafe` function on stable Rust only because it carries a
//!   `#[target_feature]`; the instruction itself reads nothing the program sees and cannot
//!   fault, whatever the address. A plain load in safe code does the same work but makes the
//!   search wait for the line, which cost about a fifth of `damx bench`'s time.
//! - [`advise_huge_pages`]: the transposition table (64 MiB by default) is backed by 2 MiB
//!   pages where the kernel allows, so that its random probes do not each miss the
//!   processor's address translation caches (`madvise`, a system call with a raw pointer).
#![allow(unsafe_code)]

/// Hints the processor to bring the cache line holding `value` into the cache. Does nothing
/// on targets without such a hint.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: SSE is part of every x86_64 target, and a prefetch neither reads memory into
        // the program nor faults; the pointer comes from a live reference in any case.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(value).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// Asks the kernel to back the memory of `items` with huge pages (2 MiB on x86-64 instead of
/// 4 KiB) when it is first touched, so that a table far larger than the processor's address
/// translation caches can be probed at random without a page walk on most probes. Call it
/// before the memory is written. Only the whole huge pages inside the allocation are advised;
/// does nothing where the kernel or the target has no such advice.
pub(crate) fn advise_huge_pages<T>(items: &[std::mem::MaybeUninit<T>]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE_PAGE: usize = 2 << 20;
        let start = items.as_ptr() as usize;
        let end = start + std::mem::size_of_val(items);
        let first = start.next_multiple_of(HUGE_PAGE);
        let last = end / HUGE_PAGE * HUGE_PAGE;
        if last > first {
            // SAFETY: the range lies inside `items`, memory this process owns; the advice
            // changes how the kernel backs it, never its contents or its validity, and an
            // error (a kernel without transparent huge pages) leaves everything as it was.
            unsafe {
                libc::madvise(
                    first as *mut libc::c_void,
                    last - first,
                    libc::MADV_HUGEPAGE,
                );
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = items;
}
