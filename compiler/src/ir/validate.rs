//! IR checks: SSA definitions dominate their uses (in the tree's scoping), operand types
//! agree, Break/Continue sit inside loops. `backend_form` checks the narrower form the passes
//! promise the back ends (see `passes::run_all`).

use std::collections::HashSet;

use super::{
    AtomicOp, BinOp, ConvOp, ImageAtomicOp, InterpolateAt, LaneRead, Node, Op, OutputBuiltin,
    SamplerSource, Scalar, Scan, Shader, Space, SysVal, Tex, TexLod, TexOp, TexSource, Type, UnOp,
    Value,
};
use super::{GraphicsShader, Stage, MAX_GEOMETRY_INVOCATIONS, MAX_GEOMETRY_OUTPUT_VERTICES};

struct Checker<'s> {
    sh: &'s Shader,
    defined: Vec<bool>,
    /// Values visible at this point, one entry per open scope.
    scopes: Vec<Vec<Value>>,
    ever: HashSet<Value>,
}

fn operands(op: &Op) -> Vec<Value> {
    match op {
        Op::Const(_)
        | Op::LoadVar(_)
        | Op::SysVal(_)
        | Op::WorkgroupBarrier
        | Op::MemoryBarrier
        | Op::LoadInput { .. }
        | Op::InputPlaneBits { .. }
        | Op::LoadInputAttachment { sample: None, .. }
        | Op::Discard
        | Op::EmitVertex
        | Op::EndPrimitive
        | Op::LoadPreamble { .. } => vec![],
        Op::LoadPerVertex { vertex, .. } => vec![*vertex],
        Op::LoadInputAttachment {
            sample: Some(s), ..
        } => vec![*s],
        Op::StoreOutput { value, .. }
        | Op::StoreBuiltin { value, .. }
        | Op::StorePreamble { value, .. } => vec![*value],
        Op::InterpolateInput { at, .. } => match at {
            InterpolateAt::Centroid => vec![],
            InterpolateAt::Sample(i) => vec![*i],
            InterpolateAt::Offset(x, y) => vec![*x, *y],
        },
        Op::Unary(_, a)
        | Op::Conv(_, a)
        | Op::Extract(a, _)
        | Op::Copy(a)
        | Op::PhysicalAddress(a)
        | Op::StoreVar(_, a) => {
            vec![*a]
        }
        Op::Binary(_, a, b) | Op::Cmp(_, a, b) | Op::Insert(a, _, b) => vec![*a, *b],
        Op::FFma(a, b, c)
        | Op::Select(a, b, c)
        | Op::UBitfieldExtract(a, b, c)
        | Op::SBitfieldExtract(a, b, c) => {
            vec![*a, *b, *c]
        }
        Op::BitfieldInsert(a, b, c, d) => vec![*a, *b, *c, *d],
        Op::Vector(xs) => xs.clone(),
        Op::Load { addr, .. } => vec![*addr],
        Op::Store { addr, value, .. } => vec![*addr, *value],
        Op::Atomic {
            addr, value, cmp, ..
        } => {
            let mut v = vec![*addr, *value];
            v.extend(cmp.iter().copied());
            v
        }
        Op::DescriptorAddress { index, .. } | Op::DescriptorSize { index, .. } => vec![*index],
        Op::Texture(t) => t.operands(),
        Op::ImageStore(w) => w.operands(),
        Op::ImageAtomic(a) => a.operands(),
        Op::Ballot(a) | Op::Reduce(_, a) => vec![*a],
        Op::LaneRead(LaneRead::Dynamic(l), a) => vec![*a, *l],
        Op::LaneRead(_, a) => vec![*a],
    }
}

/// Operands of an operation (for passes that rewrite or count uses).
pub fn op_operands(op: &Op) -> Vec<Value> {
    operands(op)
}

impl Checker<'_> {
    /// The operand types and shape a texture operation's kind asks for.
    fn check_texture(&self, t: &Tex, rt: Type) -> Result<(), String> {
        let bad = |what: &str| Err(format!("texture operation: {what}: {t:?}"));
        let is = |v: Value, ty: Type| -> Result<bool, String> { Ok(self.ty(v)? == ty) };
        match t.texture {
            TexSource::Binding(d) if !is(d.index, Type::I32)? => return bad("index type"),
            TexSource::Bindless { offset, .. } if !is(offset, Type::I32)? => {
                return bad("offset type")
            }
            _ => {}
        }
        match t.sampler {
            Some(SamplerSource::Binding(d)) if !is(d.index, Type::I32)? => {
                return bad("sampler index type")
            }
            Some(SamplerSource::Entry(e)) if !is(e, Type::I32)? => return bad("sampler type"),
            _ => {}
        }
        let query = matches!(
            t.op,
            TexOp::QuerySize | TexOp::QueryLevels | TexOp::QuerySamples
        );
        let filtered = matches!(t.op, TexOp::Sample | TexOp::Gather(_) | TexOp::QueryLod);
        let fetch = matches!(t.op, TexOp::Fetch | TexOp::ImageRead);
        if filtered != t.sampler.is_some() {
            return bad("sampler presence");
        }
        if query {
            if !t.coords.is_empty() || rt.scalar != Scalar::I32 {
                return bad("query shape");
            }
            return Ok(());
        }
        let axes = t.dim.axes();
        if t.coords.len() != axes + usize::from(t.arrayed) {
            return bad("coordinate count");
        }
        let ct = if filtered { Type::F32 } else { Type::I32 };
        for (i, c) in t.coords.iter().enumerate() {
            let ty = self.ty(*c)?;
            // A sampled array layer is rounded to an I32 by lower_textures.
            let layer = t.arrayed && i == axes;
            if ty != ct && !(layer && ty == Type::I32) {
                return bad("coordinate type");
            }
        }
        match (&t.lod, t.op) {
            (TexLod::Implicit, _) => {}
            (TexLod::Bias(x), TexOp::Sample) if is(*x, Type::F32)? => {}
            (TexLod::Lod(x), TexOp::Sample) if is(*x, Type::F32)? => {}
            (TexLod::Lod(x), TexOp::Fetch | TexOp::ImageRead) if is(*x, Type::I32)? => {}
            (TexLod::Grad { dx, dy }, TexOp::Sample) if dx.len() == axes && dy.len() == axes => {}
            _ => return bad("level of detail"),
        }
        if let TexLod::Grad { dx, dy } = &t.lod {
            for d in dx.iter().chain(dy) {
                if !is(*d, Type::F32)? {
                    return bad("derivative type");
                }
            }
        }
        for (v, ty, what) in [
            (t.min_lod, Type::F32, "min lod"),
            (t.dref, Type::F32, "reference"),
            (t.offset, Type::I32, "offset"),
            (t.sample, Type::I32, "sample"),
        ] {
            if let Some(v) = v {
                if !is(v, ty)? {
                    return bad(what);
                }
            }
        }
        if t.sample.is_some() != (t.ms && fetch) || (t.ms && filtered) {
            return bad("multisampling");
        }
        if t.min_lod.is_some() && t.op != TexOp::Sample {
            return bad("min lod outside a sample");
        }
        let lanes = u32::from(rt.lanes);
        let ok = match t.op {
            TexOp::Gather(c) => c < 4 && u32::from(t.component) + lanes <= 4,
            TexOp::QueryLod => {
                u32::from(t.component) + lanes <= 2
                    && rt.scalar == Scalar::F32
                    && t.lod == TexLod::Implicit
                    && !t.arrayed
            }
            _ if t.dref.is_some() => t.component == 0 && lanes == 1,
            _ => u32::from(t.component) + lanes <= 4,
        };
        if !ok || !matches!(rt.scalar, Scalar::F32 | Scalar::I32) {
            return bad("result type");
        }
        if t.dref.is_some() && (rt.scalar != Scalar::F32 || fetch) {
            return bad("comparison");
        }
        Ok(())
    }

    fn ty(&self, v: Value) -> Result<Type, String> {
        self.sh
            .value_types
            .get(v.0 as usize)
            .copied()
            .ok_or_else(|| format!("%{} has no type", v.0))
    }

    fn visible(&self, v: Value) -> bool {
        self.defined.get(v.0 as usize).copied().unwrap_or(false)
    }

    fn check_types(&self, dst: Option<Value>, op: &Op) -> Result<(), String> {
        let rt = match dst {
            Some(d) => Some(self.ty(d)?),
            None => None,
        };
        let needs_dst = !matches!(
            op,
            Op::StoreVar(..)
                | Op::Store { .. }
                | Op::WorkgroupBarrier
                | Op::MemoryBarrier
                | Op::Atomic { .. }
                | Op::StoreOutput { .. }
                | Op::StoreBuiltin { .. }
                | Op::Discard
                | Op::EmitVertex
                | Op::EndPrimitive
                | Op::ImageStore(_)
                | Op::ImageAtomic(_)
                | Op::StorePreamble { .. }
        );
        if needs_dst && rt.is_none() {
            return Err(format!("{op:?} without a result"));
        }
        if !needs_dst && !matches!(op, Op::Atomic { .. } | Op::ImageAtomic(_)) && rt.is_some() {
            return Err(format!("{op:?} with a result"));
        }
        let rt = rt.unwrap_or(Type::I32);
        match op {
            Op::Const(c) if c.0.len() != rt.lanes as usize => {
                return Err(format!("constant with {} lanes of type {rt:?}", c.0.len()));
            }
            Op::Binary(b, x, y) => {
                let (tx, ty) = (self.ty(*x)?, self.ty(*y)?);
                let shift = matches!(b, BinOp::Shl | BinOp::UShr | BinOp::SShr);
                if tx != rt || (!shift && ty != rt) || (shift && ty.lanes != rt.lanes) {
                    return Err(format!("{b:?} of {tx:?}, {ty:?} to {rt:?}"));
                }
            }
            Op::Unary(u, x) => {
                let tx = self.ty(*x)?;
                if tx != rt {
                    return Err(format!("{u:?} of {tx:?} to {rt:?}"));
                }
            }
            Op::Cmp(_, x, y) => {
                let (tx, ty) = (self.ty(*x)?, self.ty(*y)?);
                if tx != ty || rt != Type::vec(Scalar::Bool, tx.lanes) {
                    return Err(format!("Cmp of {tx:?}, {ty:?} to {rt:?}"));
                }
            }
            Op::Select(c, a, b) => {
                let (tc, ta, tb) = (self.ty(*c)?, self.ty(*a)?, self.ty(*b)?);
                if tc.scalar != Scalar::Bool
                    || (tc.lanes != 1 && tc.lanes != rt.lanes)
                    || ta != rt
                    || tb != rt
                {
                    return Err(format!("Select of {tc:?}, {ta:?}, {tb:?} to {rt:?}"));
                }
            }
            Op::Conv(c, x) => {
                let tx = self.ty(*x)?;
                if tx.lanes != rt.lanes || (*c == ConvOp::BoolToInt) != (tx.scalar == Scalar::Bool)
                {
                    return Err(format!("Conv {c:?} of {tx:?} to {rt:?}"));
                }
            }
            Op::Vector(xs) => {
                if xs.len() != rt.lanes as usize {
                    return Err("Vector lane count".into());
                }
                for x in xs {
                    if self.ty(*x)? != Type::scalar(rt.scalar) {
                        return Err("Vector lane type".into());
                    }
                }
            }
            Op::Extract(x, i) => {
                let tx = self.ty(*x)?;
                if *i >= tx.lanes || rt != Type::scalar(tx.scalar) {
                    return Err("Extract lane".into());
                }
            }
            Op::Insert(x, i, y) => {
                let (tx, ty) = (self.ty(*x)?, self.ty(*y)?);
                if *i >= tx.lanes || tx != rt || ty != Type::scalar(tx.scalar) {
                    return Err("Insert lane".into());
                }
            }
            Op::Copy(x) if self.ty(*x)? != rt => return Err("Copy type".into()),
            Op::PhysicalAddress(x) if self.ty(*x)? != Type::I64 || rt != Type::I64 => {
                return Err("PhysicalAddress type".into())
            }
            Op::LoadVar(var) | Op::StoreVar(var, _) => {
                let vt = self
                    .sh
                    .var_types
                    .get(var.0 as usize)
                    .copied()
                    .ok_or_else(|| format!("undefined var ${}", var.0))?;
                let t = match op {
                    Op::StoreVar(_, x) => self.ty(*x)?,
                    _ => rt,
                };
                if vt != t {
                    return Err(format!("var ${} of {vt:?} used as {t:?}", var.0));
                }
            }
            Op::Load { space, addr, .. }
            | Op::Store { space, addr, .. }
            | Op::Atomic { space, addr, .. } => {
                let at = self.ty(*addr)?;
                let want = if *space == Space::Global {
                    Type::I64
                } else {
                    Type::I32
                };
                if at != want {
                    return Err(format!("{space:?} address of type {at:?}"));
                }
            }
            Op::LoadInput { component, .. }
            | Op::LoadInputAttachment { component, .. }
            | Op::InterpolateInput { component, .. }
                if !matches!(rt.scalar, Scalar::I32 | Scalar::F32)
                    || *component as u32 + rt.lanes as u32 > 4 =>
            {
                return Err(format!("input of type {rt:?} from component {component}"));
            }
            Op::LoadPerVertex {
                vertex, component, ..
            } if self.ty(*vertex)? != Type::I32
                || !matches!(rt.scalar, Scalar::I32 | Scalar::F32)
                || *component as u32 + rt.lanes as u32 > 4 =>
            {
                return Err(format!(
                    "per-vertex input of type {rt:?} from component {component}"
                ));
            }
            Op::InputPlaneBits { component, .. } if rt != Type::I32 || *component > 3 => {
                return Err(format!(
                    "InputPlaneBits of type {rt:?} at component {component}"
                ));
            }
            Op::InterpolateInput { at, .. } => {
                let want = match at {
                    InterpolateAt::Centroid => vec![],
                    InterpolateAt::Sample(_) => vec![Type::I32],
                    InterpolateAt::Offset(..) => vec![Type::F32; 2],
                };
                let got = operands(op)
                    .iter()
                    .map(|v| self.ty(*v))
                    .collect::<Result<Vec<_>, _>>()?;
                if got != want {
                    return Err(format!("InterpolateInput at {at:?} of types {got:?}"));
                }
            }
            Op::StoreOutput {
                component, value, ..
            }
            | Op::StoreBuiltin {
                component, value, ..
            } => {
                let t = self.ty(*value)?;
                if !matches!(t.scalar, Scalar::I32 | Scalar::F32)
                    || *component as u32 + t.lanes as u32 > 4
                {
                    return Err(format!("output of type {t:?} from component {component}"));
                }
                if let Op::StoreBuiltin { builtin, .. } = op {
                    let (lanes, scalar) = match builtin {
                        OutputBuiltin::Position => (4, Scalar::F32),
                        OutputBuiltin::PointSize | OutputBuiltin::FragDepth => (1, Scalar::F32),
                        OutputBuiltin::SampleMask => (1, Scalar::I32),
                        // Typed as the target-0 output it pairs with.
                        OutputBuiltin::SecondBlendSource => (4, t.scalar),
                        OutputBuiltin::ClipDistance(k)
                            if u32::from(*k) < super::MAX_CLIP_DISTANCES =>
                        {
                            (1, Scalar::F32)
                        }
                        OutputBuiltin::ClipDistance(k) => {
                            return Err(format!("clip distance {k}"));
                        }
                    };
                    if t.scalar != scalar || *component as u32 + t.lanes as u32 > lanes {
                        return Err(format!("{builtin:?} written with {t:?}"));
                    }
                }
            }
            Op::DescriptorAddress { index, .. } | Op::DescriptorSize { index, .. }
                if self.ty(*index)? != Type::I32 =>
            {
                return Err("descriptor index type".into());
            }
            Op::Texture(t) => self.check_texture(t, rt)?,
            Op::ImageStore(w) => {
                let ok = |v: &Value, t: Type| self.ty(*v).map(|x| x == t);
                let mut good = w.coords.len() == w.dim.axes() + usize::from(w.arrayed)
                    && w.texel.len() == 4
                    && w.sample.is_some() == w.ms;
                for c in w.coords.iter().chain(&w.sample) {
                    good &= ok(c, Type::I32)?;
                }
                let t0 = match w.texel.first() {
                    Some(x) => self.ty(*x)?,
                    None => Type::I32,
                };
                for x in &w.texel {
                    good &= ok(x, t0)? && (t0 == Type::I32 || t0 == Type::F32);
                }
                if let TexSource::Binding(d) = w.texture {
                    good &= ok(&d.index, Type::I32)?;
                }
                if let TexSource::Bindless { offset, .. } = w.texture {
                    good &= ok(&offset, Type::I32)?;
                }
                if !good {
                    return Err(format!("image store: {w:?}"));
                }
            }
            Op::Ballot(a) if self.ty(*a)? != Type::BOOL || rt != Type::I32 => {
                return Err(format!("ballot of {a:?} to {rt:?}"));
            }
            Op::LaneRead(l, a) => {
                let lane_ok = match l {
                    LaneRead::Lane(n) | LaneRead::Xor(n) => *n < 32,
                    LaneRead::QuadLane(n) => *n < 4,
                    LaneRead::QuadXor(n) => (1..4).contains(n),
                    LaneRead::Dynamic(i) => self.ty(*i)? == Type::I32,
                };
                if !lane_ok || self.ty(*a)? != rt || !rt.is_scalar() {
                    return Err(format!("lane read {l:?} of {a:?} to {rt:?}"));
                }
            }
            Op::Reduce(r, a)
                if self.ty(*a)? != rt
                    || !rt.is_scalar()
                    || !r.cluster.is_power_of_two()
                    || r.cluster > 32 =>
            {
                return Err(format!("reduction {r:?} of {a:?} to {rt:?}"));
            }
            Op::ImageAtomic(a) => {
                let ok = |v: &Value| self.ty(*v).map(|x| x == Type::I32);
                let store = a.op == ImageAtomicOp::Store;
                let cmpxchg = a.op == ImageAtomicOp::Atomic(AtomicOp::CompareExchange);
                let mut good = a.coords.len() == a.coord_count()
                    && a.value.is_some() == (a.op != ImageAtomicOp::Load)
                    && a.cmp.is_some() == cmpxchg
                    && !(store && dst.is_some())
                    && rt == Type::I32;
                for v in a.operands() {
                    good &= ok(&v)?;
                }
                if !good {
                    return Err(format!("image atomic: {a:?}"));
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn list(&mut self, ns: &[Node], loops: usize) -> Result<(), String> {
        self.scopes.push(Vec::new());
        for n in ns {
            match n {
                Node::Block(insts) => {
                    for i in insts {
                        for o in operands(&i.op) {
                            if !self.visible(o) {
                                return Err(format!(
                                    "%{} used where it is not defined: {:?}",
                                    o.0, i.op
                                ));
                            }
                        }
                        self.check_types(i.dst, &i.op)?;
                        if let Some(d) = i.dst {
                            if (d.0 as usize) >= self.defined.len() {
                                return Err(format!("%{} out of range", d.0));
                            }
                            if !self.ever.insert(d) {
                                return Err(format!("%{} defined twice", d.0));
                            }
                            self.defined[d.0 as usize] = true;
                            if let Some(s) = self.scopes.last_mut() {
                                s.push(d);
                            }
                        }
                    }
                }
                Node::If {
                    cond,
                    then_body,
                    else_body,
                } => {
                    if !self.visible(*cond) || self.ty(*cond)? != Type::BOOL {
                        return Err(format!(
                            "If condition %{} undefined or not a scalar bool",
                            cond.0
                        ));
                    }
                    self.list(then_body, loops)?;
                    self.list(else_body, loops)?;
                }
                Node::Loop { body } => self.list(body, loops + 1)?,
                Node::Break | Node::Continue => {
                    if loops == 0 {
                        return Err("Break or Continue outside a loop".into());
                    }
                }
                Node::Return => {}
            }
        }
        for d in self.scopes.pop().unwrap_or_default() {
            self.defined[d.0 as usize] = false;
        }
        Ok(())
    }
}

/// Checks the structural and type rules of the IR.
pub fn validate(sh: &Shader) -> Result<(), String> {
    let mut c = Checker {
        sh,
        defined: vec![false; sh.value_types.len()],
        scopes: Vec::new(),
        ever: HashSet::new(),
    };
    c.list(&sh.body, 0)
}

/// [`validate`] plus the rules of the shader's stage: the geometry-only operations and
/// system values appear in geometry shaders alone, and a geometry shader declares a
/// [`GeometryInfo`] within Vulkan's limits.
pub fn validate_graphics(g: &GraphicsShader) -> Result<(), String> {
    validate(&g.shader)?;
    let geometry = g.stage == Stage::Geometry;
    match (&g.geometry, geometry) {
        (None, false) => {}
        (Some(info), true) => {
            if !(1..=MAX_GEOMETRY_OUTPUT_VERTICES).contains(&info.max_vertices) {
                return Err(format!("{} output vertices", info.max_vertices));
            }
            if !(1..=MAX_GEOMETRY_INVOCATIONS).contains(&info.invocations) {
                return Err(format!("{} invocations", info.invocations));
            }
        }
        (Some(_), false) => return Err(format!("{:?} shader with geometry info", g.stage)),
        (None, true) => return Err("geometry shader without geometry info".into()),
    }
    if g.xfb.is_some() && !matches!(g.stage, Stage::Vertex | Stage::Geometry) {
        return Err(format!("{:?} shader with transform feedback", g.stage));
    }
    walk(&g.shader.body, &mut |i| {
        let geometry_only = matches!(
            i.op,
            Op::LoadPerVertex { .. }
                | Op::EmitVertex
                | Op::EndPrimitive
                | Op::SysVal(SysVal::InvocationId | SysVal::PrimitiveId)
        );
        if geometry_only && !geometry {
            return Err(format!("{:?} in a {:?} shader", i.op, g.stage));
        }
        Ok(())
    })
}

fn walk<'a>(
    ns: &'a [Node],
    f: &mut dyn FnMut(&'a super::Inst) -> Result<(), String>,
) -> Result<(), String> {
    for n in ns {
        match n {
            Node::Block(insts) => {
                for i in insts {
                    f(i)?;
                }
            }
            Node::If {
                then_body,
                else_body,
                ..
            } => {
                walk(then_body, f)?;
                walk(else_body, f)?;
            }
            Node::Loop { body } => walk(body, f)?,
            _ => {}
        }
    }
    Ok(())
}

/// Checks the form `passes::run_all` promises the back ends.
pub fn backend_form(sh: &Shader) -> Result<(), String> {
    validate(sh)?;
    walk(&sh.body, &mut |i| {
        let bad = |what: &str| Err(format!("{what}: {:?}", i.op));
        if let Some(d) = i.dst {
            if !sh.ty(d).is_scalar() {
                return bad("vector value");
            }
        }
        for o in operands(&i.op) {
            if !sh.ty(o).is_scalar() {
                return bad("vector operand");
            }
        }
        let is64 = i.dst.is_some_and(|d| sh.ty(d) == Type::I64);
        match &i.op {
            Op::Const(_)
            | Op::FFma(..)
            | Op::Cmp(..)
            | Op::Select(..)
            | Op::BitfieldInsert(..)
            | Op::UBitfieldExtract(..)
            | Op::SBitfieldExtract(..)
            | Op::LoadVar(_)
            | Op::StoreVar(..)
            | Op::WorkgroupBarrier
            | Op::MemoryBarrier
            // Stage I/O is lowered per generation, so the back end takes it as it is.
            | Op::LoadInput { .. }
            | Op::LoadInputAttachment { .. }
            | Op::InterpolateInput { .. }
            | Op::InputPlaneBits { .. }
            | Op::StoreOutput { .. }
            | Op::StoreBuiltin { .. }
            | Op::Discard
            // Geometry shaders keep their own view until the VS+GS merge.
            | Op::LoadPerVertex { .. }
            | Op::EmitVertex
            | Op::EndPrimitive => {}
            Op::Ballot(_) => {}
            Op::LoadPreamble { .. } | Op::StorePreamble { .. } => {
                let t = match (&i.op, i.dst) {
                    (Op::StorePreamble { value, .. }, _) => sh.ty(*value),
                    (_, Some(d)) => sh.ty(d),
                    _ => return bad("preamble load without a result"),
                };
                if t != Type::I32 && t != Type::F32 && t != Type::I64 {
                    return bad("preamble value other than a 32-bit scalar or an address");
                }
            }
            Op::Reduce(r, v)
                if crate::passes::hardware_reduces(r.op, sh.ty(*v))
                    && matches!(
                        (r.scan, r.cluster),
                        (Scan::Reduce, 4 | 32) | (Scan::Exclusive, 32)
                    ) => {}
            Op::LaneRead(LaneRead::Dynamic(_), _) | Op::Reduce(..) => {
                return bad("subgroup operation not lowered");
            }
            Op::LaneRead(..) => {
                if is64 {
                    return bad("64-bit lane read");
                }
            }
            Op::ImageStore(w) => {
                if !matches!(w.texture, TexSource::Bindless { .. }) {
                    return bad("image store not lowered");
                }
            }
            Op::Texture(t) => {
                if !matches!(t.texture, TexSource::Bindless { .. })
                    || matches!(t.sampler, Some(SamplerSource::Binding(_)))
                    || matches!(
                        t.op,
                        TexOp::QuerySize | TexOp::QueryLevels | TexOp::QuerySamples
                    )
                {
                    return bad("texture operation not lowered");
                }
            }
            Op::Conv(c, x) => {
                if is64 && !(matches!(c, ConvOp::UToU | ConvOp::SToS) && sh.ty(*x) == Type::I32) {
                    return bad("64-bit conversion");
                }
            }
            Op::Unary(u, _) => {
                if matches!(
                    u,
                    UnOp::IAbs | UnOp::FFract | UnOp::FSqrt | UnOp::FSign | UnOp::ISign
                ) {
                    return bad("unary operation the back end does not take");
                }
            }
            Op::Binary(b, ..) => {
                if matches!(
                    b,
                    BinOp::UDiv
                        | BinOp::SDiv
                        | BinOp::UMod
                        | BinOp::SRem
                        | BinOp::SMod
                        | BinOp::FDiv
                        | BinOp::FMod
                        | BinOp::FPow
                        | BinOp::FAtan2
                ) {
                    return bad("binary operation the back end does not take");
                }
                // Shl only moves a word into the high half of an address (by 32).
                if is64 && !matches!(b, BinOp::IAdd | BinOp::Shl) {
                    return bad("64-bit arithmetic other than IAdd and Shl");
                }
            }
            Op::SysVal(s) => {
                if !matches!(
                    s,
                    SysVal::LocalInvocationId(_)
                        | SysVal::LocalInvocationIndex
                        | SysVal::WorkgroupId(_)
                        | SysVal::ThreadPositionInGrid(_)
                        | SysVal::SubgroupLocalInvocationId
                        | SysVal::SubgroupId
                        | SysVal::VertexIndex
                        | SysVal::InstanceIndex
                        | SysVal::FragCoord(_)
                        | SysVal::PointCoord(_)
                        | SysVal::FrontFacing
                        | SysVal::SampleId
                        | SysVal::SamplePosition(_)
                        | SysVal::ViewIndex
                        | SysVal::SampleMaskIn
                        | SysVal::HelperInvocation
                        // Geometry shaders keep them until the VS+GS merge.
                        | SysVal::InvocationId
                        | SysVal::PrimitiveId
                ) {
                    return bad("system value");
                }
            }
            Op::Load { space, .. } | Op::Store { space, .. } | Op::Atomic { space, .. } => {
                if *space == Space::Root {
                    if !matches!(i.op, Op::Load { .. }) {
                        return bad("root access other than a load");
                    }
                } else if let Some(d) = i.dst {
                    let small = is_small_memory_type(sh.ty(d)) && !matches!(i.op, Op::Atomic { .. });
                    if sh.ty(d) != Type::I32
                        && sh.ty(d) != Type::F32
                        && !small
                        && !(sh.ty(d) == Type::I64 && *space == Space::Global)
                    {
                        return bad("memory value other than 8-, 16- or 32-bit");
                    }
                }
                if let Op::Store { value, .. } = &i.op {
                    let t = sh.ty(*value);
                    if t != Type::I32 && t != Type::F32 && !is_small_memory_type(t) {
                        return bad("stored value other than 8-, 16- or 32-bit");
                    }
                }
            }
            _ => return bad("operation the back end does not take"),
        }
        if is64
            && !matches!(
                i.op,
                Op::Load { .. }
                    | Op::Conv(..)
                    | Op::Binary(BinOp::IAdd | BinOp::Shl, ..)
                    | Op::LoadPreamble { .. }
            )
        {
            return bad("64-bit value outside addressing");
        }
        Ok(())
    })?;
    // Root addresses must be constants.
    let mut consts = HashSet::new();
    walk(&sh.body, &mut |i| {
        if let (Some(d), Op::Const(_)) = (i.dst, &i.op) {
            consts.insert(d);
        }
        Ok(())
    })?;
    walk(&sh.body, &mut |i| match &i.op {
        Op::Load {
            space: Space::Root,
            addr,
            ..
        } if !consts.contains(addr) => {
            Err(format!("root load at a non-constant address %{}", addr.0))
        }
        _ => Ok(()),
    })
}

/// 8- and 16-bit scalars, which the back end moves with byte and halfword memory accesses.
fn is_small_memory_type(t: Type) -> bool {
    t.lanes == 1 && matches!(t.scalar, Scalar::I8 | Scalar::I16 | Scalar::F16)
}
