//! VDM (vertex data master) control stream blocks: state updates for the vertex shader,
//! pointers to PPP updates, draws (index lists), barriers, links and the terminator.
//!
//! Every block starts with a 32-bit word whose bits 29..31 give its type. VDM State and Index
//! List blocks carry presence bits for optional words that follow in a fixed order (Mesa's
//! decoder order). A VDM State block is padded to a multiple of 8 bytes; an index list is not.

use super::bits::{at, bad, need, Field, Modifier};
use super::descriptors::{get_bool, hw_enum, no_stray, put_bool};
use crate::{WordError, WordSource};

const BLOCK_PPP: u64 = 0;
const BLOCK_BARRIER: u64 = 1;
const BLOCK_STATE: u64 = 2;
const BLOCK_INDEX_LIST: u64 = 3;
const BLOCK_LINK: u64 = 4;
const BLOCK_TESSELLATE: u64 = 5;
const BLOCK_TERMINATE: u64 = 6;

const BLOCK_TYPE: Field = Field::new("block type", 29, 3);

hw_enum!(
    Primitive {
        Points = 0, Lines = 1, LineStrip = 3, LineLoop = 5, Triangles = 6, TriangleStrip = 9,
        TriangleFan = 11, Quads = 14, QuadStrip = 15,
    }
);
hw_enum!(IndexSize { U8 = 0, U16 = 1, U32 = 2 });
hw_enum!(
    /// Provoking vertex, as the VDM numbers it.
    VdmVertex { V0 = 0, V1 = 1, V2 = 2 }
);

fn w4(b: &[u8]) -> [u8; 4] {
    [b[0], b[1], b[2], b[3]]
}

fn check_type(b: &[u8], block: u64, what: &str) -> Result<(), WordError> {
    if BLOCK_TYPE.get(b) != block {
        return Err(bad(format!("not a {what} block")));
    }
    Ok(())
}

mod counts {
    use super::*;
    pub const UNKNOWN_0: Field = Field::new("unknown 0", 0, 1);
    pub const UNIFORMS: Field = Field::with("uniform register count", 1, 3, Modifier::Groups(64));
    pub const TEXTURES: Field = Field::with("texture state count", 4, 5, Modifier::Groups(8));
    pub const SAMPLERS: Field = Field::new("sampler state count", 9, 3);
    pub const PRESHADER: Field =
        Field::with("preshader register count", 12, 4, Modifier::Groups(16));
}

/// The register counts of a shader stage (VDM State Vertex Shader Word 0, and bits 0..15 of
/// Fragment Shader Word 0). Counts in halves or states round up to their groups; 0 is not
/// representable and reads back as one group, as in [`super::CdmLaunch`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShaderCounts {
    pub unknown_0: bool,
    pub uniform_halves: u32,
    pub texture_states: u32,
    /// The raw "Sampler states" enum, see [`super::sampler_states`].
    pub sampler_states: u32,
    pub preshader_halves: u32,
}

impl ShaderCounts {
    /// The preshader register count for a preshader using `gpr_halves` halves, as the word
    /// holds it: rounded up to its groups of 16.
    pub fn preshader_halves_for(gpr_halves: u32) -> u32 {
        counts::PRESHADER.stored(gpr_halves.into()) as u32
    }

    pub fn pack(&self) -> [u8; 4] {
        use counts::*;
        let mut b = [0u8; 4];
        put_bool(UNKNOWN_0, &mut b, self.unknown_0);
        UNIFORMS.put(&mut b, self.uniform_halves.into());
        TEXTURES.put(&mut b, self.texture_states.into());
        SAMPLERS.put(&mut b, self.sampler_states.into());
        PRESHADER.put(&mut b, self.preshader_halves.into());
        b
    }

    pub fn unpack(b: &[u8]) -> Result<ShaderCounts, WordError> {
        use counts::*;
        need(b, 4, "shader counts")?;
        no_stray(
            b,
            4,
            &[UNKNOWN_0, UNIFORMS, TEXTURES, SAMPLERS, PRESHADER],
            "shader counts",
        )?;
        let sampler_states = SAMPLERS.get(b) as u32;
        if sampler_states == 5 {
            return Err(bad("sampler state count encoding 5 is not defined"));
        }
        Ok(ShaderCounts {
            unknown_0: get_bool(UNKNOWN_0, b),
            uniform_halves: UNIFORMS.get(b) as u32,
            texture_states: TEXTURES.get(b) as u32,
            sampler_states,
            preshader_halves: PRESHADER.get(b) as u32,
        })
    }
}

const VS1_UNKNOWN: Field = Field::new("unknown 1:0", 0, 2);
const VS1_PIPELINE: Field = Field::with("pipeline", 6, 26, Modifier::Shr(6));

/// VDM State Vertex Shader Word 1: where the vertex shader's USC words are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VertexShaderWord1 {
    pub unknown: u32,
    /// USC address (offset from `usc_exec_base`), 64-byte aligned.
    pub pipeline: u32,
}

impl VertexShaderWord1 {
    pub fn pack(&self) -> [u8; 4] {
        let mut b = [0u8; 4];
        VS1_UNKNOWN.put(&mut b, self.unknown.into());
        VS1_PIPELINE.put(&mut b, self.pipeline.into());
        b
    }

    pub fn unpack(b: &[u8]) -> Result<VertexShaderWord1, WordError> {
        need(b, 4, "vertex shader word 1")?;
        no_stray(b, 4, &[VS1_UNKNOWN, VS1_PIPELINE], "vertex shader word 1")?;
        Ok(VertexShaderWord1 {
            unknown: VS1_UNKNOWN.get(b) as u32,
            pipeline: VS1_PIPELINE.get(b) as u32,
        })
    }
}

const VO_COUNT_1: Field = Field::new("output count 1", 0, 8);
const VO_COUNT_2: Field = Field::new("output count 2", 8, 8);

/// VDM State Vertex Outputs: two output counts (their units are not described).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VertexOutputs {
    pub count_1: u32,
    pub count_2: u32,
}

impl VertexOutputs {
    pub fn pack(&self) -> [u8; 4] {
        let mut b = [0u8; 4];
        VO_COUNT_1.put(&mut b, self.count_1.into());
        VO_COUNT_2.put(&mut b, self.count_2.into());
        b
    }

    pub fn unpack(b: &[u8]) -> Result<VertexOutputs, WordError> {
        need(b, 4, "vertex outputs")?;
        no_stray(b, 4, &[VO_COUNT_1, VO_COUNT_2], "vertex outputs")?;
        Ok(VertexOutputs {
            count_1: VO_COUNT_1.get(b) as u32,
            count_2: VO_COUNT_2.get(b) as u32,
        })
    }
}

const VU_FLAT: Field = Field::new("flat shading control", 0, 2);
const VU_UNK_4: Field = Field::new("unknown 4", 4, 1);
const VU_UNK_5: Field = Field::new("unknown 5", 5, 1);
const VU_PRIM_ID: Field = Field::new("generate primitive id", 6, 1);

/// VDM State Vertex Unknown. Mesa sets both unknown bits with rasterizer discard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VertexUnknown {
    pub flat_shading_control: VdmVertex,
    pub unknown_4: bool,
    pub unknown_5: bool,
    pub generate_primitive_id: bool,
}

impl VertexUnknown {
    pub fn pack(&self) -> [u8; 4] {
        let mut b = [0u8; 4];
        VU_FLAT.put(&mut b, self.flat_shading_control.bits());
        put_bool(VU_UNK_4, &mut b, self.unknown_4);
        put_bool(VU_UNK_5, &mut b, self.unknown_5);
        put_bool(VU_PRIM_ID, &mut b, self.generate_primitive_id);
        b
    }

    pub fn unpack(b: &[u8]) -> Result<VertexUnknown, WordError> {
        need(b, 4, "vertex unknown")?;
        no_stray(
            b,
            4,
            &[VU_FLAT, VU_UNK_4, VU_UNK_5, VU_PRIM_ID],
            "vertex unknown",
        )?;
        Ok(VertexUnknown {
            flat_shading_control: VdmVertex::from_bits(VU_FLAT.get(b))?,
            unknown_4: get_bool(VU_UNK_4, b),
            unknown_5: get_bool(VU_UNK_5, b),
            generate_primitive_id: get_bool(VU_PRIM_ID, b),
        })
    }
}

mod state {
    use super::*;
    pub const RESTART: Field = Field::new("restart index present", 0, 1);
    pub const VS0: Field = Field::new("vertex shader word 0 present", 1, 1);
    pub const VS1: Field = Field::new("vertex shader word 1 present", 2, 1);
    pub const OUTPUTS: Field = Field::new("vertex outputs present", 3, 1);
    pub const TESS: Field = Field::new("tessellation present", 4, 1);
    pub const UNKNOWN: Field = Field::new("vertex unknown present", 5, 1);
    pub const TESS_SCALE: Field = Field::new("tessellation scale present", 7, 1);
    pub const ALL: [Field; 8] = [
        RESTART, VS0, VS1, OUTPUTS, TESS, UNKNOWN, TESS_SCALE, BLOCK_TYPE,
    ];
}

/// A VDM State block: the header and whichever optional words are present. Tessellation
/// words are not modelled (reading one is a [`WordError::Unmodelled`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VdmState {
    pub restart_index: Option<u32>,
    pub vertex_shader_word_0: Option<ShaderCounts>,
    pub vertex_shader_word_1: Option<VertexShaderWord1>,
    pub vertex_outputs: Option<VertexOutputs>,
    pub vertex_unknown: Option<VertexUnknown>,
}

impl VdmState {
    /// Merges a State block into the state in force: the words it carries replace theirs.
    pub fn apply(&mut self, s: &VdmState) {
        self.restart_index = s.restart_index.or(self.restart_index);
        self.vertex_shader_word_0 = s.vertex_shader_word_0.or(self.vertex_shader_word_0);
        self.vertex_shader_word_1 = s.vertex_shader_word_1.or(self.vertex_shader_word_1);
        self.vertex_outputs = s.vertex_outputs.or(self.vertex_outputs);
        self.vertex_unknown = s.vertex_unknown.or(self.vertex_unknown);
    }

    /// The block that takes the state in force from `before` to `before.apply(self)`: only
    /// the words that change it.
    pub fn changes_from(&self, before: &VdmState) -> VdmState {
        fn changed<T: PartialEq + Copy>(new: Option<T>, old: Option<T>) -> Option<T> {
            new.filter(|n| Some(*n) != old)
        }
        VdmState {
            restart_index: changed(self.restart_index, before.restart_index),
            vertex_shader_word_0: changed(self.vertex_shader_word_0, before.vertex_shader_word_0),
            vertex_shader_word_1: changed(self.vertex_shader_word_1, before.vertex_shader_word_1),
            vertex_outputs: changed(self.vertex_outputs, before.vertex_outputs),
            vertex_unknown: changed(self.vertex_unknown, before.vertex_unknown),
        }
    }

    /// Whether the block carries no word.
    pub fn is_empty(&self) -> bool {
        *self == VdmState::default()
    }

    /// Bytes of the block: header and words, padded to 8.
    pub fn size(&self) -> usize {
        let words = 1 + [
            self.restart_index.is_some(),
            self.vertex_shader_word_0.is_some(),
            self.vertex_shader_word_1.is_some(),
            self.vertex_outputs.is_some(),
            self.vertex_unknown.is_some(),
        ]
        .iter()
        .filter(|p| **p)
        .count();
        (words * 4).next_multiple_of(8)
    }

    pub fn pack(&self, out: &mut Vec<u8>) {
        use state::*;
        let start = out.len();
        let mut h = [0u8; 4];
        put_bool(RESTART, &mut h, self.restart_index.is_some());
        put_bool(VS0, &mut h, self.vertex_shader_word_0.is_some());
        put_bool(VS1, &mut h, self.vertex_shader_word_1.is_some());
        put_bool(OUTPUTS, &mut h, self.vertex_outputs.is_some());
        put_bool(UNKNOWN, &mut h, self.vertex_unknown.is_some());
        BLOCK_TYPE.put(&mut h, BLOCK_STATE);
        out.extend_from_slice(&h);
        if let Some(v) = self.restart_index {
            out.extend_from_slice(&v.to_le_bytes());
        }
        if let Some(w) = self.vertex_shader_word_0 {
            out.extend_from_slice(&w.pack());
        }
        if let Some(w) = self.vertex_shader_word_1 {
            out.extend_from_slice(&w.pack());
        }
        if let Some(w) = self.vertex_outputs {
            out.extend_from_slice(&w.pack());
        }
        if let Some(w) = self.vertex_unknown {
            out.extend_from_slice(&w.pack());
        }
        out.resize(start + self.size(), 0);
    }

    /// Unpack a block from `b`; returns it and its size (padding included).
    pub fn unpack(b: &[u8]) -> Result<(VdmState, usize), WordError> {
        use state::*;
        need(b, 4, "VDM state")?;
        check_type(b, BLOCK_STATE, "VDM state")?;
        no_stray(b, 4, &ALL, "VDM state")?;
        if get_bool(TESS, b) || get_bool(TESS_SCALE, b) {
            return Err(WordError::Unmodelled("VDM tessellation state words"));
        }
        let mut s = VdmState::default();
        let mut pos = 4;
        let mut next = |present: bool| -> Result<Option<[u8; 4]>, WordError> {
            if !present {
                return Ok(None);
            }
            need(b, pos + 4, "VDM state")?;
            let w = w4(&b[pos..]);
            pos += 4;
            Ok(Some(w))
        };
        s.restart_index = next(get_bool(RESTART, b))?.map(u32::from_le_bytes);
        s.vertex_shader_word_0 = next(get_bool(VS0, b))?
            .map(|w| ShaderCounts::unpack(&w))
            .transpose()?;
        s.vertex_shader_word_1 = next(get_bool(VS1, b))?
            .map(|w| VertexShaderWord1::unpack(&w))
            .transpose()?;
        s.vertex_outputs = next(get_bool(OUTPUTS, b))?
            .map(|w| VertexOutputs::unpack(&w))
            .transpose()?;
        s.vertex_unknown = next(get_bool(UNKNOWN, b))?
            .map(|w| VertexUnknown::unpack(&w))
            .transpose()?;
        let size = s.size();
        need(b, size, "VDM state")?;
        Ok((s, size))
    }
}

mod index_list {
    use super::*;
    pub const BUFFER_HI: Field = Field::new("index buffer hi", 0, 8);
    pub const PRIMITIVE: Field = Field::new("primitive", 8, 8);
    pub const RESTART: Field = Field::new("restart enable", 16, 1);
    pub const INDEX_SIZE: Field = Field::new("index size", 17, 3);
    pub const SIZE_PRESENT: Field = Field::new("index buffer size present", 20, 1);
    pub const BUFFER_PRESENT: Field = Field::new("index buffer present", 21, 1);
    pub const COUNT_PRESENT: Field = Field::new("index count present", 22, 1);
    pub const INSTANCES_PRESENT: Field = Field::new("instance count present", 23, 1);
    pub const START_PRESENT: Field = Field::new("start present", 24, 1);
    pub const UNK1_PRESENT: Field = Field::new("unk 1 present", 25, 1);
    pub const INDIRECT_PRESENT: Field = Field::new("indirect buffer present", 26, 1);
    pub const UNK2_PRESENT: Field = Field::new("unk 2 present", 27, 1);
    pub const ALL: [Field; 13] = [
        BUFFER_HI,
        PRIMITIVE,
        RESTART,
        INDEX_SIZE,
        SIZE_PRESENT,
        BUFFER_PRESENT,
        COUNT_PRESENT,
        INSTANCES_PRESENT,
        START_PRESENT,
        UNK1_PRESENT,
        INDIRECT_PRESENT,
        UNK2_PRESENT,
        BLOCK_TYPE,
    ];
    pub const BUFFER_SIZE: Field = Field::with("index buffer size", 0, 32, Modifier::Shr(2));
}

/// An Index List block: one draw. Optional words follow the header in this order: index
/// buffer low word, count, instances, start, indirect buffer (8 bytes), index buffer size.
/// The two words of unknown purpose ("unk 1", "unk 2") are not modelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexList {
    pub primitive: Primitive,
    pub restart_enable: bool,
    pub index_size: IndexSize,
    /// 40-bit index buffer address (high byte in the header).
    pub index_buffer: Option<u64>,
    /// Vertex count (non-indexed) or index count.
    pub count: Option<u32>,
    pub instances: Option<u32>,
    /// First vertex (non-indexed) or base vertex (indexed).
    pub start: Option<u32>,
    /// 40-bit address of the indirect draw arguments.
    pub indirect: Option<u64>,
    /// Index buffer size in bytes, a multiple of 4.
    pub index_buffer_size: Option<u32>,
}

impl IndexList {
    pub fn size(&self) -> usize {
        4 + 4 * usize::from(self.index_buffer.is_some())
            + 4 * usize::from(self.count.is_some())
            + 4 * usize::from(self.instances.is_some())
            + 4 * usize::from(self.start.is_some())
            + 8 * usize::from(self.indirect.is_some())
            + 4 * usize::from(self.index_buffer_size.is_some())
    }

    pub fn pack(&self, out: &mut Vec<u8>) {
        use index_list::*;
        // Built on the stack and appended once: every draw packs one.
        let mut block = [0u8; 32];
        let h = &mut block[..4];
        BUFFER_HI.put(h, self.index_buffer.unwrap_or(0) >> 32);
        PRIMITIVE.put(h, self.primitive.bits());
        put_bool(RESTART, h, self.restart_enable);
        INDEX_SIZE.put(h, self.index_size.bits());
        put_bool(SIZE_PRESENT, h, self.index_buffer_size.is_some());
        put_bool(BUFFER_PRESENT, h, self.index_buffer.is_some());
        put_bool(COUNT_PRESENT, h, self.count.is_some());
        put_bool(INSTANCES_PRESENT, h, self.instances.is_some());
        put_bool(START_PRESENT, h, self.start.is_some());
        put_bool(INDIRECT_PRESENT, h, self.indirect.is_some());
        BLOCK_TYPE.put(h, BLOCK_INDEX_LIST);
        let mut n = 4;
        let mut word = |w: u32| {
            block[n..n + 4].copy_from_slice(&w.to_le_bytes());
            n += 4;
        };
        if let Some(a) = self.index_buffer {
            word(a as u32);
        }
        for v in [self.count, self.instances, self.start]
            .into_iter()
            .flatten()
        {
            word(v);
        }
        if let Some(a) = self.indirect {
            word(u32::from((a >> 32) as u8));
            word(a as u32);
        }
        if let Some(s) = self.index_buffer_size {
            let mut w = [0u8; 4];
            BUFFER_SIZE.put(&mut w, s.into());
            word(u32::from_le_bytes(w));
        }
        out.extend_from_slice(&block[..n]);
    }

    pub fn unpack(b: &[u8]) -> Result<(IndexList, usize), WordError> {
        use index_list::*;
        need(b, 4, "index list")?;
        check_type(b, BLOCK_INDEX_LIST, "index list")?;
        no_stray(b, 4, &ALL, "index list")?;
        if get_bool(UNK1_PRESENT, b) || get_bool(UNK2_PRESENT, b) {
            return Err(WordError::Unmodelled(
                "index list words 'unk 1' and 'unk 2'",
            ));
        }
        let mut pos = 4;
        let mut word = |present: bool| -> Result<Option<u32>, WordError> {
            if !present {
                return Ok(None);
            }
            need(b, pos + 4, "index list")?;
            let w = u32::from_le_bytes(w4(&b[pos..]));
            pos += 4;
            Ok(Some(w))
        };
        let hi = BUFFER_HI.get(b);
        let has_buffer = get_bool(BUFFER_PRESENT, b);
        if !has_buffer && hi != 0 {
            return Err(bad(
                "index list: buffer high byte set without an index buffer",
            ));
        }
        let index_buffer = word(has_buffer)?.map(|lo| (hi << 32) | u64::from(lo));
        let count = word(get_bool(COUNT_PRESENT, b))?;
        let instances = word(get_bool(INSTANCES_PRESENT, b))?;
        let start = word(get_bool(START_PRESENT, b))?;
        let indirect = if get_bool(INDIRECT_PRESENT, b) {
            let ihi = word(true)?.unwrap_or(0);
            let ilo = word(true)?.unwrap_or(0);
            if ihi > 0xff {
                return Err(bad(
                    "index list: indirect address high word sets bits above 7",
                ));
            }
            Some((u64::from(ihi) << 32) | u64::from(ilo))
        } else {
            None
        };
        let index_buffer_size =
            word(get_bool(SIZE_PRESENT, b))?.map(|w| BUFFER_SIZE.get(&w.to_le_bytes()) as u32);
        let l = IndexList {
            primitive: Primitive::from_bits(PRIMITIVE.get(b))?,
            restart_enable: get_bool(RESTART, b),
            index_size: IndexSize::from_bits(INDEX_SIZE.get(b))?,
            index_buffer,
            count,
            instances,
            start,
            indirect,
            index_buffer_size,
        };
        Ok((l, pos))
    }
}

const LINK_TARGET_HI: Field = Field::new("target hi", 0, 8);
const LINK_WITH_RETURN: Field = Field::new("with return", 28, 1);
const LINK_TARGET_LO: Field = Field::new("target lo", 32, 32);

/// VDM Stream Link: continue at `target`; with `with_return`, a barrier with `returns` set
/// comes back to the block after this one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VdmStreamLink {
    pub target: u64,
    pub with_return: bool,
}

impl VdmStreamLink {
    pub const SIZE: usize = 8;

    pub fn pack(&self) -> [u8; 8] {
        let mut b = [0u8; 8];
        LINK_TARGET_HI.put(&mut b, self.target >> 32);
        LINK_WITH_RETURN.put(&mut b, self.with_return.into());
        BLOCK_TYPE.put(&mut b, BLOCK_LINK);
        LINK_TARGET_LO.put(&mut b, self.target & 0xffff_ffff);
        b
    }

    pub fn unpack(b: &[u8]) -> Result<VdmStreamLink, WordError> {
        need(b, 8, "VDM stream link")?;
        check_type(b, BLOCK_LINK, "VDM stream link")?;
        no_stray(
            b,
            8,
            &[LINK_TARGET_HI, LINK_WITH_RETURN, BLOCK_TYPE, LINK_TARGET_LO],
            "VDM stream link",
        )?;
        Ok(VdmStreamLink {
            target: (LINK_TARGET_HI.get(b) << 32) | LINK_TARGET_LO.get(b),
            with_return: get_bool(LINK_WITH_RETURN, b),
        })
    }
}

/// VDM Stream Terminate: 32 bytes, only the block type set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VdmStreamTerminate;

impl VdmStreamTerminate {
    pub const SIZE: usize = 32;

    pub fn pack(&self) -> [u8; 32] {
        let mut b = [0u8; 32];
        BLOCK_TYPE.put(&mut b, BLOCK_TERMINATE);
        b
    }

    pub fn unpack(b: &[u8]) -> Result<VdmStreamTerminate, WordError> {
        need(b, 4, "VDM stream terminate")?;
        check_type(b, BLOCK_TERMINATE, "VDM stream terminate")?;
        no_stray(b, 4, &[BLOCK_TYPE], "VDM stream terminate")?;
        Ok(VdmStreamTerminate)
    }
}

const BARRIER_USC_INVAL: u32 = 3;
const BARRIER_RETURNS: u32 = 27;
/// The named bits (3, 4, 5, 6, 8, 11, 20, 24, 26, 27).
const BARRIER_KNOWN: u32 = (1 << 3)
    | (1 << 4)
    | (1 << 5)
    | (1 << 6)
    | (1 << 8)
    | (1 << 11)
    | (1 << 20)
    | (1 << 24)
    | (1 << 26)
    | (1 << 27);

/// VDM Barrier (4 bytes). Only the USC cache invalidate and return bits have a known
/// meaning; the other named bits are kept as a mask at their word positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VdmBarrier {
    pub usc_cache_invalidate: bool,
    /// Return to the block after the last link-with-return.
    pub returns: bool,
    pub unknown: u32,
}

impl VdmBarrier {
    pub const SIZE: usize = 4;

    pub fn pack(&self) -> [u8; 4] {
        let mut w =
            self.unknown & BARRIER_KNOWN & !(1 << BARRIER_USC_INVAL) & !(1 << BARRIER_RETURNS);
        w |= u32::from(self.usc_cache_invalidate) << BARRIER_USC_INVAL;
        w |= u32::from(self.returns) << BARRIER_RETURNS;
        let mut b = w.to_le_bytes();
        BLOCK_TYPE.put(&mut b, BLOCK_BARRIER);
        b
    }

    pub fn unpack(b: &[u8]) -> Result<VdmBarrier, WordError> {
        need(b, 4, "VDM barrier")?;
        check_type(b, BLOCK_BARRIER, "VDM barrier")?;
        let w = u32::from_le_bytes(w4(b)) & !(7 << 29);
        if w & !BARRIER_KNOWN != 0 {
            return Err(bad(format!(
                "VDM barrier sets undefined bits {:#x}",
                w & !BARRIER_KNOWN
            )));
        }
        Ok(VdmBarrier {
            usc_cache_invalidate: w & (1 << BARRIER_USC_INVAL) != 0,
            returns: w & (1 << BARRIER_RETURNS) != 0,
            unknown: w & !(1 << BARRIER_USC_INVAL) & !(1 << BARRIER_RETURNS),
        })
    }
}

const PPP_POINTER_HI: Field = Field::new("pointer hi", 0, 8);
const PPP_SIZE_WORDS: Field = Field::new("size (words)", 8, 8);
const PPP_POINTER_LO: Field = Field::new("pointer lo", 32, 32);

/// PPP State: run the PPP update at `pointer` (40 bits), `size_words` 32-bit words long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PppState {
    pub pointer: u64,
    /// The description gives this field 8 bits (Mesa asserts only below 2^24).
    pub size_words: u32,
}

impl PppState {
    pub const SIZE: usize = 8;

    pub fn pack(&self) -> Result<[u8; 8], WordError> {
        if self.size_words > 0xff || self.pointer >> 40 != 0 {
            return Err(bad(
                "PPP state: size over 255 words or pointer over 40 bits",
            ));
        }
        let mut b = [0u8; 8];
        PPP_POINTER_HI.put(&mut b, self.pointer >> 32);
        PPP_SIZE_WORDS.put(&mut b, self.size_words.into());
        BLOCK_TYPE.put(&mut b, BLOCK_PPP);
        PPP_POINTER_LO.put(&mut b, self.pointer & 0xffff_ffff);
        Ok(b)
    }

    pub fn unpack(b: &[u8]) -> Result<PppState, WordError> {
        need(b, 8, "PPP state")?;
        check_type(b, BLOCK_PPP, "PPP state")?;
        no_stray(
            b,
            8,
            &[PPP_POINTER_HI, PPP_SIZE_WORDS, BLOCK_TYPE, PPP_POINTER_LO],
            "PPP state",
        )?;
        Ok(PppState {
            pointer: (PPP_POINTER_HI.get(b) << 32) | PPP_POINTER_LO.get(b),
            size_words: PPP_SIZE_WORDS.get(b) as u32,
        })
    }
}

/// Any VDM block agx4 models.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VdmBlock {
    Ppp(PppState),
    Barrier(VdmBarrier),
    State(VdmState),
    IndexList(IndexList),
    Link(VdmStreamLink),
    Terminate,
}

/// Longest VDM block: a state block with all five optional words, padded (24 bytes), or an
/// index list with all its words (32 bytes), or the terminator (32 bytes).
const MAX_BLOCK: usize = 32;

impl VdmBlock {
    /// Append the block's bytes.
    pub fn pack(&self, out: &mut Vec<u8>) -> Result<(), WordError> {
        match self {
            VdmBlock::Ppp(p) => out.extend_from_slice(&p.pack()?),
            VdmBlock::Barrier(b) => out.extend_from_slice(&b.pack()),
            VdmBlock::State(s) => s.pack(out),
            VdmBlock::IndexList(l) => l.pack(out),
            VdmBlock::Link(l) => out.extend_from_slice(&l.pack()),
            VdmBlock::Terminate => out.extend_from_slice(&VdmStreamTerminate.pack()),
        }
        Ok(())
    }

    /// Unpack the block at the start of `b`; returns it and its size.
    pub fn unpack(b: &[u8]) -> Result<(VdmBlock, usize), WordError> {
        need(b, 4, "VDM block")?;
        match BLOCK_TYPE.get(b) {
            BLOCK_PPP => Ok((VdmBlock::Ppp(PppState::unpack(b)?), PppState::SIZE)),
            BLOCK_BARRIER => Ok((VdmBlock::Barrier(VdmBarrier::unpack(b)?), VdmBarrier::SIZE)),
            BLOCK_STATE => VdmState::unpack(b).map(|(s, n)| (VdmBlock::State(s), n)),
            BLOCK_INDEX_LIST => IndexList::unpack(b).map(|(l, n)| (VdmBlock::IndexList(l), n)),
            BLOCK_LINK => Ok((
                VdmBlock::Link(VdmStreamLink::unpack(b)?),
                VdmStreamLink::SIZE,
            )),
            BLOCK_TERMINATE => {
                VdmStreamTerminate::unpack(b)?;
                Ok((VdmBlock::Terminate, VdmStreamTerminate::SIZE))
            }
            BLOCK_TESSELLATE => Err(WordError::Unmodelled("VDM tessellate blocks")),
            other => Err(bad(format!("VDM block type {other} is not defined"))),
        }
    }

    /// Read the block at `va`; returns it and its size in bytes.
    pub fn read<M: WordSource + ?Sized>(mem: &M, va: u64) -> Result<(VdmBlock, u64), M::Error> {
        let mut b = [0u8; MAX_BLOCK];
        mem.read_words(va, &mut b[..4])?;
        // Read only as far as the header says, so a block at the end of a mapping does not
        // fault on bytes it does not own.
        let len = match BLOCK_TYPE.get(&b) {
            BLOCK_BARRIER => 4,
            BLOCK_STATE => {
                let n = (0..8).filter(|i| b[0] & (1 << i) != 0).count();
                ((1 + n) * 4).next_multiple_of(8)
            }
            BLOCK_INDEX_LIST => {
                let flags = u32::from_le_bytes(w4(&b));
                let word_bits = [20, 21, 22, 23, 24, 27];
                let words = word_bits.iter().filter(|&&i| flags & (1 << i) != 0).count()
                    + 2 * usize::from(flags & (1 << 26) != 0)
                    + 2 * usize::from(flags & (1 << 25) != 0);
                4 + 4 * words
            }
            BLOCK_TERMINATE => 4,
            _ => 8,
        };
        let len = len.min(MAX_BLOCK);
        mem.read_words(va.wrapping_add(4), &mut b[4..len])?;
        let (blk, n) = VdmBlock::unpack(&b[..len]).map_err(at(va))?;
        let size = if blk == VdmBlock::Terminate {
            VdmStreamTerminate::SIZE
        } else {
            n
        };
        Ok((blk, size as u64))
    }
}
