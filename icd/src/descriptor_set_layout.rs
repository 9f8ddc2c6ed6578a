//! VkDescriptorSetLayout: where each binding's descriptors sit in set memory.
//!
//! Bindings are laid out in binding order, each descriptor taking
//! `compiler::abi::descriptor_size` bytes (docs/render-abi.md section 7): 16-byte buffer
//! descriptors, 8-byte sampler entries, 32-byte sampled images and combined image samplers,
//! 48-byte storage images.
//! A binding starts on a multiple of 16 when its descriptors' size is one (buffer descriptors
//! keep the 16-byte alignment they always had), of 8 otherwise. Dynamic buffers get an index
//! into the dynamic offsets that vkCmdBindDescriptorSets supplies, in the same order.
//!
//! Immutable samplers (pImmutableSamplers) are copied into the layout as the sampler entries
//! they make, each holding its own reference to its sampler heap entry (so the layout, and the
//! sets made from it, outlive the VkSamplers); allocation writes them into every set.
//!
//! An inline uniform block binding (descriptorCount is a byte size) holds its data in the set:
//! a 16-byte buffer descriptor, then the data, the descriptor pointing at the data (its
//! address is written when the set is allocated). The shader reads the block as any uniform
//! buffer, through that descriptor, so the compiler needs nothing new; the binding's `offset`
//! is where the data starts and its elements are bytes.
//!
//! Descriptor indexing: the binding with VARIABLE_DESCRIPTOR_COUNT (the highest one, by valid
//! usage) is sized per set at allocation (`with_variable_count`); since it comes last, only
//! the set's size changes, never another binding's offset. Update-after-bind, partially bound
//! and update-unused-while-pending need nothing: shaders read descriptors from set memory when
//! they run, so a descriptor written before submission is the one they see, and one they never
//! read may hold anything (dynamic buffers, which are copied at bind time, cannot be
//! update-after-bind by valid usage).
//!
//! Input attachment bindings take no set memory: a fragment shader reads input attachment `n`
//! through the texture state the ICD loads from the current subpass's `pInputAttachments[n]`
//! (docs/render-abi.md section 4), which Vulkan requires to be the view the set holds.

use crate::device::Device;
use crate::entry::{guard, guard_or};
use crate::handle::{self, object, Object};
use crate::sampler::{HeapRef, Sampler};
use ash::vk;
use compiler::abi::descriptor_size;
use std::sync::Arc;

/// An immutable sampler of a binding: the sampler entry sets hold, and the reference that
/// keeps its heap entry alive.
#[derive(Clone, Debug)]
pub struct ImmutableSampler {
    pub entry: [u8; 8],
    _heap_entry: HeapRef,
}

#[derive(Clone, Debug)]
pub struct LayoutBinding {
    pub binding: u32,
    pub ty: vk::DescriptorType,
    pub count: u32,
    /// Byte offset of element 0 in set memory.
    pub offset: u32,
    /// Bytes from one element to the next (0 for input attachments).
    pub stride: u32,
    /// Index of element 0 among the set's dynamic offsets, for dynamic buffers.
    pub dynamic_index: Option<u32>,
    /// Immutable samplers, one per element (empty without).
    pub immutable: Vec<ImmutableSampler>,
    /// VkDescriptorSetLayoutBindingFlagsCreateInfo's flags for this binding.
    pub flags: vk::DescriptorBindingFlags,
}

impl LayoutBinding {
    /// Byte offset of element `e` in set memory.
    pub fn element_offset(&self, e: u32) -> u32 {
        self.offset + e * self.stride
    }

    /// For an inline uniform block: the offset of the buffer descriptor in front of its data.
    pub fn inline_header_offset(&self) -> Option<u32> {
        (self.ty == vk::DescriptorType::INLINE_UNIFORM_BLOCK)
            .then(|| self.offset - compiler::abi::BUFFER_DESCRIPTOR_SIZE)
    }

    /// Offset of the sampler entry inside one of this binding's descriptors, for the types
    /// that have one.
    pub fn sampler_entry_offset(&self) -> Option<u32> {
        match self.ty {
            vk::DescriptorType::SAMPLER => Some(0),
            vk::DescriptorType::COMBINED_IMAGE_SAMPLER => {
                Some(compiler::abi::COMBINED_SAMPLER_OFFSET)
            }
            _ => None,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct SetLayoutInfo {
    pub bindings: Vec<LayoutBinding>,
    /// Bytes of set memory.
    pub size: u32,
    pub dynamic_count: u32,
}

impl SetLayoutInfo {
    /// The binding whose descriptor count each set chooses (VARIABLE_DESCRIPTOR_COUNT).
    pub fn variable_binding(&self) -> Option<&LayoutBinding> {
        self.bindings.last().filter(|b| {
            b.flags
                .contains(vk::DescriptorBindingFlags::VARIABLE_DESCRIPTOR_COUNT)
        })
    }

    /// This layout as a set with `count` descriptors (bytes, for an inline uniform block) in
    /// its variable-count binding sees it; the layout itself if it has none. `count` is at
    /// most the binding's descriptorCount (valid usage); a larger one is clamped to it.
    pub fn with_variable_count(&self, count: u32) -> SetLayoutInfo {
        let mut info = self.clone();
        if self.variable_binding().is_some() {
            if let Some(last) = info.bindings.last_mut() {
                last.count = count.min(last.count);
                last.immutable.truncate(last.count as usize);
                info.size = last.offset + last.count * last.stride;
            }
        }
        info
    }

    /// The binding and element that `element` descriptors after (`binding`, 0) fall on:
    /// Vulkan updates run on into the following bindings.
    pub fn locate(&self, binding: u32, element: u32) -> Option<(&LayoutBinding, u32)> {
        let mut i = self.bindings.iter().position(|b| b.binding == binding)?;
        let mut element = element;
        loop {
            let b = self.bindings.get(i)?;
            if element < b.count {
                return Some((b, element));
            }
            element -= b.count;
            i += 1;
        }
    }

    pub fn to_compiler(&self) -> compiler::SetLayout {
        compiler::SetLayout {
            bindings: self
                .bindings
                .iter()
                .filter(|b| !takes_no_memory(b.ty))
                .map(|b| match b.inline_header_offset() {
                    // The shader reads the block through the descriptor in front of it.
                    Some(header) => compiler::BindingLayout {
                        binding: b.binding,
                        kind: compiler::DescriptorKind::UniformBuffer,
                        count: 1,
                        offset: header,
                    },
                    None => compiler::BindingLayout {
                        binding: b.binding,
                        kind: kind(b.ty).unwrap_or(compiler::DescriptorKind::StorageBuffer),
                        count: b.count,
                        offset: b.offset,
                    },
                })
                .collect(),
        }
    }
}

/// The shader's view of a descriptor type agx4 supports.
pub fn kind(ty: vk::DescriptorType) -> Option<compiler::DescriptorKind> {
    match ty {
        vk::DescriptorType::STORAGE_BUFFER | vk::DescriptorType::STORAGE_BUFFER_DYNAMIC => {
            Some(compiler::DescriptorKind::StorageBuffer)
        }
        vk::DescriptorType::UNIFORM_BUFFER | vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC => {
            Some(compiler::DescriptorKind::UniformBuffer)
        }
        vk::DescriptorType::SAMPLER => Some(compiler::DescriptorKind::Sampler),
        vk::DescriptorType::COMBINED_IMAGE_SAMPLER => {
            Some(compiler::DescriptorKind::CombinedImageSampler)
        }
        vk::DescriptorType::SAMPLED_IMAGE => Some(compiler::DescriptorKind::SampledImage),
        vk::DescriptorType::STORAGE_IMAGE => Some(compiler::DescriptorKind::StorageImage),
        vk::DescriptorType::UNIFORM_TEXEL_BUFFER => {
            Some(compiler::DescriptorKind::UniformTexelBuffer)
        }
        vk::DescriptorType::STORAGE_TEXEL_BUFFER => {
            Some(compiler::DescriptorKind::StorageTexelBuffer)
        }
        _ => None,
    }
}

/// Descriptor types agx4 accepts that the shader does not read from set memory.
pub fn takes_no_memory(ty: vk::DescriptorType) -> bool {
    ty == vk::DescriptorType::INPUT_ATTACHMENT
}

/// Whether agx4 accepts the descriptor type in layouts, pools and updates.
pub fn is_supported(ty: vk::DescriptorType) -> bool {
    kind(ty).is_some() || takes_no_memory(ty) || ty == vk::DescriptorType::INLINE_UNIFORM_BLOCK
}

/// The largest inline uniform block binding, in bytes (maxInlineUniformBlockSize).
pub const MAX_INLINE_UNIFORM_BLOCK_SIZE: u32 = 4096;

/// Inline uniform block bindings a set layout may hold (maxDescriptorSetInlineUniformBlocks
/// and the per-stage limit): a software limit, set memory is sized by the layout.
pub const MAX_INLINE_UNIFORM_BLOCKS: u32 = 32;

/// Bytes of inline uniform block data a pipeline layout may hold
/// (maxInlineUniformTotalSize).
pub const MAX_INLINE_UNIFORM_TOTAL_SIZE: u32 = MAX_INLINE_UNIFORM_BLOCKS * 1024;

pub fn is_dynamic(ty: vk::DescriptorType) -> bool {
    matches!(
        ty,
        vk::DescriptorType::STORAGE_BUFFER_DYNAMIC | vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC
    )
}

/// The most descriptors a set layout may hold (maxPerSetDescriptors). Set memory is sized by
/// the layout, so this only bounds what vkGetDescriptorSetLayoutSupport promises.
pub const MAX_PER_SET_DESCRIPTORS: u32 = 1 << 16;

pub struct DescriptorSetLayout {
    pub info: Arc<SetLayoutInfo>,
}
object!(DescriptorSetLayout, vk::DescriptorSetLayout);

/// Bytes one descriptor of `ty` takes in set memory (0 for input attachments; an inline
/// uniform block's elements are its bytes).
pub fn stride(ty: vk::DescriptorType) -> u32 {
    if ty == vk::DescriptorType::INLINE_UNIFORM_BLOCK {
        return 1;
    }
    kind(ty).map_or(0, descriptor_size)
}

/// The per-binding flags of VkDescriptorSetLayoutBindingFlagsCreateInfo in `info`'s chain, one
/// per binding of `info` (none without it).
///
/// # Safety
/// `info` must be valid, with a valid pNext chain.
pub unsafe fn binding_flags<'a>(
    info: &'a vk::DescriptorSetLayoutCreateInfo<'_>,
) -> &'a [vk::DescriptorBindingFlags] {
    // SAFETY: guaranteed by the caller.
    let found = unsafe { handle::chain(info.p_next) }
        .find(|s| s.s_type == vk::StructureType::DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO);
    match found {
        Some(s) => {
            // SAFETY: the structure type names the structure; valid usage: its bindingCount
            // is 0 or the layout's, with that many flags.
            unsafe {
                let f = &*(s as *const vk::BaseInStructure
                    as *const vk::DescriptorSetLayoutBindingFlagsCreateInfo);
                handle::slice(f.p_binding_flags, f.binding_count)
            }
        }
        None => &[],
    }
}

/// Lays out bindings (`flags` is empty or holds one entry per binding); fails for descriptor
/// types agx4 does not support yet.
///
/// Valid usage: each binding's pImmutableSamplers is null or holds descriptorCount live
/// samplers of this driver.
///
/// # Safety
/// Each binding's `p_immutable_samplers`, when the binding takes samplers and it is not null,
/// must point to `descriptor_count` handles, each `VK_NULL_HANDLE` or a live sampler made by
/// this driver, not destroyed during the call. The bindings of a descriptor set layout create
/// info are such (Vulkan valid usage).
pub unsafe fn build(
    bindings: &[vk::DescriptorSetLayoutBinding<'_>],
    flags: &[vk::DescriptorBindingFlags],
) -> Result<SetLayoutInfo, vk::Result> {
    let mut sorted: Vec<_> = bindings
        .iter()
        .enumerate()
        .filter(|(_, b)| b.descriptor_count > 0)
        .map(|(i, b)| (b, flags.get(i).copied().unwrap_or_default()))
        .collect();
    sorted.sort_by_key(|(b, _)| b.binding);
    let mut info = SetLayoutInfo::default();
    let last = sorted.len().saturating_sub(1);
    for (i, (b, flags)) in sorted.into_iter().enumerate() {
        if i != last && flags.contains(vk::DescriptorBindingFlags::VARIABLE_DESCRIPTOR_COUNT) {
            // Valid usage: only the highest binding may have a variable count.
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        if !is_supported(b.descriptor_type) {
            eprintln!(
                "agx4: descriptor type {:?} is not supported yet",
                b.descriptor_type
            );
            return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
        }
        let dynamic_index = is_dynamic(b.descriptor_type).then(|| {
            let i = info.dynamic_count;
            info.dynamic_count += b.descriptor_count;
            i
        });
        let stride = stride(b.descriptor_type);
        let bytes = b
            .descriptor_count
            .checked_mul(stride)
            .ok_or(vk::Result::ERROR_OUT_OF_HOST_MEMORY)?;
        let inline = b.descriptor_type == vk::DescriptorType::INLINE_UNIFORM_BLOCK;
        if inline && !b.descriptor_count.is_multiple_of(4) {
            // Valid usage: the size is a multiple of 4.
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        let align = if stride.is_multiple_of(16) || inline {
            16
        } else {
            8
        };
        let mut offset = info.size.next_multiple_of(align);
        if inline {
            // The data follows its buffer descriptor, 16-byte aligned as uniform buffers are.
            offset += compiler::abi::BUFFER_DESCRIPTOR_SIZE;
        }
        let takes_samplers = matches!(
            b.descriptor_type,
            vk::DescriptorType::SAMPLER | vk::DescriptorType::COMBINED_IMAGE_SAMPLER
        );
        let immutable = if takes_samplers && !b.p_immutable_samplers.is_null() {
            // SAFETY: guaranteed by the caller: pImmutableSamplers holds descriptorCount samplers.
            let handles = unsafe { handle::slice(b.p_immutable_samplers, b.descriptor_count) };
            handles
                .iter()
                .map(|&h| {
                    // SAFETY: guaranteed by the caller: each of `pImmutableSamplers` is null or a
                    // live sampler made by this driver.
                    let s = unsafe { Sampler::from_handle(h) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
                    Ok(ImmutableSampler {
                        entry: s.set_entry(),
                        _heap_entry: s.entry.clone(),
                    })
                })
                .collect::<Result<Vec<_>, vk::Result>>()?
        } else {
            Vec::new()
        };
        info.bindings.push(LayoutBinding {
            binding: b.binding,
            ty: b.descriptor_type,
            count: b.descriptor_count,
            offset,
            stride,
            dynamic_index,
            immutable,
            flags,
        });
        info.size = offset
            .checked_add(bytes)
            .ok_or(vk::Result::ERROR_OUT_OF_HOST_MEMORY)?;
    }
    Ok(info)
}

pub unsafe extern "system" fn create_descriptor_set_layout(
    device: vk::Device,
    p_create_info: *const vk::DescriptorSetLayoutCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_layout: *mut vk::DescriptorSetLayout,
) -> vk::Result {
    guard("vkCreateDescriptorSetLayout", || {
        // SAFETY: `device` is vkCreateDescriptorSetLayout's device parameter, which valid usage
        // requires to be a live device made by this driver.
        unsafe { Device::get(device) }?;
        // SAFETY: valid usage: pCreateInfo is valid with binding_count bindings.
        let bindings =
            unsafe { handle::slice((*p_create_info).p_bindings, (*p_create_info).binding_count) };
        // SAFETY: as above, with a valid pNext chain.
        let flags = unsafe { binding_flags(&*p_create_info) };
        // SAFETY: `bindings` are those of vkCreateDescriptorSetLayout's create info, whose
        // pImmutableSamplers valid usage requires to be null or to hold descriptorCount live
        // samplers made by this driver.
        let info = unsafe { build(bindings, flags) }?;
        let layout = DescriptorSetLayout {
            info: Arc::new(info),
        };
        // SAFETY: valid usage: pAllocator is null or valid allocation callbacks.
        let handle =
            unsafe { layout.into_handle_in(p_allocator, vk::SystemAllocationScope::OBJECT) }?;
        // SAFETY: valid usage: pSetLayout is writable.
        unsafe { *p_layout = handle };
        Ok(())
    })
}

/// Whether `bindings` keep to the limits the device reports: MAX_PER_SET_DESCRIPTORS
/// descriptors (an inline uniform block counting as one), MAX_INLINE_UNIFORM_BLOCKS inline
/// uniform blocks of at most MAX_INLINE_UNIFORM_BLOCK_SIZE bytes each.
fn within_limits(bindings: &[vk::DescriptorSetLayoutBinding<'_>]) -> bool {
    let mut descriptors = 0u64;
    let mut blocks = 0u32;
    for b in bindings {
        if b.descriptor_type == vk::DescriptorType::INLINE_UNIFORM_BLOCK {
            if b.descriptor_count > MAX_INLINE_UNIFORM_BLOCK_SIZE {
                return false;
            }
            blocks += 1;
            descriptors += 1;
        } else {
            descriptors += u64::from(b.descriptor_count);
        }
    }
    descriptors <= u64::from(MAX_PER_SET_DESCRIPTORS) && blocks <= MAX_INLINE_UNIFORM_BLOCKS
}

/// The largest count a set may give the variable-count binding of `bindings` within the limits
/// the device reports (0 without one): an inline uniform block's size limit, or what
/// MAX_PER_SET_DESCRIPTORS leaves after the other bindings. It is worked out from the create
/// info, not the built layout, so that the binding's own descriptorCount (even 0, which
/// `build` leaves out) does not change it.
fn max_variable_count(
    bindings: &[vk::DescriptorSetLayoutBinding<'_>],
    flags: &[vk::DescriptorBindingFlags],
) -> u32 {
    let Some(v) = flags
        .iter()
        .take(bindings.len())
        .position(|f| f.contains(vk::DescriptorBindingFlags::VARIABLE_DESCRIPTOR_COUNT))
    else {
        return 0;
    };
    if bindings[v].descriptor_type == vk::DescriptorType::INLINE_UNIFORM_BLOCK {
        return MAX_INLINE_UNIFORM_BLOCK_SIZE;
    }
    let others: u64 = bindings
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != v)
        .map(|(_, b)| {
            if b.descriptor_type == vk::DescriptorType::INLINE_UNIFORM_BLOCK {
                1
            } else {
                u64::from(b.descriptor_count)
            }
        })
        .sum();
    u64::from(MAX_PER_SET_DESCRIPTORS).saturating_sub(others) as u32
}

/// Supported: a layout `build` accepts within the limits the device reports.
pub unsafe extern "system" fn get_descriptor_set_layout_support(
    device: vk::Device,
    p_create_info: *const vk::DescriptorSetLayoutCreateInfo<'_>,
    p_support: *mut vk::DescriptorSetLayoutSupport<'_>,
) {
    guard_or("vkGetDescriptorSetLayoutSupport", (), || {
        // SAFETY: `device` is vkGetDescriptorSetLayoutSupport's device parameter, which valid usage
        // requires to be a live device made by this driver.
        let _ = unsafe { Device::get(device) };
        // SAFETY: valid usage: pCreateInfo is valid with binding_count bindings.
        let bindings =
            unsafe { handle::slice((*p_create_info).p_bindings, (*p_create_info).binding_count) };
        // SAFETY: as above, with a valid pNext chain.
        let flags = unsafe { binding_flags(&*p_create_info) };
        // SAFETY: `bindings` are those of vkGetDescriptorSetLayoutSupport's create info, whose
        // pImmutableSamplers valid usage requires to be null or to hold descriptorCount live
        // samplers made by this driver.
        let built = unsafe { build(bindings, flags) }
            .ok()
            .filter(|_| within_limits(bindings));
        let variable_max = if built.is_some() {
            max_variable_count(bindings, flags)
        } else {
            0
        };
        // SAFETY: valid usage: pSupport is writable, with a valid pNext chain.
        unsafe {
            (*p_support).supported = built.is_some().into();
            for s in handle::chain_mut((*p_support).p_next) {
                if (*s).s_type
                    == vk::StructureType::DESCRIPTOR_SET_VARIABLE_DESCRIPTOR_COUNT_LAYOUT_SUPPORT
                {
                    (*s.cast::<vk::DescriptorSetVariableDescriptorCountLayoutSupport<'_>>())
                        .max_variable_descriptor_count = variable_max;
                }
            }
        }
    })
}

pub unsafe extern "system" fn destroy_descriptor_set_layout(
    _device: vk::Device,
    layout: vk::DescriptorSetLayout,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard_or("vkDestroyDescriptorSetLayout", (), || {
        // SAFETY: Vulkan valid usage: `descriptorSetLayout` is VK_NULL_HANDLE or a live layout
        // made by this driver, and this destroy command is its last use.
        drop(unsafe { DescriptorSetLayout::take(layout) })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(
        binding: u32,
        ty: vk::DescriptorType,
        count: u32,
    ) -> vk::DescriptorSetLayoutBinding<'static> {
        vk::DescriptorSetLayoutBinding::default()
            .binding(binding)
            .descriptor_type(ty)
            .descriptor_count(count)
    }

    #[test]
    fn bindings_are_packed_in_binding_order() {
        // SAFETY: these bindings are made here with `default()`: none has immutable samplers,
        // so `build` dereferences no handle.
        let info = unsafe {
            build(
                &[
                    b(3, vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC, 2),
                    b(0, vk::DescriptorType::STORAGE_BUFFER, 1),
                    b(1, vk::DescriptorType::STORAGE_BUFFER_DYNAMIC, 1),
                    b(2, vk::DescriptorType::UNIFORM_BUFFER, 0),
                ],
                &[],
            )
        }
        .unwrap();
        let offsets: Vec<_> = info
            .bindings
            .iter()
            .map(|b| (b.binding, b.offset, b.dynamic_index))
            .collect();
        assert_eq!(
            offsets,
            vec![(0, 0, None), (1, 16, Some(0)), (3, 32, Some(1))]
        );
        assert_eq!((info.size, info.dynamic_count), (64, 3));
        // Element 2 after binding 0 is binding 3, element 0 (binding 2 is empty).
        let (at, e) = info.locate(0, 2).unwrap();
        assert_eq!((at.binding, e), (3, 0));
        assert!(info.locate(3, 2).is_none());
        assert!(
            // SAFETY: these bindings are made here with `default()`: none has immutable
            // samplers, so `build` dereferences no handle.
            unsafe { build(&[b(0, vk::DescriptorType::INLINE_UNIFORM_BLOCK, 6)], &[]) }.is_err()
        );
    }

    #[test]
    fn image_and_sampler_descriptors_use_the_abi_sizes_and_alignments() {
        // SAFETY: these bindings are made here with `default()`: none has immutable samplers,
        // so `build` dereferences no handle.
        let info = unsafe {
            build(
                &[
                    b(0, vk::DescriptorType::SAMPLER, 3),
                    b(1, vk::DescriptorType::UNIFORM_BUFFER, 1),
                    b(2, vk::DescriptorType::SAMPLER, 1),
                    b(3, vk::DescriptorType::COMBINED_IMAGE_SAMPLER, 2),
                    b(4, vk::DescriptorType::SAMPLER, 1),
                    b(5, vk::DescriptorType::SAMPLED_IMAGE, 4),
                    b(6, vk::DescriptorType::STORAGE_IMAGE, 2),
                ],
                &[],
            )
        }
        .unwrap();
        let layout: Vec<_> = info
            .bindings
            .iter()
            .map(|b| (b.binding, b.offset, b.stride))
            .collect();
        // Samplers are 8 bytes on 8; buffers 16 on 16; images 32 on 16.
        assert_eq!(
            layout,
            vec![
                (0, 0, 8),
                (1, 32, 16),
                (2, 48, 8),
                (3, 64, 32),
                (4, 128, 8),
                (5, 144, 32),
                (6, 272, 48)
            ]
        );
        assert_eq!(info.size, 272 + 2 * 48);
        assert_eq!(info.bindings[3].element_offset(1), 96);
        assert_eq!(info.bindings[3].sampler_entry_offset(), Some(24));
        assert_eq!(info.bindings[0].sampler_entry_offset(), Some(0));
        assert_eq!(info.bindings[5].sampler_entry_offset(), None);
        let c = info.to_compiler();
        let kinds: Vec<_> = c.bindings.iter().map(|b| (b.kind, b.offset)).collect();
        use compiler::DescriptorKind as K;
        assert_eq!(
            kinds,
            vec![
                (K::Sampler, 0),
                (K::UniformBuffer, 32),
                (K::Sampler, 48),
                (K::CombinedImageSampler, 64),
                (K::Sampler, 128),
                (K::SampledImage, 144),
                (K::StorageImage, 272)
            ]
        );
        for b in &info.bindings {
            assert!(b.offset.is_multiple_of(8));
        }
    }

    #[test]
    fn a_variable_count_binding_is_sized_per_set() {
        use vk::DescriptorType as T;
        let bindings = [b(0, T::STORAGE_BUFFER, 1), b(1, T::SAMPLED_IMAGE, 10)];
        let variable = [
            vk::DescriptorBindingFlags::empty(),
            vk::DescriptorBindingFlags::VARIABLE_DESCRIPTOR_COUNT,
        ];
        // SAFETY: these bindings are made here with `default()`: none has immutable samplers,
        // so `build` dereferences no handle.
        let info = unsafe { build(&bindings, &variable) }.unwrap();
        assert_eq!(info.size, 16 + 10 * 32);
        assert_eq!(info.variable_binding().map(|b| b.binding), Some(1));
        let set = info.with_variable_count(3);
        assert_eq!((set.size, set.bindings[1].count), (16 + 3 * 32, 3));
        assert!(set.locate(1, 2).is_some() && set.locate(1, 3).is_none());
        // The layout's other bindings and the compiler's view do not change.
        assert_eq!(set.bindings[0].offset, info.bindings[0].offset);
        assert_eq!(info.to_compiler().bindings[1].count, 10);
        assert_eq!(
            max_variable_count(&bindings, &variable),
            MAX_PER_SET_DESCRIPTORS - 1
        );
        // The variable binding's own count, even 0, does not change the answer.
        let zero = [b(0, T::STORAGE_BUFFER, 1), b(1, T::SAMPLED_IMAGE, 0)];
        assert_eq!(
            max_variable_count(&zero, &variable),
            MAX_PER_SET_DESCRIPTORS - 1
        );
        // A layout without one keeps its size; only the highest binding may be variable.
        // SAFETY: these bindings are made here with `default()`: none has immutable samplers,
        // so `build` dereferences no handle.
        let fixed = unsafe { build(&bindings, &[]) }.unwrap();
        assert!(fixed.variable_binding().is_none());
        assert_eq!(fixed.with_variable_count(3).size, fixed.size);
        assert_eq!(max_variable_count(&bindings, &[]), 0);
        let flipped = [variable[1], variable[0]];
        // SAFETY: these bindings are made here with `default()`: none has immutable samplers,
        // so `build` dereferences no handle.
        assert!(unsafe { build(&bindings, &flipped) }.is_err());
    }

    #[test]
    fn input_attachments_take_no_set_memory_and_are_hidden_from_the_compiler() {
        // SAFETY: these bindings are made here with `default()`: none has immutable samplers,
        // so `build` dereferences no handle.
        let info = unsafe {
            build(
                &[
                    b(0, vk::DescriptorType::INPUT_ATTACHMENT, 2),
                    b(1, vk::DescriptorType::STORAGE_BUFFER, 1),
                ],
                &[],
            )
        }
        .unwrap();
        let offsets: Vec<_> = info
            .bindings
            .iter()
            .map(|b| (b.binding, b.offset))
            .collect();
        assert_eq!(offsets, vec![(0, 0), (1, 0)]);
        assert_eq!(info.size, 16);
        let c = info.to_compiler();
        assert_eq!(c.bindings.len(), 1);
        assert_eq!((c.bindings[0].binding, c.bindings[0].offset), (1, 0));
    }

    #[test]
    fn inline_uniform_blocks_hold_a_descriptor_then_their_bytes() {
        use vk::DescriptorType as T;
        // SAFETY: these bindings are made here with `default()`: none has immutable samplers,
        // so `build` dereferences no handle.
        let info = unsafe {
            build(
                &[
                    b(0, T::SAMPLER, 1),
                    b(1, T::INLINE_UNIFORM_BLOCK, 20),
                    b(2, T::INLINE_UNIFORM_BLOCK, 8),
                    b(3, T::STORAGE_BUFFER, 1),
                ],
                &[],
            )
        }
        .unwrap();
        let layout: Vec<_> = info
            .bindings
            .iter()
            .map(|b| (b.binding, b.offset, b.stride, b.inline_header_offset()))
            .collect();
        // Sampler 0..8; header 16..32, data 32..52; header 64..80, data 80..88; buffer 96.
        assert_eq!(
            layout,
            vec![
                (0, 0, 8, None),
                (1, 32, 1, Some(16)),
                (2, 80, 1, Some(64)),
                (3, 96, 16, None)
            ]
        );
        assert_eq!(info.size, 112);
        // A byte offset past binding 1 runs on into binding 2.
        let (at, e) = info.locate(1, 22).unwrap();
        assert_eq!((at.binding, e), (2, 2));
        // The compiler sees a uniform buffer descriptor at the header.
        let c = info.to_compiler();
        let seen: Vec<_> = c
            .bindings
            .iter()
            .map(|b| (b.binding, b.kind, b.count, b.offset))
            .collect();
        use compiler::DescriptorKind as K;
        assert_eq!(
            seen,
            vec![
                (0, K::Sampler, 1, 0),
                (1, K::UniformBuffer, 1, 16),
                (2, K::UniformBuffer, 1, 64),
                (3, K::StorageBuffer, 1, 96)
            ]
        );
        let big = [b(
            0,
            T::INLINE_UNIFORM_BLOCK,
            MAX_INLINE_UNIFORM_BLOCK_SIZE + 4,
        )];
        assert!(!within_limits(&big));
        assert!(within_limits(&[b(0, T::INLINE_UNIFORM_BLOCK, 256)]));
    }
}
