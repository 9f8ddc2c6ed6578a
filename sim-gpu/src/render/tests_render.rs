//! Whole renders on hand-assembled shaders in flat memory. Expected pixels come from the
//! tests' own edge functions at pixel centres (or sample positions), written out here
//! independently of the rasterizer.
//!
//! Shaders:
//! - VS: loads a 32-byte vertex record (vec4 position, u32 colour) indexed by r5 with device
//!   loads and writes UVS words 0..=4 with st_vary.
//! - FS: ldcf of a flat CF binding (UVS word 4, vertex 0) and st_tile of its C term.
//! - bg: st_tile of uniform word 0 (the clear colour); partial bg: device load of the
//!   pixel's saved samples and st_tile.
//! - eot: ld_tile of every sample and a device store to a linear buffer.

use super::*;
use crate::pool::Pool;
use crate::usc::{FlatMemory, Locked};
use crate::{BgEotProgram, Fault, RenderCommand, ZlsBuffer};
use hw::g13::control::descriptors::{
    CfBinding, CfBindingHeader, CoefficientSource, ShadeModel, ZlsControl, ZlsFormat, ZsFunc,
};
use hw::g13::control::ppp::*;
use hw::g13::control::vdm::*;
use hw::g13::control::{SharedLayout, UscWord};
use hw::g13::layout::{Layout, Tiling, Usage};
use hw::isa::*;

const EXEC: u64 = 0x1_0000_0000;
const STREAM: u64 = 0x1_0000;
const PPP: u64 = 0x2_0000;
const VERTS: u64 = 0x10_0000;
const UNIFORMS: u64 = 0x3_0000;
const SCISSORS: u64 = 0x4_0000;
const QUERIES: u64 = 0x5_0000;
const BIASES: u64 = 0x6_0000;
const OUT: u64 = 0x100_0000;
const SAVE: u64 = 0x200_0000;
const DEPTH: u64 = 0x300_0000;

// USC addresses (offsets from EXEC).
const VS_WORDS: u32 = 0x100;
const FS_WORDS: u32 = 0x200;
const BG_WORDS: u32 = 0x300;
const EOT_WORDS: u32 = 0x400;
const PBG_WORDS: u32 = 0x500;
const PEOT_WORDS: u32 = 0x600;
const CF: u32 = 0x700;
const VS_CODE: u32 = 0x1000;
const FS_CODE: u32 = 0x2000;
const BG_CODE: u32 = 0x3000;
const EOT_CODE: u32 = 0x4000;
const PBG_CODE: u32 = 0x5000;

const SAMPLE_BYTES: u32 = 8;
const CLEAR: u32 = 0x1111_1111;

fn code(instrs: &[Instr]) -> Vec<u8> {
    let mut out = Vec::new();
    for i in instrs {
        hw::g13::encode(i, &mut out).expect("encodable");
    }
    out
}

fn reg(r: Reg) -> ISrc {
    ISrc::new(Operand::Reg(r))
}

fn uni(r: Reg) -> ISrc {
    ISrc::new(Operand::Uniform(r))
}

fn imm(v: u32) -> ISrc {
    ISrc::new(Operand::Imm(v))
}

fn device(store: bool, r: Reg, base: Reg, index: Reg, shift: u8, mask: u8) -> Instr {
    Instr::DeviceMem(DeviceMem {
        store,
        reg: r,
        base: Operand::Uniform(base),
        index: Index::Reg(index),
        index_unsigned: true,
        shift,
        format: MemFormat::I32,
        mask,
        wait_slot: 0,
    })
}

fn st_vary(src: Reg, slot: u8, last: bool) -> Instr {
    Instr::StVary(StVary {
        src,
        index: Small::Imm(slot),
        last,
    })
}

fn tile(store: bool, r: Reg, samples: u8) -> Instr {
    Instr::TileMem(TileMem {
        store,
        reg: r,
        format: MemFormat::I32,
        mask: 1,
        pixel_offset: 0,
        samples: Small::Imm(samples),
        coords: None,
    })
}

fn imadd(dst: Reg, a: ISrc, b: ISrc, c: ISrc) -> Instr {
    Instr::IMAdd(IMAdd {
        dst: dst.into(),
        a,
        b,
        c,
        negate_c: false,
        shift: 0,
        saturate: false,
    })
}

fn get_sr(dst: Reg, sr: SpecialReg) -> Instr {
    Instr::GetSr(GetSr {
        dst: dst.into(),
        sr,
    })
}

/// Uniforms: u0-u3 = vertex buffer, u4-u7 = vertex buffer + 16, u8-u9 = vertices per
/// instance. Vertex v of instance i reads record v + i * (vertices per instance).
fn vertex_shader() -> Vec<u8> {
    let (idx, pos, col) = (Reg::r32(12), Reg::r32(8), Reg::r32(13));
    code(&[
        imadd(idx, reg(Reg::r32(6)), uni(Reg::r32(4)), reg(Reg::r32(5))),
        Instr::IAdd(IAdd {
            dst: idx.into(),
            a: reg(idx),
            b: reg(idx),
            negate_b: false,
            shift: 0,
            saturate: false,
        }),
        device(false, pos, Reg::r64(0), idx, 2, 0xf),
        device(false, col, Reg::r64(2), idx, 2, 1),
        st_vary(Reg::r32(8), 0, false),
        st_vary(Reg::r32(9), 1, false),
        st_vary(Reg::r32(10), 2, false),
        st_vary(Reg::r32(11), 3, false),
        st_vary(col, 4, true),
        Instr::Stop,
    ])
}

fn fragment_shader() -> Vec<u8> {
    code(&[
        Instr::LdCf(LdCf {
            dst: Reg::r32(4),
            channels: 1,
            cf: 0,
        }),
        tile(true, Reg::r32(6), 0xff),
        Instr::Stop,
    ])
}

/// Uniform word 0 = clear colour.
fn bg_shader() -> Vec<u8> {
    code(&[
        Instr::IAdd(IAdd {
            dst: Reg::r32(4).into(),
            a: uni(Reg::r32(0)),
            b: imm(0),
            negate_b: false,
            shift: 0,
            saturate: false,
        }),
        tile(true, Reg::r32(4), 0xff),
        Instr::Stop,
    ])
}

/// Uniforms: u0-u3 = buffer, u4-u5 = row stride in pixels. Sample s of pixel (x, y) goes to
/// word (y * stride + x) * samples + s.
fn pixel_index(samples: u32, s: u32) -> Vec<Instr> {
    vec![
        get_sr(Reg::r32(1), SpecialReg::THREAD_POSITION_IN_GRID_X),
        get_sr(Reg::r32(2), SpecialReg::THREAD_POSITION_IN_GRID_Y),
        imadd(
            Reg::r32(3),
            reg(Reg::r32(2)),
            uni(Reg::r32(2)),
            reg(Reg::r32(1)),
        ),
        imadd(Reg::r32(6), reg(Reg::r32(3)), imm(samples), imm(s)),
    ]
}

fn eot_shader(samples: u32) -> Vec<u8> {
    let mut v = Vec::new();
    for s in 0..samples {
        v.extend(pixel_index(samples, s));
        v.push(tile(false, Reg::r32(4), 1 << s));
        v.push(device(true, Reg::r32(4), Reg::r64(0), Reg::r32(6), 0, 1));
    }
    v.push(Instr::Stop);
    code(&v)
}

fn partial_bg_shader(samples: u32) -> Vec<u8> {
    let mut v = Vec::new();
    for s in 0..samples {
        v.extend(pixel_index(samples, s));
        v.push(device(false, Reg::r32(4), Reg::r64(0), Reg::r32(6), 0, 1));
        v.push(tile(true, Reg::r32(4), 1 << s));
    }
    v.push(Instr::Stop);
    code(&v)
}

fn words(uniform: Option<(u64, u32)>, shared: UscWord, early_z: Option<bool>, at: u32) -> Vec<u8> {
    let mut w = Vec::new();
    if let Some((buffer, halves)) = uniform {
        hw::g13::control::pack_uniform_range(0, halves, buffer, &mut w);
    }
    shared.pack(&mut w);
    if let Some(early_z) = early_z {
        UscWord::FragmentProperties { early_z }.pack(&mut w);
    }
    UscWord::Shader {
        code: at,
        loads_varyings: early_z.is_some(),
    }
    .pack(&mut w);
    UscWord::Registers {
        count_halves: 64,
        spill_size: 0,
    }
    .pack(&mut w);
    UscWord::NoPreshader.pack(&mut w);
    w
}

fn tile_shared(samples: u32) -> UscWord {
    UscWord::Shared {
        uses_shared: false,
        layout: SharedLayout::Tile32x32,
        bytes_per_threadgroup: 256,
        sample_count: samples,
        sample_stride_bytes: SAMPLE_BYTES,
    }
}

fn le(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// One triangle in window coordinates (pixels), its depth and colour.
#[derive(Debug, Clone, Copy)]
struct Tri {
    v: [[f64; 2]; 3],
    z: f32,
    colour: u32,
}

/// Draw state that differs between tests.
#[derive(Debug, Clone, Copy)]
struct DrawOpts {
    depth: Option<ZsFunc>,
    scissor: Option<[u32; 4]>,
    cull_back: bool,
    query: bool,
    late_z: bool,
    instances: u32,
    /// Constant depth bias (units of the format's `r`), entry 0 of the bias array.
    bias: Option<f32>,
}

impl Default for DrawOpts {
    fn default() -> Self {
        DrawOpts {
            depth: None,
            scissor: None,
            cull_back: false,
            query: false,
            late_z: false,
            instances: 1,
            bias: None,
        }
    }
}

struct Scene {
    width: u32,
    height: u32,
    samples: u32,
    tris: Vec<Tri>,
    opts: DrawOpts,
    depth_buffer: bool,
    utile: (u32, u32),
    /// Drawn as a point list instead of the triangles when not empty.
    points: Vec<([f64; 2], u32)>,
    clear_depth: f32,
    /// A fragment shader in place of [`fragment_shader`].
    fs: Option<Vec<Instr>>,
}

impl Scene {
    fn new(width: u32, height: u32, samples: u32) -> Scene {
        Scene {
            width,
            height,
            samples,
            tris: Vec::new(),
            opts: DrawOpts::default(),
            depth_buffer: false,
            utile: (32, 32),
            points: Vec::new(),
            clear_depth: 1.0,
            fs: None,
        }
    }

    fn vertex_count(&self) -> u32 {
        if self.points.is_empty() {
            3 * self.tris.len() as u32
        } else {
            self.points.len() as u32
        }
    }

    fn stride(&self) -> u32 {
        self.width.div_ceil(32) * 32
    }

    fn rows(&self) -> u32 {
        self.height.div_ceil(32) * 32
    }

    /// Window x to clip x with w = 1 under the viewport translate = scale = size / 2.
    fn clip(&self, x: f64, size: u32) -> f32 {
        let h = f64::from(size) / 2.0;
        ((x - h) / h) as f32
    }

    fn ppp(&self) -> Vec<u8> {
        let o = self.opts;
        let (w, h) = (self.width as f32 / 2.0, self.height as f32 / 2.0);
        let u = PppUpdate {
            fragment_control: Some(FragmentControl {
                visibility_mode: if o.query {
                    VisibilityMode::Counting
                } else {
                    VisibilityMode::None
                },
                scissor_enable: o.scissor.is_some(),
                depth_bias_enable: o.bias.is_some(),
                stencil_test_enable: false,
                two_sided_stencil: false,
                tag_write_disable: false,
                sample_mask_after_depth_stencil: false,
                disable_tri_merging: false,
                pass_type: PassType::Opaque,
            }),
            front_face: o.depth.map(|f| FragmentFace {
                stencil_reference: 0,
                line_width: 15,
                polygon_mode: PolygonMode::Fill,
                disable_depth_write: false,
                unk_visibility: 0,
                depth_function: f,
            }),
            depth_bias_scissor: Some(DepthBiasScissor {
                scissor: 1,
                depth_bias: 0,
            }),
            viewport_count: 1,
            viewports: Some(vec![Viewport {
                translate_x: w,
                scale_x: w,
                translate_y: h,
                scale_y: h,
                translate_z: 0.0,
                scale_z: 1.0,
            }]),
            cull: Some(Cull {
                cull_front: false,
                cull_back: o.cull_back,
                flat_shading_vertex: PppVertex::V0,
                depth_clip: true,
                depth_clamp: false,
                primitive_msaa: false,
                front_face_ccw: true,
                rasterizer_discard: false,
            }),
            fragment_shader: Some(FragmentShader {
                counts: counts(),
                cf_binding_count: 1,
                unknown_1: 0,
                pipeline: FS_WORDS,
                cf_bindings: CF,
                word_3: FragmentShaderWord3 { unknown: 0 },
            }),
            occlusion_query: o.query.then_some(FragmentOcclusionQuery { index: 2 }),
            ..PppUpdate::default()
        };
        let mut b = Vec::new();
        u.pack(&mut b).expect("packs");
        b
    }

    fn memory(&self) -> (FlatMemory, RenderCommand) {
        let s = self.samples;
        let mut m = FlatMemory::new();
        let mut exec = vec![0u8; 0x6000];
        let mut put =
            |at: u32, b: &[u8]| exec[at as usize..at as usize + b.len()].copy_from_slice(b);
        let vs_shared = UscWord::Shared {
            uses_shared: false,
            layout: SharedLayout::VertexCompute,
            bytes_per_threadgroup: 256,
            sample_count: 1,
            sample_stride_bytes: 0,
        };
        put(
            VS_WORDS,
            &words(Some((UNIFORMS, 10)), vs_shared, None, VS_CODE),
        );
        let early = !self.opts.late_z;
        put(FS_WORDS, &words(None, tile_shared(s), Some(early), FS_CODE));
        put(
            BG_WORDS,
            &words(Some((UNIFORMS + 0x100, 2)), tile_shared(s), None, BG_CODE),
        );
        put(
            EOT_WORDS,
            &words(Some((UNIFORMS + 0x200, 6)), tile_shared(s), None, EOT_CODE),
        );
        put(
            PBG_WORDS,
            &words(Some((UNIFORMS + 0x300, 6)), tile_shared(s), None, PBG_CODE),
        );
        put(
            PEOT_WORDS,
            &words(Some((UNIFORMS + 0x300, 6)), tile_shared(s), None, EOT_CODE),
        );
        let mut cf = CfBindingHeader {
            slots: 5,
            coefficient_registers: 1,
        }
        .pack()
        .to_vec();
        cf.extend(
            CfBinding {
                components: 1,
                shade_model: ShadeModel::FlatVertex0,
                source: CoefficientSource::Varying,
                base_slot: 4,
                base_coefficient_register: 0,
            }
            .pack(),
        );
        put(CF, &cf);
        put(VS_CODE, &vertex_shader());
        match &self.fs {
            Some(fs) => put(FS_CODE, &code(fs)),
            None => put(FS_CODE, &fragment_shader()),
        }
        put(BG_CODE, &bg_shader());
        put(EOT_CODE, &eot_shader(s));
        put(PBG_CODE, &partial_bg_shader(s));
        m.map(EXEC, exec);

        let mut u = vec![0u8; 0x400];
        u[..8].copy_from_slice(&VERTS.to_le_bytes());
        u[8..16].copy_from_slice(&(VERTS + 16).to_le_bytes());
        let per_instance = self.vertex_count() / self.opts.instances;
        u[16..20].copy_from_slice(&per_instance.to_le_bytes());
        u[0x100..0x104].copy_from_slice(&CLEAR.to_le_bytes());
        u[0x200..0x208].copy_from_slice(&OUT.to_le_bytes());
        u[0x208..0x20c].copy_from_slice(&self.stride().to_le_bytes());
        u[0x300..0x308].copy_from_slice(&SAVE.to_le_bytes());
        u[0x308..0x30c].copy_from_slice(&self.stride().to_le_bytes());
        m.map(UNIFORMS, u);

        let mut verts = Vec::new();
        for t in &self.tris {
            for v in t.v {
                let x = self.clip(v[0], self.width);
                let y = self.clip(v[1], self.height);
                verts.extend([x.to_bits(), y.to_bits(), t.z.to_bits(), 1f32.to_bits()]);
                verts.extend([t.colour, 0, 0, 0]);
            }
        }
        for (p, colour) in &self.points {
            let x = self.clip(p[0], self.width);
            let y = self.clip(p[1], self.height);
            verts.extend([x.to_bits(), y.to_bits(), 0.5f32.to_bits(), 1f32.to_bits()]);
            verts.extend([*colour, 0, 0, 0]);
        }
        verts.resize(verts.len().max(8), 0);
        m.map(VERTS, le(&verts));

        let out_words = (self.stride() * self.rows() * s) as usize;
        m.map(OUT, vec![0; out_words * 4]);
        m.map(SAVE, vec![0; out_words * 4]);
        m.map(QUERIES, vec![0; 64]);
        let mut sc = vec![0u8; 32];
        if let Some([x0, y0, x1, y1]) = self.opts.scissor {
            let d = hw::g13::control::descriptors::Scissor {
                min_x: x0,
                max_x: x1,
                min_y: y0,
                max_y: y1,
                min_z: 0.0,
                max_z: 1.0,
            };
            sc[16..32].copy_from_slice(&d.pack());
        }
        m.map(SCISSORS, sc);
        let bias = hw::g13::control::descriptors::DepthBias {
            depth_bias: self.opts.bias.unwrap_or(0.0),
            slope_scale: 0.0,
            clamp: 0.0,
        };
        m.map(BIASES, bias.pack().to_vec());

        let ppp = self.ppp();
        let ppp_words = ppp.len() as u32 / 4;
        m.map(PPP, ppp);
        let blocks = [
            VdmBlock::State(VdmState {
                vertex_shader_word_0: Some(counts()),
                vertex_shader_word_1: Some(VertexShaderWord1 {
                    unknown: 0,
                    pipeline: VS_WORDS,
                }),
                vertex_outputs: Some(VertexOutputs {
                    count_1: 5,
                    count_2: 5,
                }),
                ..VdmState::default()
            }),
            VdmBlock::Ppp(PppState {
                pointer: PPP,
                size_words: ppp_words,
            }),
            VdmBlock::IndexList(IndexList {
                primitive: if self.points.is_empty() {
                    Primitive::Triangles
                } else {
                    Primitive::Points
                },
                restart_enable: false,
                index_size: IndexSize::U8,
                index_buffer: None,
                count: Some(self.vertex_count() / self.opts.instances),
                instances: Some(self.opts.instances),
                start: Some(0),
                indirect: None,
                index_buffer_size: None,
            }),
            VdmBlock::Terminate,
        ];
        let mut stream = Vec::new();
        for b in &blocks {
            b.pack(&mut stream).expect("packs");
        }
        m.map(STREAM, stream);

        let zls = ZlsControl::nothing(ZlsFormat::F32);
        let mut depth = ZlsBuffer::default();
        let mut stencil = ZlsBuffer::default();
        if self.depth_buffer {
            let layout = |bytes| {
                Layout::with_usage(
                    self.width,
                    self.height,
                    1,
                    1,
                    bytes,
                    Tiling::Twiddled,
                    s,
                    Usage {
                        depth_stencil: true,
                        ..Usage::default()
                    },
                )
                .unwrap()
            };
            m.map(DEPTH, vec![0; layout(4).size as usize]);
            m.map(DEPTH + 0x100_0000, vec![0; layout(1).size as usize]);
            depth.base = DEPTH;
            stencil.base = DEPTH + 0x100_0000;
        }
        let prog = |usc| BgEotProgram { usc, rsrc_spec: 0 };
        let cmd = RenderCommand {
            usc_exec_base: EXEC,
            vdm_ctrl_stream_base: STREAM,
            isp_scissor_base: SCISSORS,
            isp_oclqry_base: QUERIES,
            isp_dbias_base: BIASES,
            depth,
            stencil,
            zls_ctrl: u64::from_le_bytes(zls.pack()),
            width_px: self.width,
            height_px: self.height,
            layers: 1,
            utile_width_px: self.utile.0,
            utile_height_px: self.utile.1,
            samples: s,
            sample_size_bytes: SAMPLE_BYTES,
            bg: prog(BG_WORDS),
            eot: prog(EOT_WORDS),
            partial_bg: prog(PBG_WORDS),
            partial_eot: prog(PEOT_WORDS),
            isp_bgobjdepth: self.clear_depth.to_bits(),
            ..RenderCommand::default()
        };
        (m, cmd)
    }

    fn render(
        &self,
        tvb: &mut dyn TvbBudget,
    ) -> Result<(Vec<u32>, RenderStats, FlatMemory), Fault> {
        let (mut m, cmd) = self.memory();
        let stats = execute(&cmd, &hw::g13::CODEC, &mut m, tvb)?;
        Ok((self.output(&m), stats, m))
    }

    /// As [`Scene::render`], with vertices and tiles on `threads` host threads, helpers from
    /// the start.
    fn render_on_threads(
        &self,
        tvb: &mut dyn TvbBudget,
        threads: usize,
    ) -> Result<(Vec<u32>, RenderStats), Fault> {
        let (m, cmd) = self.memory();
        let mut m = Locked::new(m);
        let pool = Pool {
            threads,
            alone: std::time::Duration::ZERO,
        };
        let stats = execute_on(&cmd, &hw::g13::CODEC, &mut m, tvb, pool)?;
        Ok((self.output(&m.into_inner()), stats))
    }

    /// The words the end-of-tile program stored.
    fn output(&self, m: &FlatMemory) -> Vec<u32> {
        let n = (self.stride() * self.rows() * self.samples) as usize;
        m.bytes(OUT, n * 4)
            .unwrap()
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    fn at(&self, out: &[u32], x: u32, y: u32, s: u32) -> u32 {
        out[((y * self.stride() + x) * self.samples + s) as usize]
    }
}

fn counts() -> ShaderCounts {
    ShaderCounts {
        unknown_0: false,
        uniform_halves: 16,
        texture_states: 0,
        sampler_states: 0,
        preshader_halves: 0,
    }
}

/// Twice Vulkan's signed area in framebuffer coordinates: positive is counter-clockwise.
fn area2(v: &[[f64; 2]; 3]) -> f64 {
    -((0..3)
        .map(|i| {
            let (a, b) = (v[i], v[(i + 1) % 3]);
            a[0] * b[1] - b[0] * a[1]
        })
        .sum::<f64>())
}

/// Whether sample point p belongs to the triangle: inside every edge, or exactly on an edge
/// that is a top or left edge. With the edge function oriented positive inside, its
/// gradient (-dy, dx) points inwards: a left edge has the interior towards +x (dy < 0), a
/// top edge is horizontal with the interior below it (dy == 0, dx > 0). Coordinates are
/// multiples of 1/32, so the products are exact.
fn inside(t: &Tri, p: [f64; 2]) -> bool {
    let sign = if area2(&t.v) < 0.0 { 1.0 } else { -1.0 };
    (0..3).all(|i| {
        let (a, b) = (t.v[i], t.v[(i + 1) % 3]);
        let (dx, dy) = (sign * (b[0] - a[0]), sign * (b[1] - a[1]));
        let e = dx * (p[1] - a[1]) - dy * (p[0] - a[0]);
        e > 0.0 || (e == 0.0 && (dy < 0.0 || (dy == 0.0 && dx > 0.0)))
    })
}

fn centre(x: u32, y: u32) -> [f64; 2] {
    [f64::from(x) + 0.5, f64::from(y) + 0.5]
}

fn tri(v: [[f64; 2]; 3], z: f32, colour: u32) -> Tri {
    Tri { v, z, colour }
}

#[test]
fn one_triangle_covers_the_pixels_inside_it() {
    let mut s = Scene::new(64, 48, 1);
    let t = tri(
        [[3.125, 2.375], [60.625, 20.125], [20.375, 45.875]],
        0.5,
        0xaabb_ccdd,
    );
    s.tris.push(t);
    let (out, stats, _) = s.render(&mut UnlimitedTvb).expect("renders");
    let mut covered = 0;
    for y in 0..48 {
        for x in 0..64 {
            let want = if inside(&t, centre(x, y)) {
                covered += 1;
                t.colour
            } else {
                CLEAR
            };
            assert_eq!(s.at(&out, x, y, 0), want, "pixel ({x}, {y})");
        }
    }
    assert!(covered > 500);
    assert_eq!(stats.draws, 1);
    assert_eq!(stats.primitives, 1);
    assert_eq!(stats.fragments, covered);
    assert_eq!(stats.partial_renders, 0);
    // 64 bytes per primitive and 4 per tile: the triangle touches all 4 tiles.
    assert_eq!(stats.tvb_bytes, 64 + 4 * 4);
}

/// Colour of the nearest triangle covering p (ties to the earlier one, as with LESS).
fn nearest(tris: &[Tri], p: [f64; 2]) -> u32 {
    let mut best: Option<(f32, u32)> = None;
    for t in tris {
        if inside(t, p) && best.is_none_or(|(z, _)| t.z < z) {
            best = Some((t.z, t.colour));
        }
    }
    best.map_or(CLEAR, |(_, c)| c)
}

#[test]
fn depth_test_keeps_the_nearest_triangle_and_counts_samples() {
    let mut s = Scene::new(64, 64, 1);
    s.opts.depth = Some(ZsFunc::Less);
    s.opts.query = true;
    s.tris = vec![
        tri(
            [[2.125, 2.375], [61.625, 4.125], [30.375, 60.875]],
            0.5,
            0x0000_00a0,
        ),
        tri(
            [[10.125, 50.375], [40.375, 8.875], [62.625, 58.125]],
            0.25,
            0x0000_00b0,
        ),
        tri(
            [[0.375, 30.125], [63.625, 28.375], [33.125, 63.625]],
            0.75,
            0x0000_00c0,
        ),
    ];
    let (out, _, m) = s.render(&mut UnlimitedTvb).expect("renders");
    let mut passing = 0u64;
    let mut zbuf = vec![1.0f32; 64 * 64];
    for t in &s.tris {
        for y in 0..64 {
            for x in 0..64 {
                let i = (y * 64 + x) as usize;
                if inside(t, centre(x, y)) && t.z < zbuf[i] {
                    zbuf[i] = t.z;
                    passing += 1;
                }
            }
        }
    }
    for y in 0..64 {
        for x in 0..64 {
            assert_eq!(
                s.at(&out, x, y, 0),
                nearest(&s.tris, centre(x, y)),
                "({x}, {y})"
            );
        }
    }
    let q = m.bytes(QUERIES + 16, 8).unwrap();
    assert_eq!(u64::from_le_bytes(q.try_into().unwrap()), passing);
}

/// A budget of `capacity` bytes that overflows like the firmware's heap.
struct TinyTvb {
    capacity: u64,
    resident: u64,
    flushes: u64,
}

impl TvbBudget for TinyTvb {
    fn reserve(&mut self, bytes: u64) -> Result<(), TvbFull> {
        if self.resident + bytes > self.capacity && self.resident > 0 {
            return Err(TvbFull::Full);
        }
        self.resident += bytes;
        Ok(())
    }

    fn flush_partial(&mut self) {
        self.resident = 0;
        self.flushes += 1;
    }
}

/// Pseudo-random triangles with vertices on 1/32-pixel positions.
fn scatter(n: usize, width: u32, height: u32) -> Vec<Tri> {
    scatter_sized(n, width, height, 24)
}

/// [`scatter`] with vertices up to `spread / 2` pixels from a centre.
fn scatter_sized(n: usize, width: u32, height: u32, spread: u32) -> Vec<Tri> {
    let mut seed = 0x1234_5678u32;
    let mut next = |m: u32| {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 8) % m
    };
    (0..n)
        .map(|i| {
            let cx = next(width) as f64;
            let cy = next(height) as f64;
            let v = std::array::from_fn(|_| {
                let half = f64::from(spread / 2);
                let x = (cx + next(spread) as f64 - half).clamp(0.0, f64::from(width) - 1.0);
                let y = (cy + next(spread) as f64 - half).clamp(0.0, f64::from(height) - 1.0);
                [
                    x + (2 * next(8) + 1) as f64 / 16.0,
                    y + (2 * next(8) + 1) as f64 / 32.0,
                ]
            });
            tri(v, next(1000) as f32 / 1000.0, 0x100 + i as u32)
        })
        .filter(|t| area2(&t.v) != 0.0)
        .collect()
}

#[test]
fn tiles_vertices_and_setup_on_several_threads_give_the_serial_render() {
    let mut s = Scene::new(160, 96, 1);
    s.opts.depth = Some(ZsFunc::Less);
    s.depth_buffer = true;
    s.tris = scatter(300, 160, 96);
    let (want, want_stats, _) = s.render(&mut UnlimitedTvb).expect("renders");
    let before = super::pass::THREADED_PASSES.load(std::sync::atomic::Ordering::Relaxed);
    for threads in [2, 3, 4] {
        let (got, stats) = s
            .render_on_threads(&mut UnlimitedTvb, threads)
            .expect("renders");
        assert_eq!(stats, want_stats, "{threads} threads");
        assert!(got == want, "{threads} threads: the pixels differ");
        // Partial renders too: their passes end with stores and start with loads.
        let mut tiny = TinyTvb {
            capacity: 2000,
            resident: 0,
            flushes: 0,
        };
        let (got, stats) = s.render_on_threads(&mut tiny, threads).expect("renders");
        assert!(stats.partial_renders > 2, "{stats:?}");
        assert!(got == want, "{threads} threads with partial renders");
    }
    let after = super::pass::THREADED_PASSES.load(std::sync::atomic::Ordering::Relaxed);
    assert!(after > before, "no pass ran on several threads");
}

/// Small triangles drawn over each other without a depth test, blending in draw order: each
/// fragment makes its pixel `3 * pixel + colour`. Their quads share SIMD groups (groups of
/// several primitives ran), and a quad at a pixel block already waiting to shade waits for
/// the waiting ones, so each blend reads what the one before it wrote.
#[test]
fn small_triangles_sharing_groups_keep_draw_order() {
    let mut s = Scene::new(64, 48, 1);
    s.tris = scatter_sized(1500, 64, 48, 6);
    // `ldcf` loads the flat colour plane's a, b, c into r4-r6; the colour is c.
    let v = Reg::r32(8);
    s.fs = Some(vec![
        Instr::LdCf(LdCf {
            dst: Reg::r32(4),
            channels: 1,
            cf: 0,
        }),
        tile(false, v, 0xff),
        imadd(v, reg(v), imm(3), reg(Reg::r32(6))),
        tile(true, v, 0xff),
        Instr::Stop,
    ]);
    let before = super::fragment::GROUPS_OF_SEVERAL.load(std::sync::atomic::Ordering::Relaxed);
    let (out, stats, _) = s.render(&mut UnlimitedTvb).expect("renders");
    let after = super::fragment::GROUPS_OF_SEVERAL.load(std::sync::atomic::Ordering::Relaxed);
    assert!(after > before, "no group shaded several primitives");
    let mut overdrawn = 0;
    let mut fragments = 0;
    for y in 0..48 {
        for x in 0..64 {
            let covering: Vec<&Tri> = s.tris.iter().filter(|t| inside(t, centre(x, y))).collect();
            fragments += covering.len() as u64;
            overdrawn += usize::from(covering.len() > 1);
            let want = covering
                .iter()
                .fold(CLEAR, |v, t| v.wrapping_mul(3).wrapping_add(t.colour));
            assert_eq!(s.at(&out, x, y, 0), want, "({x}, {y})");
        }
    }
    assert!(overdrawn > 500, "{overdrawn} pixels drawn more than once");
    assert_eq!(stats.fragments, fragments);
}

#[test]
fn partial_renders_give_the_same_pixels() {
    let mut s = Scene::new(96, 64, 1);
    s.opts.depth = Some(ZsFunc::Less);
    s.depth_buffer = true;
    s.tris = scatter(60, 96, 64);
    let (big, big_stats, _) = s.render(&mut UnlimitedTvb).expect("renders");
    let mut tiny = TinyTvb {
        capacity: 400,
        resident: 0,
        flushes: 0,
    };
    let (small, small_stats, _) = s.render(&mut tiny).expect("renders");
    assert!(small_stats.partial_renders > 3, "{small_stats:?}");
    assert_eq!(small_stats.partial_renders, tiny.flushes);
    assert_eq!(big_stats.partial_renders, 0);
    assert_eq!(small_stats.tvb_bytes, big_stats.tvb_bytes);
    for y in 0..64 {
        for x in 0..96 {
            let want = nearest(&s.tris, centre(x, y));
            assert_eq!(s.at(&big, x, y, 0), want, "({x}, {y})");
            assert_eq!(
                s.at(&small, x, y, 0),
                want,
                "({x}, {y}) with partial renders"
            );
        }
    }
}

#[test]
fn partial_renders_with_small_tiles_and_late_depth_test() {
    let mut s = Scene::new(80, 48, 1);
    s.opts.depth = Some(ZsFunc::Less);
    s.opts.late_z = true;
    s.depth_buffer = true;
    s.utile = (16, 16);
    s.tris = scatter(50, 80, 48);
    let mut tiny = TinyTvb {
        capacity: 300,
        resident: 0,
        flushes: 0,
    };
    let (out, stats, _) = s.render(&mut tiny).expect("renders");
    assert!(stats.partial_renders > 3, "{stats:?}");
    for y in 0..48 {
        for x in 0..80 {
            let want = nearest(&s.tris, centre(x, y));
            assert_eq!(s.at(&out, x, y, 0), want, "({x}, {y})");
        }
    }
}

#[test]
fn instances_preload_their_number() {
    let mut s = Scene::new(64, 32, 1);
    s.opts.instances = 2;
    let a = tri(
        [[2.125, 2.375], [30.625, 3.125], [10.375, 29.875]],
        0.5,
        0xa,
    );
    let b = tri(
        [[34.125, 2.375], [62.625, 3.125], [40.375, 29.875]],
        0.5,
        0xb,
    );
    s.tris = vec![a, b];
    let (out, stats, _) = s.render(&mut UnlimitedTvb).expect("renders");
    assert_eq!(stats.primitives, 2);
    for y in 0..32 {
        for x in 0..64 {
            let p = centre(x, y);
            let want = [a, b]
                .iter()
                .find(|t| inside(t, p))
                .map_or(CLEAR, |t| t.colour);
            assert_eq!(s.at(&out, x, y, 0), want, "({x}, {y})");
        }
    }
}

/// A 256x256 render of 3000 triangles; run with `--release --ignored` to time it.
#[test]
#[ignore]
fn many_triangles_render_quickly() {
    let mut s = Scene::new(256, 256, 1);
    s.opts.depth = Some(ZsFunc::Less);
    s.tris = scatter(3000, 256, 256);
    let start = std::time::Instant::now();
    let (_, stats, _) = s.render(&mut UnlimitedTvb).expect("renders");
    let took = start.elapsed();
    eprintln!("{stats:?} in {took:?}");
    assert!(took.as_secs_f64() < 1.0, "{took:?}");
}

#[test]
fn overflow_with_depth_but_no_zls_buffers_faults() {
    let mut s = Scene::new(96, 64, 1);
    s.opts.depth = Some(ZsFunc::Less);
    s.tris = scatter(30, 96, 64);
    let mut tiny = TinyTvb {
        capacity: 400,
        resident: 0,
        flushes: 0,
    };
    match s.render(&mut tiny) {
        Err(Fault::BadControlWord { reason, .. }) => assert!(reason.contains("ZLS"), "{reason}"),
        other => panic!("expected a fault, got {:?}", other.map(|r| r.1)),
    }
    // Without depth testing the same overflow is fine.
    s.opts.depth = None;
    let mut tiny = TinyTvb {
        capacity: 400,
        resident: 0,
        flushes: 0,
    };
    let (out, stats, _) = s.render(&mut tiny).expect("renders");
    assert!(stats.partial_renders > 0);
    for y in 0..64 {
        for x in 0..96 {
            let last = s.tris.iter().rev().find(|t| inside(t, centre(x, y)));
            assert_eq!(s.at(&out, x, y, 0), last.map_or(CLEAR, |t| t.colour));
        }
    }
}

#[test]
fn scissor_limits_the_pixels() {
    let mut s = Scene::new(64, 64, 1);
    s.opts.scissor = Some([10, 5, 41, 30]);
    let t = tri(
        [[1.125, 1.375], [62.625, 3.125], [31.375, 62.875]],
        0.5,
        0x77,
    );
    s.tris.push(t);
    let (out, _, _) = s.render(&mut UnlimitedTvb).expect("renders");
    for y in 0..64 {
        for x in 0..64 {
            let in_scissor = (10..41).contains(&x) && (5..30).contains(&y);
            let want = if in_scissor && inside(&t, centre(x, y)) {
                0x77
            } else {
                CLEAR
            };
            assert_eq!(s.at(&out, x, y, 0), want, "({x}, {y})");
        }
    }
}

#[test]
fn back_faces_are_culled() {
    let mut s = Scene::new(64, 32, 1);
    s.opts.cull_back = true;
    let a = tri(
        [[2.125, 2.375], [30.625, 3.125], [10.375, 29.875]],
        0.5,
        0xa,
    );
    let b = tri(
        [[34.125, 2.375], [40.375, 29.875], [62.625, 3.125]],
        0.5,
        0xb,
    );
    assert!(area2(&a.v) * area2(&b.v) < 0.0, "one of each winding");
    s.tris = vec![a, b];
    let (out, stats, _) = s.render(&mut UnlimitedTvb).expect("renders");
    for y in 0..32 {
        for x in 0..64 {
            let p = centre(x, y);
            // Counter-clockwise (positive Vulkan area) is front-facing here.
            let want = [a, b]
                .iter()
                .find(|t| area2(&t.v) > 0.0 && inside(t, p))
                .map_or(CLEAR, |t| t.colour);
            assert_eq!(s.at(&out, x, y, 0), want, "({x}, {y})");
        }
    }
    assert_eq!(stats.primitives, 2);
}

#[test]
fn msaa_4x_writes_covered_samples_only() {
    let mut s = Scene::new(32, 32, 4);
    let t = tri(
        [[1.125, 1.375], [30.625, 6.125], [8.375, 29.875]],
        0.5,
        0x5a5a,
    );
    s.tris.push(t);
    let (out, stats, _) = s.render(&mut UnlimitedTvb).expect("renders");
    // Vulkan's standard 4-sample locations, in sixteenths of a pixel.
    let locations = [(6.0, 2.0), (14.0, 6.0), (2.0, 10.0), (10.0, 14.0)];
    let mut partial = 0;
    let mut pixels = 0;
    for y in 0..32 {
        for x in 0..32 {
            let mut n = 0;
            for (k, (sx, sy)) in locations.iter().enumerate() {
                let p = [f64::from(x) + sx / 16.0, f64::from(y) + sy / 16.0];
                let hit = inside(&t, p);
                n += u32::from(hit);
                let want = if hit { t.colour } else { CLEAR };
                assert_eq!(s.at(&out, x, y, k as u32), want, "({x}, {y}) sample {k}");
            }
            partial += u32::from(n > 0 && n < 4);
            pixels += u32::from(n > 0);
        }
    }
    assert!(partial > 10, "edges cross pixels");
    assert_eq!(stats.fragments, u64::from(pixels));
}

#[test]
fn points_of_size_one_cover_the_pixel_they_fall_in() {
    let mut s = Scene::new(64, 32, 1);
    s.points = vec![
        ([3.25, 4.75], 0x31),
        ([40.5625, 17.125], 0x32),
        ([63.875, 31.9375], 0x33),
        ([32.125, 0.0625], 0x34),
    ];
    let (out, stats, _) = s.render(&mut UnlimitedTvb).expect("renders");
    assert_eq!(stats.primitives, 4);
    assert_eq!(stats.fragments, 4);
    for y in 0..32 {
        for x in 0..64 {
            // A unit square centred on p covers the centre (x + 0.5, y + 0.5) exactly when
            // p lies in [x, x + 1) x [y, y + 1).
            let want = s
                .points
                .iter()
                .find(|(p, _)| p[0].floor() == f64::from(x) && p[1].floor() == f64::from(y))
                .map_or(CLEAR, |p| p.1);
            assert_eq!(s.at(&out, x, y, 0), want, "({x}, {y})");
        }
    }
}

#[test]
fn depth_bias_moves_the_depth_by_units_of_r() {
    // Clear depth 0.5 and a triangle at exactly 0.5 under LESS: it fails unless biased
    // towards the viewer. For D32 at 0.5 (exponent -1) one unit is 2^-24.
    let t = tri(
        [[3.125, 2.375], [60.625, 20.125], [20.375, 29.875]],
        0.5,
        0x99,
    );
    for (bias, drawn) in [(None, false), (Some(-1.0), true), (Some(1.0), false)] {
        let mut s = Scene::new(64, 32, 1);
        s.clear_depth = 0.5;
        s.opts.depth = Some(ZsFunc::Less);
        s.opts.bias = bias;
        s.tris.push(t);
        let (out, _, _) = s.render(&mut UnlimitedTvb).expect("renders");
        for y in 0..32 {
            for x in 0..64 {
                let want = if drawn && inside(&t, centre(x, y)) {
                    0x99
                } else {
                    CLEAR
                };
                assert_eq!(s.at(&out, x, y, 0), want, "bias {bias:?} ({x}, {y})");
            }
        }
    }
}

/// Pixels run in 2x2 quads: derivatives are right at the triangle's edges, where the
/// neighbours are helper lanes, and the helpers write nothing and are not counted.
#[test]
fn quads_with_helpers_give_derivatives_at_edges() {
    let (x, y, v, dx, dy) = (
        Reg::r32(2),
        Reg::r32(3),
        Reg::r32(4),
        Reg::r32(6),
        Reg::r32(7),
    );
    let fsrc = |r: Reg| FSrc::new(Operand::Reg(r));
    let deriv = |op, dst: Reg, src: Reg| {
        Instr::FUnary(FUnary {
            op,
            dst: dst.into(),
            src: fsrc(src),
            saturate: false,
        })
    };
    let to_float = |r: Reg| {
        Instr::Convert(Convert {
            op: ConvertOp::U32ToF,
            dst: r.into(),
            src: reg(r),
            round: Round::NearestEven,
        })
    };
    // colour = bits of dfdx(x * x) + dfdy(3 * y * y) for the pixel (x, y).
    let fs = vec![
        get_sr(x, SpecialReg::THREAD_POSITION_IN_GRID_X),
        get_sr(y, SpecialReg::THREAD_POSITION_IN_GRID_Y),
        imadd(x, reg(x), reg(x), imm(0)),
        imadd(y, reg(y), reg(y), imm(0)),
        imadd(y, reg(y), imm(3), imm(0)),
        to_float(x),
        to_float(y),
        deriv(FUnaryOp::Dfdx, dx, x),
        deriv(FUnaryOp::Dfdy, dy, y),
        Instr::FArith(FArith {
            op: FOp::Add,
            dst: v.into(),
            a: fsrc(dx),
            b: fsrc(dy),
            c: FSrc::new(Operand::Imm(0)),
            saturate: false,
        }),
        tile(true, v, 0xff),
        Instr::Stop,
    ];
    let mut s = Scene::new(48, 40, 1);
    s.fs = Some(fs);
    s.opts.query = true;
    let t = tri([[3.3, 2.6], [45.1, 9.7], [11.9, 37.2]], 0.5, 0);
    s.tris.push(t);
    let (out, stats, m) = s.render(&mut UnlimitedTvb).expect("renders");
    let mut covered = 0;
    for y in 0..40 {
        for x in 0..48 {
            let want = if inside(&t, centre(x, y)) {
                covered += 1;
                let (x0, y0) = (f64::from(x & !1), f64::from(y & !1));
                ((2.0 * x0 + 1.0 + 3.0 * (2.0 * y0 + 1.0)) as f32).to_bits()
            } else {
                CLEAR
            };
            assert_eq!(s.at(&out, x, y, 0), want, "({x}, {y})");
        }
    }
    assert_eq!(stats.fragments, covered);
    let q = m.bytes(QUERIES + 16, 8).unwrap();
    assert_eq!(u64::from_le_bytes(q.try_into().unwrap()), covered);
}
