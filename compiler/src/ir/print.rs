//! Text form of the IR for `AGX4_COMPILER_DEBUG=ir` and test failures.

use std::fmt::Write;

use super::{Node, Op, Shader, Value};

fn v(x: Value) -> String {
    format!("%{}", x.0)
}

fn vs(xs: &[Value]) -> String {
    xs.iter().map(|x| v(*x)).collect::<Vec<_>>().join(", ")
}

fn tex_text(t: &super::Tex) -> String {
    use super::{SamplerSource, TexLod, TexSource};
    let mut s = format!("Texture.{:?}.{:?}", t.op, t.dim);
    if t.arrayed {
        s += "Array";
    }
    if t.ms {
        s += "Ms";
    }
    match t.texture {
        TexSource::Binding(d) => {
            let _ = write!(s, " image {}.{}[{}]", d.set, d.binding, v(d.index));
        }
        TexSource::Bindless { set, offset } => {
            let _ = write!(s, " image set {set} + {}", v(offset));
        }
    }
    match t.sampler {
        Some(SamplerSource::Binding(d)) => {
            let _ = write!(s, " sampler {}.{}[{}]", d.set, d.binding, v(d.index));
        }
        Some(SamplerSource::Entry(e)) => {
            let _ = write!(s, " sampler entry {}", v(e));
        }
        None => {}
    }
    if !t.coords.is_empty() {
        let _ = write!(s, " at ({})", vs(&t.coords));
    }
    match &t.lod {
        TexLod::Implicit => {}
        TexLod::Bias(x) => {
            let _ = write!(s, " bias {}", v(*x));
        }
        TexLod::Lod(x) => {
            let _ = write!(s, " lod {}", v(*x));
        }
        TexLod::Grad { dx, dy } => {
            let _ = write!(s, " grad ({}) ({})", vs(dx), vs(dy));
        }
    }
    for (name, x) in [
        ("min_lod", t.min_lod),
        ("dref", t.dref),
        ("offset", t.offset),
        ("sample", t.sample),
    ] {
        if let Some(x) = x {
            let _ = write!(s, " {name} {}", v(x));
        }
    }
    if t.component != 0 {
        let _ = write!(s, " from .{}", t.component);
    }
    s
}

fn op_text(op: &Op) -> String {
    match op {
        Op::Const(c) => format!("const {:x?}", c.0),
        Op::Unary(u, a) => format!("{u:?} {}", v(*a)),
        Op::Binary(b, x, y) => format!("{b:?} {}, {}", v(*x), v(*y)),
        Op::FFma(a, b, c) => format!("FFma {}", vs(&[*a, *b, *c])),
        Op::Cmp(c, x, y) => format!("Cmp.{c:?} {}, {}", v(*x), v(*y)),
        Op::Select(c, a, b) => format!("Select {}", vs(&[*c, *a, *b])),
        Op::Conv(c, a) => format!("Conv.{c:?} {}", v(*a)),
        Op::BitfieldInsert(a, b, c, d) => format!("BitfieldInsert {}", vs(&[*a, *b, *c, *d])),
        Op::UBitfieldExtract(a, b, c) => format!("UBitfieldExtract {}", vs(&[*a, *b, *c])),
        Op::SBitfieldExtract(a, b, c) => format!("SBitfieldExtract {}", vs(&[*a, *b, *c])),
        Op::Vector(xs) => format!("Vector {}", vs(xs)),
        Op::Extract(x, i) => format!("Extract {}.{i}", v(*x)),
        Op::Insert(x, i, y) => format!("Insert {}.{i} = {}", v(*x), v(*y)),
        Op::Copy(x) => format!("Copy {}", v(*x)),
        Op::PhysicalAddress(x) => format!("PhysicalAddress {}", v(*x)),
        Op::LoadVar(var) => format!("LoadVar $%{}", var.0).replace("$%", "$"),
        Op::StoreVar(var, x) => format!("StoreVar ${} = {}", var.0, v(*x)),
        Op::SysVal(s) => format!("SysVal {s:?}"),
        Op::Load { space, addr, align } => format!("Load.{space:?} [{}] align {align}", v(*addr)),
        Op::Store {
            space,
            addr,
            value,
            align,
        } => {
            format!(
                "Store.{space:?} [{}] = {} align {align}",
                v(*addr),
                v(*value)
            )
        }
        Op::Atomic {
            space,
            op,
            addr,
            value,
            cmp,
        } => format!(
            "Atomic.{op:?}.{space:?} [{}], {}{}",
            v(*addr),
            v(*value),
            cmp.map(|c| format!(", cmp {}", v(c))).unwrap_or_default()
        ),
        Op::DescriptorAddress {
            set,
            binding,
            index,
        } => {
            format!(
                "DescriptorAddress set {set} binding {binding} [{}]",
                v(*index)
            )
        }
        Op::DescriptorSize {
            set,
            binding,
            index,
        } => {
            format!("DescriptorSize set {set} binding {binding} [{}]", v(*index))
        }
        Op::WorkgroupBarrier => "WorkgroupBarrier".into(),
        Op::MemoryBarrier => "MemoryBarrier".into(),
        Op::LoadInput {
            location,
            component,
            interp,
        } => format!(
            "LoadInput loc {location}.{component} {:?} {:?}",
            interp.mode, interp.sampling
        ),
        Op::InterpolateInput {
            location,
            component,
            mode,
            at,
        } => {
            let at = match at {
                super::InterpolateAt::Centroid => "centroid".to_string(),
                super::InterpolateAt::Sample(i) => format!("sample {}", v(*i)),
                super::InterpolateAt::Offset(x, y) => format!("offset {}, {}", v(*x), v(*y)),
            };
            format!("InterpolateInput loc {location}.{component} {mode:?} at {at}")
        }
        Op::InputPlaneBits {
            location,
            component,
        } => format!("InputPlaneBits loc {location}.{component}"),
        Op::LoadInputAttachment {
            index,
            component,
            sample,
        } => match sample {
            Some(s) => format!("LoadInputAttachment {index}.{component} sample {}", v(*s)),
            None => format!("LoadInputAttachment {index}.{component}"),
        },
        Op::StoreOutput {
            location,
            component,
            value,
        } => format!("StoreOutput loc {location}.{component} = {}", v(*value)),
        Op::StoreBuiltin {
            builtin,
            component,
            value,
        } => format!("StoreBuiltin {builtin:?}.{component} = {}", v(*value)),
        Op::Discard => "Discard".into(),
        Op::LoadPreamble { offset } => format!("LoadPreamble {offset}"),
        Op::StorePreamble { offset, value } => format!("StorePreamble {offset} = {}", v(*value)),
        Op::LoadPerVertex {
            vertex,
            slot,
            component,
        } => {
            let slot = match slot {
                super::PerVertexSlot::Location(l) => format!("loc {l}"),
                super::PerVertexSlot::Builtin(b) => format!("{b:?}"),
            };
            format!("LoadPerVertex [{}] {slot}.{component}", v(*vertex))
        }
        Op::EmitVertex => "EmitVertex".into(),
        Op::EndPrimitive => "EndPrimitive".into(),
        Op::Texture(t) => tex_text(t),
        Op::ImageStore(w) => {
            let mut s = format!("ImageStore.{:?}", w.dim);
            if w.arrayed {
                s += "Array";
            }
            if w.ms {
                s += "Ms";
            }
            match w.texture {
                super::TexSource::Binding(d) => {
                    let _ = write!(s, " image {}.{}[{}]", d.set, d.binding, v(d.index));
                }
                super::TexSource::Bindless { set, offset } => {
                    let _ = write!(s, " pbe set {set} + {}", v(offset));
                }
            }
            let _ = write!(s, " at ({})", vs(&w.coords));
            if let Some(x) = w.sample {
                let _ = write!(s, " sample {}", v(x));
            }
            let _ = write!(s, " = ({})", vs(&w.texel));
            s
        }
        Op::Ballot(a) => format!("Ballot {}", v(*a)),
        Op::LaneRead(crate::ir::LaneRead::Dynamic(l), a) => {
            format!("LaneRead.Dynamic {} from {}", v(*a), v(*l))
        }
        Op::LaneRead(l, a) => format!("LaneRead.{l:?} {}", v(*a)),
        Op::Reduce(r, a) => format!(
            "Reduce.{:?}.{:?} cluster {} {}",
            r.op,
            r.scan,
            r.cluster,
            v(*a)
        ),
        Op::ImageAtomic(a) => {
            let d = a.image;
            let mut s = format!(
                "ImageAtomic.{:?} {:?} image {}.{}[{}] at ({})",
                a.op,
                a.target,
                d.set,
                d.binding,
                v(d.index),
                vs(&a.coords)
            );
            if let Some(c) = a.cmp {
                let _ = write!(s, " if == {}", v(c));
            }
            if let Some(x) = a.value {
                let _ = write!(s, " with {}", v(x));
            }
            s
        }
    }
}

fn nodes(sh: &Shader, ns: &[Node], depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    for n in ns {
        match n {
            Node::Block(insts) => {
                for i in insts {
                    match i.dst {
                        Some(d) => {
                            let t = sh.value_types.get(d.0 as usize);
                            let _ = writeln!(
                                out,
                                "{pad}{}: {:?}x{} = {}",
                                v(d),
                                t.map(|t| t.scalar),
                                t.map(|t| t.lanes).unwrap_or(0),
                                op_text(&i.op)
                            );
                        }
                        None => {
                            let _ = writeln!(out, "{pad}{}", op_text(&i.op));
                        }
                    }
                }
            }
            Node::If {
                cond,
                then_body,
                else_body,
            } => {
                let _ = writeln!(out, "{pad}if {} {{", v(*cond));
                nodes(sh, then_body, depth + 1, out);
                if !else_body.is_empty() {
                    let _ = writeln!(out, "{pad}}} else {{");
                    nodes(sh, else_body, depth + 1, out);
                }
                let _ = writeln!(out, "{pad}}}");
            }
            Node::Loop { body } => {
                let _ = writeln!(out, "{pad}loop {{");
                nodes(sh, body, depth + 1, out);
                let _ = writeln!(out, "{pad}}}");
            }
            Node::Break => {
                let _ = writeln!(out, "{pad}break");
            }
            Node::Continue => {
                let _ = writeln!(out, "{pad}continue");
            }
            Node::Return => {
                let _ = writeln!(out, "{pad}return");
            }
        }
    }
}

/// The whole shader as text.
pub fn print(sh: &Shader) -> String {
    let mut out = format!(
        "shader local_size {:?} shared {} scratch {}\n",
        sh.local_size, sh.shared_size, sh.scratch_size
    );
    for (i, t) in sh.var_types.iter().enumerate() {
        let _ = writeln!(out, "var ${i}: {:?}x{}", t.scalar, t.lanes);
    }
    nodes(sh, &sh.body, 1, &mut out);
    out
}
