//! The GPU virtual address allocator. Userspace owns the VA space under the Asahi UAPI, so the
//! driver hands out ranges itself: first fit over a sorted free list, merged on free.

use std::collections::BTreeMap;

pub struct VaAllocator {
    /// start -> size of each free range; ranges never touch (they are merged).
    free: BTreeMap<u64, u64>,
}

impl VaAllocator {
    pub fn new(start: u64, end: u64) -> Self {
        let mut free = BTreeMap::new();
        if end > start {
            free.insert(start, end - start);
        }
        VaAllocator { free }
    }

    /// A range of `size` bytes aligned to `align` (a power of two), or `None` when full.
    pub fn alloc(&mut self, size: u64, align: u64) -> Option<u64> {
        debug_assert!(align.is_power_of_two());
        let (start, len, addr) = self.free.iter().find_map(|(&start, &len)| {
            let addr = start.checked_add(align - 1)? & !(align - 1);
            let end = addr.checked_add(size)?;
            (end <= start + len).then_some((start, len, addr))
        })?;
        self.free.remove(&start);
        if addr > start {
            self.free.insert(start, addr - start);
        }
        let end = addr + size;
        if end < start + len {
            self.free.insert(end, start + len - end);
        }
        Some(addr)
    }

    /// Returns a range from [`alloc`](Self::alloc) to the free list.
    pub fn free(&mut self, addr: u64, size: u64) {
        let mut start = addr;
        let mut len = size;
        if let Some((&prev, &prev_len)) = self.free.range(..addr).next_back() {
            if prev + prev_len == addr {
                self.free.remove(&prev);
                start = prev;
                len += prev_len;
            }
        }
        if let Some(&next_len) = self.free.get(&(addr + size)) {
            self.free.remove(&(addr + size));
            len += next_len;
        }
        self.free.insert(start, len);
    }
}

#[cfg(test)]
mod tests {
    use super::VaAllocator;

    #[test]
    fn allocates_aligned_and_reuses_after_free() {
        let mut va = VaAllocator::new(0x4000, 0x100000);
        let a = va.alloc(0x4000, 0x10000).unwrap();
        assert_eq!(a, 0x10000);
        let b = va.alloc(0x8000, 0x4000).unwrap();
        assert_eq!(b, 0x4000, "the gap before the aligned block is used");
        va.free(a, 0x4000);
        va.free(b, 0x8000);
        // Everything merged back into one range.
        assert_eq!(va.alloc(0x100000 - 0x4000, 0x4000), Some(0x4000));
        assert_eq!(va.alloc(0x4000, 0x4000), None);
    }

    #[test]
    fn refuses_what_does_not_fit() {
        let mut va = VaAllocator::new(0, 0x8000);
        assert_eq!(va.alloc(0x10000, 0x4000), None);
        assert_eq!(va.alloc(u64::MAX, 0x4000), None);
    }
}
