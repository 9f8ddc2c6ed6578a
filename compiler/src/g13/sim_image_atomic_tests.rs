//! GLSL compute shaders running image atomics on the simulated USC: storage images laid out
//! by `hw::g13::layout`, their descriptors packed by `hw::g13::image_desc` with the software
//! words of docs/render-abi.md 7.2 (the ICD's side written here by hand), and the results
//! and the whole image afterwards compared with a model.

use hw::g13::control::descriptors::TextureDimension as Dim;
use hw::g13::image_desc::atomic::with_atomic_words;
use hw::g13::image_desc::{
    null_pbe_descriptor, null_texture_descriptor, pbe_descriptor_layers, pixel_format,
    texture_descriptor, ImageDesc,
};
use hw::g13::layout::{Layout, Tiling, Usage};
use sim_gpu::usc::FlatMemory;
use sim_gpu::GpuMemory;

use super::sim_harness::{memory, set0, Launch, SET};
use crate::ir::{self, AtomicTarget, Node, Op};
use crate::{DescriptorKind, ResourceLayout};

/// Above 4 GiB, so the address's high word matters.
const IMG: u64 = 0x2_4000_0000;
const INVOCATIONS: u32 = 256;
const OUT_BYTES: usize = 4 * INVOCATIONS as usize;

const R32_UINT: i32 = 98;
const R32_SINT: i32 = 99;
const R32_SFLOAT: i32 = 100;

/// Set 0: the output buffer at 0, storage images `im[2]` at 16 (48 bytes each), a storage
/// texel buffer at 112.
fn layout() -> ResourceLayout {
    set0(&[
        (0, DescriptorKind::StorageBuffer, 1, 0),
        (1, DescriptorKind::StorageImage, 2, 16),
        (2, DescriptorKind::StorageTexelBuffer, 1, 112),
    ])
}

/// Where element `e` of binding 1 lives in the set.
fn image_slot(e: u64) -> u64 {
    16 + 48 * e
}

/// A storage view: `levels` allocated, the view's `level` and layers
/// `first_layer..first_layer + layers` (3D: all slices).
struct View {
    width: u32,
    height: u32,
    layers_total: u32,
    levels: u32,
    dim: Dim,
    format: i32,
    level: u32,
    first_layer: u32,
    layers: u32,
}

impl View {
    /// An image of `size` (width, height, layers or slices) and `levels` levels, viewed as
    /// `dim` of `format` through `view` (level, first layer, layers).
    fn new(
        size: (u32, u32, u32),
        levels: u32,
        dim: Dim,
        format: i32,
        view: (u32, u32, u32),
    ) -> View {
        View {
            width: size.0,
            height: size.1,
            layers_total: size.2,
            levels,
            dim,
            format,
            level: view.0,
            first_layer: view.1,
            layers: view.2,
        }
    }

    /// The one level and layer of a `width` x `height` 2D image of `format`.
    fn whole_2d(width: u32, height: u32, format: i32) -> View {
        View::new((width, height, 1), 1, Dim::D2, format, (0, 0, 1))
    }

    fn layout(&self) -> Layout {
        let usage = Usage {
            writeable_image: true,
            ..Usage::default()
        };
        Layout::with_usage(
            self.width,
            self.height,
            self.layers_total,
            self.levels,
            4,
            Tiling::Twiddled,
            1,
            usage,
        )
        .unwrap()
    }
}

/// Initial texel values: distinct, and some negative as signed integers.
fn initial(x: u32, y: u32, layer: u32, level: u32) -> u32 {
    let h = x
        .wrapping_mul(0x9e37_79b9)
        .wrapping_add(y.wrapping_mul(0x85eb_ca6b))
        .wrapping_add(layer.wrapping_mul(0xc2b2_ae35))
        .wrapping_add(level.wrapping_mul(0x27d4_eb2f));
    h ^ (h >> 15)
}

struct World {
    mem: FlatMemory,
}

impl World {
    fn new() -> World {
        let mut mem = memory(0x1000, OUT_BYTES);
        // Null descriptors in every other slot.
        for e in 0..2 {
            mem.write(SET + image_slot(e), &null_texture_descriptor())
                .unwrap();
            mem.write(SET + image_slot(e) + 24, &null_pbe_descriptor())
                .unwrap();
        }
        World { mem }
    }

    /// Maps the image of `v` at `base` filled with [`initial`] and writes its storage
    /// descriptor (texture, then PBE with the atomic words) into element `e` of binding 1.
    fn image(&mut self, e: u64, base: u64, v: &View) -> Layout {
        let l = v.layout();
        self.mem.map(base, vec![0; l.size as usize]);
        for level in 0..l.levels {
            let (w, h) = l.level_extent(level);
            for layer in 0..l.layers {
                for y in 0..h {
                    for x in 0..w {
                        let off = l.offset_of(x, y, layer, level, 0).unwrap();
                        let t = initial(x, y, layer, level).to_le_bytes();
                        self.mem.write(base + off, &t).unwrap();
                    }
                }
            }
        }
        let img = ImageDesc {
            base,
            layout: &l,
            format: pixel_format(v.format).unwrap(),
            dimension: v.dim,
        };
        let tex = texture_descriptor(&img, v.level, 1, v.first_layer, v.layers).unwrap();
        let pbe = pbe_descriptor_layers(&img, v.level, v.first_layer, v.layers).unwrap();
        let pbe = with_atomic_words(pbe, &img, v.level).unwrap();
        self.mem.write(SET + image_slot(e), &tex).unwrap();
        self.mem.write(SET + image_slot(e) + 24, &pbe).unwrap();
        l
    }

    /// Texel (x, y) of `layer` and `level` of the image at `base`.
    fn texel(&self, base: u64, l: &Layout, x: u32, y: u32, layer: u32, level: u32) -> u32 {
        let off = l.offset_of(x, y, layer, level, 0).unwrap();
        let mut b = [0u8; 4];
        self.mem.read(base + off, &mut b).unwrap();
        u32::from_le_bytes(b)
    }

    /// Every texel of the image at `base`, by (x, y, layer, level).
    fn texels(&self, base: u64, l: &Layout) -> Vec<((u32, u32, u32, u32), u32)> {
        let mut out = Vec::new();
        for level in 0..l.levels {
            let (w, h) = l.level_extent(level);
            for layer in 0..l.layers {
                for y in 0..h {
                    for x in 0..w {
                        out.push((
                            (x, y, layer, level),
                            self.texel(base, l, x, y, layer, level),
                        ));
                    }
                }
            }
        }
        out
    }

    /// Compiles `body` and runs it on `INVOCATIONS` invocations; returns the output words.
    fn run(&mut self, body: &str) -> Vec<u32> {
        self.run_edited(body, &mut |_| {})
    }

    /// As [`World::run`], with `edit` applied to the front end's IR before the passes.
    fn run_edited(&mut self, body: &str, edit: &mut dyn FnMut(&mut ir::Shader)) -> Vec<u32> {
        let src = format!(
            "#version 450
             layout(local_size_x = {INVOCATIONS}) in;
             layout(set = 0, binding = 0) buffer B {{ uint u[{INVOCATIONS}]; }};
             {body}"
        );
        Launch {
            src: &src,
            layout: &layout(),
            invocations: INVOCATIONS,
            out_bytes: OUT_BYTES,
        }
        .run_with(&mut self.mem, edit, &|_| {})
    }
}

/// The atomic operations of the tests, as GLSL calls them and as the model applies them.
#[derive(Clone, Copy, Debug)]
enum AOp {
    Add,
    Min,
    Max,
    And,
    Or,
    Xor,
    Exchange,
    CompSwap,
}

const ALL_OPS: [AOp; 8] = [
    AOp::Add,
    AOp::Min,
    AOp::Max,
    AOp::And,
    AOp::Or,
    AOp::Xor,
    AOp::Exchange,
    AOp::CompSwap,
];

impl AOp {
    fn glsl(self) -> &'static str {
        match self {
            AOp::Add => "imageAtomicAdd",
            AOp::Min => "imageAtomicMin",
            AOp::Max => "imageAtomicMax",
            AOp::And => "imageAtomicAnd",
            AOp::Or => "imageAtomicOr",
            AOp::Xor => "imageAtomicXor",
            AOp::Exchange => "imageAtomicExchange",
            AOp::CompSwap => "imageAtomicCompSwap",
        }
    }

    /// The new texel value; `signed` for iimage types. Compare-swap compares with `cmp`.
    fn apply(self, old: u32, v: u32, cmp: u32, signed: bool) -> u32 {
        match self {
            AOp::Add => old.wrapping_add(v),
            AOp::Min if signed => (old as i32).min(v as i32) as u32,
            AOp::Min => old.min(v),
            AOp::Max if signed => (old as i32).max(v as i32) as u32,
            AOp::Max => old.max(v),
            AOp::And => old & v,
            AOp::Or => old | v,
            AOp::Xor => old ^ v,
            AOp::Exchange => v,
            AOp::CompSwap => {
                if old == cmp {
                    v
                } else {
                    old
                }
            }
        }
    }
}

/// The operand invocation `i` passes.
fn operand(i: u32) -> u32 {
    i.wrapping_mul(0x0101_0101) ^ 0x8000_0011
}

/// One atomic per invocation on distinct texels of a view (some outside it): each result
/// must be the texel's old value (0 outside), and afterwards exactly the texels the view
/// maps those coordinates to must have changed, as the model says. `coord` is the GLSL
/// coordinate expression of invocation `i`, `texel(i)` the (x, y, layer, level) of the
/// image it names, `None` outside the view. Compare-swap runs twice: with the comparator 7
/// (no swap unless the texel is 7), then on even invocations with the old value it returned
/// (a swap).
fn check_distinct(
    image_decl: &str,
    coord: &str,
    v: &View,
    signed: bool,
    texel: &dyn Fn(u32) -> Option<(u32, u32, u32, u32)>,
) {
    let ty = if signed { "int" } else { "uint" };
    for op in ALL_OPS {
        let mut w = World::new();
        let l = w.image(0, IMG, v);
        let call = match op {
            AOp::CompSwap => format!(
                "{ty} old = imageAtomicCompSwap(im[0], {coord}, {ty}(7), {ty}(operand));
                 if (i % 2u == 0u) imageAtomicCompSwap(im[0], {coord}, old, {ty}(operand));"
            ),
            _ => format!("{ty} old = {}(im[0], {coord}, {ty}(operand));", op.glsl()),
        };
        let out = w.run(&format!(
            "{image_decl}
             void main() {{
                 uint i = gl_LocalInvocationIndex;
                 uint operand = (i * 0x01010101u) ^ 0x80000011u;
                 {call}
                 u[i] = uint(old);
             }}"
        ));
        let mut want: std::collections::HashMap<(u32, u32, u32, u32), u32> = w
            .texels(IMG, &l)
            .into_iter()
            .map(|(k, _)| (k, initial(k.0, k.1, k.2, k.3)))
            .collect();
        let mut inside = 0;
        for i in 0..INVOCATIONS {
            let Some(t) = texel(i) else {
                assert_eq!(out[i as usize], 0, "{op:?} invocation {i} outside");
                continue;
            };
            inside += 1;
            let old = initial(t.0, t.1, t.2, t.3);
            assert_eq!(out[i as usize], old, "{op:?} invocation {i} at {t:?}");
            let mut new = op.apply(old, operand(i), 7, signed);
            if matches!(op, AOp::CompSwap) && i % 2 == 0 {
                new = op.apply(new, operand(i), old, signed);
            }
            want.insert(t, new);
        }
        assert!(
            inside > 0 && inside < INVOCATIONS,
            "{inside} invocations inside"
        );
        for (k, value) in w.texels(IMG, &l) {
            assert_eq!(value, want[&k], "{op:?}: texel {k:?} afterwards");
        }
    }
}

#[test]
fn atomics_on_a_2d_level_of_a_mipmapped_image() {
    // Level 1 of 45x30 is 22x15: a 16x16 grid of invocations reaches past it on both axes,
    // and (x - 2) makes some coordinates negative.
    let v = View::new((45, 30, 1), 16, Dim::D2, R32_UINT, (1, 0, 1));
    let decl = "layout(set = 0, binding = 1, r32ui) uniform uimage2D im[2];";
    let coord = "ivec2(int(i % 16u) * 2 - 2, int(i / 16u))";
    check_distinct(decl, coord, &v, false, &|i| {
        let (x, y) = ((i % 16) as i32 * 2 - 2, (i / 16) as i32);
        ((0..22).contains(&x) && y < 15).then_some((x as u32, y as u32, 0, 1))
    });
}

#[test]
fn signed_atomics_on_layers_of_a_2d_array_view() {
    // Layers 1..3 of a 4-layer 19x6 image: coordinates (x, y, layer) with x up to 19, so
    // x = 19 and layer = 3 fall outside.
    let v = View::new((19, 6, 4), 1, Dim::D2Array, R32_SINT, (0, 1, 3));
    let decl = "layout(set = 0, binding = 1, r32i) uniform iimage2DArray im[2];";
    let coord = "ivec3(int(i % 20u), int(i / 20u) % 6, int(i / 120u) + 1)";
    check_distinct(decl, coord, &v, true, &|i| {
        let (x, y, layer) = (i % 20, (i / 20) % 6, i / 120 + 1);
        // Invocations 240.. repeat y = 0..2 of layer 3 (outside anyway).
        (x < 19 && layer < 3).then_some((x, y, layer + 1, 0))
    });
}

#[test]
fn atomics_on_the_slices_of_a_3d_level() {
    // Level 1 of 12x10x9 is 6x5x4: slices 4 and up are outside it.
    let v = View::new((12, 10, 9), 4, Dim::D3, R32_UINT, (1, 0, 9));
    let decl = "layout(set = 0, binding = 1, r32ui) uniform uimage3D im[2];";
    let coord = "ivec3(int(i % 7u), int(i / 7u) % 5, int(i / 35u))";
    check_distinct(decl, coord, &v, false, &|i| {
        let (x, y, z) = (i % 7, (i / 7) % 5, i / 35);
        (x < 6 && z < 4).then_some((x, y, z, 1))
    });
}

#[test]
fn atomics_on_the_faces_of_a_cube_view() {
    // The cube made of layers 6..12 of a 12-layer 5x5 image: the third coordinate is the
    // face; 6 and up are outside. (Cube arrays wait for the ImageCubeArray capability.)
    let v = View::new((5, 5, 12), 3, Dim::Cube, R32_UINT, (0, 6, 6));
    let decl = "layout(set = 0, binding = 1, r32ui) uniform uimageCube im[2];";
    let coord = "ivec3(int(i % 5u), int(i / 5u) % 5, int(i / 25u) - 2)";
    check_distinct(decl, coord, &v, false, &|i| {
        let (x, y, face) = (i % 5, (i / 5) % 5, (i / 25) as i32 - 2);
        (0..6).contains(&face).then(|| (x, y, face as u32 + 6, 0))
    });
}

#[test]
fn atomics_on_a_1d_array() {
    let v = View::new((100, 1, 3), 1, Dim::D1Array, R32_UINT, (0, 0, 3));
    let decl = "layout(set = 0, binding = 1, r32ui) uniform uimage1DArray im[2];";
    let coord = "ivec2(int(i % 110u), int(i / 110u))";
    check_distinct(decl, coord, &v, false, &|i| {
        let (x, layer) = (i % 110, i / 110);
        (x < 100).then_some((x, 0, layer, 0))
    });
}

#[test]
fn many_invocations_on_one_texel_all_land() {
    let v = View::whole_2d(8, 8, R32_UINT);
    let mut w = World::new();
    let l = w.image(0, IMG, &v);
    let out = w.run(
        "layout(set = 0, binding = 1, r32ui) uniform uimage2D im[2];
         void main() {
             uint i = gl_LocalInvocationIndex;
             imageAtomicAdd(im[0], ivec2(3, 5), i);
             imageAtomicMax(im[0], ivec2(int(i % 4u), 7), i * 3u);
             u[i] = imageAtomicOr(im[0], ivec2(6, 6), 1u << (i % 32u));
         }",
    );
    let texel = |x, y| w.texel(IMG, &l, x, y, 0, 0);
    let sum: u32 = (0..INVOCATIONS).sum();
    assert_eq!(texel(3, 5), initial(3, 5, 0, 0).wrapping_add(sum));
    for x in 0..4 {
        let top = (0..INVOCATIONS).filter(|i| i % 4 == x).max().unwrap() * 3;
        assert_eq!(texel(x, 7), initial(x, 7, 0, 0).max(top));
    }
    assert_eq!(texel(6, 6), u32::MAX);
    // Every Or saw an old value holding the initial bits and at most the others' bits.
    let init = initial(6, 6, 0, 0);
    assert!(out.iter().all(|o| o & init == init));
    assert!(out.contains(&init));
}

#[test]
fn float_exchange_and_null_descriptors() {
    let v = View::whole_2d(4, 4, R32_SFLOAT);
    let mut w = World::new();
    let l = w.image(0, IMG, &v);
    // Element 1 of the binding keeps its null descriptor: atomics through it do nothing.
    let out = w.run(
        "layout(set = 0, binding = 1, r32f) uniform image2D im[2];
         layout(set = 0, binding = 1, r32ui) uniform uimage2D imu[2];
         void main() {
             uint i = gl_LocalInvocationIndex;
             if (i < 16u) {
                 float old = imageAtomicExchange(im[0], ivec2(i % 4u, i / 4u), float(i) * 0.5);
                 u[i] = floatBitsToUint(old);
             } else if (i < 20u) {
                 u[i] = imageAtomicAdd(imu[1], ivec2(0), 5u) + 1u;
             }
         }",
    );
    for i in 0..16 {
        let (x, y) = (i % 4, i / 4);
        assert_eq!(
            out[i as usize],
            initial(x, y, 0, 0),
            "old value at ({x}, {y})"
        );
        let t = w.texel(IMG, &l, x, y, 0, 0);
        assert_eq!(f32::from_bits(t), i as f32 * 0.5);
    }
    assert_eq!(out[16..20], [1; 4], "null descriptor atomics give 0");
}

/// Turns every image atomic into one on element `coords[0]` of the storage texel buffer at
/// binding 2 (the front end takes Dim Buffer images once texel buffers land).
fn to_texel_buffer(nodes: &mut [Node]) {
    for n in nodes {
        match n {
            Node::Block(insts) => {
                for i in insts {
                    if let Op::ImageAtomic(a) = &mut i.op {
                        a.target = AtomicTarget::Buffer;
                        a.coords.truncate(1);
                        a.image.binding = 2;
                    }
                }
            }
            Node::If {
                then_body,
                else_body,
                ..
            } => {
                to_texel_buffer(then_body);
                to_texel_buffer(else_body);
            }
            Node::Loop { body } => to_texel_buffer(body),
            _ => {}
        }
    }
}

#[test]
fn texel_buffer_atomics_stop_at_the_element_count() {
    const BUF: u64 = 0x3_0000_0000;
    const ELEMENTS: u32 = 200;
    let mut w = World::new();
    let init: Vec<u8> = (0..INVOCATIONS)
        .flat_map(|e| initial(e, 0, 0, 0).to_le_bytes())
        .collect();
    w.mem.map(BUF, init);
    // The PBE fields the shader reads: `Buffer` and the element count (render-abi 7.1).
    let mut pbe = [0u8; 24];
    hw::g13::control::descriptors::pbe::BUFFER.put(&mut pbe, BUF);
    hw::g13::image_desc::atomic::BUFFER_ELEMENTS.put(&mut pbe, u64::from(ELEMENTS));
    w.mem.write(SET + 112 + 24, &pbe).unwrap();
    let out = w.run_edited(
        "layout(set = 0, binding = 1, r32ui) uniform uimage2D im[2];
         void main() {
             uint i = gl_LocalInvocationIndex;
             u[i] = imageAtomicXor(im[0], ivec2(int(i), 0), i * 0x10001u);
         }",
        &mut |sh| to_texel_buffer(&mut sh.body),
    );
    for e in 0..INVOCATIONS {
        let mut b = [0u8; 4];
        w.mem.read(BUF + 4 * u64::from(e), &mut b).unwrap();
        let old = initial(e, 0, 0, 0);
        if e < ELEMENTS {
            assert_eq!(out[e as usize], old, "element {e}");
            assert_eq!(u32::from_le_bytes(b), old ^ (e * 0x10001), "element {e}");
        } else {
            assert_eq!(out[e as usize], 0, "element {e} past the count");
            assert_eq!(u32::from_le_bytes(b), old, "element {e} past the count");
        }
    }
}
