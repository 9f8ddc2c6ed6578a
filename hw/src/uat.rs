//! Facts of the GPU's MMU (the UAT) that shape every GPU virtual address.

/// The UAT maps 16 KiB pages, so every VM_BIND offset, range and address is a multiple of this.
pub const PAGE_SIZE: u64 = 0x4000;

/// Width of a user GPU virtual address (a three-level table of 16 KiB pages).
pub const VA_BITS: u32 = 39;

/// Shader (USC) addresses are 32-bit offsets from a per-queue base, so all code of a queue
/// lives in one window of this size.
pub const USC_WINDOW_SIZE: u64 = 1 << 32;

pub const fn is_page_aligned(v: u64) -> bool {
    v & (PAGE_SIZE - 1) == 0
}
