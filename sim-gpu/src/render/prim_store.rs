//! The primitives a render command has set up, by number, in the batches setup made them in.

use super::primitive::RasterPrim;
use crate::{Fault, Spare};
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

    /// A reader of primitives in increasing number order, as a tile's list holds them.
    pub fn cursor(&self) -> Cursor<'_> {
        Cursor {
            store: self,
            batch: 0,
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

/// Reads primitives of a [`PrimStore`] whose numbers mostly increase: it remembers the batch
/// it last read from, so the next primitive is found without a search.
pub struct Cursor<'a> {
    store: &'a PrimStore,
    batch: usize,
}

impl<'a> Cursor<'a> {
    /// Primitive number `i`, unless released.
    #[inline]
    pub fn get(&mut self, i: u32) -> Option<&'a RasterPrim> {
        let batches = &self.store.batches;
        for k in [self.batch, self.batch + 1] {
            if let Some((first, batch)) = batches.get(k) {
                if *first <= i && ((i - first) as usize) < batch.len() {
                    self.batch = k;
                    return batch.get((i - first) as usize);
                }
            }
        }
        let k = batches.partition_point(|(first, _)| *first <= i);
        self.batch = k.checked_sub(1)?;
        let (first, batch) = batches.get(self.batch)?;
        batch.get((i - first) as usize)
    }

    /// Starts loading primitive `i` into the processor's caches. A tile's primitives lie
    /// anywhere in the megabytes setup wrote, mostly out of cache: waiting for each when it
    /// is shaded was a sixth of the tiles' time.
    #[inline]
    pub fn prefetch(&mut self, i: u32) {
        if let Some(p) = self.get(i) {
            prefetch(p);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raster::point::Point;
    use crate::raster::viewport::WindowVertex;
    use crate::render::planes::Planes;
    use crate::render::primitive::Geometry;

    /// A point primitive whose `state` is `n`, so reads can tell primitives apart.
    fn prim(n: u32) -> RasterPrim {
        let centre = WindowVertex::from_pixels(1.0, 1.0, 0.5, 1.0).expect("in range");
        RasterPrim {
            state: n,
            geom: Geometry::Point(Point::setup(centre, 1.0).expect("a valid size")),
            backfacing: false,
            planes: Planes::new(),
            depth_slope: 0.0,
            depth_max: 0.0,
        }
    }

    /// A cursor reads what `get` reads, in a tile's increasing order and out of it, across
    /// batches of uneven sizes (empty ones included) and after a release.
    #[test]
    fn cursors_read_what_get_reads() {
        let mut store = PrimStore::default();
        let mut n = 0;
        let mut rng = hw::test_rng::Rng(0xc0de);
        for _ in 0..40 {
            let len = rng.below(6) as u32;
            let batch: Vec<RasterPrim> = (n..n + len).map(prim).collect();
            assert_eq!(store.append(batch).expect("few primitives"), n);
            n += len;
        }
        store.release_below(n / 3);
        for _ in 0..50 {
            let mut list: Vec<u32> = (0..20)
                .map(|_| rng.below(u64::from(n) + 5) as u32)
                .collect();
            if rng.bool() {
                list.sort();
            }
            let mut c = store.cursor();
            for &i in &list {
                let want = store.get(i).map(|p| p.state);
                assert_eq!(c.get(i).map(|p| p.state), want, "primitive {i}");
                if let Some(s) = want {
                    assert_eq!(s, i);
                }
            }
        }
    }
}
