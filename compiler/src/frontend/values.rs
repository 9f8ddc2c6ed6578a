//! What a SPIR-V id stands for during translation: a value (scalars and vectors are IR values;
//! structs, arrays and matrices are trees of them) or a pointer.

use crate::ir::{Value, Var};
use spirv::{BuiltIn, Word};

use super::layout::MatLayout;

#[derive(Debug, Clone)]
pub(super) enum FVal {
    V(Value),
    C(Vec<FVal>),
}

impl FVal {
    pub fn values(&self, out: &mut Vec<Value>) {
        match self {
            FVal::V(v) => out.push(*v),
            FVal::C(cs) => cs.iter().for_each(|c| c.values(out)),
        }
    }

    pub fn rebuild(&self, it: &mut dyn Iterator<Item = Value>) -> FVal {
        match self {
            FVal::V(v) => FVal::V(it.next().unwrap_or(*v)),
            FVal::C(cs) => FVal::C(cs.iter().map(|c| c.rebuild(it)).collect()),
        }
    }
}

/// Variables holding a flattened Function/Private variable, shaped like its type.
#[derive(Debug, Clone)]
pub(super) enum VarTree {
    Leaf(Var),
    Node(Vec<VarTree>),
}

/// Where memory behind a pointer starts.
#[derive(Debug, Clone)]
pub(super) enum Base {
    Descriptor {
        set: u32,
        binding: u32,
        index: Value,
    },
    Shared,
    Scratch,
    Root,
}

#[derive(Debug, Clone)]
pub(super) enum Ptr {
    /// Bytes in memory: `base + off + dyn_off`.
    Mem {
        base: Base,
        off: u32,
        dyn_off: Option<Value>,
        /// The SPIR-V pointee type.
        ty: Word,
        /// Layout of the matrix this points at or into (from the enclosing struct member).
        mat: Option<MatLayout>,
        /// Bytes between the lanes of a pointed-at vector (4 unless it is a row-major column).
        lane_stride: u32,
    },
    Vars {
        tree: VarTree,
        ty: Word,
    },
    /// One lane of a vector held in a Var.
    VarLane {
        var: Var,
        lane: u8,
    },
    Builtin {
        builtin: BuiltIn,
        lane: Option<u32>,
        ty: Word,
    },
    /// A `subpassInput` variable, and also the image an OpLoad of it gives: the only use of
    /// that image is OpImageRead, which needs nothing but the attachment index.
    InputAttachment {
        index: u32,
        ms: bool,
    },
    /// `options[index]`: a part of an Input or Output variable named by a non-constant
    /// access-chain index (an element of an array, a component of a vector; see
    /// `io_index`). The options are `Vars`, `VarLane` or `Choice` pointers.
    Choice {
        index: Value,
        options: Vec<Ptr>,
    },
}

impl Ptr {
    /// The values a `Choice` pointer depends on, outermost first.
    fn choice_values(&self, out: &mut Vec<Value>) {
        if let Ptr::Choice { index, options } = self {
            out.push(*index);
            options.iter().for_each(|o| o.choice_values(out));
        }
    }

    fn choice_rebuild(&self, it: &mut dyn Iterator<Item = Value>) -> Ptr {
        match self {
            Ptr::Choice { index, options } => Ptr::Choice {
                index: it.next().unwrap_or(*index),
                options: options.iter().map(|o| o.choice_rebuild(it)).collect(),
            },
            p => p.clone(),
        }
    }
}

#[derive(Debug, Clone)]
pub(super) enum Entry {
    Val(FVal),
    Ptr(Ptr),
}

impl Entry {
    pub fn values(&self) -> Vec<Value> {
        let mut out = Vec::new();
        match self {
            Entry::Val(f) => f.values(&mut out),
            Entry::Ptr(Ptr::Mem { base, dyn_off, .. }) => {
                if let Base::Descriptor { index, .. } = base {
                    out.push(*index);
                }
                out.extend(dyn_off.iter().copied());
            }
            Entry::Ptr(p @ Ptr::Choice { .. }) => p.choice_values(&mut out),
            Entry::Ptr(_) => {}
        }
        out
    }

    pub fn rebuild(&self, it: &mut dyn Iterator<Item = Value>) -> Entry {
        match self {
            Entry::Val(f) => Entry::Val(f.rebuild(it)),
            Entry::Ptr(Ptr::Mem {
                base,
                off,
                dyn_off,
                ty,
                mat,
                lane_stride,
            }) => {
                let base = match base {
                    Base::Descriptor {
                        set,
                        binding,
                        index,
                    } => Base::Descriptor {
                        set: *set,
                        binding: *binding,
                        index: it.next().unwrap_or(*index),
                    },
                    b => b.clone(),
                };
                let dyn_off = dyn_off.map(|d| it.next().unwrap_or(d));
                Entry::Ptr(Ptr::Mem {
                    base,
                    off: *off,
                    dyn_off,
                    ty: *ty,
                    mat: *mat,
                    lane_stride: *lane_stride,
                })
            }
            Entry::Ptr(p @ Ptr::Choice { .. }) => Entry::Ptr(p.choice_rebuild(it)),
            Entry::Ptr(p) => Entry::Ptr(p.clone()),
        }
    }
}

/// A definition in the current function: the entry, the block instance it was made in, and
/// the Vars that carry it to other blocks.
#[derive(Debug, Clone)]
pub(super) struct Def {
    pub entry: Entry,
    pub instance: u32,
    pub spill: Option<Vec<Var>>,
}
