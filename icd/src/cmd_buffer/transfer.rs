//! vkCmdCopyBuffer, vkCmdFillBuffer, vkCmdUpdateBuffer: meta compute shaders on the GPU.

use super::dispatch::meta_launch;
use super::LiveCommandBuffer;
use super::{record, Recording};
use crate::buffer::Buffer;
use crate::device::Device;
use crate::handle::{self, Object};
use ash::vk;
use compiler::meta::{copy, fill, Meta};
use std::sync::atomic::Ordering;

fn put(p: &mut [u8], at: u32, bytes: &[u8]) {
    p[at as usize..at as usize + bytes.len()].copy_from_slice(bytes);
}

/// Bytes one meta launch handles: descriptor ranges and offsets are 32-bit.
const PIECE: u64 = 1 << 30;

/// Copies `size` bytes on the GPU, a word at a time when everything is 4-byte aligned.
pub fn copy_bytes(
    dev: &Device,
    rec: &mut Recording,
    src: u64,
    dst: u64,
    size: u64,
) -> Result<(), vk::Result> {
    let words = (src | dst | size).is_multiple_of(4);
    let mut done = 0;
    while done < size {
        let n = (size - done).min(PIECE);
        let (s, d) = (src + done, dst + done);
        if words {
            let mut push = [0u8; copy::SIZE as usize];
            put(&mut push, copy::COUNT, &((n / 4) as u32).to_le_bytes());
            meta_launch(
                dev,
                rec,
                Meta::CopyWords,
                &push,
                (n / 4) as u32,
                &[(s, n), (d, n)],
            )?;
        } else {
            // Whole words around both ranges; the shader masks off the bytes outside.
            let (s0, d0) = (s % 4, d % 4);
            let span = |start: u64, head: u64| (start - head, (head + n).div_ceil(4) * 4);
            let count = (d0 + n).div_ceil(4) as u32;
            let rotation = (s0 + 4 - d0) % 4;
            let adjust: u32 = if s0 < d0 { 4u32.wrapping_neg() } else { 0 };
            let mut push = [0u8; copy::SIZE as usize];
            put(&mut push, copy::COUNT, &count.to_le_bytes());
            put(&mut push, copy::HEAD, &(d0 as u32).to_le_bytes());
            put(&mut push, copy::END, &((d0 + n) as u32).to_le_bytes());
            put(&mut push, copy::SHIFT, &(rotation as u32).to_le_bytes());
            put(&mut push, copy::SRC_ADJUST, &adjust.to_le_bytes());
            meta_launch(
                dev,
                rec,
                Meta::CopyBytes,
                &push,
                count,
                &[span(s, s0), span(d, d0)],
            )?;
        }
        done += n;
    }
    Ok(())
}

/// Writes `value` to `words` u32 words at `dst` on the GPU.
pub fn fill_words(
    dev: &Device,
    rec: &mut Recording,
    dst: u64,
    words: u64,
    value: u32,
) -> Result<(), vk::Result> {
    let mut done = 0;
    while done < words {
        let n = (words - done).min(PIECE / 4);
        let mut push = [0u8; fill::SIZE as usize];
        put(&mut push, fill::COUNT, &(n as u32).to_le_bytes());
        put(&mut push, fill::VALUE, &value.to_le_bytes());
        meta_launch(
            dev,
            rec,
            Meta::Fill,
            &push,
            n as u32,
            &[(dst + done * 4, n * 4)],
        )?;
        done += n;
    }
    Ok(())
}

/// The buffer a buffer transfer command names; `VK_ERROR_UNKNOWN` for `VK_NULL_HANDLE`.
///
/// # Safety
/// `b` must be `VK_NULL_HANDLE` or a live buffer made by this driver, and the buffer must not
/// be destroyed while the returned reference is in use. The `srcBuffer` or `dstBuffer` of
/// vkCmdCopyBuffer, vkCmdFillBuffer or vkCmdUpdateBuffer is such a handle (Vulkan valid
/// usage).
unsafe fn buffer<'a>(b: vk::Buffer) -> Result<&'a Buffer, vk::Result> {
    // SAFETY: guaranteed by the caller: `b` is null or a live buffer made by this driver that
    // outlives the returned reference.
    unsafe { Buffer::from_handle(b) }.ok_or(vk::Result::ERROR_UNKNOWN)
}

pub unsafe extern "system" fn cmd_copy_buffer(
    cb: vk::CommandBuffer,
    src: vk::Buffer,
    dst: vk::Buffer,
    count: u32,
    p_regions: *const vk::BufferCopy,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdCopyBuffer", cb, |dev, rec| {
        let (src, dst) = (
            // SAFETY: `src` is vkCmdCopyBuffer's srcBuffer parameter, which valid usage requires
            // to be a live buffer made by this driver.
            unsafe { buffer(src) }?,
            // SAFETY: `dst` is vkCmdCopyBuffer's dstBuffer parameter, which valid usage requires
            // to be a live buffer made by this driver.
            unsafe { buffer(dst) }?,
        );
        let (s, d) = (
            src.va.load(Ordering::Acquire),
            dst.va.load(Ordering::Acquire),
        );
        // SAFETY: valid usage: pRegions holds `count` regions.
        for r in unsafe { handle::slice(p_regions, count) } {
            copy_bytes(dev, rec, s + r.src_offset, d + r.dst_offset, r.size)?;
        }
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_fill_buffer(
    cb: vk::CommandBuffer,
    dst: vk::Buffer,
    offset: vk::DeviceSize,
    size: vk::DeviceSize,
    data: u32,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdFillBuffer", cb, |dev, rec| {
        // SAFETY: `dst` is vkCmdFillBuffer's dstBuffer parameter, which valid usage requires to be
        // a live buffer made by this driver.
        let dst = unsafe { buffer(dst) }?;
        // VK_WHOLE_SIZE fills to the end, rounded down to whole words.
        let size = if size == vk::WHOLE_SIZE {
            dst.size.saturating_sub(offset) & !3
        } else {
            size
        };
        fill_words(
            dev,
            rec,
            dst.va.load(Ordering::Acquire) + offset,
            size / 4,
            data,
        )
    })
}

pub unsafe extern "system" fn cmd_update_buffer(
    cb: vk::CommandBuffer,
    dst: vk::Buffer,
    offset: vk::DeviceSize,
    size: vk::DeviceSize,
    p_data: *const std::ffi::c_void,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdUpdateBuffer", cb, |dev, rec| {
        // SAFETY: `dst` is vkCmdUpdateBuffer's dstBuffer parameter, which valid usage requires to
        // be a live buffer made by this driver.
        let dst = unsafe { buffer(dst) }?;
        // SAFETY: valid usage: pData holds `size` bytes (at most 65536).
        let data = unsafe {
            handle::slice(
                p_data as *const u8,
                u32::try_from(size).map_err(|_| vk::Result::ERROR_UNKNOWN)?,
            )
        };
        // The data is captured now, as the spec requires, in the command buffer's memory.
        let staged = rec.upload.push(dev, data, 16)?;
        copy_bytes(
            dev,
            rec,
            staged,
            dst.va.load(Ordering::Acquire) + offset,
            size,
        )
    })
}
