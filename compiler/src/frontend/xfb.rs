//! Transform feedback decorations of vertex outputs: XfbBuffer, XfbStride and Offset on an
//! output variable or on the members of its block (and of structs nested in it). Each
//! captured leaf's byte offset in its buffer's vertex record is found by walking the type
//! beside the variable's leaves: arrays and matrices are tightly packed (each element right
//! after the previous), struct members sit at their Offset or right after the previous one.

use spirv::{Decoration, Word};

use super::module::{invalid, SpvType};
use super::translate::Tr;
use super::values::VarTree;
use crate::ir::{self, XFB_BUFFERS};
use crate::CompileError;

/// A leaf of an output variable that transform feedback captures.
#[derive(Debug, Clone, Copy)]
pub(super) struct XfbLeaf {
    pub var: ir::Var,
    pub buffer: u8,
    pub offset: u32,
}

/// The capture decorations in force at one point of the walk.
#[derive(Debug, Clone, Copy)]
struct At {
    offset: Option<u32>,
    buffer: Option<u32>,
}

impl Tr<'_> {
    fn first(&self, v: Option<&[u32]>) -> Option<u32> {
        v.and_then(|v| v.first().copied())
    }

    fn note_stride(
        &mut self,
        buffer: Option<u32>,
        stride: Option<u32>,
    ) -> Result<(), CompileError> {
        if let (Some(b), Some(s)) = (buffer, stride) {
            let slot = self
                .xfb_strides
                .get_mut(b as usize)
                .ok_or_else(|| invalid(format!("XfbBuffer {b} (at most {XFB_BUFFERS})")))?;
            *slot = s;
        }
        Ok(())
    }

    /// Bytes a value of this part of the variable takes in a capture record.
    fn xfb_size(&self, ty: Word, tree: &VarTree) -> Result<u32, CompileError> {
        match tree {
            VarTree::Leaf(v) => {
                let t = self.sh.var_types[v.0 as usize];
                Ok(u32::from(t.lanes) * t.scalar.bits().div_ceil(8).max(4))
            }
            VarTree::Node(kids) => {
                let tys = self.l.children(ty)?;
                if let SpvType::Struct { .. } = self.l.get(ty)? {
                    let mut end = 0;
                    let mut run = 0;
                    for (m, (kty, kid)) in tys.iter().zip(kids).enumerate() {
                        let at = self
                            .first(self.decos.member(ty, m as u32, Decoration::Offset))
                            .unwrap_or(run);
                        run = at + self.xfb_size(*kty, kid)?;
                        end = end.max(run);
                    }
                    Ok(end)
                } else {
                    let mut n = 0;
                    for (kty, kid) in tys.iter().zip(kids) {
                        n += self.xfb_size(*kty, kid)?;
                    }
                    Ok(n)
                }
            }
        }
    }

    fn xfb_walk(
        &mut self,
        ty: Word,
        tree: &VarTree,
        at: At,
        depth: u32,
    ) -> Result<(), CompileError> {
        if depth > 32 {
            return Err(invalid("output variable nested too deeply"));
        }
        match tree {
            VarTree::Leaf(v) => {
                if let (Some(offset), Some(buffer)) = (at.offset, at.buffer) {
                    if buffer as usize >= XFB_BUFFERS {
                        return Err(invalid(format!("XfbBuffer {buffer}")));
                    }
                    self.xfb_leaves.push(XfbLeaf {
                        var: *v,
                        buffer: buffer as u8,
                        offset,
                    });
                }
            }
            VarTree::Node(kids) => {
                let tys = self.l.children(ty)?;
                let is_struct = matches!(self.l.get(ty)?, SpvType::Struct { .. });
                let mut run = 0;
                for (m, (kty, kid)) in tys.iter().zip(kids).enumerate() {
                    let m = m as u32;
                    let (off, buffer) = if is_struct {
                        let own = self.first(self.decos.member(ty, m, Decoration::Offset));
                        let buffer = self
                            .first(self.decos.member(ty, m, Decoration::XfbBuffer))
                            .or(at.buffer);
                        let stride = self.first(self.decos.member(ty, m, Decoration::XfbStride));
                        self.note_stride(buffer, stride)?;
                        let rel = own.unwrap_or(run);
                        run = rel + self.xfb_size(*kty, kid)?;
                        // A member's own Offset counts from the record's start when the
                        // variable has none (a block whose members carry them).
                        let off = match (at.offset, own) {
                            (Some(b), _) => Some(b + rel),
                            (None, Some(o)) => Some(o),
                            (None, None) => None,
                        };
                        (off, buffer)
                    } else {
                        let rel = run;
                        run += self.xfb_size(*kty, kid)?;
                        (at.offset.map(|b| b + rel), at.buffer)
                    };
                    self.xfb_walk(
                        *kty,
                        kid,
                        At {
                            offset: off,
                            buffer,
                        },
                        depth + 1,
                    )?;
                }
            }
        }
        Ok(())
    }

    /// Records the captured leaves of output variable `rid` of type `ty` (its Var tree
    /// `tree`), when the shader declares the Xfb execution mode.
    pub(super) fn collect_xfb(
        &mut self,
        rid: Word,
        ty: Word,
        tree: &VarTree,
    ) -> Result<(), CompileError> {
        if !self.xfb_mode {
            return Ok(());
        }
        let buffer = self.first(self.decos.get(rid, Decoration::XfbBuffer));
        let stride = self.first(self.decos.get(rid, Decoration::XfbStride));
        let offset = self.first(self.decos.get(rid, Decoration::Offset));
        // Each element of an array of blocks goes to its own buffer, the decorated one
        // and the ones after it (as GLSL's xfb_buffer on an arrayed block means).
        if let (SpvType::Array { elem, .. }, VarTree::Node(kids)) = (self.l.get(ty)?, tree) {
            let elem = *elem;
            if self.decos.has(elem, Decoration::Block) {
                for (i, kid) in kids.iter().enumerate() {
                    let buffer = buffer.map(|b| b + i as u32);
                    self.note_stride(buffer, stride)?;
                    self.xfb_walk(elem, kid, At { offset, buffer }, 0)?;
                }
                return Ok(());
            }
        }
        self.note_stride(buffer, stride)?;
        self.xfb_walk(ty, tree, At { offset, buffer }, 0)
    }

    /// The shader's transform feedback outputs: the recorded leaves that are written out.
    pub(super) fn xfb_info(&self) -> Result<Option<ir::XfbInfo>, CompileError> {
        if !self.xfb_mode {
            return Ok(None);
        }
        let mut info = ir::XfbInfo {
            slots: Vec::new(),
            strides: self.xfb_strides,
        };
        for leaf in &self.xfb_leaves {
            // A cull distance is written twice: as the cull test's flag and as the varying
            // with its value; the value is what transform feedback captures.
            let Some((_, target)) = self.outputs.iter().find(|(v, t)| {
                *v == leaf.var && !matches!(t, super::stage_io::OutTarget::CullFlag { .. })
            }) else {
                continue;
            };
            let source = match *target {
                super::stage_io::OutTarget::Location {
                    location,
                    component,
                } => ir::XfbSource::Location {
                    location,
                    component,
                },
                super::stage_io::OutTarget::Builtin(b) => ir::XfbSource::Builtin(b),
                super::stage_io::OutTarget::SecondBlendSource { .. } => continue,
                // Only the cull test's flag leaves the vertex shader, not the distance.
                super::stage_io::OutTarget::CullFlag { .. } => {
                    return Err(CompileError::Unsupported(
                        "transform feedback of gl_CullDistance".into(),
                    ))
                }
            };
            info.slots.push(ir::XfbSlot {
                source,
                lanes: self.sh.var_types[leaf.var.0 as usize].lanes,
                buffer: leaf.buffer,
                offset: leaf.offset,
            });
        }
        Ok(Some(info))
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{OutputBuiltin, XfbSlot, XfbSource};
    use crate::{
        compile_graphics_pipeline, FragmentState, GraphicsPipelineRequest, ResourceLayout,
        ShaderRequest, Target, VertexInputLayout,
    };

    /// glslangValidator -V of:
    /// ```glsl
    /// #version 450
    /// layout(location = 0, xfb_buffer = 1, xfb_offset = 4, xfb_stride = 24) out Pair { vec2 a; float b; } pair[2];
    /// out gl_PerVertex { layout(xfb_buffer = 0, xfb_offset = 16, xfb_stride = 32) vec4 gl_Position; layout(xfb_buffer = 0, xfb_offset = 0) float gl_PointSize; };
    /// void main() {
    ///     pair[0].a = vec2(1.0, 2.0); pair[0].b = 3.0;
    ///     pair[1].a = vec2(4.0, 5.0); pair[1].b = 6.0;
    ///     gl_Position = vec4(0.0); gl_PointSize = 1.0;
    /// }
    /// ```
    #[rustfmt::skip]
    const BLOCKS: [u32; 311] = [
    0x07230203, 0x00010000, 0x0008000b, 0x00000028, 0x00000000, 0x00020011, 0x00000001, 0x00020011, 0x00000035, 0x0006000b,
    0x00000001, 0x4c534c47, 0x6474732e, 0x3035342e, 0x00000000, 0x0003000e, 0x00000000, 0x00000001, 0x0007000f, 0x00000000,
    0x00000004, 0x6e69616d, 0x00000000, 0x0000000d, 0x00000022, 0x00030010, 0x00000004, 0x0000000b, 0x00030003, 0x00000002,
    0x000001c2, 0x00040005, 0x00000004, 0x6e69616d, 0x00000000, 0x00040005, 0x00000008, 0x72696150, 0x00000000, 0x00040006,
    0x00000008, 0x00000000, 0x00000061, 0x00040006, 0x00000008, 0x00000001, 0x00000062, 0x00040005, 0x0000000d, 0x72696170,
    0x00000000, 0x00060005, 0x00000020, 0x505f6c67, 0x65567265, 0x78657472, 0x00000000, 0x00060006, 0x00000020, 0x00000000,
    0x505f6c67, 0x7469736f, 0x006e6f69, 0x00070006, 0x00000020, 0x00000001, 0x505f6c67, 0x746e696f, 0x657a6953, 0x00000000,
    0x00030005, 0x00000022, 0x00000000, 0x00050048, 0x00000008, 0x00000000, 0x00000023, 0x00000004, 0x00050048, 0x00000008,
    0x00000001, 0x00000023, 0x0000000c, 0x00030047, 0x00000008, 0x00000002, 0x00040047, 0x0000000d, 0x0000001e, 0x00000000,
    0x00040047, 0x0000000d, 0x00000024, 0x00000001, 0x00040047, 0x0000000d, 0x00000025, 0x00000018, 0x00050048, 0x00000020,
    0x00000000, 0x00000023, 0x00000010, 0x00050048, 0x00000020, 0x00000000, 0x0000000b, 0x00000000, 0x00050048, 0x00000020,
    0x00000001, 0x00000023, 0x00000000, 0x00050048, 0x00000020, 0x00000001, 0x0000000b, 0x00000001, 0x00030047, 0x00000020,
    0x00000002, 0x00040047, 0x00000022, 0x00000024, 0x00000000, 0x00040047, 0x00000022, 0x00000025, 0x00000020, 0x00020013,
    0x00000002, 0x00030021, 0x00000003, 0x00000002, 0x00030016, 0x00000006, 0x00000020, 0x00040017, 0x00000007, 0x00000006,
    0x00000002, 0x0004001e, 0x00000008, 0x00000007, 0x00000006, 0x00040015, 0x00000009, 0x00000020, 0x00000000, 0x0004002b,
    0x00000009, 0x0000000a, 0x00000002, 0x0004001c, 0x0000000b, 0x00000008, 0x0000000a, 0x00040020, 0x0000000c, 0x00000003,
    0x0000000b, 0x0004003b, 0x0000000c, 0x0000000d, 0x00000003, 0x00040015, 0x0000000e, 0x00000020, 0x00000001, 0x0004002b,
    0x0000000e, 0x0000000f, 0x00000000, 0x0004002b, 0x00000006, 0x00000010, 0x3f800000, 0x0004002b, 0x00000006, 0x00000011,
    0x40000000, 0x0005002c, 0x00000007, 0x00000012, 0x00000010, 0x00000011, 0x00040020, 0x00000013, 0x00000003, 0x00000007,
    0x0004002b, 0x0000000e, 0x00000015, 0x00000001, 0x0004002b, 0x00000006, 0x00000016, 0x40400000, 0x00040020, 0x00000017,
    0x00000003, 0x00000006, 0x0004002b, 0x00000006, 0x00000019, 0x40800000, 0x0004002b, 0x00000006, 0x0000001a, 0x40a00000,
    0x0005002c, 0x00000007, 0x0000001b, 0x00000019, 0x0000001a, 0x0004002b, 0x00000006, 0x0000001d, 0x40c00000, 0x00040017,
    0x0000001f, 0x00000006, 0x00000004, 0x0004001e, 0x00000020, 0x0000001f, 0x00000006, 0x00040020, 0x00000021, 0x00000003,
    0x00000020, 0x0004003b, 0x00000021, 0x00000022, 0x00000003, 0x0004002b, 0x00000006, 0x00000023, 0x00000000, 0x0007002c,
    0x0000001f, 0x00000024, 0x00000023, 0x00000023, 0x00000023, 0x00000023, 0x00040020, 0x00000025, 0x00000003, 0x0000001f,
    0x00050036, 0x00000002, 0x00000004, 0x00000000, 0x00000003, 0x000200f8, 0x00000005, 0x00060041, 0x00000013, 0x00000014,
    0x0000000d, 0x0000000f, 0x0000000f, 0x0003003e, 0x00000014, 0x00000012, 0x00060041, 0x00000017, 0x00000018, 0x0000000d,
    0x0000000f, 0x00000015, 0x0003003e, 0x00000018, 0x00000016, 0x00060041, 0x00000013, 0x0000001c, 0x0000000d, 0x00000015,
    0x0000000f, 0x0003003e, 0x0000001c, 0x0000001b, 0x00060041, 0x00000017, 0x0000001e, 0x0000000d, 0x00000015, 0x00000015,
    0x0003003e, 0x0000001e, 0x0000001d, 0x00050041, 0x00000025, 0x00000026, 0x00000022, 0x0000000f, 0x0003003e, 0x00000026,
    0x00000024, 0x00050041, 0x00000017, 0x00000027, 0x00000022, 0x00000015, 0x0003003e, 0x00000027, 0x00000010, 0x000100fd,
    0x00010038,
    ];

    fn request(layout: &ResourceLayout) -> ShaderRequest<'_> {
        ShaderRequest {
            spirv: &BLOCKS,
            entry_point: "main",
            stage: crate::ir::Stage::Vertex,
            specialization: &[],
            layout,
            target: Target::G13,
        }
    }

    #[test]
    fn block_members_builtins_and_arrayed_blocks_are_captured_where_decorated() {
        let layout = ResourceLayout::default();
        let g = crate::translate_graphics(&request(&layout)).unwrap();
        let info = g.xfb.expect("the Xfb execution mode");
        // Each element of the arrayed block goes to its own buffer, from XfbBuffer 1 on.
        assert_eq!(info.strides, [32, 24, 24, 0]);
        let slot = |source, lanes, buffer, offset| XfbSlot {
            source,
            lanes,
            buffer,
            offset,
        };
        let at = |location| XfbSource::Location {
            location,
            component: 0,
        };
        let mut want = vec![
            slot(at(0), 2, 1, 4),
            slot(at(1), 1, 1, 12),
            slot(at(2), 2, 2, 4),
            slot(at(3), 1, 2, 12),
            slot(XfbSource::Builtin(OutputBuiltin::Position), 4, 0, 16),
            slot(XfbSource::Builtin(OutputBuiltin::PointSize), 1, 0, 0),
        ];
        let mut got = info.slots.clone();
        let key = |s: &XfbSlot| (s.buffer, s.offset);
        want.sort_by_key(key);
        got.sort_by_key(key);
        assert_eq!(got, want);
    }

    #[test]
    fn a_pipeline_with_captured_outputs_gets_a_capture_variant() {
        let layout = ResourceLayout::default();
        let vertex_input = VertexInputLayout::default();
        let fragment_state = FragmentState {
            samples: 1,
            ..Default::default()
        };
        let b = compile_graphics_pipeline(&GraphicsPipelineRequest {
            vertex: request(&layout),
            fragment: None,
            vertex_input: &vertex_input,
            fragment_state: &fragment_state,
            geometry: None,
        })
        .unwrap();
        let x = b.xfb.expect("a capture variant");
        assert_eq!(x.strides, [32, 24, 24, 0]);
        assert_eq!(x.vertex.uniform_halves, crate::abi::XFB_ROOT_TABLE_SIZE / 2);
        assert_ne!(x.vertex.code, b.vertex.code);
    }
}
