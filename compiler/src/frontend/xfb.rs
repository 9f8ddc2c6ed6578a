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
    pub(super) fn xfb_info(&self) -> Option<ir::XfbInfo> {
        if !self.xfb_mode {
            return None;
        }
        let mut info = ir::XfbInfo {
            slots: Vec::new(),
            strides: self.xfb_strides,
        };
        for leaf in &self.xfb_leaves {
            let Some((_, target)) = self.outputs.iter().find(|(v, _)| *v == leaf.var) else {
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
            };
            info.slots.push(ir::XfbSlot {
                source,
                lanes: self.sh.var_types[leaf.var.0 as usize].lanes,
                buffer: leaf.buffer,
                offset: leaf.offset,
            });
        }
        Some(info)
    }
}
