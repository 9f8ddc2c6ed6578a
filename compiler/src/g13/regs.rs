//! Which registers an instruction reads and writes, so every pass walks operands the same way.

use hw::isa::*;

/// How an instruction touches a register operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    Use,
    Def,
}

/// Calls `f` on every general-purpose register operand of `i` with its access and its width
/// in halves (memory instructions move several registers at once). Uses come before defs, so
/// a caller that checks reads and then applies writes sees them in execution order. Uniform
/// registers are not visited.
pub(crate) fn visit(i: &mut Instr, f: &mut dyn FnMut(&mut Reg, Access, u16)) {
    fn op(o: &mut Operand, f: &mut dyn FnMut(&mut Reg, Access, u16)) {
        if let Operand::Reg(r) = o {
            let h = r.size.halves();
            f(r, Access::Use, h);
        }
    }
    fn dst(d: &mut Dst, f: &mut dyn FnMut(&mut Reg, Access, u16)) {
        let h = d.reg.size.halves();
        f(&mut d.reg, Access::Def, h);
    }
    fn index(x: &mut Index, f: &mut dyn FnMut(&mut Reg, Access, u16)) {
        if let Index::Reg(r) = x {
            let h = r.size.halves();
            f(r, Access::Use, h);
        }
    }
    fn data(store: bool, r: &mut Reg, mask: u8, f: &mut dyn FnMut(&mut Reg, Access, u16)) {
        let h = r.size.halves() * mask.count_ones() as u16;
        f(r, if store { Access::Use } else { Access::Def }, h);
    }
    fn small(s: &mut Small, f: &mut dyn FnMut(&mut Reg, Access, u16)) {
        if let Small::Reg(r) = s {
            f(r, Access::Use, 1);
        }
    }
    fn tex_index(t: &mut TexIndex, f: &mut dyn FnMut(&mut Reg, Access, u16)) {
        match t {
            TexIndex::Imm(_) => {}
            TexIndex::Reg(r) => f(r, Access::Use, 1),
            TexIndex::Bindless { index, .. } => f(index, Access::Use, 2),
        }
    }
    match i {
        Instr::MovImm(m) => dst(&mut m.dst, f),
        Instr::GetSr(g) => dst(&mut g.dst, f),
        Instr::IAdd(x) => {
            op(&mut x.a.op, f);
            op(&mut x.b.op, f);
            dst(&mut x.dst, f);
        }
        Instr::IMAdd(x) => {
            op(&mut x.a.op, f);
            op(&mut x.b.op, f);
            op(&mut x.c.op, f);
            dst(&mut x.dst, f);
        }
        Instr::Bitop(x) => {
            op(&mut x.a.op, f);
            op(&mut x.b.op, f);
            dst(&mut x.dst, f);
        }
        Instr::Shift(x) => {
            op(&mut x.a.op, f);
            op(&mut x.b.op, f);
            op(&mut x.c.op, f);
            dst(&mut x.dst, f);
        }
        Instr::IUnary(x) => {
            op(&mut x.src.op, f);
            dst(&mut x.dst, f);
        }
        Instr::Convert(x) => {
            op(&mut x.src.op, f);
            dst(&mut x.dst, f);
        }
        Instr::FArith(x) => {
            op(&mut x.a.op, f);
            op(&mut x.b.op, f);
            if x.op == FOp::MAdd {
                op(&mut x.c.op, f);
            }
            dst(&mut x.dst, f);
        }
        Instr::FUnary(x) => {
            op(&mut x.src.op, f);
            dst(&mut x.dst, f);
        }
        Instr::CmpSel(x) => {
            op(&mut x.a, f);
            op(&mut x.b, f);
            op(&mut x.x, f);
            op(&mut x.y, f);
            dst(&mut x.dst, f);
        }
        Instr::Ballot(x) => {
            op(&mut x.a, f);
            op(&mut x.b, f);
            dst(&mut x.dst, f);
        }
        Instr::SimdReduce(x) => {
            op(&mut x.a, f);
            dst(&mut x.dst, f);
        }
        Instr::Shuffle(x) => {
            op(&mut x.a, f);
            op(&mut x.index, f);
            dst(&mut x.dst, f);
        }
        Instr::ExecCmp(x) => {
            op(&mut x.a, f);
            op(&mut x.b, f);
        }
        Instr::DeviceMem(m) => {
            op(&mut m.base, f);
            index(&mut m.index, f);
            data(m.store, &mut m.reg, m.mask, f);
        }
        Instr::ThreadgroupMem(m) => {
            op(&mut m.base, f);
            index(&mut m.index, f);
            data(m.store, &mut m.reg, m.mask, f);
        }
        Instr::StackMem(m) => {
            index(&mut m.offset, f);
            data(m.store, &mut m.reg, m.mask, f);
        }
        Instr::UniformStore(u) => {
            index(&mut u.index, f);
            data(true, &mut u.reg, u.mask, f);
        }
        Instr::Atomic(a) => {
            op(&mut a.base, f);
            index(&mut a.index, f);
            let h = a.src.size.halves();
            f(&mut a.src, Access::Use, h);
            if let Some(d) = &mut a.dst {
                let h = d.size.halves();
                f(d, Access::Def, h);
            }
        }
        Instr::ThreadgroupAtomic(a) => {
            op(&mut a.base, f);
            index(&mut a.index, f);
            let h = a.src.size.halves();
            f(&mut a.src, Access::Use, h);
            if let Some(d) = &mut a.dst {
                let h = d.size.halves();
                f(d, Access::Def, h);
            }
        }
        // Graphics instructions: the back end does not emit them yet (vertex and fragment
        // shaders are refused before selection), so these describe their operands for the
        // verifier and for the graphics work to come.
        Instr::Iter(x) => {
            if let Interpolation::Sample(s) = &mut x.interp {
                small(s, f);
            }
            let h = x.dst.size.halves() * u16::from(x.channels);
            f(&mut x.dst, Access::Def, h);
        }
        // Three coefficients (A, B, C) of 32 bits per channel.
        Instr::LdCf(x) => f(&mut x.dst, Access::Def, 6 * u16::from(x.channels)),
        Instr::StVary(x) => {
            small(&mut x.index, f);
            let h = x.src.size.halves();
            f(&mut x.src, Access::Use, h);
        }
        Instr::TileMem(x) => {
            small(&mut x.samples, f);
            if let Some(c) = &mut x.coords {
                f(c, Access::Use, 2);
            }
            data(x.store, &mut x.reg, x.mask, f);
        }
        Instr::SampleMask(x) => {
            small(&mut x.targets, f);
            small(&mut x.live, f);
        }
        Instr::ZsEmit(x) => {
            small(&mut x.samples, f);
            let h = if x.depth && x.stencil {
                4
            } else if x.depth {
                2
            } else {
                1
            };
            f(&mut x.src, Access::Use, h);
        }
        Instr::Texture(x) => {
            // Gradients are a run of registers, read whole.
            match (x.gradient_halves(), &mut x.lod) {
                (Some(h), Operand::Reg(r)) => f(r, Access::Use, h),
                _ => op(&mut x.lod, f),
            }
            tex_index(&mut x.texture, f);
            small(&mut x.sampler, f);
            f(&mut x.coords, Access::Use, coord_halves(x.dim));
            if let Some(e) = &mut x.extra {
                // The depth reference, then the offsets: a word each.
                f(
                    e,
                    Access::Use,
                    2 * (u16::from(x.shadow) + u16::from(x.offset)).max(1),
                );
            }
            let h = x.dst.size.halves() * x.mask.count_ones() as u16;
            f(&mut x.dst, Access::Def, h);
        }
        Instr::ImageWrite(x) => {
            small(&mut x.lod, f);
            tex_index(&mut x.texture, f);
            f(&mut x.coords, Access::Use, coord_halves(x.dim));
            let h = 4 * x.src.size.halves();
            f(&mut x.src, Access::Use, h);
        }
        Instr::BlockImageStore(x) => {
            tex_index(&mut x.texture, f);
            f(&mut x.offset, Access::Use, 2);
        }
        Instr::PopExec(_)
        | Instr::Jump(_)
        | Instr::Wait(_)
        | Instr::ThreadgroupBarrier
        | Instr::MemoryBarrier
        | Instr::Stop => {}
    }
}

/// Halves of a texture coordinate run: one 32-bit component per coordinate, plus one for the
/// array layer or sample index. Provisional until the back end emits texture instructions.
fn coord_halves(dim: TexDim) -> u16 {
    2 * match dim {
        TexDim::D1 => 1,
        TexDim::D1Array | TexDim::D2 => 2,
        TexDim::D2Array | TexDim::D2Ms | TexDim::D3 | TexDim::Cube => 3,
        TexDim::CubeArray | TexDim::D2MsArray => 4,
    }
}

/// Whether the instruction reads or writes `r0l` implicitly (the exec-mask instructions).
pub(crate) fn touches_nesting(i: &Instr) -> bool {
    matches!(i, Instr::ExecCmp(_) | Instr::PopExec(_))
}

/// Sets the scoreboard slot of an asynchronous memory instruction.
pub(crate) fn set_wait_slot(i: &mut Instr, slot: u8) {
    match i {
        Instr::DeviceMem(m) => m.wait_slot = slot,
        Instr::StackMem(m) => m.wait_slot = slot,
        Instr::Atomic(a) => a.wait_slot = slot,
        Instr::Texture(t) => t.wait_slot = slot,
        _ => {}
    }
}
