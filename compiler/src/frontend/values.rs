//! What a SPIR-V id stands for during translation: a value (scalars and vectors are IR values;
//! structs, arrays and matrices are trees of them) or a pointer.

use crate::ir::{AtomicTarget, Value, Var};
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

/// Where each leaf of a geometry shader's per-vertex input comes from, shaped like its type
/// (a vector is one leaf; indexing it narrows `component` and `ty`).
#[derive(Debug, Clone)]
pub(super) enum SlotTree {
    Leaf {
        slot: crate::ir::PerVertexSlot,
        component: u8,
        ty: crate::ir::Type,
    },
    Node(Vec<SlotTree>),
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
    /// A physical storage buffer pointer's 64-bit address (frontend::physical).
    Address(Value),
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
    /// A dynamic index into a composite held in Vars: one arm per place it may name, each
    /// with the Bool that holds when it is the one (at most one holds; none for an index
    /// out of range). Loads select among the arms, stores write each arm conditionally.
    Choice {
        arms: Vec<(Value, Ptr)>,
        ty: Word,
    },
    /// Geometry shaders: an arrayed per-vertex Input variable (`vertex` None) or a part of
    /// one vertex's element of it; `ty` is the SPIR-V type pointed at (`super::geometry`).
    PerVertex {
        vertex: Option<Value>,
        slots: SlotTree,
        ty: Word,
    },
    /// A `subpassInput` variable, and also the image an OpLoad of it gives: the only use of
    /// that image is OpImageRead, which needs nothing but the attachment index. An array of
    /// them has `elems` > 0 and names its first element's index; element i reads attachment
    /// `index + i`, as the InputAttachmentIndex decoration of an array says.
    InputAttachment {
        index: u32,
        ms: bool,
        elems: u32,
    },
    /// A UniformConstant variable of an image, sampler or sampled image type (or an array
    /// of them), an element of one, and the value an OpLoad of it gives (OpSampledImage and
    /// OpImage make more): the descriptors it names. `ty` is the SPIR-V type of the
    /// variable's pointee or of the value.
    Image {
        image: Option<Handle>,
        sampler: Option<Handle>,
        ty: Word,
    },
    /// OpImageTexelPointer: one texel of a storage image or storage texel buffer, which only
    /// the atomic instructions use (`frontend::image_atomic`). `ty` is the texel's scalar
    /// type.
    Texel {
        image: Handle,
        target: AtomicTarget,
        coords: Vec<Value>,
        ty: Word,
    },
}

/// One descriptor binding element: `index` is the flattened array element (I32), `None` for
/// element 0.
#[derive(Debug, Clone, Copy)]
pub(super) struct Handle {
    pub set: u32,
    pub binding: u32,
    pub index: Option<Value>,
}

#[derive(Debug, Clone)]
pub(super) enum Entry {
    Val(FVal),
    Ptr(Ptr),
}

impl Ptr {
    /// The Values a pointer holds (what must travel to other blocks with it).
    fn values(&self, out: &mut Vec<Value>) {
        match self {
            Ptr::Mem { base, dyn_off, .. } => {
                match base {
                    Base::Descriptor { index, .. } => out.push(*index),
                    Base::Address(a) => out.push(*a),
                    _ => {}
                }
                out.extend(dyn_off.iter().copied());
            }
            Ptr::Choice { arms, .. } => {
                for (c, p) in arms {
                    out.push(*c);
                    p.values(out);
                }
            }
            Ptr::Image { image, sampler, .. } => {
                for h in [image, sampler].into_iter().flatten() {
                    out.extend(h.index);
                }
            }
            Ptr::Texel { image, coords, .. } => {
                out.extend(image.index);
                out.extend(coords.iter().copied());
            }
            _ => {}
        }
    }

    /// The same pointer with its Values replaced, in the order [`Ptr::values`] gives them.
    fn rebuild(&self, it: &mut dyn Iterator<Item = Value>) -> Ptr {
        match self {
            Ptr::Mem {
                base,
                off,
                dyn_off,
                ty,
                mat,
                lane_stride,
            } => {
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
                    Base::Address(a) => Base::Address(it.next().unwrap_or(*a)),
                    b => b.clone(),
                };
                let dyn_off = dyn_off.map(|d| it.next().unwrap_or(d));
                Ptr::Mem {
                    base,
                    off: *off,
                    dyn_off,
                    ty: *ty,
                    mat: *mat,
                    lane_stride: *lane_stride,
                }
            }
            Ptr::Choice { arms, ty } => Ptr::Choice {
                arms: arms
                    .iter()
                    .map(|(c, p)| {
                        let c = it.next().unwrap_or(*c);
                        (c, p.rebuild(it))
                    })
                    .collect(),
                ty: *ty,
            },
            Ptr::Image { image, sampler, ty } => {
                let mut re = |h: &Option<Handle>| {
                    h.map(|h| Handle {
                        index: h.index.map(|i| it.next().unwrap_or(i)),
                        ..h
                    })
                };
                let image = re(image);
                let sampler = re(sampler);
                Ptr::Image {
                    image,
                    sampler,
                    ty: *ty,
                }
            }
            Ptr::Texel {
                image,
                target,
                coords,
                ty,
            } => {
                let image = Handle {
                    index: image.index.map(|i| it.next().unwrap_or(i)),
                    ..*image
                };
                Ptr::Texel {
                    image,
                    target: *target,
                    coords: coords.iter().map(|c| it.next().unwrap_or(*c)).collect(),
                    ty: *ty,
                }
            }
            p => p.clone(),
        }
    }
}

impl Entry {
    pub fn values(&self) -> Vec<Value> {
        let mut out = Vec::new();
        match self {
            Entry::Val(f) => f.values(&mut out),
            Entry::Ptr(p) => p.values(&mut out),
        }
        out
    }

    pub fn rebuild(&self, it: &mut dyn Iterator<Item = Value>) -> Entry {
        match self {
            Entry::Val(f) => Entry::Val(f.rebuild(it)),
            Entry::Ptr(p) => Entry::Ptr(p.rebuild(it)),
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
