//! VkDescriptorPool and VkDescriptorSet: a pool owns one block of GPU memory, each set is a
//! range of it that holds the set's descriptors, written through the CPU mapping.
//!
//! What a descriptor is in set memory (docs/render-abi.md section 7): buffers are address and
//! range; a sampled image is its view's texture descriptor; a sampler is the sampler's entry
//! (heap index, f16 LOD bias); a combined image sampler is both, the entry at 24; a storage
//! image is its view's texture descriptor, then its PBE descriptor at 24; texel buffers are
//! laid out as sampled and storage images, with their buffer view's descriptors. A binding
//! with immutable samplers holds their entries from allocation on, whatever is written. An
//! inline uniform block holds a buffer descriptor of its data from allocation on, then the
//! data (descriptor_set_layout.rs).

use crate::bo::{Bo, Place};
use crate::buffer::Buffer;
use crate::buffer_view::BufferView;
use crate::descriptor_set_layout::{DescriptorSetLayout, LayoutBinding, SetLayoutInfo};
use crate::device::Device;
use crate::entry::{guard, guard_or};
use crate::handle::{self, object, Object};
use crate::image_view::ImageView;
use crate::sampler::Sampler;
use crate::va::VaAllocator;
use ash::vk;
use compiler::abi::{BUFFER_DESCRIPTOR_SIZE, SET_ALIGNMENT};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

struct PoolState {
    /// Free byte ranges of the pool's memory.
    space: VaAllocator,
    /// Live sets, so destroying or resetting the pool frees them.
    sets: Vec<vk::DescriptorSet>,
    max_sets: u32,
}

pub struct DescriptorPool {
    bo: Arc<Bo>,
    state: Mutex<PoolState>,
}
object!(DescriptorPool, vk::DescriptorPool);

pub struct DescriptorSet {
    pub layout: Arc<SetLayoutInfo>,
    pub bo: Arc<Bo>,
    /// Byte offset of the set in the pool's memory.
    pub offset: u64,
    /// Bytes reserved (at least one descriptor, so every set has a distinct range).
    reserved: u64,
    /// The host address of the set's `reserved` bytes in `bo`'s mapping.
    memory: *mut u8,
    /// Per binding number below `BUFFER_SLOTS`, where its buffer descriptors sit: what the
    /// one-buffer write (the most frequent update) needs, in the set itself, without the
    /// layout's lookups.
    buffer_slots: [BufferSlot; BUFFER_SLOTS],
}
object!(DescriptorSet, vk::DescriptorSet);

// SAFETY: `memory` points into the mapping of `bo`, which the set keeps alive; writes
// through it stay inside the set's reserved range (`BufferSlot`), and concurrent writes to
// one set are races the Vulkan valid usage rules forbid.
unsafe impl Send for DescriptorSet {}
// SAFETY: as above.
unsafe impl Sync for DescriptorSet {}

/// Bindings numbered this high or higher take the general write path: sets mostly number
/// their bindings from 0, and a table inside the set saves the short path a memory access.
const BUFFER_SLOTS: usize = 8;

/// A buffer binding's place in a set: its descriptors are `BUFFER_DESCRIPTOR_SIZE` bytes
/// apart from `offset` on. Built only for bindings whose every element lies inside the set's
/// reserved bytes, so a write through one needs no further range check; other bindings (and
/// gaps in the binding numbers) have `count` 0.
#[derive(Clone, Copy)]
#[repr(align(16))] // a power-of-two size, so that indexing is a shift
struct BufferSlot {
    ty: vk::DescriptorType,
    count: u32,
    offset: u32,
}

impl BufferSlot {
    const NONE: BufferSlot = BufferSlot {
        ty: vk::DescriptorType::from_raw(i32::MAX),
        count: 0,
        offset: 0,
    };

    fn table(layout: &SetLayoutInfo, reserved: u64) -> [BufferSlot; BUFFER_SLOTS] {
        use vk::DescriptorType as T;
        let fits = |b: &&LayoutBinding| {
            matches!(
                b.ty,
                T::UNIFORM_BUFFER
                    | T::STORAGE_BUFFER
                    | T::UNIFORM_BUFFER_DYNAMIC
                    | T::STORAGE_BUFFER_DYNAMIC
            ) && b.stride == BUFFER_DESCRIPTOR_SIZE
                && u64::from(b.offset) + u64::from(b.count) * u64::from(b.stride) <= reserved
        };
        let slots = layout.bindings.iter().filter(fits);
        let mut table = [BufferSlot::NONE; BUFFER_SLOTS];
        for b in slots.filter(|b| (b.binding as usize) < BUFFER_SLOTS) {
            table[b.binding as usize] = BufferSlot {
                ty: b.ty,
                count: b.count,
                offset: b.offset,
            };
        }
        table
    }
}

impl DescriptorSet {
    fn new(
        layout: Arc<SetLayoutInfo>,
        bo: Arc<Bo>,
        offset: u64,
        reserved: u64,
    ) -> Result<DescriptorSet, vk::Result> {
        let memory = bo
            .host_range(offset, reserved)
            .ok_or(vk::Result::ERROR_UNKNOWN)?;
        Ok(DescriptorSet {
            buffer_slots: BufferSlot::table(&layout, reserved),
            layout,
            bo,
            offset,
            reserved,
            memory,
        })
    }

    pub fn va(&self) -> u64 {
        self.bo.va + self.offset
    }

    /// The set's bytes as the GPU sees them.
    pub fn contents(&self) -> Result<Vec<u8>, vk::Result> {
        let mut bytes = vec![0u8; self.layout.size as usize];
        self.bo.read(self.offset, &mut bytes)?;
        Ok(bytes)
    }

    fn write_descriptor(&self, at: u32, descriptor: &[u8]) -> Result<(), vk::Result> {
        self.bo.write(self.offset + u64::from(at), descriptor)
    }

    /// Writes the entries of the layout's immutable samplers.
    fn write_immutable_samplers(&self) -> Result<(), vk::Result> {
        write_immutable_samplers(self)
    }

    /// Writes each inline uniform block's buffer descriptor, which points at its data in
    /// this set.
    fn write_inline_headers(&self) -> Result<(), vk::Result> {
        for b in &self.layout.bindings {
            if let Some(header) = b.inline_header_offset() {
                let data = self.va() + u64::from(b.offset);
                self.write_descriptor(header, &buffer_descriptor(data, b.count))?;
            }
        }
        Ok(())
    }
}

/// A buffer descriptor: address, range size, zero (`compiler::abi`).
pub fn buffer_descriptor(address: u64, size: u32) -> [u8; 16] {
    let mut d = [0u8; 16];
    d[..8].copy_from_slice(&address.to_le_bytes());
    d[8..12].copy_from_slice(&size.to_le_bytes());
    d
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

pub unsafe extern "system" fn create_descriptor_pool(
    device: vk::Device,
    p_create_info: *const vk::DescriptorPoolCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_pool: *mut vk::DescriptorPool,
) -> vk::Result {
    guard("vkCreateDescriptorPool", || {
        // SAFETY: `device` is vkCreateDescriptorPool's device parameter, which valid usage requires
        // to be a live device made by this driver.
        let dev = unsafe { Device::get(device) }?;
        // SAFETY: valid usage: pCreateInfo is valid with pool_size_count sizes.
        let info = unsafe { &*p_create_info };
        // SAFETY: as above.
        let sizes = unsafe { handle::slice(info.p_pool_sizes, info.pool_size_count) };
        // Room for every descriptor, counting 8-byte ones as 16 for the alignment of the
        // binding after them, plus each set's alignment and minimum size. Types agx4 does not
        // support yet are refused by the layouts; they count as the largest descriptor.
        let descriptors: u64 = sizes
            .iter()
            .map(|s| {
                if s.ty == vk::DescriptorType::INLINE_UNIFORM_BLOCK {
                    // A byte count; its bindings' descriptors and padding come below.
                    return u64::from(s.descriptor_count);
                }
                let size = crate::descriptor_set_layout::kind(s.ty)
                    .map_or(48, compiler::abi::descriptor_size)
                    .max(BUFFER_DESCRIPTOR_SIZE);
                u64::from(s.descriptor_count) * u64::from(size)
            })
            .sum();
        let bytes = descriptors
            + u64::from(info.max_sets) * u64::from(BUFFER_DESCRIPTOR_SIZE)
            // SAFETY: valid usage: pCreateInfo's pNext chain is valid.
            + unsafe { inline_block_overhead(info, sizes) };
        let bo = Bo::new(dev, bytes, Place::Heap, false)?;
        let space = VaAllocator::new(0, bo.size);
        let pool = DescriptorPool {
            bo: Arc::new(bo),
            state: Mutex::new(PoolState {
                space,
                sets: Vec::new(),
                max_sets: info.max_sets,
            }),
        };
        // SAFETY: valid usage: pAllocator is null or valid allocation callbacks.
        let handle =
            unsafe { pool.into_handle_in(p_allocator, vk::SystemAllocationScope::OBJECT) }?;
        // SAFETY: valid usage: pDescriptorPool is writable.
        unsafe { *p_pool = handle };
        Ok(())
    })
}

/// Bytes a pool needs beyond its inline uniform blocks' data: each binding's buffer
/// descriptor, and up to 16 bytes of alignment padding after its data. The bindings are
/// VkDescriptorPoolInlineUniformBlockCreateInfo's maxInlineUniformBlockBindings, or without
/// it as many as the data could make (one per 4 bytes).
///
/// # Safety
/// `info`'s pNext chain must be valid.
unsafe fn inline_block_overhead(
    info: &vk::DescriptorPoolCreateInfo<'_>,
    sizes: &[vk::DescriptorPoolSize],
) -> u64 {
    let data: u64 = sizes
        .iter()
        .filter(|s| s.ty == vk::DescriptorType::INLINE_UNIFORM_BLOCK)
        .map(|s| u64::from(s.descriptor_count))
        .sum();
    if data == 0 {
        return 0;
    }
    // SAFETY: guaranteed by the caller.
    let declared = unsafe { handle::chain(info.p_next) }
        .find(|s| s.s_type == vk::StructureType::DESCRIPTOR_POOL_INLINE_UNIFORM_BLOCK_CREATE_INFO)
        .map(|s| {
            // SAFETY: the structure type names the structure.
            let i = unsafe {
                &*(s as *const vk::BaseInStructure
                    as *const vk::DescriptorPoolInlineUniformBlockCreateInfo)
            };
            u64::from(i.max_inline_uniform_block_bindings)
        });
    let bindings = declared.unwrap_or(data / 4).min(data.div_ceil(4));
    bindings * u64::from(2 * BUFFER_DESCRIPTOR_SIZE)
}

/// Frees descriptor set `set` of the pool whose state is `state`: its space goes back to the
/// pool and it leaves the pool's list.
///
/// # Safety
/// `set` must be `VK_NULL_HANDLE` or a live descriptor set made by this driver from this pool,
/// with no reference to it in use, and this must be its last use: the set is destroyed.
unsafe fn free_set(state: &mut PoolState, set: vk::DescriptorSet) {
    // SAFETY: guaranteed by the caller: `set` is null or a live set of this pool that is not
    // used again.
    if let Some(s) = unsafe { DescriptorSet::take(set) } {
        state.space.free(s.offset, s.reserved);
    }
    state.sets.retain(|&x| x != set);
}

pub unsafe extern "system" fn destroy_descriptor_pool(
    _device: vk::Device,
    pool: vk::DescriptorPool,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard_or("vkDestroyDescriptorPool", (), || {
        // SAFETY: Vulkan valid usage: `pool` is VK_NULL_HANDLE or a live descriptor pool made by
        // this driver, and this destroy command is its last use.
        if let Some(pool) = unsafe { DescriptorPool::take(pool) } {
            let mut state = lock(&pool.state);
            for set in std::mem::take(&mut state.sets) {
                // SAFETY: `set` comes from the pool's own list of live sets, taken out of it
                // whole so each is freed once; vkDestroyDescriptorPool's valid usage (the pool
                // is no longer in use) means no reference to any of its sets is in use.
                unsafe { free_set(&mut state, set) };
            }
        }
    })
}

pub unsafe extern "system" fn reset_descriptor_pool(
    _device: vk::Device,
    pool: vk::DescriptorPool,
    _flags: vk::DescriptorPoolResetFlags,
) -> vk::Result {
    guard("vkResetDescriptorPool", || {
        // SAFETY: Vulkan valid usage: `pool` is a live descriptor pool made by this driver.
        let pool = unsafe { DescriptorPool::from_handle(pool) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        let mut state = lock(&pool.state);
        for set in std::mem::take(&mut state.sets) {
            // SAFETY: `set` comes from the pool's own list of live sets, taken out of it whole
            // so each is freed once; vkResetDescriptorPool's valid usage (no submitted command
            // uses the pool's sets) means no reference to any of them is in use.
            unsafe { free_set(&mut state, set) };
        }
        Ok(())
    })
}

pub unsafe extern "system" fn allocate_descriptor_sets(
    _device: vk::Device,
    p_allocate_info: *const vk::DescriptorSetAllocateInfo<'_>,
    p_sets: *mut vk::DescriptorSet,
) -> vk::Result {
    guard("vkAllocateDescriptorSets", || {
        // SAFETY: valid usage: pAllocateInfo is valid with descriptor_set_count layouts.
        let info = unsafe { &*p_allocate_info };
        // SAFETY: as above.
        let layouts = unsafe { handle::slice(info.p_set_layouts, info.descriptor_set_count) };
        // SAFETY: valid usage: pDescriptorSets has room for descriptor_set_count handles.
        let out = unsafe { std::slice::from_raw_parts_mut(p_sets, layouts.len()) };
        out.fill(vk::DescriptorSet::null());
        // SAFETY: valid usage: pAllocateInfo's pNext chain is valid.
        let variable = unsafe { variable_counts(info) };
        // SAFETY: Vulkan valid usage: `info.descriptor_pool` is a live descriptor pool made by
        // this driver.
        let pool = unsafe { DescriptorPool::from_handle(info.descriptor_pool) }
            .ok_or(vk::Result::ERROR_UNKNOWN)?;
        let mut state = lock(&pool.state);
        let mut made = Vec::new();
        let mut result = Ok(());
        for (i, &l) in layouts.iter().enumerate() {
            // SAFETY: Vulkan valid usage: each of `pSetLayouts` is a live descriptor set layout
            // made by this driver.
            let layout = &unsafe { DescriptorSetLayout::from_handle(l) }
                .ok_or(vk::Result::ERROR_UNKNOWN)?
                .info;
            // A set of a layout with a variable-count binding has its own view of the layout,
            // with that binding's count (0 unless the allocation names one).
            let layout = if layout.variable_binding().is_some() {
                Arc::new(layout.with_variable_count(variable.get(i).copied().unwrap_or(0)))
            } else {
                layout.clone()
            };
            if state.sets.len() + made.len() >= state.max_sets as usize {
                result = Err(vk::Result::ERROR_OUT_OF_POOL_MEMORY);
                break;
            }
            let reserved = u64::from(layout.size.max(BUFFER_DESCRIPTOR_SIZE));
            let Some(offset) = state.space.alloc(reserved, u64::from(SET_ALIGNMENT)) else {
                result = Err(vk::Result::ERROR_OUT_OF_POOL_MEMORY);
                break;
            };
            // A new set's descriptors are undefined; zero keeps stale addresses out of it.
            let _ = pool.bo.write(offset, &vec![0u8; reserved as usize]);
            let set = match DescriptorSet::new(layout, pool.bo.clone(), offset, reserved) {
                Ok(set) => set,
                Err(e) => {
                    state.space.free(offset, reserved);
                    result = Err(e);
                    break;
                }
            };
            let written = set
                .write_immutable_samplers()
                .and_then(|()| set.write_inline_headers());
            made.push(set.into_handle());
            if let Err(e) = written {
                result = Err(e);
                break;
            }
        }
        if let Err(e) = result {
            for set in made {
                // SAFETY: `set` was made just above by `into_handle` and has not been given to
                // the application; this is its only release.
                if let Some(s) = unsafe { DescriptorSet::take(set) } {
                    state.space.free(s.offset, s.reserved);
                }
            }
            return Err(e);
        }
        out.copy_from_slice(&made);
        state.sets.extend(made);
        Ok(())
    })
}

/// The counts of VkDescriptorSetVariableDescriptorCountAllocateInfo in `info`'s chain, one
/// per set (none without it, or when its descriptorSetCount is 0).
///
/// # Safety
/// `info` must be valid, with a valid pNext chain.
unsafe fn variable_counts<'a>(info: &'a vk::DescriptorSetAllocateInfo<'_>) -> &'a [u32] {
    // SAFETY: guaranteed by the caller.
    let found = unsafe { handle::chain(info.p_next) }.find(|s| {
        s.s_type == vk::StructureType::DESCRIPTOR_SET_VARIABLE_DESCRIPTOR_COUNT_ALLOCATE_INFO
    });
    match found {
        Some(s) => {
            // SAFETY: the structure type names the structure; valid usage: its
            // pDescriptorCounts holds descriptorSetCount counts.
            unsafe {
                let v = &*(s as *const vk::BaseInStructure
                    as *const vk::DescriptorSetVariableDescriptorCountAllocateInfo);
                handle::slice(v.p_descriptor_counts, v.descriptor_set_count)
            }
        }
        None => &[],
    }
}

pub unsafe extern "system" fn free_descriptor_sets(
    _device: vk::Device,
    pool: vk::DescriptorPool,
    count: u32,
    p_sets: *const vk::DescriptorSet,
) -> vk::Result {
    guard("vkFreeDescriptorSets", || {
        // SAFETY: Vulkan valid usage: `pool` is a live descriptor pool made by this driver.
        let pool = unsafe { DescriptorPool::from_handle(pool) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        // SAFETY: valid usage: pDescriptorSets holds `count` handles (some may be null).
        let sets = unsafe { handle::slice(p_sets, count) };
        let mut state = lock(&pool.state);
        for &set in sets.iter().filter(|s| **s != vk::DescriptorSet::null()) {
            // SAFETY: `set` is one of vkFreeDescriptorSets's pDescriptorSets, which valid usage
            // requires to be a live set allocated from `pool`, not in use by any submitted
            // command, and not used again.
            unsafe { free_set(&mut state, set) };
        }
        Ok(())
    })
}

/// Writes the entries of `set`'s layout's immutable samplers.
pub fn write_immutable_samplers(set: &impl SetMemory) -> Result<(), vk::Result> {
    for b in &set.layout().bindings {
        let Some(at) = b.sampler_entry_offset() else {
            continue;
        };
        for (e, s) in b.immutable.iter().enumerate() {
            set.put(b.element_offset(e as u32) + at, &s.entry)?;
        }
    }
    Ok(())
}

/// The texture descriptor a write of `view` stores (the null descriptor for a null view, or
/// for a view without SAMPLED usage, which valid usage excludes).
///
/// # Safety
/// `view` must be VK_NULL_HANDLE or a live image view made by this driver.
unsafe fn texture_of(view: vk::ImageView) -> [u8; 24] {
    // SAFETY: guaranteed by the caller.
    unsafe { ImageView::from_handle(view) }
        .and_then(|v| v.texture)
        .unwrap_or_else(hw::g13::image_desc::null_texture_descriptor)
}

/// The texture descriptor a storage image write of `view` stores, for its loads and size
/// queries (the null descriptor for a null view or one without STORAGE usage).
///
/// # Safety
/// `view` must be VK_NULL_HANDLE or a live image view made by this driver.
unsafe fn storage_texture_of(view: vk::ImageView) -> [u8; 24] {
    // SAFETY: guaranteed by the caller.
    unsafe { ImageView::from_handle(view) }
        .and_then(|v| v.storage_texture)
        .unwrap_or_else(hw::g13::image_desc::null_texture_descriptor)
}

/// The PBE descriptor a storage image write of `view` stores (the null descriptor, whose
/// writes are dropped, for a null view or one without STORAGE usage).
///
/// # Safety
/// `view` must be VK_NULL_HANDLE or a live image view made by this driver.
unsafe fn pbe_of(view: vk::ImageView) -> [u8; 24] {
    // SAFETY: guaranteed by the caller.
    unsafe { ImageView::from_handle(view) }
        .and_then(|v| v.pbe)
        .unwrap_or_else(hw::g13::image_desc::null_pbe_descriptor)
}

/// The set memory of a texel buffer descriptor of type `ty` (docs/render-abi.md 7.1): the
/// view's texture descriptor, and for storage texel buffers its PBE descriptor at
/// `STORAGE_PBE_OFFSET`. A null view (nullDescriptor) is the null texture descriptor, whose
/// element count is 0, and a null PBE, whose writes are dropped.
///
/// # Safety
/// `view` must be VK_NULL_HANDLE or a live buffer view made by this driver.
unsafe fn texel_buffer_descriptor(ty: vk::DescriptorType, view: vk::BufferView) -> Vec<u8> {
    // SAFETY: guaranteed by the caller.
    let view = unsafe { BufferView::from_handle(view) };
    let mut d = vec![0u8; crate::descriptor_set_layout::stride(ty) as usize];
    d[..24].copy_from_slice(
        &view.map_or_else(hw::g13::image_desc::null_texture_descriptor, |v| v.texture),
    );
    if ty == vk::DescriptorType::STORAGE_TEXEL_BUFFER {
        let at = compiler::abi::STORAGE_PBE_OFFSET as usize;
        let pbe = view
            .and_then(|v| v.pbe)
            .unwrap_or_else(hw::g13::image_desc::null_pbe_descriptor);
        d[at..at + 24].copy_from_slice(&pbe);
    }
    d
}

/// The sampler entry a write stores for `binding`'s element `e`: the immutable sampler's, if
/// the binding has them, otherwise `sampler`'s (zero for a null one).
///
/// # Safety
/// Where `binding` has no immutable samplers, `sampler` must be VK_NULL_HANDLE or a live
/// sampler made by this driver.
unsafe fn sampler_entry_of(binding: &LayoutBinding, e: u32, sampler: vk::Sampler) -> [u8; 8] {
    match binding.immutable.get(e as usize) {
        Some(s) => s.entry,
        // SAFETY: guaranteed by the caller: the binding has no immutable samplers here.
        None => unsafe { Sampler::from_handle(sampler) }.map_or([0; 8], Sampler::set_entry),
    }
}

/// Memory descriptors are written into: a set's range of its pool's memory, or the CPU copy
/// of a push descriptor set (cmd_buffer/push_descriptor.rs).
pub trait SetMemory {
    fn layout(&self) -> &SetLayoutInfo;
    /// Copies `bytes` to byte `at` of the set.
    fn put(&self, at: u32, bytes: &[u8]) -> Result<(), vk::Result>;
}

impl SetMemory for DescriptorSet {
    fn layout(&self) -> &SetLayoutInfo {
        &self.layout
    }

    fn put(&self, at: u32, bytes: &[u8]) -> Result<(), vk::Result> {
        self.write_descriptor(at, bytes)
    }
}

/// Writes `data` into inline uniform block memory from byte `first` of `binding` on, running
/// on into the following bindings as Vulkan's consecutive-binding rule says.
pub fn write_inline(
    set: &impl SetMemory,
    binding: u32,
    first: u32,
    data: &[u8],
) -> Result<(), vk::Result> {
    let mut done = 0usize;
    while done < data.len() {
        let (b, e) = set
            .layout()
            .locate(binding, first + done as u32)
            .ok_or(vk::Result::ERROR_UNKNOWN)?;
        if b.ty != vk::DescriptorType::INLINE_UNIFORM_BLOCK {
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        let n = ((b.count - e) as usize).min(data.len() - done);
        set.put(b.element_offset(e), &data[done..done + n])?;
        done += n;
    }
    Ok(())
}

/// Reads `len` bytes of inline uniform block memory from byte `first` of `binding` on, as
/// `write_inline` writes them.
fn read_inline(
    set: &DescriptorSet,
    binding: u32,
    first: u32,
    len: u32,
) -> Result<Vec<u8>, vk::Result> {
    let mut bytes = vec![0u8; len as usize];
    let mut done = 0usize;
    while done < bytes.len() {
        let (b, e) = set
            .layout
            .locate(binding, first + done as u32)
            .ok_or(vk::Result::ERROR_UNKNOWN)?;
        if b.ty != vk::DescriptorType::INLINE_UNIFORM_BLOCK {
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        let n = ((b.count - e) as usize).min(bytes.len() - done);
        set.bo.read(
            set.offset + u64::from(b.element_offset(e)),
            &mut bytes[done..done + n],
        )?;
        done += n;
    }
    Ok(bytes)
}

/// Writes the descriptors `w` describes into `set`.
///
/// # Safety
/// `w` must be a valid write for `set`'s layout, as vkUpdateDescriptorSets requires: its
/// pNext chain valid, its image, buffer or texel buffer view array holding descriptorCount
/// entries, and every handle in them VK_NULL_HANDLE or a live object made by this driver.
pub unsafe fn write(
    set: &impl SetMemory,
    w: &vk::WriteDescriptorSet<'_>,
) -> Result<(), vk::Result> {
    use vk::DescriptorType as T;
    if w.descriptor_type == T::INLINE_UNIFORM_BLOCK {
        // The bytes come in VkWriteDescriptorSetInlineUniformBlock; dstArrayElement is a byte
        // offset and descriptorCount a byte count.
        // SAFETY: valid usage: the pNext chain is valid and holds that structure.
        let block = unsafe { handle::chain(w.p_next) }
            .find(|s| s.s_type == vk::StructureType::WRITE_DESCRIPTOR_SET_INLINE_UNIFORM_BLOCK)
            .ok_or(vk::Result::ERROR_UNKNOWN)?;
        // SAFETY: the structure type names the structure.
        let block = unsafe {
            &*(block as *const vk::BaseInStructure
                as *const vk::WriteDescriptorSetInlineUniformBlock)
        };
        let len = w.descriptor_count.min(block.data_size);
        // SAFETY: valid usage: pData holds dataSize bytes.
        let data = unsafe { handle::slice(block.p_data as *const u8, len) };
        return write_inline(set, w.dst_binding, w.dst_array_element, data);
    }
    if crate::descriptor_set_layout::takes_no_memory(w.descriptor_type) {
        // Nothing to write: the ICD reads input attachments from the subpass.
        return Ok(());
    }
    if crate::descriptor_set_layout::kind(w.descriptor_type).is_none() {
        return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
    }
    let locate = |i: u32| {
        set.layout()
            .locate(w.dst_binding, w.dst_array_element + i)
            .ok_or(vk::Result::ERROR_UNKNOWN)
    };
    match w.descriptor_type {
        T::SAMPLER | T::COMBINED_IMAGE_SAMPLER | T::SAMPLED_IMAGE | T::STORAGE_IMAGE => {
            // SAFETY: valid usage: image descriptor writes carry descriptor_count image infos.
            let infos = unsafe { handle::slice(w.p_image_info, w.descriptor_count) };
            for (i, ii) in infos.iter().enumerate() {
                let (binding, e) = locate(i as u32)?;
                let at = binding.element_offset(e);
                let mut d = [0u8; 48];
                if binding.ty == T::STORAGE_IMAGE {
                    // SAFETY: guaranteed by the caller, the info's view is VK_NULL_HANDLE or
                    // a live image view made by this driver.
                    let texture = unsafe { storage_texture_of(ii.image_view) };
                    // SAFETY: as above.
                    let pbe = unsafe { pbe_of(ii.image_view) };
                    d[..24].copy_from_slice(&texture);
                    let at = compiler::abi::STORAGE_PBE_OFFSET as usize;
                    d[at..at + 24].copy_from_slice(&pbe);
                } else if binding.ty != T::SAMPLER {
                    // SAFETY: as above.
                    let texture = unsafe { texture_of(ii.image_view) };
                    d[..24].copy_from_slice(&texture);
                }
                if let Some(entry_at) = binding.sampler_entry_offset() {
                    let entry_at = entry_at as usize;
                    // SAFETY: guaranteed by the caller, the info's sampler is VK_NULL_HANDLE
                    // or a live sampler made by this driver.
                    let entry = unsafe { sampler_entry_of(binding, e, ii.sampler) };
                    d[entry_at..entry_at + 8].copy_from_slice(&entry);
                }
                set.put(at, &d[..binding.stride as usize])?;
            }
        }
        T::UNIFORM_TEXEL_BUFFER | T::STORAGE_TEXEL_BUFFER => {
            // SAFETY: valid usage: texel buffer writes carry descriptor_count buffer views.
            let views = unsafe { handle::slice(w.p_texel_buffer_view, w.descriptor_count) };
            for (i, &v) in views.iter().enumerate() {
                let (binding, e) = locate(i as u32)?;
                // SAFETY: guaranteed by the caller: `v` is VK_NULL_HANDLE or a live buffer
                // view made by this driver.
                let d = unsafe { texel_buffer_descriptor(binding.ty, v) };
                set.put(binding.element_offset(e), &d)?;
            }
        }
        _ => {
            // SAFETY: valid usage: buffer descriptor writes carry descriptor_count buffer infos.
            let infos = unsafe { handle::slice(w.p_buffer_info, w.descriptor_count) };
            for (i, bi) in infos.iter().enumerate() {
                let (binding, e) = locate(i as u32)?;
                // SAFETY: guaranteed by the caller: the info's buffer is VK_NULL_HANDLE or a
                // live buffer made by this driver.
                set.put(binding.element_offset(e), &unsafe {
                    buffer_descriptor_of(bi)
                })?;
            }
        }
    }
    Ok(())
}

/// Carries out one VkCopyDescriptorSet.
///
/// # Safety
/// `c.src_set` and `c.dst_set` must be live descriptor sets made by this driver.
unsafe fn copy_descriptors(c: &vk::CopyDescriptorSet<'_>) -> Result<(), vk::Result> {
    // SAFETY: guaranteed by the caller.
    let src = unsafe { DescriptorSet::from_handle(c.src_set) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    // SAFETY: guaranteed by the caller.
    let dst = unsafe { DescriptorSet::from_handle(c.dst_set) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    let (first, _) = src
        .layout
        .locate(c.src_binding, c.src_array_element)
        .ok_or(vk::Result::ERROR_UNKNOWN)?;
    if first.ty == vk::DescriptorType::INLINE_UNIFORM_BLOCK {
        // Byte offsets and a byte count; the data moves, each set keeps its own descriptors.
        let bytes = read_inline(src, c.src_binding, c.src_array_element, c.descriptor_count)?;
        return write_inline(dst, c.dst_binding, c.dst_array_element, &bytes);
    }
    // Read everything first: source and destination ranges may overlap within one set.
    let mut descriptors = Vec::with_capacity(c.descriptor_count as usize);
    for i in 0..c.descriptor_count {
        let (b, e) = src
            .layout
            .locate(c.src_binding, c.src_array_element + i)
            .ok_or(vk::Result::ERROR_UNKNOWN)?;
        if crate::descriptor_set_layout::takes_no_memory(b.ty) {
            // Input attachments are read from the subpass, not from the set.
            return Ok(());
        }
        let mut d = vec![0u8; b.stride as usize];
        src.bo
            .read(src.offset + u64::from(b.element_offset(e)), &mut d)?;
        descriptors.push(d);
    }
    for (i, d) in descriptors.iter().enumerate() {
        let (b, e) = dst
            .layout
            .locate(c.dst_binding, c.dst_array_element + i as u32)
            .ok_or(vk::Result::ERROR_UNKNOWN)?;
        if b.stride as usize != d.len() {
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        let at = b.element_offset(e);
        match (b.sampler_entry_offset(), b.immutable.get(e as usize)) {
            // A destination with immutable samplers keeps them: only an image is copied.
            (Some(0), Some(_)) => {}
            (Some(entry_at), Some(_)) => dst.write_descriptor(at, &d[..entry_at as usize])?,
            _ => dst.write_descriptor(at, d)?,
        }
    }
    Ok(())
}

pub unsafe extern "system" fn update_descriptor_sets(
    _device: vk::Device,
    write_count: u32,
    p_writes: *const vk::WriteDescriptorSet<'_>,
    copy_count: u32,
    p_copies: *const vk::CopyDescriptorSet<'_>,
) {
    // The most frequent call, one buffer write and no copy, takes a short path outside the
    // panic barrier: it has no operation that can panic (lookups by `get`, and offsets the
    // slot table bounds), and staying a leaf keeps its frame empty. Every instruction counts
    // here (vkoverhead's descriptor_1ubo), so it trusts what valid usage guarantees, as the
    // rest of the driver does, and AGX4_DEBUG's panic test reaches only the guarded path.
    if (write_count ^ 1) | copy_count == 0 {
        // SAFETY: valid usage: pDescriptorWrites holds writeCount (one) valid structures.
        let w = unsafe { &*p_writes };
        // SAFETY: Vulkan valid usage: the write's `dstSet` is a live descriptor set made by this
        // driver.
        let set = unsafe { DescriptorSet::from_handle(w.dst_set) };
        // SAFETY: Vulkan valid usage: the write is valid for its set.
        if set.is_some_and(|s| unsafe { s.write_one_buffer(w) }) {
            return;
        }
    }
    if write_count == 0 && copy_count == 0 {
        return;
    }
    // SAFETY: forwarded from the caller.
    unsafe { update_guarded(write_count, p_writes, copy_count, p_copies) }
}

/// # Safety
/// As vkUpdateDescriptorSets: the arrays hold write_count / copy_count valid structures.
// `extern "system"` like its caller, so that the call can be a tail call.
#[inline(never)]
unsafe extern "system" fn update_guarded(
    write_count: u32,
    p_writes: *const vk::WriteDescriptorSet<'_>,
    copy_count: u32,
    p_copies: *const vk::CopyDescriptorSet<'_>,
) {
    guard_or("vkUpdateDescriptorSets", (), || {
        // SAFETY: guaranteed by the caller.
        let (writes, copies) = unsafe {
            (
                handle::slice(p_writes, write_count),
                handle::slice(p_copies, copy_count),
            )
        };
        // SAFETY: guaranteed by the caller: the structures are valid as
        // vkUpdateDescriptorSets requires.
        unsafe { update(writes, copies) };
    })
}

/// Every other call: each write by the common path if it can, else the general one.
///
/// # Safety
/// The writes and copies must be valid as vkUpdateDescriptorSets requires (their sets live
/// descriptor sets made by this driver; see [`write`] and [`copy_descriptors`]).
#[inline(never)]
unsafe fn update(writes: &[vk::WriteDescriptorSet<'_>], copies: &[vk::CopyDescriptorSet<'_>]) {
    for w in writes {
        // SAFETY: guaranteed by the caller: each write's `dstSet` is a live descriptor set
        // made by this driver.
        let Some(set) = (unsafe { DescriptorSet::from_handle(w.dst_set) }) else {
            update_failed("write", vk::Result::ERROR_UNKNOWN);
            continue;
        };
        // SAFETY: guaranteed by the caller, the write is valid for `set`.
        if !unsafe { set.write_one_buffer(w) } {
            // SAFETY: as above.
            unsafe { write_general(set, w) };
        }
    }
    if !copies.is_empty() {
        // SAFETY: guaranteed by the caller.
        unsafe { copy_all(copies) };
    }
}

// Out of line, like `update`, so the common case in update_descriptor_sets keeps a small
// frame.
///
/// # Safety
/// As [`write`].
#[inline(never)]
unsafe fn write_general(set: &DescriptorSet, w: &vk::WriteDescriptorSet<'_>) {
    // SAFETY: guaranteed by the caller.
    if let Err(e) = unsafe { write(set, w) } {
        update_failed("write", e);
    }
}

/// # Safety
/// As [`copy_descriptors`], for each copy.
#[inline(never)]
unsafe fn copy_all(copies: &[vk::CopyDescriptorSet<'_>]) {
    for c in copies {
        // SAFETY: guaranteed by the caller.
        if let Err(e) = unsafe { copy_descriptors(c) } {
            update_failed("copy", e);
        }
    }
}

#[cold]
#[inline(never)]
fn update_failed(what: &str, e: vk::Result) {
    eprintln!("agx4: vkUpdateDescriptorSets: a {what} failed ({e:?})");
}

impl DescriptorSet {
    /// The most frequent write, one uniform or storage buffer descriptor, through the slot
    /// table. Returns `false`, having written nothing, for any other write; `write` then
    /// takes it.
    ///
    /// # Safety
    /// `w` must be a valid write for this set: a buffer write's pBufferInfo holds
    /// descriptorCount structures whose buffers are VK_NULL_HANDLE or live buffers made by
    /// this driver.
    #[inline(always)]
    unsafe fn write_one_buffer(&self, w: &vk::WriteDescriptorSet<'_>) -> bool {
        let Some(slot) = self.buffer_slots.get(w.dst_binding as usize) else {
            return false;
        };
        if slot.ty != w.descriptor_type
            || w.descriptor_count != 1
            || w.dst_array_element >= slot.count
        {
            return false;
        }
        // SAFETY: guaranteed by the caller: a buffer write's pBufferInfo holds
        // descriptorCount (one) valid structures.
        let info = unsafe { &*w.p_buffer_info };
        // SAFETY: guaranteed by the caller: its buffer is VK_NULL_HANDLE or a live buffer.
        let descriptor = u128::from_le_bytes(unsafe { buffer_descriptor_of(info) });
        // No overflow: the slot table was built only from elements that end inside the
        // set's reserved bytes, whose size fits 32 bits.
        let at = slot.offset + w.dst_array_element * BUFFER_DESCRIPTOR_SIZE;
        // SAFETY: `at` + 16 lies inside the set's reserved range of `bo`'s mapping (the slot
        // table's invariant), which lives as long as the set.
        unsafe {
            self.memory
                .add(at as usize)
                .cast::<u128>()
                .write_unaligned(descriptor)
        };
        true
    }
}

/// The descriptor of a buffer write's buffer range; zero for a null buffer (nullDescriptor).
///
/// # Safety
/// `info.buffer` must be VK_NULL_HANDLE or a live buffer made by this driver.
#[inline(always)]
unsafe fn buffer_descriptor_of(info: &vk::DescriptorBufferInfo) -> [u8; 16] {
    // SAFETY: guaranteed by the caller.
    let Some(buf) = (unsafe { Buffer::from_handle(info.buffer) }) else {
        return [0u8; 16];
    };
    let range = if info.range == vk::WHOLE_SIZE {
        buf.size.saturating_sub(info.offset)
    } else {
        info.range
    };
    buffer_descriptor(
        buf.va.load(Ordering::Acquire) + info.offset,
        u32::try_from(range).unwrap_or(u32::MAX),
    )
}
