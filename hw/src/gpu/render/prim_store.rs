//! The primitives a render command has set up, by number, in the batches setup made them in.

use super::primitive::RasterPrim;
use crate::gpu::{Fault, Spare};
use std::collections::VecDeque;

/// Set-up primitives by number. Setup hands over whole batches, which stay where they are:
/// moving each primitive into one list cost the one thread that bins a copy of every
/// primitive (hundreds of bytes each), and the page faults of a list too large for the
/// allocator to reuse. Numbers run on across the passes of a command; a partial render
/// releases the batches wholly below the first primitive a later pass may still bin.
#[derive(Default)]
pub struct PrimStore {
    /// Batches with the number of their first primitive, in number order.
    batches: VecDeque<(u32, Vec<RasterPrim>)>,
    next: u32,
}

impl PrimStore {
    /// Adds a batch; its primitives are numbered on from the number returned.
    pub fn append(&mut self, batch: Vec<RasterPrim>) -> Result<u32, Fault> {
        let first = self.next;
        self.next = u32::try_from(batch.len())
            .ok()
            .and_then(|n| first.checked_add(n))
            .ok_or(Fault::Unimplemented(
                "render commands of more than 2^32 primitives",
            ))?;
        if !batch.is_empty() {
            self.batches.push_back((first, batch));
        }
        Ok(first)
    }

    /// Primitive number `i`, unless released.
    pub fn get(&self, i: u32) -> Option<&RasterPrim> {
        let k = self.batches.partition_point(|(first, _)| *first <= i);
        let (first, batch) = self.batches.get(k.checked_sub(1)?)?;
        batch.get((i - first) as usize)
    }

    /// Starts loading primitive `i` into the processor's caches. A tile's primitives lie
    /// anywhere in the megabytes setup wrote, mostly out of cache: waiting for each when it
    /// is shaded was a sixth of the tiles' time.
    #[inline]
    pub fn prefetch(&self, i: u32) {
        if let Some(p) = self.get(i) {
            prefetch(p);
        }
    }

    /// Drops the batches whose primitives are all numbered below `keep`.
    pub fn release_below(&mut self, keep: u32) {
        while let Some((first, batch)) = self.batches.front() {
            if *first as usize + batch.len() > keep as usize {
                break;
            }
            if let Some((_, batch)) = self.batches.pop_front() {
                SPARE.give(batch);
            }
        }
    }
}

impl Drop for PrimStore {
    fn drop(&mut self) {
        for (_, batch) in self.batches.drain(..) {
            SPARE.give(batch);
        }
    }
}

/// Starts loading the cache lines of `x`.
#[inline]
fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p: *const i8 = (x as *const T).cast();
        for at in (0..std::mem::size_of::<T>()).step_by(64) {
            // SAFETY: a prefetch is a hint that never faults, and `at` stays inside `x`;
            // SSE is part of every x86-64 processor.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(at)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// Emptied batch vectors for the batches of later renders: room for about 100,000
/// triangles.
static SPARE: Spare<RasterPrim> = Spare::new(48 << 20);

/// An empty vector for a batch of about `n` primitives.
pub fn batch_vec(n: usize) -> Vec<RasterPrim> {
    SPARE.take(n)
}
