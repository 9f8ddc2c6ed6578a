//! GLSL compute shaders that sample images in descriptor sets, compiled and run on the
//! simulated USC with set memory, bindless texture descriptors and a sampler heap laid out as
//! docs/render-abi.md section 7 says (the ICD's side written here by hand).

use hw::g13::control::descriptors::{
    CompareFunc, Filter, MipFilter, TextureDimension as Dim, Wrap,
};
use hw::g13::image_desc::{
    pbe_descriptor, pixel_format, sampler_descriptor, texture_descriptor, ImageDesc, SamplerDesc,
};
use hw::g13::layout::{Layout, Tiling};
use sim_gpu::usc::texture::SamplerHeap;
use sim_gpu::usc::FlatMemory;
use sim_gpu::GpuMemory;

use super::sim_harness::{memory, set0, Launch, OUT, SET};
use crate::{DescriptorKind, ResourceLayout};

const IMG: u64 = 0x40_0000;
const HEAP: u64 = 0x90_0000;
const OUT_BYTES: usize = 256;

const R8G8B8A8_UNORM: i32 = 37;
const R32_SFLOAT: i32 = 100;

/// Set 0: the output buffer at 0, combined image samplers `t[4]` at 16, sampled images
/// `im[2]` at 144, samplers `s[3]` at 208.
fn layout() -> ResourceLayout {
    set0(&[
        (0, DescriptorKind::StorageBuffer, 1, 0),
        (1, DescriptorKind::CombinedImageSampler, 4, 16),
        (2, DescriptorKind::SampledImage, 2, 144),
        (3, DescriptorKind::Sampler, 3, 208),
        (4, DescriptorKind::StorageImage, 2, 240),
    ])
}

const HEADER: &str = "#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer B { vec4 o[8]; uint u[16]; };
layout(set = 0, binding = 1) uniform sampler2D t[4];
layout(set = 0, binding = 2) uniform texture2DArray im[2];
layout(set = 0, binding = 3) uniform sampler s[3];
layout(set = 0, binding = 3) uniform samplerShadow ss[3];
layout(set = 0, binding = 4, r32f) uniform image2D st[2];
layout(set = 0, binding = 1) uniform samplerCube cube[4];
layout(set = 0, binding = 2) uniform texture2DMSArray msa[2];
";

/// The sampler heap's entries.
fn heap() -> Vec<SamplerDesc> {
    let linear = SamplerDesc {
        mag_filter: Filter::Linear,
        min_filter: Filter::Linear,
        ..SamplerDesc::default()
    };
    let shadow = SamplerDesc {
        compare: Some(CompareFunc::Lequal),
        ..SamplerDesc::default()
    };
    let repeat = SamplerDesc {
        wrap: [Wrap::Repeat; 3],
        mip_filter: MipFilter::Nearest,
        ..SamplerDesc::default()
    };
    vec![SamplerDesc::default(), linear, shadow, repeat]
}

/// The world the shaders run in.
struct World {
    mem: FlatMemory,
}

impl World {
    fn new() -> World {
        let mut mem = memory(0x1000, OUT_BYTES);
        let h: Vec<u8> = heap().iter().flat_map(sampler_descriptor).collect();
        mem.map(HEAP, h);
        World { mem }
    }

    /// A sampler entry (heap index, f16 LOD bias) at byte `at` of the set.
    fn sampler_entry(&mut self, at: u64, heap_index: u16, bias_f16: u16) {
        let mut e = [0u8; 8];
        e[..2].copy_from_slice(&heap_index.to_le_bytes());
        e[2..4].copy_from_slice(&bias_f16.to_le_bytes());
        self.mem.write(SET + at, &e).unwrap();
    }

    /// An image at `base`, each texel's bytes from `texel(x, y, layer, level)`, and its
    /// texture descriptor at byte `at` of the set.
    fn image(
        &mut self,
        at: u64,
        base: u64,
        layout: &Layout,
        format: i32,
        dimension: Dim,
        texel: &dyn Fn(u32, u32, u32, u32) -> Vec<u8>,
    ) {
        self.mem.map(base, vec![0; layout.size as usize]);
        for level in 0..layout.levels {
            let (w, h) = layout.level_extent(level);
            for layer in 0..layout.layers {
                for y in 0..h {
                    for x in 0..w {
                        let off = layout.offset_of(x, y, layer, level, 0).unwrap();
                        self.mem
                            .write(base + off, &texel(x, y, layer, level))
                            .unwrap();
                    }
                }
            }
        }
        let img = ImageDesc {
            base,
            layout,
            format: pixel_format(format).unwrap(),
            dimension,
        };
        let d = texture_descriptor(&img, 0, layout.levels, 0, layout.layers).unwrap();
        self.mem.write(SET + at, &d).unwrap();
    }

    /// Compiles and runs one invocation of `body`; returns the output buffer as words.
    fn run(&mut self, body: &str) -> Vec<u32> {
        Launch {
            src: &format!("{HEADER}{body}"),
            layout: &layout(),
            invocations: 1,
            out_bytes: OUT_BYTES,
        }
        .run_with(&mut self.mem, &mut |_| {}, &|launch| {
            launch.textures.sampler_heap = SamplerHeap {
                base: HEAP,
                count: heap().len() as u32,
            };
        })
    }
}

fn floats(w: &[u32]) -> Vec<f32> {
    w.iter().map(|x| f32::from_bits(*x)).collect()
}

fn close(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1.0 / 512.0)
}

/// A 4x4 RGBA8 UNORM image with two levels: texel (x, y) of level l is (60x, 60y, 100l, 255).
fn rgba_world() -> World {
    let mut w = World::new();
    let layout = Layout::new(4, 4, 1, 2, 4, Tiling::Twiddled, 1).unwrap();
    let texel = |x: u32, y: u32, _: u32, level: u32| {
        vec![(60 * x) as u8, (60 * y) as u8, (100 * level) as u8, 255]
    };
    w.image(16, IMG, &layout, R8G8B8A8_UNORM, Dim::D2, &texel);
    w
}

fn rgba(x: f32, y: f32, level: f32) -> [f32; 4] {
    [
        60.0 * x / 255.0,
        60.0 * y / 255.0,
        100.0 * level / 255.0,
        1.0,
    ]
}

#[test]
fn nearest_and_linear_sampling_through_the_sampler_heap() {
    let mut w = rgba_world();
    // t[0] with heap entry 0 (nearest), t[1] the same image with entry 1 (linear).
    w.sampler_entry(16 + 24, 0, 0);
    let mut d = [0u8; 24];
    w.mem.read(SET + 16, &mut d).unwrap();
    w.mem.write(SET + 48, &d).unwrap();
    w.sampler_entry(48 + 24, 1, 0);
    let out = w.run(
        "void main() {
             o[0] = textureLod(t[0], vec2(1.25 / 4.0, 2.5 / 4.0), 0.0);
             o[1] = textureLod(t[1], vec2(1.25 / 4.0, 2.5 / 4.0), 0.0);
             o[2] = texture(t[0], vec2(3.5 / 4.0, 0.5 / 4.0));
         }",
    );
    let f = floats(&out);
    assert!(close(&f[0..4], &rgba(1.0, 2.0, 0.0)), "{:?}", &f[0..4]);
    // Linear: u = 1.25 texels covers texels 0 and 1 (0.25, 0.75); v = 2.5 is texel 2 alone.
    assert!(close(&f[4..8], &rgba(0.75, 2.0, 0.0)), "{:?}", &f[4..8]);
    // Implicit LOD in a compute shader is level 0.
    assert!(close(&f[8..12], &rgba(3.0, 0.0, 0.0)), "{:?}", &f[8..12]);
}

#[test]
fn explicit_lod_and_the_sampler_lod_bias() {
    let mut w = rgba_world();
    // Bias +1.0 (f16 0x3c00): level 0 asked for, level 1 read.
    w.sampler_entry(16 + 24, 0, 0x3c00);
    let out = w.run(
        "void main() {
             o[0] = textureLod(t[0], vec2(0.5 / 2.0, 1.5 / 2.0), 0.0);
             o[1] = textureLod(t[0], vec2(0.5 / 2.0, 1.5 / 2.0), -1.0);
             o[2] = textureLod(t[0], vec2(0.5 / 2.0, 1.5 / 2.0), 1.0);
         }",
    );
    let f = floats(&out);
    // 0 + 1: level 1 (2 x 2), texel (0, 1).
    assert!(close(&f[0..4], &rgba(0.0, 1.0, 1.0)), "{:?}", &f[0..4]);
    // 1 + 1: level 2 (1 x 1), texel (0, 0).
    assert!(close(&f[8..12], &rgba(0.0, 0.0, 2.0)), "{:?}", &f[8..12]);
    // -1 + 1: level 0, texel (1, 3).
    assert!(close(&f[4..8], &rgba(1.0, 3.0, 0.0)), "{:?}", &f[4..8]);
}

#[test]
fn texel_fetch_size_levels_and_gather() {
    let mut w = rgba_world();
    w.sampler_entry(16 + 24, 0, 0);
    let out = w.run(
        "void main() {
             o[0] = texelFetch(t[0], ivec2(2, 3), 0);
             o[1] = texelFetch(t[0], ivec2(1, 0), 1);
             o[2] = textureGather(t[0], vec2(0.5), 0);
             ivec2 s0 = textureSize(t[0], 0);
             ivec2 s1 = textureSize(t[0], 1);
             u[0] = uint(s0.x); u[1] = uint(s0.y); u[2] = uint(s1.x); u[3] = uint(s1.y);
             u[4] = uint(textureQueryLevels(t[0]));
         }",
    );
    let f = floats(&out);
    assert!(close(&f[0..4], &rgba(2.0, 3.0, 0.0)), "{:?}", &f[0..4]);
    assert!(close(&f[4..8], &rgba(1.0, 0.0, 1.0)), "{:?}", &f[4..8]);
    // The footprint around the centre: texels (1, 2), (2, 2), (2, 1), (1, 1), red channel.
    let g = [60.0, 120.0, 120.0, 60.0].map(|x: f32| x / 255.0);
    assert!(close(&f[8..12], &g), "{:?}", &f[8..12]);
    // `Layout` gives the image its whole mip chain below the levels asked for (3 here).
    let levels = Layout::new(4, 4, 1, 2, 4, Tiling::Twiddled, 1)
        .unwrap()
        .levels;
    assert_eq!(&out[32..37], &[4, 4, 2, 2, levels]);
}

#[test]
fn shadow_compare_and_array_layers_round_and_clamp() {
    let mut w = World::new();
    // im[0]: a 2x2 R32_SFLOAT array of 3 layers, texel value 0.25 + 0.25 * layer.
    let layout = Layout::new(2, 2, 3, 1, 4, Tiling::Twiddled, 1).unwrap();
    let texel =
        |_: u32, _: u32, layer: u32, _: u32| (0.25 + 0.25 * layer as f32).to_le_bytes().to_vec();
    w.image(144, IMG, &layout, R32_SFLOAT, Dim::D2Array, &texel);
    w.sampler_entry(208, 0, 0);
    w.sampler_entry(208 + 8, 2, 0);
    let out = w.run(
        "void main() {
             vec2 c = vec2(0.5);
             o[0].x = textureLod(sampler2DArray(im[0], s[0]), vec3(c, 1.5), 0.0).x;
             o[0].y = textureLod(sampler2DArray(im[0], s[0]), vec3(c, 2.5), 0.0).x;
             o[0].z = textureLod(sampler2DArray(im[0], s[0]), vec3(c, 9.0), 0.0).x;
             o[0].w = textureLod(sampler2DArray(im[0], s[0]), vec3(c, -3.0), 0.0).x;
             // Lequal: reference <= texel passes. Layer 1 holds 0.5.
             o[1].x = texture(sampler2DArrayShadow(im[0], ss[1]), vec4(c, 1.0, 0.4));
             o[1].y = texture(sampler2DArrayShadow(im[0], ss[1]), vec4(c, 1.0, 0.6));
         }",
    );
    let f = floats(&out);
    // 1.5 rounds to even 2; 2.5 to 2; 9 clamps to 2; -3 to 0.
    assert_eq!(&f[0..4], &[0.75, 0.75, 0.75, 0.25]);
    assert_eq!(&f[4..6], &[1.0, 0.0]);
}

#[test]
fn storage_image_store_load_and_size() {
    let mut w = World::new();
    // st[1]: a 4x4 R32_SFLOAT image, texel (x, y) = x + 10y; its texture descriptor at
    // 240 + 48, the PBE descriptor 24 bytes on.
    let layout = Layout::new(4, 4, 1, 1, 4, Tiling::Twiddled, 1).unwrap();
    let texel = |x: u32, y: u32, _: u32, _: u32| ((x + 10 * y) as f32).to_le_bytes().to_vec();
    w.image(288, IMG, &layout, R32_SFLOAT, Dim::D2, &texel);
    let img = ImageDesc {
        base: IMG,
        layout: &layout,
        format: pixel_format(R32_SFLOAT).unwrap(),
        dimension: Dim::D2,
    };
    let pbe = pbe_descriptor(&img, 0, 0).unwrap();
    w.mem.write(SET + 288 + 24, &pbe).unwrap();
    let out = w.run(
        "void main() {
             imageStore(st[1], ivec2(2, 1), vec4(0.75, 0.0, 0.0, 1.0));
             o[0] = imageLoad(st[1], ivec2(3, 3));
             u[0] = uint(imageSize(st[1]).x);
             u[1] = uint(imageSize(st[1]).y);
         }",
    );
    assert_eq!(f32::from_bits(out[0]), 33.0);
    assert_eq!(&out[32..34], &[4, 4]);
    let off = layout.offset_of(2, 1, 0, 0, 0).unwrap();
    let mut b = [0u8; 4];
    w.mem.read(IMG + off, &mut b).unwrap();
    assert_eq!(f32::from_le_bytes(b), 0.75);
}

#[test]
fn gradients_offsets_and_the_bias_on_gradients() {
    let mut w = rgba_world();
    w.sampler_entry(16 + 24, 0, 0);
    // t[1]: the same image with bias +1.0, which scales gradients by 2.
    let mut d = [0u8; 24];
    w.mem.read(SET + 16, &mut d).unwrap();
    w.mem.write(SET + 48, &d).unwrap();
    w.sampler_entry(48 + 24, 0, 0x3c00);
    let out = w.run(
        "void main() {
             vec2 c = vec2(0.5 / 2.0, 1.5 / 2.0);
             // Two texels per unit step of x at level 0: LOD 1.
             o[0] = textureGrad(t[0], c, vec2(0.5, 0.0), vec2(0.0, 0.1));
             o[1] = textureGrad(t[1], c, vec2(0.5, 0.0), vec2(0.0, 0.1));
             o[2] = textureLodOffset(t[0], vec2(1.5 / 4.0, 0.5 / 4.0), 0.0, ivec2(1, 2));
         }",
    );
    let f = floats(&out);
    assert!(close(&f[0..4], &rgba(0.0, 1.0, 1.0)), "{:?}", &f[0..4]);
    assert!(close(&f[4..8], &rgba(0.0, 0.0, 2.0)), "{:?}", &f[4..8]);
    assert!(close(&f[8..12], &rgba(2.0, 2.0, 0.0)), "{:?}", &f[8..12]);
}

#[test]
fn cube_maps_take_the_direction() {
    let mut w = World::new();
    // cube[2]: 2x2 faces, face f all (40f, 0, 0, 255).
    let layout = Layout::new(2, 2, 6, 1, 4, Tiling::Twiddled, 1).unwrap();
    let texel = |_: u32, _: u32, face: u32, _: u32| vec![(40 * face) as u8, 0, 0, 255];
    w.image(16 + 64, IMG, &layout, R8G8B8A8_UNORM, Dim::Cube, &texel);
    w.sampler_entry(16 + 64 + 24, 0, 0);
    let out = w.run(
        "void main() {
             o[0].x = textureLod(cube[2], vec3(1.0, 0.2, 0.1), 0.0).x;
             o[0].y = textureLod(cube[2], vec3(-1.0, 0.2, 0.1), 0.0).x;
             o[0].z = textureLod(cube[2], vec3(0.1, 1.0, 0.2), 0.0).x;
             o[0].w = textureLod(cube[2], vec3(0.1, -1.0, 0.2), 0.0).x;
             o[1].x = textureLod(cube[2], vec3(0.1, 0.2, 1.0), 0.0).x;
             o[1].y = textureLod(cube[2], vec3(0.1, 0.2, -1.0), 0.0).x;
         }",
    );
    let f = floats(&out);
    let want: Vec<f32> = (0..6).map(|k| (40 * k) as f32 / 255.0).collect();
    assert!(close(&f[0..6], &want), "{:?}", &f[0..6]);
}

#[test]
fn multisampled_array_fetch_names_the_sample_and_the_layer() {
    let mut w = World::new();
    // msa[1]: 2x2, 3 layers, 4 samples of R32_SFLOAT, value 100 layer + 10 sample + x + 2y.
    let layout = Layout::new(2, 2, 3, 1, 4, Tiling::Twiddled, 4).unwrap();
    w.mem.map(IMG, vec![0; layout.size as usize]);
    for layer in 0..3 {
        for sample in 0..4 {
            for y in 0..2 {
                for x in 0..2 {
                    let v = (100 * layer + 10 * sample + x + 2 * y) as f32;
                    let off = layout.offset_of(x, y, layer, 0, sample).unwrap();
                    w.mem.write(IMG + off, &v.to_le_bytes()).unwrap();
                }
            }
        }
    }
    let img = ImageDesc {
        base: IMG,
        layout: &layout,
        format: pixel_format(R32_SFLOAT).unwrap(),
        dimension: Dim::D2ArrayMultisampled,
    };
    let d = texture_descriptor(&img, 0, 1, 0, 3).unwrap();
    w.mem.write(SET + 144 + 32, &d).unwrap();
    let out = w.run(
        "void main() {
             o[0].x = texelFetch(sampler2DMSArray(msa[1], s[0]), ivec3(1, 0, 2), 3).x;
             o[0].y = texelFetch(sampler2DMSArray(msa[1], s[0]), ivec3(0, 1, 1), 2).x;
             u[0] = uint(textureSamples(sampler2DMSArray(msa[1], s[0])));
             u[1] = uint(textureSize(sampler2DMSArray(msa[1], s[0])).z);
         }",
    );
    assert_eq!(&floats(&out[0..2]), &[231.0, 122.0]);
    assert_eq!(&out[32..34], &[4, 3]);
}

#[test]
fn gathers_with_four_offsets_and_dynamic_offsets() {
    let mut w = rgba_world();
    w.sampler_entry(16 + 24, 0, 0);
    // u[10], u[11]: a run-time offset (-2, 1); u[12], u[13]: (-8, 7), the ends of the range.
    let words: [i32; 4] = [-2, 1, -8, 7];
    for (k, v) in words.iter().enumerate() {
        w.mem
            .write(OUT + 4 * (42 + k as u64), &v.to_le_bytes())
            .unwrap();
    }
    let out = w.run(
        "void main() {
             const ivec2 offs[4] = ivec2[4](ivec2(-1, 0), ivec2(1, 1), ivec2(0, -1), ivec2(1, -1));
             ivec2 d = ivec2(int(u[10]), int(u[11]));
             ivec2 e = ivec2(int(u[12]), int(u[13]));
             o[0] = textureGatherOffsets(t[0], vec2(0.5), offs, 0);
             o[1] = textureGatherOffsets(t[0], vec2(0.5), offs, 1);
             o[2] = textureGatherOffset(t[0], vec2(0.5), d, 0);
             o[3] = textureGatherOffset(t[0], vec2(0.5), d, 1);
             o[4] = textureGatherOffset(t[0], vec2(0.5), e, 0);
             o[5] = textureGatherOffset(t[0], vec2(0.5), e, 1);
         }",
    );
    let f = floats(&out);
    // The footprint at the centre has i0j0 = (1, 1); component k is texel (1, 1) plus
    // offset k: (0, 1), (2, 2), (1, 0), (2, 0).
    let n = |xs: [f32; 4]| xs.map(|x| 60.0 * x / 255.0);
    assert!(close(&f[0..4], &n([0.0, 2.0, 1.0, 2.0])), "{:?}", &f[0..4]);
    assert!(close(&f[4..8], &n([1.0, 2.0, 0.0, 0.0])), "{:?}", &f[4..8]);
    // All moved by (-2, 1) and clamped to the edge: (0, 3), (0, 3), (0, 2), (0, 2).
    assert!(
        close(&f[8..12], &n([0.0, 0.0, 0.0, 0.0])),
        "{:?}",
        &f[8..12]
    );
    assert!(
        close(&f[12..16], &n([3.0, 3.0, 2.0, 2.0])),
        "{:?}",
        &f[12..16]
    );
    // By (-8, 7): every texel clamps to (0, 3).
    assert!(close(&f[16..20], &n([0.0; 4])), "{:?}", &f[16..20]);
    assert!(close(&f[20..24], &n([3.0; 4])), "{:?}", &f[20..24]);
}
