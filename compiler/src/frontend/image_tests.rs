//! Images and samplers through the front end: the shape of the `Op::Texture` operations
//! GLSL's texture functions become, and clear errors for what agx4 does not take.

use crate::ir::{self, ImageDim, Op, SamplerSource, Tex, TexLod, TexOp, TexSource};
use crate::{
    BindingLayout, CompileError, ComputeRequest, DescriptorKind, ResourceLayout, SetLayout, Target,
};

fn layout() -> ResourceLayout {
    let b = |binding, kind, count, offset| BindingLayout {
        binding,
        kind,
        count,
        offset,
    };
    ResourceLayout {
        sets: vec![Some(SetLayout {
            bindings: vec![
                b(0, DescriptorKind::StorageBuffer, 1, 0),
                b(1, DescriptorKind::CombinedImageSampler, 4, 16),
                b(2, DescriptorKind::SampledImage, 2, 144),
                b(3, DescriptorKind::Sampler, 3, 208),
            ],
        })],
        push_constant_size: 16,
        ..Default::default()
    }
}

const HEADER: &str = "#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer B { uint u[16]; vec4 o[]; };
";

fn translate(body: &str) -> Result<ir::Shader, CompileError> {
    let src = format!("{HEADER}{body}");
    let spirv =
        crate::g13::tests::glslang(&src).ok_or_else(|| CompileError::Internal("glslang".into()))?;
    let l = layout();
    let req = ComputeRequest {
        spirv: &spirv,
        entry_point: "main",
        specialization: &[],
        layout: &l,
        target: Target::G13,
    };
    let sh = super::translate(&req)?;
    ir::validate::validate(&sh).map_err(CompileError::Internal)?;
    Ok(sh)
}

fn textures(sh: &ir::Shader) -> Vec<Tex> {
    let mut out = Vec::new();
    crate::passes::for_each_inst(&sh.body, &mut |i| {
        if let Op::Texture(t) = &i.op {
            out.push((**t).clone());
        }
    });
    out
}

fn binding(t: &Tex) -> (u32, u32) {
    match t.texture {
        TexSource::Binding(d) => (d.set, d.binding),
        TexSource::Bindless { .. } => (u32::MAX, u32::MAX),
    }
}

#[test]
fn combined_sampler_sample_becomes_one_texture_op_with_lod_zero_in_compute() {
    let sh = translate(
        "layout(set = 0, binding = 1) uniform sampler2D t[4];
         void main() { o[0] = texture(t[2], vec2(0.5)); }",
    )
    .unwrap();
    let ts = textures(&sh);
    assert_eq!(ts.len(), 1);
    let t = &ts[0];
    assert_eq!(t.op, TexOp::Sample);
    assert_eq!(t.dim, ImageDim::D2);
    assert_eq!(binding(t), (0, 1));
    assert!(matches!(t.sampler, Some(SamplerSource::Binding(d)) if d.binding == 1));
    assert_eq!(t.coords.len(), 2);
    // No derivatives in a compute shader: level 0.
    assert!(matches!(t.lod, TexLod::Lod(_)));
    let text = ir::print::print(&sh);
    assert!(text.contains("Texture.Sample.D2 image 0.1["), "{text}");
}

#[test]
fn separate_image_and_sampler_with_dynamic_index() {
    let sh = translate(
        "layout(set = 0, binding = 2) uniform texture2DArray im[2];
         layout(set = 0, binding = 3) uniform sampler s[3];
         layout(push_constant) uniform P { int i; };
         void main() {
             o[0] = textureLod(sampler2DArray(im[i], s[i + 1]), vec3(0.5, 0.5, 1.0), 2.0);
             o[1] = textureGrad(sampler2DArray(im[1], s[0]), vec3(0.5), vec2(0.1), vec2(0.2));
             o[2] = textureLodOffset(sampler2DArray(im[0], s[0]), vec3(0.5), 1.0, ivec2(-1, 2));
         }",
    )
    .unwrap();
    let ts = textures(&sh);
    assert_eq!(ts.len(), 3);
    assert!(ts.iter().all(|t| t.arrayed && t.coords.len() == 3));
    assert!(matches!(ts[0].sampler, Some(SamplerSource::Binding(d)) if d.binding == 3));
    assert!(matches!(&ts[1].lod, TexLod::Grad { dx, dy } if dx.len() == 2 && dy.len() == 2));
    assert!(ts[2].offset.is_some());
    // After the passes: bindless textures, sampler entries, integer layers, scalar results.
    let mut sh = sh;
    crate::passes::run_all(&mut sh, &layout()).unwrap();
    let ts = textures(&sh);
    assert_eq!(ts.len(), 12, "{}", ir::print::print(&sh));
    for t in &ts {
        assert!(matches!(t.texture, TexSource::Bindless { set: 0, .. }));
        assert!(matches!(t.sampler, Some(SamplerSource::Entry(_))));
        assert_eq!(sh.ty(t.coords[2]), ir::Type::I32);
    }
}

#[test]
fn fetch_gather_shadow_proj_and_queries() {
    let sh = translate(
        "layout(set = 0, binding = 2) uniform texture2D im[2];
         layout(set = 0, binding = 3) uniform sampler s[3];
         layout(set = 0, binding = 3) uniform samplerShadow ss[3];
         layout(set = 0, binding = 1) uniform samplerCube c[4];
         layout(set = 0, binding = 2) uniform texture2DMS ms[2];
         void main() {
             o[0] = texelFetch(sampler2D(im[0], s[0]), ivec2(1, 2), 1);
             o[1] = textureGather(sampler2D(im[1], s[0]), vec2(0.5), 2);
             o[2].x = textureLod(sampler2DShadow(im[1], ss[2]), vec3(0.5, 0.5, 0.25), 0.0);
             o[3] = textureProjLod(sampler2D(im[0], s[0]), vec3(1.0, 2.0, 4.0), 0.0);
             o[4] = textureLod(c[0], vec3(1.0, 0.0, 0.0), 0.0);
             o[5] = texelFetch(sampler2DMS(ms[1], s[0]), ivec2(0), 3);
             u[0] = uint(textureSize(sampler2D(im[0], s[0]), 1).y);
             u[1] = uint(textureQueryLevels(c[1]));
             u[2] = uint(textureSamples(sampler2DMS(ms[0], s[0])));
             u[3] = uint(textureSize(c[1], 0).x);
         }",
    )
    .unwrap();
    let ts = textures(&sh);
    let ops: Vec<TexOp> = ts.iter().map(|t| t.op).collect();
    assert_eq!(
        ops,
        [
            TexOp::Fetch,
            TexOp::Gather(2),
            TexOp::Sample,
            TexOp::Sample,
            TexOp::Sample,
            TexOp::Fetch,
            TexOp::QuerySize,
            TexOp::QueryLevels,
            TexOp::QuerySamples,
            TexOp::QuerySize
        ]
    );
    assert!(ts[0].sampler.is_none());
    assert!(ts[2].dref.is_some());
    assert_eq!(ts[4].dim, ImageDim::Cube);
    assert!(ts[5].ms && ts[5].sample.is_some());
    assert!(matches!(ts[6].lod, TexLod::Lod(_)));
}

#[test]
fn unsupported_image_forms_are_errors_not_panics() {
    let e = translate(
        "layout(set = 0, binding = 2, r32ui) uniform uimage2DMS im;
         void main() { u[0] = imageAtomicAdd(im, ivec2(0), 0, 1u); }",
    );
    assert!(matches!(e, Err(CompileError::Unsupported(_))), "{e:?}");
}

#[test]
fn gather_with_four_offsets_is_four_gathers() {
    let sh = translate(
        "layout(set = 0, binding = 1) uniform sampler2D t;
         void main() { o[0] = textureGatherOffsets(t, vec2(0.5), ivec2[4](ivec2(0), ivec2(1), ivec2(0), ivec2(1)), 2); }",
    )
    .unwrap();
    let ts = textures(&sh);
    assert_eq!(ts.len(), 4);
    for t in &ts {
        assert_eq!(t.op, TexOp::Gather(2));
        assert!(t.offset.is_some());
    }
}

fn tex_desc(
    dimension: hw::g13::control::descriptors::TextureDimension,
    size: [u32; 3],
    levels: [u32; 2],
    four_samples: bool,
) -> [u8; 24] {
    use hw::g13::control::descriptors::*;
    Texture {
        dimension,
        layout: Layout::Twiddled,
        channels: Channels::R8G8B8A8,
        texture_type: TextureType::Unorm,
        swizzle: [Channel::R, Channel::G, Channel::B, Channel::A],
        width: size[0],
        height: size[1],
        first_level: levels[0],
        last_level: levels[1],
        samples: if four_samples {
            SampleCount::Four
        } else {
            SampleCount::Two
        },
        address: 0x10_0000,
        unk_mipmapped: false,
        compressed_1: false,
        null: false,
        compression: 0,
        srgb: false,
        srgb_2_channel: false,
        stride: 0,
        depth: size[2],
        page_aligned_layers: false,
        extended: false,
        extension: 0,
    }
    .pack()
}

/// Size, level and sample queries become loads of the descriptor and field extractions,
/// which the IR interpreter runs: check them against descriptors `hw` packs.
#[test]
fn queries_read_the_texture_descriptor_in_set_memory() {
    use crate::abi;
    use crate::ir::interp::{self, Dispatch, Regions};
    use hw::g13::control::descriptors::TextureDimension as D;
    let mut sh = translate(
        "layout(set = 0, binding = 2) uniform texture2DArray arr[2];
         layout(set = 0, binding = 1) uniform samplerCubeArray cubes[4];
         layout(set = 0, binding = 2) uniform texture2DMS ms[2];
         layout(set = 0, binding = 3) uniform sampler s[3];
         layout(push_constant) uniform P { int lod; };
         void main() {
             ivec3 a = textureSize(sampler2DArray(arr[1], s[0]), lod);
             u[0] = uint(a.x); u[1] = uint(a.y); u[2] = uint(a.z);
             ivec3 c = textureSize(cubes[3], 0);
             u[3] = uint(c.x); u[4] = uint(c.y); u[5] = uint(c.z);
             u[6] = uint(textureQueryLevels(cubes[3]));
             u[7] = uint(textureSamples(sampler2DMS(ms[0], s[0])));
             u[8] = uint(textureQueryLevels(sampler2DArray(arr[1], s[0])));
         }",
    )
    .unwrap();
    let l = layout();
    crate::passes::run_all(&mut sh, &l).unwrap();
    let mut set = vec![0u8; 256];
    // arr[1]: 37 x 20, 5 layers, view of levels 1..=3; asked for level 2 of the view
    // (level 3 of the image).
    set[144 + 32..144 + 56].copy_from_slice(&tex_desc(D::D2Array, [37, 20, 5], [1, 3], false));
    // cubes[3]: 16 x 16, 2 cubes (the depth of a cube view counts cubes), levels 0..=4.
    set[16 + 96..16 + 120].copy_from_slice(&tex_desc(D::CubeArray, [16, 16, 2], [0, 4], false));
    // ms[0]: 4 samples.
    set[144..168].copy_from_slice(&tex_desc(D::D2Multisampled, [8, 8, 1], [0, 0], true));
    let mut mem = Regions::default();
    let (set_va, buf_va) = (0x1000u64, 0x8000u64);
    mem.add(set_va, set.clone());
    mem.add(buf_va, vec![0u8; 64]);
    let mut root = vec![0u8; abi::ROOT_TABLE_SIZE as usize];
    root[0..8].copy_from_slice(&set_va.to_le_bytes());
    let p = abi::PUSH_CONSTANTS_OFFSET as usize;
    root[p..p + 4].copy_from_slice(&2u32.to_le_bytes());
    // The storage buffer's descriptor at binding 0: o[] is 0 vec4s, u[] starts at 0.
    let mut bd = [0u8; 16];
    bd[..8].copy_from_slice(&buf_va.to_le_bytes());
    bd[8..12].copy_from_slice(&64u32.to_le_bytes());
    mem.regions[0].1[..16].copy_from_slice(&bd);
    let d = Dispatch {
        workgroups: [1, 1, 1],
        root: &root,
        layout: &l,
        step_limit: 1_000_000,
    };
    interp::run(&sh, &d, &mut mem).unwrap_or_else(|e| panic!("{e}\n{}", ir::print::print(&sh)));
    let out = mem.bytes(buf_va).unwrap();
    let words: Vec<u32> = out
        .chunks_exact(4)
        .take(9)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(words, [37 >> 3, 20 >> 3, 5, 16, 16, 2, 5, 4, 3]);
    // Null descriptors answer 0.
    let null = hw::g13::image_desc::null_texture_descriptor();
    mem.regions[0].1[144 + 32..144 + 56].copy_from_slice(&null);
    mem.regions[0].1[16 + 96..16 + 120].copy_from_slice(&null);
    interp::run(&sh, &d, &mut mem).unwrap();
    let out = mem.bytes(buf_va).unwrap();
    let words: Vec<u32> = out
        .chunks_exact(4)
        .take(9)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(words, [0, 0, 0, 0, 0, 0, 0, 4, 0]);
}

/// The decoded `texture` instructions of a compiled compute shader.
fn compiled_textures(body: &str) -> Result<Vec<hw::isa::Texture>, CompileError> {
    let src = format!("{HEADER}{body}");
    let spirv =
        crate::g13::tests::glslang(&src).ok_or_else(|| CompileError::Internal("glslang".into()))?;
    let l = layout();
    let bin = crate::compile_compute(&ComputeRequest {
        spirv: &spirv,
        entry_point: "main",
        specialization: &[],
        layout: &l,
        target: Target::G13,
    })?;
    let mut at = 0;
    let mut out = Vec::new();
    while at < bin.code.len() {
        let (i, len) = hw::g13::decode(&bin.code[at..]).expect("decode");
        if let hw::isa::Instr::Texture(t) = i {
            out.push(t);
        }
        at += len;
    }
    Ok(out)
}

#[test]
fn back_end_emits_bindless_textures_with_heap_samplers() {
    use hw::isa::{LodMode, Size, Small, TexDim, TexIndex};
    let ts = compiled_textures(
        "layout(set = 0, binding = 1) uniform sampler2D t[4];
         layout(set = 0, binding = 2) uniform texture2DArray arr[2];
         layout(set = 0, binding = 3) uniform sampler s[3];
         layout(set = 0, binding = 3) uniform samplerShadow ss[3];
         void main() {
             o[0] = textureLod(t[1], vec2(0.25, 0.75), 1.5);
             o[1] = texelFetch(t[2], ivec2(3, 4), 0);
             o[2] = textureGather(t[0], vec2(0.5), 1);
             o[3].x = texture(sampler2DArrayShadow(arr[0], ss[1]), vec4(0.5, 0.5, 1.0, 0.5));
             o[4] = textureLodOffset(sampler2DArray(arr[1], s[2]), vec3(0.5, 0.5, 0.2), 0.0, ivec2(1, -1));
             o[5].xy = textureGrad(t[3], vec2(0.5), vec2(0.01, 0.0), vec2(0.0, 0.01)).xy;
         }",
    )
    .unwrap();
    // One instruction per operation, its components in consecutive registers; a gather's
    // four components are four gathers.
    assert_eq!(ts.len(), 1 + 1 + 4 + 1 + 1 + 1, "{ts:#?}");
    for t in &ts {
        assert!(
            matches!(t.texture, TexIndex::Bindless { base: 0, index } if index.size == Size::S32)
        );
        assert_eq!(t.dst.size, Size::S32);
    }
    let masks: Vec<u8> = ts.iter().map(|t| t.mask).collect();
    assert_eq!(masks, [0b1111, 0b1111, 1, 2, 4, 8, 1, 0b1111, 0b11]);
    let lod = &ts[0];
    assert!(!lod.load && lod.lod_mode == LodMode::Min && matches!(lod.sampler, Small::Reg(_)));
    assert_eq!(lod.dim, TexDim::D2);
    let fetch = &ts[1];
    assert!(fetch.load && fetch.lod_mode == LodMode::Auto && fetch.sampler == Small::Imm(0));
    assert!(ts[2..6].iter().all(|g| g.gather == Some(1)));
    let shadow = &ts[6];
    assert!(shadow.shadow && !shadow.offset && shadow.extra.is_some());
    assert_eq!(shadow.dim, TexDim::D2Array);
    let off = &ts[7];
    assert!(off.offset && !off.shadow && off.extra.is_some());
    let grad = &ts[8];
    assert_eq!(grad.lod_mode, LodMode::Grad);
}

#[test]
fn texture_errors_are_clean() {
    // LOD queries are not implemented: a clear error.
    let e = compiled_textures(
        "layout(set = 0, binding = 1) uniform sampler2D c[4];
         void main() { o[0].xy = textureQueryLod(c[0], vec2(0.5)); }",
    );
    assert!(matches!(e, Err(CompileError::Unsupported(_))), "{e:?}");
    // A binding of the wrong kind.
    let e = compiled_textures(
        "layout(set = 0, binding = 0) uniform sampler2D t;
         void main() { o[0] = textureLod(t, vec2(0.5), 0.0); }",
    );
    assert!(matches!(e, Err(CompileError::InvalidSpirv(_))), "{e:?}");
}
