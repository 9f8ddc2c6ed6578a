//! Texel buffers (`ImageDim::Buffer`) become 2D texture operations on their buffer view's
//! linear texture (docs/render-abi.md section 7.1).
//!
//! * Element `i` is texel (`i mod 1024`, `i / 1024`)
//!   (`hw::g13::image_desc::buffer::TEXEL_BUFFER_WIDTH`).
//! * The element count is the descriptor's software word (`buffer::ELEMENT_COUNT`, in the
//!   texture descriptor and in the PBE descriptor alike). An element at or past it is
//!   replaced by element `u32::MAX`, whose row lies past the descriptors' 16384-row limit:
//!   the texture unit reads it as the zero texel and the PBE drops a store to it, so no
//!   memory past the view is touched and no control flow is needed. (Texels between the
//!   count and the end of the texture's last row are inside the texture, which is why the
//!   shader has to check.)
//! * `OpImageQuerySize` is the count (0 for a null descriptor).
//!
//! The rewritten operations name their descriptors bindlessly, so `lower_textures`, which
//! runs next, leaves them alone. Runs after `lower_descriptors`, like `lower_textures`.

use hw::g13::image_desc::buffer::{ELEMENT_COUNT, TEXEL_BUFFER_WIDTH};

use crate::abi;
use crate::ir::{
    BinOp, CmpOp, ImageDim, Inst, Op, Shader, Tex, TexLod, TexOp, TexSource, Type, Value,
};
use crate::{CompileError, DescriptorKind, ResourceLayout};

use super::lower_textures::{bin, element_offset, konst, set_word};
use super::{rewrite, Out};

fn invalid(what: impl Into<String>) -> CompileError {
    CompileError::InvalidSpirv(what.into())
}

/// The element count of the descriptor at `offset` of set `set`.
fn element_count(sh: &mut Shader, out: &mut Out, set: u32, offset: Value) -> Value {
    // The count is a whole 32-bit word of the descriptor.
    const _: () = assert!(ELEMENT_COUNT.start.is_multiple_of(32) && ELEMENT_COUNT.width == 32);
    set_word(sh, out, set, offset, ELEMENT_COUNT.start / 8)
}

/// (x, y) of element `i` of a view of `count` elements; out-of-range elements land past
/// the texture.
fn texel_coords(sh: &mut Shader, out: &mut Out, i: Value, count: Value) -> [Value; 2] {
    let inside = out.def(sh, Type::BOOL, Op::Cmp(CmpOp::ULt, i, count));
    let outside = konst(sh, out, u32::MAX);
    let i = out.def(sh, Type::I32, Op::Select(inside, i, outside));
    let mask = konst(sh, out, TEXEL_BUFFER_WIDTH - 1);
    let x = bin(sh, out, BinOp::And, i, mask);
    let shift = konst(sh, out, TEXEL_BUFFER_WIDTH.trailing_zeros());
    let y = bin(sh, out, BinOp::UShr, i, shift);
    [x, y]
}

fn element(coords: &[Value]) -> Result<Value, CompileError> {
    match coords {
        [i] => Ok(*i),
        _ => Err(invalid("texel buffer access with more than one coordinate")),
    }
}

pub fn lower_texel_buffers(sh: &mut Shader, layout: &ResourceLayout) -> Result<(), CompileError> {
    rewrite(sh, &mut |sh, inst, out| {
        match &inst.op {
            Op::ImageStore(w) if w.dim == ImageDim::Buffer => {
                let TexSource::Binding(d) = w.texture else {
                    out.inst(inst);
                    return Ok(());
                };
                let kinds = [DescriptorKind::StorageTexelBuffer];
                let pbe = |_| abi::STORAGE_PBE_OFFSET;
                let offset = element_offset(sh, out, layout, d, &kinds, pbe)?;
                let count = element_count(sh, out, d.set, offset);
                let mut w = (**w).clone();
                w.coords = texel_coords(sh, out, element(&w.coords)?, count).to_vec();
                w.dim = ImageDim::D2;
                w.texture = TexSource::Bindless { set: d.set, offset };
                out.effect(Op::ImageStore(Box::new(w)));
            }
            Op::Texture(t) if t.dim == ImageDim::Buffer => {
                let TexSource::Binding(d) = t.texture else {
                    out.inst(inst);
                    return Ok(());
                };
                let dst = inst.dst.ok_or_else(|| {
                    CompileError::Internal("texture operation without a result".into())
                })?;
                let kinds: &[DescriptorKind] = match t.op {
                    TexOp::Fetch => &[DescriptorKind::UniformTexelBuffer],
                    TexOp::ImageRead => &[DescriptorKind::StorageTexelBuffer],
                    TexOp::QuerySize => &[
                        DescriptorKind::UniformTexelBuffer,
                        DescriptorKind::StorageTexelBuffer,
                    ],
                    op => return Err(invalid(format!("{op:?} of a texel buffer"))),
                };
                let offset = element_offset(sh, out, layout, d, kinds, |_| 0)?;
                let count = element_count(sh, out, d.set, offset);
                if t.op == TexOp::QuerySize {
                    out.inst(Inst {
                        dst: Some(dst),
                        op: Op::Copy(count),
                    });
                    return Ok(());
                }
                let i = element(&t.coords)?;
                let t = Tex {
                    texture: TexSource::Bindless { set: d.set, offset },
                    dim: ImageDim::D2,
                    coords: texel_coords(sh, out, i, count).to_vec(),
                    lod: TexLod::Lod(konst(sh, out, 0)),
                    ..(**t).clone()
                };
                out.inst(Inst {
                    dst: Some(dst),
                    op: Op::Texture(Box::new(t)),
                });
            }
            _ => out.inst(inst),
        }
        Ok(())
    })
}
