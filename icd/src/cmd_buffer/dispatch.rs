//! vkCmdDispatch, vkCmdDispatchBase, vkCmdDispatchIndirect, and the launch sequence shared
//! with meta operations: a root table, the USC words that preload it, a CDM launch.

use super::conditional::{guarded_copy, words_in_memory, Condition, Records};
use super::LiveCommandBuffer;
use super::{record, Recording};
use crate::buffer::Buffer;
use crate::device::Device;
use crate::emit::{ComputeBinding, ComputeLaunch, Grid, UniformRange};
use crate::handle::Object;
use crate::pipeline::{ComputePipeline, Pipeline, Program};
use ash::vk;
use compiler::abi::{
    BASE_WORKGROUP_OFFSET, NUM_WORKGROUPS_OFFSET, PUSH_CONSTANTS_OFFSET, ROOT_ADDRESS_OFFSET,
    ROOT_TABLE_SIZE,
};
use compiler::meta::{self, Meta};
use compiler::PreloadSource;
use std::sync::atomic::Ordering;

/// A root table that will live at GPU address `va`: bound set addresses, workgroup counts and
/// base, its own address, push constants.
pub fn root_table(va: u64, sets: &[u64], groups: [u32; 3], base: [u32; 3], push: &[u8]) -> Vec<u8> {
    let mut t = vec![0u8; ROOT_TABLE_SIZE as usize];
    fill_root_table(&mut t, va, sets, groups, base, push);
    t
}

/// Writes [`root_table`] into the first `ROOT_TABLE_SIZE` bytes of `t`, which are zero.
pub fn fill_root_table(
    t: &mut [u8],
    va: u64,
    sets: &[u64],
    groups: [u32; 3],
    base: [u32; 3],
    push: &[u8],
) {
    let t = &mut t[..ROOT_TABLE_SIZE as usize];
    let at = ROOT_ADDRESS_OFFSET as usize;
    t[at..at + 8].copy_from_slice(&va.to_le_bytes());
    for (i, s) in sets.iter().enumerate() {
        let at = compiler::abi::set_address_offset(i as u32) as usize;
        t[at..at + 8].copy_from_slice(&s.to_le_bytes());
    }
    for i in 0..3 {
        let at = NUM_WORKGROUPS_OFFSET as usize + 4 * i;
        t[at..at + 4].copy_from_slice(&groups[i].to_le_bytes());
        let at = BASE_WORKGROUP_OFFSET as usize + 4 * i;
        t[at..at + 4].copy_from_slice(&base[i].to_le_bytes());
    }
    let p = PUSH_CONSTANTS_OFFSET as usize;
    let n = push.len().min(t.len() - p);
    t[p..p + n].copy_from_slice(&push[..n]);
}

/// Uploads a root table (see [`root_table`]) and returns its GPU address.
fn push_root(
    dev: &Device,
    rec: &mut Recording,
    sets: &[u64],
    groups: [u32; 3],
    base: [u32; 3],
    push: &[u8],
) -> Result<u64, vk::Result> {
    let a = rec.upload.alloc(dev, u64::from(ROOT_TABLE_SIZE), 16)?;
    rec.upload
        .write(&a, 0, &root_table(a.va, sets, groups, base, push))?;
    Ok(a.va)
}

/// The uniform ranges of one launch of `program` with its root table at `root` and `sets`
/// bound: the root table, then the binary's preloads from set memory and constants.
fn uniform_ranges(program: &Program, root: u64, sets: &[u64]) -> Vec<UniformRange> {
    let b = &program.binary;
    let mut ranges = vec![UniformRange {
        first_half: 0,
        halves: b.uniform_halves,
        va: root,
    }];
    for p in &b.preloads {
        let base = match p.source {
            PreloadSource::Set { root_offset } => {
                let set = root_offset.wrapping_sub(compiler::abi::set_address_offset(0)) / 8;
                // An unbound set (address 0) is only legal where the shader never reads it.
                match sets.get(set as usize) {
                    Some(&base) if base != 0 => base,
                    _ => continue,
                }
            }
            PreloadSource::Constants => program.constants_va,
        };
        ranges.push(UniformRange {
            first_half: p.uniform_half,
            halves: p.halves,
            va: base + u64::from(p.byte_offset),
        });
    }
    ranges
}

/// Appends a launch of a shader bound as `binding` to the open segment (opening one if
/// needed), after a barrier when one is pending.
pub fn launch_bound(
    dev: &Device,
    rec: &mut Recording,
    binding: &ComputeBinding,
    grid: Grid,
    local_size: [u32; 3],
) -> Result<(), vk::Result> {
    let emit = dev.emitter()?.compute;
    rec.open_segment(dev)?;
    let words = emit.binding_words(binding);
    let words_va = rec.upload.push(dev, &words, 64)?;
    let words = words_va
        .checked_sub(dev.usc_base)
        .and_then(|o| u32::try_from(o).ok())
        .ok_or(vk::Result::ERROR_UNKNOWN)?;
    let mut stream = Vec::new();
    if rec.barrier_pending && rec.launches > 0 {
        emit.barrier(&mut stream);
    }
    rec.barrier_pending = false;
    let l = ComputeLaunch {
        binding,
        words,
        grid,
        local_size,
    };
    emit.launch(&l, &mut stream);
    rec.emit(dev, &stream)?;
    rec.launches += 1;
    Ok(())
}

/// Appends a launch of `program` to the open segment (opening one if needed).
pub fn launch(
    dev: &Device,
    rec: &mut Recording,
    program: &Program,
    (root, sets): (u64, &[u64]),
    grid: Grid,
) -> Result<(), vk::Result> {
    let b = &program.binary;
    let uniforms = uniform_ranges(program, root, sets);
    let binding = ComputeBinding {
        shared_bytes: b.shared_bytes,
        uniform_halves: b.uniform_halves_used(),
        uniforms: &uniforms,
        textures: None,
        samplers: None,
        code: program.code_offset,
        gpr_halves: b.gpr_halves,
        stack_bytes: program.stack_bytes,
        preamble: b
            .preamble
            .map(|p| (program.code_offset + p.offset, p.gpr_halves)),
    };
    launch_bound(dev, rec, &binding, grid, b.local_size)
}

/// Runs meta shader `kind` over `count` invocations with `push` as its push constants and
/// `buffers` (address, bytes) as the storage buffers of its set 0.
pub fn meta_launch(
    dev: &Device,
    rec: &mut Recording,
    kind: Meta,
    push: &[u8],
    count: u32,
    buffers: &[(u64, u64)],
) -> Result<(), vk::Result> {
    meta_launch_grid(dev, rec, kind, push, [count, 1, 1], buffers)
}

/// [`meta_launch`] over a 3D grid of invocations: `grid[0]` is rounded up to whole
/// workgroups of [`meta::LOCAL_SIZE`] (the shader masks the rest), `grid[1]` and `grid[2]`
/// are exact.
pub fn meta_launch_grid(
    dev: &Device,
    rec: &mut Recording,
    kind: Meta,
    push: &[u8],
    grid: [u32; 3],
    buffers: &[(u64, u64)],
) -> Result<(), vk::Result> {
    if grid.contains(&0) {
        return Ok(());
    }
    if buffers.len() != kind.buffers() as usize {
        return Err(vk::Result::ERROR_UNKNOWN);
    }
    let program = crate::pipeline::meta(dev, kind)?;
    let groups = [grid[0].div_ceil(meta::LOCAL_SIZE), grid[1], grid[2]];
    let mut set = Vec::new();
    for &(addr, size) in buffers {
        set.extend_from_slice(&crate::descriptor_pool::buffer_descriptor(
            addr,
            u32::try_from(size).unwrap_or(u32::MAX),
        ));
    }
    let set_va = rec
        .upload
        .push(dev, &set, u64::from(compiler::abi::SET_ALIGNMENT))?;
    let root_va = push_root(dev, rec, &[set_va], groups, [0; 3], push)?;
    launch(
        dev,
        rec,
        &program,
        (root_va, &[set_va]),
        Grid::Direct([groups[0] * meta::LOCAL_SIZE, groups[1], groups[2]]),
    )
}

fn bound_pipeline<'a>(rec: &Recording) -> Result<&'a ComputePipeline, vk::Result> {
    // SAFETY: `rec.pipeline` is VK_NULL_HANDLE (its value after a reset) or the pipeline
    // vkCmdBindPipeline bound to this recording's compute bind point (the only code that sets
    // it). Destroying that pipeline would move the command buffer out of the recording state,
    // and valid usage requires the recording state for the dispatch command that called this.
    unsafe { Pipeline::compute(rec.pipeline) }.ok_or_else(|| {
        eprintln!("agx4: dispatch without a bound compute pipeline");
        vk::Result::ERROR_UNKNOWN
    })
}

fn dispatch_base(
    dev: &Device,
    rec: &mut Recording,
    base: [u32; 3],
    groups: [u32; 3],
) -> Result<(), vk::Result> {
    if groups.contains(&0) {
        return Ok(());
    }
    if let Some(c) = rec.condition {
        let src = words_in_memory(dev, rec, &groups)?;
        let args = guard_dispatch(dev, rec, src, c)?;
        return dispatch_indirect(dev, rec, args, base);
    }
    let pipeline = bound_pipeline(rec)?;
    let local = pipeline.program.binary.local_size;
    let mut threads = [0u32; 3];
    for i in 0..3 {
        threads[i] = groups[i]
            .checked_mul(local[i])
            .ok_or(vk::Result::ERROR_UNKNOWN)?;
    }
    let (sets, push) = (rec.sets, *rec.push());
    let root_va = push_root(dev, rec, &sets, groups, base, &push)?;
    launch(
        dev,
        rec,
        &pipeline.program,
        (root_va, &sets),
        Grid::Direct(threads),
    )?;
    if super::statistics::counts_dispatches(rec) {
        let src = words_in_memory(dev, rec, &groups)?;
        super::statistics::count_dispatch(dev, rec, src.0, invocations(pipeline))?;
    }
    Ok(())
}

/// Invocations per workgroup of `pipeline`.
fn invocations(pipeline: &ComputePipeline) -> u32 {
    pipeline.program.binary.local_size.iter().product()
}

pub unsafe extern "system" fn cmd_dispatch(cb: vk::CommandBuffer, x: u32, y: u32, z: u32) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdDispatch", cb, |dev, rec| {
        dispatch_base(dev, rec, [0; 3], [x, y, z])
    })
}

pub unsafe extern "system" fn cmd_dispatch_base(
    cb: vk::CommandBuffer,
    base_x: u32,
    base_y: u32,
    base_z: u32,
    x: u32,
    y: u32,
    z: u32,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdDispatchBase", cb, |dev, rec| {
        dispatch_base(dev, rec, [base_x, base_y, base_z], [x, y, z])
    })
}

/// vkCmdSetDeviceMask(KHR): the only device group has one device, so the only valid mask is 1.
pub unsafe extern "system" fn cmd_set_device_mask(cb: vk::CommandBuffer, mask: u32) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdSetDeviceMask", cb, |_, _| {
        if mask != 1 {
            eprintln!("agx4: device mask {mask:#x} names devices that do not exist (the group has one device)");
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_dispatch_indirect(
    cb: vk::CommandBuffer,
    buffer: vk::Buffer,
    offset: vk::DeviceSize,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdDispatchIndirect", cb, |dev, rec| {
        // SAFETY: Vulkan valid usage: `buffer` is a live buffer made by this driver.
        let buf = unsafe { Buffer::from_handle(buffer) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        let mut args = buf.va.load(Ordering::Acquire) + offset;
        if let Some(c) = rec.condition {
            args = guard_dispatch(dev, rec, (args, 12), c)?;
        }
        dispatch_indirect(dev, rec, args, [0; 3])
    })
}

/// A copy of the VkDispatchIndirectCommand at `src` whose counts are zero unless condition
/// `c` holds.
fn guard_dispatch(
    dev: &Device,
    rec: &mut Recording,
    src: (u64, u64),
    c: Condition,
) -> Result<u64, vk::Result> {
    let records = Records {
        src,
        words: 3,
        stride: 12,
        count: 1,
    };
    guarded_copy(dev, rec, &records, Some(c), None)
}

/// Dispatches the bound pipeline with the workgroup counts of the VkDispatchIndirectCommand
/// at `args`, starting at workgroup `base`.
fn dispatch_indirect(
    dev: &Device,
    rec: &mut Recording,
    args: u64,
    base: [u32; 3],
) -> Result<(), vk::Result> {
    let pipeline = bound_pipeline(rec)?;
    // The GPU fills in the workgroup counts of this root table copy and the thread counts
    // the launch reads.
    let (sets, push) = (rec.sets, *rec.push());
    let root_va = push_root(dev, rec, &sets, [0; 3], base, &push)?;
    let grid_va = rec.upload.push(dev, &[0u8; 12], 16)?;
    let mut push = vec![0u8; meta::fixup::SIZE as usize];
    let buffers = [
        (args, 12),
        (grid_va, 12),
        (root_va + u64::from(NUM_WORKGROUPS_OFFSET), 12),
    ];
    for (i, l) in pipeline.program.binary.local_size.iter().enumerate() {
        let at = (meta::fixup::LOCAL_SIZE + 4 * i as u32) as usize;
        push[at..at + 4].copy_from_slice(&l.to_le_bytes());
    }
    // The application's barriers apply to the fix-up, which reads its buffer.
    meta_launch(dev, rec, Meta::DispatchFixup, &push, 1, &buffers)?;
    rec.barrier_pending = true;
    launch(
        dev,
        rec,
        &pipeline.program,
        (root_va, &sets),
        Grid::Indirect(grid_va),
    )?;
    super::statistics::count_dispatch(dev, rec, args, invocations(pipeline))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_table_layout() {
        let t = root_table(
            0xabcd_0000_1230,
            &[0x1122_3344_5566_7788, 0x10],
            [3, 4, 5],
            [6, 7, 8],
            &[0xaa; 4],
        );
        assert_eq!(t.len(), 224);
        assert_eq!(&t[0..8], &0x1122_3344_5566_7788u64.to_le_bytes());
        assert_eq!(&t[8..16], &0x10u64.to_le_bytes());
        assert_eq!(&t[64..76], &[3, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0]);
        assert_eq!(&t[76..88], &[6, 0, 0, 0, 7, 0, 0, 0, 8, 0, 0, 0]);
        assert_eq!(&t[88..96], &[0x30, 0x12, 0, 0, 0xcd, 0xab, 0, 0]);
        assert_eq!(&t[96..101], &[0xaa, 0xaa, 0xaa, 0xaa, 0]);
    }
}
