//! The texture unit and the PBE as the USC reaches them: `texture` (sample and load) through
//! texture and sampler descriptors, and `image_write` through PBE descriptors.
//!
//! Where descriptors come from (docs/render-abi.md section 7):
//! * Texture operand `Imm(n)` / `Reg(r)`: texture state register n (or the 16-bit value of
//!   r), loaded by the program's USC Texture words. The PBE of an `image_write` comes from the
//!   same registers.
//! * Texture operand `Bindless { base, index }`: the descriptor (texture, or PBE for
//!   `image_write`) is the 24 bytes at A + I in GPU memory, A the 64-bit little-endian value
//!   of uniform halves base..base + 4 (the root table puts a descriptor set's address there),
//!   I the lane's 32-bit `index` register read as an unsigned byte offset. Each lane computes
//!   its own address, so lanes may use different descriptors; the read goes through the VM,
//!   and an unmapped or unreadable descriptor is the VM's page or permission fault at that
//!   address. **agx4**: the hardware's bindless heap addressing is not documented; this is
//!   agx4's contract with its compiler (Mesa's `agx_translate_bindless_handle` has the same
//!   shape: a uniform base and a register offset).
//! * Sampler operand immediate n: sampler state register n (USC Sampler words; tile
//!   programs).
//! * Sampler operand register r: entry (r & 0xffff) of the command's sampler heap, the 8-byte
//!   G13 sampler descriptor at `sampler_heap + 8 * entry` (the render or compute command's
//!   `sampler_heap`/`sampler_count`, which reach every vertex, fragment, compute and tile
//!   program it runs). An entry at or past `sampler_count`, or a command without a heap
//!   (`sampler_heap` 0), is a shader fault. **agx4** reading of the heap Mesa programs
//!   through the firmware, where the hardware behaviour is not documented.
//! * Custom border colours (**agx4**, docs/render-abi.md section 7): a heap entry whose
//!   `Border colour` is `Custom` takes its colour from the border table after the heap's
//!   descriptors, the 16-byte `Border` at `sampler_heap + 8 * sampler_count + 16 * entry`:
//!   four 32-bit words in the view's component order, f32 for non-integer views (clamped
//!   to the UNORM or SNORM range) and integers for integer views; each component the
//!   descriptor swizzle takes from a channel puts its word in that channel, so the swizzle
//!   gives back the colour. (Real G13 wants the border packed per format in memory channel
//!   order, Mesa's agx_border.c; the table holds the raw words so that a border without a
//!   format works.) Sampler state registers have no custom borders (a fault).
//! * Decoding a descriptor is cached by its 24 bytes, wherever they came from.
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
//!   the 16-bit LOD operand. `texture_sample` with `Min` takes an f16 LOD. `Grad`/`GradMin`
//!   take a 32-bit register run: d/dx, d/dy of each coordinate axis interleaved (two axes
//!   for 1D and 2D, three for 3D and cube maps), then (`GradMin`) an f16 minimum LOD. A
//!   16-bit LOD operand may be a register or a uniform.
//! * Implicit LOD (`Auto`; `AutoBias` with the f16 bias as the 16-bit operand;
//!   `AutoBiasMin` with the bias in the operand's half and the f16 minimum LOD in the next
//!   half, the pair Mesa builds as `vec2(bias, min_lod)`): only fragment-stage launches,
//!   where lanes 4q..4q + 4 are the 2x2 quad q (`isa::quad_lane`); elsewhere a shader fault
//!   (agx4's compiler lowers implicit LOD to explicit LOD 0 outside fragment shaders). The
//!   derivatives are the fine ones `dfdx`/`dfdy` compute: across the lane's quad row
//!   (column), right minus left (bottom minus top), shared by both lanes of the pair, read
//!   from every lane of the quad, active or not. (Tile programs are fragment-stage too but
//!   their lanes are not 2x2 quads; agx4's tile programs never use implicit LOD.) Scaled by
//!   the level-0 size of the lane's view (not scaled for unnormalised-coordinate samplers),
//!   rho = max(|d/dx|, |d/dy|) over the axes the dimension filters, lambda = log2(rho) +
//!   bias, raised to the minimum LOD when given; the sampler's min/max LOD clamp and mip
//!   selection then run as for explicit LOD. Cube maps: the derivatives of the face
//!   coordinates (s, t) on the face the lane's own direction selects, by the chain rule
//!   from the direction's derivatives (as Vulkan specifies for explicit gradients; the
//!   same rule serves `Grad` on cube maps). Array layers take no part.
//! * `extra` (present with `shadow` and/or `offset`): the f32 depth reference, then (or
//!   alone) the packed texel offsets, one signed nibble per axis from bit 0.
//! * Results: the components selected by `mask` (bit 0 = R ... bit 3 = A), after the
//!   descriptor swizzle, go to consecutive registers from `dst`: 32-bit destinations get
//!   f32 bits (UNORM/SNORM/float types) or 32-bit integers, 16-bit destinations get f16 or
//!   the low 16 bits of the integer.
//! * Filtered samples give NaN components as the canonical quiet NaN (**agx4**,
//!   `texel::sample::canonical`): which NaN filter arithmetic yields depends on operand
//!   order, which the host compiler may swap. Loads and gathers keep the texel's bits.
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
//! * Anisotropic filtering (sampler max anisotropy M > 1, LOD from derivatives, non-integer
//!   formats): Vulkan's approximation. Pmax, Pmin = the longer and shorter scale factor,
//!   N = min(ceil(Pmax / Pmin), M), lambda = log2(Pmax / N) (then bias and clamps); the result
//!   is the mean of N samples at the coordinates plus (i / (N + 1) - 1/2) times the major
//!   axis's derivative, i = 1..=N. **agx4**: the hardware's footprint is not documented.
//! * LOD queries (`query_lod`, Mesa's `textureQueryLod`, with an implicit LOD mode):
//!   component 0 is the LOD mip selection uses (after the sampler's min/max clamp, clamped
//!   to the view's levels; 0 for samplers that do not mipmap), component 1 the computed
//!   lambda with the bias, both f32 (or f16 to 16-bit destinations), not swizzled.
//!   **agx4** reading: Mesa passes the two results to the shader unchanged, so they are
//!   taken to be Vulkan's pair.
//!
//! Lossless-compressed images (the `Compressed` memory layout) fault as unimplemented.
//!
//! Block-compressed formats (BC1-BC7, ETC2/EAC, ASTC LDR; `texel::compressed`): the image is
//! an ail layout of blocks; a texel fetch reads the block holding the texel and takes the
//! texel from its decode (recent decodes are cached per thread, so the taps of a quad share
//! one). sRGB applies after the block decode. Filtering, mip selection, gathers and wrapping
//! work on the decoded texels as for any other format.
//!
//! Texel formats the unit decodes (`texel::format`), as hardware channel layouts and types:
//! * R8, R8G8, R8G8B8A8: UNORM (with sRGB), SNORM, UINT, SINT;
//! * R16, R16G16, R16G16B16A16: UNORM, SNORM, UINT, SINT, FLOAT (f16);
//! * R32, R32G32, R32G32B32A32: UINT, SINT, FLOAT;
//! * packed: R5G6B5, R4G4B4A4, R5G5B5A1 (UNORM), R10G10B10A2 (UNORM, UINT, also SNORM and
//!   SINT), R11G11B10 (unsigned float), R9G9B9E5 (shared exponent);
//! * depth/stencil as images: D16 (R16 UNORM), D32 (R32 FLOAT), S8 (R8 UINT);
//! * block-compressed: BC1, BC2, BC3, BC7 (UNORM, sRGB), BC4, BC5 (UNORM, SNORM), BC6H
//!   (FLOAT, signed and unsigned layouts), ETC2 RGB8, RGB8A1, RGBA8 (UNORM, sRGB), EAC R11,
//!   RG11 (UNORM, SNORM), ASTC LDR of all 14 block sizes (UNORM, sRGB).
//!
//! Every Vulkan format `g13::image_desc::pixel_format` maps decodes. Not decoded (a fault
//! names the layout): A1R5G5B5 (0x0d), the emulated R32G32B32, the 4:2:2 layouts (GBGR,
//! BGRG), PVRTC, ASTC HDR (HDR endpoint modes decode to the LDR error colour), the
//! extended-range (XR) type, and the lossless-compressed (`Compressed`) memory layout.

use super::group::SimdGroup;
use super::lanes::Lanes;
use super::program::Program;
use crate::texel::compressed;
use crate::texel::format::{self, Texel};
use crate::texel::image::Surface;
use crate::texel::minifloat::{f16_to_f32, f32_to_f16};
use crate::texel::sample::{self, Extent, Request, SampleError, Shape};
use crate::{Fault, GpuMemory, ReadWindow};
use hw::g13::control::descriptors::{
    BorderColour, Channel, Pbe, Sampler, Texture as TexDesc, TextureType,
};
use hw::isa::*;
use std::cell::RefCell;
use std::rc::Rc;

/// Bytes of a texture or PBE descriptor.
pub const TEXTURE_DESCRIPTOR_BYTES: usize = 24;
/// Bytes of a sampler descriptor.
pub const SAMPLER_DESCRIPTOR_BYTES: usize = 8;
/// Bytes of a custom border colour (cmdbuf.xml `Border`: four 32-bit channels).
pub const BORDER_BYTES: usize = 16;

const LANES: usize = SIMD_WIDTH;

/// The command's sampler heap: `count` 8-byte G13 sampler descriptors from `base` (the
/// render or compute command's `sampler_heap` and `sampler_count`; `base` 0 is no heap).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SamplerHeap {
    pub base: u64,
    pub count: u32,
}

/// A launch's texture and sampler state registers, indexed by register number, and the
/// sampler heap of the command that runs it.
#[derive(Debug, Clone, Default)]
pub struct TextureState {
    pub textures: Vec<[u8; TEXTURE_DESCRIPTOR_BYTES]>,
    pub samplers: Vec<[u8; SAMPLER_DESCRIPTOR_BYTES]>,
    pub sampler_heap: SamplerHeap,
}

impl TextureState {
    /// No state registers loaded and no sampler heap.
    pub fn is_empty(&self) -> bool {
        self.textures.is_empty()
            && self.samplers.is_empty()
            && self.sampler_heap == SamplerHeap::default()
    }
}

pub(super) fn fault(prog: &Program, idx: usize, why: impl Into<String>) -> Fault {
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

/// Where a swizzle takes a component from: texel channels 0 to 3, then constants 0 and 1.
fn pick(c: Channel) -> usize {
    match c {
        Channel::R => 0,
        Channel::G => 1,
        Channel::B => 2,
        Channel::A => 3,
        Channel::Zero => 4,
        Channel::One => 5,
    }
}

pub(super) fn apply_swizzle(t: Texel, sw: [Channel; 4]) -> Texel {
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

/// The channels (before the descriptor swizzle) of a custom border whose words `w` are the
/// colour in the view's component order: each component the swizzle takes from a channel
/// puts its word in that channel, so after the swizzle the components the format has are
/// the border's and the rest the swizzle's constants. Integer views read the words as
/// 32-bit integers, the others as f32, clamped to the range of UNORM and SNORM types.
fn custom_border(w: [u32; 4], ty: TextureType, swizzle: [Channel; 4]) -> Texel {
    let mut ch = [0u32; 4];
    // Backwards, so a channel the swizzle names twice takes the first component's word.
    for (c, sel) in swizzle.iter().enumerate().rev() {
        let m = match sel {
            Channel::R => 0,
            Channel::G => 1,
            Channel::B => 2,
            Channel::A => 3,
            Channel::Zero | Channel::One => continue,
        };
        ch[m] = w[c];
    }
    if format::is_integer(ty) {
        return Texel::Int(ch);
    }
    Texel::Float(ch.map(|v| {
        let f = f32::from_bits(v);
        match ty {
            TextureType::Unorm => f.clamp(0.0, 1.0),
            TextureType::Snorm => f.clamp(-1.0, 1.0),
            _ => f,
        }
    }))
}

/// A decoded texture state register (see `decoded`).
pub(super) struct Bound {
    pub desc: TexDesc,
    pub surface: Option<Surface>,
}

/// Where a descriptor came from, for fault messages.
#[derive(Clone, Copy)]
pub(super) enum Source {
    State(usize),
    Memory(u64),
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::State(n) => write!(f, "texture state register {n}"),
            Source::Memory(va) => write!(f, "bindless descriptor at {va:#x}"),
        }
    }
}

/// The uniform halves `half..half + n` as one little-endian value.
fn uniform_value(
    uniforms: &[u16],
    half: u16,
    n: u16,
    what: &str,
    prog: &Program,
    idx: usize,
) -> Result<u64, Fault> {
    let h = usize::from(half);
    let run = uniforms
        .get(h..h + usize::from(n))
        .ok_or_else(|| fault(prog, idx, format!("{what} runs past the uniform file")))?;
    Ok(run.iter().rev().fold(0, |a, &v| a << 16 | u64::from(v)))
}

/// What a descriptor binds to: a texture ([`Bound`]) or a PBE ([`BoundPbe`]), decoded from
/// the descriptor's bytes (`src` names where they came from in a fault).
pub(super) trait Binding: Sized {
    fn bind(
        bytes: &[u8; TEXTURE_DESCRIPTOR_BYTES],
        src: Source,
        prog: &Program,
        idx: usize,
    ) -> Result<Rc<Self>, Fault>;
}

/// The descriptors one texture, image or block-store instruction reads, lane by lane.
///
/// Where descriptors come from: an immediate or register operand names a texture state
/// register; a bindless operand adds the lane's 32-bit `index` register (an unsigned byte
/// offset) to the 64-bit uniform at `base` and reads the 24 bytes there through the VM, so
/// each lane may name its own descriptor. Lanes naming the same bindless address read it
/// once, as the unit reads each distinct descriptor of a group once. An immediate index
/// names one descriptor for every lane: it is read and bound once, at the first lane (where
/// a lane-by-lane loop would first fail too).
pub(super) struct Descriptors<'a, T> {
    t: TexIndex,
    state: &'a TextureState,
    uniforms: &'a [u16],
    prog: &'a Program,
    idx: usize,
    /// Descriptors read from memory so far, by address.
    fetched: Vec<(u64, [u8; TEXTURE_DESCRIPTOR_BYTES])>,
    /// The binding of an immediate index, once read.
    shared: Option<Rc<T>>,
    /// The last bindless address bound, and its binding: neighbouring lanes mostly name
    /// the same descriptor.
    last: Option<(u64, Rc<T>)>,
    /// The bindless base, once read from the uniforms.
    base: Option<u64>,
}

impl<'a, T: Binding> Descriptors<'a, T> {
    pub(super) fn new(
        t: TexIndex,
        state: &'a TextureState,
        uniforms: &'a [u16],
        prog: &'a Program,
        idx: usize,
    ) -> Self {
        Descriptors {
            t,
            state,
            uniforms,
            prog,
            idx,
            fetched: Vec::new(),
            shared: None,
            last: None,
            base: None,
        }
    }

    /// The address a bindless operand names for `lane`: the uniform base (read once) plus
    /// the lane's unsigned 32-bit byte offset.
    fn bindless_va(
        &mut self,
        g: &SimdGroup,
        lane: usize,
        base: u16,
        index: Reg,
    ) -> Result<u64, Fault> {
        let (prog, idx) = (self.prog, self.idx);
        check_run(prog, idx, "bindless index", index.half, 2)?;
        let set = match self.base {
            Some(b) => b,
            None => {
                let b = uniform_value(self.uniforms, base, 4, "bindless base", prog, idx)?;
                *self.base.insert(b)
            }
        };
        let offset = g.reg(
            Reg {
                half: index.half,
                size: Size::S32,
            },
            lane,
        ) as u32;
        Ok(set.wrapping_add(u64::from(offset)))
    }

    /// The bound descriptor `lane` names. `mem` is passed per lane because image writes
    /// change memory between lanes.
    pub(super) fn for_lane(
        &mut self,
        g: &SimdGroup,
        lane: usize,
        mem: &dyn GpuMemory,
    ) -> Result<Rc<T>, Fault> {
        if let Some(b) = &self.shared {
            return Ok(b.clone());
        }
        if let (TexIndex::Bindless { base, index }, Some((at, b))) = (self.t, &self.last) {
            let (at, b) = (*at, b.clone());
            if self.bindless_va(g, lane, base, index)? == at {
                return Ok(b);
            }
        }
        let (bytes, src) = self.bytes(g, lane, mem)?;
        if let (Source::Memory(va), Some((at, b))) = (src, &self.last) {
            if *at == va {
                return Ok(b.clone());
            }
        }
        let b = T::bind(&bytes, src, self.prog, self.idx)?;
        match src {
            _ if matches!(self.t, TexIndex::Imm(_)) => self.shared = Some(b.clone()),
            Source::Memory(va) => self.last = Some((va, b.clone())),
            Source::State(_) => {}
        }
        Ok(b)
    }

    fn bytes(
        &mut self,
        g: &SimdGroup,
        lane: usize,
        mem: &dyn GpuMemory,
    ) -> Result<([u8; TEXTURE_DESCRIPTOR_BYTES], Source), Fault> {
        let (prog, idx) = (self.prog, self.idx);
        let n = match self.t {
            TexIndex::Imm(n) => usize::from(n),
            TexIndex::Reg(r) => {
                check_run(prog, idx, "texture index", r.half, 1)?;
                g.reg(r, lane) as u16 as usize
            }
            TexIndex::Bindless { base, index } => {
                let va = self.bindless_va(g, lane, base, index)?;
                if let Some((_, b)) = self.fetched.iter().find(|(a, _)| *a == va) {
                    return Ok((*b, Source::Memory(va)));
                }
                let mut b = [0u8; TEXTURE_DESCRIPTOR_BYTES];
                // An unmapped or unreadable descriptor is the VM's page or permission fault,
                // naming the address, as the hardware's would.
                mem.read(va, &mut b)?;
                self.fetched.push((va, b));
                return Ok((b, Source::Memory(va)));
            }
        };
        let bytes = state_word(&self.state.textures, n, "texture", prog, idx)?;
        Ok((*bytes, Source::State(n)))
    }
}

/// Which sampler a lane uses: a state register (immediate operand) or a heap entry.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum SamplerKey {
    State(usize),
    Heap(u32),
}

/// A sampler descriptor and, for a heap entry with a custom border colour, its four border
/// words.
pub(super) type SamplerWithBorder = (Sampler, Option<[u32; 4]>);

/// The sampler lane `lane` names. An immediate operand names a sampler state register; a
/// register operand names sampler heap entry (value & 0xffff), read from GPU memory.
pub(super) fn sampler_key(
    g: &SimdGroup,
    operand: Small,
    lane: usize,
    prog: &Program,
    idx: usize,
) -> Result<SamplerKey, Fault> {
    Ok(match operand {
        Small::Imm(v) => SamplerKey::State(usize::from(v)),
        Small::Reg(r) => {
            check_run(prog, idx, "sampler index", r.half, 1)?;
            SamplerKey::Heap(g.reg(r, lane) as u32 & 0xffff)
        }
    })
}

/// The sampler `key` names, decoded. `kept` remembers this instruction's samplers so a
/// uniform one is decoded once.
pub(super) fn sampler(
    key: SamplerKey,
    state: &TextureState,
    mem: &dyn GpuMemory,
    kept: &mut Vec<(SamplerKey, SamplerWithBorder)>,
    prog: &Program,
    idx: usize,
) -> Result<SamplerWithBorder, Fault> {
    if let Some((_, s)) = kept.iter().find(|(k, _)| *k == key) {
        return Ok(*s);
    }
    let s = match key {
        SamplerKey::State(n) => {
            let bytes = state_word(&state.samplers, n, "sampler", prog, idx)?;
            let s = unpack_sampler(bytes)
                .map_err(|e| fault(prog, idx, format!("sampler state register {n}: {e}")))?;
            (s, None)
        }
        SamplerKey::Heap(i) => {
            let heap = state.sampler_heap;
            if heap.base == 0 {
                return Err(fault(
                    prog,
                    idx,
                    format!("sampler heap entry {i}, but the command names no sampler heap"),
                ));
            }
            if i >= heap.count {
                return Err(fault(
                    prog,
                    idx,
                    format!(
                        "sampler heap entry {i} is past the heap's {} samplers",
                        heap.count
                    ),
                ));
            }
            let va = heap
                .base
                .wrapping_add(SAMPLER_DESCRIPTOR_BYTES as u64 * u64::from(i));
            let mut b = [0u8; SAMPLER_DESCRIPTOR_BYTES];
            mem.read(va, &mut b)?;
            let s = unpack_sampler(&b)
                .map_err(|e| fault(prog, idx, format!("sampler heap entry {i} at {va:#x}: {e}")))?;
            // The border table follows the heap's `count` descriptors.
            let border = if s.border_colour == BorderColour::Custom {
                let va = heap
                    .base
                    .wrapping_add(SAMPLER_DESCRIPTOR_BYTES as u64 * u64::from(heap.count))
                    .wrapping_add(BORDER_BYTES as u64 * u64::from(i));
                let mut w = [0u8; BORDER_BYTES];
                mem.read(va, &mut w)?;
                Some(std::array::from_fn(|k| {
                    u32::from_le_bytes([w[4 * k], w[4 * k + 1], w[4 * k + 2], w[4 * k + 3]])
                }))
            } else {
                None
            };
            (s, border)
        }
    };
    kept.push((key, s));
    Ok(s)
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
pub(super) struct BoundPbe {
    pub pbe: Pbe,
    pub surface: Option<Surface>,
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

thread_local! {
    // Samplers too: a fragment launch decodes its instruction's sampler once, and there are
    // many small launches.
    static SAMPLERS: RefCell<Vec<([u8; SAMPLER_DESCRIPTOR_BYTES], Sampler)>> =
        const { RefCell::new(Vec::new()) };
}

/// `Sampler::unpack`, remembered for the last few descriptors (failures are not).
fn unpack_sampler(bytes: &[u8; SAMPLER_DESCRIPTOR_BYTES]) -> Result<Sampler, Fault> {
    if let Some(s) = SAMPLERS.with_borrow(|k| k.iter().find(|(b, _)| b == bytes).map(|e| e.1)) {
        return Ok(s);
    }
    let s = Sampler::unpack(bytes)?;
    SAMPLERS.with_borrow_mut(|k| {
        if k.len() == DECODED_KEPT {
            k.remove(0);
        }
        k.push((*bytes, s));
    });
    Ok(s)
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

impl Binding for Bound {
    fn bind(
        bytes: &[u8; TEXTURE_DESCRIPTOR_BYTES],
        src: Source,
        prog: &Program,
        idx: usize,
    ) -> Result<Rc<Bound>, Fault> {
        decoded(&TEXTURES, bytes, || {
            let desc =
                TexDesc::unpack(bytes).map_err(|e| fault(prog, idx, format!("{src}: {e}")))?;
            let surface = Surface::from_texture(&desc)
                .map_err(|e| fault(prog, idx, format!("{src}: {e}")))?;
            Ok(Bound { desc, surface })
        })
    }
}

impl Binding for BoundPbe {
    fn bind(
        bytes: &[u8; TEXTURE_DESCRIPTOR_BYTES],
        src: Source,
        prog: &Program,
        idx: usize,
    ) -> Result<Rc<BoundPbe>, Fault> {
        decoded(&PBES, bytes, || {
            let pbe =
                Pbe::unpack(bytes).map_err(|e| fault(prog, idx, format!("PBE in {src}: {e}")))?;
            let surface = Surface::from_pbe(&pbe)
                .map_err(|e| fault(prog, idx, format!("PBE in {src}: {e}")))?;
            Ok(BoundPbe { pbe, surface })
        })
    }
}

/// Texel bytes for one instruction: through the read window of the last texel (the texels
/// of one image mostly share one), else through the memory's checked reads.
pub(super) struct Reader<'m> {
    mem: &'m dyn GpuMemory,
    window: Option<ReadWindow<'m>>,
}

impl<'m> Reader<'m> {
    pub(super) fn new(mem: &'m dyn GpuMemory) -> Self {
        Reader { mem, window: None }
    }

    pub(super) fn read(&mut self, va: u64, buf: &mut [u8]) -> Result<(), Fault> {
        if self.window.as_ref().is_some_and(|w| w.read(va, buf)) {
            return Ok(());
        }
        self.window = self.mem.read_window(va);
        if self.window.as_ref().is_some_and(|w| w.read(va, buf)) {
            return Ok(());
        }
        // Outside any window: the checked read, which reports the fault.
        self.mem.read(va, buf)
    }
}

/// Reads the texel at (x, y, z, view level, sample), or `None` outside the image.
fn fetch(
    b: &Bound,
    mem: &mut Reader<'_>,
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
    let texel = if s.block != (1, 1) {
        // In-bounds coordinates are non-negative (`address` checked them).
        let (bx, by) = (xyz[0] as u32 % s.block.0, xyz[1] as u32 % s.block.1);
        compressed::texel(d.channels, d.texture_type, d.srgb, bytes, bx, by)
    } else {
        format::decode(d.channels, d.texture_type, d.srgb, d.srgb_2_channel, bytes)
    };
    texel.map(Some).map_err(|e| Fault::Shader {
        pc: addr,
        reason: format!("texel decode: {e}"),
    })
}

/// Texels one instruction has read through one descriptor, by (x, y, z, level): direct
/// mapped, so a lookup is one compare. Nothing writes memory during the instruction, so a
/// texel read again would be the same; a read that faults is never kept.
struct TexelCache {
    /// Packed (x, y, z, level) with bit 63 set; 0 for an empty entry.
    keys: [u64; 32],
    texels: [Texel; 32],
}

impl Default for TexelCache {
    fn default() -> Self {
        TexelCache {
            keys: [0; 32],
            texels: [Texel::Float([0.0; 4]); 32],
        }
    }
}

impl TexelCache {
    fn get(
        &mut self,
        at: [i64; 3],
        level: u32,
        read: impl FnOnce() -> Result<Texel, Fault>,
    ) -> Result<Texel, Fault> {
        let [x, y, z] = at;
        let fits = (0..1 << 20).contains(&x)
            && (0..1 << 20).contains(&y)
            && (0..1 << 16).contains(&z)
            && level < 1 << 7;
        if !fits {
            return read();
        }
        let key = 1 << 63 | u64::from(level) << 56 | (z as u64) << 40 | (y as u64) << 20 | x as u64;
        // Neighbouring texels land in different entries: x and y in the low bits.
        let slot = ((x & 3) | (y & 3) << 2 | (z & 1) << 4) as usize;
        if self.keys[slot] == key {
            return Ok(self.texels[slot]);
        }
        let t = read()?;
        self.keys[slot] = key;
        self.texels[slot] = t;
        Ok(t)
    }
}

fn zero_texel(integer: bool) -> Texel {
    if integer {
        Texel::Int([0; 4])
    } else {
        Texel::Float([0.0; 4])
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

/// A 16-bit LOD operand run: registers or uniforms (both reach the unit).
#[derive(Debug, Clone, Copy)]
pub(super) enum Halves {
    Reg(u16),
    Uniform(u16),
}

impl Halves {
    /// Half `k` of the run for `lane`.
    pub(super) fn get(self, g: &SimdGroup, uniforms: &[u16], k: u16, lane: usize) -> u16 {
        match self {
            Halves::Reg(h) => g.reg(Reg::r16(h + k), lane) as u16,
            // `lod_operand` checked the run fits the uniform file.
            Halves::Uniform(h) => uniforms.get(usize::from(h + k)).copied().unwrap_or(0),
        }
    }
}

/// The LOD operand as a run of `halves` 16-bit halves.
fn lod_operand(
    op: Operand,
    halves: u16,
    uniforms: &[u16],
    prog: &Program,
    idx: usize,
) -> Result<Halves, Fault> {
    match op {
        Operand::Reg(r) => {
            check_run(prog, idx, "LOD", r.half, halves)?;
            Ok(Halves::Reg(r.half))
        }
        Operand::Uniform(r) => {
            if usize::from(r.half) + usize::from(halves) > uniforms.len() {
                return Err(fault(prog, idx, "LOD uniform runs past the uniform file"));
            }
            Ok(Halves::Uniform(r.half))
        }
        Operand::Imm(_) => Err(fault(prog, idx, "immediate LOD operand")),
    }
}

/// Where a lane's level of detail comes from.
#[derive(Debug, Clone, Copy)]
pub(super) enum Lod {
    /// Level 0 of the view (`texture_load` with `Auto`, gathers).
    Zero,
    /// The 16-bit operand: u16 level for loads, f16 LOD for samples.
    Explicit(Halves),
    /// 32-bit registers from `base`: d/dx and d/dy of each axis interleaved (x', y'
    /// of u, then of v, then of w), then an f16 minimum LOD in the low half when `with_min`
    /// (Mesa's layout).
    Gradients {
        base: u16,
        axes: u16,
        with_min: bool,
    },
    /// From the coordinates' differences across the lane's quad (fragment shaders), plus
    /// the f16 bias in half 0 of the operand and, `with_min`, the f16 minimum LOD in half 1
    /// (Mesa's `AUTO_LOD_BIAS_MIN` packs the pair as one 32-bit value).
    Implicit {
        bias: Option<Halves>,
        with_min: bool,
    },
}

/// Coordinate axes a dimension's derivatives cover (cube maps: the direction's three).
fn derivative_axes(d: TexDim) -> usize {
    match d {
        TexDim::D1 | TexDim::D1Array => 1,
        TexDim::D2 | TexDim::D2Array | TexDim::D2Ms | TexDim::D2MsArray => 2,
        TexDim::D3 | TexDim::Cube | TexDim::CubeArray => 3,
    }
}

/// Vulkan's scale factors rho_x, rho_y: the lengths of the coordinate derivative vectors
/// in level-0 texels (`texels`: the coordinates already are texels). Cube maps
/// differentiate the face coordinates of the face the lane's own direction selects, by the
/// chain rule (`sample::cube_face_derivative`).
fn scale_factors(
    shape: Shape,
    coords: [f32; 3],
    dx: [f32; 3],
    dy: [f32; 3],
    size: [u32; 3],
    texels: bool,
) -> [f32; 2] {
    let (dx, dy, axes) = match shape {
        Shape::Cube => {
            let fx = sample::cube_face_derivative(coords, dx);
            let fy = sample::cube_face_derivative(coords, dy);
            ([fx[0], fx[1], 0.0], [fy[0], fy[1], 0.0], 2)
        }
        Shape::D1 => (dx, dy, 1),
        Shape::D2 => (dx, dy, 2),
        Shape::D3 => (dx, dy, 3),
    };
    let (mut rx, mut ry) = (0f32, 0f32);
    for a in 0..axes {
        let s = if texels { 1.0 } else { size[a] as f32 };
        rx += (dx[a] * s) * (dx[a] * s);
        ry += (dy[a] * s) * (dy[a] * s);
    }
    [rx.sqrt(), ry.sqrt()]
}

/// A lane's LOD from its derivatives and, with anisotropic filtering, its taps.
pub(super) struct Footprint {
    /// lambda before bias and clamps.
    pub lod: f32,
    /// Samples to average (1: isotropic).
    pub taps: u32,
    /// The derivative of the coordinates along the major axis (in coordinate units).
    along: [f32; 3],
}

/// Vulkan's LOD, lambda = log2(max(rho_x, rho_y)), for a sampler without anisotropy (max
/// anisotropy 1). With max anisotropy M > 1, Vulkan's anisotropic approximation: Pmax and
/// Pmin the longer and shorter scale factor, N = min(ceil(Pmax / Pmin), M) samples along
/// the major axis, lambda = log2(Pmax / N). **agx4**: the hardware's anisotropic footprint
/// is not documented; this is the approximation the Vulkan specification describes.
pub(super) fn footprint(
    shape: Shape,
    coords: [f32; 3],
    dx: [f32; 3],
    dy: [f32; 3],
    size: [u32; 3],
    s: &Sampler,
) -> Footprint {
    let [rx, ry] = scale_factors(shape, coords, dx, dy, size, s.pixel_coordinates);
    let (pmax, pmin, along) = if rx >= ry { (rx, ry, dx) } else { (ry, rx, dy) };
    let m = s.max_anisotropy.max(1);
    // Unnormalised coordinates never filter anisotropically (Vulkan forbids the pair).
    if m == 1 || s.pixel_coordinates || !(pmax > 0.0 && pmax.is_finite()) {
        return Footprint {
            lod: pmax.log2(),
            taps: 1,
            along,
        };
    }
    let n = if pmin > 0.0 {
        ((pmax / pmin).ceil().min(m as f32) as u32).max(1)
    } else {
        m
    };
    Footprint {
        lod: (pmax / n as f32).log2(),
        taps: n,
        along,
    }
}

#[allow(clippy::too_many_arguments)]
fn step_texture_op(
    g: &mut SimdGroup,
    prog: &Program,
    idx: usize,
    x: &Texture,
    state: &TextureState,
    uniforms: &[u16],
    mem: &dyn GpuMemory,
) -> Result<(), Fault> {
    if x.gather.is_some() && (x.load || x.lod_mode != LodMode::Auto) {
        return Err(Fault::Unimplemented(
            "gathers other than texture_sample at the base level",
        ));
    }
    if x.query_lod && (x.load || x.gather.is_some()) {
        return Err(fault(prog, idx, "LOD query of a texture_load or gather"));
    }
    let implicit = |bias, with_min| -> Result<Lod, Fault> {
        if x.load {
            return Err(fault(prog, idx, "texture_load with a biased implicit LOD"));
        }
        // The compiler lowers implicit LOD outside fragment shaders to an explicit 0; only
        // fragment-stage lanes come in quads to differentiate.
        if g.fragment.is_none() {
            return Err(fault(
                prog,
                idx,
                "implicit texture LOD outside a fragment-stage shader (no quads)",
            ));
        }
        Ok(Lod::Implicit { bias, with_min })
    };
    let lod_src = match (x.lod_mode, x.lod) {
        (LodMode::Auto, _) if x.load || x.gather.is_some() => Lod::Zero,
        (LodMode::Min, op) => Lod::Explicit(lod_operand(op, 1, uniforms, prog, idx)?),
        (LodMode::Auto, _) => implicit(None, false)?,
        (LodMode::AutoBias, op) => implicit(Some(lod_operand(op, 1, uniforms, prog, idx)?), false)?,
        (LodMode::AutoBiasMin, op) => {
            implicit(Some(lod_operand(op, 2, uniforms, prog, idx)?), true)?
        }
        (LodMode::Grad | LodMode::GradMin, _) if x.load => {
            return Err(fault(prog, idx, "texture_load with gradients"))
        }
        (LodMode::Grad | LodMode::GradMin, Operand::Reg(r)) => {
            // Mesa passes two axes' gradients for 1D and 2D, three for 3D and cube maps.
            let axes = derivative_axes(x.dim).max(2) as u16;
            let with_min = x.lod_mode == LodMode::GradMin;
            check_run(
                prog,
                idx,
                "gradient",
                r.half,
                x.gradient_halves().unwrap_or(0),
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
    // Each lane reads only its own operands, except the implicit LOD, which differences the
    // coordinates of every lane of the quad, active or not, as `dfdx`/`dfdy` do. So operands
    // are read as rows before any lane runs, results are kept as rows, and they land after
    // the last lane: at a fault, only those of the lanes before it, as a unit stepping lane
    // by lane would have left them.
    let rows = Rows::read(g, x, lod_src, extra, extra_words);
    let op = TexOp {
        g,
        prog,
        idx,
        x,
        state,
        uniforms,
        mem,
        rows: &rows,
    };
    // Results stay in one buffer, filled in place: at four rows of 32 words it is a
    // visible share of a textured draw's time to move.
    let mut out = [[0u64; LANES]; 4];
    let (done, result) = if super::texture_2d::sample(&op, &mut out) {
        (g.exec, Ok(()))
    } else {
        // The common path may have filled some lanes before it gave up.
        out = [[0u64; LANES]; 4];
        let mut done = 0u32;
        let r = sample_lanes(&op, &mut out, &mut done);
        (done, r)
    };
    let halves = x.dst.size.halves();
    for (slot, row) in out.iter().take(results.into()).enumerate() {
        let r = Reg {
            half: x.dst.half + slot as u16 * halves,
            size: x.dst.size,
        };
        g.write_lanes(r, row, done);
    }
    result
}

/// A texture instruction's operands, read from the register file before any lane's result
/// is written: the instruction writes its destinations after its last lane, so every lane
/// reads the operands as they were when it issued.
pub(super) struct Rows<'g> {
    pub lod_src: Lod,
    /// Coordinate axes an implicit LOD differentiates.
    pub axes: usize,
    g: &'g SimdGroup,
    /// The first half of the coordinates, and how many 32-bit words they are.
    coords: u16,
    ncoords: u16,
    /// The depth reference and packed offsets (`extra`), as far as the instruction has them:
    /// first half and words.
    extra: (u16, u16),
}

impl<'g> Rows<'g> {
    pub(super) fn read(
        g: &'g SimdGroup,
        x: &Texture,
        lod_src: Lod,
        extra: Option<Reg>,
        extra_words: u16,
    ) -> Rows<'g> {
        Rows {
            lod_src,
            axes: derivative_axes(x.dim),
            g,
            coords: x.coords.half,
            ncoords: coord_count(x.dim),
            extra: extra.map_or((0, 0), |r| (r.half, extra_words)),
        }
    }

    /// The 32-bit word at `half` of `lane`.
    #[inline]
    fn word(&self, half: u16, lane: usize) -> u32 {
        self.g.reg(
            Reg {
                half,
                size: Size::S32,
            },
            lane,
        ) as u32
    }

    /// Coordinate `i` of `lane`; 0 past the instruction's coordinates.
    #[inline]
    pub(super) fn coord(&self, i: usize, lane: usize) -> u32 {
        if i < usize::from(self.ncoords) {
            self.word(self.coords + 2 * i as u16, lane)
        } else {
            0
        }
    }

    /// Coordinate `i` of every lane (0 past the instruction's coordinates), as floats.
    pub(super) fn coord_floats(&self, i: usize) -> [f32; LANES] {
        if i >= usize::from(self.ncoords) {
            return [0.0; LANES];
        }
        self.g.row32(self.coords + 2 * i as u16).map(f32::from_bits)
    }

    /// Extra word `i` of `lane` (the depth reference, then the packed offsets); 0 past the
    /// instruction's.
    #[inline]
    fn extra(&self, i: usize, lane: usize) -> u32 {
        if i < usize::from(self.extra.1) {
            self.word(self.extra.0 + 2 * i as u16, lane)
        } else {
            0
        }
    }

    /// Lane `lane`'s implicit LOD inputs: the fine derivatives (`dfdx`/`dfdy`: the lane's row
    /// and column pair of its quad), the f16 bias and the f16 minimum LOD of the operand.
    pub(super) fn implicit(
        &self,
        g: &SimdGroup,
        uniforms: &[u16],
        lane: usize,
        bias: Option<Halves>,
        with_min: bool,
    ) -> (([f32; 3], [f32; 3]), f32, Option<f32>) {
        // Axes past `axes` differ by zero.
        let at = |l: usize, a: usize| {
            if a < self.axes {
                f32::from_bits(self.coord(a, l))
            } else {
                0.0
            }
        };
        let diff = |bit: usize| -> [f32; 3] {
            let (lo, hi) = (lane & !bit, lane | bit);
            std::array::from_fn(|a| at(hi, a) - at(lo, a))
        };
        let half = |k| bias.map(|h| f16_to_f32(h.get(g, uniforms, k, lane)));
        let min = if with_min { half(1) } else { None };
        ((diff(1), diff(2)), half(0).unwrap_or(0.0), min)
    }
}

/// The destination values of a texel (after the swizzle), by destination slot.
pub(super) fn results(x: &Texture, t: Texel) -> [u64; 4] {
    let mut out = [0u64; 4];
    let mut slot = 0;
    for c in 0..4 {
        if x.mask & (1 << c) == 0 {
            continue;
        }
        out[slot] = match (x.dst.size, t) {
            (Size::S16, Texel::Float(f)) => u64::from(f32_to_f16(f[c])),
            (Size::S16, Texel::Int(i)) => u64::from(i[c] & 0xffff),
            (_, t) => u64::from(t.bits(c)),
        };
        slot += 1;
    }
    out
}

/// [`results`] of a float texel after [`apply_swizzle`], worked out once per instruction:
/// where each destination slot's value comes from, and its width.
pub(super) struct Finish {
    from: [usize; 4],
    slots: usize,
    half: bool,
}

impl Finish {
    pub(super) fn new(x: &Texture, sw: [Channel; 4]) -> Finish {
        let mut from = [0; 4];
        let mut slots = 0;
        for (c, &channel) in sw.iter().enumerate() {
            if x.mask & (1 << c) != 0 {
                from[slots] = pick(channel);
                slots += 1;
            }
        }
        Finish {
            from,
            slots,
            half: x.dst.size == Size::S16,
        }
    }

    /// `results(x, apply_swizzle(Texel::Float(f), sw))`.
    #[inline]
    pub(super) fn floats(&self, f: [f32; 4]) -> [u64; 4] {
        // Padded to eight, so the index needs no bounds check.
        let ext = [f[0], f[1], f[2], f[3], 0.0, 1.0, 0.0, 0.0];
        std::array::from_fn(|k| {
            let v = ext[self.from[k] & 7];
            if k >= self.slots {
                0
            } else if self.half {
                u64::from(f32_to_f16(v))
            } else {
                u64::from(v.to_bits())
            }
        })
    }
}

/// [`Finish::floats`] of an 8-bit UNORM RGBA texel, by table: the value of each destination
/// slot is the table entry of one of the texel's bytes, or a constant.
pub(super) struct Unorm8Finish {
    /// Per slot, the byte it shows, or 4 for `constant`.
    byte: [usize; 4],
    constant: [u64; 4],
    /// Each byte value's result, as an f32 or an f16 (`Finish::half`).
    table: &'static [u64; 256],
}

impl Unorm8Finish {
    /// The table, when the four slots show bytes 0 to 3 in order.
    #[inline]
    pub(super) fn in_order(&self) -> Option<&'static [u64; 256]> {
        (self.byte == [0, 1, 2, 3]).then_some(self.table)
    }

    /// `finish.floats(canonical_floats(format::unorm8x4(b)))`; decoded values are never NaN.
    #[inline]
    pub(super) fn values(&self, b: [u8; 4]) -> [u64; 4] {
        std::array::from_fn(|k| match self.byte[k] {
            c @ 0..=3 => self.table[usize::from(b[c])],
            _ => self.constant[k],
        })
    }
}

impl Finish {
    /// This finish of 8-bit UNORM RGBA texels as a table look-up.
    pub(super) fn unorm8(&self) -> Unorm8Finish {
        static TABLES: std::sync::OnceLock<[[u64; 256]; 2]> = std::sync::OnceLock::new();
        let tables = TABLES.get_or_init(|| {
            let f = |v: usize| format::unorm8(v as u8);
            [
                std::array::from_fn(|v| u64::from(f(v).to_bits())),
                std::array::from_fn(|v| u64::from(f32_to_f16(f(v)))),
            ]
        });
        // The constants are what `floats` makes of a texel whose channels show nothing.
        let constant = self.floats([0.0; 4]);
        Unorm8Finish {
            byte: std::array::from_fn(|k| {
                if k < self.slots && self.from[k] & 7 < 4 {
                    self.from[k] & 7
                } else {
                    4
                }
            }),
            constant,
            table: &tables[usize::from(self.half)],
        }
    }
}

/// What the lanes sampling through one descriptor with one sampler share.
struct Current {
    bound: Rc<Bound>,
    key: Option<SamplerKey>,
    sampler: Option<(Sampler, Extent)>,
    texels: TexelCache,
}

/// One `texture` instruction as the unit runs it: the group, the instruction and where it
/// is, the state and memory it reaches, and its operands read as rows.
#[derive(Clone, Copy)]
pub(super) struct TexOp<'a> {
    pub g: &'a SimdGroup,
    pub prog: &'a Program,
    pub idx: usize,
    pub x: &'a Texture,
    pub state: &'a TextureState,
    pub uniforms: &'a [u16],
    pub mem: &'a dyn GpuMemory,
    pub rows: &'a Rows<'a>,
}

/// Runs the texture instruction for every active lane, leaving each lane's result
/// components in `out` (by destination slot) and its bit in `done`.
pub(super) fn sample_lanes(op: &TexOp, out: &mut [Lanes; 4], done: &mut u32) -> Result<(), Fault> {
    let TexOp {
        g,
        prog,
        idx,
        x,
        state,
        uniforms,
        mem,
        rows,
    } = *op;
    let mut reader = Reader::new(mem);
    let mut samplers: Vec<(SamplerKey, SamplerWithBorder)> = Vec::new();
    let mut descriptors = Descriptors::<Bound>::new(x.texture, state, uniforms, prog, idx);
    // The binding of the previous lane: neighbouring lanes mostly share the descriptor and
    // sampler, and the texels their filters read (kept in `texels` for the descriptor).
    let mut cur: Option<Current> = None;
    for lane in (0..LANES).filter(|l| g.exec & (1 << l) != 0) {
        let bound = descriptors.for_lane(g, lane, mem)?;
        let key = if x.load {
            None
        } else {
            Some(sampler_key(g, x.sampler, lane, prog, idx)?)
        };
        let same_bound = cur.as_ref().is_some_and(|c| Rc::ptr_eq(&c.bound, &bound));
        if !same_bound || cur.as_ref().is_some_and(|c| c.key != key) {
            let texels = match cur.take() {
                // Texels read through another descriptor are not this one's.
                Some(c) if same_bound => c.texels,
                _ => TexelCache::default(),
            };
            let b = &*bound;
            let sampler = match key {
                Some(k) => {
                    let (s, border) = sampler(k, state, mem, &mut samplers, prog, idx)?;
                    let ext = b.surface.as_ref().map(|surf| Extent {
                        levels: surf.levels,
                        layers: surf.depth,
                        integer: format::is_integer(b.desc.texture_type),
                        unorm: b.desc.texture_type == TextureType::Unorm,
                        custom_border: border
                            .map(|w| custom_border(w, b.desc.texture_type, b.desc.swizzle)),
                    });
                    ext.map(|e| (s, e))
                }
                None => None,
            };
            cur = Some(Current {
                bound: bound.clone(),
                key,
                sampler,
                texels,
            });
        }
        let Some(bind) = cur.as_mut() else {
            unreachable!("a binding was just made")
        };
        let texel = sample_lane(g, x, uniforms, &mut reader, rows, bind, lane)?;
        let b = &*bind.bound;
        // Gathers swizzled each tap; LOD queries are no texel.
        let t = if x.gather.is_some() || x.query_lod {
            texel
        } else {
            apply_swizzle(texel, b.desc.swizzle)
        };
        for (row, v) in out.iter_mut().zip(results(x, t)) {
            row[lane] = v;
        }
        *done |= 1 << lane;
    }
    Ok(())
}

/// One lane's texel (before the descriptor swizzle, except gathers).
#[allow(clippy::too_many_arguments)]
fn sample_lane(
    g: &SimdGroup,
    x: &Texture,
    uniforms: &[u16],
    mem: &mut Reader<'_>,
    rows: &Rows,
    bind: &mut Current,
    lane: usize,
) -> Result<Texel, Fault> {
    let b = &*bind.bound;
    let integer = format::is_integer(b.desc.texture_type);
    let c: [u32; 4] = std::array::from_fn(|i| rows.coord(i, lane));
    let (first, second) = (rows.extra(0, lane), rows.extra(1, lane));
    let (reference, offsets) = match (x.shadow, x.offset) {
        (true, true) => (Some(f32::from_bits(first)), nibble_offsets(second)),
        (true, false) => (Some(f32::from_bits(first)), [0; 3]),
        (false, true) => (None, nibble_offsets(first)),
        (false, false) => (None, [0; 3]),
    };
    let lod_src = rows.lod_src;
    let lod_bits = match lod_src {
        Lod::Explicit(h) => h.get(g, uniforms, 0, lane),
        _ => 0,
    };

    if x.load {
        if matches!(x.dim, TexDim::Cube | TexDim::CubeArray) {
            return Err(Fault::Unimplemented("texture_load of cube dimensions"));
        }
        let mut ic = int_coords(x.dim, &c);
        for (c, o) in ic.xyz.iter_mut().zip(offsets) {
            *c += i64::from(o);
        }
        let z = surface_z(x.dim, &ic);
        return Ok(fetch(
            b,
            mem,
            [ic.xyz[0], ic.xyz[1], z],
            u32::from(lod_bits),
            ic.sample,
        )?
        .unwrap_or(zero_texel(integer)));
    }
    let (Some(surf), Some((s, ext))) = (&b.surface, bind.sampler) else {
        return Ok(zero_texel(integer));
    };
    let sh = shape(x.dim).unwrap_or(Shape::D2);
    let layer = match x.dim {
        TexDim::D1Array => c[1],
        TexDim::D2Array => c[2],
        TexDim::CubeArray => c[3],
        _ => 0,
    };
    let coords = [
        f32::from_bits(c[0]),
        f32::from_bits(c[1]),
        f32::from_bits(c[2]),
    ];
    // The derivatives (gradients or quad differences), the bias and the minimum LOD the
    // operand adds to their LOD.
    let (derivs, bias, min) = match lod_src {
        Lod::Gradients {
            base,
            axes,
            with_min,
        } => {
            let w = |i: u16| f32::from_bits(r32(g, base, i, lane));
            let pick = |first: u16| -> [f32; 3] {
                std::array::from_fn(|a| {
                    if a < usize::from(axes) {
                        w(2 * a as u16 + first)
                    } else {
                        0.0
                    }
                })
            };
            let min = with_min.then(|| f16_to_f32(r32(g, base, 2 * axes, lane) as u16));
            (Some((pick(0), pick(1))), 0.0, min)
        }
        Lod::Implicit { bias, with_min } => {
            let (d, bias, min) = rows.implicit(g, uniforms, lane, bias, with_min);
            (Some(d), bias, min)
        }
        _ => (None, 0.0, None),
    };
    let (lod, spread) = match derivs {
        Some((dx, dy)) => {
            let fp = footprint(sh, coords, dx, dy, surf.extent(0), &s);
            let lod = fp.lod + bias;
            let lod = min.map_or(lod, |m| lod.max(m));
            (lod, (fp.taps > 1).then_some((fp.taps, fp.along)))
        }
        None => (f16_to_f32(lod_bits), None),
    };
    let req = Request {
        shape: sh,
        coords,
        layer,
        lod,
        offset: offsets,
        compare: reference,
    };
    let size = |l: u32| surf.extent(l);
    let texels = &mut bind.texels;
    let mut f = |x: i64, y: i64, z: i64, l: u32| -> Result<Texel, Fault> {
        texels.get([x, y, z], l, || {
            Ok(fetch(b, mem, [x, y, z], l, 0)?.unwrap_or(zero_texel(integer)))
        })
    };
    let unwrap = |e| match e {
        SampleError::Fetch(f) => f,
        SampleError::Unmodelled(what) => Fault::Unimplemented(what),
    };
    if x.query_lod {
        let [clamped, lod] = sample::query_lod(&s, ext, lod);
        return Ok(Texel::Float([clamped, lod, 0.0, 0.0]));
    }
    if let (Some((n, along)), false, None) = (spread, integer, x.gather) {
        // Vulkan's anisotropic approximation: the mean of n samples at i / (n + 1) - 1/2
        // of the major axis's derivative, i = 1..=n.
        let mut acc = [0f32; 4];
        for i in 1..=n {
            let t = i as f32 / (n + 1) as f32 - 0.5;
            let req = Request {
                coords: std::array::from_fn(|a| coords[a] + t * along[a]),
                ..req
            };
            let texel = sample::sample(&s, ext, &req, &size, &mut f).map_err(unwrap)?;
            if let Texel::Float(v) = texel {
                for (a, v) in acc.iter_mut().zip(v) {
                    *a += v / n as f32;
                }
            }
        }
        return Ok(Texel::Float(acc));
    }
    Ok(match x.gather {
        Some(c) => {
            let taps = sample::gather(&s, ext, &req, &size, &mut f).map_err(unwrap)?;
            let pick = |t: Texel| apply_swizzle(t, b.desc.swizzle);
            // Each tap is swizzled here; the result is not swizzled again.
            gathered(taps.map(pick), usize::from(c & 3))
        }
        None => sample::sample(&s, ext, &req, &size, &mut f).map_err(unwrap)?,
    })
}

#[allow(clippy::too_many_arguments)]
fn step_image_write(
    g: &mut SimdGroup,
    prog: &Program,
    idx: usize,
    x: &ImageWrite,
    state: &TextureState,
    helpers: u32,
    uniforms: &[u16],
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
    let exec = g.exec & !helpers;
    let mut descriptors = Descriptors::<BoundPbe>::new(x.texture, state, uniforms, prog, idx);
    for lane in (0..LANES).filter(|l| exec & (1 << l) != 0) {
        let bound = descriptors.for_lane(g, lane, &*mem)?;
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

/// Runs a `texture` or `image_write` instruction for every active lane and advances the pc;
/// an `image_write` skips the lanes of `helpers`. Returns false if the instruction at `idx`
/// is neither.
pub fn step_texture(
    g: &mut SimdGroup,
    prog: &Program,
    idx: usize,
    state: &TextureState,
    helpers: u32,
    uniforms: &[u16],
    mem: &mut dyn GpuMemory,
) -> Result<bool, Fault> {
    match prog.instrs[idx] {
        Instr::Texture(x) => step_texture_op(g, prog, idx, &x, state, uniforms, mem)?,
        Instr::ImageWrite(x) => step_image_write(g, prog, idx, &x, state, helpers, uniforms, mem)?,
        _ => return Ok(false),
    }
    g.pc += 1;
    Ok(true)
}

#[cfg(test)]
#[path = "tests_texture.rs"]
mod tests;
