//! VkCommandBuffer: recording compute work into CDM control streams in upload memory.
//!
//! Recording errors (out of memory, a meta shader that cannot be compiled, an unsupported
//! command) are kept and returned by vkEndCommandBuffer, as Vulkan prescribes for commands
//! that cannot return one.

pub mod barrier;
pub mod blit;
pub mod cdm;
pub mod clear;
pub mod conditional;
pub mod copy2;
pub mod dispatch;
pub mod draw;
pub mod dynamic_state;
pub mod geometry;
pub mod image_transfer;
pub mod multi_draw;
pub mod primgen;
pub mod push_descriptor;
pub mod query;
pub mod render;
pub mod rendering;
pub mod secondary;
pub mod statistics;
pub mod transfer;
pub mod upload;
pub mod vertex_input;
pub mod xfb;

use crate::descriptor_pool::DescriptorSet;
use crate::device::Device;
use crate::entry::{guard, guard_or};
use crate::handle::{self, object, LoaderData, Object};
use ash::vk;
use cdm::Cdm;
use compiler::abi::{BUFFER_DESCRIPTOR_SIZE, MAX_PUSH_CONSTANTS_SIZE, MAX_SETS};
use kmd_iface::uapi::*;
use std::cell::UnsafeCell;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};
use upload::Upload;

/// One hardware compute command: a CDM stream segment and its timestamps.
#[derive(Clone, Copy, Debug, Default)]
pub struct Segment {
    pub start: u64,
    pub end: u64,
    pub ts: drm_asahi_timestamps,
}

/// One hardware command of a command buffer, in submission order.
#[derive(Clone)]
pub enum HwCommand {
    Compute(Segment),
    Render(std::sync::Arc<drm_asahi_cmd_render>),
    /// vkCmdWaitEvents outside a render pass: the queue waits for the work before it to
    /// finish and for each event's word to be set (the host may set it after submission,
    /// which no GPU command can wait for), then submits what follows.
    WaitEvents(Vec<std::sync::Arc<crate::bo::Bo>>),
}

pub struct Recording {
    pub upload: Upload,
    pub cdm: Cdm,
    pub segments: Vec<HwCommand>,
    /// Graphics bindings and dynamic state; read through `gfx` and changed through `gfx_mut`.
    gfx_state: draw::GfxState,
    /// Counts changes of the state draws read (bindings, dynamic state, push constants,
    /// queries): a draw recorded in the same epoch as the one before it, with the same draw
    /// parameters, repeats it with an index list alone (draw.rs `repeat`).
    epoch: u64,
    /// Counts the changes among those that reach more than the root table (and the index
    /// buffer): a draw in the same fixed-function epoch as the one before it needs only a
    /// new root table and the USC words that load it (draw.rs `rebind`).
    ff_epoch: u64,
    /// The render pass instance being recorded.
    pub render: Option<Box<render::RenderState>>,
    /// Launches in the open segment.
    pub launches: u32,
    pub pipeline: vk::Pipeline,
    /// GPU address of each bound set (with dynamic offsets applied).
    pub sets: [u64; MAX_SETS as usize],
    /// Push constant values; read through `push` and changed through `push_mut`.
    push_values: [u8; MAX_PUSH_CONSTANTS_SIZE as usize],
    /// Push descriptor sets: compute sets, then graphics sets (push_descriptor.rs).
    pub push_sets: Vec<Option<push_descriptor::PushSet>>,
    /// A dependency was recorded: the next launch must wait for the earlier ones.
    pub barrier_pending: bool,
    /// Conditional rendering in effect (vkCmdBeginConditionalRenderingEXT).
    pub condition: Option<conditional::Condition>,
    pub error: Option<vk::Result>,
    pub executable: bool,
    /// Transform feedback bindings and the capture chain (xfb.rs).
    pub xfb: xfb::XfbState,
    /// The counter of the active primitives generated query (primgen.rs).
    pub primgen: Option<u64>,
    /// While indirect draws whose arguments the CPU wrote are recorded (multi-draw,
    /// conditional rendering): their largest vertex or index count and instance count. A
    /// draw with a geometry shader sizes its output by them (geometry.rs).
    pub known_args: Option<(u32, u32)>,
    /// The active pipeline statistics query (statistics.rs).
    pub stats: Option<statistics::Active>,
    /// A secondary's inherited pipeline statistics (statistics.rs).
    pub stats_inherit: statistics::Inherited,
    /// Fragment counts of executed secondaries to move after the subpass (statistics.rs).
    pub stats_drains: Vec<(u64, u64)>,
}

impl Default for Recording {
    fn default() -> Recording {
        Recording {
            upload: Upload::default(),
            cdm: Cdm::default(),
            segments: Vec::new(),
            gfx_state: draw::GfxState::default(),
            epoch: 0,
            ff_epoch: 0,
            render: None,
            launches: 0,
            pipeline: vk::Pipeline::null(),
            sets: [0; MAX_SETS as usize],
            push_values: [0; MAX_PUSH_CONSTANTS_SIZE as usize],
            push_sets: Vec::new(),
            barrier_pending: false,
            condition: None,
            error: None,
            executable: false,
            xfb: Default::default(),
            primgen: None,
            known_args: None,
            stats: None,
            stats_inherit: Default::default(),
            stats_drains: Vec::new(),
        }
    }
}

impl Recording {
    pub fn gfx(&self) -> &draw::GfxState {
        &self.gfx_state
    }

    /// The graphics state, to change it: starts a new state epoch.
    pub fn gfx_mut(&mut self) -> &mut draw::GfxState {
        self.state_changed();
        &mut self.gfx_state
    }

    /// The graphics state, to change only what draws read through their root tables or index
    /// lists (descriptor sets, vertex and index buffers): starts a new state epoch, not a new
    /// fixed-function one.
    pub fn bindings_mut(&mut self) -> &mut draw::GfxState {
        self.epoch += 1;
        &mut self.gfx_state
    }

    pub fn push(&self) -> &[u8; MAX_PUSH_CONSTANTS_SIZE as usize] {
        &self.push_values
    }

    /// The push constants, to change them: starts a new state epoch.
    pub fn push_mut(&mut self) -> &mut [u8; MAX_PUSH_CONSTANTS_SIZE as usize] {
        self.epoch += 1;
        &mut self.push_values
    }

    /// Marks a change of state that draws read outside the graphics state and push constants
    /// (queries, render pass streams).
    pub fn state_changed(&mut self) {
        self.epoch += 1;
        self.ff_epoch += 1;
    }

    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    pub fn ff_epoch(&self) -> u64 {
        self.ff_epoch
    }

    /// Back to the initial state (vkResetCommandBuffer, vkBeginCommandBuffer,
    /// vkResetCommandPool), keeping some upload memory for the next recording.
    pub fn reset(&mut self) {
        let upload = std::mem::take(&mut self.upload).recycled();
        *self = Recording {
            upload,
            ..Recording::default()
        };
    }

    /// Ends the open segment, if any, giving it `end_stamp` as its end timestamp.
    pub fn close_segment(
        &mut self,
        end_stamp: Option<drm_asahi_timestamp>,
    ) -> Result<(), vk::Result> {
        if !self.cdm.is_open() {
            return Ok(());
        }
        let s = self.cdm.close(&mut self.upload)?;
        let ts = drm_asahi_timestamps {
            start: drm_asahi_timestamp::default(),
            end: end_stamp.unwrap_or_default(),
        };
        self.segments.push(HwCommand::Compute(Segment {
            start: s.start,
            end: s.end,
            ts,
        }));
        self.launches = 0;
        self.barrier_pending = false;
        Ok(())
    }

    pub fn open_segment(&mut self, dev: &Device) -> Result<(), vk::Result> {
        if !self.cdm.is_open() {
            self.cdm.open(&mut self.upload, dev)?;
            self.launches = 0;
        }
        Ok(())
    }

    pub fn emit(&mut self, dev: &Device, bytes: &[u8]) -> Result<(), vk::Result> {
        self.cdm.emit(&mut self.upload, dev, bytes)
    }
}

/// A command buffer's recording, without a lock. Vulkan makes the application synchronize
/// externally every command that records into, begins, ends or resets a command buffer (or
/// resets its pool): no two threads change it at once, and the application orders the threads
/// that do in turn. A lock would cost every vkCmd* two atomic read-modify-writes, a third of a
/// repeated draw. Submission and vkCmdExecuteCommands only read the recording, from several
/// threads at once for a simultaneous-use buffer, which Vulkan allows only while nothing
/// records into it.
pub struct RecordingCell {
    /// A thread is changing the recording. Plain loads and stores: not a lock, but a check
    /// that reports most overlapping uses (invalid usage) as an error instead of corrupting
    /// the recording.
    busy: AtomicBool,
    rec: UnsafeCell<Recording>,
}

// SAFETY: the recording is reached only as `RecordingCell`'s documentation says: changed by
// one thread at a time, read by several only while nothing changes it, with the application's
// external synchronization ordering the threads, as Vulkan's valid usage requires.
unsafe impl Sync for RecordingCell {}

/// A recording being changed (see [`RecordingCell`]).
pub struct RecordingMut<'a>(&'a RecordingCell);

impl Deref for RecordingMut<'_> {
    type Target = Recording;
    fn deref(&self) -> &Recording {
        // SAFETY: this thread holds the recording alone (`RecordingCell`).
        unsafe { &*self.0.rec.get() }
    }
}

impl DerefMut for RecordingMut<'_> {
    fn deref_mut(&mut self) -> &mut Recording {
        // SAFETY: this thread holds the recording alone (`RecordingCell`).
        unsafe { &mut *self.0.rec.get() }
    }
}

impl Drop for RecordingMut<'_> {
    fn drop(&mut self) {
        self.0.busy.store(false, Ordering::Relaxed);
    }
}

#[repr(C)]
pub struct CommandBuffer {
    _loader: LoaderData,
    pub device: vk::Device,
    pub level: vk::CommandBufferLevel,
    rec: RecordingCell,
}
object!(CommandBuffer, vk::CommandBuffer);

impl CommandBuffer {
    pub fn new(device: vk::Device, level: vk::CommandBufferLevel) -> CommandBuffer {
        CommandBuffer {
            _loader: LoaderData::new(),
            device,
            level,
            rec: RecordingCell {
                busy: AtomicBool::new(false),
                rec: UnsafeCell::new(Recording::default()),
            },
        }
    }

    /// The recording, to change it: an error if another thread is caught using it.
    pub fn lock(&self) -> Result<RecordingMut<'_>, vk::Result> {
        let cell = &self.rec;
        if cell.busy.load(Ordering::Relaxed) {
            eprintln!("agx4: a command buffer used by two threads at once (invalid usage)");
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        cell.busy.store(true, Ordering::Relaxed);
        Ok(RecordingMut(cell))
    }

    /// The recording, to read it (submission, vkCmdExecuteCommands): an error if a thread is
    /// caught changing it.
    pub fn read(&self) -> Result<&Recording, vk::Result> {
        if self.rec.busy.load(Ordering::Relaxed) {
            eprintln!("agx4: a command buffer read while it is recorded (invalid usage)");
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        // SAFETY: nothing changes the recording while it is read (`RecordingCell`).
        Ok(unsafe { &*self.rec.rec.get() })
    }

    /// The hardware commands of a recorded command buffer, for SUBMIT.
    pub fn commands(&self) -> Result<Vec<HwCommand>, vk::Result> {
        let rec = self.read()?;
        if !rec.executable {
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        Ok(rec.segments.clone())
    }
}

/// A command buffer handle that names a live command buffer made by this driver: what a
/// vkCmd* command's `commandBuffer` is while the command runs.
#[derive(Clone, Copy, Debug)]
pub struct LiveCommandBuffer(vk::CommandBuffer);

impl LiveCommandBuffer {
    /// # Safety
    /// `cb` must be a live command buffer made by this driver, not freed while the value is
    /// in use. The `commandBuffer` of a vkCmd* command is such a handle during the command
    /// (Vulkan valid usage).
    pub unsafe fn new(cb: vk::CommandBuffer) -> LiveCommandBuffer {
        LiveCommandBuffer(cb)
    }
}

/// Runs a recording command: skips it after an earlier error, keeps the first error.
pub fn record(
    name: &'static str,
    cb: LiveCommandBuffer,
    body: impl FnOnce(&Device, &mut Recording) -> Result<(), vk::Result>,
) {
    guard_or(name, (), || {
        // SAFETY: `LiveCommandBuffer::new`'s contract: `cb.0` is a live command buffer made by
        // this driver.
        let Some(cb) = (unsafe { CommandBuffer::from_handle(cb.0) }) else {
            return;
        };
        // SAFETY: `cb.device` is the device the live command buffer `cb` was allocated from; it
        // outlives the command buffer, as valid usage destroys children before their device.
        let Ok(dev) = (unsafe { Device::get(cb.device) }) else {
            return;
        };
        let Ok(mut rec) = cb.lock() else {
            return;
        };
        if rec.error.is_some() {
            return;
        }
        if let Err(e) = body(dev, &mut rec) {
            eprintln!("agx4: {name} failed: {e:?}");
            rec.error = Some(e);
        }
    })
}

pub unsafe extern "system" fn begin_command_buffer(
    cb: vk::CommandBuffer,
    p_begin_info: *const vk::CommandBufferBeginInfo<'_>,
) -> vk::Result {
    guard("vkBeginCommandBuffer", || {
        // SAFETY: Vulkan valid usage: `commandBuffer` is a live command buffer made by this
        // driver.
        let cb = unsafe { CommandBuffer::from_handle(cb) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        // SAFETY: `cb.device` is the device vkBeginCommandBuffer's command buffer was allocated
        // from; it outlives the command buffer, as valid usage destroys children before their
        // device.
        let dev = unsafe { Device::get(cb.device) }?;
        // Beginning resets implicitly; one-time-submit and simultaneous-use need nothing more,
        // since a recorded buffer is read-only GPU memory until the next reset.
        let mut rec = cb.lock()?;
        rec.reset();
        if cb.level == vk::CommandBufferLevel::SECONDARY {
            // SAFETY: valid usage: pBeginInfo is valid, and so is a secondary's inheritance.
            let info = unsafe { p_begin_info.as_ref() }.ok_or(vk::Result::ERROR_UNKNOWN)?;
            // SAFETY: as above.
            unsafe { secondary::begin(dev, &mut rec, info) }?;
            // SAFETY: as above.
            if let Some(inheritance) = unsafe { info.p_inheritance_info.as_ref() } {
                rec.stats_inherit.statistics = inheritance.pipeline_statistics;
            }
        }
        Ok(())
    })
}

pub unsafe extern "system" fn end_command_buffer(cb: vk::CommandBuffer) -> vk::Result {
    guard("vkEndCommandBuffer", || {
        // SAFETY: Vulkan valid usage: `commandBuffer` is a live command buffer made by this
        // driver.
        let cb = unsafe { CommandBuffer::from_handle(cb) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        let mut rec = cb.lock()?;
        if let Some(e) = rec.error {
            return Err(e);
        }
        // A secondary continuing a render pass instance keeps its stream fragments for
        // vkCmdExecuteCommands.
        if rec.render.as_ref().is_some_and(|r| !r.inherited) {
            eprintln!("agx4: vkEndCommandBuffer inside a render pass instance");
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        rec.close_segment(None)?;
        rec.executable = true;
        Ok(())
    })
}

pub unsafe extern "system" fn reset_command_buffer(
    cb: vk::CommandBuffer,
    _flags: vk::CommandBufferResetFlags,
) -> vk::Result {
    guard("vkResetCommandBuffer", || {
        // SAFETY: Vulkan valid usage: `commandBuffer` is a live command buffer made by this
        // driver.
        let cb = unsafe { CommandBuffer::from_handle(cb) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        cb.lock()?.reset();
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_bind_pipeline(
    cb: vk::CommandBuffer,
    bind_point: vk::PipelineBindPoint,
    pipeline: vk::Pipeline,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdBindPipeline", cb, |_, rec| {
        match bind_point {
            vk::PipelineBindPoint::COMPUTE => rec.pipeline = pipeline,
            vk::PipelineBindPoint::GRAPHICS => {
                // SAFETY: `pipeline` is vkCmdBindPipeline's pipeline parameter, which valid
                // usage requires to be a live pipeline made by this driver.
                unsafe { crate::pipeline::Pipeline::graphics(pipeline) }
                    .ok_or(vk::Result::ERROR_UNKNOWN)?;
                rec.gfx_mut().pipeline = pipeline;
                rec.gfx_mut().vertex_input.rebind();
                rec.state_changed();
            }
            _ => return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT),
        }
        Ok(())
    })
}

/// The set's descriptors with `offsets` added to its dynamic buffers' addresses, uploaded.
fn dynamic_copy(
    dev: &Device,
    rec: &mut Recording,
    set: &DescriptorSet,
    offsets: &[u32],
) -> Result<u64, vk::Result> {
    let mut bytes = set.contents()?;
    for b in &set.layout.bindings {
        let Some(first) = b.dynamic_index else {
            continue;
        };
        for e in 0..b.count {
            let offset = *offsets
                .get((first + e) as usize)
                .ok_or(vk::Result::ERROR_UNKNOWN)?;
            let at = (b.offset + e * BUFFER_DESCRIPTOR_SIZE) as usize;
            let addr = u64::from_le_bytes(
                bytes[at..at + 8]
                    .try_into()
                    .map_err(|_| vk::Result::ERROR_UNKNOWN)?,
            );
            bytes[at..at + 8].copy_from_slice(&(addr + u64::from(offset)).to_le_bytes());
        }
    }
    if bytes.is_empty() {
        return Ok(set.va());
    }
    rec.upload
        .push(dev, &bytes, u64::from(compiler::abi::SET_ALIGNMENT))
}

pub unsafe extern "system" fn cmd_bind_descriptor_sets(
    cb: vk::CommandBuffer,
    bind_point: vk::PipelineBindPoint,
    _layout: vk::PipelineLayout,
    first_set: u32,
    set_count: u32,
    p_sets: *const vk::DescriptorSet,
    dynamic_count: u32,
    p_dynamic_offsets: *const u32,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdBindDescriptorSets", cb, |dev, rec| {
        let graphics = match bind_point {
            vk::PipelineBindPoint::COMPUTE => false,
            vk::PipelineBindPoint::GRAPHICS => true,
            _ => return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT),
        };
        // SAFETY: valid usage: the arrays hold their counts.
        let (sets, mut offsets) = unsafe {
            (
                handle::slice(p_sets, set_count),
                handle::slice(p_dynamic_offsets, dynamic_count),
            )
        };
        for (i, &s) in sets.iter().enumerate() {
            let index = first_set as usize + i;
            if index >= MAX_SETS as usize {
                return Err(vk::Result::ERROR_UNKNOWN);
            }
            // SAFETY: Vulkan valid usage: each of `pDescriptorSets` is VK_NULL_HANDLE or a live
            // descriptor set made by this driver.
            let Some(set) = (unsafe { DescriptorSet::from_handle(s) }) else {
                if graphics {
                    rec.bindings_mut().sets[index] = 0;
                } else {
                    rec.sets[index] = 0;
                }
                continue;
            };
            let n = (set.layout.dynamic_count as usize).min(offsets.len());
            let (mine, rest) = offsets.split_at(n);
            offsets = rest;
            let addr = if set.layout.dynamic_count == 0 {
                set.va()
            } else {
                dynamic_copy(dev, rec, set, mine)?
            };
            if graphics {
                rec.bindings_mut().sets[index] = addr;
            } else {
                rec.sets[index] = addr;
            }
        }
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_push_constants(
    cb: vk::CommandBuffer,
    _layout: vk::PipelineLayout,
    _stages: vk::ShaderStageFlags,
    offset: u32,
    size: u32,
    p_values: *const std::ffi::c_void,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdPushConstants", cb, |_, rec| {
        // SAFETY: valid usage: pValues holds `size` bytes.
        let values = unsafe { handle::slice(p_values as *const u8, size) };
        let dst = rec
            .push_mut()
            .get_mut(offset as usize..offset as usize + size as usize)
            .ok_or(vk::Result::ERROR_UNKNOWN)?;
        dst.copy_from_slice(values);
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_execute_commands(
    cb: vk::CommandBuffer,
    count: u32,
    p_buffers: *const vk::CommandBuffer,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdExecuteCommands", cb, |dev, rec| {
        if rec.render.as_ref().is_some_and(|r| r.inherited) {
            eprintln!("agx4: vkCmdExecuteCommands in a secondary command buffer inside a render pass instance (nested command buffers are not supported)");
            return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
        }
        rec.close_segment(None)?;
        // SAFETY: valid usage: pCommandBuffers holds `count` handles.
        for &s in unsafe { handle::slice(p_buffers, count) } {
            // SAFETY: Vulkan valid usage: each of `pCommandBuffers` is a live command buffer made
            // by this driver.
            let secondary =
                unsafe { CommandBuffer::from_handle(s) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
            let srec = secondary.read()?;
            if let Some(e) = srec.error {
                return Err(e);
            }
            if !srec.executable {
                eprintln!(
                    "agx4: vkCmdExecuteCommands: a secondary command buffer that is not executable"
                );
                return Err(vk::Result::ERROR_UNKNOWN);
            }
            if rec.render.is_some() {
                // Its draws join the open render commands (secondary.rs).
                secondary::execute(dev, rec, srec)?;
            } else if srec.render.is_some() {
                eprintln!("agx4: vkCmdExecuteCommands: a secondary begun with RENDER_PASS_CONTINUE outside a render pass instance");
                return Err(vk::Result::ERROR_UNKNOWN);
            } else {
                // Its segments become hardware commands of their own, after the primary's
                // work so far; its streams stay in its own upload memory.
                rec.segments.extend_from_slice(&srec.segments);
                statistics::execute(dev, rec, srec)?;
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_use_of_a_recording_is_refused() {
        let cb = CommandBuffer::new(vk::Device::null(), vk::CommandBufferLevel::PRIMARY);
        let rec = cb.lock().expect("a fresh command buffer");
        assert!(cb.lock().is_err(), "a second writer while one records");
        assert!(cb.read().is_err(), "a reader while one records");
        drop(rec);
        assert!(cb.read().is_ok());
        assert!(cb.lock().is_ok(), "the recording is free again");
    }
}
