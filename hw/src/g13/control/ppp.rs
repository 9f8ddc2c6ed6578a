//! PPP (primitive processing pipeline) state: a header word whose bits say which state words
//! follow, then those words in a fixed order. A VDM `PPP State` block points at one such
//! update and gives its size in words.
//!
//! The order is the one Mesa's `agx_ppp.h` sizes and emits: fragment control (twice), front
//! face, front face 2, front stencil, back face, back face 2, back stencil, depth bias/scissor,
//! region clips (one per viewport), viewport control and viewports, W clamp, output select,
//! varying counts (32-bit, then 16-bit), cull, cull 2, the four fragment shader words,
//! occlusion query, occlusion query 2, output unknown, output size, varying word 2.

use super::bits::{at, bad, need, Field, Modifier};
use super::descriptors::{
    get_bool, get_f32, get_m1, hw_enum, no_stray, put_bool, put_f32, put_m1, StencilOp, ZsFunc,
};
use super::vdm::ShaderCounts;
use crate::{WordError, WordSource};

hw_enum!(VisibilityMode { None = 0, Counting = 2, Boolean = 3 });
hw_enum!(PolygonMode { Fill = 0, Line = 1, Point = 2 });
hw_enum!(ConservativeDepth { Any = 0, Greater = 1, Less = 2, Unchanged = 3 });
hw_enum!(PassType { Opaque = 0, Translucent = 1, PunchThrough = 2, TranslucentPunchThrough = 3 });
hw_enum!(
    /// Primitive kind the rasterizer sees (fragment face 2).
    ObjectType { Triangle = 0, Line = 1, PointSpriteUv10 = 2, PointSpriteUv01 = 4 }
);
hw_enum!(
    /// Provoking vertex for flat shading, as the cull word numbers it (one more than VDM's).
    PppVertex { V0 = 1, V1 = 2, V2 = 3 }
);

/// A 4-byte word read at `b`.
fn w4(b: &[u8]) -> [u8; 4] {
    [b[0], b[1], b[2], b[3]]
}

mod header {
    use super::*;
    /// The single-bit presence flags, in [`super::PppHeader::flags`] order.
    pub const FLAGS: [Field; 24] = [
        Field::new("fragment control", 0, 1),
        Field::new("fragment control 2", 1, 1),
        Field::new("fragment front face", 2, 1),
        Field::new("fragment front face 2", 3, 1),
        Field::new("fragment front stencil", 4, 1),
        Field::new("fragment back face", 5, 1),
        Field::new("fragment back face 2", 6, 1),
        Field::new("fragment back stencil", 7, 1),
        Field::new("depth bias/scissor", 8, 1),
        Field::new("region clip", 10, 1),
        Field::new("viewport", 11, 1),
        Field::new("w clamp", 16, 1),
        Field::new("output select", 17, 1),
        Field::new("varying counts 32", 18, 1),
        Field::new("varying counts 16", 19, 1),
        Field::new("cull", 21, 1),
        Field::new("cull 2", 22, 1),
        Field::new("fragment shader", 23, 1),
        Field::new("occlusion query", 24, 1),
        Field::new("occlusion query 2", 25, 1),
        Field::new("output unknown", 26, 1),
        Field::new("output size", 27, 1),
        Field::new("varying word 2", 28, 1),
        Field::new("viewport count", 12, 4),
    ];
}

/// PPP Header: which state words follow. Each flag is the presence of one word (or group).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PppHeader {
    pub fragment_control: bool,
    pub fragment_control_2: bool,
    pub fragment_front_face: bool,
    pub fragment_front_face_2: bool,
    pub fragment_front_stencil: bool,
    pub fragment_back_face: bool,
    pub fragment_back_face_2: bool,
    pub fragment_back_stencil: bool,
    pub depth_bias_scissor: bool,
    pub region_clip: bool,
    pub viewport: bool,
    pub w_clamp: bool,
    pub output_select: bool,
    pub varying_counts_32: bool,
    pub varying_counts_16: bool,
    pub cull: bool,
    pub cull_2: bool,
    pub fragment_shader: bool,
    pub occlusion_query: bool,
    pub occlusion_query_2: bool,
    pub output_unknown: bool,
    pub output_size: bool,
    pub varying_word_2: bool,
    /// 1..=16 (stored minus one); the number of region clips and viewports present.
    pub viewport_count: u32,
}

impl PppHeader {
    pub const SIZE: usize = 4;

    fn flags(&self) -> [bool; 23] {
        [
            self.fragment_control,
            self.fragment_control_2,
            self.fragment_front_face,
            self.fragment_front_face_2,
            self.fragment_front_stencil,
            self.fragment_back_face,
            self.fragment_back_face_2,
            self.fragment_back_stencil,
            self.depth_bias_scissor,
            self.region_clip,
            self.viewport,
            self.w_clamp,
            self.output_select,
            self.varying_counts_32,
            self.varying_counts_16,
            self.cull,
            self.cull_2,
            self.fragment_shader,
            self.occlusion_query,
            self.occlusion_query_2,
            self.output_unknown,
            self.output_size,
            self.varying_word_2,
        ]
    }

    pub fn pack(&self) -> [u8; 4] {
        // One word built in a register: this runs for every draw.
        let mut w = 0u32;
        for (f, v) in header::FLAGS.iter().zip(self.flags()) {
            w |= u32::from(v) << f.start;
        }
        let mut b = w.to_le_bytes();
        put_m1(header::FLAGS[23], &mut b, self.viewport_count);
        b
    }

    pub fn unpack(b: &[u8]) -> Result<PppHeader, WordError> {
        need(b, 4, "PPP header")?;
        no_stray(b, 4, &header::FLAGS, "PPP header")?;
        let f = |i: usize| get_bool(header::FLAGS[i], b);
        Ok(PppHeader {
            fragment_control: f(0),
            fragment_control_2: f(1),
            fragment_front_face: f(2),
            fragment_front_face_2: f(3),
            fragment_front_stencil: f(4),
            fragment_back_face: f(5),
            fragment_back_face_2: f(6),
            fragment_back_stencil: f(7),
            depth_bias_scissor: f(8),
            region_clip: f(9),
            viewport: f(10),
            w_clamp: f(11),
            output_select: f(12),
            varying_counts_32: f(13),
            varying_counts_16: f(14),
            cull: f(15),
            cull_2: f(16),
            fragment_shader: f(17),
            occlusion_query: f(18),
            occlusion_query_2: f(19),
            output_unknown: f(20),
            output_size: f(21),
            varying_word_2: f(22),
            viewport_count: get_m1(header::FLAGS[23], b),
        })
    }

    /// Bytes of the update this header starts, header included.
    pub fn update_size(&self) -> usize {
        let n = self.viewport_count as usize;
        let singles = [
            (self.fragment_control, 4),
            (self.fragment_control_2, 4),
            (self.fragment_front_face, 4),
            (self.fragment_front_face_2, 4),
            (self.fragment_front_stencil, 4),
            (self.fragment_back_face, 4),
            (self.fragment_back_face_2, 4),
            (self.fragment_back_stencil, 4),
            (self.depth_bias_scissor, 4),
            (self.region_clip, 8 * n),
            (self.viewport, 4 + 24 * n),
            (self.w_clamp, 4),
            (self.output_select, 4),
            (self.varying_counts_32, 4),
            (self.varying_counts_16, 4),
            (self.cull, 4),
            (self.cull_2, 4),
            (self.fragment_shader, 16),
            (self.occlusion_query, 4),
            (self.occlusion_query_2, 4),
            (self.output_unknown, 4),
            (self.output_size, 4),
            (self.varying_word_2, 8),
        ];
        Self::SIZE
            + singles
                .iter()
                .filter(|(p, _)| *p)
                .map(|(_, s)| s)
                .sum::<usize>()
    }
}

mod fc {
    use super::*;
    pub const UNK_1: Field = Field::new("unk 1", 9, 1);
    pub const VISIBILITY: Field = Field::new("visibility mode", 14, 2);
    pub const SCISSOR: Field = Field::new("scissor enable", 16, 1);
    pub const DEPTH_BIAS: Field = Field::new("depth bias enable", 17, 1);
    pub const STENCIL: Field = Field::new("stencil test enable", 18, 1);
    pub const TWO_SIDED: Field = Field::new("two-sided stencil", 19, 1);
    pub const TAG_WRITE_DISABLE: Field = Field::new("tag write disable", 21, 1);
    pub const SAMPLE_MASK_AFTER_DS: Field = Field::new("sample mask after depth/stencil", 25, 1);
    pub const NO_TRI_MERGING: Field = Field::new("disable tri merging", 26, 1);
    pub const PASS_TYPE: Field = Field::new("pass type", 29, 3);
    pub const ALL: [Field; 10] = [
        UNK_1,
        VISIBILITY,
        SCISSOR,
        DEPTH_BIAS,
        STENCIL,
        TWO_SIDED,
        TAG_WRITE_DISABLE,
        SAMPLE_MASK_AFTER_DS,
        NO_TRI_MERGING,
        PASS_TYPE,
    ];
}

/// Fragment Control. Bit 9 is always set (the description marks it exact).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FragmentControl {
    pub visibility_mode: VisibilityMode,
    pub scissor_enable: bool,
    pub depth_bias_enable: bool,
    pub stencil_test_enable: bool,
    pub two_sided_stencil: bool,
    pub tag_write_disable: bool,
    pub sample_mask_after_depth_stencil: bool,
    pub disable_tri_merging: bool,
    pub pass_type: PassType,
}

impl FragmentControl {
    pub fn pack(&self) -> [u8; 4] {
        use fc::*;
        let mut b = [0u8; 4];
        put_bool(UNK_1, &mut b, true);
        VISIBILITY.put(&mut b, self.visibility_mode.bits());
        put_bool(SCISSOR, &mut b, self.scissor_enable);
        put_bool(DEPTH_BIAS, &mut b, self.depth_bias_enable);
        put_bool(STENCIL, &mut b, self.stencil_test_enable);
        put_bool(TWO_SIDED, &mut b, self.two_sided_stencil);
        put_bool(TAG_WRITE_DISABLE, &mut b, self.tag_write_disable);
        put_bool(
            SAMPLE_MASK_AFTER_DS,
            &mut b,
            self.sample_mask_after_depth_stencil,
        );
        put_bool(NO_TRI_MERGING, &mut b, self.disable_tri_merging);
        PASS_TYPE.put(&mut b, self.pass_type.bits());
        b
    }

    pub fn unpack(b: &[u8]) -> Result<FragmentControl, WordError> {
        use fc::*;
        need(b, 4, "fragment control")?;
        no_stray(b, 4, &ALL, "fragment control")?;
        if !get_bool(UNK_1, b) {
            return Err(bad("fragment control: bit 9 must be set"));
        }
        Ok(FragmentControl {
            visibility_mode: VisibilityMode::from_bits(VISIBILITY.get(b))?,
            scissor_enable: get_bool(SCISSOR, b),
            depth_bias_enable: get_bool(DEPTH_BIAS, b),
            stencil_test_enable: get_bool(STENCIL, b),
            two_sided_stencil: get_bool(TWO_SIDED, b),
            tag_write_disable: get_bool(TAG_WRITE_DISABLE, b),
            sample_mask_after_depth_stencil: get_bool(SAMPLE_MASK_AFTER_DS, b),
            disable_tri_merging: get_bool(NO_TRI_MERGING, b),
            pass_type: PassType::from_bits(PASS_TYPE.get(b))?,
        })
    }
}

mod face {
    use super::*;
    pub const STENCIL_REF: Field = Field::new("stencil reference", 0, 8);
    pub const LINE_WIDTH: Field = Field::new("line width", 8, 8);
    pub const POLYGON_MODE: Field = Field::new("polygon mode", 18, 2);
    pub const NO_DEPTH_WRITE: Field = Field::new("disable depth write", 21, 1);
    pub const UNK_VISIBILITY: Field = Field::new("unk visibility test internal", 22, 2);
    pub const DEPTH_FUNC: Field = Field::new("depth function", 24, 3);
    pub const ALL: [Field; 6] = [
        STENCIL_REF,
        LINE_WIDTH,
        POLYGON_MODE,
        NO_DEPTH_WRITE,
        UNK_VISIBILITY,
        DEPTH_FUNC,
    ];
}

/// Fragment Face (front or back).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FragmentFace {
    pub stencil_reference: u32,
    /// 4.4 fixed point with the off-by-one applied, as [`line_width_bits`] computes.
    pub line_width: u32,
    pub polygon_mode: PolygonMode,
    pub disable_depth_write: bool,
    pub unk_visibility: u32,
    pub depth_function: ZsFunc,
}

/// The line width field for a width in pixels: 4.4 fixed point minus one step, clamped to
/// the field as Mesa's `agx_pack_line_width` does (widths under 1/16 pack as the thinnest line
/// rather than wrapping to the widest).
pub fn line_width_bits(width: f32) -> u32 {
    let fixed = (width * 16.0).clamp(1.0, 256.0) as u32;
    fixed - 1
}

impl FragmentFace {
    pub fn pack(&self) -> [u8; 4] {
        use face::*;
        let mut b = [0u8; 4];
        STENCIL_REF.put(&mut b, self.stencil_reference.into());
        LINE_WIDTH.put(&mut b, self.line_width.into());
        POLYGON_MODE.put(&mut b, self.polygon_mode.bits());
        put_bool(NO_DEPTH_WRITE, &mut b, self.disable_depth_write);
        UNK_VISIBILITY.put(&mut b, self.unk_visibility.into());
        DEPTH_FUNC.put(&mut b, self.depth_function.bits());
        b
    }

    pub fn unpack(b: &[u8]) -> Result<FragmentFace, WordError> {
        use face::*;
        need(b, 4, "fragment face")?;
        no_stray(b, 4, &ALL, "fragment face")?;
        Ok(FragmentFace {
            stencil_reference: STENCIL_REF.get(b) as u32,
            line_width: LINE_WIDTH.get(b) as u32,
            polygon_mode: PolygonMode::from_bits(POLYGON_MODE.get(b))?,
            disable_depth_write: get_bool(NO_DEPTH_WRITE, b),
            unk_visibility: UNK_VISIBILITY.get(b) as u32,
            depth_function: ZsFunc::from_bits(DEPTH_FUNC.get(b))?,
        })
    }
}

mod face2 {
    use super::*;
    pub const NO_DEPTH_WRITE: Field = Field::new("disable depth write", 21, 1);
    pub const CONSERVATIVE: Field = Field::new("conservative depth", 22, 2);
    pub const DEPTH_FUNC: Field = Field::new("depth function", 24, 3);
    pub const OBJECT_TYPE: Field = Field::new("object type", 28, 4);
}

/// Fragment Face 2: the depth state the fragment shader contributes. Both faces' depth
/// functions must pass; depth is written unless both disable it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FragmentFace2 {
    pub disable_depth_write: bool,
    pub conservative_depth: ConservativeDepth,
    pub depth_function: ZsFunc,
    pub object_type: ObjectType,
}

impl FragmentFace2 {
    pub fn pack(&self) -> [u8; 4] {
        use face2::*;
        let mut b = [0u8; 4];
        put_bool(NO_DEPTH_WRITE, &mut b, self.disable_depth_write);
        CONSERVATIVE.put(&mut b, self.conservative_depth.bits());
        DEPTH_FUNC.put(&mut b, self.depth_function.bits());
        OBJECT_TYPE.put(&mut b, self.object_type.bits());
        b
    }

    pub fn unpack(b: &[u8]) -> Result<FragmentFace2, WordError> {
        use face2::*;
        need(b, 4, "fragment face 2")?;
        no_stray(
            b,
            4,
            &[NO_DEPTH_WRITE, CONSERVATIVE, DEPTH_FUNC, OBJECT_TYPE],
            "fragment face 2",
        )?;
        Ok(FragmentFace2 {
            disable_depth_write: get_bool(NO_DEPTH_WRITE, b),
            conservative_depth: ConservativeDepth::from_bits(CONSERVATIVE.get(b))?,
            depth_function: ZsFunc::from_bits(DEPTH_FUNC.get(b))?,
            object_type: ObjectType::from_bits(OBJECT_TYPE.get(b))?,
        })
    }
}

mod stencil {
    use super::*;
    pub const WRITE_MASK: Field = Field::new("write mask", 0, 8);
    pub const READ_MASK: Field = Field::new("read mask", 8, 8);
    pub const DEPTH_PASS: Field = Field::new("depth pass", 16, 3);
    pub const DEPTH_FAIL: Field = Field::new("depth fail", 19, 3);
    pub const STENCIL_FAIL: Field = Field::new("stencil fail", 22, 3);
    pub const COMPARE: Field = Field::new("compare", 25, 3);
    pub const ALL: [Field; 6] = [
        WRITE_MASK,
        READ_MASK,
        DEPTH_PASS,
        DEPTH_FAIL,
        STENCIL_FAIL,
        COMPARE,
    ];
}

/// Fragment Stencil (front or back).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FragmentStencil {
    pub write_mask: u32,
    pub read_mask: u32,
    pub depth_pass: StencilOp,
    pub depth_fail: StencilOp,
    pub stencil_fail: StencilOp,
    pub compare: ZsFunc,
}

impl FragmentStencil {
    pub fn pack(&self) -> [u8; 4] {
        use stencil::*;
        let mut b = [0u8; 4];
        WRITE_MASK.put(&mut b, self.write_mask.into());
        READ_MASK.put(&mut b, self.read_mask.into());
        DEPTH_PASS.put(&mut b, self.depth_pass.bits());
        DEPTH_FAIL.put(&mut b, self.depth_fail.bits());
        STENCIL_FAIL.put(&mut b, self.stencil_fail.bits());
        COMPARE.put(&mut b, self.compare.bits());
        b
    }

    pub fn unpack(b: &[u8]) -> Result<FragmentStencil, WordError> {
        use stencil::*;
        need(b, 4, "fragment stencil")?;
        no_stray(b, 4, &ALL, "fragment stencil")?;
        Ok(FragmentStencil {
            write_mask: WRITE_MASK.get(b) as u32,
            read_mask: READ_MASK.get(b) as u32,
            depth_pass: StencilOp::from_bits(DEPTH_PASS.get(b))?,
            depth_fail: StencilOp::from_bits(DEPTH_FAIL.get(b))?,
            stencil_fail: StencilOp::from_bits(STENCIL_FAIL.get(b))?,
            compare: ZsFunc::from_bits(COMPARE.get(b))?,
        })
    }
}

/// Plain field values of [`simple_word`] words.
trait Raw: Sized {
    fn to_raw(self) -> u64;
    fn from_raw(v: u64) -> Self;
}

impl Raw for bool {
    fn to_raw(self) -> u64 {
        self.into()
    }
    fn from_raw(v: u64) -> bool {
        v != 0
    }
}

impl Raw for u32 {
    fn to_raw(self) -> u64 {
        self.into()
    }
    fn from_raw(v: u64) -> u32 {
        v as u32
    }
}

/// Declares a 4-byte word made of plain unsigned and boolean fields.
macro_rules! simple_word {
    ($(#[$m:meta])* $name:ident, $what:expr, { $($field:ident : $ty:ident = ($start:expr, $width:expr)),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
        pub struct $name { $(pub $field: $ty),+ }

        impl $name {
            const FIELDS: &'static [Field] = &[$(Field::new(stringify!($field), $start, $width)),+];

            pub fn pack(&self) -> [u8; 4] {
                let mut b = [0u8; 4];
                $(Field::new(stringify!($field), $start, $width).put(&mut b, Raw::to_raw(self.$field));)+
                b
            }

            pub fn unpack(b: &[u8]) -> Result<$name, WordError> {
                need(b, 4, $what)?;
                no_stray(b, 4, Self::FIELDS, $what)?;
                Ok($name { $($field: Raw::from_raw(Field::new(stringify!($field), $start, $width).get(b))),+ })
            }
        }
    };
}

simple_word!(
    /// Fragment Occlusion Query: the 64-bit slot of the result buffer this draw counts into.
    FragmentOcclusionQuery, "fragment occlusion query", { index: u32 = (17, 15) }
);

simple_word!(
    /// Fragment Occlusion Query 2: meaning unknown; kept raw.
    FragmentOcclusionQuery2, "fragment occlusion query 2", { unknown: u32 = (0, 17) }
);

simple_word!(
    VaryingCounts, "varying counts", { smooth: u32 = (0, 8), flat: u32 = (8, 8), linear: u32 = (16, 8) }
);

simple_word!(
    /// Output Select: what the vertex stage writes besides position.
    OutputSelect, "output select", {
        clip_distance_planes: u32 = (0, 16),
        varyings: bool = (16, 1),
        point_size: bool = (18, 1),
        viewport_target: bool = (19, 1),
        render_target: bool = (20, 1),
        frag_coord_z: bool = (21, 1),
        barycentric_coordinates: bool = (22, 1),
    }
);

simple_word!(
    Cull2, "cull 2", {
        clamp_w: bool = (5, 1),
        draw_clipped_edges: bool = (9, 1),
        needs_primitive_id: bool = (12, 1),
        rasterizer_discard: bool = (17, 1),
    }
);

simple_word!(
    /// Output Size: the vertex output size (a count, as the vertex outputs word gives it).
    OutputSize, "output size", { count: u32 = (0, 32) }
);

simple_word!(
    /// Indices into the scissor and depth-bias arrays of the render.
    DepthBiasScissor, "depth bias/scissor", { scissor: u32 = (0, 16), depth_bias: u32 = (16, 16) }
);

simple_word!(
    /// Fragment Shader Word 3: unknown small values; kept raw.
    FragmentShaderWord3, "fragment shader word 3", { unknown: u32 = (0, 4) }
);

mod cull {
    use super::*;
    pub const FRONT: Field = Field::new("cull front", 0, 1);
    pub const BACK: Field = Field::new("cull back", 1, 1);
    pub const FLAT_VERTEX: Field = Field::new("flat shading vertex", 7, 2);
    pub const DEPTH_CLIP: Field = Field::new("depth clip", 10, 1);
    pub const DEPTH_CLAMP: Field = Field::new("depth clamp", 11, 1);
    pub const PRIMITIVE_MSAA: Field = Field::new("primitive msaa", 15, 1);
    pub const FRONT_CCW: Field = Field::new("front face ccw", 16, 1);
    pub const DISCARD: Field = Field::new("rasterizer discard", 17, 1);
    pub const ALL: [Field; 8] = [
        FRONT,
        BACK,
        FLAT_VERTEX,
        DEPTH_CLIP,
        DEPTH_CLAMP,
        PRIMITIVE_MSAA,
        FRONT_CCW,
        DISCARD,
    ];
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cull {
    pub cull_front: bool,
    pub cull_back: bool,
    pub flat_shading_vertex: PppVertex,
    pub depth_clip: bool,
    pub depth_clamp: bool,
    pub primitive_msaa: bool,
    pub front_face_ccw: bool,
    pub rasterizer_discard: bool,
}

impl Cull {
    pub fn pack(&self) -> [u8; 4] {
        use cull::*;
        let mut b = [0u8; 4];
        put_bool(FRONT, &mut b, self.cull_front);
        put_bool(BACK, &mut b, self.cull_back);
        FLAT_VERTEX.put(&mut b, self.flat_shading_vertex.bits());
        put_bool(DEPTH_CLIP, &mut b, self.depth_clip);
        put_bool(DEPTH_CLAMP, &mut b, self.depth_clamp);
        put_bool(PRIMITIVE_MSAA, &mut b, self.primitive_msaa);
        put_bool(FRONT_CCW, &mut b, self.front_face_ccw);
        put_bool(DISCARD, &mut b, self.rasterizer_discard);
        b
    }

    pub fn unpack(b: &[u8]) -> Result<Cull, WordError> {
        use cull::*;
        need(b, 4, "cull")?;
        no_stray(b, 4, &ALL, "cull")?;
        Ok(Cull {
            cull_front: get_bool(FRONT, b),
            cull_back: get_bool(BACK, b),
            flat_shading_vertex: PppVertex::from_bits(FLAT_VERTEX.get(b))?,
            depth_clip: get_bool(DEPTH_CLIP, b),
            depth_clamp: get_bool(DEPTH_CLAMP, b),
            primitive_msaa: get_bool(PRIMITIVE_MSAA, b),
            front_face_ccw: get_bool(FRONT_CCW, b),
            rasterizer_discard: get_bool(DISCARD, b),
        })
    }
}

/// W Clamp: the minimum W after clipping.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WClamp {
    pub w_clamp: f32,
}

impl WClamp {
    pub fn pack(&self) -> [u8; 4] {
        self.w_clamp.to_bits().to_le_bytes()
    }

    pub fn unpack(b: &[u8]) -> Result<WClamp, WordError> {
        need(b, 4, "W clamp")?;
        Ok(WClamp {
            w_clamp: f32::from_bits(u32::from_le_bytes(w4(b))),
        })
    }
}

const FS_CF_BINDINGS_COUNT: Field = Field::new("CF binding count", 16, 7);
const FS_UNKNOWN_1: Field = Field::new("unknown 1:0", 0, 2);
const FS_PIPELINE: Field = Field::with("pipeline", 6, 26, Modifier::Shr(6));
const FS_CF_BINDINGS: Field = Field::with("CF bindings", 2, 30, Modifier::Shr(2));

/// Fragment Shader Words 0..3 (16 bytes): the fragment shader's register counts, its USC
/// words, and its coefficient-fetch bindings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FragmentShader {
    pub counts: ShaderCounts,
    pub cf_binding_count: u32,
    pub unknown_1: u32,
    /// USC address (offset from `usc_exec_base`) of the USC words, 64-byte aligned.
    pub pipeline: u32,
    /// USC address of the CF binding header and bindings, 4-byte aligned.
    pub cf_bindings: u32,
    pub word_3: FragmentShaderWord3,
}

impl FragmentShader {
    pub const SIZE: usize = 16;

    pub fn pack(&self) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[0..4].copy_from_slice(&self.counts.pack());
        FS_CF_BINDINGS_COUNT.put(&mut b, self.cf_binding_count.into());
        FS_UNKNOWN_1.put(&mut b[4..8], self.unknown_1.into());
        FS_PIPELINE.put(&mut b[4..8], self.pipeline.into());
        FS_CF_BINDINGS.put(&mut b[8..12], self.cf_bindings.into());
        b[12..16].copy_from_slice(&self.word_3.pack());
        b
    }

    pub fn unpack(b: &[u8]) -> Result<FragmentShader, WordError> {
        need(b, Self::SIZE, "fragment shader words")?;
        let mut w0 = w4(b);
        let cf_binding_count = FS_CF_BINDINGS_COUNT.get(&w0) as u32;
        FS_CF_BINDINGS_COUNT.put(&mut w0, 0);
        no_stray(
            &b[4..],
            4,
            &[FS_UNKNOWN_1, FS_PIPELINE],
            "fragment shader word 1",
        )?;
        no_stray(&b[8..], 4, &[FS_CF_BINDINGS], "fragment shader word 2")?;
        Ok(FragmentShader {
            counts: ShaderCounts::unpack(&w0)?,
            cf_binding_count,
            unknown_1: FS_UNKNOWN_1.get(&b[4..8]) as u32,
            pipeline: FS_PIPELINE.get(&b[4..8]) as u32,
            cf_bindings: FS_CF_BINDINGS.get(&b[8..12]) as u32,
            word_3: FragmentShaderWord3::unpack(&b[12..16])?,
        })
    }
}

mod clip {
    use super::*;
    pub const MAX_X: Field = Field::new("max x", 0, 9);
    pub const MIN_X: Field = Field::new("min x", 16, 9);
    pub const ENABLE: Field = Field::new("enable", 31, 1);
    pub const MAX_Y: Field = Field::new("max y", 32, 9);
    pub const MIN_Y: Field = Field::new("min y", 48, 9);
}

/// Region Clip: a scissor at 32x32-tile granularity, in tiles; `max` is exclusive (stored
/// minus one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegionClip {
    pub enable: bool,
    pub min_x: u32,
    pub max_x: u32,
    pub min_y: u32,
    pub max_y: u32,
}

impl RegionClip {
    pub const SIZE: usize = 8;

    pub fn pack(&self) -> [u8; 8] {
        use clip::*;
        let mut b = [0u8; 8];
        put_m1(MAX_X, &mut b, self.max_x);
        MIN_X.put(&mut b, self.min_x.into());
        put_bool(ENABLE, &mut b, self.enable);
        put_m1(MAX_Y, &mut b, self.max_y);
        MIN_Y.put(&mut b, self.min_y.into());
        b
    }

    pub fn unpack(b: &[u8]) -> Result<RegionClip, WordError> {
        use clip::*;
        need(b, 8, "region clip")?;
        no_stray(b, 8, &[MAX_X, MIN_X, ENABLE, MAX_Y, MIN_Y], "region clip")?;
        Ok(RegionClip {
            enable: get_bool(ENABLE, b),
            min_x: MIN_X.get(b) as u32,
            max_x: get_m1(MAX_X, b),
            min_y: MIN_Y.get(b) as u32,
            max_y: get_m1(MAX_Y, b),
        })
    }
}

/// One viewport transform (24 bytes): NDC = translate + scale * clip / w. It does not clip.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewport {
    pub translate_x: f32,
    pub scale_x: f32,
    pub translate_y: f32,
    pub scale_y: f32,
    pub translate_z: f32,
    pub scale_z: f32,
}

const VP: [Field; 6] = [
    Field::new("translate x", 0, 32),
    Field::new("scale x", 32, 32),
    Field::new("translate y", 64, 32),
    Field::new("scale y", 96, 32),
    Field::new("translate z", 128, 32),
    Field::new("scale z", 160, 32),
];

impl Viewport {
    pub const SIZE: usize = 24;

    fn values(&self) -> [f32; 6] {
        [
            self.translate_x,
            self.scale_x,
            self.translate_y,
            self.scale_y,
            self.translate_z,
            self.scale_z,
        ]
    }

    pub fn pack(&self) -> [u8; 24] {
        let mut b = [0u8; 24];
        for (f, v) in VP.iter().zip(self.values()) {
            put_f32(*f, &mut b, v);
        }
        b
    }

    pub fn unpack(b: &[u8]) -> Result<Viewport, WordError> {
        need(b, Self::SIZE, "viewport")?;
        let v = |i: usize| get_f32(VP[i], b);
        Ok(Viewport {
            translate_x: v(0),
            scale_x: v(1),
            translate_y: v(2),
            scale_y: v(3),
            translate_z: v(4),
            scale_z: v(5),
        })
    }
}

/// A whole PPP update: the header is implied by which words are present.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PppUpdate {
    pub fragment_control: Option<FragmentControl>,
    pub fragment_control_2: Option<FragmentControl>,
    pub front_face: Option<FragmentFace>,
    pub front_face_2: Option<FragmentFace2>,
    pub front_stencil: Option<FragmentStencil>,
    pub back_face: Option<FragmentFace>,
    pub back_face_2: Option<FragmentFace2>,
    pub back_stencil: Option<FragmentStencil>,
    pub depth_bias_scissor: Option<DepthBiasScissor>,
    /// 1..=16: the header's viewport count; region clips and viewports, when present, have
    /// exactly this many entries.
    pub viewport_count: u32,
    pub region_clips: Option<Vec<RegionClip>>,
    /// The viewport control word is always zero as far as is known; it is written as zero
    /// and must read as zero.
    pub viewports: Option<Vec<Viewport>>,
    pub w_clamp: Option<WClamp>,
    pub output_select: Option<OutputSelect>,
    pub varying_counts_32: Option<VaryingCounts>,
    pub varying_counts_16: Option<VaryingCounts>,
    pub cull: Option<Cull>,
    pub cull_2: Option<Cull2>,
    pub fragment_shader: Option<FragmentShader>,
    pub occlusion_query: Option<FragmentOcclusionQuery>,
    pub occlusion_query_2: Option<FragmentOcclusionQuery2>,
    /// The output unknown word has only been seen as zero; present means a zero word.
    pub output_unknown: bool,
    pub output_size: Option<OutputSize>,
    /// Varying word 2 (8 bytes) has no known fields; kept raw.
    pub varying_word_2: Option<u64>,
}

impl PppUpdate {
    /// Merges an update into the state in force: the words it carries replace theirs.
    pub fn apply(&mut self, u: PppUpdate) {
        fn take<T>(dst: &mut Option<T>, src: Option<T>) {
            if src.is_some() {
                *dst = src;
            }
        }
        // The viewport count describes the region clip and viewport lists, so it changes only
        // with them.
        if u.region_clips.is_some() || u.viewports.is_some() {
            self.viewport_count = u.viewport_count;
        }
        take(&mut self.fragment_control, u.fragment_control);
        take(&mut self.fragment_control_2, u.fragment_control_2);
        take(&mut self.front_face, u.front_face);
        take(&mut self.front_face_2, u.front_face_2);
        take(&mut self.front_stencil, u.front_stencil);
        take(&mut self.back_face, u.back_face);
        take(&mut self.back_face_2, u.back_face_2);
        take(&mut self.back_stencil, u.back_stencil);
        take(&mut self.depth_bias_scissor, u.depth_bias_scissor);
        take(&mut self.region_clips, u.region_clips);
        take(&mut self.viewports, u.viewports);
        take(&mut self.w_clamp, u.w_clamp);
        take(&mut self.output_select, u.output_select);
        take(&mut self.varying_counts_32, u.varying_counts_32);
        take(&mut self.varying_counts_16, u.varying_counts_16);
        take(&mut self.cull, u.cull);
        take(&mut self.cull_2, u.cull_2);
        take(&mut self.fragment_shader, u.fragment_shader);
        take(&mut self.occlusion_query, u.occlusion_query);
        take(&mut self.occlusion_query_2, u.occlusion_query_2);
        self.output_unknown |= u.output_unknown;
        take(&mut self.output_size, u.output_size);
        take(&mut self.varying_word_2, u.varying_word_2);
    }

    /// The update that takes the state in force from `before` to `before.apply(self)`: only
    /// the words that change it. The viewport count is kept (it must match the lists when
    /// they are present, and means nothing when they are not).
    pub fn changes_from(&self, before: &PppUpdate) -> PppUpdate {
        fn changed<T: PartialEq + Clone>(new: &Option<T>, old: &Option<T>) -> Option<T> {
            new.as_ref().filter(|n| Some(*n) != old.as_ref()).cloned()
        }
        // The lists go together when the count changes, so both are described by it.
        let count_changed = self.viewport_count != before.viewport_count;
        fn list<T: PartialEq + Clone>(
            count_changed: bool,
            new: &Option<Vec<T>>,
            old: &Option<Vec<T>>,
        ) -> Option<Vec<T>> {
            if count_changed {
                new.clone()
            } else {
                changed(new, old)
            }
        }
        PppUpdate {
            fragment_control: changed(&self.fragment_control, &before.fragment_control),
            fragment_control_2: changed(&self.fragment_control_2, &before.fragment_control_2),
            front_face: changed(&self.front_face, &before.front_face),
            front_face_2: changed(&self.front_face_2, &before.front_face_2),
            front_stencil: changed(&self.front_stencil, &before.front_stencil),
            back_face: changed(&self.back_face, &before.back_face),
            back_face_2: changed(&self.back_face_2, &before.back_face_2),
            back_stencil: changed(&self.back_stencil, &before.back_stencil),
            depth_bias_scissor: changed(&self.depth_bias_scissor, &before.depth_bias_scissor),
            viewport_count: self.viewport_count,
            region_clips: list(count_changed, &self.region_clips, &before.region_clips),
            viewports: list(count_changed, &self.viewports, &before.viewports),
            w_clamp: changed(&self.w_clamp, &before.w_clamp),
            output_select: changed(&self.output_select, &before.output_select),
            varying_counts_32: changed(&self.varying_counts_32, &before.varying_counts_32),
            varying_counts_16: changed(&self.varying_counts_16, &before.varying_counts_16),
            cull: changed(&self.cull, &before.cull),
            cull_2: changed(&self.cull_2, &before.cull_2),
            fragment_shader: changed(&self.fragment_shader, &before.fragment_shader),
            occlusion_query: changed(&self.occlusion_query, &before.occlusion_query),
            occlusion_query_2: changed(&self.occlusion_query_2, &before.occlusion_query_2),
            output_unknown: self.output_unknown && !before.output_unknown,
            output_size: changed(&self.output_size, &before.output_size),
            varying_word_2: changed(&self.varying_word_2, &before.varying_word_2),
        }
    }

    /// Whether the update carries no word.
    pub fn is_empty(&self) -> bool {
        self.header() == PppHeader::default()
    }

    pub fn header(&self) -> PppHeader {
        PppHeader {
            fragment_control: self.fragment_control.is_some(),
            fragment_control_2: self.fragment_control_2.is_some(),
            fragment_front_face: self.front_face.is_some(),
            fragment_front_face_2: self.front_face_2.is_some(),
            fragment_front_stencil: self.front_stencil.is_some(),
            fragment_back_face: self.back_face.is_some(),
            fragment_back_face_2: self.back_face_2.is_some(),
            fragment_back_stencil: self.back_stencil.is_some(),
            depth_bias_scissor: self.depth_bias_scissor.is_some(),
            region_clip: self.region_clips.is_some(),
            viewport: self.viewports.is_some(),
            w_clamp: self.w_clamp.is_some(),
            output_select: self.output_select.is_some(),
            varying_counts_32: self.varying_counts_32.is_some(),
            varying_counts_16: self.varying_counts_16.is_some(),
            cull: self.cull.is_some(),
            cull_2: self.cull_2.is_some(),
            fragment_shader: self.fragment_shader.is_some(),
            occlusion_query: self.occlusion_query.is_some(),
            occlusion_query_2: self.occlusion_query_2.is_some(),
            output_unknown: self.output_unknown,
            output_size: self.output_size.is_some(),
            varying_word_2: self.varying_word_2.is_some(),
            viewport_count: self.viewport_count,
        }
    }

    /// Append the update (header first). Fails if the viewport count is out of range or the
    /// region clip / viewport lists do not have that many entries.
    pub fn pack(&self, out: &mut Vec<u8>) -> Result<(), WordError> {
        let n = self.viewport_count as usize;
        if !(1..=16).contains(&n) {
            return Err(bad(format!("PPP viewport count {n} is not 1..=16")));
        }
        let bad_clips = self.region_clips.as_ref().is_some_and(|v| v.len() != n);
        let bad_vps = self.viewports.as_ref().is_some_and(|v| v.len() != n);
        if bad_clips || bad_vps {
            return Err(bad(
                "PPP region clips and viewports must match the viewport count",
            ));
        }
        out.extend_from_slice(&self.header().pack());
        let mut put = |b: &[u8]| out.extend_from_slice(b);
        if let Some(w) = self.fragment_control {
            put(&w.pack())
        }
        if let Some(w) = self.fragment_control_2 {
            put(&w.pack())
        }
        if let Some(w) = self.front_face {
            put(&w.pack())
        }
        if let Some(w) = self.front_face_2 {
            put(&w.pack())
        }
        if let Some(w) = self.front_stencil {
            put(&w.pack())
        }
        if let Some(w) = self.back_face {
            put(&w.pack())
        }
        if let Some(w) = self.back_face_2 {
            put(&w.pack())
        }
        if let Some(w) = self.back_stencil {
            put(&w.pack())
        }
        if let Some(w) = self.depth_bias_scissor {
            put(&w.pack())
        }
        for c in self.region_clips.iter().flatten() {
            put(&c.pack());
        }
        if let Some(vps) = &self.viewports {
            put(&[0; 4]);
            for v in vps {
                put(&v.pack());
            }
        }
        if let Some(w) = self.w_clamp {
            put(&w.pack())
        }
        if let Some(w) = self.output_select {
            put(&w.pack())
        }
        if let Some(w) = self.varying_counts_32 {
            put(&w.pack())
        }
        if let Some(w) = self.varying_counts_16 {
            put(&w.pack())
        }
        if let Some(w) = self.cull {
            put(&w.pack())
        }
        if let Some(w) = self.cull_2 {
            put(&w.pack())
        }
        if let Some(w) = self.fragment_shader {
            put(&w.pack())
        }
        if let Some(w) = self.occlusion_query {
            put(&w.pack())
        }
        if let Some(w) = self.occlusion_query_2 {
            put(&w.pack())
        }
        if self.output_unknown {
            put(&[0; 4])
        }
        if let Some(w) = self.output_size {
            put(&w.pack())
        }
        if let Some(w) = self.varying_word_2 {
            put(&w.to_le_bytes())
        }
        Ok(())
    }

    /// Walk an update from its header; returns it and the bytes it occupies.
    pub fn unpack(b: &[u8]) -> Result<(PppUpdate, usize), WordError> {
        let h = PppHeader::unpack(b)?;
        let size = h.update_size();
        need(b, size, "PPP update")?;
        let mut r = Reader {
            b,
            pos: PppHeader::SIZE,
        };
        let n = h.viewport_count as usize;
        let mut u = PppUpdate {
            viewport_count: h.viewport_count,
            ..PppUpdate::default()
        };
        u.fragment_control = r.opt(h.fragment_control, 4, FragmentControl::unpack)?;
        u.fragment_control_2 = r.opt(h.fragment_control_2, 4, FragmentControl::unpack)?;
        u.front_face = r.opt(h.fragment_front_face, 4, FragmentFace::unpack)?;
        u.front_face_2 = r.opt(h.fragment_front_face_2, 4, FragmentFace2::unpack)?;
        u.front_stencil = r.opt(h.fragment_front_stencil, 4, FragmentStencil::unpack)?;
        u.back_face = r.opt(h.fragment_back_face, 4, FragmentFace::unpack)?;
        u.back_face_2 = r.opt(h.fragment_back_face_2, 4, FragmentFace2::unpack)?;
        u.back_stencil = r.opt(h.fragment_back_stencil, 4, FragmentStencil::unpack)?;
        u.depth_bias_scissor = r.opt(h.depth_bias_scissor, 4, DepthBiasScissor::unpack)?;
        if h.region_clip {
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                v.push(r.take(8, RegionClip::unpack)?);
            }
            u.region_clips = Some(v);
        }
        if h.viewport {
            if r.take(4, |w| Ok(u32::from_le_bytes(w4(w))))? != 0 {
                return Err(bad("PPP viewport control word is not zero"));
            }
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                v.push(r.take(24, Viewport::unpack)?);
            }
            u.viewports = Some(v);
        }
        u.w_clamp = r.opt(h.w_clamp, 4, WClamp::unpack)?;
        u.output_select = r.opt(h.output_select, 4, OutputSelect::unpack)?;
        u.varying_counts_32 = r.opt(h.varying_counts_32, 4, VaryingCounts::unpack)?;
        u.varying_counts_16 = r.opt(h.varying_counts_16, 4, VaryingCounts::unpack)?;
        u.cull = r.opt(h.cull, 4, Cull::unpack)?;
        u.cull_2 = r.opt(h.cull_2, 4, Cull2::unpack)?;
        u.fragment_shader = r.opt(h.fragment_shader, 16, FragmentShader::unpack)?;
        u.occlusion_query = r.opt(h.occlusion_query, 4, FragmentOcclusionQuery::unpack)?;
        u.occlusion_query_2 = r.opt(h.occlusion_query_2, 4, FragmentOcclusionQuery2::unpack)?;
        if h.output_unknown {
            if r.take(4, |w| Ok(u32::from_le_bytes(w4(w))))? != 0 {
                return Err(bad("PPP output unknown word is not zero"));
            }
            u.output_unknown = true;
        }
        u.output_size = r.opt(h.output_size, 4, OutputSize::unpack)?;
        u.varying_word_2 = r.opt(h.varying_word_2, 8, |w| {
            Ok(u64::from_le_bytes([
                w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7],
            ]))
        })?;
        debug_assert_eq!(r.pos, size);
        Ok((u, size))
    }

    /// Read the update a PPP State block points at: `size_words` must be exactly the size
    /// its header implies.
    pub fn read<M: WordSource + ?Sized>(
        mem: &M,
        va: u64,
        size_words: u32,
    ) -> Result<(PppUpdate, u64), M::Error> {
        let len = size_words as usize * 4;
        if len < PppHeader::SIZE {
            return Err(at(va)(bad("PPP update of fewer than one word")).into());
        }
        let mut b = vec![0u8; len];
        mem.read_words(va, &mut b)?;
        let (u, used) = PppUpdate::unpack(&b).map_err(at(va))?;
        if used != len {
            return Err(at(va)(bad(format!(
                "PPP update: header implies {used} bytes, the PPP State block says {len}"
            )))
            .into());
        }
        Ok((u, len as u64))
    }
}

/// Sequential reader over an update's words.
struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn take<T>(
        &mut self,
        n: usize,
        f: impl FnOnce(&[u8]) -> Result<T, WordError>,
    ) -> Result<T, WordError> {
        let s = self
            .b
            .get(self.pos..self.pos + n)
            .ok_or_else(|| bad("PPP update is shorter than its header says"))?;
        let v = f(s)?;
        self.pos += n;
        Ok(v)
    }

    fn opt<T>(
        &mut self,
        present: bool,
        n: usize,
        f: impl FnOnce(&[u8]) -> Result<T, WordError>,
    ) -> Result<Option<T>, WordError> {
        if present {
            self.take(n, f).map(Some)
        } else {
            Ok(None)
        }
    }
}
