//! The one `unsafe` call of the engine: a cache prefetch hint, with which a search node asks
//! for its children's table buckets before it searches them.
//!
//! `_mm_prefetch` is an `unsafe` function on stable Rust only because it carries a
//! `#[target_feature]`; the instruction itself reads nothing the program sees and cannot fault,
//! whatever the address. A plain load in safe code does the same work but makes the search wait
//! for the line, which cost about a fifth of `damx bench`'s time.
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
