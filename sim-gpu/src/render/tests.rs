//! VDM streams built by hand from the control words' pack functions, walked into a recording
//! sink; primitive assembly against primitives written out by hand from Vulkan's topology
//! definitions.

use super::*;
use crate::usc::FlatMemory;
use crate::{Fault, GpuMemory, RenderCommand};
use hw::g13::control::ppp::{PppUpdate, WClamp};
use hw::g13::control::vdm::*;

const STREAM: u64 = 0x1_0000;
const SUB: u64 = 0x1_8000;
const PPP_A: u64 = 0x2_0000;
const PPP_B: u64 = 0x2_1000;
const INDICES: u64 = 0x3_0000;
const ARGS: u64 = 0x4_0000;

fn stream(blocks: &[VdmBlock]) -> Vec<u8> {
    let mut out = Vec::new();
    for b in blocks {
        b.pack(&mut out).expect("block packs");
    }
    out
}

fn cmd() -> RenderCommand {
    RenderCommand {
        vdm_ctrl_stream_base: STREAM,
        ..RenderCommand::default()
    }
}

#[derive(Default)]
struct Recorder {
    draws: Vec<DrawCall>,
    barriers: Vec<VdmBarrier>,
}

impl DrawSink for Recorder {
    fn draw(&mut self, draw: &DrawCall, _mem: &mut dyn GpuMemory) -> Result<(), Fault> {
        self.draws.push(draw.clone());
        Ok(())
    }

    fn barrier(&mut self, barrier: &VdmBarrier) -> Result<(), Fault> {
        self.barriers.push(*barrier);
        Ok(())
    }
}

fn walk(mem: &mut FlatMemory) -> Result<Recorder, Fault> {
    let mut r = Recorder::default();
    walk_vdm_stream(&cmd(), mem, &mut r)?;
    Ok(r)
}

fn list(primitive: Primitive) -> IndexList {
    IndexList {
        primitive,
        restart_enable: false,
        index_size: IndexSize::U8,
        index_buffer: None,
        count: None,
        instances: None,
        start: None,
        indirect: None,
        index_buffer_size: None,
    }
}

fn direct(primitive: Primitive, count: u32, instances: u32, start: u32) -> IndexList {
    IndexList {
        count: Some(count),
        instances: Some(instances),
        start: Some(start),
        ..list(primitive)
    }
}

fn ppp_w_clamp(w: f32) -> (Vec<u8>, u32) {
    let u = PppUpdate {
        viewport_count: 1,
        w_clamp: Some(WClamp { w_clamp: w }),
        ..PppUpdate::default()
    };
    let mut b = Vec::new();
    u.pack(&mut b).unwrap();
    let words = b.len() as u32 / 4;
    (b, words)
}

fn le(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn direct_draws_carry_merged_state() {
    let (ppp_a, ppp_a_words) = ppp_w_clamp(1.5);
    let (ppp_b, ppp_b_words) = ppp_w_clamp(4.0);
    let first_state = VdmState {
        restart_index: Some(0xffff),
        vertex_shader_word_1: Some(VertexShaderWord1 {
            unknown: 0,
            pipeline: 0x40,
        }),
        vertex_unknown: Some(VertexUnknown {
            flat_shading_control: VdmVertex::V0,
            unknown_4: false,
            unknown_5: false,
            generate_primitive_id: false,
        }),
        ..VdmState::default()
    };
    let second_state = VdmState {
        vertex_outputs: Some(VertexOutputs {
            count_1: 3,
            count_2: 4,
        }),
        ..VdmState::default()
    };
    let indexed = IndexList {
        restart_enable: true,
        index_size: IndexSize::U16,
        index_buffer: Some(INDICES),
        index_buffer_size: Some(8),
        ..direct(Primitive::TriangleStrip, 4, 1, (-2i32) as u32)
    };
    let s = stream(&[
        VdmBlock::State(first_state),
        VdmBlock::Ppp(PppState {
            pointer: PPP_A,
            size_words: ppp_a_words,
        }),
        VdmBlock::IndexList(direct(Primitive::Triangles, 6, 2, 5)),
        VdmBlock::State(second_state),
        VdmBlock::Ppp(PppState {
            pointer: PPP_B,
            size_words: ppp_b_words,
        }),
        VdmBlock::IndexList(indexed),
        VdmBlock::Terminate,
    ]);
    let mut m = FlatMemory::with(STREAM, &s);
    m.map(PPP_A, ppp_a);
    m.map(PPP_B, ppp_b);
    let r = walk(&mut m).unwrap();
    assert_eq!(r.draws.len(), 2);

    let d0 = &r.draws[0];
    assert_eq!(d0.params.primitive, Primitive::Triangles);
    assert_eq!(
        (d0.params.count, d0.params.instances, d0.params.first_vertex),
        (6, 2, 5)
    );
    assert_eq!(d0.params.indices, None);
    assert_eq!(d0.params.indirect, None);
    assert_eq!(d0.state.vertex.restart_index, Some(0xffff));
    assert_eq!(d0.state.vertex.vertex_shader_word_1.unwrap().pipeline, 0x40);
    assert_eq!(d0.state.vertex.vertex_outputs, None);
    assert_eq!(d0.state.ppp.w_clamp, Some(WClamp { w_clamp: 1.5 }));

    let d1 = &r.draws[1];
    // The second state block changed only the outputs; the shader and restart index stay.
    assert_eq!(d1.state.vertex.vertex_shader_word_1.unwrap().pipeline, 0x40);
    assert_eq!(d1.state.vertex.restart_index, Some(0xffff));
    assert_eq!(
        d1.state.vertex.vertex_outputs,
        Some(VertexOutputs {
            count_1: 3,
            count_2: 4
        })
    );
    assert_eq!(d1.state.ppp.w_clamp, Some(WClamp { w_clamp: 4.0 }));
    assert_eq!(d1.params.base_vertex, -2);
    assert_eq!(d1.params.first_vertex, 0);
    assert!(d1.params.restart_enable);
    assert_eq!(
        d1.params.indices,
        Some(IndexSource {
            buffer: INDICES,
            size: IndexSize::U16,
            bound_bytes: Some(8),
            first_index: 0
        })
    );
    // State (4 words), PPP, direct list (4 words), state (2 words), PPP.
    assert_eq!(d1.va, STREAM + 16 + 8 + 16 + 8 + 8);
}

#[test]
fn indirect_draws_read_their_arguments() {
    let indexed = IndexList {
        index_size: IndexSize::U32,
        index_buffer: Some(INDICES),
        index_buffer_size: Some(64),
        indirect: Some(ARGS),
        ..list(Primitive::Triangles)
    };
    let plain = IndexList {
        indirect: Some(ARGS + 0x20),
        ..list(Primitive::LineStrip)
    };
    let s = stream(&[
        VdmBlock::IndexList(indexed),
        VdmBlock::IndexList(plain),
        VdmBlock::Terminate,
    ]);
    let mut m = FlatMemory::with(STREAM, &s);
    let mut args = le(&[3, 2, 1, (-7i32) as u32, 9, 0, 0, 0]);
    args.extend(le(&[4, 1, 10, 3]));
    m.map(ARGS, args);
    let r = walk(&mut m).unwrap();
    assert_eq!(r.draws.len(), 2);
    let p = r.draws[0].params;
    assert_eq!(
        (p.count, p.instances, p.base_vertex, p.first_instance),
        (3, 2, -7, 9)
    );
    assert_eq!(p.indices.unwrap().first_index, 1);
    assert_eq!(p.indirect, Some(ARGS));
    let q = r.draws[1].params;
    assert_eq!(
        (q.count, q.instances, q.first_vertex, q.first_instance),
        (4, 1, 10, 3)
    );
    assert_eq!(q.indices, None);
}

#[test]
fn indirect_arguments_in_unmapped_memory_fault() {
    let s = stream(&[
        VdmBlock::IndexList(IndexList {
            indirect: Some(ARGS),
            ..list(Primitive::Points)
        }),
        VdmBlock::Terminate,
    ]);
    let mut m = FlatMemory::with(STREAM, &s);
    assert!(matches!(
        walk(&mut m),
        Err(Fault::Unmapped { va: ARGS, .. })
    ));
}

#[test]
fn link_with_return_comes_back_after_the_barrier() {
    let main = stream(&[
        VdmBlock::IndexList(direct(Primitive::Points, 1, 1, 100)),
        VdmBlock::Link(VdmStreamLink {
            target: SUB,
            with_return: true,
        }),
        VdmBlock::IndexList(direct(Primitive::Points, 1, 1, 300)),
        VdmBlock::Terminate,
    ]);
    let sub = stream(&[
        VdmBlock::IndexList(direct(Primitive::Points, 1, 1, 200)),
        VdmBlock::Barrier(VdmBarrier {
            usc_cache_invalidate: true,
            returns: true,
            unknown: 0,
        }),
    ]);
    let mut m = FlatMemory::with(STREAM, &main);
    m.map(SUB, sub);
    let r = walk(&mut m).unwrap();
    let firsts: Vec<u32> = r.draws.iter().map(|d| d.params.first_vertex).collect();
    assert_eq!(firsts, [100, 200, 300]);
    assert_eq!(r.barriers.len(), 1);
    assert!(r.barriers[0].usc_cache_invalidate);
}

#[test]
fn plain_link_and_barrier_continue() {
    let main = stream(&[
        VdmBlock::Barrier(VdmBarrier::default()),
        VdmBlock::Link(VdmStreamLink {
            target: SUB,
            with_return: false,
        }),
        // Never reached: the link does not return.
        VdmBlock::IndexList(direct(Primitive::Points, 1, 1, 999)),
        VdmBlock::Terminate,
    ]);
    let sub = stream(&[
        VdmBlock::IndexList(direct(Primitive::Points, 1, 1, 7)),
        VdmBlock::Terminate,
        // After the terminate: never read.
        VdmBlock::IndexList(direct(Primitive::Points, 1, 1, 8)),
    ]);
    let mut m = FlatMemory::with(STREAM, &main);
    m.map(SUB, sub);
    let r = walk(&mut m).unwrap();
    let firsts: Vec<u32> = r.draws.iter().map(|d| d.params.first_vertex).collect();
    assert_eq!(firsts, [7]);
    assert_eq!(r.barriers.len(), 1);
}

#[test]
fn runaway_link_loop_faults() {
    // Two segments linking to each other forever.
    let a = stream(&[VdmBlock::Link(VdmStreamLink {
        target: SUB,
        with_return: false,
    })]);
    let b = stream(&[
        VdmBlock::IndexList(direct(Primitive::Points, 1, 1, 0)),
        VdmBlock::Link(VdmStreamLink {
            target: STREAM,
            with_return: false,
        }),
    ]);
    let mut m = FlatMemory::with(STREAM, &a);
    m.map(SUB, b);
    let mut r = Recorder::default();
    let e = walk_vdm_stream(&cmd(), &mut m, &mut r).unwrap_err();
    assert!(
        matches!(&e, Fault::BadControlWord { reason, .. } if reason.contains("loops")),
        "{e}"
    );
    // The loop is caught on its second pass, after one draw.
    assert_eq!(r.draws.len(), 1);
}

#[test]
fn return_without_link_and_nested_return_fault() {
    let s = stream(&[VdmBlock::Barrier(VdmBarrier {
        returns: true,
        ..VdmBarrier::default()
    })]);
    let mut m = FlatMemory::with(STREAM, &s);
    assert!(matches!(
        walk(&mut m),
        Err(Fault::BadControlWord { va: STREAM, .. })
    ));

    let s = stream(&[VdmBlock::Link(VdmStreamLink {
        target: SUB,
        with_return: true,
    })]);
    let sub = stream(&[VdmBlock::Link(VdmStreamLink {
        target: SUB + 0x100,
        with_return: true,
    })]);
    let mut m = FlatMemory::with(STREAM, &s);
    m.map(SUB, sub);
    assert!(matches!(
        walk(&mut m),
        Err(Fault::BadControlWord { va: SUB, .. })
    ));
}

#[test]
fn direct_draw_without_count_faults() {
    let s = stream(&[
        VdmBlock::IndexList(IndexList {
            instances: Some(1),
            ..list(Primitive::Points)
        }),
        VdmBlock::Terminate,
    ]);
    let mut m = FlatMemory::with(STREAM, &s);
    assert!(matches!(
        walk(&mut m),
        Err(Fault::BadControlWord { va: STREAM, .. })
    ));
}

#[test]
fn ppp_update_with_wrong_size_faults() {
    let (ppp, words) = ppp_w_clamp(1.0);
    let s = stream(&[
        VdmBlock::Ppp(PppState {
            pointer: PPP_A,
            size_words: words + 1,
        }),
        VdmBlock::Terminate,
    ]);
    let mut m = FlatMemory::with(STREAM, &s);
    let mut padded = ppp;
    padded.extend([0; 4]);
    m.map(PPP_A, padded);
    assert!(matches!(
        walk(&mut m),
        Err(Fault::BadControlWord { va: PPP_A, .. })
    ));
}

// ---- primitive assembly ----

fn nonindexed(primitive: Primitive, count: u32) -> DrawParams {
    DrawParams {
        primitive,
        restart_enable: false,
        indices: None,
        count,
        instances: 1,
        first_vertex: 0,
        base_vertex: 0,
        first_instance: 0,
        indirect: None,
    }
}

fn indexed(primitive: Primitive, size: IndexSize, count: u32, bound: Option<u32>) -> DrawParams {
    DrawParams {
        indices: Some(IndexSource {
            buffer: INDICES,
            size,
            bound_bytes: bound,
            first_index: 0,
        }),
        ..nonindexed(primitive, count)
    }
}

fn run(
    d: &DrawParams,
    restart: Option<u32>,
    pv: ProvokingVertex,
    m: &FlatMemory,
) -> Result<Vec<AssembledPrimitive>, Fault> {
    let mut v = Vec::new();
    assemble(d, restart, pv, m, &mut |p| {
        v.push(p);
        Ok(())
    })?;
    Ok(v)
}

fn verts(p: &[AssembledPrimitive]) -> Vec<Vec<u32>> {
    p.iter().map(|p| p.vertices().to_vec()).collect()
}

fn provoking(p: &[AssembledPrimitive]) -> Vec<u32> {
    p.iter().map(|p| p.provoking).collect()
}

fn shapes(d: &DrawParams) -> Vec<Vec<u32>> {
    verts(&run(d, None, ProvokingVertex::First, &FlatMemory::new()).unwrap())
}

#[test]
fn every_topology_in_vulkan_order() {
    let v = |x: &[&[u32]]| x.iter().map(|s| s.to_vec()).collect::<Vec<_>>();
    assert_eq!(
        shapes(&nonindexed(Primitive::Points, 3)),
        v(&[&[0], &[1], &[2]])
    );
    assert_eq!(
        shapes(&nonindexed(Primitive::Lines, 5)),
        v(&[&[0, 1], &[2, 3]])
    );
    assert_eq!(
        shapes(&nonindexed(Primitive::LineStrip, 4)),
        v(&[&[0, 1], &[1, 2], &[2, 3]])
    );
    assert_eq!(
        shapes(&nonindexed(Primitive::LineLoop, 4)),
        v(&[&[0, 1], &[1, 2], &[2, 3], &[3, 0]])
    );
    assert_eq!(
        shapes(&nonindexed(Primitive::Triangles, 7)),
        v(&[&[0, 1, 2], &[3, 4, 5]])
    );
    assert_eq!(
        shapes(&nonindexed(Primitive::TriangleStrip, 6)),
        v(&[&[0, 1, 2], &[2, 1, 3], &[2, 3, 4], &[4, 3, 5]])
    );
    assert_eq!(
        shapes(&nonindexed(Primitive::TriangleFan, 5)),
        v(&[&[0, 1, 2], &[0, 2, 3], &[0, 3, 4]])
    );
    // Too few vertices for one primitive: nothing.
    assert!(shapes(&nonindexed(Primitive::TriangleStrip, 2)).is_empty());
    assert!(shapes(&nonindexed(Primitive::LineStrip, 1)).is_empty());
    assert!(shapes(&nonindexed(Primitive::LineLoop, 1)).is_empty());
}

#[test]
fn first_vertex_offsets_nonindexed_draws() {
    let d = DrawParams {
        first_vertex: 10,
        ..nonindexed(Primitive::TriangleStrip, 4)
    };
    assert_eq!(shapes(&d), [vec![10, 11, 12], vec![12, 11, 13]]);
}

#[test]
fn provoking_vertex_first_and_last() {
    let m = FlatMemory::new();
    let pv = |prim, n, c| provoking(&run(&nonindexed(prim, n), None, c, &m).unwrap());
    use ProvokingVertex::{First, Last};
    assert_eq!(pv(Primitive::Points, 2, Last), [0, 1]);
    assert_eq!(pv(Primitive::Lines, 4, First), [0, 2]);
    assert_eq!(pv(Primitive::Lines, 4, Last), [1, 3]);
    assert_eq!(pv(Primitive::LineStrip, 3, First), [0, 1]);
    assert_eq!(pv(Primitive::LineStrip, 3, Last), [1, 2]);
    assert_eq!(pv(Primitive::Triangles, 6, First), [0, 3]);
    assert_eq!(pv(Primitive::Triangles, 6, Last), [2, 5]);
    // Strip primitive i: vertex i first, i + 2 last, whatever the winding swap.
    assert_eq!(pv(Primitive::TriangleStrip, 5, First), [0, 1, 2]);
    assert_eq!(pv(Primitive::TriangleStrip, 5, Last), [2, 3, 4]);
    // Fan primitive i: vertex i + 1 first, i + 2 last.
    assert_eq!(pv(Primitive::TriangleFan, 5, First), [1, 2, 3]);
    assert_eq!(pv(Primitive::TriangleFan, 5, Last), [2, 3, 4]);
}

/// The vertex each flat shading vertex (0, 1, 2) of every primitive names.
fn flat_vertices(p: &[AssembledPrimitive]) -> Vec<[u32; 3]> {
    p.iter()
        .map(|p| {
            let v = p.vertices();
            let recs: [&[u32]; 3] = std::array::from_fn(|i| std::slice::from_ref(&v[i]));
            p.flat_records(recs).map(|r| r[0])
        })
        .collect()
}

#[test]
fn flat_shading_vertices_follow_the_hardware_numbering() {
    let m = FlatMemory::new();
    let run1 = |prim, n| run(&nonindexed(prim, n), None, ProvokingVertex::First, &m).unwrap();
    // Strips: vertex 0 is Vulkan's first vertex (i) and vertex 2 its last, odd ones too.
    let strip = flat_vertices(&run1(Primitive::TriangleStrip, 5));
    assert_eq!(strip, [[0, 1, 2], [1, 2, 3], [2, 3, 4]]);
    // Fans: vertex 1 is the first vertex (i + 1), vertex 2 the last (i + 2).
    let fan = flat_vertices(&run1(Primitive::TriangleFan, 5));
    assert_eq!(fan, [[0, 1, 2], [0, 2, 3], [0, 3, 4]]);
}

#[test]
fn provoking_convention_from_the_vdm_word() {
    use ProvokingVertex::{First, Last};
    let f = ProvokingVertex::from_vdm;
    assert_eq!(f(Primitive::Triangles, VdmVertex::V0).unwrap(), First);
    assert_eq!(f(Primitive::Lines, VdmVertex::V2).unwrap(), Last);
    assert_eq!(f(Primitive::TriangleFan, VdmVertex::V1).unwrap(), First);
    assert_eq!(f(Primitive::TriangleFan, VdmVertex::V2).unwrap(), Last);
    assert!(matches!(
        f(Primitive::TriangleFan, VdmVertex::V0),
        Err(Fault::Unimplemented(_))
    ));
    assert!(matches!(
        f(Primitive::TriangleStrip, VdmVertex::V1),
        Err(Fault::Unimplemented(_))
    ));
}

#[test]
fn strip_restart_with_16_bit_indices_and_base_vertex() {
    let m = FlatMemory::with(
        INDICES,
        &[0, 0, 1, 0, 2, 0, 0xff, 0xff, 3, 0, 4, 0, 5, 0, 6, 0],
    );
    let d = DrawParams {
        restart_enable: true,
        base_vertex: 10,
        ..indexed(Primitive::TriangleStrip, IndexSize::U16, 8, Some(16))
    };
    let p = run(&d, Some(0xffff), ProvokingVertex::First, &m).unwrap();
    // The strip restarts after the restart index, so its winding alternation starts over.
    assert_eq!(
        verts(&p),
        [vec![10, 11, 12], vec![13, 14, 15], vec![15, 14, 16]]
    );
    assert_eq!(provoking(&p), [10, 13, 14]);
    // Primitive IDs keep counting across the restart.
    let ids: Vec<u32> = p.iter().map(|p| p.primitive_id).collect();
    assert_eq!(ids, [0, 1, 2]);

    // With restart disabled, 0xffff is an ordinary index.
    let d = DrawParams {
        restart_enable: false,
        ..d
    };
    let p = run(&d, Some(0xffff), ProvokingVertex::First, &m).unwrap();
    assert_eq!(verts(&p)[1], [12, 11, 0xffff + 10]);
}

#[test]
fn fan_restart_with_32_bit_indices() {
    let m = FlatMemory::with(INDICES, &le(&[7, 1, 2, 3, u32::MAX, 8, 4, 5]));
    let d = DrawParams {
        restart_enable: true,
        ..indexed(Primitive::TriangleFan, IndexSize::U32, 8, Some(32))
    };
    let p = run(&d, Some(u32::MAX), ProvokingVertex::First, &m).unwrap();
    assert_eq!(verts(&p), [vec![7, 1, 2], vec![7, 2, 3], vec![8, 4, 5]]);
}

#[test]
fn line_strip_restart_and_line_loop_restart() {
    let m = FlatMemory::with(INDICES, &[0, 1, 2, 0xff, 3, 4, 5, 0]);
    let d = DrawParams {
        restart_enable: true,
        ..indexed(Primitive::LineStrip, IndexSize::U8, 7, Some(8))
    };
    // The VDM restart value is cut to the 8-bit index width.
    let p = run(&d, Some(u32::MAX), ProvokingVertex::First, &m).unwrap();
    assert_eq!(verts(&p), [vec![0, 1], vec![1, 2], vec![3, 4], vec![4, 5]]);
    let d = DrawParams {
        primitive: Primitive::LineLoop,
        ..d
    };
    let p = run(&d, Some(0xff), ProvokingVertex::First, &m).unwrap();
    assert_eq!(
        verts(&p),
        [
            vec![0, 1],
            vec![1, 2],
            vec![2, 0],
            vec![3, 4],
            vec![4, 5],
            vec![5, 3]
        ]
    );
}

#[test]
fn list_topologies_restart_too() {
    // 0, 1, restart, 0: the restart drops the incomplete (0, 1) and nothing completes after.
    let m = FlatMemory::with(INDICES, &[0, 0, 1, 0, 0xff, 0xff, 0, 0]);
    let d = DrawParams {
        restart_enable: true,
        ..indexed(Primitive::Triangles, IndexSize::U16, 4, Some(8))
    };
    let p = run(&d, Some(0xffff), ProvokingVertex::First, &m).unwrap();
    assert!(verts(&p).is_empty());
    // Without the enable the index is an ordinary one.
    let d = DrawParams {
        restart_enable: false,
        ..indexed(Primitive::Triangles, IndexSize::U16, 3, Some(8))
    };
    let p = run(&d, Some(0xffff), ProvokingVertex::First, &m).unwrap();
    assert_eq!(verts(&p), [vec![0, 1, 0xffff]]);
}

#[test]
fn restart_without_a_restart_index_faults() {
    let m = FlatMemory::with(INDICES, &[0; 8]);
    let d = DrawParams {
        restart_enable: true,
        ..indexed(Primitive::TriangleStrip, IndexSize::U16, 3, Some(8))
    };
    assert!(matches!(
        run(&d, None, ProvokingVertex::First, &m),
        Err(Fault::BadControlWord { .. })
    ));
}

#[test]
fn instances_repeat_the_draw() {
    let d = DrawParams {
        instances: 3,
        first_vertex: 4,
        ..nonindexed(Primitive::Triangles, 3)
    };
    let p = run(&d, None, ProvokingVertex::First, &FlatMemory::new()).unwrap();
    let got: Vec<(Vec<u32>, u32, u32)> = p
        .iter()
        .map(|p| (p.vertices().to_vec(), p.instance, p.primitive_id))
        .collect();
    assert_eq!(
        got,
        [
            (vec![4, 5, 6], 0, 0),
            (vec![4, 5, 6], 1, 0),
            (vec![4, 5, 6], 2, 0)
        ]
    );
    let none = DrawParams { instances: 0, ..d };
    assert!(run(&none, None, ProvokingVertex::First, &FlatMemory::new())
        .unwrap()
        .is_empty());
}

#[test]
fn negative_base_vertex_wraps_like_a_32_bit_add() {
    let m = FlatMemory::with(INDICES, &le(&[5, 6, 7]));
    let d = DrawParams {
        base_vertex: -5,
        ..indexed(Primitive::Triangles, IndexSize::U32, 3, Some(12))
    };
    assert_eq!(shapes_in(&d, &m), [vec![0, 1, 2]]);
}

fn shapes_in(d: &DrawParams, m: &FlatMemory) -> Vec<Vec<u32>> {
    verts(&run(d, None, ProvokingVertex::First, m).unwrap())
}

#[test]
fn indices_past_the_buffer_read_as_zero() {
    // Four 16-bit indices inside the 8-byte bound, and two more mapped right after it that
    // the draw must not see.
    let m = FlatMemory::with(INDICES, &[1, 0, 2, 0, 3, 0, 4, 0, 9, 0, 9, 0]);
    let d = DrawParams {
        base_vertex: 100,
        ..indexed(Primitive::Triangles, IndexSize::U16, 6, Some(8))
    };
    assert_eq!(
        shapes_in(&d, &m),
        [vec![101, 102, 103], vec![104, 100, 100]]
    );

    // An indirect first index counts against the same bound.
    let m = FlatMemory::with(INDICES, &le(&[10, 11, 12, 13]));
    let mut d = indexed(Primitive::Points, IndexSize::U32, 3, Some(12));
    d.indices.as_mut().unwrap().first_index = 1;
    assert_eq!(shapes_in(&d, &m), [vec![11], vec![12], vec![0]]);

    // No bound: the read goes to memory, and unmapped memory faults.
    let d = indexed(Primitive::Points, IndexSize::U32, 5, None);
    assert!(matches!(
        run(&d, None, ProvokingVertex::First, &m),
        Err(Fault::Unmapped { va, .. }) if va == INDICES + 16
    ));
}

#[test]
fn quads_are_refused() {
    for prim in [Primitive::Quads, Primitive::QuadStrip] {
        assert!(matches!(
            run(
                &nonindexed(prim, 4),
                None,
                ProvokingVertex::First,
                &FlatMemory::new()
            ),
            Err(Fault::Unimplemented(_))
        ));
    }
}

#[test]
fn walked_draw_assembles() {
    // End to end: an indexed strip from a stream, assembled with the walked state.
    let s = stream(&[
        VdmBlock::State(VdmState {
            restart_index: Some(0xffff),
            vertex_unknown: Some(VertexUnknown {
                flat_shading_control: VdmVertex::V2,
                unknown_4: false,
                unknown_5: false,
                generate_primitive_id: false,
            }),
            ..VdmState::default()
        }),
        VdmBlock::IndexList(IndexList {
            restart_enable: true,
            index_size: IndexSize::U16,
            index_buffer: Some(INDICES),
            index_buffer_size: Some(12),
            ..direct(Primitive::TriangleStrip, 6, 1, 0)
        }),
        VdmBlock::Terminate,
    ]);
    let mut m = FlatMemory::with(STREAM, &s);
    m.map(INDICES, vec![0, 0, 1, 0, 2, 0, 3, 0, 0xff, 0xff, 4, 0]);
    let r = walk(&mut m).unwrap();
    let d = &r.draws[0];
    let pv = ProvokingVertex::from_vdm(
        d.params.primitive,
        d.state.vertex.vertex_unknown.unwrap().flat_shading_control,
    )
    .unwrap();
    let p = run(&d.params, d.state.vertex.restart_index, pv, &m).unwrap();
    assert_eq!(verts(&p), [vec![0, 1, 2], vec![2, 1, 3]]);
    assert_eq!(provoking(&p), [2, 3]);
}
