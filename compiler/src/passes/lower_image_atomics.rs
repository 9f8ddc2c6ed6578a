//! Image atomics become global atomics at the texel's address (docs/render-abi.md 7.2): G13
//! has no atomic image instruction.
//!
//! The address comes from the PBE descriptor at `abi::STORAGE_PBE_OFFSET` of the binding
//! element, read from set memory:
//! * storage images: `Buffer` + level offset + layer x layer stride + the twiddled offset of
//!   (x, y) in the level (its tile in row-major order, then Morton order inside the tile),
//!   from the software words `hw::g13::image_desc::atomic` defines; bounded by the level's
//!   extent (3D: the level's depth) and by a twiddled layout (a null descriptor is not);
//! * storage texel buffers: `Buffer` + 4 x element, bounded by the element count.
//!
//! An access outside the bounds does nothing and gives 0: the access sits in an `If`, its
//! result flowing out through a Var, as `lower_descriptors` checks buffer accesses.
//!
//! The 64-bit base is the high address word shifted up by 32 plus the low one
//! (`Shl(Conv(UToU, hi), 32)`), an addressing form the back ends take. Offsets are 32-bit:
//! images are smaller than 4 GiB (`maxResourceSize`).
//!
//! Runs after `lower_descriptors` (its buffer bounds checks must not see these accesses) and
//! `lower_textures`, before `scalarize`.

use hw::g13::control::bits::{Field, Modifier};
use hw::g13::control::descriptors::{image as common, pbe, Layout as HwLayout};
use hw::g13::image_desc::atomic as sw;

use super::lower_textures::{element_offset, Descriptor};
use super::{rewrite, Out};
use crate::abi;
use crate::ir::{
    AtomicTarget, BinOp, CmpOp, Constant, ConvOp, ImageAtomic, ImageAtomicOp, ImageDim, Inst, Node,
    Op, Shader, Space, Type, Value,
};
use crate::{CompileError, DescriptorKind, ResourceLayout};

// The base address is read as a low word and four more bits, in units of 16 bytes.
const _: () = assert!(
    pbe::BUFFER.start.is_multiple_of(32)
        && pbe::BUFFER.width > 32
        && pbe::BUFFER.width <= 60
        && matches!(pbe::BUFFER.modifier, Modifier::Shr(4))
);
const BUFFER_LOW: Field = Field::new("buffer (low word)", pbe::BUFFER.start, 32);
const BUFFER_HIGH: Field = Field::new(
    "buffer (high bits)",
    pbe::BUFFER.start + 32,
    pbe::BUFFER.width - 32,
);
const BUFFER_SHIFT: u32 = 4;

struct E<'a> {
    sh: &'a mut Shader,
    out: &'a mut Out,
}

impl E<'_> {
    fn c(&mut self, v: u32) -> Value {
        self.out
            .def(self.sh, Type::I32, Op::Const(Constant(vec![u64::from(v)])))
    }
    fn b(&mut self, op: BinOp, a: Value, b: Value) -> Value {
        let t = self.sh.ty(a);
        self.out.def(self.sh, t, Op::Binary(op, a, b))
    }
    fn bc(&mut self, op: BinOp, a: Value, k: u32) -> Value {
        let k = self.c(k);
        self.b(op, a, k)
    }
    fn lt(&mut self, a: Value, b: Value) -> Value {
        self.out.def(self.sh, Type::BOOL, Op::Cmp(CmpOp::ULt, a, b))
    }
    fn field(&mut self, d: &mut Descriptor, f: Field) -> Result<Value, CompileError> {
        d.field(self.sh, self.out, f)
    }
    /// A field's value: shifted back up for `Shr` fields.
    fn value(&mut self, d: &mut Descriptor, f: Field) -> Result<Value, CompileError> {
        let raw = self.field(d, f)?;
        Ok(match f.modifier {
            Modifier::Shr(n) => self.bc(BinOp::Shl, raw, n),
            _ => raw,
        })
    }
    /// A field stored minus one, as the count.
    fn count(&mut self, d: &mut Descriptor, f: Field) -> Result<Value, CompileError> {
        let m1 = self.field(d, f)?;
        Ok(self.bc(BinOp::IAdd, m1, 1))
    }
    /// `max(x >> level, 1)`.
    fn minify(&mut self, x: Value, level: Value) -> Value {
        let s = self.b(BinOp::UShr, x, level);
        self.bc(BinOp::UMax, s, 1)
    }
    /// The low 8 bits of `v` spread to the even bit positions (tiles are at most 128 wide).
    fn spread(&mut self, v: Value) -> Value {
        let mut v = v;
        for (shift, mask) in [(4, 0x0f0f), (2, 0x3333), (1, 0x5555)] {
            let s = self.bc(BinOp::Shl, v, shift);
            let o = self.b(BinOp::Or, v, s);
            v = self.bc(BinOp::And, o, mask);
        }
        v
    }

    /// The 64-bit `Buffer` address of the PBE.
    fn base(&mut self, d: &mut Descriptor) -> Result<Value, CompileError> {
        let low = self.field(d, BUFFER_LOW)?;
        let high = self.field(d, BUFFER_HIGH)?;
        let lo = self.bc(BinOp::Shl, low, BUFFER_SHIFT);
        let carried = self.bc(BinOp::UShr, low, 32 - BUFFER_SHIFT);
        let up = self.bc(BinOp::Shl, high, BUFFER_SHIFT);
        let hi = self.b(BinOp::Or, up, carried);
        let hi64 = self.out.def(self.sh, Type::I64, Op::Conv(ConvOp::UToU, hi));
        let k32 = self.c(32);
        let hi64 = self
            .out
            .def(self.sh, Type::I64, Op::Binary(BinOp::Shl, hi64, k32));
        let lo64 = self.out.def(self.sh, Type::I64, Op::Conv(ConvOp::UToU, lo));
        Ok(self.b(BinOp::IAdd, hi64, lo64))
    }

    /// (in bounds, byte offset from `Buffer`) of a storage image texel.
    fn image_texel(
        &mut self,
        d: &mut Descriptor,
        dim: ImageDim,
        arrayed: bool,
        coords: &[Value],
    ) -> Result<(Value, Value), CompileError> {
        let zero = self.c(0);
        let at = |i: usize| coords.get(i).copied().unwrap_or(zero);
        let x = at(0);
        let y = if dim == ImageDim::D1 { zero } else { at(1) };
        let layer = match (dim, arrayed) {
            (ImageDim::D3 | ImageDim::Cube, _) => at(2),
            (ImageDim::D1, true) => at(1),
            (ImageDim::D2, true) => at(2),
            _ => zero,
        };
        let level = self.field(d, pbe::LEVEL)?;
        let w0 = self.count(d, pbe::WIDTH)?;
        let h0 = self.count(d, pbe::HEIGHT)?;
        let w = self.minify(w0, level);
        let h = self.minify(h0, level);
        let layers = self.count(d, pbe::LAYERS)?;
        let depth = if dim == ImageDim::D3 {
            self.minify(layers, level)
        } else {
            layers
        };
        let layout = self.field(d, common::LAYOUT)?;
        let twiddled = self.c(HwLayout::Twiddled.bits() as u32);
        let mut ok = self
            .out
            .def(self.sh, Type::BOOL, Op::Cmp(CmpOp::IEq, layout, twiddled));
        for (c, n) in [(x, w), (y, h), (layer, depth)] {
            let inside = self.lt(c, n);
            ok = self.b(BinOp::And, ok, inside);
        }
        let tw = self.field(d, sw::TILE_WIDTH_LOG2)?;
        let th = self.field(d, sw::TILE_HEIGHT_LOG2)?;
        let one = self.c(1);
        let tile_w = self.b(BinOp::Shl, one, tw);
        let tile_h = self.b(BinOp::Shl, one, th);
        // Tiles per row: the level's width rounded up to whole tiles.
        let wm1 = self.bc(BinOp::ISub, tile_w, 1);
        let padded = self.b(BinOp::IAdd, w, wm1);
        let per_row = self.b(BinOp::UShr, padded, tw);
        let row = self.b(BinOp::UShr, y, th);
        let col = self.b(BinOp::UShr, x, tw);
        let row_start = self.b(BinOp::IMul, row, per_row);
        let tile = self.b(BinOp::IAdd, row_start, col);
        let tile_log2 = self.b(BinOp::IAdd, tw, th);
        let tile_start = self.b(BinOp::Shl, tile, tile_log2);
        let hm1 = self.bc(BinOp::ISub, tile_h, 1);
        let ix = self.b(BinOp::And, x, wm1);
        let iy = self.b(BinOp::And, y, hm1);
        let sx = self.spread(ix);
        let sy = self.spread(iy);
        let sy = self.bc(BinOp::Shl, sy, 1);
        let inner = self.b(BinOp::Or, sx, sy);
        let element = self.b(BinOp::IAdd, tile_start, inner);
        let bytes = self.bc(BinOp::Shl, element, sw::TEXEL_BYTES.trailing_zeros());
        let level_offset = self.value(d, sw::LEVEL_OFFSET)?;
        let stride = self.value(d, sw::LAYER_STRIDE)?;
        let layer_offset = self.b(BinOp::IMul, layer, stride);
        let off = self.b(BinOp::IAdd, level_offset, layer_offset);
        Ok((ok, self.b(BinOp::IAdd, off, bytes)))
    }

    /// (in bounds, byte offset from `Buffer`) of a storage texel buffer element.
    fn buffer_element(
        &mut self,
        d: &mut Descriptor,
        element: Value,
    ) -> Result<(Value, Value), CompileError> {
        let count = self.field(d, sw::BUFFER_ELEMENTS)?;
        let ok = self.lt(element, count);
        let off = self.bc(BinOp::Shl, element, sw::TEXEL_BYTES.trailing_zeros());
        Ok((ok, off))
    }
}

fn lower_one(
    sh: &mut Shader,
    out: &mut Out,
    layout: &ResourceLayout,
    dst: Option<Value>,
    a: &ImageAtomic,
) -> Result<(), CompileError> {
    let kinds: &[DescriptorKind] = match a.target {
        AtomicTarget::Image { .. } => &[DescriptorKind::StorageImage],
        AtomicTarget::Buffer => &[DescriptorKind::StorageTexelBuffer],
    };
    let offset = element_offset(sh, out, layout, a.image, kinds, |_| abi::STORAGE_PBE_OFFSET)?;
    let mut d = Descriptor {
        set: a.image.set,
        offset,
        words: [None; 6],
    };
    let mut e = E { sh, out };
    let (ok, off) = match a.target {
        AtomicTarget::Image { dim, arrayed } => e.image_texel(&mut d, dim, arrayed, &a.coords)?,
        AtomicTarget::Buffer => {
            let element = *a.coords.first().ok_or_else(|| {
                CompileError::Internal("texel buffer atomic without an element".into())
            })?;
            e.buffer_element(&mut d, element)?
        }
    };
    let base = e.base(&mut d)?;
    let off64 = e.out.def(e.sh, Type::I64, Op::Conv(ConvOp::UToU, off));
    let addr = e.b(BinOp::IAdd, base, off64);
    let operand = |v: Option<Value>| {
        v.ok_or_else(|| CompileError::Internal(format!("image atomic without an operand: {a:?}")))
    };
    let access = match a.op {
        ImageAtomicOp::Load => Op::Load {
            space: Space::Global,
            addr,
            align: 4,
        },
        ImageAtomicOp::Store => Op::Store {
            space: Space::Global,
            addr,
            value: operand(a.value)?,
            align: 4,
        },
        ImageAtomicOp::Atomic(op) => Op::Atomic {
            space: Space::Global,
            op,
            addr,
            value: operand(a.value)?,
            cmp: a.cmp,
        },
    };
    let Some(dst) = dst else {
        e.out.node(Node::If {
            cond: ok,
            then_body: vec![Node::Block(vec![Inst {
                dst: None,
                op: access,
            }])],
            else_body: vec![],
        });
        return Ok(());
    };
    // Out of bounds: 0.
    let var = e.sh.new_var(Type::I32);
    let zero = e.c(0);
    e.out.effect(Op::StoreVar(var, zero));
    let inner = e.sh.new_value(Type::I32);
    e.out.node(Node::If {
        cond: ok,
        then_body: vec![Node::Block(vec![
            Inst {
                dst: Some(inner),
                op: access,
            },
            Inst {
                dst: None,
                op: Op::StoreVar(var, inner),
            },
        ])],
        else_body: vec![],
    });
    e.out.inst(Inst {
        dst: Some(dst),
        op: Op::LoadVar(var),
    });
    Ok(())
}

pub fn lower_image_atomics(sh: &mut Shader, layout: &ResourceLayout) -> Result<(), CompileError> {
    rewrite(sh, &mut |sh, inst, out| {
        let Op::ImageAtomic(a) = &inst.op else {
            out.inst(inst);
            return Ok(());
        };
        let a = (**a).clone();
        lower_one(sh, out, layout, inst.dst, &a)
    })
}
