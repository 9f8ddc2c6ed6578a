//! VkSampler and the device's sampler heap (docs/render-abi.md section 7).
//!
//! A G13 sampler is an 8-byte hardware descriptor. Shaders reach samplers through one array
//! of them in GPU memory, the *sampler heap*, which every render and compute command names
//! (`sampler_heap`, `sampler_count`; queue.rs fills them). A VkSampler is a reference to one
//! heap entry plus the LOD bias (G13 samplers have no bias field: the shader adds the bias it
//! reads from the set's sampler entry). Samplers with the same hardware descriptor share one
//! refcounted entry, so an application can make any number of identical samplers; running out
//! of distinct entries is VK_ERROR_OUT_OF_DEVICE_MEMORY.
//!
//! Every Vulkan 1.0 sampler state is expressed except anisotropy above 16 (rounded down to 16,
//! the hardware's largest usable factor). Negative minLod clamps to 0 (the hardware's LOD
//! fields are unsigned). Custom border colours (VK_EXT_custom_border_color) set the
//! descriptor's border to `Custom` and put the colour's four raw 32-bit words in the heap's
//! border table (docs/render-abi.md section 7), so no format is needed.
//! Refused (VK_ERROR_OUT_OF_HOST_MEMORY, the least surprising of vkCreateSampler's codes, with
//! the reason on stderr; none of them is advertised): YCbCr conversion, and reduction modes
//! other than the weighted average. MIRROR_CLAMP_TO_EDGE
//! (VK_KHR_sampler_mirror_clamp_to_edge) is the hardware's MirroredClampToEdge wrap.
//! VK_SAMPLER_CREATE_NON_SEAMLESS_CUBE_MAP_BIT_EXT is the descriptor's `Seamful cube maps` bit;
//! other sampler flags are refused.

use crate::bo::Bo;
use crate::entry::{guard, guard_or};
use crate::handle::{self, object, Object};
use ash::vk;
use hw::g13::control::descriptors::BorderColour;
use hw::g13::image_desc::{
    border_from_vk, compare_from_vk, filter_from_vk, mip_filter_from_vk, sampler_descriptor,
    wrap_from_vk, SamplerDesc,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Entries of the sampler heap.
pub const HEAP_ENTRIES: u32 = 1024;

/// Bytes of one heap entry (a G13 sampler descriptor).
pub const HEAP_ENTRY_SIZE: u32 = hw::g13::control::descriptors::Sampler::SIZE as u32;

/// Bytes of one border table entry (cmdbuf.xml `Border`).
pub const BORDER_SIZE: u32 = 16;

/// Samplers with a custom border colour an application may have at once (each may need an
/// entry of its own; the rest of the heap stays for the others).
pub const MAX_CUSTOM_BORDER_SAMPLERS: u32 = HEAP_ENTRIES / 2;

/// What a heap entry holds: the hardware descriptor, then the border table's 16 bytes
/// (zero unless the descriptor's border is `Custom`).
type EntryKey = [u8; 24];

#[derive(Default)]
struct HeapState {
    /// Heap index of each live entry.
    index: HashMap<EntryKey, u16>,
    /// References to each entry (0: free).
    refs: Vec<u32>,
    /// What each entry holds, to find it in `index` when it is freed.
    descs: Vec<EntryKey>,
}

/// The device's sampler heap: GPU memory of [`HEAP_ENTRIES`] sampler descriptors, then the
/// border table of as many 16-byte custom border colours.
pub struct SamplerHeap {
    bo: Bo,
    state: Mutex<HeapState>,
}

impl SamplerHeap {
    pub fn new(bo: Bo) -> SamplerHeap {
        SamplerHeap {
            bo,
            state: Mutex::new(HeapState {
                refs: vec![0; HEAP_ENTRIES as usize],
                descs: vec![[0; 24]; HEAP_ENTRIES as usize],
                ..HeapState::default()
            }),
        }
    }

    /// Bytes the heap's buffer object needs.
    pub const fn bytes() -> u64 {
        HEAP_ENTRIES as u64 * (HEAP_ENTRY_SIZE + BORDER_SIZE) as u64
    }

    /// GPU address of entry 0.
    pub fn va(&self) -> u64 {
        self.bo.va
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HeapState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A reference to the entry holding `desc` and `border` (the border table's words),
    /// written into a free entry if no entry holds them yet.
    pub fn acquire(
        self: &Arc<Self>,
        desc: [u8; 8],
        border: [u32; 4],
    ) -> Result<HeapRef, vk::Result> {
        let mut key = [0u8; 24];
        key[..8].copy_from_slice(&desc);
        for (k, w) in border.iter().enumerate() {
            key[8 + 4 * k..12 + 4 * k].copy_from_slice(&w.to_le_bytes());
        }
        let mut s = self.lock();
        let index = match s.index.get(&key) {
            Some(&i) => i,
            None => {
                let free = s
                    .refs
                    .iter()
                    .position(|&r| r == 0)
                    .ok_or(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)?;
                let i = free as u16;
                self.bo
                    .write(u64::from(i) * u64::from(HEAP_ENTRY_SIZE), &desc)?;
                let border_at = u64::from(HEAP_ENTRIES) * u64::from(HEAP_ENTRY_SIZE)
                    + u64::from(i) * u64::from(BORDER_SIZE);
                self.bo.write(border_at, &key[8..])?;
                s.index.insert(key, i);
                s.descs[free] = key;
                i
            }
        };
        s.refs[index as usize] += 1;
        Ok(HeapRef {
            heap: self.clone(),
            index,
        })
    }

    fn release(&self, index: u16) {
        let mut s = self.lock();
        let i = index as usize;
        if s.refs[i] == 0 {
            return;
        }
        s.refs[i] -= 1;
        if s.refs[i] == 0 {
            // The entry's bytes stay as they were: a GPU job still running may read them, and
            // the entry is only reused for a descriptor a later sampler brings.
            let desc = s.descs[i];
            s.index.remove(&desc);
        }
    }
}

/// One reference to a sampler heap entry; dropping it releases the entry.
pub struct HeapRef {
    heap: Arc<SamplerHeap>,
    pub index: u16,
}

impl std::fmt::Debug for HeapRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HeapRef({})", self.index)
    }
}

impl Clone for HeapRef {
    fn clone(&self) -> HeapRef {
        self.heap.lock().refs[self.index as usize] += 1;
        HeapRef {
            heap: self.heap.clone(),
            index: self.index,
        }
    }
}

impl Drop for HeapRef {
    fn drop(&mut self) {
        self.heap.release(self.index);
    }
}

/// A sampler: its heap entry and LOD bias.
pub struct Sampler {
    pub entry: HeapRef,
    pub lod_bias: f32,
    /// The hardware descriptor in the heap entry.
    #[allow(dead_code)]
    pub descriptor: [u8; 8],
}
object!(Sampler, vk::Sampler);

impl Sampler {
    /// The 8-byte sampler entry set memory holds: u16 heap index, f16 LOD bias, zeros.
    pub fn set_entry(&self) -> [u8; 8] {
        set_entry(self.entry.index, self.lod_bias)
    }
}

/// A set's sampler entry for heap entry `index` with `lod_bias`.
pub fn set_entry(index: u16, lod_bias: f32) -> [u8; 8] {
    let mut e = [0u8; 8];
    e[0..2].copy_from_slice(&index.to_le_bytes());
    let at = compiler::abi::SAMPLER_ENTRY_LOD_BIAS_OFFSET as usize;
    e[at..at + 2].copy_from_slice(&crate::format::f32_to_f16(lod_bias).to_le_bytes());
    e
}

/// The hardware sampler state `info` asks for and its border table words (zero unless the
/// border is custom), or why agx4 cannot express it.
pub fn describe(info: &vk::SamplerCreateInfo<'_>) -> Result<(SamplerDesc, [u32; 4]), String> {
    let mut custom = None;
    let mut mapping = None;
    // SAFETY: valid usage: the pNext chain is valid.
    for s in unsafe { handle::chain(info.p_next) } {
        match s.s_type {
            vk::StructureType::SAMPLER_REDUCTION_MODE_CREATE_INFO => {
                // SAFETY: the sType says which structure this is.
                let r = unsafe {
                    &*(s as *const vk::BaseInStructure<'_>
                        as *const vk::SamplerReductionModeCreateInfo<'_>)
                };
                if r.reduction_mode != vk::SamplerReductionMode::WEIGHTED_AVERAGE {
                    return Err(format!("reduction mode {:?}", r.reduction_mode));
                }
            }
            vk::StructureType::SAMPLER_YCBCR_CONVERSION_INFO => {
                return Err("YCbCr conversion".into())
            }
            vk::StructureType::SAMPLER_CUSTOM_BORDER_COLOR_CREATE_INFO_EXT => {
                // SAFETY: the sType says which structure this is.
                let c = unsafe {
                    &*(s as *const vk::BaseInStructure<'_>
                        as *const vk::SamplerCustomBorderColorCreateInfoEXT<'_>)
                };
                // SAFETY: every member of VkClearColorValue is four 32-bit words; the raw
                // words are what the border table holds, whatever the format.
                custom = Some(unsafe { c.custom_border_color.uint32 });
            }
            vk::StructureType::SAMPLER_BORDER_COLOR_COMPONENT_MAPPING_CREATE_INFO_EXT => {
                // SAFETY: the sType says which structure this is.
                let m = unsafe {
                    &*(s as *const vk::BaseInStructure<'_>
                        as *const vk::SamplerBorderColorComponentMappingCreateInfoEXT<'_>)
                };
                mapping = Some(m.components);
            }
            _ => {}
        }
    }
    let non_seamless = vk::SamplerCreateFlags::NON_SEAMLESS_CUBE_MAP_EXT;
    if !(info.flags & !non_seamless).is_empty() {
        return Err(format!("flags {:?}", info.flags));
    }
    let filter = |f: vk::Filter| filter_from_vk(f.as_raw()).ok_or(format!("filter {f:?}"));
    let wrap =
        |m: vk::SamplerAddressMode| wrap_from_vk(m.as_raw()).ok_or(format!("address mode {m:?}"));
    let compare = if info.compare_enable != vk::FALSE {
        Some(
            compare_from_vk(info.compare_op.as_raw())
                .ok_or(format!("compare op {:?}", info.compare_op))?,
        )
    } else {
        None
    };
    let (border, words) = match info.border_color {
        vk::BorderColor::FLOAT_CUSTOM_EXT | vk::BorderColor::INT_CUSTOM_EXT => {
            let words = custom
                .ok_or("a custom border colour without VkSamplerCustomBorderColorCreateInfoEXT")?;
            let int = info.border_color == vk::BorderColor::INT_CUSTOM_EXT;
            (
                BorderColour::Custom,
                match mapping {
                    Some(m) => swizzle_border(words, m, int),
                    None => words,
                },
            )
        }
        b => (
            border_from_vk(b.as_raw()).ok_or(format!("border colour {b:?}"))?,
            [0; 4],
        ),
    };
    let max_anisotropy = if info.anisotropy_enable != vk::FALSE {
        // Rounded up to a power of two, as the hardware field is log2; at most 16.
        (info.max_anisotropy.clamp(1.0, 16.0).ceil() as u32).next_power_of_two()
    } else {
        1
    };
    Ok((
        SamplerDesc {
            mag_filter: filter(info.mag_filter)?,
            min_filter: filter(info.min_filter)?,
            mip_filter: mip_filter_from_vk(info.mipmap_mode.as_raw())
                .ok_or(format!("mipmap mode {:?}", info.mipmap_mode))?,
            wrap: [
                wrap(info.address_mode_u)?,
                wrap(info.address_mode_v)?,
                wrap(info.address_mode_w)?,
            ],
            compare,
            min_lod: info.min_lod,
            max_lod: info.max_lod,
            max_anisotropy,
            border,
            unnormalized_coordinates: info.unnormalized_coordinates != vk::FALSE,
            // Vulkan's cube maps are seamless unless VK_EXT_non_seamless_cube_map's flag asks
            // for each face to be filtered on its own, which is the hardware's seamful mode.
            seamful_cube_maps: info.flags.contains(non_seamless),
        },
        words,
    ))
}

/// A custom border's words as the view with component mapping `m` shows them
/// (VK_EXT_border_color_swizzle). The texture unit puts the border table's words where the
/// view's swizzle reads them, so a border comes out as stored; the view's swizzle reaches it
/// only through the mapping the application repeats here. `int` says whether ONE is the
/// integer 1 or the float 1.0.
fn swizzle_border(words: [u32; 4], m: vk::ComponentMapping, int: bool) -> [u32; 4] {
    let one = if int { 1 } else { 1.0f32.to_bits() };
    let pick = |c: vk::ComponentSwizzle, own: usize| match c {
        vk::ComponentSwizzle::IDENTITY => words[own],
        vk::ComponentSwizzle::R => words[0],
        vk::ComponentSwizzle::G => words[1],
        vk::ComponentSwizzle::B => words[2],
        vk::ComponentSwizzle::A => words[3],
        vk::ComponentSwizzle::ONE => one,
        // ZERO (and any value outside the enum, which valid usage excludes).
        _ => 0,
    };
    [pick(m.r, 0), pick(m.g, 1), pick(m.b, 2), pick(m.a, 3)]
}

pub unsafe extern "system" fn create_sampler(
    device: vk::Device,
    p_create_info: *const vk::SamplerCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_sampler: *mut vk::Sampler,
) -> vk::Result {
    guard("vkCreateSampler", || {
        // SAFETY: `device` is vkCreateSampler's device parameter, which valid usage requires to be
        // a live device made by this driver.
        let dev = unsafe { crate::device::Device::get(device) }?;
        // SAFETY: valid usage: pCreateInfo points to a valid structure.
        let info = unsafe { &*p_create_info };
        let (desc, border) = describe(info).map_err(|why| {
            eprintln!(
                "agx4: vkCreateSampler: {why} is not supported; returning VK_ERROR_OUT_OF_HOST_MEMORY"
            );
            vk::Result::ERROR_OUT_OF_HOST_MEMORY
        })?;
        let descriptor = sampler_descriptor(&desc);
        let entry = dev.samplers()?.acquire(descriptor, border)?;
        let sampler = Sampler {
            entry,
            // The bias range is maxSamplerLodBias's.
            lod_bias: info.mip_lod_bias.clamp(-15.0, 15.0),
            descriptor,
        };
        // SAFETY: valid usage: pAllocator is null or valid allocation callbacks.
        let handle =
            unsafe { sampler.into_handle_in(p_allocator, vk::SystemAllocationScope::OBJECT) }?;
        // SAFETY: valid usage: pSampler is writable.
        unsafe { *p_sampler = handle };
        Ok(())
    })
}

pub unsafe extern "system" fn destroy_sampler(
    _device: vk::Device,
    sampler: vk::Sampler,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard_or("vkDestroySampler", (), || {
        // SAFETY: Vulkan valid usage: `sampler` is VK_NULL_HANDLE or a live sampler made by this
        // driver, and this destroy command is its last use.
        drop(unsafe { Sampler::take(sampler) })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use hw::g13::control::descriptors::{
        BorderColour, CompareFunc, Filter, MipFilter, Sampler as HwSampler, Wrap,
    };

    #[test]
    fn every_vulkan_1_0_state_is_described() {
        let info = vk::SamplerCreateInfo::default()
            .mag_filter(vk::Filter::LINEAR)
            .min_filter(vk::Filter::NEAREST)
            .mipmap_mode(vk::SamplerMipmapMode::LINEAR)
            .address_mode_u(vk::SamplerAddressMode::REPEAT)
            .address_mode_v(vk::SamplerAddressMode::MIRRORED_REPEAT)
            .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_BORDER)
            .compare_enable(true)
            .compare_op(vk::CompareOp::GREATER_OR_EQUAL)
            .min_lod(1.5)
            .max_lod(vk::LOD_CLAMP_NONE)
            .anisotropy_enable(true)
            .max_anisotropy(3.0)
            .border_color(vk::BorderColor::INT_OPAQUE_WHITE);
        let (d, _) = describe(&info).unwrap();
        assert_eq!(d.max_anisotropy, 4);
        let hw = HwSampler::unpack(&sampler_descriptor(&d)).unwrap();
        assert_eq!((hw.magnify, hw.minify), (Filter::Linear, Filter::Nearest));
        assert_eq!(hw.mip_filter, MipFilter::Linear);
        assert_eq!(
            hw.wrap,
            [Wrap::Repeat, Wrap::MirroredRepeat, Wrap::ClampToBorder]
        );
        assert!(hw.compare_enable);
        assert_eq!(hw.compare_func, CompareFunc::Gequal);
        assert_eq!(hw.border_colour, BorderColour::OpaqueWhite);
        // 4.6 fixed point; LOD_CLAMP_NONE clamps to the largest level the field holds.
        assert_eq!((hw.min_lod, hw.max_lod), (96, 14 * 64));
        assert!(!hw.pixel_coordinates && !hw.seamful_cube_maps);

        let (d, _) = describe(&info.anisotropy_enable(true).max_anisotropy(64.0)).unwrap();
        assert_eq!(d.max_anisotropy, 16);
        let (d, _) = describe(&info.anisotropy_enable(false).max_anisotropy(8.0)).unwrap();
        assert_eq!(d.max_anisotropy, 1);
        let (u, _) = describe(
            &vk::SamplerCreateInfo::default()
                .unnormalized_coordinates(true)
                .border_color(vk::BorderColor::FLOAT_OPAQUE_BLACK),
        )
        .unwrap();
        assert!(u.unnormalized_coordinates);
        assert_eq!(u.border, BorderColour::OpaqueBlack);
    }

    #[test]
    fn inexpressible_states_are_refused() {
        let base = vk::SamplerCreateInfo::default();
        // A custom border needs its colour.
        assert!(describe(&base.border_color(vk::BorderColor::FLOAT_CUSTOM_EXT)).is_err());
        let mut colour = vk::SamplerCustomBorderColorCreateInfoEXT::default().custom_border_color(
            vk::ClearColorValue {
                int32: [-1, 2, -3, 4],
            },
        );
        let (d, words) = describe(
            &base
                .border_color(vk::BorderColor::INT_CUSTOM_EXT)
                .push_next(&mut colour),
        )
        .unwrap();
        assert_eq!(d.border, BorderColour::Custom);
        assert_eq!(words, [u32::MAX, 2, -3i32 as u32, 4]);
        let m = describe(&base.address_mode_v(vk::SamplerAddressMode::MIRROR_CLAMP_TO_EDGE));
        assert_eq!(m.unwrap().0.wrap[1], Wrap::MirroredClampToEdge);
        let mut reduction = vk::SamplerReductionModeCreateInfo::default()
            .reduction_mode(vk::SamplerReductionMode::MIN);
        assert!(describe(&base.push_next(&mut reduction)).is_err());
        let mut avg = vk::SamplerReductionModeCreateInfo::default()
            .reduction_mode(vk::SamplerReductionMode::WEIGHTED_AVERAGE);
        assert!(describe(&base.push_next(&mut avg)).is_ok());
    }

    #[test]
    fn border_component_mappings_swizzle_custom_borders() {
        let mut colour = vk::SamplerCustomBorderColorCreateInfoEXT::default().custom_border_color(
            vk::ClearColorValue {
                float32: [0.25, 0.5, 0.75, 0.125],
            },
        );
        let mut map = vk::SamplerBorderColorComponentMappingCreateInfoEXT::default().components(
            vk::ComponentMapping {
                r: vk::ComponentSwizzle::A,
                g: vk::ComponentSwizzle::IDENTITY,
                b: vk::ComponentSwizzle::ONE,
                a: vk::ComponentSwizzle::ZERO,
            },
        );
        let info = vk::SamplerCreateInfo::default()
            .border_color(vk::BorderColor::FLOAT_CUSTOM_EXT)
            .push_next(&mut colour)
            .push_next(&mut map);
        let (_, words) = describe(&info).unwrap();
        let f = |x: f32| x.to_bits();
        assert_eq!(words, [f(0.125), f(0.5), f(1.0), 0]);
        // Integer borders get an integer one.
        let (_, words) = describe(&info.border_color(vk::BorderColor::INT_CUSTOM_EXT)).unwrap();
        assert_eq!(words[2], 1);
    }

    #[test]
    fn non_seamless_cube_maps_set_the_seamful_bit() {
        let base = vk::SamplerCreateInfo::default();
        let (d, _) = describe(&base).unwrap();
        assert!(
            !HwSampler::unpack(&sampler_descriptor(&d))
                .unwrap()
                .seamful_cube_maps
        );
        let (d, _) =
            describe(&base.flags(vk::SamplerCreateFlags::NON_SEAMLESS_CUBE_MAP_EXT)).unwrap();
        assert!(
            HwSampler::unpack(&sampler_descriptor(&d))
                .unwrap()
                .seamful_cube_maps
        );
        // Other flags (subsampled images, descriptor buffers) stay refused.
        assert!(describe(&base.flags(vk::SamplerCreateFlags::SUBSAMPLED_EXT)).is_err());
    }

    #[test]
    fn set_entries_hold_index_and_half_bias() {
        let e = set_entry(0x123, -1.5);
        assert_eq!(e, [0x23, 0x01, 0x00, 0xbe, 0, 0, 0, 0]);
    }
}
