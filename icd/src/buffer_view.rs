//! VkBufferView: a range of a buffer read (uniform texel buffers) or read and written
//! (storage texel buffers) as an array of formatted texels.
//!
//! A view is a linear 2D texture 1024 texels wide with its element count in the descriptors'
//! software word (docs/render-abi.md section 7.1, `hw::g13::image_desc::buffer`); shaders
//! bounds-check elements against that count. The view keeps its texture descriptor and, when
//! the format is one the PBE writes, its PBE descriptor; descriptor set writes copy them into
//! set memory.
//!
//! Which formats texel buffers take ([`format_features`]) is decided here rather than in
//! format.rs: it follows from the descriptors this file makes.

use crate::buffer::Buffer;
use crate::entry::{guard, guard_or};
use crate::handle::{object, Object};
use crate::image_view::hand_out;
use ash::vk;
use hw::g13::image_desc::buffer::{TexelBufferDesc, MAX_TEXEL_BUFFER_ELEMENTS};
use hw::g13::image_desc::{channels_bytes, pixel_format, PixelFormat};
use std::sync::atomic::Ordering;

/// `minTexelBufferOffsetAlignment`: the descriptors hold addresses in units of 16 bytes.
pub const OFFSET_ALIGNMENT: u64 = 16;

pub struct BufferView {
    /// The texture descriptor (loads, `texelFetch`, size queries).
    pub texture: [u8; 24],
    /// The PBE descriptor, for formats storage texel buffers take.
    pub pbe: Option<[u8; 24]>,
}
object!(BufferView, vk::BufferView);

/// The pixel format of a texel buffer format: one the texture unit reads texel by texel (no
/// block-compressed formats), and not depth or stencil (never buffer formats in Vulkan).
fn texel_format(format: vk::Format) -> Option<PixelFormat> {
    let depth_stencil = (124..=130).contains(&format.as_raw());
    pixel_format(format.as_raw()).filter(|p| !depth_stencil && channels_bytes(p.channels).is_some())
}

/// Formats storage texel buffers take: Vulkan's mandatory storage texel buffer formats plus
/// those of `shaderStorageImageExtendedFormats` whose PBE store the simulator encodes, minus
/// sRGB (never storage formats) and the packed 16-bit formats (not storage formats in
/// Vulkan).
fn storable(format: vk::Format, p: &PixelFormat) -> bool {
    use hw::g13::control::descriptors::Channels as C;
    if p.srgb {
        return false;
    }
    let raw = format.as_raw();
    // A2R10G10B10 (58, 62) is only ever a uniform texel buffer format.
    if (58..=63).contains(&raw) {
        return false;
    }
    matches!(
        p.channels,
        C::R8
            | C::R8G8
            | C::R8G8B8A8
            | C::R16
            | C::R16G16
            | C::R16G16B16A16
            | C::R32
            | C::R32G32
            | C::R32G32B32A32
            | C::R10G10B10A2
            | C::R11G11B10
    ) && !(raw == 44 || (45..=50).contains(&raw))
}

/// The buffer features of `format`: UNIFORM_TEXEL_BUFFER for every format the texture unit
/// reads as a linear texture, STORAGE_TEXEL_BUFFER for those the PBE also writes, and
/// STORAGE_TEXEL_BUFFER_ATOMIC for the 32-bit integer ones (docs/render-abi.md 7.2).
pub fn format_features(format: vk::Format) -> vk::FormatFeatureFlags {
    let Some(p) = texel_format(format) else {
        return vk::FormatFeatureFlags::empty();
    };
    let mut f = vk::FormatFeatureFlags::UNIFORM_TEXEL_BUFFER;
    if storable(format, &p) {
        f |= vk::FormatFeatureFlags::STORAGE_TEXEL_BUFFER;
        if crate::format::storage_atomic(format) {
            f |= vk::FormatFeatureFlags::STORAGE_TEXEL_BUFFER_ATOMIC;
        }
    }
    f
}

/// The view a create info describes, or why it cannot be made.
///
/// # Safety
/// `info.buffer` must be `VK_NULL_HANDLE` or a live buffer made by this driver, not destroyed
/// during the call. vkCreateBufferView's create info is such (Vulkan valid usage).
unsafe fn check(info: &vk::BufferViewCreateInfo<'_>) -> Result<BufferView, String> {
    // SAFETY: guaranteed by the caller: `info.buffer` is null or a live buffer made by this
    // driver that outlives the call.
    let buffer = unsafe { Buffer::from_handle(info.buffer) }.ok_or("a null buffer")?;
    let base = buffer.va.load(Ordering::Acquire);
    if base == 0 {
        return Err("the buffer is not bound to memory".into());
    }
    let format = texel_format(info.format)
        .ok_or_else(|| format!("{:?} is not a texel buffer format", info.format))?;
    // `texel_format` only passes formats with a texel size.
    let texel = u64::from(channels_bytes(format.channels).unwrap_or(1));
    if !info.offset.is_multiple_of(OFFSET_ALIGNMENT) || info.offset >= buffer.size {
        return Err(format!(
            "offset {} in a buffer of {} bytes",
            info.offset, buffer.size
        ));
    }
    let range = if info.range == vk::WHOLE_SIZE {
        // The whole texels up to the end of the buffer.
        (buffer.size - info.offset) / texel * texel
    } else {
        info.range
    };
    if range == 0
        || !range.is_multiple_of(texel)
        || info
            .offset
            .checked_add(range)
            .is_none_or(|end| end > buffer.size)
    {
        return Err(format!(
            "range {} at offset {} of a buffer of {} bytes with {texel}-byte texels",
            info.range, info.offset, buffer.size
        ));
    }
    let elements = range / texel;
    if elements > u64::from(MAX_TEXEL_BUFFER_ELEMENTS) {
        return Err(format!(
            "{elements} elements, more than maxTexelBufferElements"
        ));
    }
    let desc = TexelBufferDesc {
        base: base + info.offset,
        elements: elements as u32,
        format,
    };
    let texture = desc.texture_descriptor().map_err(|e| e.to_string())?;
    let pbe = if storable(info.format, &format) {
        Some(desc.pbe_descriptor().map_err(|e| e.to_string())?)
    } else {
        None
    };
    Ok(BufferView { texture, pbe })
}

pub unsafe extern "system" fn create_buffer_view(
    device: vk::Device,
    p_create_info: *const vk::BufferViewCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_view: *mut vk::BufferView,
) -> vk::Result {
    guard("vkCreateBufferView", || {
        // SAFETY: `device` is vkCreateBufferView's device parameter, which valid usage requires to
        // be a live device made by this driver.
        unsafe { crate::device::Device::get(device) }?;
        // SAFETY: valid usage: pCreateInfo points to a valid structure.
        let info = unsafe { &*p_create_info };
        // SAFETY: valid usage: pAllocator is null or valid allocation callbacks; pView is
        // writable; `info.buffer`, the buffer of vkCreateBufferView's create info, is a live
        // buffer made by this driver.
        unsafe { hand_out("vkCreateBufferView", check(info), p_allocator, p_view) }
    })
}

pub unsafe extern "system" fn destroy_buffer_view(
    _device: vk::Device,
    view: vk::BufferView,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard_or("vkDestroyBufferView", (), || {
        // SAFETY: Vulkan valid usage: `bufferView` is VK_NULL_HANDLE or a live buffer view made
        // by this driver, and this destroy command is its last use.
        drop(unsafe { BufferView::take(view) })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use vk::FormatFeatureFlags as F;

    #[test]
    fn mandatory_buffer_formats() {
        use vk::Format as V;
        let uniform = [
            V::R8_UNORM,
            V::R8_SNORM,
            V::R8_UINT,
            V::R8_SINT,
            V::R8G8_UNORM,
            V::R8G8_SINT,
            V::R8G8B8A8_UNORM,
            V::R8G8B8A8_UINT,
            V::B8G8R8A8_UNORM,
            V::A8B8G8R8_UNORM_PACK32,
            V::A8B8G8R8_SINT_PACK32,
            V::A2B10G10R10_UNORM_PACK32,
            V::A2B10G10R10_UINT_PACK32,
            V::R16_SFLOAT,
            V::R16G16_UINT,
            V::R16G16B16A16_SFLOAT,
            V::R32_UINT,
            V::R32G32_SFLOAT,
            V::R32G32B32A32_SINT,
            V::B10G11R11_UFLOAT_PACK32,
        ];
        for f in uniform {
            assert!(
                format_features(f).contains(F::UNIFORM_TEXEL_BUFFER),
                "{f:?}"
            );
        }
        let storage = [
            V::R8G8B8A8_UNORM,
            V::R8G8B8A8_SNORM,
            V::R8G8B8A8_UINT,
            V::R8G8B8A8_SINT,
            V::A8B8G8R8_UNORM_PACK32,
            V::A8B8G8R8_UINT_PACK32,
            V::R16G16B16A16_UINT,
            V::R16G16B16A16_SINT,
            V::R16G16B16A16_SFLOAT,
            V::R32_UINT,
            V::R32_SINT,
            V::R32_SFLOAT,
            V::R32G32_UINT,
            V::R32G32_SINT,
            V::R32G32_SFLOAT,
            V::R32G32B32A32_UINT,
            V::R32G32B32A32_SINT,
            V::R32G32B32A32_SFLOAT,
        ];
        for f in storage {
            assert!(
                format_features(f).contains(F::STORAGE_TEXEL_BUFFER),
                "{f:?}"
            );
        }
        for f in [
            V::D16_UNORM,
            V::BC1_RGB_UNORM_BLOCK,
            V::R32G32B32_SFLOAT,
            V::UNDEFINED,
        ] {
            assert_eq!(format_features(f), F::empty(), "{f:?}");
        }
        for f in [V::R8G8B8A8_SRGB, V::B8G8R8A8_UNORM, V::R5G6B5_UNORM_PACK16] {
            assert!(
                !format_features(f).contains(F::STORAGE_TEXEL_BUFFER),
                "{f:?}"
            );
        }
    }

    fn view(size: u64, offset: u64, range: u64, format: vk::Format) -> Result<BufferView, String> {
        let buffer = Buffer {
            size,
            va: std::sync::atomic::AtomicU64::new(0x40_0000),
        }
        .into_handle();
        let info = vk::BufferViewCreateInfo::default()
            .buffer(buffer)
            .format(format)
            .offset(offset)
            .range(range);
        // SAFETY: `info.buffer` is the buffer made just above by `into_handle`, destroyed only
        // after this call.
        let v = unsafe { check(&info) };
        // SAFETY: `buffer` was made above by `into_handle` and is not used again.
        drop(unsafe { Buffer::take(buffer) });
        v
    }

    #[test]
    fn ranges_become_element_counts() {
        use hw::g13::image_desc::buffer::element_count;
        let v = view(1000, 16, vk::WHOLE_SIZE, vk::Format::R32G32B32A32_SFLOAT).unwrap();
        // 984 bytes hold 61 whole 16-byte texels.
        assert_eq!(element_count(&v.texture), 61);
        assert_eq!(element_count(&v.pbe.unwrap()), 61);
        let v = view(1000, 32, 12, vk::Format::R8_UNORM).unwrap();
        assert_eq!(element_count(&v.texture), 12);
        assert!(v.pbe.is_some());
        // Uniform-only formats have no PBE descriptor.
        let v = view(64, 0, 64, vk::Format::R8G8B8A8_SRGB).unwrap();
        assert!(v.pbe.is_none());
        assert!(
            view(1000, 8, 4, vk::Format::R32_UINT).is_err(),
            "unaligned offset"
        );
        assert!(
            view(1000, 16, 1000, vk::Format::R32_UINT).is_err(),
            "past the end"
        );
        assert!(
            view(1000, 16, 6, vk::Format::R32_UINT).is_err(),
            "partial texel"
        );
        assert!(
            view(1000, 0, 16, vk::Format::D16_UNORM).is_err(),
            "depth format"
        );
        let big = u64::from(MAX_TEXEL_BUFFER_ELEMENTS) + 1;
        assert!(
            view(big, 0, big, vk::Format::R8_UINT).is_err(),
            "too many elements"
        );
    }
}
