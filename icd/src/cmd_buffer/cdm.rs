//! Building CDM control streams in upload memory.
//!
//! A command buffer's stream is cut into *segments*, one per hardware compute command (a
//! timestamp ends a command, so it ends a segment). Each segment ends in a terminate block.
//! When a chunk fills up, a link block continues the stream in a new chunk; room for a link
//! and a terminate is always kept free.

use super::upload::{Alloc, Upload};
use crate::device::Device;
use crate::emit::Compute;
use ash::vk;

const CHUNK: u64 = 16 * 1024;

/// Bytes kept free at the end of a chunk, so a link (when the next blocks do not fit) or a
/// terminate (when the segment ends) always fits.
fn reserve(c: &dyn Compute) -> u64 {
    c.link_bytes() + c.terminate_bytes()
}

#[derive(Default)]
pub struct Cdm {
    /// The generation's stream blocks, from the device that opened the first segment.
    compute: Option<&'static dyn Compute>,
    chunk: Option<Alloc>,
    /// Bytes used in the current chunk.
    pos: u64,
    /// The open segment: its start, and the end of its first chunk once it has been linked.
    start: Option<u64>,
    first_end: Option<u64>,
}

/// One finished segment: where the firmware starts reading and the end of its first
/// contiguous part (`drm_asahi_cmd_compute.cdm_ctrl_stream_end`).
#[derive(Clone, Copy, Debug)]
pub struct Stream {
    pub start: u64,
    pub end: u64,
}

impl Cdm {
    fn new_chunk(
        &mut self,
        upload: &mut Upload,
        dev: &Device,
        need: u64,
    ) -> Result<Alloc, vk::Result> {
        let a = upload.alloc(dev, (need + reserve(self.compute()?)).max(CHUNK), 64)?;
        self.chunk = Some(a);
        self.pos = 0;
        Ok(a)
    }

    pub fn is_open(&self) -> bool {
        self.start.is_some()
    }

    fn compute(&self) -> Result<&'static dyn Compute, vk::Result> {
        self.compute.ok_or(vk::Result::ERROR_UNKNOWN)
    }

    /// Starts a segment at the current position.
    pub fn open(&mut self, upload: &mut Upload, dev: &Device) -> Result<(), vk::Result> {
        let compute = dev.emitter()?.compute;
        self.compute = Some(compute);
        let chunk = match self.chunk {
            Some(c) if self.pos + reserve(compute) <= c.size => c,
            _ => self.new_chunk(upload, dev, 0)?,
        };
        self.start = Some(chunk.va + self.pos);
        self.first_end = None;
        Ok(())
    }

    /// Appends blocks to the open segment.
    pub fn emit(
        &mut self,
        upload: &mut Upload,
        dev: &Device,
        bytes: &[u8],
    ) -> Result<(), vk::Result> {
        let len = bytes.len() as u64;
        let mut chunk = self.chunk.ok_or(vk::Result::ERROR_UNKNOWN)?;
        let compute = self.compute()?;
        let reserve = reserve(compute);
        if self.pos + len + reserve > chunk.size {
            let next = upload.alloc(dev, (len + reserve).max(CHUNK), 64)?;
            let link = compute.link(next.va);
            upload.write(&chunk, self.pos, &link)?;
            if self.first_end.is_none() {
                self.first_end = Some(chunk.va + self.pos + link.len() as u64);
            }
            self.chunk = Some(next);
            self.pos = 0;
            chunk = next;
        }
        upload.write(&chunk, self.pos, bytes)?;
        self.pos += len;
        Ok(())
    }

    /// Ends the open segment with a terminate block.
    pub fn close(&mut self, upload: &mut Upload) -> Result<Stream, vk::Result> {
        let start = self.start.take().ok_or(vk::Result::ERROR_UNKNOWN)?;
        let chunk = self.chunk.ok_or(vk::Result::ERROR_UNKNOWN)?;
        let end_block = self.compute()?.terminate();
        upload.write(&chunk, self.pos, &end_block)?;
        self.pos += end_block.len() as u64;
        let end = self.first_end.take().unwrap_or(chunk.va + self.pos);
        Ok(Stream { start, end })
    }
}
