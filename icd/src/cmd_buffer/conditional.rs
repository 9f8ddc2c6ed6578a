//! Work that runs or not depending on words in GPU memory: conditional rendering
//! (`VK_EXT_conditional_rendering`) and draw indirect count (`vkCmdDraw*IndirectCount`).
//!
//! AGX control streams cannot test a memory word, but they can take a draw's or dispatch's
//! counts from memory. So each guarded command becomes an indirect one whose arguments a
//! meta compute shader (`Meta::GuardedCopy`) first copies from their source, or replaces by
//! zeros (no vertices, no workgroups) when the command must not run. The copy reads the
//! condition when it runs: for draws that is before the render command of their pass (the
//! compute work recorded inside a pass runs first, render.rs `finish_render`), which Vulkan
//! allows, since nothing inside a render pass instance may write the condition's buffer.

use super::dispatch::meta_launch;
use super::LiveCommandBuffer;
use super::{record, Recording};
use crate::buffer::Buffer;
use crate::device::Device;
use crate::handle::Object;
use ash::vk;
use compiler::meta::{guard, Meta};
use std::sync::atomic::Ordering;

/// The active condition of `vkCmdBeginConditionalRenderingEXT`.
#[derive(Clone, Copy, Debug)]
pub struct Condition {
    /// GPU address of the 32-bit condition word.
    pub va: u64,
    pub inverted: bool,
}

/// Where the guarded copy reads a record set from and how it is laid out.
pub struct Records {
    /// GPU address and bytes of the source records.
    pub src: (u64, u64),
    /// Words per record.
    pub words: u32,
    /// Bytes between source records (a multiple of 4).
    pub stride: u32,
    pub count: u32,
}

/// Copies `records` to new upload memory, packed, with every record that must not run
/// zeroed: when `condition` fails, and when `count_va` is given, every record whose number
/// is not below the 32-bit word there. Returns the address of the copy. The command that
/// reads the copy must wait for it (`barrier_pending` is set).
pub fn guarded_copy(
    dev: &Device,
    rec: &mut Recording,
    records: &Records,
    condition: Option<Condition>,
    count_va: Option<u64>,
) -> Result<u64, vk::Result> {
    if !records.stride.is_multiple_of(4) {
        return Err(vk::Result::ERROR_UNKNOWN);
    }
    let words = records
        .count
        .checked_mul(records.words)
        .ok_or(vk::Result::ERROR_OUT_OF_HOST_MEMORY)?;
    let bytes = u64::from(words) * 4;
    let dst = rec.upload.alloc(dev, bytes.max(4), 16)?.va;
    // An unused test still has a buffer bound: a word that is never looked at.
    let unused = rec.upload.push(dev, &[0u8; 4], 4)?;
    let mut flags = 0;
    if let Some(c) = condition {
        flags |= guard::USE_CONDITION;
        if c.inverted {
            flags |= guard::INVERTED;
        }
    }
    if count_va.is_some() {
        flags |= guard::USE_COUNT;
    }
    let mut push = Vec::with_capacity(guard::SIZE as usize);
    for v in [words, records.words, records.stride / 4, flags] {
        push.extend_from_slice(&v.to_le_bytes());
    }
    let buffers = [
        (condition.map_or(unused, |c| c.va), 4),
        (count_va.unwrap_or(unused), 4),
        records.src,
        (dst, bytes),
    ];
    // The application's barriers apply to the copy, which reads its buffers.
    meta_launch(dev, rec, Meta::GuardedCopy, &push, words, &buffers)?;
    rec.barrier_pending = true;
    Ok(dst)
}

/// Arguments of a command recorded now as words, put in upload memory so that the guarded
/// copy can read them like an indirect command's.
pub fn words_in_memory(
    dev: &Device,
    rec: &mut Recording,
    words: &[u32],
) -> Result<(u64, u64), vk::Result> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let va = rec.upload.push(dev, &bytes, 16)?;
    Ok((va, bytes.len() as u64))
}

pub unsafe extern "system" fn cmd_begin_conditional_rendering(
    cb: vk::CommandBuffer,
    info: *const vk::ConditionalRenderingBeginInfoEXT<'_>,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdBeginConditionalRenderingEXT", cb, |_, rec| {
        // SAFETY: the application passes a valid begin info (Vulkan valid usage).
        let info = unsafe { info.as_ref() }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        // SAFETY: Vulkan valid usage: `info.buffer` is a live buffer made by this driver.
        let buf = unsafe { Buffer::from_handle(info.buffer) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        rec.condition = Some(Condition {
            va: buf.va.load(Ordering::Acquire) + info.offset,
            inverted: info
                .flags
                .contains(vk::ConditionalRenderingFlagsEXT::INVERTED),
        });
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_end_conditional_rendering(cb: vk::CommandBuffer) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdEndConditionalRenderingEXT", cb, |_, rec| {
        rec.condition = None;
        Ok(())
    })
}
