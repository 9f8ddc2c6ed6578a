//! Pointers: global and local variables, access chains, loads and stores with explicit
//! layouts, atomics, OpArrayLength, and the compute builtins.

use rspirv::dr::Instruction;
use spirv::{BuiltIn, Decoration, Op, StorageClass, Word};

use super::constants::CVal;
use super::layout::MatLayout;
use super::module::{id, invalid, result_id, result_type, unsupported, SpvType};
use super::translate::{FnState, Tr};
use super::values::{Base, Entry, FVal, Ptr, VarTree};
use crate::abi;
use crate::ir::{self, AtomicOp, BinOp, CmpOp, ConvOp, Scalar, Space, SysVal, Type, Value};
use crate::CompileError;

/// The most places a dynamic index into a Var-held composite may choose among.
const MAX_CHOICE_ARMS: usize = 256;

/// A part of a composite in memory: offset, type, matrix layout, lane stride.
type MemChild = (u32, Word, Option<MatLayout>, u32);

impl<'m> Tr<'m> {
    pub fn var_tree(&mut self, ty: Word, depth: u32) -> Result<VarTree, CompileError> {
        if depth > 32 {
            return Err(invalid("type nesting too deep"));
        }
        if self.l.is_simple(ty)? {
            let t = self.l.ir_type(ty)?;
            return Ok(VarTree::Leaf(self.sh.new_var(t)));
        }
        let kids = self.l.children(ty)?;
        if kids.len() > 4096 {
            return Err(unsupported("local array too large for registers"));
        }
        Ok(VarTree::Node(
            kids.iter()
                .map(|k| self.var_tree(*k, depth + 1))
                .collect::<Result<_, _>>()?,
        ))
    }

    fn alloc(&mut self, shared: bool, ty: Word) -> Result<u32, CompileError> {
        let size = self.l.size(ty, None, 0)?;
        let align = self.l.align(ty, 0)?.max(4);
        let total = if shared {
            &mut self.sh.shared_size
        } else {
            &mut self.sh.scratch_size
        };
        let off = total.div_ceil(align) * align;
        *total = off
            .checked_add(size)
            .filter(|t| *t < 1 << 28)
            .ok_or_else(|| CompileError::Limit("variables too large".into()))?;
        Ok(off)
    }

    /// The struct a buffer variable of type `ty` holds (through arrays of descriptors).
    fn buffer_struct(&self, ty: Word) -> Result<Word, CompileError> {
        let mut t = ty;
        while let SpvType::Array { elem, .. } | SpvType::RuntimeArray { elem } = self.l.get(t)? {
            t = *elem;
        }
        Ok(t)
    }

    /// Whether a `Uniform` variable of type `ty` is a uniform buffer (a Block, not an old
    /// style storage buffer's BufferBlock). A `StorageBuffer` variable's struct is a Block
    /// too.
    fn is_uniform_block(&self, ty: Word) -> Result<bool, CompileError> {
        let t = self.buffer_struct(ty)?;
        Ok(self.decos.has(t, Decoration::Block))
    }

    /// Whether storage buffer variable `var` of type `ty` is never written through and
    /// shares its memory with nothing (see `ir::Shader::read_only_buffers`).
    fn read_only_buffer(&self, var: Word, ty: Word) -> Result<bool, CompileError> {
        const SHARED: [Decoration; 3] = [
            Decoration::Aliased,
            Decoration::Volatile,
            Decoration::Coherent,
        ];
        if SHARED.iter().any(|&d| self.decos.has(var, d)) {
            return Ok(false);
        }
        let whole = self.decos.has(var, Decoration::NonWritable);
        let t = self.buffer_struct(ty)?;
        let SpvType::Struct { members } = self.l.get(t)? else {
            return Ok(whole);
        };
        Ok((0..members.len() as u32).all(|m| {
            SHARED.iter().all(|&d| self.decos.member(t, m, d).is_none())
                && (whole || self.decos.member(t, m, Decoration::NonWritable).is_some())
        }))
    }

    /// The pointer an OpVariable (global or local) stands for; emits its initializer.
    pub fn variable(&mut self, inst: &Instruction) -> Result<Entry, CompileError> {
        let rid = result_id(inst)?;
        let pty = result_type(inst)?;
        let (sc, ty) = match self.l.get(pty)? {
            SpvType::Pointer { sc, pointee } => (*sc, *pointee),
            _ => return Err(invalid("OpVariable of a non-pointer type")),
        };
        let mem = |base, off| Ptr::Mem {
            base,
            off,
            dyn_off: None,
            ty,
            mat: None,
            lane_stride: 4,
        };
        if let Some(p) = self.stage_variable(rid, sc, ty)? {
            // An output's initializer is its value until the shader stores one.
            self.initialize(inst, &p, ty)?;
            return Ok(Entry::Ptr(p));
        }
        let ptr = match sc {
            StorageClass::StorageBuffer | StorageClass::Uniform => {
                let set = self
                    .decos
                    .get(rid, Decoration::DescriptorSet)
                    .and_then(|v| v.first().copied());
                let binding = self
                    .decos
                    .get(rid, Decoration::Binding)
                    .and_then(|v| v.first().copied());
                let (Some(set), Some(binding)) = (set, binding) else {
                    return Err(invalid(format!(
                        "buffer variable {rid} without DescriptorSet/Binding"
                    )));
                };
                if sc == StorageClass::StorageBuffer || !self.is_uniform_block(ty)? {
                    let read_only = self.read_only_buffer(rid, ty)?;
                    self.sh
                        .read_only_buffers
                        .entry((set, binding))
                        .and_modify(|r| *r &= read_only)
                        .or_insert(read_only);
                }
                let index = self.u32c(0)?;
                mem(
                    Base::Descriptor {
                        set,
                        binding,
                        index,
                    },
                    0,
                )
            }
            StorageClass::PushConstant => mem(Base::Root, 0),
            StorageClass::Workgroup => {
                let off = self.alloc(true, ty)?;
                mem(Base::Shared, off)
            }
            StorageClass::Function | StorageClass::Private => {
                if self.scratch_vars.contains(&rid) {
                    let off = match self.scratch_offsets.get(&rid) {
                        Some(o) => *o,
                        None => {
                            let o = self.alloc(false, ty)?;
                            self.scratch_offsets.insert(rid, o);
                            o
                        }
                    };
                    mem(Base::Scratch, off)
                } else {
                    let mut leaves = Vec::new();
                    self.l.leaves(ty, &mut leaves, 0)?;
                    Ptr::Vars {
                        tree: self.var_tree(ty, 0)?,
                        ty,
                    }
                }
            }
            StorageClass::Input => {
                let b = self
                    .decos
                    .get(rid, Decoration::BuiltIn)
                    .and_then(|v| v.first().copied())
                    .ok_or_else(|| unsupported("Input variable that is not a builtin"))?;
                let builtin = BuiltIn::from_u32(b).ok_or_else(|| invalid("unknown builtin"))?;
                Ptr::Builtin {
                    builtin,
                    lane: None,
                    ty,
                }
            }
            StorageClass::UniformConstant => {
                if let Some(p) = self.image_variable(rid, ty)? {
                    return Ok(Entry::Ptr(p));
                }
                let (ms, elems) = match *self.l.get(ty)? {
                    SpvType::SubpassImage { ms, .. } => (ms, 0),
                    SpvType::Array { elem, len } => match *self.l.get(elem)? {
                        SpvType::SubpassImage { ms, .. } => (ms, len),
                        _ => {
                            return Err(unsupported(
                                "images and samplers other than subpass inputs",
                            ))
                        }
                    },
                    _ => return Err(unsupported("images and samplers other than subpass inputs")),
                };
                let index = self
                    .decos
                    .get(rid, Decoration::InputAttachmentIndex)
                    .and_then(|v| v.first().copied())
                    .ok_or_else(|| {
                        invalid(format!("subpass input {rid} without InputAttachmentIndex"))
                    })?;
                Ptr::InputAttachment { index, ms, elems }
            }
            other => return Err(unsupported(format!("storage class {other:?}"))),
        };
        // Workgroup initializers are shared work (frontend::shared_init).
        if sc != StorageClass::Workgroup {
            self.initialize(inst, &ptr, ty)?;
        }
        Ok(Entry::Ptr(ptr))
    }

    /// Stores an OpVariable's initializer, if it has one, through `ptr`.
    fn initialize(&mut self, inst: &Instruction, ptr: &Ptr, ty: Word) -> Result<(), CompileError> {
        let Some(init) = inst.operands.get(1) else {
            return Ok(());
        };
        let rspirv::dr::Operand::IdRef(c) = init else {
            return Err(invalid("bad initializer"));
        };
        let (cty, cval) = self
            .consts
            .get(c)
            .cloned()
            .ok_or_else(|| unsupported("non-constant initializer"))?;
        if cty != ty {
            return Err(invalid("initializer type differs from the variable's"));
        }
        let v = self.const_fval(ty, &cval)?;
        self.store(ptr, &v)
    }

    fn is_block_array(&self, ty: Word) -> Result<bool, CompileError> {
        Ok(match self.l.get(ty)? {
            SpvType::Array { elem, .. } | SpvType::RuntimeArray { elem } => {
                self.decos.has(*elem, Decoration::Block)
                    || self.decos.has(*elem, Decoration::BufferBlock)
            }
            _ => false,
        })
    }

    fn index_const(&self, w: Word) -> Option<u32> {
        match self.consts.get(&w) {
            Some((_, CVal::Scalar(v))) => Some(*v as u32),
            _ => None,
        }
    }

    /// Moves a pointer's offset by `index * stride`: into the constant part when the index is
    /// a constant, else into the dynamic part.
    fn step(
        &mut self,
        fs: &FnState<'m>,
        off: &mut u32,
        dyn_off: &mut Option<Value>,
        konst: Option<u32>,
        iw: Word,
        stride: u32,
    ) -> Result<(), CompileError> {
        match konst {
            Some(i) => {
                *off = off
                    .checked_add(i.wrapping_mul(stride))
                    .ok_or_else(|| invalid("offset overflow"))?;
            }
            None => {
                let i = self.simple(fs, iw)?;
                *dyn_off = self.add_dyn(*dyn_off, i, stride)?;
            }
        }
        Ok(())
    }

    fn add_dyn(
        &mut self,
        dyn_off: Option<Value>,
        idx: Value,
        stride: u32,
    ) -> Result<Option<Value>, CompileError> {
        // Byte offsets are 32-bit (no buffer reaches 4 GiB): a 64-bit index keeps its low word,
        // and an 8- or 16-bit one is sign-extended (SPIR-V indices are signed).
        let idx = match self.sh.ty(idx) {
            Type::I32 => idx,
            Type::I64 => self.emit(Type::I32, ir::Op::Conv(ConvOp::UToU, idx))?,
            t if t.lanes == 1 && matches!(t.scalar, ir::Scalar::I8 | ir::Scalar::I16) => {
                self.emit(Type::I32, ir::Op::Conv(ConvOp::SToS, idx))?
            }
            _ => return Err(invalid("access chain index is not an integer")),
        };
        let s = self.u32c(stride)?;
        let term = self.emit(Type::I32, ir::Op::Binary(BinOp::IMul, idx, s))?;
        Ok(Some(match dyn_off {
            None => term,
            Some(d) => self.emit(Type::I32, ir::Op::Binary(BinOp::IAdd, d, term))?,
        }))
    }

    pub fn access_chain(
        &mut self,
        fs: &FnState<'m>,
        inst: &Instruction,
    ) -> Result<Entry, CompileError> {
        let (mut p, first) = if inst.class.opcode == Op::PtrAccessChain {
            (self.ptr_element(fs, id(inst, 0)?, id(inst, 1)?)?, 2)
        } else {
            (self.ptr(fs, id(inst, 0)?)?, 1)
        };
        for k in first..inst.operands.len() {
            let iw = id(inst, k)?;
            let konst = self.index_const(iw);
            p = match p {
                Ptr::Mem {
                    base,
                    mut off,
                    mut dyn_off,
                    ty,
                    mat,
                    lane_stride,
                } => {
                    let t = self.l.get(ty)?.clone();
                    let add = |off: u32, n: u32| {
                        off.checked_add(n).ok_or_else(|| invalid("offset overflow"))
                    };
                    match t {
                        SpvType::Struct { members } => {
                            let i =
                                konst.ok_or_else(|| invalid("struct index is not a constant"))?;
                            let mty = *members
                                .get(i as usize)
                                .ok_or_else(|| invalid("struct index out of range"))?;
                            off = add(off, self.l.member_offset(ty, &members, i)?)?;
                            let mat = self.l.member_mat(ty, i).or(mat);
                            Ptr::Mem {
                                base,
                                off,
                                dyn_off,
                                ty: mty,
                                mat,
                                lane_stride: 4,
                            }
                        }
                        SpvType::Array { elem, .. } | SpvType::RuntimeArray { elem } => {
                            if self.is_block_array(ty)? && off == 0 && dyn_off.is_none() {
                                if let Base::Descriptor { set, binding, .. } = base {
                                    let index = self.simple(fs, iw)?;
                                    p = Ptr::Mem {
                                        base: Base::Descriptor {
                                            set,
                                            binding,
                                            index,
                                        },
                                        off,
                                        dyn_off,
                                        ty: elem,
                                        mat,
                                        lane_stride: 4,
                                    };
                                    continue;
                                }
                            }
                            let stride = self.l.array_stride(ty, elem)?;
                            self.step(fs, &mut off, &mut dyn_off, konst, iw, stride)?;
                            Ptr::Mem {
                                base,
                                off,
                                dyn_off,
                                ty: elem,
                                mat,
                                lane_stride: 4,
                            }
                        }
                        SpvType::Matrix { col, .. } => {
                            let m = match mat {
                                Some(m) => m,
                                None => self.l.default_mat(col)?,
                            };
                            let c = self.l.component_bytes(col)?;
                            let (step, ls) = if m.row_major {
                                (c, m.stride)
                            } else {
                                (m.stride, 4)
                            };
                            self.step(fs, &mut off, &mut dyn_off, konst, iw, step)?;
                            Ptr::Mem {
                                base,
                                off,
                                dyn_off,
                                ty: col,
                                mat: Some(m),
                                lane_stride: ls,
                            }
                        }
                        SpvType::Vector { elem, .. } => {
                            // 64-bit lanes are 8 bytes apart (matrices, the one other
                            // source of a lane stride, are never 64-bit).
                            let lane_stride = if self.l.ir_type(elem)?.scalar == Scalar::I64 {
                                8
                            } else if lane_stride == 4 {
                                // Packed lanes: 4 stands for "the component's own size".
                                self.l.component_bytes(elem)?
                            } else {
                                lane_stride
                            };
                            self.step(fs, &mut off, &mut dyn_off, konst, iw, lane_stride)?;
                            Ptr::Mem {
                                base,
                                off,
                                dyn_off,
                                ty: elem,
                                mat,
                                lane_stride: 4,
                            }
                        }
                        _ => return Err(invalid("access chain indexes a scalar")),
                    }
                }
                p @ Ptr::PerVertex { .. } => {
                    let dynamic = match konst {
                        Some(_) => None,
                        None => Some(self.simple(fs, iw)?),
                    };
                    self.index_per_vertex(p, konst, dynamic)?
                }
                p @ (Ptr::Vars { .. } | Ptr::Choice { .. }) => {
                    let dynamic = match konst {
                        Some(_) => None,
                        None => Some(self.simple(fs, iw)?),
                    };
                    self.index_vars(p, konst, dynamic)?
                }
                Ptr::Builtin {
                    builtin,
                    lane: None,
                    ty,
                } => {
                    let i = konst.ok_or_else(|| unsupported("dynamic index into a builtin"))?;
                    let elem = match self.l.get(ty)? {
                        SpvType::Vector { elem, n } if i < *n => *elem,
                        // gl_SampleMaskIn[0]
                        SpvType::Array { elem, len } if i < *len => *elem,
                        _ => return Err(invalid("builtin index out of range")),
                    };
                    Ptr::Builtin {
                        builtin,
                        lane: Some(i),
                        ty: elem,
                    }
                }
                Ptr::Image { image, sampler, ty } => {
                    self.index_image(fs, image, sampler, ty, konst, iw)?
                }
                // Vulkan 1.0 indexes arrays of input attachments with constants only
                // (inputAttachmentArrayDynamicIndexing is not offered).
                Ptr::InputAttachment { index, ms, elems } if elems > 0 => {
                    let i = konst.ok_or_else(|| {
                        unsupported("dynamic index into an array of subpass inputs")
                    })?;
                    if i >= elems {
                        return Err(invalid("subpass input array index out of range"));
                    }
                    Ptr::InputAttachment {
                        index: index + i,
                        ms,
                        elems: 0,
                    }
                }
                _ => return Err(invalid("access chain indexes a scalar")),
            };
        }
        Ok(Entry::Ptr(p))
    }

    /// One access-chain step into a place held in Vars: a constant index picks a part, a
    /// dynamic one makes a [`Ptr::Choice`] over every part it may pick.
    fn index_vars(
        &mut self,
        p: Ptr,
        konst: Option<u32>,
        dynamic: Option<Value>,
    ) -> Result<Ptr, CompileError> {
        match (p, konst, dynamic) {
            (Ptr::Vars { tree, ty }, Some(i), _) => {
                let kids = self.l.children(ty)?;
                let kty = *kids
                    .get(i as usize)
                    .ok_or_else(|| invalid("index out of range"))?;
                Ok(match tree {
                    VarTree::Node(mut ts) => {
                        if (i as usize) >= ts.len() {
                            return Err(invalid("index out of range"));
                        }
                        Ptr::Vars {
                            tree: ts.swap_remove(i as usize),
                            ty: kty,
                        }
                    }
                    VarTree::Leaf(var) => Ptr::VarLane { var, lane: i as u8 },
                })
            }
            (Ptr::Vars { tree, ty }, None, Some(idx)) => {
                if matches!(self.l.get(ty)?, SpvType::Struct { .. }) {
                    return Err(invalid("struct index is not a constant"));
                }
                let n = self.l.children(ty)?.len();
                if n > MAX_CHOICE_ARMS {
                    return Err(unsupported(format!(
                        "dynamic index into an interface array of {n} elements"
                    )));
                }
                let it = self.sh.ty(idx);
                let mut arms = Vec::with_capacity(n);
                for k in 0..n as u32 {
                    let kc = self.konst(it, vec![u64::from(k)])?;
                    let c = self.emit(Type::BOOL, ir::Op::Cmp(CmpOp::IEq, idx, kc))?;
                    let sub = Ptr::Vars {
                        tree: tree.clone(),
                        ty,
                    };
                    arms.push((c, self.index_vars(sub, Some(k), None)?));
                }
                let ty = self.l.children(ty)?.first().copied().unwrap_or(ty);
                Ok(Ptr::Choice { arms, ty })
            }
            (p @ Ptr::PerVertex { .. }, _, _) => self.index_per_vertex(p, konst, dynamic),
            (Ptr::Choice { arms, ty }, _, _) => {
                let kty = match self.l.children(ty)?.get(konst.unwrap_or(0) as usize) {
                    Some(t) => *t,
                    None => return Err(invalid("index out of range")),
                };
                let mut out = Vec::new();
                for (c, p) in arms {
                    match self.index_vars(p, konst, dynamic)? {
                        Ptr::Choice { arms: inner, .. } => {
                            for (c2, q) in inner {
                                let both =
                                    self.emit(Type::BOOL, ir::Op::Binary(BinOp::And, c, c2))?;
                                out.push((both, q));
                            }
                        }
                        q => out.push((c, q)),
                    }
                    if out.len() > MAX_CHOICE_ARMS {
                        return Err(unsupported(
                            "dynamic indices into an interface variable with too many elements",
                        ));
                    }
                }
                Ok(Ptr::Choice { arms: out, ty: kty })
            }
            _ => Err(invalid("access chain indexes a scalar")),
        }
    }

    /// Byte address of `off + extra` behind a memory pointer.
    pub(super) fn address(
        &mut self,
        base: &Base,
        off: u32,
        dyn_off: Option<Value>,
        extra: u32,
    ) -> Result<(Space, Value), CompileError> {
        let total = off
            .checked_add(extra)
            .ok_or_else(|| invalid("offset overflow"))?;
        let c = |tr: &mut Self, v: u32| tr.u32c(v);
        let off32 = |tr: &mut Self| -> Result<Value, CompileError> {
            let k = c(tr, total)?;
            match dyn_off {
                None => Ok(k),
                Some(d) => tr.emit(Type::I32, ir::Op::Binary(BinOp::IAdd, d, k)),
            }
        };
        Ok(match base {
            Base::Descriptor {
                set,
                binding,
                index,
            } => {
                let o = off32(self)?;
                let d = self.emit(
                    Type::I64,
                    ir::Op::DescriptorAddress {
                        set: *set,
                        binding: *binding,
                        index: *index,
                    },
                )?;
                let o64 = self.emit(Type::I64, ir::Op::Conv(ConvOp::UToU, o))?;
                (
                    Space::Global,
                    self.emit(Type::I64, ir::Op::Binary(BinOp::IAdd, d, o64))?,
                )
            }
            Base::Address(a) => {
                // The pointer is marked so that lower_descriptors knows it as the
                // application's address; the offset is added as address arithmetic, so
                // accesses through one pointer share its base.
                let pa = self.emit(Type::I64, ir::Op::PhysicalAddress(*a))?;
                if total == 0 && dyn_off.is_none() {
                    return Ok((Space::Global, pa));
                }
                let o = off32(self)?;
                let o64 = self.emit(Type::I64, ir::Op::Conv(ConvOp::UToU, o))?;
                (
                    Space::Global,
                    self.emit(Type::I64, ir::Op::Binary(BinOp::IAdd, pa, o64))?,
                )
            }
            Base::Shared => (Space::Shared, off32(self)?),
            Base::Scratch => (Space::Scratch, off32(self)?),
            Base::Root if dyn_off.is_some() => {
                // Uniform registers are named by constants, so a dynamic index reads the push
                // constants from memory, through the root table's address in the root table.
                // lower_descriptors keeps the access inside the push constants.
                let at = c(self, abi::ROOT_ADDRESS_OFFSET)?;
                let root = self.emit(
                    Type::I64,
                    ir::Op::Load {
                        space: Space::Root,
                        addr: at,
                        align: 8,
                    },
                )?;
                let o = off32(self)?;
                let push = c(self, abi::PUSH_CONSTANTS_OFFSET)?;
                let o = self.emit(Type::I32, ir::Op::Binary(BinOp::IAdd, o, push))?;
                let o64 = self.emit(Type::I64, ir::Op::Conv(ConvOp::UToU, o))?;
                (
                    Space::Global,
                    self.emit(Type::I64, ir::Op::Binary(BinOp::IAdd, root, o64))?,
                )
            }
            Base::Root => {
                let a = total
                    .checked_add(abi::PUSH_CONSTANTS_OFFSET)
                    .ok_or_else(|| invalid("offset overflow"))?;
                (Space::Root, c(self, a)?)
            }
        })
    }

    fn load_simple(
        &mut self,
        base: &Base,
        off: u32,
        dyn_off: Option<Value>,
        ty: Word,
        lane_stride: u32,
    ) -> Result<Value, CompileError> {
        let t = self.l.ir_type(ty)?;
        let mem_t = if t.scalar == Scalar::Bool {
            Type::vec(Scalar::I32, t.lanes)
        } else {
            t
        };
        let wide = t.scalar == Scalar::I64;
        let lane_stride = if wide { 8 } else { lane_stride };
        let v = if t.lanes == 1 || lane_stride == 4 {
            let (space, addr) = self.address(base, off, dyn_off, 0)?;
            self.emit(
                mem_t,
                ir::Op::Load {
                    space,
                    addr,
                    align: (mem_t.scalar.bits() / 8).clamp(1, 8),
                },
            )?
        } else {
            let mut lanes = Vec::new();
            for i in 0..t.lanes as u32 {
                let (space, addr) = self.address(base, off, dyn_off, i * lane_stride)?;
                lanes.push(self.emit(
                    Type::scalar(mem_t.scalar),
                    ir::Op::Load {
                        space,
                        addr,
                        align: (mem_t.scalar.bits() / 8).clamp(1, 4),
                    },
                )?);
            }
            self.emit(mem_t, ir::Op::Vector(lanes))?
        };
        if t.scalar == Scalar::Bool {
            let z = self.konst(mem_t, vec![0; t.lanes as usize])?;
            return self.emit(t, ir::Op::Cmp(CmpOp::INe, v, z));
        }
        Ok(v)
    }

    fn store_simple(
        &mut self,
        base: &Base,
        off: u32,
        dyn_off: Option<Value>,
        ty: Word,
        lane_stride: u32,
        v: Value,
    ) -> Result<(), CompileError> {
        let t = self.l.ir_type(ty)?;
        if self.sh.ty(v) != t {
            return Err(invalid("stored value type differs from the pointee type"));
        }
        let mut v = v;
        if t.scalar == Scalar::Bool {
            v = self.emit(
                Type::vec(Scalar::I32, t.lanes),
                ir::Op::Conv(ConvOp::BoolToInt, v),
            )?;
        }
        let lane_stride = if t.scalar == Scalar::I64 {
            8
        } else {
            lane_stride
        };
        if t.lanes == 1 || lane_stride == 4 {
            let (space, addr) = self.address(base, off, dyn_off, 0)?;
            if space == Space::Root {
                return Err(invalid("store to push constants"));
            }
            return self.effect(ir::Op::Store {
                space,
                addr,
                value: v,
                align: (self.sh.ty(v).scalar.bits() / 8).clamp(1, 8),
            });
        }
        for i in 0..t.lanes {
            let lane = self.emit(
                Type::scalar(Scalar::I32.max_like(t.scalar)),
                ir::Op::Extract(v, i),
            )?;
            let (space, addr) = self.address(base, off, dyn_off, i as u32 * lane_stride)?;
            self.effect(ir::Op::Store {
                space,
                addr,
                value: lane,
                align: (t.scalar.bits() / 8).clamp(1, 4),
            })?;
        }
        Ok(())
    }

    fn mem_walk(
        &mut self,
        ty: Word,
        mat: Option<MatLayout>,
    ) -> Result<Vec<MemChild>, CompileError> {
        // Children of a composite in memory: (offset, type, matrix layout, lane stride).
        Ok(match self.l.get(ty)?.clone() {
            SpvType::Struct { members } => (0..members.len() as u32)
                .map(|i| {
                    Ok((
                        self.l.member_offset(ty, &members, i)?,
                        members[i as usize],
                        self.l.member_mat(ty, i),
                        4,
                    ))
                })
                .collect::<Result<_, CompileError>>()?,
            SpvType::Array { elem, len } => {
                if len > 4096 {
                    return Err(unsupported("copying an array of more than 4096 elements"));
                }
                let s = self.l.array_stride(ty, elem)?;
                (0..len).map(|i| (i * s, elem, mat, 4)).collect()
            }
            SpvType::Matrix { col, cols } => {
                let m = match mat {
                    Some(m) => m,
                    None => self.l.default_mat(col)?,
                };
                let c = self.l.component_bytes(col)?;
                (0..cols)
                    .map(|i| {
                        if m.row_major {
                            (i * c, col, Some(m), m.stride)
                        } else {
                            (i * m.stride, col, Some(m), 4)
                        }
                    })
                    .collect()
            }
            SpvType::RuntimeArray { .. } => {
                return Err(unsupported("loading a runtime array as a value"))
            }
            other => return Err(invalid(format!("cannot load {other:?}"))),
        })
    }

    fn load_mem(
        &mut self,
        base: &Base,
        off: u32,
        dyn_off: Option<Value>,
        ty: Word,
        mat: Option<MatLayout>,
        ls: u32,
    ) -> Result<FVal, CompileError> {
        if self.l.is_simple(ty)? {
            return Ok(FVal::V(self.load_simple(base, off, dyn_off, ty, ls)?));
        }
        let mut out = Vec::new();
        for (o, t, m, ls) in self.mem_walk(ty, mat)? {
            out.push(
                self.load_mem(
                    base,
                    off.checked_add(o)
                        .ok_or_else(|| invalid("offset overflow"))?,
                    dyn_off,
                    t,
                    m,
                    ls,
                )?,
            );
        }
        Ok(FVal::C(out))
    }

    #[allow(clippy::too_many_arguments)] // the pointer's parts, as `Ptr::Mem` holds them
    fn store_mem(
        &mut self,
        base: &Base,
        off: u32,
        dyn_off: Option<Value>,
        ty: Word,
        mat: Option<MatLayout>,
        ls: u32,
        v: &FVal,
    ) -> Result<(), CompileError> {
        if self.l.is_simple(ty)? {
            let FVal::V(v) = v else {
                return Err(invalid("stored composite where a scalar is expected"));
            };
            return self.store_simple(base, off, dyn_off, ty, ls, *v);
        }
        let FVal::C(parts) = v else {
            return Err(invalid("stored scalar where a composite is expected"));
        };
        let walk = self.mem_walk(ty, mat)?;
        if walk.len() != parts.len() {
            return Err(invalid("stored value does not match the pointee type"));
        }
        for ((o, t, m, ls), part) in walk.into_iter().zip(parts) {
            self.store_mem(
                base,
                off.checked_add(o)
                    .ok_or_else(|| invalid("offset overflow"))?,
                dyn_off,
                t,
                m,
                ls,
                part,
            )?;
        }
        Ok(())
    }

    fn load_tree(&mut self, tree: &VarTree) -> Result<FVal, CompileError> {
        Ok(match tree {
            VarTree::Leaf(var) => {
                let t = self.sh.var_types[var.0 as usize];
                FVal::V(self.emit(t, ir::Op::LoadVar(*var))?)
            }
            VarTree::Node(ts) => FVal::C(
                ts.iter()
                    .map(|t| self.load_tree(t))
                    .collect::<Result<_, _>>()?,
            ),
        })
    }

    fn store_tree(&mut self, tree: &VarTree, v: &FVal) -> Result<(), CompileError> {
        match (tree, v) {
            (VarTree::Leaf(var), FVal::V(v)) => {
                if self.sh.var_types[var.0 as usize] != self.sh.ty(*v) {
                    return Err(invalid("stored value type differs from the variable's"));
                }
                self.effect(ir::Op::StoreVar(*var, *v))
            }
            (VarTree::Node(ts), FVal::C(vs)) if ts.len() == vs.len() => {
                for (t, v) in ts.iter().zip(vs) {
                    self.store_tree(t, v)?;
                }
                Ok(())
            }
            _ => Err(invalid("stored value does not match the variable's type")),
        }
    }

    pub fn load(&mut self, p: &Ptr) -> Result<FVal, CompileError> {
        match p {
            Ptr::Mem {
                base,
                off,
                dyn_off,
                ty,
                mat,
                lane_stride,
            } => self.load_mem(base, *off, *dyn_off, *ty, *mat, *lane_stride),
            Ptr::Vars { tree, .. } => self.load_tree(tree),
            Ptr::Choice { arms, .. } => {
                let mut acc: Option<FVal> = None;
                for (c, p) in arms.iter().rev() {
                    let v = self.load(p)?;
                    acc = Some(match acc {
                        None => v,
                        Some(a) => self.select_fval(*c, &v, &a)?,
                    });
                }
                acc.ok_or_else(|| invalid("dynamic index into an empty composite"))
            }
            Ptr::VarLane { var, lane, .. } => {
                let t = self.sh.var_types[var.0 as usize];
                let v = self.emit(t, ir::Op::LoadVar(*var))?;
                Ok(FVal::V(
                    self.emit(Type::scalar(t.scalar), ir::Op::Extract(v, *lane))?,
                ))
            }
            Ptr::Builtin { builtin, lane, ty } => self.load_builtin(*builtin, *lane, *ty),
            Ptr::PerVertex { vertex, slots, .. } => self.load_per_vertex(*vertex, slots),
            Ptr::InputAttachment { .. } => Err(invalid("subpass input read as a value")),
            Ptr::Image { .. } => Err(invalid("image or sampler read as a value")),
            Ptr::Texel { .. } => Err(invalid("image texel pointer read by OpLoad")),
        }
    }

    pub fn store(&mut self, p: &Ptr, v: &FVal) -> Result<(), CompileError> {
        match p {
            Ptr::Mem {
                base,
                off,
                dyn_off,
                ty,
                mat,
                lane_stride,
            } => self.store_mem(base, *off, *dyn_off, *ty, *mat, *lane_stride, v),
            Ptr::Vars { tree, .. } => self.store_tree(tree, v),
            Ptr::Choice { arms, .. } => {
                for (c, p) in arms {
                    let old = self.load(p)?;
                    let new = self.select_fval(*c, v, &old)?;
                    self.store(p, &new)?;
                }
                Ok(())
            }
            Ptr::VarLane { var, lane, .. } => {
                let FVal::V(x) = v else {
                    return Err(invalid("stored composite into a vector lane"));
                };
                let t = self.sh.var_types[var.0 as usize];
                let old = self.emit(t, ir::Op::LoadVar(*var))?;
                let new = self.emit(t, ir::Op::Insert(old, *lane, *x))?;
                self.effect(ir::Op::StoreVar(*var, new))
            }
            Ptr::Builtin { .. } => Err(invalid("store to an input builtin")),
            Ptr::PerVertex { .. } => Err(invalid("store to a geometry shader input")),
            Ptr::InputAttachment { .. } => Err(invalid("store to a subpass input")),
            Ptr::Image { .. } => Err(invalid("store to an image or sampler variable")),
            Ptr::Texel { .. } => Err(invalid("image texel pointer written by OpStore")),
        }
    }

    fn load_builtin(
        &mut self,
        b: BuiltIn,
        lane: Option<u32>,
        ty: Word,
    ) -> Result<FVal, CompileError> {
        if let Some(v) = self.load_stage_builtin(b, lane, ty)? {
            return Ok(v);
        }
        if let Some(v) = self.subgroup_builtin(b, lane, ty)? {
            return Ok(v);
        }
        let one = |tr: &mut Self, i: u8| -> Result<Value, CompileError> {
            let sv = match b {
                BuiltIn::LocalInvocationId => SysVal::LocalInvocationId(i),
                BuiltIn::WorkgroupId => {
                    // SysVal::WorkgroupId is the hardware's; SPIR-V's includes the base of
                    // vkCmdDispatchBase.
                    let g = tr.emit(Type::I32, ir::Op::SysVal(SysVal::WorkgroupId(i)))?;
                    let a = tr.u32c(abi::BASE_WORKGROUP_OFFSET + 4 * i as u32)?;
                    let b = tr.emit(
                        Type::I32,
                        ir::Op::Load {
                            space: Space::Root,
                            addr: a,
                            align: 4,
                        },
                    )?;
                    return tr.emit(Type::I32, ir::Op::Binary(BinOp::IAdd, g, b));
                }
                BuiltIn::GlobalInvocationId => SysVal::GlobalInvocationId(i),
                BuiltIn::WorkgroupSize => SysVal::WorkgroupSize(i),
                BuiltIn::LocalInvocationIndex => SysVal::LocalInvocationIndex,
                // agx4's device groups have one device.
                BuiltIn::DeviceIndex => return tr.u32c(0),
                BuiltIn::NumWorkgroups => {
                    let a = tr.u32c(abi::NUM_WORKGROUPS_OFFSET + 4 * i as u32)?;
                    return tr.emit(
                        Type::I32,
                        ir::Op::Load {
                            space: Space::Root,
                            addr: a,
                            align: 4,
                        },
                    );
                }
                other => return Err(unsupported(format!("builtin {other:?}"))),
            };
            tr.emit(Type::I32, ir::Op::SysVal(sv))
        };
        let t = self.l.ir_type(ty)?;
        if t.scalar != Scalar::I32 {
            return Err(invalid("builtin of a non-integer type"));
        }
        if let Some(l) = lane {
            return Ok(FVal::V(one(self, l as u8)?));
        }
        if t.lanes == 1 {
            return Ok(FVal::V(one(self, 0)?));
        }
        let lanes = (0..t.lanes)
            .map(|i| one(self, i))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(FVal::V(self.emit(t, ir::Op::Vector(lanes))?))
    }

    pub fn atomic(&mut self, fs: &mut FnState<'m>, inst: &Instruction) -> Result<(), CompileError> {
        let op = inst.class.opcode;
        let p = self.ptr(fs, id(inst, 0)?)?;
        if let Ptr::Texel { .. } = p {
            return self.image_atomic(fs, inst, p);
        }
        let Ptr::Mem {
            base,
            off,
            dyn_off,
            ty,
            ..
        } = &p
        else {
            return Err(unsupported("atomics on function-local variables"));
        };
        match self.l.ir_type(*ty)? {
            Type::I32 => {}
            Type::I64 => {
                return Err(unsupported(
                    "64-bit atomics (shaderBufferInt64Atomics / shaderSharedInt64Atomics)",
                ))
            }
            _ => return Err(unsupported("atomics on non-32-bit-integer types")),
        }
        let (space, addr) = self.address(base, *off, *dyn_off, 0)?;
        if !matches!(space, Space::Global | Space::Shared) {
            return Err(unsupported("atomics outside buffers and workgroup memory"));
        }
        if op == Op::AtomicStore {
            let v = self.simple(fs, id(inst, 3)?)?;
            return self.effect(ir::Op::Store {
                space,
                addr,
                value: v,
                align: 4,
            });
        }
        let rid = result_id(inst)?;
        let r = match op {
            Op::AtomicLoad => self.emit(
                Type::I32,
                ir::Op::Load {
                    space,
                    addr,
                    align: 4,
                },
            )?,
            Op::AtomicIIncrement | Op::AtomicIDecrement => {
                let one = self.u32c(1)?;
                let aop = if op == Op::AtomicIIncrement {
                    AtomicOp::Add
                } else {
                    AtomicOp::Sub
                };
                self.emit(
                    Type::I32,
                    ir::Op::Atomic {
                        space,
                        op: aop,
                        addr,
                        value: one,
                        cmp: None,
                    },
                )?
            }
            Op::AtomicCompareExchange => {
                let value = self.simple(fs, id(inst, 4)?)?;
                let cmp = self.simple(fs, id(inst, 5)?)?;
                self.emit(
                    Type::I32,
                    ir::Op::Atomic {
                        space,
                        op: AtomicOp::CompareExchange,
                        addr,
                        value,
                        cmp: Some(cmp),
                    },
                )?
            }
            _ => {
                let aop = match op {
                    Op::AtomicIAdd => AtomicOp::Add,
                    Op::AtomicISub => AtomicOp::Sub,
                    Op::AtomicSMin => AtomicOp::SMin,
                    Op::AtomicUMin => AtomicOp::UMin,
                    Op::AtomicSMax => AtomicOp::SMax,
                    Op::AtomicUMax => AtomicOp::UMax,
                    Op::AtomicAnd => AtomicOp::And,
                    Op::AtomicOr => AtomicOp::Or,
                    Op::AtomicXor => AtomicOp::Xor,
                    Op::AtomicExchange => AtomicOp::Exchange,
                    other => return Err(unsupported(format!("{other:?}"))),
                };
                let value = self.simple(fs, id(inst, 3)?)?;
                if self.sh.ty(value) != Type::I32 {
                    return Err(invalid("atomic operand is not a 32-bit integer"));
                }
                self.emit(
                    Type::I32,
                    ir::Op::Atomic {
                        space,
                        op: aop,
                        addr,
                        value,
                        cmp: None,
                    },
                )?
            }
        };
        self.define(fs, rid, Entry::Val(FVal::V(r)))
    }

    pub fn array_length(
        &mut self,
        fs: &mut FnState<'m>,
        inst: &Instruction,
    ) -> Result<(), CompileError> {
        let p = self.ptr(fs, id(inst, 0)?)?;
        let member = super::constants::literal(inst, 1)?;
        let Ptr::Mem {
            base:
                Base::Descriptor {
                    set,
                    binding,
                    index,
                },
            off,
            ty,
            ..
        } = p
        else {
            return Err(invalid("OpArrayLength of something that is not a buffer"));
        };
        let SpvType::Struct { members } = self.l.get(ty)?.clone() else {
            return Err(invalid("OpArrayLength of a non-struct"));
        };
        let mty = *members
            .get(member as usize)
            .ok_or_else(|| invalid("OpArrayLength member out of range"))?;
        let SpvType::RuntimeArray { elem } = self.l.get(mty)?.clone() else {
            return Err(invalid(
                "OpArrayLength of a member that is not a runtime array",
            ));
        };
        let moff = off + self.l.member_offset(ty, &members, member)?;
        let stride = self.l.array_stride(mty, elem)?;
        let size = self.emit(
            Type::I32,
            ir::Op::DescriptorSize {
                set,
                binding,
                index,
            },
        )?;
        let o = self.u32c(moff)?;
        // A range shorter than the fixed part has no elements.
        let rest = self.emit(Type::I32, ir::Op::Binary(BinOp::ISub, size, o))?;
        let lt = self.emit(Type::BOOL, ir::Op::Cmp(CmpOp::ULt, size, o))?;
        let z = self.u32c(0)?;
        let rest = self.emit(Type::I32, ir::Op::Select(lt, z, rest))?;
        let s = self.u32c(stride)?;
        let n = self.emit(Type::I32, ir::Op::Binary(BinOp::UDiv, rest, s))?;
        self.define(fs, result_id(inst)?, Entry::Val(FVal::V(n)))
    }
}

trait MaxLike {
    fn max_like(self, other: Scalar) -> Scalar;
}

impl MaxLike for Scalar {
    /// The scalar type stored lanes of a vector have (bools are stored as I32 already).
    fn max_like(self, other: Scalar) -> Scalar {
        if other == Scalar::Bool {
            self
        } else {
            other
        }
    }
}
