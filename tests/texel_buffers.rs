//! Texel buffers through the loader (docs/render-abi.md section 7.1): a compute shader reads
//! a uniform texel buffer with `texelFetch`, reads a storage texel buffer with `imageLoad`,
//! writes a storage texel buffer with `imageStore` and queries the three sizes. The views
//! start at non-zero offsets, span more than one 1024-texel row, and the dispatch runs past
//! every view's end: reads there give the zero texel, writes there are dropped.

mod common;

use ash::vk;
use common::compute::{self, binding};
use common::render::Buf;
use common::{assert_no_validation_messages, Ctx};

/// Invocations of the dispatch: 33 workgroups of 64.
const INVOCATIONS: usize = 2112;
/// Elements of the three views.
const SRC_ELEMENTS: usize = 2000;
const DST_ELEMENTS: usize = 1500;
const RD_ELEMENTS: usize = 1030;
/// Byte offsets of the views in their buffers.
const SRC_OFFSET: usize = 64;
const DST_OFFSET: usize = 16;
const RD_OFFSET: usize = 32;
/// What the storage texel buffer holds where the shader must not write.
const SENTINEL: u32 = 0xdead_beef;

/// glslangValidator -V of:
/// ```glsl
/// #version 450
/// layout(local_size_x = 64) in;
/// layout(set = 0, binding = 0) uniform usamplerBuffer src;
/// layout(set = 0, binding = 1, r32ui) uniform writeonly uimageBuffer dst;
/// layout(set = 0, binding = 2, rgba8ui) uniform readonly uimageBuffer rd;
/// layout(set = 0, binding = 3) buffer Out {
///     uint src_size;
///     uint dst_size;
///     uint rd_size;
///     uint pad;
///     uvec4 fetched[2112];
///     uvec4 loaded[2112];
/// } o;
/// void main() {
///     int i = int(gl_GlobalInvocationID.x);
///     if (i == 0) {
///         o.src_size = uint(textureSize(src));
///         o.dst_size = uint(imageSize(dst));
///         o.rd_size = uint(imageSize(rd));
///     }
///     uvec4 v = texelFetch(src, i);
///     o.fetched[i] = v;
///     o.loaded[i] = imageLoad(rd, i);
///     imageStore(dst, i, uvec4(v.x * 3u + 7u));
/// }
/// ```
#[rustfmt::skip]
const SHADER: [u32; 591] = [
0x07230203, 0x00010000, 0x0008000b, 0x00000057, 0x00000000, 0x00020011, 0x00000001, 0x00020011, 0x0000002e, 0x00020011,
0x0000002f, 0x00020011, 0x00000032, 0x0006000b, 0x00000001, 0x4c534c47, 0x6474732e, 0x3035342e, 0x00000000, 0x0003000e,
0x00000000, 0x00000001, 0x0006000f, 0x00000005, 0x00000004, 0x6e69616d, 0x00000000, 0x0000000c, 0x00060010, 0x00000004,
0x00000011, 0x00000040, 0x00000001, 0x00000001, 0x00030003, 0x00000002, 0x000001c2, 0x00040005, 0x00000004, 0x6e69616d,
0x00000000, 0x00030005, 0x00000008, 0x00000069, 0x00080005, 0x0000000c, 0x475f6c67, 0x61626f6c, 0x766e496c, 0x7461636f,
0x496e6f69, 0x00000044, 0x00030005, 0x0000001c, 0x0074754f, 0x00060006, 0x0000001c, 0x00000000, 0x5f637273, 0x657a6973,
0x00000000, 0x00060006, 0x0000001c, 0x00000001, 0x5f747364, 0x657a6973, 0x00000000, 0x00050006, 0x0000001c, 0x00000002,
0x735f6472, 0x00657a69, 0x00040006, 0x0000001c, 0x00000003, 0x00646170, 0x00050006, 0x0000001c, 0x00000004, 0x63746566,
0x00646568, 0x00050006, 0x0000001c, 0x00000005, 0x64616f6c, 0x00006465, 0x00030005, 0x0000001e, 0x0000006f, 0x00030005,
0x00000022, 0x00637273, 0x00030005, 0x0000002c, 0x00747364, 0x00030005, 0x00000034, 0x00006472, 0x00030005, 0x0000003a,
0x00000076, 0x00040047, 0x0000000c, 0x0000000b, 0x0000001c, 0x00040047, 0x0000001a, 0x00000006, 0x00000010, 0x00040047,
0x0000001b, 0x00000006, 0x00000010, 0x00050048, 0x0000001c, 0x00000000, 0x00000023, 0x00000000, 0x00050048, 0x0000001c,
0x00000001, 0x00000023, 0x00000004, 0x00050048, 0x0000001c, 0x00000002, 0x00000023, 0x00000008, 0x00050048, 0x0000001c,
0x00000003, 0x00000023, 0x0000000c, 0x00050048, 0x0000001c, 0x00000004, 0x00000023, 0x00000010, 0x00050048, 0x0000001c,
0x00000005, 0x00000023, 0x00008410, 0x00030047, 0x0000001c, 0x00000003, 0x00040047, 0x0000001e, 0x00000022, 0x00000000,
0x00040047, 0x0000001e, 0x00000021, 0x00000003, 0x00040047, 0x00000022, 0x00000022, 0x00000000, 0x00040047, 0x00000022,
0x00000021, 0x00000000, 0x00040047, 0x0000002c, 0x00000022, 0x00000000, 0x00040047, 0x0000002c, 0x00000021, 0x00000001,
0x00030047, 0x0000002c, 0x00000019, 0x00040047, 0x00000034, 0x00000022, 0x00000000, 0x00040047, 0x00000034, 0x00000021,
0x00000002, 0x00030047, 0x00000034, 0x00000018, 0x00040047, 0x00000056, 0x0000000b, 0x00000019, 0x00020013, 0x00000002,
0x00030021, 0x00000003, 0x00000002, 0x00040015, 0x00000006, 0x00000020, 0x00000001, 0x00040020, 0x00000007, 0x00000007,
0x00000006, 0x00040015, 0x00000009, 0x00000020, 0x00000000, 0x00040017, 0x0000000a, 0x00000009, 0x00000003, 0x00040020,
0x0000000b, 0x00000001, 0x0000000a, 0x0004003b, 0x0000000b, 0x0000000c, 0x00000001, 0x0004002b, 0x00000009, 0x0000000d,
0x00000000, 0x00040020, 0x0000000e, 0x00000001, 0x00000009, 0x0004002b, 0x00000006, 0x00000013, 0x00000000, 0x00020014,
0x00000014, 0x00040017, 0x00000018, 0x00000009, 0x00000004, 0x0004002b, 0x00000009, 0x00000019, 0x00000840, 0x0004001c,
0x0000001a, 0x00000018, 0x00000019, 0x0004001c, 0x0000001b, 0x00000018, 0x00000019, 0x0008001e, 0x0000001c, 0x00000009,
0x00000009, 0x00000009, 0x00000009, 0x0000001a, 0x0000001b, 0x00040020, 0x0000001d, 0x00000002, 0x0000001c, 0x0004003b,
0x0000001d, 0x0000001e, 0x00000002, 0x00090019, 0x0000001f, 0x00000009, 0x00000005, 0x00000000, 0x00000000, 0x00000000,
0x00000001, 0x00000000, 0x0003001b, 0x00000020, 0x0000001f, 0x00040020, 0x00000021, 0x00000000, 0x00000020, 0x0004003b,
0x00000021, 0x00000022, 0x00000000, 0x00040020, 0x00000027, 0x00000002, 0x00000009, 0x0004002b, 0x00000006, 0x00000029,
0x00000001, 0x00090019, 0x0000002a, 0x00000009, 0x00000005, 0x00000000, 0x00000000, 0x00000000, 0x00000002, 0x00000021,
0x00040020, 0x0000002b, 0x00000000, 0x0000002a, 0x0004003b, 0x0000002b, 0x0000002c, 0x00000000, 0x0004002b, 0x00000006,
0x00000031, 0x00000002, 0x00090019, 0x00000032, 0x00000009, 0x00000005, 0x00000000, 0x00000000, 0x00000000, 0x00000002,
0x00000020, 0x00040020, 0x00000033, 0x00000000, 0x00000032, 0x0004003b, 0x00000033, 0x00000034, 0x00000000, 0x00040020,
0x00000039, 0x00000007, 0x00000018, 0x0004002b, 0x00000006, 0x0000003f, 0x00000004, 0x00040020, 0x00000042, 0x00000002,
0x00000018, 0x0004002b, 0x00000006, 0x00000044, 0x00000005, 0x00040020, 0x0000004c, 0x00000007, 0x00000009, 0x0004002b,
0x00000009, 0x0000004f, 0x00000003, 0x0004002b, 0x00000009, 0x00000051, 0x00000007, 0x0004002b, 0x00000009, 0x00000054,
0x00000040, 0x0004002b, 0x00000009, 0x00000055, 0x00000001, 0x0006002c, 0x0000000a, 0x00000056, 0x00000054, 0x00000055,
0x00000055, 0x00050036, 0x00000002, 0x00000004, 0x00000000, 0x00000003, 0x000200f8, 0x00000005, 0x0004003b, 0x00000007,
0x00000008, 0x00000007, 0x0004003b, 0x00000039, 0x0000003a, 0x00000007, 0x00050041, 0x0000000e, 0x0000000f, 0x0000000c,
0x0000000d, 0x0004003d, 0x00000009, 0x00000010, 0x0000000f, 0x0004007c, 0x00000006, 0x00000011, 0x00000010, 0x0003003e,
0x00000008, 0x00000011, 0x0004003d, 0x00000006, 0x00000012, 0x00000008, 0x000500aa, 0x00000014, 0x00000015, 0x00000012,
0x00000013, 0x000300f7, 0x00000017, 0x00000000, 0x000400fa, 0x00000015, 0x00000016, 0x00000017, 0x000200f8, 0x00000016,
0x0004003d, 0x00000020, 0x00000023, 0x00000022, 0x00040064, 0x0000001f, 0x00000024, 0x00000023, 0x00040068, 0x00000006,
0x00000025, 0x00000024, 0x0004007c, 0x00000009, 0x00000026, 0x00000025, 0x00050041, 0x00000027, 0x00000028, 0x0000001e,
0x00000013, 0x0003003e, 0x00000028, 0x00000026, 0x0004003d, 0x0000002a, 0x0000002d, 0x0000002c, 0x00040068, 0x00000006,
0x0000002e, 0x0000002d, 0x0004007c, 0x00000009, 0x0000002f, 0x0000002e, 0x00050041, 0x00000027, 0x00000030, 0x0000001e,
0x00000029, 0x0003003e, 0x00000030, 0x0000002f, 0x0004003d, 0x00000032, 0x00000035, 0x00000034, 0x00040068, 0x00000006,
0x00000036, 0x00000035, 0x0004007c, 0x00000009, 0x00000037, 0x00000036, 0x00050041, 0x00000027, 0x00000038, 0x0000001e,
0x00000031, 0x0003003e, 0x00000038, 0x00000037, 0x000200f9, 0x00000017, 0x000200f8, 0x00000017, 0x0004003d, 0x00000020,
0x0000003b, 0x00000022, 0x0004003d, 0x00000006, 0x0000003c, 0x00000008, 0x00040064, 0x0000001f, 0x0000003d, 0x0000003b,
0x0005005f, 0x00000018, 0x0000003e, 0x0000003d, 0x0000003c, 0x0003003e, 0x0000003a, 0x0000003e, 0x0004003d, 0x00000006,
0x00000040, 0x00000008, 0x0004003d, 0x00000018, 0x00000041, 0x0000003a, 0x00060041, 0x00000042, 0x00000043, 0x0000001e,
0x0000003f, 0x00000040, 0x0003003e, 0x00000043, 0x00000041, 0x0004003d, 0x00000006, 0x00000045, 0x00000008, 0x0004003d,
0x00000032, 0x00000046, 0x00000034, 0x0004003d, 0x00000006, 0x00000047, 0x00000008, 0x00050062, 0x00000018, 0x00000048,
0x00000046, 0x00000047, 0x00060041, 0x00000042, 0x00000049, 0x0000001e, 0x00000044, 0x00000045, 0x0003003e, 0x00000049,
0x00000048, 0x0004003d, 0x0000002a, 0x0000004a, 0x0000002c, 0x0004003d, 0x00000006, 0x0000004b, 0x00000008, 0x00050041,
0x0000004c, 0x0000004d, 0x0000003a, 0x0000000d, 0x0004003d, 0x00000009, 0x0000004e, 0x0000004d, 0x00050084, 0x00000009,
0x00000050, 0x0000004e, 0x0000004f, 0x00050080, 0x00000009, 0x00000052, 0x00000050, 0x00000051, 0x00070050, 0x00000018,
0x00000053, 0x00000052, 0x00000052, 0x00000052, 0x00000052, 0x00040063, 0x0000004a, 0x0000004b, 0x00000053, 0x000100fd,
0x00010038,
];

fn src_value(i: usize) -> u32 {
    i as u32 * 7 + 5
}

fn rd_texel(i: usize) -> [u8; 4] {
    [i as u8, (i >> 8) as u8, 200, 3]
}

/// A write of the texel buffer views `v` to binding `b` of `set`.
fn texel_write(
    set: vk::DescriptorSet,
    b: u32,
    ty: vk::DescriptorType,
    v: &[vk::BufferView],
) -> vk::WriteDescriptorSet<'_> {
    vk::WriteDescriptorSet::default()
        .dst_set(set)
        .dst_binding(b)
        .descriptor_type(ty)
        .texel_buffer_view(v)
}

/// A view of `elements` texels of `format` at byte `offset` of `buffer`.
fn view(
    dev: &ash::Device,
    buffer: vk::Buffer,
    format: vk::Format,
    offset: usize,
    elements: usize,
    texel: usize,
) -> vk::BufferView {
    let info = vk::BufferViewCreateInfo::default()
        .buffer(buffer)
        .format(format)
        .offset(offset as u64)
        .range((elements * texel) as u64);
    // SAFETY: valid device and create info (the buffer is bound).
    unsafe { dev.create_buffer_view(&info, None) }.expect("vkCreateBufferView")
}

#[test]
fn compute_reads_and_writes_texel_buffers() {
    let ctx = Ctx::new();
    let (dev, queue) = ctx.device();
    let uniform = vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER;
    let storage = vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER;
    // Each buffer is larger than its view, so a read past the view would find data.
    let mut src = Buf::new(&ctx, &dev, 16384, uniform);
    let mut dst = Buf::new(&ctx, &dev, 8192, storage);
    let mut rd = Buf::new(&ctx, &dev, 8192, storage);
    let out_size = 16 + 32 * INVOCATIONS as u64;
    let out = Buf::new(&ctx, &dev, out_size, vk::BufferUsageFlags::STORAGE_BUFFER);
    let words = |n: usize, f: &dyn Fn(usize) -> u32| -> Vec<u8> {
        (0..n).flat_map(|i| f(i).to_le_bytes()).collect()
    };
    // src: the values from SRC_OFFSET on, and more of them after the view.
    src.write(&words(16384 / 4, &|w| {
        w.checked_sub(SRC_OFFSET / 4).map_or(0x5555_5555, src_value)
    }));
    dst.write(&words(8192 / 4, &|_| SENTINEL));
    let rd_bytes: Vec<u8> = (0..8192usize)
        .map(|b| match b.checked_sub(RD_OFFSET) {
            Some(o) => rd_texel(o / 4)[o % 4],
            None => 0x77,
        })
        .collect();
    rd.write(&rd_bytes);
    let bindings = [
        binding(0, vk::DescriptorType::UNIFORM_TEXEL_BUFFER),
        binding(1, vk::DescriptorType::STORAGE_TEXEL_BUFFER),
        binding(2, vk::DescriptorType::STORAGE_TEXEL_BUFFER),
        binding(3, vk::DescriptorType::STORAGE_BUFFER),
    ];
    // SAFETY: valid handles and create infos; everything outlives the submission.
    unsafe {
        let views = [
            view(
                &dev,
                src.buffer,
                vk::Format::R32_UINT,
                SRC_OFFSET,
                SRC_ELEMENTS,
                4,
            ),
            view(
                &dev,
                dst.buffer,
                vk::Format::R32_UINT,
                DST_OFFSET,
                DST_ELEMENTS,
                4,
            ),
            view(
                &dev,
                rd.buffer,
                vk::Format::R8G8B8A8_UINT,
                RD_OFFSET,
                RD_ELEMENTS,
                4,
            ),
        ];
        let set_layout = compute::set_layout(&dev, Default::default(), &bindings);
        let p = compute::Pipeline::new(&dev, set_layout, 0, &SHADER);
        let (pool, set) = compute::descriptor_set(
            &dev,
            set_layout,
            1,
            &[
                (vk::DescriptorType::UNIFORM_TEXEL_BUFFER, 1),
                (vk::DescriptorType::STORAGE_TEXEL_BUFFER, 2),
                (vk::DescriptorType::STORAGE_BUFFER, 1),
            ],
        );
        let out_info = [vk::DescriptorBufferInfo {
            buffer: out.buffer,
            offset: 0,
            range: vk::WHOLE_SIZE,
        }];
        let writes = [
            texel_write(
                set,
                0,
                vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
                &views[0..1],
            ),
            texel_write(
                set,
                1,
                vk::DescriptorType::STORAGE_TEXEL_BUFFER,
                &views[1..2],
            ),
            texel_write(
                set,
                2,
                vk::DescriptorType::STORAGE_TEXEL_BUFFER,
                &views[2..3],
            ),
            vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(3)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .buffer_info(&out_info),
        ];
        dev.update_descriptor_sets(&writes, &[]);
        common::submit_and_wait(&dev, queue, |cb| {
            dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, p.pipeline);
            dev.cmd_bind_descriptor_sets(
                cb,
                vk::PipelineBindPoint::COMPUTE,
                p.layout,
                0,
                &[set],
                &[],
            );
            dev.cmd_dispatch(cb, (INVOCATIONS / 64) as u32, 1, 1);
            compute::shader_writes_to_host(&dev, cb);
        });

        let o = compute::words(out.bytes());
        assert_eq!(
            o[..3],
            [SRC_ELEMENTS as u32, DST_ELEMENTS as u32, RD_ELEMENTS as u32],
            "textureSize / imageSize"
        );
        let fetched = &o[4..4 + 4 * INVOCATIONS];
        let loaded = &o[4 + 4 * INVOCATIONS..];
        for i in 0..INVOCATIONS {
            // R32_UINT reads as (R, 0, 0, 1); past the view as the zero texel, (0, 0, 0, 1).
            let want = [if i < SRC_ELEMENTS { src_value(i) } else { 0 }, 0, 0, 1];
            assert_eq!(fetched[4 * i..4 * i + 4], want, "texelFetch of element {i}");
            let want = if i < RD_ELEMENTS {
                rd_texel(i).map(u32::from)
            } else {
                [0; 4]
            };
            assert_eq!(loaded[4 * i..4 * i + 4], want, "imageLoad of element {i}");
        }
        let d = compute::words(dst.bytes());
        for (w, &v) in d.iter().enumerate() {
            let want = match w.checked_sub(DST_OFFSET / 4) {
                Some(i) if i < DST_ELEMENTS => src_value(i) * 3 + 7,
                _ => SENTINEL,
            };
            assert_eq!(v, want, "storage texel buffer word {w}");
        }

        dev.destroy_descriptor_pool(pool, None);
        p.destroy(&dev);
        dev.destroy_descriptor_set_layout(set_layout, None);
        for v in views {
            dev.destroy_buffer_view(v, None);
        }
        for b in [src, dst, rd, out] {
            b.destroy(&dev);
        }
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}

#[test]
fn texel_buffer_formats_and_limits() {
    let ctx = Ctx::new();
    // SAFETY: valid physical device.
    let limits = unsafe { ctx.instance.get_physical_device_properties(ctx.pdev) }.limits;
    assert_eq!(limits.max_texel_buffer_elements, 1 << 24);
    assert_eq!(limits.min_texel_buffer_offset_alignment, 16);
    let features = |f| {
        // SAFETY: valid physical device.
        unsafe {
            ctx.instance
                .get_physical_device_format_properties(ctx.pdev, f)
        }
        .buffer_features
    };
    let uniform = vk::FormatFeatureFlags::UNIFORM_TEXEL_BUFFER;
    let storage = vk::FormatFeatureFlags::STORAGE_TEXEL_BUFFER;
    for f in [
        vk::Format::R32_UINT,
        vk::Format::R8G8B8A8_UINT,
        vk::Format::R32G32B32A32_SFLOAT,
    ] {
        assert!(features(f).contains(uniform | storage), "{f:?}");
    }
    assert!(features(vk::Format::B10G11R11_UFLOAT_PACK32).contains(uniform));
    assert!(!features(vk::Format::R8G8B8A8_SRGB).contains(storage));
    assert!(!features(vk::Format::D32_SFLOAT).intersects(uniform | storage));
    assert_no_validation_messages();
}

#[test]
fn bad_buffer_views_are_refused() {
    let ctx = Ctx::without_validation();
    let (dev, _queue) = ctx.device();
    let buf = Buf::new(&ctx, &dev, 256, vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER);
    let try_view = |offset: u64, range: u64, format| {
        let info = vk::BufferViewCreateInfo::default()
            .buffer(buf.buffer)
            .format(format)
            .offset(offset)
            .range(range);
        // SAFETY: valid device; the create info is wrong on purpose.
        unsafe { dev.create_buffer_view(&info, None) }
    };
    let oom = Err(vk::Result::ERROR_OUT_OF_HOST_MEMORY);
    assert_eq!(
        try_view(4, 16, vk::Format::R32_UINT),
        oom,
        "unaligned offset"
    );
    assert_eq!(try_view(16, 256, vk::Format::R32_UINT), oom, "past the end");
    assert_eq!(
        try_view(0, 16, vk::Format::BC1_RGB_UNORM_BLOCK),
        oom,
        "not a buffer format"
    );
    // VK_WHOLE_SIZE from an offset is fine.
    let v = try_view(240, vk::WHOLE_SIZE, vk::Format::R32G32B32A32_UINT).unwrap();
    // SAFETY: nothing uses the view or the buffer.
    unsafe {
        dev.destroy_buffer_view(v, None);
        buf.destroy(&dev);
        dev.destroy_device(None);
    }
}
