//! Images and their transfer commands through the loader, under the validation layer: uploads
//! with vkCmdCopyBufferToImage, sub-rectangle vkCmdCopyImage, read-back with
//! vkCmdCopyImageToBuffer into differently pitched buffers, and vkCmdClearColorImage, for
//! texels of 1 to 16 bytes, both tilings, mip chains and array layers. Image memory is
//! host-visible, so the bytes the GPU wrote are also checked where `hw`'s layout model (Mesa
//! ail's rules) says they belong.

mod common;

use ash::vk;
use common::{assert_no_validation_messages, Ctx};
use hw::g13::layout::{Layout, Tiling};

fn host_visible_type(ctx: &Ctx) -> u32 {
    // SAFETY: valid physical device.
    let props = unsafe { ctx.instance.get_physical_device_memory_properties(ctx.pdev) };
    let want = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
    (0..props.memory_type_count)
        .find(|&i| props.memory_types[i as usize].property_flags.contains(want))
        .unwrap()
}

/// A memory allocation, mapped.
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
    // SAFETY: valid device and create info; memory bound before use.
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
    layout: Layout,
    w: u32,
    h: u32,
    levels: u32,
    layers: u32,
}

#[derive(Clone, Copy, Debug)]
struct Case {
    format: vk::Format,
    bpp: u32,
    linear: bool,
    w: u32,
    h: u32,
    levels: u32,
    layers: u32,
    one_d: bool,
}

fn image(ctx: &Ctx, dev: &ash::Device, c: &Case) -> Img {
    image_of_blocks(ctx, dev, c, (1, 1))
}

/// As [`image`], for a format of `block` (width, height) texel blocks of `c.bpp` bytes.
fn image_of_blocks(ctx: &Ctx, dev: &ash::Device, c: &Case, block: (u32, u32)) -> Img {
    let tiling = if c.linear {
        vk::ImageTiling::LINEAR
    } else {
        vk::ImageTiling::OPTIMAL
    };
    let info = vk::ImageCreateInfo::default()
        .image_type(if c.one_d {
            vk::ImageType::TYPE_1D
        } else {
            vk::ImageType::TYPE_2D
        })
        .format(c.format)
        .extent(vk::Extent3D {
            width: c.w,
            height: c.h,
            depth: 1,
        })
        .mip_levels(c.levels)
        .array_layers(c.layers)
        .samples(vk::SampleCountFlags::TYPE_1)
        .tiling(tiling)
        .usage(vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST);
    // SAFETY: valid device and create info.
    let (image, mem) = unsafe {
        let image = dev.create_image(&info, None).unwrap();
        let req = dev.get_image_memory_requirements(image);
        let mut mem = Mapped::new(ctx, dev, req.size);
        mem.bytes_mut().fill(0x5a);
        dev.bind_image_memory(image, mem.memory, 0).unwrap();
        (image, mem)
    };
    let t = if c.linear {
        Tiling::Linear { stride: None }
    } else {
        Tiling::Twiddled
    };
    let layout = if block == (1, 1) {
        Layout::new(c.w, c.h, c.layers, c.levels, c.bpp, t, 1)
    } else {
        Layout::with_blocks(
            c.w,
            c.h,
            c.layers,
            c.levels,
            block,
            c.bpp,
            t,
            1,
            Default::default(),
        )
    }
    .unwrap();
    Img {
        image,
        mem,
        layout,
        w: c.w,
        h: c.h,
        levels: c.levels,
        layers: c.layers,
    }
}

/// The test's texel bytes: distinct for every (seed, level, layer, x, y, byte).
fn pattern(seed: u32, level: u32, layer: u32, x: u32, y: u32, byte: u32) -> u8 {
    let v = seed.wrapping_mul(0x9e37_79b9)
        ^ level.wrapping_mul(0x85eb_ca6b)
        ^ layer.wrapping_mul(0xc2b2_ae35)
        ^ x.wrapping_mul(0x27d4_eb2f)
        ^ y.wrapping_mul(0x1656_67b1)
        ^ byte.wrapping_mul(0xd3a2_646c);
    let v = (v ^ (v >> 15)).wrapping_mul(0x2c1b_3c6d);
    (v ^ (v >> 13)) as u8
}

fn minify(v: u32, l: u32) -> u32 {
    (v >> l).max(1)
}

fn layers(level: u32, base: u32, count: u32) -> vk::ImageSubresourceLayers {
    vk::ImageSubresourceLayers {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        mip_level: level,
        base_array_layer: base,
        layer_count: count,
    }
}

struct Gpu<'a> {
    dev: &'a ash::Device,
    queue: vk::Queue,
    pool: vk::CommandPool,
}

impl Gpu<'_> {
    /// Records with `f`, submits, waits.
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
                .wait_for_fences(&[fence], true, 20_000_000_000)
                .expect("the submission completes");
            self.dev.destroy_fence(fence, None);
            self.dev.free_command_buffers(self.pool, &cbs);
        }
    }

    /// vkCmdCopyBufferToImage of `regions` from `buf` to `img` in TRANSFER_DST_OPTIMAL.
    fn copy_buffer_to_image(&self, buf: &Buf, img: &Img, regions: &[vk::BufferImageCopy]) {
        // SAFETY: valid command buffer in recording.
        self.run(|cb| unsafe {
            self.dev.cmd_copy_buffer_to_image(
                cb,
                buf.buffer,
                img.image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                regions,
            )
        });
    }

    /// vkCmdCopyImage of `regions` from `src` in TRANSFER_SRC_OPTIMAL to `dst` in
    /// TRANSFER_DST_OPTIMAL.
    fn copy_image(&self, src: &Img, dst: &Img, regions: &[vk::ImageCopy]) {
        // SAFETY: valid command buffer in recording.
        self.run(|cb| unsafe {
            self.dev.cmd_copy_image(
                cb,
                src.image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                dst.image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                regions,
            )
        });
    }

    /// vkCmdCopyImageToBuffer of `regions` from `img` in TRANSFER_SRC_OPTIMAL to `buf`.
    fn copy_image_to_buffer(&self, img: &Img, buf: &Buf, regions: &[vk::BufferImageCopy]) {
        // SAFETY: valid command buffer in recording.
        self.run(|cb| unsafe {
            self.dev.cmd_copy_image_to_buffer(
                cb,
                img.image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                buf.buffer,
                regions,
            )
        });
    }

    /// UNDEFINED -> TRANSFER_DST_OPTIMAL for every subresource (a no-op for agx4).
    fn to_transfer_dst(&self, img: &Img) {
        self.transition(
            img,
            vk::ImageLayout::UNDEFINED,
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
        );
    }

    fn transition(&self, img: &Img, old: vk::ImageLayout, new: vk::ImageLayout) {
        self.run(|cb| {
            let barrier = vk::ImageMemoryBarrier::default()
                .image(img.image)
                .old_layout(old)
                .new_layout(new)
                .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE | vk::AccessFlags::TRANSFER_READ)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .subresource_range(vk::ImageSubresourceRange {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
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
                    &[barrier],
                );
            }
        });
    }

    /// Uploads `pattern(seed, ..)` to every level and layer, one region per level, with padded
    /// buffer rows and slices.
    fn upload(&self, ctx: &Ctx, img: &Img, bpp: u32, seed: u32) {
        let mut regions = Vec::new();
        let mut data = Vec::new();
        for level in 0..img.levels {
            let (w, h) = (minify(img.w, level), minify(img.h, level));
            let (row_len, rows) = (w + 3, h + 1);
            let offset = (data.len() as u32).next_multiple_of(16) + bpp;
            data.resize((offset + row_len * rows * bpp * img.layers) as usize, 0xcc);
            for layer in 0..img.layers {
                for y in 0..h {
                    for x in 0..w {
                        for b in 0..bpp {
                            let at = offset + ((layer * rows + y) * row_len + x) * bpp + b;
                            data[at as usize] = pattern(seed, level, layer, x, y, b);
                        }
                    }
                }
            }
            regions.push(vk::BufferImageCopy {
                buffer_offset: u64::from(offset),
                buffer_row_length: row_len,
                buffer_image_height: rows,
                image_subresource: layers(level, 0, img.layers),
                image_offset: vk::Offset3D::default(),
                image_extent: vk::Extent3D {
                    width: w,
                    height: h,
                    depth: 1,
                },
            });
        }
        let mut staging = buffer(ctx, self.dev, data.len() as u64);
        staging.mem.bytes_mut()[..data.len()].copy_from_slice(&data);
        self.copy_buffer_to_image(&staging, img, &regions);
        destroy_buffer(self.dev, staging);
    }
}

fn destroy_buffer(dev: &ash::Device, b: Buf) {
    // SAFETY: the GPU is idle.
    unsafe {
        dev.destroy_buffer(b.buffer, None);
        dev.free_memory(b.mem.memory, None);
    }
}

fn destroy_image(dev: &ash::Device, i: Img) {
    // SAFETY: the GPU is idle.
    unsafe {
        dev.destroy_image(i.image, None);
        dev.free_memory(i.mem.memory, None);
    }
}

/// The bytes of texel (x, y) of `level`/`layer` as stored in the image's memory.
fn stored(img: &Img, bpp: u32, x: u32, y: u32, layer: u32, level: u32) -> &[u8] {
    let at = img.layout.offset_of(x, y, layer, level, 0).unwrap() as usize;
    &img.mem.bytes()[at..at + bpp as usize]
}

fn check_pattern(img: &Img, bpp: u32, seed: u32, what: &str) {
    for level in 0..img.levels {
        for layer in 0..img.layers {
            for y in 0..minify(img.h, level) {
                for x in 0..minify(img.w, level) {
                    let want: Vec<u8> = (0..bpp)
                        .map(|b| pattern(seed, level, layer, x, y, b))
                        .collect();
                    assert_eq!(
                        stored(img, bpp, x, y, layer, level),
                        &want[..],
                        "{what}: level {level} layer {layer} ({x}, {y})"
                    );
                }
            }
        }
    }
}

fn round_trip(ctx: &Ctx, dev: &ash::Device, gpu: &Gpu, c: Case) {
    let a = image(ctx, dev, &c);
    let b = image(ctx, dev, &c);
    gpu.to_transfer_dst(&a);
    gpu.to_transfer_dst(&b);
    gpu.upload(ctx, &a, c.bpp, 1);
    gpu.upload(ctx, &b, c.bpp, 2);
    // The GPU put every byte where ail's layout rules say.
    check_pattern(&a, c.bpp, 1, &format!("{c:?} upload"));
    check_pattern(&b, c.bpp, 2, &format!("{c:?} upload"));
    if c.linear {
        let sub = vk::ImageSubresource {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            mip_level: 0,
            array_layer: 0,
        };
        // SAFETY: valid LINEAR image.
        let l = unsafe { dev.get_image_subresource_layout(a.image, sub) };
        assert!(l.row_pitch >= u64::from(c.w * c.bpp));
        for y in 0..c.h {
            for x in 0..c.w {
                let at = (l.offset + u64::from(y) * l.row_pitch + u64::from(x * c.bpp)) as usize;
                let want: Vec<u8> = (0..c.bpp).map(|i| pattern(1, 0, 0, x, y, i)).collect();
                assert_eq!(
                    &a.mem.bytes()[at..at + c.bpp as usize],
                    &want[..],
                    "{c:?} linear ({x}, {y})"
                );
            }
        }
    }

    // A sub-rectangle of every level of A into B, moved, over layers 1.. (or the only one).
    let (first_layer, nlayers) = if c.layers > 1 {
        (1, c.layers - 1)
    } else {
        (0, 1)
    };
    let mut moves = Vec::new();
    let mut regions = Vec::new();
    for level in 0..c.levels {
        let (w, h) = (minify(c.w, level), minify(c.h, level));
        let (sx, sy) = (w.min(1) * u32::from(w > 2), u32::from(h > 2));
        let (dx, dy) = (u32::from(w > 3) * 2, 0);
        let ew = (w - sx.max(dx)).max(1);
        let eh = (h - sy.max(dy)).max(1);
        moves.push((sx, sy, dx, dy, ew, eh));
        regions.push(vk::ImageCopy {
            src_subresource: layers(level, first_layer, nlayers),
            src_offset: vk::Offset3D {
                x: sx as i32,
                y: sy as i32,
                z: 0,
            },
            dst_subresource: layers(level, first_layer, nlayers),
            dst_offset: vk::Offset3D {
                x: dx as i32,
                y: dy as i32,
                z: 0,
            },
            extent: vk::Extent3D {
                width: ew,
                height: eh,
                depth: 1,
            },
        });
    }
    gpu.transition(
        &a,
        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    );
    gpu.copy_image(&a, &b, &regions);
    gpu.transition(
        &b,
        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    );

    // Expected contents of B, texel by texel.
    let expect = |level: u32, layer: u32, x: u32, y: u32, byte: u32| -> u8 {
        let (sx, sy, dx, dy, ew, eh) = moves[level as usize];
        let in_layers = layer >= first_layer && layer < first_layer + nlayers;
        if in_layers && x >= dx && x < dx + ew && y >= dy && y < dy + eh {
            pattern(1, level, layer, x - dx + sx, y - dy + sy, byte)
        } else {
            pattern(2, level, layer, x, y, byte)
        }
    };

    // Read every level of B back with a different row length and slice height.
    for level in 0..c.levels {
        let (w, h) = (minify(c.w, level), minify(c.h, level));
        let (row_len, rows, offset) = (w + 5, h + 2, 3 * c.bpp);
        let size = offset + row_len * rows * c.bpp * c.layers;
        let mut out = buffer(ctx, dev, u64::from(size));
        out.mem.bytes_mut().fill(0xee);
        let region = vk::BufferImageCopy {
            buffer_offset: u64::from(offset),
            buffer_row_length: row_len,
            buffer_image_height: rows,
            image_subresource: layers(level, 0, c.layers),
            image_offset: vk::Offset3D::default(),
            image_extent: vk::Extent3D {
                width: w,
                height: h,
                depth: 1,
            },
        };
        gpu.copy_image_to_buffer(&b, &out, &[region]);
        let got = out.mem.bytes();
        for i in 0..size {
            let want = if i < offset {
                0xee
            } else {
                let t = (i - offset) / c.bpp;
                let byte = (i - offset) % c.bpp;
                let (x, y, layer) = (t % row_len, (t / row_len) % rows, t / (row_len * rows));
                if x < w && y < h {
                    expect(level, layer, x, y, byte)
                } else {
                    0xee
                }
            };
            assert_eq!(
                got[i as usize], want,
                "{c:?}: read-back of level {level}, byte {i}"
            );
        }
        destroy_buffer(dev, out);
    }
    destroy_image(dev, a);
    destroy_image(dev, b);
}

fn with_device(f: impl FnOnce(&Ctx, &ash::Device, &Gpu)) {
    let ctx = Ctx::new();
    let (dev, queue) = ctx.device();
    let info = vk::CommandPoolCreateInfo::default().queue_family_index(0);
    // SAFETY: valid device and create info.
    let pool = unsafe { dev.create_command_pool(&info, None) }.unwrap();
    let gpu = Gpu {
        dev: &dev,
        queue,
        pool,
    };
    f(&ctx, &dev, &gpu);
    // SAFETY: everything made from the device is idle and destroyed.
    unsafe {
        dev.destroy_command_pool(pool, None);
        dev.destroy_device(None);
    }
    drop(ctx);
    assert_no_validation_messages();
}

#[test]
fn copies_round_trip_for_every_texel_size() {
    with_device(|ctx, dev, gpu| {
        let cases = [
            (vk::Format::R8_UINT, 1),
            (vk::Format::R5G6B5_UNORM_PACK16, 2),
            (vk::Format::R8G8B8A8_UNORM, 4),
            (vk::Format::R16G16B16A16_SFLOAT, 8),
            (vk::Format::R32G32B32A32_UINT, 16),
        ];
        for (format, bpp) in cases {
            round_trip(
                ctx,
                dev,
                gpu,
                Case {
                    format,
                    bpp,
                    linear: false,
                    w: 37,
                    h: 21,
                    levels: 6,
                    layers: 3,
                    one_d: false,
                },
            );
            round_trip(
                ctx,
                dev,
                gpu,
                Case {
                    format,
                    bpp,
                    linear: true,
                    w: 13,
                    h: 7,
                    levels: 1,
                    layers: 1,
                    one_d: false,
                },
            );
        }
        // Levels of whole tiles (a 1-byte tile is 128x128).
        round_trip(
            ctx,
            dev,
            gpu,
            Case {
                format: vk::Format::R8_UNORM,
                bpp: 1,
                linear: false,
                w: 130,
                h: 129,
                levels: 3,
                layers: 1,
                one_d: false,
            },
        );
        round_trip(
            ctx,
            dev,
            gpu,
            Case {
                format: vk::Format::R32_SFLOAT,
                bpp: 4,
                linear: false,
                w: 70,
                h: 65,
                levels: 2,
                layers: 2,
                one_d: false,
            },
        );
        round_trip(
            ctx,
            dev,
            gpu,
            Case {
                format: vk::Format::R8G8B8A8_UINT,
                bpp: 4,
                linear: false,
                w: 50,
                h: 1,
                levels: 4,
                layers: 3,
                one_d: true,
            },
        );
        round_trip(
            ctx,
            dev,
            gpu,
            Case {
                format: vk::Format::R8G8_SNORM,
                bpp: 2,
                linear: false,
                w: 300,
                h: 1,
                levels: 2,
                layers: 1,
                one_d: true,
            },
        );
    });
}

/// UNORM: round(c * max); SNORM: round(c * max) two's complement; floats and integers bit
/// exact. Written out by hand for each case.
#[test]
fn clears_write_the_packed_colour() {
    let f = |v: [f32; 4]| vk::ClearColorValue { float32: v };
    let cases: Vec<(vk::Format, u32, vk::ClearColorValue, Vec<u8>)> = vec![
        (vk::Format::R8_UNORM, 1, f([0.5, 0.0, 0.0, 0.0]), vec![128]),
        (
            vk::Format::R8G8_UNORM,
            2,
            f([1.0, 0.2, 0.0, 0.0]),
            vec![255, 51],
        ),
        (
            vk::Format::R8G8B8A8_UNORM,
            4,
            f([0.0, 1.0, 0.6, 0.25]),
            vec![0, 255, 153, 64],
        ),
        (
            vk::Format::B8G8R8A8_UNORM,
            4,
            f([0.0, 1.0, 0.6, 0.25]),
            vec![153, 255, 0, 64],
        ),
        (
            vk::Format::R16G16_SFLOAT,
            4,
            f([1.0, -2.0, 0.0, 0.0]),
            vec![0x00, 0x3c, 0x00, 0xc0],
        ),
        (
            vk::Format::R32_SFLOAT,
            4,
            f([1.5, 0.0, 0.0, 0.0]),
            1.5f32.to_le_bytes().to_vec(),
        ),
        (
            vk::Format::R16G16B16A16_UINT,
            8,
            vk::ClearColorValue {
                uint32: [1, 0x1_0002, 3, 0xffff],
            },
            vec![1, 0, 2, 0, 3, 0, 0xff, 0xff],
        ),
        (
            vk::Format::R32G32B32A32_SINT,
            16,
            vk::ClearColorValue {
                int32: [-1, 2, -3, 4],
            },
            [-1i32, 2, -3, 4]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect(),
        ),
        (
            vk::Format::R8_SINT,
            1,
            vk::ClearColorValue {
                int32: [-5, 0, 0, 0],
            },
            vec![0xfb],
        ),
    ];
    with_device(|ctx, dev, gpu| {
        for (format, bpp, colour, want) in cases {
            let c = Case {
                format,
                bpp,
                linear: false,
                w: 37,
                h: 19,
                levels: 3,
                layers: 3,
                one_d: false,
            };
            let img = image(ctx, dev, &c);
            gpu.to_transfer_dst(&img);
            gpu.upload(ctx, &img, bpp, 7);
            // Level 1 of layers 1..2 only.
            let range = vk::ImageSubresourceRange {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                base_mip_level: 1,
                level_count: 1,
                base_array_layer: 1,
                layer_count: 2,
            };
            // SAFETY: valid command buffer in recording.
            gpu.run(|cb| unsafe {
                dev.cmd_clear_color_image(
                    cb,
                    img.image,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &colour,
                    &[range],
                )
            });
            for level in 0..c.levels {
                for layer in 0..c.layers {
                    for y in 0..minify(c.h, level) {
                        for x in 0..minify(c.w, level) {
                            let expected: Vec<u8> = if level == 1 && layer >= 1 {
                                want.clone()
                            } else {
                                (0..bpp)
                                    .map(|b| pattern(7, level, layer, x, y, b))
                                    .collect()
                            };
                            assert_eq!(
                                stored(&img, bpp, x, y, layer, level),
                                &expected[..],
                                "{format:?} level {level} layer {layer} ({x}, {y})"
                            );
                        }
                    }
                }
            }
            destroy_image(dev, img);
        }
    });
}

#[test]
fn image_format_properties_are_honest() {
    let ctx = Ctx::new();
    let transfer = vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST;
    let q = |format, ty, tiling, usage| {
        // SAFETY: valid physical device.
        unsafe {
            ctx.instance.get_physical_device_image_format_properties(
                ctx.pdev,
                format,
                ty,
                tiling,
                usage,
                vk::ImageCreateFlags::empty(),
            )
        }
    };
    let p = q(
        vk::Format::R8G8B8A8_UNORM,
        vk::ImageType::TYPE_2D,
        vk::ImageTiling::OPTIMAL,
        transfer,
    )
    .unwrap();
    // Transfer-only 2D images may be multisampled (copied, cleared and resolved).
    assert_eq!(
        p.sample_counts,
        vk::SampleCountFlags::TYPE_1 | vk::SampleCountFlags::TYPE_4
    );
    assert_eq!(p.max_mip_levels, 15);
    let p = q(
        vk::Format::R8G8B8A8_UNORM,
        vk::ImageType::TYPE_2D,
        vk::ImageTiling::LINEAR,
        transfer,
    )
    .unwrap();
    assert_eq!((p.max_mip_levels, p.max_array_layers), (1, 1));
    let unsupported = vk::Result::ERROR_FORMAT_NOT_SUPPORTED;
    assert_eq!(
        q(
            vk::Format::R8G8B8A8_UNORM,
            vk::ImageType::TYPE_3D,
            vk::ImageTiling::LINEAR,
            transfer
        )
        .err(),
        Some(unsupported)
    );
    // Sampled images (tests/samplers_descriptors.rs has the rest).
    assert!(q(
        vk::Format::R8G8B8A8_UNORM,
        vk::ImageType::TYPE_2D,
        vk::ImageTiling::OPTIMAL,
        vk::ImageUsageFlags::SAMPLED
    )
    .is_ok());
    // Depth images copy (transfer-only depth images are supported) and are sampled.
    let p = q(
        vk::Format::D32_SFLOAT,
        vk::ImageType::TYPE_2D,
        vk::ImageTiling::OPTIMAL,
        transfer,
    )
    .unwrap();
    assert_eq!(p.sample_counts, vk::SampleCountFlags::TYPE_1);
    assert!(q(
        vk::Format::D32_SFLOAT,
        vk::ImageType::TYPE_2D,
        vk::ImageTiling::OPTIMAL,
        vk::ImageUsageFlags::SAMPLED
    )
    .is_ok());
    drop(ctx);
    assert_no_validation_messages();
}

/// A 3D image: slices are Layout layers. Upload the whole volume, then read back a sub-box
/// with its own pitches; and copy a sub-box between two 3D images.
#[test]
fn three_d_boxes() {
    with_device(|ctx, dev, gpu| {
        for (format, bpp) in [
            (vk::Format::R8_UINT, 1u32),
            (vk::Format::R16_UINT, 2),
            (vk::Format::R32G32_SFLOAT, 8),
        ] {
            let (w, h, d) = (19u32, 11u32, 5u32);
            let info = vk::ImageCreateInfo::default()
                .image_type(vk::ImageType::TYPE_3D)
                .format(format)
                .extent(vk::Extent3D {
                    width: w,
                    height: h,
                    depth: d,
                })
                .mip_levels(1)
                .array_layers(1)
                .samples(vk::SampleCountFlags::TYPE_1)
                .tiling(vk::ImageTiling::OPTIMAL)
                .usage(vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST);
            let make = || {
                // SAFETY: valid device and create info.
                unsafe {
                    let image = dev.create_image(&info, None).unwrap();
                    let req = dev.get_image_memory_requirements(image);
                    let mut mem = Mapped::new(ctx, dev, req.size);
                    mem.bytes_mut().fill(0);
                    dev.bind_image_memory(image, mem.memory, 0).unwrap();
                    let layout = Layout::new(w, h, d, 1, bpp, Tiling::Twiddled, 1).unwrap();
                    Img {
                        image,
                        mem,
                        layout,
                        w,
                        h,
                        levels: 1,
                        layers: 1,
                    }
                }
            };
            let (a, b) = (make(), make());
            gpu.to_transfer_dst(&a);
            gpu.to_transfer_dst(&b);
            let (row_len, rows) = (w + 1, h + 2);
            let mut staging = buffer(ctx, dev, u64::from(row_len * rows * d * bpp));
            for z in 0..d {
                for y in 0..h {
                    for x in 0..w {
                        for i in 0..bpp {
                            staging.mem.bytes_mut()
                                [(((z * rows + y) * row_len + x) * bpp + i) as usize] =
                                pattern(3, 0, z, x, y, i);
                        }
                    }
                }
            }
            let up = vk::BufferImageCopy {
                buffer_offset: 0,
                buffer_row_length: row_len,
                buffer_image_height: rows,
                image_subresource: layers(0, 0, 1),
                image_offset: vk::Offset3D::default(),
                image_extent: vk::Extent3D {
                    width: w,
                    height: h,
                    depth: d,
                },
            };
            gpu.copy_buffer_to_image(&staging, &a, &[up]);
            for z in 0..d {
                for y in 0..h {
                    for x in 0..w {
                        let want: Vec<u8> = (0..bpp).map(|i| pattern(3, 0, z, x, y, i)).collect();
                        assert_eq!(
                            stored(&a, bpp, x, y, z, 0),
                            &want[..],
                            "{format:?} 3D upload ({x}, {y}, {z})"
                        );
                    }
                }
            }
            // Box (2, 3, 1) + (10, 5, 3) of A to (5, 0, 2) of B.
            let region = vk::ImageCopy {
                src_subresource: layers(0, 0, 1),
                src_offset: vk::Offset3D { x: 2, y: 3, z: 1 },
                dst_subresource: layers(0, 0, 1),
                dst_offset: vk::Offset3D { x: 5, y: 0, z: 2 },
                extent: vk::Extent3D {
                    width: 10,
                    height: 5,
                    depth: 3,
                },
            };
            gpu.transition(
                &a,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            );
            gpu.copy_image(&a, &b, &[region]);
            for z in 0..d {
                for y in 0..h {
                    for x in 0..w {
                        let inside = (5..15).contains(&x) && y < 5 && (2..5).contains(&z);
                        let want: Vec<u8> = (0..bpp)
                            .map(|i| {
                                if inside {
                                    pattern(3, 0, z - 1, x - 3, y + 3, i)
                                } else {
                                    0
                                }
                            })
                            .collect();
                        assert_eq!(
                            stored(&b, bpp, x, y, z, 0),
                            &want[..],
                            "{format:?} 3D copy ({x}, {y}, {z})"
                        );
                    }
                }
            }
            // Read back box (1, 2, 3) + (7, 4, 2) of A with pitches 9 x 5 texels, at offset 5 texels.
            let (rl, rh, off) = (9u32, 5u32, 5 * bpp);
            let size = off + rl * rh * 2 * bpp;
            let mut out = buffer(ctx, dev, u64::from(size));
            out.mem.bytes_mut().fill(0xee);
            let back = vk::BufferImageCopy {
                buffer_offset: u64::from(off),
                buffer_row_length: rl,
                buffer_image_height: rh,
                image_subresource: layers(0, 0, 1),
                image_offset: vk::Offset3D { x: 1, y: 2, z: 3 },
                image_extent: vk::Extent3D {
                    width: 7,
                    height: 4,
                    depth: 2,
                },
            };
            gpu.copy_image_to_buffer(&a, &out, &[back]);
            for i in 0..size {
                let want = if i < off {
                    0xee
                } else {
                    let t = (i - off) / bpp;
                    let (x, y, z) = (t % rl, (t / rl) % rh, t / (rl * rh));
                    if x < 7 && y < 4 {
                        pattern(3, 0, z + 3, x + 1, y + 2, (i - off) % bpp)
                    } else {
                        0xee
                    }
                };
                assert_eq!(
                    out.mem.bytes()[i as usize],
                    want,
                    "{format:?} 3D read-back byte {i}"
                );
            }
            destroy_buffer(dev, out);
            destroy_buffer(dev, staging);
            destroy_image(dev, a);
            destroy_image(dev, b);
        }
    });
}

/// Several regions of one command whose 1-byte texels share destination words (a twiddled
/// word is a 2x2 quad): every byte lands, none is lost to another region's write.
#[test]
fn neighbouring_regions_share_words() {
    with_device(|ctx, dev, gpu| {
        let c = Case {
            format: vk::Format::R8_UNORM,
            bpp: 1,
            linear: false,
            w: 16,
            h: 16,
            levels: 1,
            layers: 1,
            one_d: false,
        };
        let img = image(ctx, dev, &c);
        gpu.to_transfer_dst(&img);
        let mut staging = buffer(ctx, dev, 256);
        for i in 0..256u32 {
            staging.mem.bytes_mut()[i as usize] = pattern(9, 0, 0, i % 16, i / 16, 0);
        }
        // Each texel its own region, in a scattered order.
        let mut regions = Vec::new();
        for k in 0..256u32 {
            let i = (k * 97) % 256;
            regions.push(vk::BufferImageCopy {
                buffer_offset: u64::from(i),
                buffer_row_length: 16,
                buffer_image_height: 16,
                image_subresource: layers(0, 0, 1),
                image_offset: vk::Offset3D {
                    x: (i % 16) as i32,
                    y: (i / 16) as i32,
                    z: 0,
                },
                image_extent: vk::Extent3D {
                    width: 1,
                    height: 1,
                    depth: 1,
                },
            });
        }
        gpu.copy_buffer_to_image(&staging, &img, &regions);
        for y in 0..16 {
            for x in 0..16 {
                assert_eq!(
                    stored(&img, 1, x, y, 0, 0),
                    &[pattern(9, 0, 0, x, y, 0)],
                    "({x}, {y})"
                );
            }
        }
        destroy_buffer(dev, staging);
        destroy_image(dev, img);
    });
}

/// Block-compressed images are copied in blocks: a BC1 image (8-byte 4x4 blocks) of 18x10
/// texels (5x3 blocks, the last column and row partly outside the image) with two levels is
/// uploaded from a buffer whose rows are 24 texels (6 blocks) long, each block lands where
/// the block layout says; a sub-rectangle ending at the image's edge is read back; and
/// vkCmdCopyImage moves its blocks into an R32G32_UINT image texel for block.
#[test]
fn compressed_copies_count_blocks() {
    compressed_copies(
        vk::Format::BC1_RGBA_UNORM_BLOCK,
        (4, 4),
        8,
        (18, 10),
        vk::Format::R32G32_UINT,
    );
}

/// The same with an ASTC footprint that is not a power of two: 10x8 blocks of 16 bytes (a
/// 47x19 image is again 5x3 blocks, 3x2 at level 1), copied texel for block into
/// R32G32B32A32_UINT.
#[test]
fn astc_copies_count_blocks() {
    compressed_copies(
        vk::Format::ASTC_10X8_UNORM_BLOCK,
        (10, 8),
        16,
        (47, 19),
        vk::Format::R32G32B32A32_UINT,
    );
}

fn compressed_copies(
    format: vk::Format,
    block: (u32, u32),
    bytes: u32,
    (w, h): (u32, u32),
    same_size: vk::Format,
) {
    let nb = bytes as usize;
    with_device(|ctx, dev, gpu| {
        let levels = 2;
        let case = Case {
            format,
            bpp: bytes,
            linear: false,
            w,
            h,
            levels,
            layers: 1,
            one_d: false,
        };
        let img = image_of_blocks(ctx, dev, &case, block);
        gpu.to_transfer_dst(&img);
        // Level l's blocks from a buffer of 6-block rows at offset 16 + 512 * l.
        let mut staging = buffer(ctx, dev, 2048);
        let at = |l: u32, bx: u32, by: u32| (16 + 512 * l + (by * 6 + bx) * bytes) as usize;
        for l in 0..levels {
            let (bw, bh) = img.layout.level_blocks(l);
            for (by, bx, b) in
                (0..bh).flat_map(|y| (0..bw).flat_map(move |x| (0..bytes).map(move |b| (y, x, b))))
            {
                staging.mem.bytes_mut()[at(l, bx, by) + b as usize] = pattern(7, l, 0, bx, by, b);
            }
        }
        let regions: Vec<_> = (0..levels)
            .map(|l| vk::BufferImageCopy {
                buffer_offset: u64::from(16 + 512 * l),
                buffer_row_length: 6 * block.0,
                buffer_image_height: 0,
                image_subresource: layers(l, 0, 1),
                image_offset: vk::Offset3D::default(),
                image_extent: vk::Extent3D {
                    width: minify(w, l),
                    height: minify(h, l),
                    depth: 1,
                },
            })
            .collect();
        gpu.copy_buffer_to_image(&staging, &img, &regions);
        for l in 0..levels {
            let (bw, bh) = img.layout.level_blocks(l);
            for by in 0..bh {
                for bx in 0..bw {
                    let want: Vec<u8> = (0..bytes).map(|b| pattern(7, l, 0, bx, by, b)).collect();
                    assert_eq!(
                        stored(&img, bytes, bx * block.0, by * block.1, 0, l),
                        &want[..],
                        "level {l} block ({bx}, {by})"
                    );
                }
            }
        }
        gpu.transition(
            &img,
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
        );
        // Level 0's blocks from (1, 1) to the edge, back into a tight buffer.
        let out = buffer(ctx, dev, 256);
        let region = vk::BufferImageCopy {
            buffer_offset: 0,
            buffer_row_length: 0,
            buffer_image_height: 0,
            image_subresource: layers(0, 0, 1),
            image_offset: vk::Offset3D {
                x: block.0 as i32,
                y: block.1 as i32,
                z: 0,
            },
            image_extent: vk::Extent3D {
                width: w - block.0,
                height: h - block.1,
                depth: 1,
            },
        };
        gpu.copy_image_to_buffer(&img, &out, &[region]);
        for by in 0..2 {
            for bx in 0..4 {
                let got = &out.mem.bytes()[(by * 4 + bx) as usize * nb..][..nb];
                let want: Vec<u8> = (0..bytes)
                    .map(|b| pattern(7, 0, 0, bx + 1, by + 1, b))
                    .collect();
                assert_eq!(got, &want[..], "read-back block ({bx}, {by})");
            }
        }
        // Block for texel into an uncompressed image of the same element size.
        let c = Case {
            format: same_size,
            bpp: bytes,
            linear: false,
            w: 5,
            h: 3,
            levels: 1,
            layers: 1,
            one_d: false,
        };
        let dst = image(ctx, dev, &c);
        gpu.to_transfer_dst(&dst);
        let copy = vk::ImageCopy {
            src_subresource: layers(0, 0, 1),
            src_offset: vk::Offset3D::default(),
            dst_subresource: layers(0, 0, 1),
            dst_offset: vk::Offset3D::default(),
            extent: vk::Extent3D {
                width: w,
                height: h,
                depth: 1,
            },
        };
        gpu.copy_image(&img, &dst, &[copy]);
        for y in 0..3 {
            for x in 0..5 {
                let want: Vec<u8> = (0..bytes).map(|b| pattern(7, 0, 0, x, y, b)).collect();
                assert_eq!(
                    stored(&dst, bytes, x, y, 0, 0),
                    &want[..],
                    "copied block ({x}, {y})"
                );
            }
        }
        destroy_image(dev, dst);
        destroy_buffer(dev, out);
        destroy_buffer(dev, staging);
        destroy_image(dev, img);
    });
}
