//! The texture unit and the PBE as the USC reaches them: `texture` (sample and load) through
//! texture and sampler descriptors, and `image_write` through PBE descriptors. The descriptors
//! are the launch's texture and sampler state registers, loaded by USC Texture and Sampler
//! words.
//!
//! Register conventions (Mesa's agx compiler and its texture lowering; applegpu names the
//! fields):
//! * Coordinates are a run of 32-bit registers from `coords`, by dimension:
//!   1D `x`; 1D array `x, layer`; 2D `x, y`; 2D array `x, y, layer`; 2D MS `x, y, sample`;
//!   3D `x, y, z`; cube `x, y, z`; cube array `x, y, z, cube`; 2D MS array
//!   `x, y, sample | layer << 16`. Loads and image writes take integers (two's complement);
//!   samples take f32 for x, y, z and an unsigned integer layer (Mesa rounds and clamps it
//!   in the shader).
//! * LOD: `texture_load` with `Auto` reads level 0 of the view, with `Min` the u16 level in
//!   the 16-bit LOD register. `texture_sample` with `Min` takes an f16 LOD; the implicit
//!   modes (`Auto`, `AutoBias`, `AutoBiasMin`) need quad derivatives and fault as
//!   unimplemented. `Grad`/`GradMin` take a 32-bit register run: d/dx, d/dy of each
//!   coordinate axis interleaved, then (`GradMin`) an f16 minimum LOD; cube maps with
//!   gradients are not modelled. A uniform LOD operand faults as unimplemented (uniforms do
//!   not reach this unit in the model).
//! * `extra` (present with `shadow` and/or `offset`): the f32 depth reference, then (or
//!   alone) the packed texel offsets, one signed nibble per axis from bit 0.
//! * Results: the components selected by `mask` (bit 0 = R ... bit 3 = A), after the
//!   descriptor swizzle, go to consecutive registers from `dst`: 32-bit destinations get
//!   f32 bits (UNORM/SNORM/float types) or 32-bit integers, 16-bit destinations get f16 or
//!   the low 16 bits of the integer.
//! * `image_write`: four components from `src` (16-bit: f16 or 16-bit integers, sign-extended
//!   for SINT; 32-bit: f32 or 32-bit integers); level = the PBE's level + `lod`; layers count
//!   from the PBE's buffer. Stores outside the image are dropped.
//! * Out-of-bounds loads (coordinate, layer, level or sample) read a zero texel, then the
//!   swizzle (so constant-one components stay one) — **agx4** reading of Mesa's remark that
//!   the hardware returns zero for out-of-bounds `texture_load`.
//! * Multisampled `image_write` (**agx4**, docs/render-abi.md): the sample index is the last
//!   coordinate as for loads (Mesa itself stores MSAA storage images as buffers and uses a
//!   block store at end of tile).
//! * Gathers (`gather` = component c, `Auto` LOD): component c, after the swizzle, of the
//!   four texels of the bilinear footprint at the view's base level, in Vulkan's order
//!   (i0 j1, i1 j1, i1 j0, i0 j0), each compared first for shadow samplers.
//!
//! Bindless texture operands (heap address in uniforms) fault as unimplemented, as do LOD
//! queries and compressed images.

use super::group::SimdGroup;
use super::program::Program;
use crate::g13::control::descriptors::{Channel, Pbe, Sampler, Texture as TexDesc, TextureType};
use crate::gpu::texel::format::{self, Texel};
use crate::gpu::texel::image::Surface;
use crate::gpu::texel::minifloat::{f16_to_f32, f32_to_f16};
use crate::gpu::texel::sample::{self, Extent, Request, SampleError, Shape};
use crate::gpu::{Fault, GpuMemory};
use crate::isa::*;
use std::cell::RefCell;
use std::rc::Rc;

/// Bytes of a texture or PBE descriptor.
pub const TEXTURE_DESCRIPTOR_BYTES: usize = 24;
/// Bytes of a sampler descriptor.
pub const SAMPLER_DESCRIPTOR_BYTES: usize = 8;

const LANES: usize = SIMD_WIDTH;

/// A launch's texture and sampler state registers, indexed by register number.
#[derive(Debug, Clone, Default)]
pub struct TextureState {
    pub textures: Vec<[u8; TEXTURE_DESCRIPTOR_BYTES]>,
    pub samplers: Vec<[u8; SAMPLER_DESCRIPTOR_BYTES]>,
}

fn fault(prog: &Program, idx: usize, why: impl Into<String>) -> Fault {
    Fault::Shader {
        pc: prog.pc(idx),
        reason: why.into(),
    }
}

/// A register run of `halves` halves from `half` must fit the register file.
fn check_run(prog: &Program, idx: usize, what: &str, half: u16, halves: u16) -> Result<(), Fault> {
    if u32::from(half) + u32::from(halves) > u32::from(GPR_HALVES) {
        return Err(fault(
            prog,
            idx,
            format!("{what} registers run past the register file"),
        ));
    }
    Ok(())
}

fn r32(g: &SimdGroup, half: u16, i: u16, lane: usize) -> u32 {
    g.reg(
        Reg {
            half: half + 2 * i,
            size: Size::S32,
        },
        lane,
    ) as u32
}

/// Coordinate registers a dimension takes.
fn coord_count(d: TexDim) -> u16 {
    match d {
        TexDim::D1 => 1,
        TexDim::D1Array | TexDim::D2 | TexDim::D2MsArray => 2 + u16::from(d == TexDim::D2MsArray),
        TexDim::D2Array | TexDim::D2Ms | TexDim::D3 | TexDim::Cube => 3,
        TexDim::CubeArray => 4,
    }
}

/// Integer coordinates of one lane: x, y, z (3D slice), layer, sample.
struct IntCoords {
    xyz: [i64; 3],
    layer: u32,
    sample: u32,
}

fn int_coords(d: TexDim, c: &[u32; 4]) -> IntCoords {
    let i = |k: usize| i64::from(c[k] as i32);
    let (xyz, layer, sample) = match d {
        TexDim::D1 => ([i(0), 0, 0], 0, 0),
        TexDim::D1Array => ([i(0), 0, 0], c[1], 0),
        TexDim::D2 => ([i(0), i(1), 0], 0, 0),
        TexDim::D2Array => ([i(0), i(1), 0], c[2], 0),
        TexDim::D2Ms => ([i(0), i(1), 0], 0, c[2]),
        TexDim::D2MsArray => ([i(0), i(1), 0], c[2] >> 16, c[2] & 0xffff),
        TexDim::D3 | TexDim::Cube => ([i(0), i(1), i(2)], 0, 0),
        TexDim::CubeArray => ([i(0), i(1), i(2)], c[3], 0),
    };
    IntCoords { xyz, layer, sample }
}

/// The z a surface addresses: the 3D slice, or the layer.
fn surface_z(d: TexDim, c: &IntCoords) -> i64 {
    if d == TexDim::D3 {
        c.xyz[2]
    } else {
        i64::from(c.layer)
    }
}

fn apply_swizzle(t: Texel, sw: [Channel; 4]) -> Texel {
    let pick = |c: Channel| -> usize {
        match c {
            Channel::R => 0,
            Channel::G => 1,
            Channel::B => 2,
            Channel::A => 3,
            Channel::Zero => 4,
            Channel::One => 5,
        }
    };
    match t {
        Texel::Float(f) => {
            let ext = [f[0], f[1], f[2], f[3], 0.0, 1.0];
            Texel::Float(sw.map(|c| ext[pick(c)]))
        }
        Texel::Int(v) => {
            let ext = [v[0], v[1], v[2], v[3], 0, 1];
            Texel::Int(sw.map(|c| ext[pick(c)]))
        }
    }
}

/// A decoded texture state register (see `decoded`).
struct Bound {
    desc: TexDesc,
    surface: Option<Surface>,
}

fn texture_index(
    g: &SimdGroup,
    t: TexIndex,
    lane: usize,
    prog: &Program,
    idx: usize,
) -> Result<usize, Fault> {
    match t {
        TexIndex::Imm(n) => Ok(usize::from(n)),
        TexIndex::Reg(r) => {
            check_run(prog, idx, "texture index", r.half, 1)?;
            Ok(g.reg(r, lane) as u16 as usize)
        }
        TexIndex::Bindless { .. } => Err(Fault::Unimplemented(
            "bindless texture operands (descriptor heaps in uniforms)",
        )),
    }
}

fn state_word<'a, const N: usize>(
    words: &'a [[u8; N]],
    n: usize,
    what: &str,
    prog: &Program,
    idx: usize,
) -> Result<&'a [u8; N], Fault> {
    words.get(n).ok_or_else(|| {
        fault(
            prog,
            idx,
            format!("{what} state register {n} is not loaded"),
        )
    })
}

/// A decoded PBE state register (see `decoded`).
struct BoundPbe {
    pbe: Pbe,
    surface: Option<Surface>,
}

/// Recently decoded descriptors of this thread, keyed by their bytes.
type Decoded<T> = RefCell<Vec<([u8; TEXTURE_DESCRIPTOR_BYTES], Rc<T>)>>;

/// Descriptors each thread keeps decoded.
const DECODED_KEPT: usize = 8;

thread_local! {
    // Decoding a descriptor (unpacking and checking its fields, building the surface's
    // layout) costs far more than a texel, and tile programs run the same instruction on the
    // same descriptor in every SIMD group of every tile. The decode is a pure function of the
    // descriptor's bytes, so remembering the last few decodes changes no result; failures
    // are not remembered and are decoded (and reported) again.
    static TEXTURES: Decoded<Bound> = const { RefCell::new(Vec::new()) };
    static PBES: Decoded<BoundPbe> = const { RefCell::new(Vec::new()) };
}

fn decoded<T>(
    kept: &'static std::thread::LocalKey<Decoded<T>>,
    bytes: &[u8; TEXTURE_DESCRIPTOR_BYTES],
    decode: impl FnOnce() -> Result<T, Fault>,
) -> Result<Rc<T>, Fault> {
    if let Some(hit) = kept.with_borrow(|k| k.iter().find(|(b, _)| b == bytes).map(|e| e.1.clone()))
    {
        return Ok(hit);
    }
    let d = Rc::new(decode()?);
    kept.with_borrow_mut(|k| {
        if k.len() == DECODED_KEPT {
            k.remove(0);
        }
        k.push((*bytes, d.clone()));
    });
    Ok(d)
}

fn bind(state: &TextureState, n: usize, prog: &Program, idx: usize) -> Result<Rc<Bound>, Fault> {
    let bytes = state_word(&state.textures, n, "texture", prog, idx)?;
    decoded(&TEXTURES, bytes, || {
        let desc = TexDesc::unpack(bytes)
            .map_err(|e| fault(prog, idx, format!("texture state register {n}: {e}")))?;
        let surface = Surface::from_texture(&desc)
            .map_err(|e| fault(prog, idx, format!("texture state register {n}: {e}")))?;
        Ok(Bound { desc, surface })
    })
}

fn bind_pbe(
    state: &TextureState,
    n: usize,
    prog: &Program,
    idx: usize,
) -> Result<Rc<BoundPbe>, Fault> {
    let bytes = state_word(&state.textures, n, "texture", prog, idx)?;
    decoded(&PBES, bytes, || {
        let pbe = Pbe::unpack(bytes)
            .map_err(|e| fault(prog, idx, format!("PBE in texture state register {n}: {e}")))?;
        let surface = Surface::from_pbe(&pbe)
            .map_err(|e| fault(prog, idx, format!("PBE in texture state register {n}: {e}")))?;
        Ok(BoundPbe { pbe, surface })
    })
}

/// Reads the texel at (x, y, z, view level, sample), or `None` outside the image.
fn fetch(
    b: &Bound,
    mem: &dyn GpuMemory,
    xyz: [i64; 3],
    level: u32,
    sample: u32,
) -> Result<Option<Texel>, Fault> {
    let Some(s) = &b.surface else {
        return Ok(None);
    };
    let Some(addr) = s.address(xyz[0], xyz[1], xyz[2], level, sample) else {
        return Ok(None);
    };
    let mut buf = [0u8; 16];
    let bytes = &mut buf[..s.bytes as usize];
    mem.read(addr, bytes)?;
    let d = &b.desc;
    format::decode(d.channels, d.texture_type, d.srgb, d.srgb_2_channel, bytes)
        .map(Some)
        .map_err(|e| Fault::Shader {
            pc: addr,
            reason: format!("texel decode: {e}"),
        })
}

fn zero_texel(integer: bool) -> Texel {
    if integer {
        Texel::Int([0; 4])
    } else {
        Texel::Float([0.0; 4])
    }
}

fn write_result(g: &mut SimdGroup, x: &Texture, lane: usize, t: Texel) {
    let mut slot = 0u16;
    for c in 0..4 {
        if x.mask & (1 << c) == 0 {
            continue;
        }
        let v = match (x.dst.size, t) {
            (Size::S16, Texel::Float(f)) => u64::from(f32_to_f16(f[c])),
            (Size::S16, Texel::Int(i)) => u64::from(i[c] & 0xffff),
            (_, t) => u64::from(t.bits(c)),
        };
        let r = Reg {
            half: x.dst.half + slot * x.dst.size.halves(),
            size: x.dst.size,
        };
        g.set_reg(r, lane, v);
        slot += 1;
    }
}

fn shape(d: TexDim) -> Option<Shape> {
    match d {
        TexDim::D1 | TexDim::D1Array => Some(Shape::D1),
        TexDim::D2 | TexDim::D2Array => Some(Shape::D2),
        TexDim::D3 => Some(Shape::D3),
        TexDim::Cube | TexDim::CubeArray => Some(Shape::Cube),
        TexDim::D2Ms | TexDim::D2MsArray => None,
    }
}

fn nibble_offsets(v: u32) -> [i32; 3] {
    std::array::from_fn(|i| (((v >> (4 * i)) & 0xf) as i32) << 28 >> 28)
}

/// Component `c` of each of four (swizzled) gather taps.
fn gathered(taps: [Texel; 4], c: usize) -> Texel {
    match taps[0] {
        Texel::Int(_) => Texel::Int(taps.map(|t| t.bits(c))),
        Texel::Float(_) => Texel::Float(taps.map(|t| f32::from_bits(t.bits(c)))),
    }
}

/// Where a lane's level of detail comes from.
#[derive(Clone, Copy)]
enum Lod {
    /// Level 0 of the view (`texture_load` with `Auto`).
    Zero,
    /// The 16-bit register: u16 level for loads, f16 LOD for samples.
    Explicit(Reg),
    /// 32-bit registers from `base`: d/dx and d/dy of each axis interleaved (x', y'
    /// of u, then of v, then of w), then an f16 minimum LOD in the low half when `with_min`
    /// (Mesa's layout).
    Gradients {
        base: u16,
        axes: u16,
        with_min: bool,
    },
}

/// Vulkan's LOD from explicit gradients: log2 of the longer of the two scaled derivative
/// vectors, raised to the minimum when one is given.
fn gradient_lod(w: &[u32], axes: u16, with_min: bool, size: [u32; 3]) -> f32 {
    let (mut rx, mut ry) = (0f32, 0f32);
    for a in 0..usize::from(axes) {
        let s = size[a] as f32;
        let dx = f32::from_bits(w[2 * a]) * s;
        let dy = f32::from_bits(w[2 * a + 1]) * s;
        rx += dx * dx;
        ry += dy * dy;
    }
    let lod = rx.max(ry).sqrt().log2();
    if with_min {
        lod.max(f16_to_f32(w[2 * usize::from(axes)] as u16))
    } else {
        lod
    }
}

fn step_texture_op(
    g: &mut SimdGroup,
    prog: &Program,
    idx: usize,
    x: &Texture,
    state: &TextureState,
    mem: &dyn GpuMemory,
) -> Result<(), Fault> {
    if x.gather.is_some() && (x.load || x.lod_mode != LodMode::Auto) {
        return Err(Fault::Unimplemented(
            "gathers other than texture_sample at the base level",
        ));
    }
    if x.query_lod {
        return Err(Fault::Unimplemented("texture LOD queries"));
    }
    let lod_src = match (x.lod_mode, x.lod) {
        (LodMode::Auto, _) if x.load || x.gather.is_some() => Lod::Zero,
        (LodMode::Min, Operand::Reg(r)) => {
            check_run(prog, idx, "LOD", r.half, 1)?;
            Lod::Explicit(r)
        }
        (LodMode::Min, _) => {
            return Err(Fault::Unimplemented(
                "uniform LOD operands of texture instructions",
            ))
        }
        (LodMode::Auto | LodMode::AutoBias | LodMode::AutoBiasMin, _) => {
            return Err(Fault::Unimplemented(
                "implicit texture LOD (needs quad derivatives)",
            ))
        }
        (LodMode::Grad | LodMode::GradMin, _) if x.load => {
            return Err(fault(prog, idx, "texture_load with gradients"))
        }
        (LodMode::Grad | LodMode::GradMin, _)
            if matches!(x.dim, TexDim::Cube | TexDim::CubeArray) =>
        {
            return Err(Fault::Unimplemented("cube map LOD from gradients"))
        }
        (LodMode::Grad | LodMode::GradMin, Operand::Reg(r)) => {
            let axes = if x.dim == TexDim::D3 { 3 } else { 2 };
            let with_min = x.lod_mode == LodMode::GradMin;
            check_run(
                prog,
                idx,
                "gradient",
                r.half,
                2 * (2 * axes + u16::from(with_min)),
            )?;
            Lod::Gradients {
                base: r.half,
                axes,
                with_min,
            }
        }
        (LodMode::Grad | LodMode::GradMin, _) => {
            return Err(fault(prog, idx, "gradients must be in registers"))
        }
    };
    let ncoords = coord_count(x.dim);
    check_run(prog, idx, "coordinate", x.coords.half, 2 * ncoords)?;
    let results = x.mask.count_ones() as u16;
    check_run(
        prog,
        idx,
        "destination",
        x.dst.half,
        results * x.dst.size.halves(),
    )?;
    let extra_words = u16::from(x.shadow) + u16::from(x.offset);
    let extra = match (x.extra, extra_words) {
        (_, 0) => None,
        (Some(r), n) => {
            check_run(prog, idx, "shadow/offset", r.half, 2 * n)?;
            Some(r)
        }
        (None, _) => return Err(fault(prog, idx, "shadow or offset without its register")),
    };
    if x.load && x.shadow {
        return Err(fault(prog, idx, "texture_load with a depth comparison"));
    }
    if !x.load && shape(x.dim).is_none() {
        return Err(Fault::Unimplemented("sampling multisampled textures"));
    }

    let mut samplers: Vec<(usize, Sampler)> = Vec::new();
    let exec = g.exec;
    for lane in (0..LANES).filter(|l| exec & (1 << l) != 0) {
        let n = texture_index(g, x.texture, lane, prog, idx)?;
        let b = &*bind(state, n, prog, idx)?;
        let integer = format::is_integer(b.desc.texture_type);
        let c: [u32; 4] = std::array::from_fn(|i| {
            if (i as u16) < ncoords {
                r32(g, x.coords.half, i as u16, lane)
            } else {
                0
            }
        });
        let (reference, offsets) = match extra {
            Some(r) => {
                let first = r32(g, r.half, 0, lane);
                let second = r32(g, r.half, 1, lane);
                match (x.shadow, x.offset) {
                    (true, true) => (Some(f32::from_bits(first)), nibble_offsets(second)),
                    (true, false) => (Some(f32::from_bits(first)), [0; 3]),
                    _ => (None, nibble_offsets(first)),
                }
            }
            None => (None, [0; 3]),
        };
        let lod_bits = match lod_src {
            Lod::Explicit(r) => g.reg(r, lane) as u16,
            _ => 0,
        };

        let texel = if x.load {
            if matches!(x.dim, TexDim::Cube | TexDim::CubeArray) {
                return Err(Fault::Unimplemented("texture_load of cube dimensions"));
            }
            let mut ic = int_coords(x.dim, &c);
            for (c, o) in ic.xyz.iter_mut().zip(offsets) {
                *c += i64::from(o);
            }
            let z = surface_z(x.dim, &ic);
            fetch(
                b,
                mem,
                [ic.xyz[0], ic.xyz[1], z],
                u32::from(lod_bits),
                ic.sample,
            )?
            .unwrap_or(zero_texel(integer))
        } else {
            let sn = match x.sampler {
                Small::Imm(v) => usize::from(v),
                Small::Reg(r) => {
                    check_run(prog, idx, "sampler index", r.half, 1)?;
                    g.reg(r, lane) as u16 as usize
                }
            };
            let si = match samplers.iter().position(|(k, _)| *k == sn) {
                Some(i) => i,
                None => {
                    let bytes = state_word(&state.samplers, sn, "sampler", prog, idx)?;
                    let s = Sampler::unpack(bytes).map_err(|e| {
                        fault(prog, idx, format!("sampler state register {sn}: {e}"))
                    })?;
                    samplers.push((sn, s));
                    samplers.len() - 1
                }
            };
            let s = samplers[si].1;
            match &b.surface {
                None => zero_texel(integer),
                Some(surf) => {
                    let sh = shape(x.dim).unwrap_or(Shape::D2);
                    let layer = match x.dim {
                        TexDim::D1Array => c[1],
                        TexDim::D2Array => c[2],
                        TexDim::CubeArray => c[3],
                        _ => 0,
                    };
                    let req = Request {
                        shape: sh,
                        coords: [
                            f32::from_bits(c[0]),
                            f32::from_bits(c[1]),
                            f32::from_bits(c[2]),
                        ],
                        layer,
                        lod: match lod_src {
                            Lod::Gradients {
                                base,
                                axes,
                                with_min,
                            } => {
                                let w: Vec<u32> = (0..2 * axes + u16::from(with_min))
                                    .map(|i| r32(g, base, i, lane))
                                    .collect();
                                gradient_lod(&w, axes, with_min, surf.extent(0))
                            }
                            _ => f16_to_f32(lod_bits),
                        },
                        offset: offsets,
                        compare: reference,
                    };
                    let ext = Extent {
                        levels: surf.levels,
                        layers: surf.depth,
                        integer,
                        unorm: b.desc.texture_type == TextureType::Unorm,
                    };
                    let size = |l: u32| surf.extent(l);
                    let mut f = |x: i64, y: i64, z: i64, l: u32| -> Result<Texel, Fault> {
                        Ok(fetch(b, mem, [x, y, z], l, 0)?.unwrap_or(zero_texel(integer)))
                    };
                    let unwrap = |e| match e {
                        SampleError::Fetch(f) => f,
                        SampleError::Unmodelled(what) => Fault::Unimplemented(what),
                    };
                    match x.gather {
                        Some(c) => {
                            let taps =
                                sample::gather(&s, ext, &req, &size, &mut f).map_err(unwrap)?;
                            let pick = |t: Texel| apply_swizzle(t, b.desc.swizzle);
                            let c = usize::from(c & 3);
                            // Each tap is swizzled here; the result is not swizzled again.
                            gathered(taps.map(pick), c)
                        }
                        None => sample::sample(&s, ext, &req, &size, &mut f).map_err(unwrap)?,
                    }
                }
            }
        };
        let out = if x.gather.is_some() {
            texel
        } else {
            apply_swizzle(texel, b.desc.swizzle)
        };
        write_result(g, x, lane, out);
    }
    Ok(())
}

fn step_image_write(
    g: &mut SimdGroup,
    prog: &Program,
    idx: usize,
    x: &ImageWrite,
    state: &TextureState,
    mem: &mut dyn GpuMemory,
) -> Result<(), Fault> {
    let ncoords = coord_count(x.dim);
    check_run(prog, idx, "coordinate", x.coords.half, 2 * ncoords)?;
    check_run(prog, idx, "source", x.src.half, 4 * x.src.size.halves())?;
    if x.src.size == Size::S64 {
        return Err(fault(prog, idx, "image_write with 64-bit sources"));
    }
    if matches!(x.dim, TexDim::Cube | TexDim::CubeArray) {
        return Err(fault(prog, idx, "image_write to a cube dimension"));
    }
    let exec = g.exec;
    for lane in (0..LANES).filter(|l| exec & (1 << l) != 0) {
        let n = texture_index(g, x.texture, lane, prog, idx)?;
        let bound = bind_pbe(state, n, prog, idx)?;
        let (p, surf) = (&bound.pbe, &bound.surface);
        let Some(surf) = surf else {
            continue;
        };
        let lod = match x.lod {
            Small::Imm(v) => u32::from(v),
            Small::Reg(r) => {
                check_run(prog, idx, "LOD", r.half, 1)?;
                u32::from(g.reg(r, lane) as u16)
            }
        };
        let c: [u32; 4] = std::array::from_fn(|i| {
            if (i as u16) < ncoords {
                r32(g, x.coords.half, i as u16, lane)
            } else {
                0
            }
        });
        let ic = int_coords(x.dim, &c);
        let z = surface_z(x.dim, &ic);
        let Some(addr) = surf.address(ic.xyz[0], ic.xyz[1], z, lod, ic.sample) else {
            continue;
        };
        let integer = format::is_integer(p.texture_type);
        let comp: [u32; 4] = std::array::from_fn(|i| {
            let r = Reg {
                half: x.src.half + i as u16 * x.src.size.halves(),
                size: x.src.size,
            };
            let v = g.reg(r, lane);
            match (x.src.size, integer) {
                (Size::S16, false) => f16_to_f32(v as u16).to_bits(),
                (Size::S16, true) if p.texture_type == TextureType::Sint => {
                    i32::from(v as u16 as i16) as u32
                }
                _ => v as u32,
            }
        });
        // Memory channel j receives the component the PBE swizzle names for it.
        let value = p.swizzle.map(|ch| match ch {
            Channel::G => comp[1],
            Channel::B => comp[2],
            Channel::A => comp[3],
            _ => comp[0],
        });
        let mut buf = [0u8; 16];
        let bytes = &mut buf[..surf.bytes as usize];
        format::encode(p.channels, p.texture_type, p.srgb, value, bytes)
            .map_err(|e| fault(prog, idx, format!("image_write: {e}")))?;
        mem.write(addr, bytes)?;
    }
    Ok(())
}

/// Runs a `texture` or `image_write` instruction for every active lane and advances the pc.
/// Returns false if the instruction at `idx` is neither.
pub fn step_texture(
    g: &mut SimdGroup,
    prog: &Program,
    idx: usize,
    state: &TextureState,
    mem: &mut dyn GpuMemory,
) -> Result<bool, Fault> {
    match prog.instrs[idx] {
        Instr::Texture(x) => step_texture_op(g, prog, idx, &x, state, mem)?,
        Instr::ImageWrite(x) => step_image_write(g, prog, idx, &x, state, mem)?,
        _ => return Ok(false),
    }
    g.pc += 1;
    Ok(true)
}

#[cfg(test)]
#[path = "tests_texture.rs"]
mod tests;
