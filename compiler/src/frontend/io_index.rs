//! Non-constant access-chain indices into the Input and Output variables of a graphics
//! stage. Those variables live in Vars (see `stage_io`), which cannot be indexed: the index
//! makes a `Ptr::Choice` of every element it may name, reads select among the elements and
//! writes go to each element under a select, so only the named one changes.

use spirv::Word;

use super::module::invalid;
use super::translate::{FnState, Tr};
use super::values::{FVal, Ptr, VarTree};
use crate::ir::{self, CmpOp, ConvOp, Type, Value, Var};
use crate::CompileError;

impl<'m> Tr<'m> {
    /// Whether `p` points into an Input or Output variable of a graphics stage, the Vars
    /// whose elements non-constant access-chain indices may name (as a `Choice`).
    pub fn is_stage_io_ptr(&self, p: &Ptr) -> bool {
        let io =
            |v: &Var| self.input_slots.contains_key(v) || self.outputs.iter().any(|(o, _)| o == v);
        fn leaves_in(t: &VarTree, io: &dyn Fn(&Var) -> bool) -> bool {
            match t {
                VarTree::Leaf(v) => io(v),
                VarTree::Node(ts) => ts.iter().all(|t| leaves_in(t, io)),
            }
        }
        match p {
            Ptr::Vars { tree, .. } => leaves_in(tree, &io),
            Ptr::VarLane { var, .. } => io(var),
            Ptr::Choice { options, .. } => options.iter().all(|o| self.is_stage_io_ptr(o)),
            _ => false,
        }
    }

    /// One access-chain step into an Input or Output variable: a constant index picks the
    /// element, a non-constant one makes a `Choice` of all of them.
    pub fn io_step(
        &mut self,
        fs: &FnState<'m>,
        p: Ptr,
        konst: Option<u32>,
        iw: Word,
    ) -> Result<Ptr, CompileError> {
        match (p, konst) {
            (Ptr::Choice { index, options }, _) => Ok(Ptr::Choice {
                index,
                options: options
                    .into_iter()
                    .map(|o| self.io_step(fs, o, konst, iw))
                    .collect::<Result<_, _>>()?,
            }),
            (Ptr::Vars { tree, ty }, Some(i)) => {
                let kty = *self
                    .l
                    .children(ty)?
                    .get(i as usize)
                    .ok_or_else(|| invalid("index out of range"))?;
                match tree {
                    VarTree::Node(mut ts) if (i as usize) < ts.len() => Ok(Ptr::Vars {
                        tree: ts.swap_remove(i as usize),
                        ty: kty,
                    }),
                    VarTree::Node(_) => Err(invalid("index out of range")),
                    VarTree::Leaf(var) => Ok(Ptr::VarLane { var, lane: i as u8 }),
                }
            }
            (p @ Ptr::Vars { .. }, None) => {
                let Ptr::Vars { ty, .. } = &p else {
                    return Err(invalid("access chain into an input"));
                };
                let n = self.l.children(*ty)?.len() as u32;
                let index = self.simple(fs, iw)?;
                let index = match self.sh.ty(index) {
                    Type::I32 => index,
                    Type::I64 => self.emit(Type::I32, ir::Op::Conv(ConvOp::UToU, index))?,
                    _ => return Err(invalid("access chain index is not an integer")),
                };
                let options = (0..n)
                    .map(|i| self.io_step(fs, p.clone(), Some(i), iw))
                    .collect::<Result<_, _>>()?;
                Ok(Ptr::Choice { index, options })
            }
            _ => Err(invalid("access chain indexes a scalar")),
        }
    }

    /// Reads a `Choice` pointer: every option, then the one `index` names (the last one for
    /// an index out of range, which SPIR-V leaves undefined).
    pub fn load_choice(&mut self, p: &Ptr) -> Result<FVal, CompileError> {
        let Ptr::Choice { index, options } = p else {
            return self.load(p);
        };
        let vals = options
            .iter()
            .map(|o| self.load(o))
            .collect::<Result<Vec<_>, _>>()?;
        self.select_among(*index, vals)
    }

    /// Writes through a `Choice` pointer: every option keeps its value but the one `index`
    /// names, which gets `v`.
    pub fn store_choice(&mut self, p: &Ptr, v: &FVal) -> Result<(), CompileError> {
        let Ptr::Choice { index, options } = p else {
            return self.store(p, v);
        };
        for (i, o) in options.iter().enumerate() {
            let old = self.load(o)?;
            let k = self.u32c(i as u32)?;
            let c = self.cmp(CmpOp::IEq, *index, k)?;
            let new = self.select_fval(c, v, &old)?;
            self.store_choice(o, &new)?;
        }
        Ok(())
    }

    pub(super) fn select_among(
        &mut self,
        index: Value,
        vals: Vec<FVal>,
    ) -> Result<FVal, CompileError> {
        let mut it = vals.into_iter().enumerate().rev();
        let (_, mut acc) = it.next().ok_or_else(|| invalid("empty composite"))?;
        for (i, v) in it {
            let k = self.u32c(i as u32)?;
            let c = self.cmp(CmpOp::IEq, index, k)?;
            acc = self.select_fval(c, &v, &acc)?;
        }
        Ok(acc)
    }
}
