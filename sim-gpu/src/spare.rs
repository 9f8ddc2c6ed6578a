//! Vectors a command fills by the megabyte, kept emptied for the next command.
//!
//! A render of many small triangles sets up tens of megabytes of primitives and vertex
//! records. Freed, memory of that size goes back to the system, and the next render faulted
//! it in again page by page: about a sixth of setup's time, and a lock every thread of the
//! process shares. A [`Spare`] keeps such vectors, up to a limit in bytes.

use std::sync::Mutex;

/// Emptied vectors of `T`, holding at most `limit` bytes of capacity.
pub struct Spare<T> {
    kept: Mutex<(Vec<Vec<T>>, usize)>,
    limit: usize,
}

impl<T> Spare<T> {
    pub const fn new(limit: usize) -> Spare<T> {
        Spare {
            kept: Mutex::new((Vec::new(), 0)),
            limit,
        }
    }

    fn bytes(v: &Vec<T>) -> usize {
        v.capacity() * std::mem::size_of::<T>()
    }

    /// An empty vector with room for `n`: a kept one if there is one.
    pub fn take(&self, n: usize) -> Vec<T> {
        let kept = {
            let mut k = self.kept.lock().unwrap_or_else(|e| e.into_inner());
            let v = k.0.pop();
            k.1 -= v.as_ref().map_or(0, Self::bytes);
            v
        };
        let mut v = kept.unwrap_or_default();
        v.reserve(n);
        v
    }

    /// Empties `v` and keeps it while the kept vectors stay within the limit.
    pub fn give(&self, mut v: Vec<T>) {
        v.clear();
        let bytes = Self::bytes(&v);
        let mut k = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if bytes > 0 && k.1 + bytes <= self.limit {
            k.1 += bytes;
            k.0.push(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Given vectors come back empty with their room; past the limit they are dropped.
    #[test]
    fn keeps_vectors_up_to_the_limit() {
        let s: Spare<u32> = Spare::new(100 * 4);
        let mut v = s.take(60);
        v.extend(0..60);
        let room = v.capacity();
        s.give(v);
        let w = s.take(10);
        assert!(w.is_empty());
        assert_eq!(w.capacity(), room);
        s.give(w);
        // Two of 60 exceed the limit of 100: the second is not kept.
        s.give(Vec::with_capacity(60));
        assert_eq!(s.take(0).capacity(), room);
        assert_eq!(s.take(0).capacity(), 0);
    }
}
