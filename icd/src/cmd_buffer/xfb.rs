//! Transform feedback (VK_EXT_transform_feedback), emulated: AGX has no transform feedback
//! hardware. While transform feedback is active, a draw whose pipeline's vertex shader has
//! captured outputs is recorded twice: first a capture draw that runs the shader's capture
//! variant (compiler `passes::lower_xfb`) once per vertex of every primitive, in the order
//! Vulkan writes them, storing the outputs into the bound buffers; then the ordinary draw.
//!
//! Byte offsets live in GPU memory, so counter buffers written by the GPU work without the
//! CPU: each capture draw reads its starting offset of each buffer from an address (a
//! counter buffer given to Begin, a zero word, or the end offset the previous capture draw
//! wrote) and writes its end offset to a fresh word that the next capture draw reads. End
//! points the last capture draw's end offset at the counter buffer instead.

use super::dispatch::meta_launch;
use super::draw::{draw_capture, CaptureDraw, DrawKind};
use super::upload::Alloc;
use super::LiveCommandBuffer;
use super::{record, Recording};
use crate::buffer::Buffer;
use crate::device::Device;
use crate::handle::{self, Object};
use crate::pipeline_graphics::{GraphicsPipeline, VertexProgram};
use crate::topology::Topology;
use ash::vk;
use compiler::abi;
use compiler::ir::XFB_BUFFERS;
use compiler::meta::{xfb_args, xfb_byte_count, Meta};
use std::sync::atomic::Ordering;

/// Transform feedback state of a command buffer.
#[derive(Default, Clone, Debug)]
pub struct XfbState {
    /// Address of the bound offset and bytes bound, per buffer.
    buffers: [Option<(u64, u64)>; XFB_BUFFERS],
    active: bool,
    /// Where the next capture draw reads each buffer's starting offset.
    start: [u64; XFB_BUFFERS],
    /// The root table of the last capture draw since Begin that wrote each buffer's end.
    last: [Option<Alloc>; XFB_BUFFERS],
    /// A zero word (the start of a buffer without a counter buffer) and a dummy query
    /// slot, made once per command buffer.
    zero: u64,
    no_query: u64,
    /// The active transform feedback query's counters: primitives written, needed.
    query: Option<(u64, u64)>,
    /// End wrote a counter buffer from the open render command's draws.
    counter_in_render: bool,
}

impl XfbState {
    pub fn active(&self) -> bool {
        self.active
    }
}

/// How Vulkan's transform feedback writes a topology's primitives: vertices per primitive,
/// vertex step between primitives, `abi::XFB_ORDER_*` bits, and (skip, divide) such that
/// `count` vertices make `max(count - skip, 0) / divide` primitives.
pub(super) fn decomposition(p: Topology) -> Option<(u32, u32, u32, u32, u32)> {
    Some(match p {
        Topology::Points => (1, 1, abi::XFB_ORDER_LIST, 0, 1),
        Topology::Lines => (2, 2, abi::XFB_ORDER_LIST, 0, 2),
        Topology::LineStrip => (2, 1, 0, 1, 1),
        Topology::Triangles => (3, 3, abi::XFB_ORDER_LIST, 0, 3),
        Topology::TriangleStrip => (3, 1, abi::XFB_ORDER_SWAP_ODD, 2, 1),
        // Vulkan's fan triangle i is (i + 1, i + 2, 0).
        Topology::TriangleFan => (3, 1, abi::XFB_ORDER_SKIP_ONE | abi::XFB_ORDER_FAN, 2, 1),
    })
}

fn put(t: &mut [u8], at: u32, bytes: &[u8]) {
    let at = (at - abi::XFB_PARAMS_OFFSET) as usize;
    t[at..at + bytes.len()].copy_from_slice(bytes);
}

pub(super) fn zero_words(dev: &Device, rec: &mut Recording) -> Result<(u64, u64), vk::Result> {
    if rec.xfb.zero == 0 {
        rec.xfb.zero = rec.upload.push(dev, &[0; 8], 8)?;
        rec.xfb.no_query = rec.upload.push(dev, &[0; 8], 8)?;
    }
    Ok((rec.xfb.zero, rec.xfb.no_query))
}

/// Records the capture draw of a draw with pipeline `p` and its vertex program `vertex`, if
/// transform feedback is active and the program captures anything.
pub fn capture(
    dev: &Device,
    rec: &mut Recording,
    p: &GraphicsPipeline,
    vertex: &VertexProgram,
    kind: DrawKind,
) -> Result<(), vk::Result> {
    let fx = super::dynamic_state::resolve(&p.fixed, rec.gfx());
    let index = match kind {
        DrawKind::Direct { .. } | DrawKind::Indirect { indexed: false, .. } => None,
        DrawKind::Indexed { .. } | DrawKind::Indirect { indexed: true, .. } => {
            let (addr, _, size) = rec.gfx().index.ok_or(vk::Result::ERROR_UNKNOWN)?;
            Some((addr, size.bytes()))
        }
    };
    capture_with(
        dev,
        rec,
        p,
        vertex,
        kind,
        fx.primitive,
        fx.restart,
        index,
        &[],
    )
}

/// Records the capture draw of a draw `kind` of `primitive`s with pipeline `p` and its
/// vertex program `vertex`, reading
/// the index buffer `index` (address, bytes per index) for indexed draws, with primitive
/// restart if `restart`; `extra` root words (offset, u64) go after the capture words (a
/// geometry pipeline's record address).
#[allow(clippy::too_many_arguments)]
pub(super) fn capture_with(
    dev: &Device,
    rec: &mut Recording,
    p: &GraphicsPipeline,
    vertex: &VertexProgram,
    kind: DrawKind,
    primitive: Topology,
    restart: bool,
    index: Option<(u64, u32)>,
    extra: &[(u32, u64)],
) -> Result<(), vk::Result> {
    if !rec.xfb.active {
        return Ok(());
    }
    let Some(code) = &vertex.xfb else {
        return Ok(());
    };
    let binary = &code.binary;
    let Some((n, step, order, skip, divide)) = decomposition(primitive) else {
        eprintln!("agx4: transform feedback of {primitive:?} primitives is not implemented");
        return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
    };
    // Vertices per instance, instances, first vertex or vertex offset, first index; an
    // indirect draw's come from the GPU.
    let (count, instances, base, first_index, indirect) = match kind {
        DrawKind::Direct {
            count,
            instances,
            first_vertex,
            ..
        } => (count, instances, first_vertex, 0, None),
        DrawKind::Indexed {
            count,
            instances,
            first_index,
            vertex_offset,
            ..
        } => (count, instances, vertex_offset as u32, first_index, None),
        DrawKind::Indirect { args, indexed, .. } => (0, 0, 0, 0, Some((args, indexed))),
    };
    let prims = count.saturating_sub(skip) / divide;
    if indirect.is_none() && (prims == 0 || instances == 0) {
        return Ok(());
    }
    let verts = prims
        .checked_mul(n)
        .ok_or(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)?;
    let (_, no_query) = zero_words(dev, rec)?;
    let table_end = if extra.is_empty() {
        abi::XFB_ROOT_TABLE_SIZE
    } else {
        abi::GEOMETRY_ROOT_TABLE_SIZE
    };
    let mut params = vec![0u8; (table_end - abi::XFB_PARAMS_OFFSET) as usize];
    for &(at, v) in extra {
        put(&mut params, at, &v.to_le_bytes());
    }
    let mut ends = [0u64; XFB_BUFFERS];
    for (b, end_slot) in ends.iter_mut().enumerate() {
        if binary.strides[b] == 0 {
            continue;
        }
        let Some((addr, size)) = rec.xfb.buffers[b] else {
            eprintln!(
                "agx4: a draw captures into transform feedback buffer {b}, which is not bound"
            );
            return Err(vk::Result::ERROR_UNKNOWN);
        };
        let end = rec.upload.push(dev, &[0; 4], 4)?;
        let words = abi::xfb_buffer_offset(b as u32);
        put(
            &mut params,
            words + abi::XFB_BUFFER_ADDRESS,
            &addr.to_le_bytes(),
        );
        put(
            &mut params,
            words + abi::XFB_BUFFER_START_PTR,
            &rec.xfb.start[b].to_le_bytes(),
        );
        put(
            &mut params,
            words + abi::XFB_BUFFER_END_PTR,
            &end.to_le_bytes(),
        );
        let size = size.min(u64::from(u32::MAX)) as u32;
        put(
            &mut params,
            words + abi::XFB_BUFFER_SIZE,
            &size.to_le_bytes(),
        );
        *end_slot = end;
    }
    put(&mut params, abi::XFB_VERTS_PER_PRIM, &n.to_le_bytes());
    put(
        &mut params,
        abi::XFB_PRIMS_PER_INSTANCE,
        &prims.to_le_bytes(),
    );
    put(&mut params, abi::XFB_INSTANCES, &instances.to_le_bytes());
    put(&mut params, abi::XFB_BASE_VERTEX, &base.to_le_bytes());
    put(
        &mut params,
        abi::XFB_INDEX_SIZE,
        &index.map_or(0u32, |i| i.1).to_le_bytes(),
    );
    put(&mut params, abi::XFB_PRIM_STEP, &step.to_le_bytes());
    put(&mut params, abi::XFB_ORDER, &order.to_le_bytes());
    put(
        &mut params,
        abi::XFB_FIRST_INDEX,
        &first_index.to_le_bytes(),
    );
    // Indexed draws with primitive restart find their primitives on the GPU (lists too:
    // VK_EXT_primitive_topology_list_restart).
    let restart = index.is_some() && restart;
    put(
        &mut params,
        abi::XFB_RESTART,
        &u32::from(restart).to_le_bytes(),
    );
    put(&mut params, abi::XFB_INDEX_COUNT, &count.to_le_bytes());
    put(
        &mut params,
        abi::XFB_INDEX_ADDRESS,
        &index.map_or(0u64, |i| i.0).to_le_bytes(),
    );
    let (written, needed) = rec.xfb.query.unwrap_or((no_query, no_query + 4));
    put(&mut params, abi::XFB_QUERY_ADDRESS, &written.to_le_bytes());
    put(
        &mut params,
        abi::XFB_QUERY_NEEDED_ADDRESS,
        &needed.to_le_bytes(),
    );
    let capture_args = match indirect {
        Some(_) => Some(rec.upload.alloc(dev, 16, 16)?),
        None => None,
    };
    let cap = CaptureDraw {
        binary: &binary.vertex,
        code: code.code,
        stack_bytes: code.stack_bytes,
        params,
        count: verts,
        instances,
        indirect: capture_args.map(|a| a.va),
    };
    let root = draw_capture(dev, rec, p, vertex, kind, &cap)?;
    if let (Some((args, indexed)), Some(out), Some(root)) = (indirect, capture_args, root) {
        // The GPU turns the draw's arguments into the capture draw's and its root words;
        // compute inside a render pass runs before the render command.
        let mut push = [0u8; xfb_args::SIZE as usize];
        for (at, v) in [
            (xfb_args::SKIP, skip),
            (xfb_args::DIVIDE, divide),
            (xfb_args::VERTICES, n),
            (xfb_args::INDEXED, u32::from(indexed)),
        ] {
            push[at as usize..at as usize + 4].copy_from_slice(&v.to_le_bytes());
        }
        let words = root.va + u64::from(abi::XFB_DRAW_OFFSET);
        rec.barrier_pending = true;
        meta_launch(
            dev,
            rec,
            Meta::XfbDrawArgs,
            &push,
            1,
            &[(args, 20), (out.va, 16), (words, 64)],
        )?;
        rec.barrier_pending = true;
    }
    for (b, &end) in ends.iter().enumerate() {
        if end != 0 {
            rec.xfb.start[b] = end;
            rec.xfb.last[b] = root;
        }
    }
    Ok(())
}

pub unsafe extern "system" fn cmd_bind_transform_feedback_buffers(
    cb: vk::CommandBuffer,
    first: u32,
    count: u32,
    p_buffers: *const vk::Buffer,
    p_offsets: *const vk::DeviceSize,
    p_sizes: *const vk::DeviceSize,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdBindTransformFeedbackBuffersEXT", cb, |_, rec| {
        // SAFETY: valid usage: the arrays hold `count` entries; pSizes may be null.
        let (bufs, offsets) = unsafe {
            (
                handle::slice(p_buffers, count),
                handle::slice(p_offsets, count),
            )
        };
        let sizes = if p_sizes.is_null() {
            None
        } else {
            // SAFETY: as above, when not null.
            Some(unsafe { handle::slice(p_sizes, count) })
        };
        for (i, (&b, &o)) in bufs.iter().zip(offsets).enumerate() {
            let slot = rec
                .xfb
                .buffers
                .get_mut(first as usize + i)
                .ok_or(vk::Result::ERROR_UNKNOWN)?;
            // SAFETY: Vulkan valid usage: each of `pBuffers` is a live buffer made by this driver.
            let buf = unsafe { Buffer::from_handle(b) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
            let left = buf.size.saturating_sub(o);
            let size = match sizes.map(|s| s[i]) {
                Some(vk::WHOLE_SIZE) | None => left,
                Some(s) => s.min(left),
            };
            *slot = Some((buf.va.load(Ordering::Acquire) + o, size));
        }
        Ok(())
    })
}

/// The counter buffer addresses given to Begin or End, per transform feedback buffer.
///
/// # Safety
/// The arrays hold `count` entries or are null; each buffer is VK_NULL_HANDLE or a live buffer
/// made by this driver.
unsafe fn counters(
    first: u32,
    count: u32,
    p_buffers: *const vk::Buffer,
    p_offsets: *const vk::DeviceSize,
) -> Result<[Option<u64>; XFB_BUFFERS], vk::Result> {
    let mut out = [None; XFB_BUFFERS];
    if p_buffers.is_null() {
        return Ok(out);
    }
    // SAFETY: the caller's contract.
    let bufs = unsafe { handle::slice(p_buffers, count) };
    let offsets = if p_offsets.is_null() {
        None
    } else {
        // SAFETY: the caller's contract.
        Some(unsafe { handle::slice(p_offsets, count) })
    };
    for (i, &b) in bufs.iter().enumerate() {
        if b == vk::Buffer::null() {
            continue;
        }
        // SAFETY: the caller's contract: `b` is a live buffer made by this driver (not null here).
        let buf = unsafe { Buffer::from_handle(b) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        let o = offsets.map_or(0, |o| o[i]);
        let slot = out
            .get_mut(first as usize + i)
            .ok_or(vk::Result::ERROR_UNKNOWN)?;
        *slot = Some(buf.va.load(Ordering::Acquire) + o);
    }
    Ok(out)
}

pub unsafe extern "system" fn cmd_begin_transform_feedback(
    cb: vk::CommandBuffer,
    first: u32,
    count: u32,
    p_buffers: *const vk::Buffer,
    p_offsets: *const vk::DeviceSize,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdBeginTransformFeedbackEXT", cb, |dev, rec| {
        // SAFETY: valid usage: the arrays hold `count` entries or are null, and the counter
        // buffers are null or live buffers made by this driver.
        let c = unsafe { counters(first, count, p_buffers, p_offsets)? };
        let (zero, _) = zero_words(dev, rec)?;
        for (b, counter) in c.iter().enumerate() {
            rec.xfb.start[b] = counter.unwrap_or(zero);
            rec.xfb.last[b] = None;
        }
        rec.xfb.active = true;
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_end_transform_feedback(
    cb: vk::CommandBuffer,
    first: u32,
    count: u32,
    p_buffers: *const vk::Buffer,
    p_offsets: *const vk::DeviceSize,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdEndTransformFeedbackEXT", cb, |dev, rec| {
        // SAFETY: valid usage: the arrays hold `count` entries or are null, and the counter
        // buffers are null or live buffers made by this driver.
        let c = unsafe { counters(first, count, p_buffers, p_offsets)? };
        for (b, counter) in c.iter().enumerate() {
            let Some(counter) = *counter else { continue };
            match rec.xfb.last[b] {
                // The last capture draw writes its end offset into the counter buffer.
                Some(root) => {
                    let at = u64::from(abi::xfb_buffer_offset(b as u32) + abi::XFB_BUFFER_END_PTR);
                    rec.upload.write(&root, at, &counter.to_le_bytes())?;
                }
                // Nothing was captured since Begin: the counter keeps the starting offset.
                None if rec.xfb.start[b] != counter => {
                    rec.barrier_pending = true;
                    super::transfer::copy_bytes(dev, rec, rec.xfb.start[b], counter, 4)?;
                }
                None => {}
            }
        }
        if rec.render.is_some() && c.iter().any(Option::is_some) {
            rec.xfb.counter_in_render = true;
        }
        rec.xfb.active = false;
        rec.xfb.last = [None; XFB_BUFFERS];
        Ok(())
    })
}

/// Begins transform feedback query `query` of `pool`: capture draws add to its counters.
pub fn begin_query(
    rec: &mut Recording,
    pool: &crate::query_pool::QueryPool,
    query: u32,
) -> Result<(), vk::Result> {
    if rec.xfb.query.is_some() {
        return Err(vk::Result::ERROR_UNKNOWN);
    }
    let written = pool.va() + u64::from(query) * 8;
    let needed = pool.va() + u64::from(pool.count + query) * 8;
    rec.xfb.query = Some((written, needed));
    Ok(())
}

pub fn end_query(rec: &mut Recording) -> Result<(), vk::Result> {
    rec.xfb
        .query
        .take()
        .map(|_| ())
        .ok_or(vk::Result::ERROR_UNKNOWN)
}

/// vkCmdDrawIndirectByteCountEXT: a draw of `(counter - counterOffset) / vertexStride`
/// vertices, the count computed on the GPU into the arguments of an indirect draw.
pub unsafe extern "system" fn cmd_draw_indirect_byte_count(
    cb: vk::CommandBuffer,
    instances: u32,
    first_instance: u32,
    counter_buffer: vk::Buffer,
    counter_buffer_offset: vk::DeviceSize,
    counter_offset: u32,
    vertex_stride: u32,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdDrawIndirectByteCountEXT", cb, |dev, rec| {
        // SAFETY: Vulkan valid usage: `counterBuffer` is a live buffer made by this driver.
        let buf =
            unsafe { Buffer::from_handle(counter_buffer) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        let counter = buf.va.load(Ordering::Acquire) + counter_buffer_offset;
        let mut args = [0u8; 16];
        args[4..8].copy_from_slice(&instances.to_le_bytes());
        args[12..16].copy_from_slice(&first_instance.to_le_bytes());
        let args = rec.upload.push(dev, &args, 16)?;
        // Compute inside a render pass runs before its render command: a counter the open
        // render command's capture draws write is read after it, in a continuation.
        if rec.xfb.counter_in_render && rec.render.is_some() {
            super::render::restart_streams(dev, rec)?;
        }
        rec.xfb.counter_in_render = false;
        let mut push = [0u8; xfb_byte_count::SIZE as usize];
        push[xfb_byte_count::OFFSET as usize..][..4].copy_from_slice(&counter_offset.to_le_bytes());
        push[xfb_byte_count::STRIDE as usize..][..4]
            .copy_from_slice(&vertex_stride.max(1).to_le_bytes());
        rec.barrier_pending = true;
        meta_launch(
            dev,
            rec,
            Meta::XfbByteCount,
            &push,
            1,
            &[(counter, 4), (args, 4)],
        )?;
        rec.barrier_pending = true;
        super::draw::draw(
            dev,
            rec,
            DrawKind::Indirect {
                args,
                indexed: false,
                draw_index: 0,
            },
        )
    })
}
