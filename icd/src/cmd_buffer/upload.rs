//! A command buffer's linear allocator of GPU memory: root tables, descriptor set copies, USC
//! words, CDM stream chunks and vkCmdUpdateBuffer data. It lives in the shader window, since
//! launches name their USC words by a 32-bit offset. A reset keeps a few chunks, zeroed again,
//! for the next recording: mapping fresh memory for every recording costs the kernel more than
//! recording the commands does.
//!
//! Blobs nothing writes after recording (USC words, PPP updates, the root tables of direct
//! draws) go through [`Upload::push_shared`], which hands out an identical earlier blob of
//! the same recording instead of a copy: draws that alternate between a few states then cost
//! no new memory.

use crate::bo::{Bo, Place};
use crate::device::Device;
use ash::vk;

/// Bytes of a normal chunk; larger requests get a chunk of their own.
const CHUNK: u64 = 256 * 1024;

/// Normal chunks a reset command buffer keeps for its next recording.
const KEPT_CHUNKS: usize = 4;

/// Entries of the table of shared blobs (direct mapped by hash).
const SHARED_SLOTS: usize = 256;

/// A blob pushed with [`Upload::push_shared`]: the hash of its bytes (with its own address
/// zeroed) and where it is.
#[derive(Clone, Copy, Debug)]
struct Shared {
    hash: u64,
    at: Alloc,
}

/// A fast hash of `bytes` for the table of shared blobs (FxHash's mixing, in four lanes of
/// 8-byte words so that the multiplies overlap); equality is checked on the bytes themselves.
fn blob_hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mix = |h: u64, w: u64| (h.rotate_left(5) ^ w).wrapping_mul(K);
    let word = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or_default());
    let mut lanes = [bytes.len() as u64, 1, 2, 3];
    let mut blocks = bytes.chunks_exact(32);
    for b in &mut blocks {
        for (i, lane) in lanes.iter_mut().enumerate() {
            *lane = mix(*lane, word(&b[8 * i..8 * i + 8]));
        }
    }
    let mut h = lanes.into_iter().fold(0, mix);
    let mut words = blocks.remainder().chunks_exact(8);
    for w in &mut words {
        h = mix(h, word(w));
    }
    let mut tail = [0u8; 8];
    tail[..words.remainder().len()].copy_from_slice(words.remainder());
    mix(h, u64::from_le_bytes(tail))
}

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
    /// Blobs of this recording that [`Upload::push_shared`] may hand out again; empty until
    /// its first use.
    shared: Vec<Option<Shared>>,
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

    /// As [`Upload::push`] for a blob nothing writes after recording, but the address of an
    /// identical earlier blob of this recording when there is one. `own_address`: the byte
    /// offset of a 64-bit field that holds the blob's own address (a root table's); it must be
    /// zero in `bytes`, which get the address written in.
    pub fn push_shared(
        &mut self,
        dev: &Device,
        bytes: &mut [u8],
        align: u64,
        own_address: Option<usize>,
    ) -> Result<u64, vk::Result> {
        let hash = blob_hash(bytes);
        if self.shared.is_empty() {
            self.shared = vec![None; SHARED_SLOTS];
        }
        let slot = hash as usize % SHARED_SLOTS;
        let set_address = |bytes: &mut [u8], va: u64| -> Result<(), vk::Result> {
            if let Some(at) = own_address {
                bytes
                    .get_mut(at..at + 8)
                    .ok_or(vk::Result::ERROR_UNKNOWN)?
                    .copy_from_slice(&va.to_le_bytes());
            }
            Ok(())
        };
        if let Some(Some(e)) = self.shared.get(slot).copied() {
            if e.hash == hash && e.at.size == bytes.len() as u64 && e.at.va & (align - 1) == 0 {
                set_address(bytes, e.at.va)?;
                if self
                    .chunks
                    .get(e.at.chunk)
                    .is_some_and(|c| c.holds(e.at.offset, bytes))
                {
                    return Ok(e.at.va);
                }
            }
        }
        let a = self.alloc(dev, bytes.len() as u64, align)?;
        set_address(bytes, a.va)?;
        self.write(&a, 0, bytes)?;
        if let Some(e) = self.shared.get_mut(slot) {
            *e = Some(Shared { hash, at: a });
        }
        Ok(a.va)
    }

    /// Allocates room for `bytes`, copies them there and returns the GPU address.
    pub fn push(&mut self, dev: &Device, bytes: &[u8], align: u64) -> Result<u64, vk::Result> {
        let a = self.alloc(dev, bytes.len() as u64, align)?;
        self.write(&a, 0, bytes)?;
        Ok(a.va)
    }
}
