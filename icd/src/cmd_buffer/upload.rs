//! A command buffer's linear allocator of GPU memory: root tables, descriptor set copies, USC
//! words, CDM stream chunks and vkCmdUpdateBuffer data. It lives in the shader window, since
//! launches name their USC words by a 32-bit offset. A reset keeps a few chunks, zeroed again,
//! for the next recording: mapping fresh memory for every recording costs the kernel more than
//! recording the commands does.

use crate::bo::{Bo, Place};
use crate::device::Device;
use ash::vk;

/// Bytes of a normal chunk; larger requests get a chunk of their own.
const CHUNK: u64 = 256 * 1024;

/// Normal chunks a reset command buffer keeps for its next recording.
const KEPT_CHUNKS: usize = 4;

/// A range handed out by [`Upload::alloc`].
#[derive(Clone, Copy, Debug)]
pub struct Alloc {
    pub va: u64,
    chunk: usize,
    offset: u64,
    pub size: u64,
}

#[derive(Default)]
pub struct Upload {
    chunks: Vec<Bo>,
    /// Bytes used in each chunk but the last.
    ends: Vec<u64>,
    /// Bytes used in the last chunk.
    used: u64,
    /// Zeroed normal chunks from an earlier recording, taken before new ones are mapped.
    spare: Vec<Bo>,
}

impl Upload {
    pub fn alloc(&mut self, dev: &Device, size: u64, align: u64) -> Result<Alloc, vk::Result> {
        debug_assert!(align.is_power_of_two());
        if let Some(last) = self.chunks.last() {
            let offset = self
                .used
                .checked_add(align - 1)
                .ok_or(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)?
                & !(align - 1);
            if offset.checked_add(size).is_some_and(|end| end <= last.size) {
                self.used = offset + size;
                return Ok(Alloc {
                    va: last.va + offset,
                    chunk: self.chunks.len() - 1,
                    offset,
                    size,
                });
            }
        }
        // Chunks are page aligned, so any alignment up to a page holds at offset 0.
        let bo = match self.spare.pop() {
            Some(bo) if size <= bo.size => bo,
            spare => {
                self.spare.extend(spare);
                Bo::new(dev, size.max(CHUNK), Place::Usc, false)?
            }
        };
        let va = bo.va;
        if !self.chunks.is_empty() {
            self.ends.push(self.used);
        }
        self.chunks.push(bo);
        self.used = size;
        Ok(Alloc {
            va,
            chunk: self.chunks.len() - 1,
            offset: 0,
            size,
        })
    }

    /// Writes `bytes` at byte `at` of an allocation.
    pub fn write(&self, a: &Alloc, at: u64, bytes: &[u8]) -> Result<(), vk::Result> {
        if at
            .checked_add(bytes.len() as u64)
            .is_none_or(|end| end > a.size)
        {
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        self.chunks
            .get(a.chunk)
            .ok_or(vk::Result::ERROR_UNKNOWN)?
            .write(a.offset + at, bytes)
    }

    /// The allocator for the next recording: empty, with up to [`KEPT_CHUNKS`] of this one's
    /// normal chunks zeroed where they were used (fresh memory reads as zero, and so must
    /// these), the rest unmapped.
    pub fn recycled(mut self) -> Upload {
        let mut spare = std::mem::take(&mut self.spare);
        let ends = self.ends.iter().copied().chain([self.used]);
        for (bo, end) in self.chunks.drain(..).zip(ends) {
            if spare.len() < KEPT_CHUNKS
                && bo.size == CHUNK
                && bo.zero(0, end.min(CHUNK) as usize).is_ok()
            {
                spare.push(bo);
            }
        }
        Upload {
            spare,
            ..Upload::default()
        }
    }

    /// Allocates room for `bytes`, copies them there and returns the GPU address.
    pub fn push(&mut self, dev: &Device, bytes: &[u8], align: u64) -> Result<u64, vk::Result> {
        let a = self.alloc(dev, bytes.len() as u64, align)?;
        self.write(&a, 0, bytes)?;
        Ok(a.va)
    }
}
