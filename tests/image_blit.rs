//! vkCmdBlitImage, vkCmdResolveImage and vkCmdClearDepthStencilImage through the loader,
//! under the validation layer. Expectations are computed here on the CPU from Vulkan's rules
//! (texel-centre mapping of blit regions, nearest = floor, linear = bilinear with
//! clamp-to-edge, conversion through linear float, sRGB transfer functions; resolve =
//! average of samples; clears = the value in every texel of the named subresources), never
//! from the driver's own code. Pixels outside each destination region must keep their bytes.

mod common;

use ash::vk;
use common::{assert_no_validation_messages, Ctx};
use hw::g13::layout::{Layout, Tiling, Usage};

fn host_visible_type(ctx: &Ctx) -> u32 {
    // SAFETY: valid physical device.
    let props = unsafe { ctx.instance.get_physical_device_memory_properties(ctx.pdev) };
    let want = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
    (0..props.memory_type_count)
        .find(|&i| props.memory_types[i as usize].property_flags.contains(want))
        .unwrap()
}

struct Mapped {
    memory: vk::DeviceMemory,
    ptr: *mut u8,
    size: usize,
}

impl Mapped {
    fn new(ctx: &Ctx, dev: &ash::Device, size: u64) -> Mapped {
        // SAFETY: valid device and allocate info.
        unsafe {
            let memory = dev
                .allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(size)
                        .memory_type_index(host_visible_type(ctx)),
                    None,
                )
                .unwrap();
            let ptr = dev
                .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .unwrap() as *mut u8;
            Mapped {
                memory,
                ptr,
                size: size as usize,
            }
        }
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: the mapping covers `size` bytes until the memory is freed.
        unsafe { std::slice::from_raw_parts(self.ptr, self.size) }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `bytes`; no GPU work runs while the test writes.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.size) }
    }
}

struct Buf {
    buffer: vk::Buffer,
    mem: Mapped,
}

fn buffer(ctx: &Ctx, dev: &ash::Device, size: u64) -> Buf {
    let usage = vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST;
    // SAFETY: valid device and create info.
    unsafe {
        let buffer = dev
            .create_buffer(
                &vk::BufferCreateInfo::default().size(size).usage(usage),
                None,
            )
            .unwrap();
        let req = dev.get_buffer_memory_requirements(buffer);
        let mem = Mapped::new(ctx, dev, req.size);
        dev.bind_buffer_memory(buffer, mem.memory, 0).unwrap();
        Buf { buffer, mem }
    }
}

struct Img {
    image: vk::Image,
    mem: Mapped,
    format: vk::Format,
    w: u32,
    h: u32,
    levels: u32,
    layers: u32,
    aspect: vk::ImageAspectFlags,
}

/// An optimal-tiling 2D image of (width, height, levels, layers) with host-visible memory.
fn image(
    ctx: &Ctx,
    dev: &ash::Device,
    format: vk::Format,
    (w, h, levels, layers): (u32, u32, u32, u32),
    samples: vk::SampleCountFlags,
    usage: vk::ImageUsageFlags,
) -> Img {
    let info = vk::ImageCreateInfo::default()
        .image_type(vk::ImageType::TYPE_2D)
        .format(format)
        .extent(vk::Extent3D {
            width: w,
            height: h,
            depth: 1,
        })
        .mip_levels(levels)
        .array_layers(layers)
        .samples(samples)
        .tiling(vk::ImageTiling::OPTIMAL)
        .usage(usage | vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST);
    // SAFETY: valid device and create info.
    unsafe {
        let image = dev
            .create_image(&info, None)
            .unwrap_or_else(|e| panic!("vkCreateImage {format:?} {samples:?}: {e:?}"));
        let req = dev.get_image_memory_requirements(image);
        let mut mem = Mapped::new(ctx, dev, req.size);
        mem.bytes_mut().fill(0x5a);
        dev.bind_image_memory(image, mem.memory, 0).unwrap();
        let aspect = match format {
            vk::Format::D16_UNORM | vk::Format::D32_SFLOAT => vk::ImageAspectFlags::DEPTH,
            vk::Format::S8_UINT => vk::ImageAspectFlags::STENCIL,
            vk::Format::D32_SFLOAT_S8_UINT => {
                vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL
            }
            _ => vk::ImageAspectFlags::COLOR,
        };
        Img {
            image,
            mem,
            format,
            w,
            h,
            levels,
            layers,
            aspect,
        }
    }
}

fn minify(v: u32, l: u32) -> u32 {
    (v >> l).max(1)
}

fn sub(
    aspect: vk::ImageAspectFlags,
    level: u32,
    base: u32,
    count: u32,
) -> vk::ImageSubresourceLayers {
    vk::ImageSubresourceLayers {
        aspect_mask: aspect,
        mip_level: level,
        base_array_layer: base,
        layer_count: count,
    }
}

struct Gpu<'a> {
    ctx: &'a Ctx,
    dev: &'a ash::Device,
    queue: vk::Queue,
    pool: vk::CommandPool,
}

fn barrier(dev: &ash::Device, cb: vk::CommandBuffer) {
    let b = vk::MemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
        .dst_access_mask(vk::AccessFlags::TRANSFER_READ | vk::AccessFlags::TRANSFER_WRITE);
    // SAFETY: valid command buffer in recording.
    unsafe {
        dev.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::TRANSFER,
            vk::DependencyFlags::empty(),
            &[b],
            &[],
            &[],
        )
    };
}

impl<'a> Gpu<'a> {
    fn new(ctx: &'a Ctx, dev: &'a ash::Device, queue: vk::Queue) -> Gpu<'a> {
        // SAFETY: valid device.
        let pool = unsafe {
            dev.create_command_pool(
                &vk::CommandPoolCreateInfo::default().queue_family_index(0),
                None,
            )
        }
        .unwrap();
        Gpu {
            ctx,
            dev,
            queue,
            pool,
        }
    }

    fn run(&self, f: impl FnOnce(vk::CommandBuffer)) {
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: valid handles; the GPU is idle when the command buffer is freed.
        unsafe {
            let cb = self.dev.allocate_command_buffers(&info).unwrap()[0];
            self.dev
                .begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            f(cb);
            self.dev.end_command_buffer(cb).unwrap();
            let fence = self
                .dev
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .unwrap();
            let cbs = [cb];
            self.dev
                .queue_submit(
                    self.queue,
                    &[vk::SubmitInfo::default().command_buffers(&cbs)],
                    fence,
                )
                .unwrap();
            self.dev
                .wait_for_fences(&[fence], true, 60_000_000_000)
                .expect("the submission completes");
            self.dev.destroy_fence(fence, None);
            self.dev.free_command_buffers(self.pool, &cbs);
        }
    }

    /// UNDEFINED -> TRANSFER_DST_OPTIMAL for every subresource.
    fn to_dst(&self, img: &Img) {
        self.transition(
            img,
            vk::ImageLayout::UNDEFINED,
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
        );
    }

    /// TRANSFER_DST_OPTIMAL -> TRANSFER_SRC_OPTIMAL for every subresource.
    fn to_src(&self, img: &Img) {
        self.transition(
            img,
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
        );
    }

    fn transition(&self, img: &Img, old: vk::ImageLayout, new: vk::ImageLayout) {
        self.run(|cb| {
            let b = vk::ImageMemoryBarrier::default()
                .image(img.image)
                .old_layout(old)
                .new_layout(new)
                .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE | vk::AccessFlags::TRANSFER_READ)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .subresource_range(vk::ImageSubresourceRange {
                    aspect_mask: img.aspect,
                    base_mip_level: 0,
                    level_count: img.levels,
                    base_array_layer: 0,
                    layer_count: img.layers,
                });
            // SAFETY: valid command buffer in recording.
            unsafe {
                self.dev.cmd_pipeline_barrier(
                    cb,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[],
                    &[b],
                )
            };
        });
    }

    /// Tightly packed bytes of every (level, layer) of one aspect, in that order.
    fn regions(
        img: &Img,
        aspect: vk::ImageAspectFlags,
        bpp: u32,
    ) -> (Vec<vk::BufferImageCopy>, u64) {
        let mut regions = Vec::new();
        let mut at = 0u64;
        for level in 0..img.levels {
            let (w, h) = (minify(img.w, level), minify(img.h, level));
            regions.push(vk::BufferImageCopy {
                buffer_offset: at,
                buffer_row_length: 0,
                buffer_image_height: 0,
                image_subresource: sub(aspect, level, 0, img.layers),
                image_offset: vk::Offset3D::default(),
                image_extent: vk::Extent3D {
                    width: w,
                    height: h,
                    depth: 1,
                },
            });
            at = (at + u64::from(w * h * bpp * img.layers)).next_multiple_of(16);
        }
        (regions, at)
    }

    fn upload(&self, img: &Img, bpp: u32, data: &[u8]) {
        let (regions, size) = Self::regions(img, img.aspect, bpp);
        assert_eq!(size as usize, data.len());
        let mut b = buffer(self.ctx, self.dev, size);
        b.mem.bytes_mut()[..data.len()].copy_from_slice(data);
        // SAFETY: valid command buffer and handles.
        self.run(|cb| unsafe {
            self.dev.cmd_copy_buffer_to_image(
                cb,
                b.buffer,
                img.image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &regions,
            )
        });
        self.free(b);
    }

    fn download(&self, img: &Img, aspect: vk::ImageAspectFlags, bpp: u32) -> Vec<u8> {
        let (regions, size) = Self::regions(img, aspect, bpp);
        let b = buffer(self.ctx, self.dev, size);
        // SAFETY: valid command buffer and handles.
        self.run(|cb| unsafe {
            self.dev.cmd_copy_image_to_buffer(
                cb,
                img.image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                b.buffer,
                &regions,
            )
        });
        let out = b.mem.bytes()[..size as usize].to_vec();
        self.free(b);
        out
    }

    fn free(&self, b: Buf) {
        // SAFETY: the GPU is idle.
        unsafe {
            self.dev.destroy_buffer(b.buffer, None);
            self.dev.free_memory(b.mem.memory, None);
        }
    }

    fn free_image(&self, i: Img) {
        // SAFETY: the GPU is idle.
        unsafe {
            self.dev.destroy_image(i.image, None);
            self.dev.free_memory(i.mem.memory, None);
        }
    }
}

impl Drop for Gpu<'_> {
    fn drop(&mut self) {
        // SAFETY: the GPU is idle.
        unsafe { self.dev.destroy_command_pool(self.pool, None) };
    }
}

// ---- Texel formats, on the CPU ----

fn f16_to_f32(h: u16) -> f32 {
    let s = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = i32::from((h >> 10) & 0x1f);
    let m = f32::from(h & 0x3ff);
    match e {
        0 => s * m * 2f32.powi(-24),
        31 => s * f32::INFINITY,
        _ => s * (1.0 + m / 1024.0) * 2f32.powi(e - 15),
    }
}

/// Exact for the values the test uses (normal f16 values and zero).
fn f32_to_f16(v: f32) -> u16 {
    if v == 0.0 {
        return 0;
    }
    let b = v.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let e = ((b >> 23) & 0xff) as i32 - 127 + 15;
    assert!((1..31).contains(&e), "{v} is not a normal f16");
    let m = (b >> 13) & 0x3ff;
    assert_eq!(b & 0x1fff, 0, "{v} is not exact in f16");
    sign | ((e as u16) << 10) | m as u16
}

fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

fn linear_to_srgb(c: f32) -> f32 {
    if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

fn bpp(f: vk::Format) -> u32 {
    match f {
        vk::Format::R8G8B8A8_UNORM
        | vk::Format::B8G8R8A8_SRGB
        | vk::Format::R32_SFLOAT
        | vk::Format::R8G8B8A8_UINT => 4,
        vk::Format::R16G16B16A16_SFLOAT => 8,
        f => panic!("{f:?}"),
    }
}

/// The RGBA a shader reads from one texel.
fn decode(f: vk::Format, b: &[u8]) -> [f32; 4] {
    match f {
        vk::Format::R8G8B8A8_UNORM => std::array::from_fn(|i| f32::from(b[i]) / 255.0),
        vk::Format::B8G8R8A8_SRGB => {
            let c = |i: usize| srgb_to_linear(f32::from(b[i]) / 255.0);
            [c(2), c(1), c(0), f32::from(b[3]) / 255.0]
        }
        vk::Format::R16G16B16A16_SFLOAT => {
            std::array::from_fn(|i| f16_to_f32(u16::from_le_bytes([b[2 * i], b[2 * i + 1]])))
        }
        vk::Format::R32_SFLOAT => [f32::from_le_bytes([b[0], b[1], b[2], b[3]]), 0.0, 0.0, 1.0],
        f => panic!("{f:?}"),
    }
}

/// Whether the stored texel `got` is `want` (linear RGBA) within `tol` (in the format's
/// own units: code values for 8-bit formats, absolute for floats).
fn matches(f: vk::Format, got: &[u8], want: [f32; 4], tol: f32) -> bool {
    let unorm = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round();
    match f {
        vk::Format::R8G8B8A8_UNORM => {
            (0..4).all(|i| (f32::from(got[i]) - unorm(want[i])).abs() <= tol)
        }
        vk::Format::B8G8R8A8_SRGB => {
            let enc = [
                linear_to_srgb(want[2].clamp(0.0, 1.0)),
                linear_to_srgb(want[1].clamp(0.0, 1.0)),
                linear_to_srgb(want[0].clamp(0.0, 1.0)),
                want[3],
            ];
            (0..4).all(|i| (f32::from(got[i]) - unorm(enc[i])).abs() <= tol)
        }
        vk::Format::R16G16B16A16_SFLOAT => {
            let g = decode(f, got);
            (0..4).all(|i| (g[i] - want[i]).abs() <= tol / 256.0 * want[i].abs().max(1.0))
        }
        vk::Format::R32_SFLOAT => {
            (decode(f, got)[0] - want[0]).abs() <= tol / 4096.0 * want[0].abs().max(1.0)
        }
        f => panic!("{f:?}"),
    }
}

/// Bytes of a source texel at (level, layer, x, y), distinct and exactly representable.
fn source_texel(f: vk::Format, level: u32, layer: u32, x: u32, y: u32) -> Vec<u8> {
    let k = |c: u32| (x * 37 + y * 101 + c * 53 + layer * 17 + level * 71) % 256;
    match f {
        vk::Format::R8G8B8A8_UNORM | vk::Format::B8G8R8A8_SRGB => {
            (0..4).map(|c| k(c) as u8).collect()
        }
        vk::Format::R16G16B16A16_SFLOAT => (0..4)
            .flat_map(|c| f32_to_f16(k(c) as f32 / 64.0).to_le_bytes())
            .collect(),
        vk::Format::R32_SFLOAT => ((k(0) as f32 - 100.0) / 7.0).to_le_bytes().to_vec(),
        f => panic!("{f:?}"),
    }
}

fn fill_source(img: &Img) -> Vec<u8> {
    let b = bpp(img.format);
    let mut d = vec![0u8; Gpu::regions(img, img.aspect, b).1 as usize];
    for level in 0..img.levels {
        for layer in 0..img.layers {
            for y in 0..minify(img.h, level) {
                for x in 0..minify(img.w, level) {
                    let at = packed_offset(img, b, level, layer, x, y);
                    d[at..at + b as usize]
                        .copy_from_slice(&source_texel(img.format, level, layer, x, y));
                }
            }
        }
    }
    d
}

/// Offset of texel (level, layer, x, y) in tightly packed level-major data.
fn packed_offset(img: &Img, bpp: u32, level: u32, layer: u32, x: u32, y: u32) -> usize {
    let mut at = 0;
    for l in 0..level {
        at = (at + minify(img.w, l) * minify(img.h, l) * bpp * img.layers).next_multiple_of(16);
    }
    let (w, h) = (minify(img.w, level), minify(img.h, level));
    (at + ((layer * h + y) * w + x) * bpp) as usize
}

/// Vulkan's blit sample of the source level (texels `src`, w x h) at texel coordinate
/// (u, v): nearest takes floor, linear a bilinear mix of the four nearest centres, both
/// clamped to the edge.
fn sample(
    src: &dyn Fn(u32, u32) -> [f32; 4],
    w: u32,
    h: u32,
    u: f32,
    v: f32,
    linear: bool,
) -> [f32; 4] {
    let clamp = |i: i64, n: u32| i.clamp(0, i64::from(n) - 1) as u32;
    if !linear {
        return src(clamp(u.floor() as i64, w), clamp(v.floor() as i64, h));
    }
    let (u, v) = (u - 0.5, v - 0.5);
    let (i0, j0) = (u.floor() as i64, v.floor() as i64);
    let (a, b) = (u - u.floor(), v - v.floor());
    let t = |i: i64, j: i64| src(clamp(i, w), clamp(j, h));
    let (t00, t10, t01, t11) = (t(i0, j0), t(i0 + 1, j0), t(i0, j0 + 1), t(i0 + 1, j0 + 1));
    std::array::from_fn(|c| {
        (1.0 - a) * (1.0 - b) * t00[c]
            + a * (1.0 - b) * t10[c]
            + (1.0 - a) * b * t01[c]
            + a * b * t11[c]
    })
}

struct BlitCase {
    src: vk::Format,
    src_size: (u32, u32, u32, u32),
    dst: vk::Format,
    dst_size: (u32, u32, u32, u32),
    src_level: u32,
    dst_level: u32,
    src_layer: u32,
    dst_layer: u32,
    layers: u32,
    src_box: [(i32, i32); 2],
    dst_box: [(i32, i32); 2],
    linear: bool,
}

fn run_blit(gpu: &Gpu, c: &BlitCase) -> Result<(), String> {
    let (sw, sh, sl, sy) = c.src_size;
    let (dw, dh, dl, dy) = c.dst_size;
    let src = image(
        gpu.ctx,
        gpu.dev,
        c.src,
        (sw, sh, sl, sy),
        vk::SampleCountFlags::TYPE_1,
        vk::ImageUsageFlags::empty(),
    );
    let dst = image(
        gpu.ctx,
        gpu.dev,
        c.dst,
        (dw, dh, dl, dy),
        vk::SampleCountFlags::TYPE_1,
        vk::ImageUsageFlags::empty(),
    );
    gpu.to_dst(&src);
    gpu.to_dst(&dst);
    let src_data = fill_source(&src);
    gpu.upload(&src, bpp(c.src), &src_data);
    gpu.to_src(&src);
    let before = vec![0xc3u8; Gpu::regions(&dst, dst.aspect, bpp(c.dst)).1 as usize];
    gpu.upload(&dst, bpp(c.dst), &before);
    let off = |(x, y): (i32, i32)| vk::Offset3D { x, y, z: 0 };
    let mut region = vk::ImageBlit {
        src_subresource: sub(
            vk::ImageAspectFlags::COLOR,
            c.src_level,
            c.src_layer,
            c.layers,
        ),
        src_offsets: [off(c.src_box[0]), off(c.src_box[1])],
        dst_subresource: sub(
            vk::ImageAspectFlags::COLOR,
            c.dst_level,
            c.dst_layer,
            c.layers,
        ),
        dst_offsets: [off(c.dst_box[0]), off(c.dst_box[1])],
    };
    region.src_offsets[1].z = 1;
    region.dst_offsets[1].z = 1;
    let filter = if c.linear {
        vk::Filter::LINEAR
    } else {
        vk::Filter::NEAREST
    };
    gpu.run(|cb| {
        // SAFETY: valid command buffer and handles.
        unsafe {
            gpu.dev.cmd_blit_image(
                cb,
                src.image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                dst.image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &[region],
                filter,
            )
        };
    });
    gpu.to_src(&dst);
    let got = gpu.download(&dst, vk::ImageAspectFlags::COLOR, bpp(c.dst));

    let (sbpp, dbpp) = (bpp(c.src), bpp(c.dst));
    let (slw, slh) = (minify(sw, c.src_level), minify(sh, c.src_level));
    let [(sx0, sy0), (sx1, sy1)] = c.src_box;
    let [(dx0, dy0), (dx1, dy1)] = c.dst_box;
    let tol = if c.linear { 2.0 } else { 1.0 };
    let mut bad = Vec::new();
    for level in 0..dl {
        for layer in 0..dy {
            for y in 0..minify(dh, level) {
                for x in 0..minify(dw, level) {
                    let at = packed_offset(&dst, dbpp, level, layer, x, y);
                    let texel = &got[at..at + dbpp as usize];
                    let (xi, yi) = (x as i32, y as i32);
                    let inside = level == c.dst_level
                        && (c.dst_layer..c.dst_layer + c.layers).contains(&layer)
                        && xi >= dx0.min(dx1)
                        && xi < dx0.max(dx1)
                        && yi >= dy0.min(dy1)
                        && yi < dy0.max(dy1);
                    if !inside {
                        if texel.iter().any(|&b| b != 0xc3) {
                            bad.push(format!("level {level} layer {layer} ({x}, {y}) outside the region changed to {texel:?}"));
                        }
                        continue;
                    }
                    // Texel-centre mapping, flips included.
                    let u = sx0 as f32
                        + (x as f32 + 0.5 - dx0 as f32) * (sx1 - sx0) as f32 / (dx1 - dx0) as f32;
                    let v = sy0 as f32
                        + (y as f32 + 0.5 - dy0 as f32) * (sy1 - sy0) as f32 / (dy1 - dy0) as f32;
                    let slayer = c.src_layer + layer - c.dst_layer;
                    let fetch = |tx: u32, ty: u32| {
                        let at = packed_offset(&src, sbpp, c.src_level, slayer, tx, ty);
                        decode(c.src, &src_data[at..at + sbpp as usize])
                    };
                    let want = sample(&fetch, slw, slh, u, v, c.linear);
                    // A nearest sample exactly on a texel edge may go either way: Vulkan
                    // lets the coordinate carry subtexel rounding error.
                    let near = |t: f32| {
                        if !c.linear && (t - t.round()).abs() < 1e-3 {
                            vec![t.round() - 0.5, t.round() + 0.5]
                        } else {
                            vec![t]
                        }
                    };
                    let ok = near(u).into_iter().any(|u| {
                        near(v).into_iter().any(|v| {
                            matches(c.dst, texel, sample(&fetch, slw, slh, u, v, c.linear), tol)
                        })
                    });
                    if !ok {
                        bad.push(format!("level {level} layer {layer} ({x}, {y}): got {texel:?} = {:?}, want {want:?} (u {u}, v {v})", decode(c.dst, texel)));
                    }
                }
            }
        }
    }
    gpu.free_image(src);
    gpu.free_image(dst);
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} -> {} ({}): {} bad texels, first: {}",
            fmt(c.src),
            fmt(c.dst),
            if c.linear { "linear" } else { "nearest" },
            bad.len(),
            bad[..bad.len().min(6)].join("\n  ")
        ))
    }
}

fn fmt(f: vk::Format) -> String {
    format!("{f:?}")
}

fn case(
    src: vk::Format,
    dst: vk::Format,
    src_box: [(i32, i32); 2],
    dst_box: [(i32, i32); 2],
    linear: bool,
) -> BlitCase {
    BlitCase {
        src,
        src_size: (8, 8, 1, 1),
        dst,
        dst_size: (16, 12, 1, 1),
        src_level: 0,
        dst_level: 0,
        src_layer: 0,
        dst_layer: 0,
        layers: 1,
        src_box,
        dst_box,
        linear,
    }
}

#[test]
fn blits_scale_flip_filter_and_convert() {
    use vk::Format as F;
    let ctx = Ctx::new();
    let (dev, queue) = ctx.device();
    let gpu = Gpu::new(&ctx, &dev, queue);
    let cases = [
        // Upscale in x with an x flip, same format.
        case(
            F::R8G8B8A8_UNORM,
            F::R8G8B8A8_UNORM,
            [(0, 0), (8, 8)],
            [(14, 1), (2, 11)],
            false,
        ),
        // Downscale with a y flip, to sRGB.
        case(
            F::R8G8B8A8_UNORM,
            F::B8G8R8A8_SRGB,
            [(1, 1), (7, 7)],
            [(0, 6), (3, 0)],
            false,
        ),
        // Linear 2x minification from sRGB to half floats.
        case(
            F::B8G8R8A8_SRGB,
            F::R16G16B16A16_SFLOAT,
            [(0, 0), (8, 8)],
            [(1, 1), (5, 5)],
            true,
        ),
        // Linear magnification of half floats into one float channel.
        case(
            F::R16G16B16A16_SFLOAT,
            F::R32_SFLOAT,
            [(0, 0), (4, 4)],
            [(0, 0), (10, 10)],
            true,
        ),
        // A flipped source box, float to UNORM.
        case(
            F::R32_SFLOAT,
            F::R8G8B8A8_UNORM,
            [(8, 8), (0, 0)],
            [(3, 2), (13, 9)],
            false,
        ),
        // Linear with a non-integer scale and both flips, UNORM to sRGB.
        case(
            F::R8G8B8A8_UNORM,
            F::B8G8R8A8_SRGB,
            [(7, 0), (0, 5)],
            [(2, 11), (15, 0)],
            true,
        ),
        // Levels and array layers: level 1 of layers 1, 2 into level 1 of layers 0, 1.
        BlitCase {
            src_size: (16, 16, 2, 3),
            dst_size: (16, 8, 2, 2),
            src_level: 1,
            dst_level: 1,
            src_layer: 1,
            layers: 2,
            ..case(
                F::R8G8B8A8_UNORM,
                F::R16G16B16A16_SFLOAT,
                [(0, 0), (8, 8)],
                [(1, 0), (7, 4)],
                true,
            )
        },
    ];
    let errors: Vec<String> = cases
        .iter()
        .filter_map(|c| run_blit(&gpu, c).err())
        .collect();
    assert!(
        errors.is_empty(),
        "{} of {} blits wrong:\n{}",
        errors.len(),
        cases.len(),
        errors.join("\n")
    );
    drop(gpu);
    // SAFETY: idle device.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

/// 4x multisampled RGBA8 UNORM and RGBA8 UINT images, each sample written on the host where
/// `hw`'s layout model (Mesa ail's rules) puts it, resolved into single-sampled images.
#[test]
fn resolve_averages_float_samples_and_takes_sample_zero_of_integers() {
    let ctx = Ctx::new();
    let (dev, queue) = ctx.device();
    let gpu = Gpu::new(&ctx, &dev, queue);
    let (w, h) = (8u32, 6u32);
    let mut errors = Vec::new();
    for format in [vk::Format::R8G8B8A8_UNORM, vk::Format::R8G8B8A8_UINT] {
        let mut ms = image(
            &ctx,
            &dev,
            format,
            (w, h, 1, 1),
            vk::SampleCountFlags::TYPE_4,
            vk::ImageUsageFlags::COLOR_ATTACHMENT,
        );
        let usage = Usage {
            renderable: true,
            ..Usage::default()
        };
        let layout = Layout::with_usage(w, h, 1, 1, 4, Tiling::Twiddled, 4, usage).unwrap();
        let texel = |x: u32, y: u32, s: u32| -> [u8; 4] {
            std::array::from_fn(|c| ((x * 29 + y * 13 + c as u32 * 41 + s * 67) % 256) as u8)
        };
        for y in 0..h {
            for x in 0..w {
                for s in 0..4 {
                    let at = layout.offset_of(x, y, 0, 0, s).unwrap() as usize;
                    ms.mem.bytes_mut()[at..at + 4].copy_from_slice(&texel(x, y, s));
                }
            }
        }
        let one = image(
            &ctx,
            &dev,
            format,
            (w, h, 1, 1),
            vk::SampleCountFlags::TYPE_1,
            vk::ImageUsageFlags::empty(),
        );
        gpu.to_dst(&one);
        gpu.upload(&one, 4, &vec![0xc3; (w * h * 4) as usize]);
        let region = vk::ImageResolve {
            src_subresource: sub(vk::ImageAspectFlags::COLOR, 0, 0, 1),
            src_offset: vk::Offset3D { x: 1, y: 0, z: 0 },
            dst_subresource: sub(vk::ImageAspectFlags::COLOR, 0, 0, 1),
            dst_offset: vk::Offset3D { x: 2, y: 1, z: 0 },
            extent: vk::Extent3D {
                width: 5,
                height: 4,
                depth: 1,
            },
        };
        gpu.run(|cb| {
            let b = vk::ImageMemoryBarrier::default()
                .image(ms.image)
                .old_layout(vk::ImageLayout::UNDEFINED)
                .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .subresource_range(vk::ImageSubresourceRange {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
                    base_mip_level: 0,
                    level_count: 1,
                    base_array_layer: 0,
                    layer_count: 1,
                });
            // SAFETY: valid command buffer and handles. The host wrote the samples before
            // submission; the UNDEFINED transition keeps them (agx4 has no layout changes).
            unsafe {
                gpu.dev.cmd_pipeline_barrier(
                    cb,
                    vk::PipelineStageFlags::HOST,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[],
                    &[b],
                );
                gpu.dev.cmd_resolve_image(
                    cb,
                    ms.image,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    one.image,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &[region],
                );
            }
        });
        gpu.to_src(&one);
        let got = gpu.download(&one, vk::ImageAspectFlags::COLOR, 4);
        for y in 0..h {
            for x in 0..w {
                let at = ((y * w + x) * 4) as usize;
                let g = &got[at..at + 4];
                let inside = (2..7).contains(&x) && (1..5).contains(&y);
                let want: Vec<u8> = if !inside {
                    vec![0xc3; 4]
                } else if format == vk::Format::R8G8B8A8_UINT {
                    texel(x - 1, y - 1, 0).to_vec()
                } else {
                    (0..4)
                        .map(|c| {
                            ((0..4)
                                .map(|s| f32::from(texel(x - 1, y - 1, s)[c]) / 255.0)
                                .sum::<f32>()
                                / 4.0
                                * 255.0)
                                .round() as u8
                        })
                        .collect()
                };
                let close = g
                    .iter()
                    .zip(&want)
                    .all(|(a, b)| (i32::from(*a) - i32::from(*b)).abs() <= 1);
                if !close {
                    errors.push(format!("{format:?} ({x}, {y}): got {g:?}, want {want:?}"));
                }
            }
        }
        gpu.free_image(ms);
        gpu.free_image(one);
    }
    assert!(
        errors.is_empty(),
        "{} wrong texels, first:\n{}",
        errors.len(),
        errors[..errors.len().min(8)].join("\n")
    );
    drop(gpu);
    // SAFETY: idle device.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

/// Clears a subrange (level 1, layers 1..3) of a 3-layer, 3-level image, reads every level and
/// layer back and checks the cleared texels and that the others kept their bytes.
fn clear_case(
    gpu: &Gpu,
    format: vk::Format,
    aspect: vk::ImageAspectFlags,
    value: vk::ClearDepthStencilValue,
) -> Result<(), String> {
    let (w, h, levels, layers) = (9u32, 7u32, 3u32, 3u32);
    let img = image(
        gpu.ctx,
        gpu.dev,
        format,
        (w, h, levels, layers),
        vk::SampleCountFlags::TYPE_1,
        vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
    );
    gpu.to_dst(&img);
    let planes: Vec<(vk::ImageAspectFlags, u32)> = [
        (
            vk::ImageAspectFlags::DEPTH,
            if format == vk::Format::D16_UNORM {
                2
            } else {
                4
            },
        ),
        (vk::ImageAspectFlags::STENCIL, 1),
    ]
    .into_iter()
    .filter(|(a, _)| img.aspect.contains(*a))
    .collect();
    // Known bytes everywhere first: a clear of everything to a different value.
    let everything = vk::ImageSubresourceRange {
        aspect_mask: img.aspect,
        base_mip_level: 0,
        level_count: levels,
        base_array_layer: 0,
        layer_count: layers,
    };
    let first = vk::ClearDepthStencilValue {
        depth: 0.25,
        stencil: 0x3c,
    };
    let range = vk::ImageSubresourceRange {
        aspect_mask: aspect,
        base_mip_level: 1,
        level_count: 1,
        base_array_layer: 1,
        layer_count: vk::REMAINING_ARRAY_LAYERS,
    };
    gpu.run(|cb| {
        // SAFETY: valid command buffer and handles.
        unsafe {
            gpu.dev.cmd_clear_depth_stencil_image(
                cb,
                img.image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &first,
                &[everything],
            );
            barrier(gpu.dev, cb);
            gpu.dev.cmd_clear_depth_stencil_image(
                cb,
                img.image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &value,
                &[range],
            );
        }
    });
    gpu.to_src(&img);
    let mut bad = Vec::new();
    for (plane, bpp) in planes {
        let got = gpu.download(&img, plane, bpp);
        let encode = |v: &vk::ClearDepthStencilValue| -> Vec<u8> {
            match (plane, format) {
                (vk::ImageAspectFlags::STENCIL, _) => vec![v.stencil as u8],
                (_, vk::Format::D16_UNORM) => {
                    ((v.depth * 65535.0).round() as u16).to_le_bytes().to_vec()
                }
                _ => v.depth.to_le_bytes().to_vec(),
            }
        };
        for level in 0..levels {
            for layer in 0..layers {
                for y in 0..minify(h, level) {
                    for x in 0..minify(w, level) {
                        let at = packed_offset(&img, bpp, level, layer, x, y);
                        let g = &got[at..at + bpp as usize];
                        let hit = aspect.contains(plane) && level == 1 && layer >= 1;
                        let want = encode(if hit { &value } else { &first });
                        if g != want.as_slice() {
                            bad.push(format!("{plane:?} level {level} layer {layer} ({x}, {y}): got {g:?}, want {want:?}"));
                        }
                    }
                }
            }
        }
    }
    gpu.free_image(img);
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{format:?} clear of {aspect:?}: {} bad texels, first:\n  {}",
            bad.len(),
            bad[..bad.len().min(6)].join("\n  ")
        ))
    }
}

#[test]
fn depth_stencil_clears_of_subranges() {
    let ctx = Ctx::new();
    let (dev, queue) = ctx.device();
    let gpu = Gpu::new(&ctx, &dev, queue);
    let v = vk::ClearDepthStencilValue {
        depth: 0.7,
        stencil: 0xa5,
    };
    let (d, s) = (vk::ImageAspectFlags::DEPTH, vk::ImageAspectFlags::STENCIL);
    let cases = [
        (vk::Format::D16_UNORM, d),
        (vk::Format::D32_SFLOAT, d),
        (vk::Format::S8_UINT, s),
        (vk::Format::D32_SFLOAT_S8_UINT, d | s),
        (vk::Format::D32_SFLOAT_S8_UINT, s),
        (vk::Format::D32_SFLOAT_S8_UINT, d),
    ];
    let errors: Vec<String> = cases
        .iter()
        .filter_map(|&(f, a)| clear_case(&gpu, f, a, v).err())
        .collect();
    assert!(
        errors.is_empty(),
        "{} of {} clears wrong:\n{}",
        errors.len(),
        cases.len(),
        errors.join("\n")
    );
    drop(gpu);
    // SAFETY: idle device.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

/// Blits read linear-tiling sources (BLIT_SRC of linear tiling): texels written through the
/// host mapping at vkGetImageSubresourceLayout's row pitch, blitted 1:1 and scaled 2x
/// (nearest) into an optimal image, read back with vkCmdCopyImageToBuffer.
#[test]
fn blits_read_linear_images() {
    let ctx = Ctx::new();
    let (dev, queue) = ctx.device();
    let gpu = Gpu::new(&ctx, &dev, queue);
    let f = vk::Format::R8G8B8A8_UNORM;
    // SAFETY: valid physical device.
    let props = unsafe {
        ctx.instance
            .get_physical_device_format_properties(ctx.pdev, f)
    };
    assert!(props
        .linear_tiling_features
        .contains(vk::FormatFeatureFlags::BLIT_SRC));
    let (w, h) = (6u32, 5u32);
    let texel = |x: u32, y: u32| [(x * 40) as u8, (y * 50) as u8, (x * y) as u8, 200];
    // SAFETY: valid handles and create infos; the GPU is idle when things are destroyed.
    unsafe {
        let src = dev
            .create_image(
                &vk::ImageCreateInfo::default()
                    .image_type(vk::ImageType::TYPE_2D)
                    .format(f)
                    .extent(vk::Extent3D {
                        width: w,
                        height: h,
                        depth: 1,
                    })
                    .mip_levels(1)
                    .array_layers(1)
                    .samples(vk::SampleCountFlags::TYPE_1)
                    .tiling(vk::ImageTiling::LINEAR)
                    .usage(vk::ImageUsageFlags::TRANSFER_SRC)
                    .initial_layout(vk::ImageLayout::PREINITIALIZED),
                None,
            )
            .unwrap();
        let req = dev.get_image_memory_requirements(src);
        let mut mem = Mapped::new(&ctx, &dev, req.size);
        dev.bind_image_memory(src, mem.memory, 0).unwrap();
        let sub = dev.get_image_subresource_layout(
            src,
            vk::ImageSubresource {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                mip_level: 0,
                array_layer: 0,
            },
        );
        for y in 0..h {
            for x in 0..w {
                let at = (sub.offset + u64::from(y) * sub.row_pitch + u64::from(x) * 4) as usize;
                mem.bytes_mut()[at..at + 4].copy_from_slice(&texel(x, y));
            }
        }
        let dst = image(
            &ctx,
            &dev,
            f,
            (2 * w, 2 * h + h, 1, 1),
            vk::SampleCountFlags::TYPE_1,
            vk::ImageUsageFlags::empty(),
        );
        gpu.to_dst(&dst);
        let out = buffer(&ctx, &dev, u64::from(2 * w * 3 * h * 4));
        let layers = vk::ImageSubresourceLayers {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            mip_level: 0,
            base_array_layer: 0,
            layer_count: 1,
        };
        let off = |x: u32, y: u32| vk::Offset3D {
            x: x as i32,
            y: y as i32,
            z: 1,
        };
        let o0 = vk::Offset3D { x: 0, y: 0, z: 0 };
        gpu.run(|cb| {
            let b = vk::ImageMemoryBarrier::default()
                .image(src)
                .old_layout(vk::ImageLayout::PREINITIALIZED)
                .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
                .src_access_mask(vk::AccessFlags::HOST_WRITE)
                .dst_access_mask(vk::AccessFlags::TRANSFER_READ)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .subresource_range(vk::ImageSubresourceRange {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
                    base_mip_level: 0,
                    level_count: 1,
                    base_array_layer: 0,
                    layer_count: 1,
                });
            dev.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::HOST,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[b],
            );
            let blits = [
                // 1:1 into the top left.
                vk::ImageBlit {
                    src_subresource: layers,
                    src_offsets: [o0, off(w, h)],
                    dst_subresource: layers,
                    dst_offsets: [o0, off(w, h)],
                },
                // 2x in both directions below it.
                vk::ImageBlit {
                    src_subresource: layers,
                    src_offsets: [o0, off(w, h)],
                    dst_subresource: layers,
                    dst_offsets: [
                        vk::Offset3D {
                            x: 0,
                            y: h as i32,
                            z: 0,
                        },
                        off(2 * w, 3 * h),
                    ],
                },
            ];
            dev.cmd_blit_image(
                cb,
                src,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                dst.image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &blits,
                vk::Filter::NEAREST,
            );
        });
        gpu.to_src(&dst);
        gpu.run(|cb| {
            dev.cmd_copy_image_to_buffer(
                cb,
                dst.image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                out.buffer,
                &[vk::BufferImageCopy {
                    buffer_offset: 0,
                    buffer_row_length: 0,
                    buffer_image_height: 0,
                    image_subresource: layers,
                    image_offset: o0,
                    image_extent: vk::Extent3D {
                        width: 2 * w,
                        height: 3 * h,
                        depth: 1,
                    },
                }],
            );
        });
        let got = out.mem.bytes();
        let at = |x: u32, y: u32| &got[((y * 2 * w + x) * 4) as usize..][..4];
        for y in 0..h {
            for x in 0..w {
                assert_eq!(at(x, y), texel(x, y), "1:1 at ({x}, {y})");
            }
        }
        for y in 0..2 * h {
            for x in 0..2 * w {
                assert_eq!(at(x, h + y), texel(x / 2, y / 2), "2x at ({x}, {y})");
            }
        }
        dev.destroy_image(src, None);
        dev.free_memory(mem.memory, None);
        dev.destroy_image(dst.image, None);
        dev.free_memory(dst.mem.memory, None);
        dev.destroy_buffer(out.buffer, None);
        dev.free_memory(out.mem.memory, None);
        drop(gpu);
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}
