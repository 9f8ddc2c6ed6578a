//! VK_KHR_push_descriptor: descriptor sets recorded into the command buffer.
//!
//! The command buffer keeps a CPU copy of each pushed set (per bind point and set number),
//! laid out by the set layout like any set. A push applies its writes to the copy (descriptors
//! it does not name keep what earlier pushes with the same layout wrote), uploads the copy
//! into the command buffer's upload memory and binds that address, so draws and dispatches
//! recorded earlier keep the contents they were recorded with.

use super::LiveCommandBuffer;
use super::{record, Recording};
use crate::descriptor_pool::{self, SetMemory};
use crate::descriptor_set_layout::SetLayoutInfo;
use crate::descriptor_update_template::DescriptorUpdateTemplate;
use crate::device::Device;
use crate::handle::{self, Object};
use crate::pipeline_layout::PipelineLayout;
use ash::vk;
use compiler::abi::{MAX_SETS, SET_ALIGNMENT};
use std::cell::RefCell;
use std::sync::Arc;

/// Descriptors a push descriptor set layout may hold (maxPushDescriptors).
pub const MAX_PUSH_DESCRIPTORS: u32 = 32;

/// The CPU copy of a push descriptor set.
pub struct PushSet {
    layout: Arc<SetLayoutInfo>,
    bytes: RefCell<Vec<u8>>,
}

impl SetMemory for PushSet {
    fn layout(&self) -> &SetLayoutInfo {
        &self.layout
    }

    fn put(&self, at: u32, bytes: &[u8]) -> Result<(), vk::Result> {
        let mut b = self.bytes.borrow_mut();
        let at = at as usize;
        b.get_mut(at..at + bytes.len())
            .ok_or(vk::Result::ERROR_UNKNOWN)?
            .copy_from_slice(bytes);
        Ok(())
    }
}

/// Applies `write` to the push set `set` of `bind_point` laid out as `layout`'s set, then
/// uploads and binds it.
///
/// # Safety
/// `layout` must be `VK_NULL_HANDLE` or a live pipeline layout made by this driver, not
/// destroyed during the call. The layout of vkCmdPushDescriptorSetKHR or
/// vkCmdPushDescriptorSetWithTemplateKHR is such a handle (Vulkan valid usage).
unsafe fn push(
    dev: &Device,
    rec: &mut Recording,
    bind_point: vk::PipelineBindPoint,
    layout: vk::PipelineLayout,
    set: u32,
    write: impl FnOnce(&PushSet) -> Result<(), vk::Result>,
) -> Result<(), vk::Result> {
    let graphics = match bind_point {
        vk::PipelineBindPoint::COMPUTE => false,
        vk::PipelineBindPoint::GRAPHICS => true,
        _ => return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT),
    };
    if set >= MAX_SETS {
        return Err(vk::Result::ERROR_UNKNOWN);
    }
    // SAFETY: guaranteed by the caller: `layout` is null or a live pipeline layout made by this
    // driver that outlives the call.
    let set_layout = unsafe { PipelineLayout::from_handle(layout) }
        .and_then(|l| l.set_layouts.get(set as usize).cloned().flatten())
        .ok_or(vk::Result::ERROR_UNKNOWN)?;
    let slot = set as usize + if graphics { MAX_SETS as usize } else { 0 };
    if rec.push_sets.len() <= slot {
        rec.push_sets.resize_with(slot + 1, || None);
    }
    let same = rec.push_sets[slot]
        .as_ref()
        .is_some_and(|p| Arc::ptr_eq(&p.layout, &set_layout));
    if !same {
        // A new layout: nothing pushed before carries over, except immutable samplers,
        // which the set always holds.
        let p = PushSet {
            bytes: RefCell::new(vec![0; set_layout.size as usize]),
            layout: set_layout,
        };
        descriptor_pool::write_immutable_samplers(&p)?;
        rec.push_sets[slot] = Some(p);
    }
    let bytes = {
        let p = rec.push_sets[slot]
            .as_ref()
            .ok_or(vk::Result::ERROR_UNKNOWN)?;
        write(p)?;
        let b = p.bytes.borrow().clone();
        b
    };
    let addr = if bytes.is_empty() {
        0
    } else {
        rec.upload.push(dev, &bytes, u64::from(SET_ALIGNMENT))?
    };
    if graphics {
        rec.bindings_mut().sets[set as usize] = addr;
    } else {
        rec.sets[set as usize] = addr;
    }
    Ok(())
}

pub unsafe extern "system" fn cmd_push_descriptor_set(
    cb: vk::CommandBuffer,
    bind_point: vk::PipelineBindPoint,
    layout: vk::PipelineLayout,
    set: u32,
    write_count: u32,
    p_writes: *const vk::WriteDescriptorSet<'_>,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdPushDescriptorSetKHR", cb, |dev, rec| {
        // SAFETY: valid usage: pDescriptorWrites holds write_count structures.
        let writes = unsafe { handle::slice(p_writes, write_count) };
        // SAFETY: `layout` is vkCmdPushDescriptorSetKHR's layout parameter, which valid usage
        // requires to be a live pipeline layout made by this driver; and valid usage makes
        // each write valid for the pushed set's layout, its handles VK_NULL_HANDLE or live
        // objects made by this driver, as `descriptor_pool::write` requires.
        unsafe {
            push(dev, rec, bind_point, layout, set, |p| {
                writes.iter().try_for_each(|w| descriptor_pool::write(p, w))
            })
        }
    })
}

pub unsafe extern "system" fn cmd_push_descriptor_set_with_template(
    cb: vk::CommandBuffer,
    template: vk::DescriptorUpdateTemplate,
    layout: vk::PipelineLayout,
    set: u32,
    p_data: *const std::ffi::c_void,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdPushDescriptorSetWithTemplateKHR", cb, |dev, rec| {
        // SAFETY: Vulkan valid usage: `descriptorUpdateTemplate` is a live template made by this
        // driver.
        let t = unsafe { DescriptorUpdateTemplate::from_handle(template) }
            .ok_or(vk::Result::ERROR_UNKNOWN)?;
        let (bind_point, _, _) = t.push.ok_or(vk::Result::ERROR_UNKNOWN)?;
        // SAFETY: `layout` is vkCmdPushDescriptorSetWithTemplateKHR's layout parameter, which
        // valid usage requires to be a live pipeline layout made by this driver; valid usage:
        // pData holds every descriptor the template names.
        unsafe {
            push(dev, rec, bind_point, layout, set, |p| {
                t.apply(p, p_data as *const u8)
            })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use hw::g13::image_desc::{null_pbe_descriptor, null_texture_descriptor};

    /// Descriptor writes land where the layout puts them, with the contract's contents: a
    /// push set is plain CPU memory, so the bytes can be read back.
    #[test]
    fn writes_land_at_the_layout_offsets() {
        use vk::DescriptorType as T;
        let b = |binding, ty, count| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(binding)
                .descriptor_type(ty)
                .descriptor_count(count)
        };
        // SAFETY: these bindings are made here with `default()`: none has immutable samplers,
        // so `build` dereferences no handle.
        let layout = unsafe {
            crate::descriptor_set_layout::build(
                &[
                    b(0, T::SAMPLER, 1),
                    b(1, T::SAMPLED_IMAGE, 2),
                    b(2, T::SAMPLED_IMAGE, 1),
                    b(3, T::STORAGE_IMAGE, 1),
                    b(4, T::COMBINED_IMAGE_SAMPLER, 1),
                ],
                &[],
            )
        }
        .unwrap();
        let set = PushSet {
            bytes: RefCell::new(vec![0xaa; layout.size as usize]),
            layout: Arc::new(layout),
        };
        // Null views and samplers: the null descriptors and a zero sampler entry.
        let images = [vk::DescriptorImageInfo::default(); 3];
        let w = |binding, element, ty, n: usize| vk::WriteDescriptorSet {
            dst_binding: binding,
            dst_array_element: element,
            descriptor_count: n as u32,
            descriptor_type: ty,
            p_image_info: images.as_ptr(),
            ..Default::default()
        };
        // SAFETY: each write names `images`, which holds three infos of null handles, and
        // asks for no more than that.
        unsafe {
            // Element 1 of binding 1 runs on into binding 2.
            descriptor_pool::write(&set, &w(1, 1, T::SAMPLED_IMAGE, 2)).unwrap();
            descriptor_pool::write(&set, &w(0, 0, T::SAMPLER, 1)).unwrap();
            descriptor_pool::write(&set, &w(3, 0, T::STORAGE_IMAGE, 1)).unwrap();
            descriptor_pool::write(&set, &w(4, 0, T::COMBINED_IMAGE_SAMPLER, 1)).unwrap();
        }
        let bytes = set.bytes.borrow();
        let tex = null_texture_descriptor();
        // Binding 0: 8 bytes at 0; binding 1 at 16 (32-byte descriptors on 16).
        assert_eq!(&bytes[0..8], &[0; 8]);
        assert_eq!(&bytes[8..16], &[0xaa; 8], "alignment padding is left alone");
        assert_eq!(&bytes[16..48], &[0xaa; 32], "element 0 was not written");
        assert_eq!(&bytes[48..72], &tex);
        assert_eq!(&bytes[72..80], &[0; 8]);
        assert_eq!(&bytes[80..104], &tex, "binding 2");
        assert_eq!(&bytes[112..136], &tex, "storage image texture");
        assert_eq!(
            &bytes[136..160],
            &null_pbe_descriptor(),
            "storage image PBE"
        );
        assert_eq!(&bytes[160..184], &tex, "combined image sampler");
        assert_eq!(&bytes[184..192], &[0; 8], "its sampler entry");
        assert_eq!(bytes.len(), 192);
    }
}
