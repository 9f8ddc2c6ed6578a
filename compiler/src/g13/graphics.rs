//! The G13 graphics ABI: where vertex shader outputs go in the UVS record, which coefficient
//! register (cf) slot each fragment shader input reads, where colour outputs go in the
//! tilebuffer, and how the vertex and instance index reach a vertex shader.
//!
//! Layout facts follow Mesa's asahi driver (public): the UVS record starts with the four
//! clip-space position words, then the point size when written, then the user varyings, then
//! the clip distances (`hw::g13::uvs`: the clipper finds them at the end of the record); the
//! fragment shader's coefficient registers start with the plane of 1/W (which perspective-
//! correct `iter` divides by) and then the plane of Z.
//!
//! What the launch preloads (docs/render-abi.md sections 3 and 4): `r5` holds the vertex
//! index and `r6` the instance number counted from 0 (the root table's first-instance word
//! is added to it); `get_sr` 80/81 give the fragment's framebuffer pixel and 62 the
//! back-facing flag.

use hw::g13::tilebuffer::{ColourFormat, TibFormat};
use hw::g13::{preload, uvs};

use super::isel::{self, GraphicsTarget};
use super::{compile_vprog, encode, stats, Options};
use crate::graphics_api::{BlendAttachment, CoverageOptions, InputAttachmentSource, LogicOp};
use crate::ir::{GraphicsShader, Interpolation, Stage};
use crate::{abi, CompileError, Stats};

/// UVS word of clip-space position x (y, z, w follow).
pub const UVS_POSITION: u8 = uvs::POSITION_WORD as u8;
/// UVS word of the point size, when the layout has one.
pub const UVS_POINT_SIZE: u8 = uvs::POINT_SIZE_WORD as u8;

/// Coefficient slot holding the plane of 1/W.
pub const CF_W: u8 = 0;
/// Coefficient slot holding the plane of depth Z.
pub const CF_Z: u8 = 1;
/// First coefficient slot of the user varyings.
pub const CF_FIRST_VARYING: u8 = 2;

/// UVS word of clip-space W: a coefficient binding with this base slot yields 1/W.
pub const UVS_CLIP_W: u8 = UVS_POSITION + 3;

/// The preloaded register (in halves) holding the vertex index.
pub const PRELOAD_VERTEX_INDEX: u16 = preload::VERTEX_INDEX.half;
/// The preloaded register holding the instance number counted from 0.
pub const PRELOAD_INSTANCE_NUMBER: u16 = preload::INSTANCE.half;

/// One 32-bit varying component and where it lives on both sides of the rasterizer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VaryingSlot {
    pub location: u32,
    pub component: u8,
    /// Word of the vertex's UVS record the vertex shader writes.
    pub uvs: u8,
    /// Coefficient register the fragment shader reads.
    pub cf: u8,
    /// How the rasterizer builds the slot's plane (flat slots get A = B = 0 and the
    /// provoking vertex's value as C; smooth ones the plane of value/W).
    pub interp: Interpolation,
}

/// The varying interface between a vertex and a fragment shader.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct VaryingLayout {
    pub slots: Vec<VaryingSlot>,
    /// The UVS record has a point size word at [`UVS_POINT_SIZE`].
    pub point_size: bool,
    /// Words of one UVS record.
    pub uvs_words: u32,
    /// Coefficient slots the fragment launch must load.
    pub cf_slots: u32,
    /// The two coefficient slots holding gl_PointCoord's planes, when the fragment shader
    /// reads it (after the varyings).
    pub point_coord_cf: Option<u8>,
    /// Clip distances (planes 0 to n - 1) the vertex shader writes for the clipper.
    pub clip_distances: u8,
}

impl VaryingLayout {
    /// Packs `varyings` (location, component, interpolation) in the order given after the
    /// fixed slots.
    pub fn new(
        varyings: &[(u32, u8, Interpolation)],
        point_size: bool,
    ) -> Result<VaryingLayout, CompileError> {
        let first_uvs = if point_size { 5 } else { 4 };
        let mut slots = Vec::with_capacity(varyings.len());
        for (i, &(location, component, interp)) in varyings.iter().enumerate() {
            if component > 3 {
                return Err(CompileError::Unsupported(format!(
                    "varying component {component} (at most 3)"
                )));
            }
            if slots
                .iter()
                .any(|s: &VaryingSlot| s.location == location && s.component == component)
            {
                return Err(CompileError::Unsupported(format!(
                    "varying location {location} component {component} listed twice"
                )));
            }
            let uvs = first_uvs + i;
            let cf = usize::from(CF_FIRST_VARYING) + i;
            if uvs > 255 || cf > 255 {
                return Err(CompileError::Limit(format!(
                    "{} varying components",
                    varyings.len()
                )));
            }
            slots.push(VaryingSlot {
                location,
                component,
                uvs: uvs as u8,
                cf: cf as u8,
                interp,
            });
        }
        Ok(VaryingLayout {
            slots,
            point_size,
            uvs_words: (first_uvs + varyings.len()) as u32,
            cf_slots: (usize::from(CF_FIRST_VARYING) + varyings.len()) as u32,
            point_coord_cf: None,
            clip_distances: 0,
        })
    }

    /// Appends the group of `n` clip distances (planes 0 to n - 1) to the UVS record.
    pub fn add_clip_distances(&mut self, n: u8) -> Result<(), CompileError> {
        if u32::from(n) > crate::ir::MAX_CLIP_DISTANCES || self.clip_distances != 0 {
            return Err(CompileError::Limit(format!("{n} clip distances")));
        }
        self.clip_distances = n;
        self.uvs_words += u32::from(n);
        Ok(())
    }

    /// Output Select's `clip_distance_planes`: one bit per clip distance.
    pub fn clip_distance_planes(&self) -> u16 {
        ((1u32 << self.clip_distances) - 1) as u16
    }

    /// UVS word of clip distance `k`, when the layout has it.
    pub fn clip_distance_uvs(&self, k: u8) -> Option<u8> {
        if k >= self.clip_distances {
            return None;
        }
        let base =
            hw::g13::uvs::clip_distance_base(self.uvs_words as usize, self.clip_distance_planes())?;
        u8::try_from(base + usize::from(k)).ok()
    }

    /// Gives gl_PointCoord the next two coefficient slots (the rasterizer fills them from the
    /// point sprite, not from the UVS record).
    pub fn add_point_coord(&mut self) -> Result<(), CompileError> {
        let cf = u8::try_from(self.cf_slots)
            .ok()
            .filter(|c| *c < 254)
            .ok_or_else(|| CompileError::Limit("varying components and gl_PointCoord".into()))?;
        self.point_coord_cf = Some(cf);
        self.cf_slots += 2;
        Ok(())
    }

    /// The slot of (location, component), if the layout has it.
    pub fn find(&self, location: u32, component: u8) -> Option<&VaryingSlot> {
        self.slots
            .iter()
            .find(|s| s.location == location && s.component == component)
    }
}

/// Where a fragment shader's colour output at `location` goes and how it is combined with
/// what the tilebuffer holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ColourOutput {
    pub location: u32,
    /// Byte offset of the target inside a tilebuffer sample.
    pub offset: u16,
    pub format: TibFormat,
    /// The attachment's format (numeric interpretation, channel count).
    pub colour: ColourFormat,
    pub blend: BlendAttachment,
    /// The target lives in memory, not in the tilebuffer (`abi::SPILLED_TARGET_TEXTURE_BASE`).
    pub spilled: bool,
}

impl ColourOutput {
    /// A target written as it is (no blending, every channel).
    pub fn plain(location: u32, offset: u16, colour: ColourFormat) -> Option<ColourOutput> {
        Some(ColourOutput {
            location,
            offset,
            format: colour.tib_format()?,
            colour,
            blend: BlendAttachment::default(),
            spilled: false,
        })
    }
}

/// The colour targets a fragment shader writes and the state shared by them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FragmentOutputs {
    pub colours: Vec<ColourOutput>,
    /// How each input attachment is read (indices past the end: colour in memory).
    pub inputs: Vec<InputAttachmentSource>,
    /// Replaces blending for the integer and normalised targets when set.
    pub logic_op: Option<LogicOp>,
    /// Samples per pixel of the tilebuffer (1, 2 or 4).
    pub samples: u32,
}

impl Default for FragmentOutputs {
    fn default() -> FragmentOutputs {
        FragmentOutputs {
            colours: Vec::new(),
            inputs: Vec::new(),
            logic_op: None,
            samples: 1,
        }
    }
}

impl FragmentOutputs {
    pub(crate) fn find(&self, location: u32) -> Option<&ColourOutput> {
        self.colours.iter().find(|c| c.location == location)
    }
}

/// A compiled vertex or fragment shader.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GraphicsBinary {
    pub stage: Stage,
    /// Machine code ending in `stop`.
    pub code: Vec<u8>,
    pub gpr_halves: u32,
    /// Uniform halves the launch must preload from the root table.
    pub uniform_halves: u32,
    pub scratch_bytes: u32,
    /// The shader may discard (its coverage output matters).
    pub discards: bool,
    /// The uniform preamble, if the shader has one; its code follows the main shader's in
    /// `code`.
    pub preamble: Option<crate::PreambleCode>,
    pub stats: Stats,
}

/// Compiles a vertex or fragment shader against its varying interface and (fragment) its
/// colour targets.
pub fn compile_graphics(
    g: &GraphicsShader,
    layout: &VaryingLayout,
    outputs: &FragmentOutputs,
) -> Result<GraphicsBinary, CompileError> {
    compile_graphics_with(g, layout, outputs, &CoverageOptions::default())
}

/// [`compile_graphics`] of a fragment shader that also applies a sample mask or alpha-to-one.
pub fn compile_graphics_with(
    g: &GraphicsShader,
    layout: &VaryingLayout,
    outputs: &FragmentOutputs,
    coverage: &CoverageOptions,
) -> Result<GraphicsBinary, CompileError> {
    if g.stage == Stage::Geometry {
        // AGX has no geometry stage: a geometry shader runs merged with the vertex shader as
        // a compute-like point draw (docs/geometry.md), which is not built yet.
        return Err(CompileError::Unsupported(
            "geometry shaders (no machine code of their own on AGX; the VS+GS merge is not \
             implemented yet)"
                .into(),
        ));
    }
    if !matches!(g.stage, Stage::Vertex | Stage::Fragment) {
        return Err(CompileError::Internal(format!(
            "compile_graphics given a {:?} shader",
            g.stage
        )));
    }
    let target = GraphicsTarget {
        stage: g.stage,
        layout,
        outputs,
        per_sample: g.per_sample,
        coverage: *coverage,
    };
    let mut vprog = isel::select_graphics(&g.shader, target)?;
    super::dead_defs::remove_dead_defs(&mut vprog);
    super::share_imms::share_immediates(&mut vprog);
    let discards = vprog
        .items
        .iter()
        .any(|i| matches!(i, super::Item::Op(hw::isa::Instr::SampleMask(_))));
    let c = compile_vprog(&vprog, Options::default())?;
    let encoded = encode::encode_program(&c.items)?;
    let st = stats::Stats::new(&c, &encoded);
    st.report(&encoded.code);
    Ok(GraphicsBinary {
        stage: g.stage,
        code: encoded.code,
        gpr_halves: c.gpr_halves,
        uniform_halves: abi::GRAPHICS_ROOT_TABLE_SIZE / 2,
        scratch_bytes: c.scratch_bytes,
        discards,
        preamble: None,
        stats: st.api(),
    })
}

/// [`compile_graphics_with`] with the values uniform over a draw computed once, by a
/// preamble (`passes::preamble`), when there are any worth it: `resources` says which
/// descriptors are uniform buffers.
pub fn compile_graphics_split(
    g: &GraphicsShader,
    layout: &VaryingLayout,
    outputs: &FragmentOutputs,
    coverage: &CoverageOptions,
    resources: &crate::ResourceLayout,
) -> Result<GraphicsBinary, CompileError> {
    // No 64-bit results: a memory base must be below uniform half 256.
    let area = crate::passes::preamble::Area {
        halves: abi::PREAMBLE_UNIFORM_END - abi::GRAPHICS_PREAMBLE_UNIFORM_START,
        wide_halves: 0,
    };
    let split = if crate::debug::flags().no_preamble {
        None
    } else {
        crate::passes::preamble::split(&g.shader, resources, area)?
    };
    let Some((preamble, main)) = split else {
        return compile_graphics_with(g, layout, outputs, coverage);
    };
    crate::ir::validate::validate(&preamble)
        .and_then(|()| crate::ir::validate::backend_form(&preamble))
        .map_err(|e| CompileError::Internal(format!("preamble after the split: {e}")))?;
    let mut pv = isel::select_graphics_preamble(&preamble)?;
    super::dead_defs::remove_dead_defs(&mut pv);
    super::share_imms::share_immediates(&mut pv);
    let pc = compile_vprog(&pv, Options::default())?;
    if pc.spills > 0 || pc.scratch_bytes > 0 || pc.gpr_halves > super::MAX_PREAMBLE_GPR_HALVES {
        return compile_graphics_with(g, layout, outputs, coverage);
    }
    let mut gm = g.clone();
    gm.shader = main;
    let mut b = compile_graphics_with(&gm, layout, outputs, coverage)?;
    let pe = encode::encode_program(&pc.items)?;
    let pst = stats::Stats::new(&pc, &pe);
    pst.report_preamble(&pe.code);
    b.preamble = Some(crate::PreambleCode {
        offset: b.code.len() as u32,
        gpr_halves: pc.gpr_halves,
        first_half: abi::GRAPHICS_PREAMBLE_UNIFORM_START,
        result_halves: super::preamble_result_halves(&preamble).1,
    });
    b.code.extend_from_slice(&pe.code);
    b.stats.preamble_instructions = pst.instructions;
    Ok(b)
}
