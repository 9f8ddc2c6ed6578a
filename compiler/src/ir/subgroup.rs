//! Subgroup operations (SPIR-V's GroupNonUniform instructions). A subgroup is one SIMD group
//! of [`SUBGROUP_SIZE`] invocations; "active" invocations are the ones executing the
//! operation (the others sit in a branch not taken, have left a loop, or have returned), and
//! only they contribute. In fragment shaders helper invocations are active.

use super::{BinOp, Value};

/// Invocations in a subgroup (one G13 SIMD group).
pub const SUBGROUP_SIZE: u32 = 32;

/// Which invocation a [`super::Op::LaneRead`] reads its value from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LaneRead {
    /// Invocation `n` (0..32) of the subgroup, active or not (an inactive one's value is
    /// undefined).
    Lane(u8),
    /// The invocation whose number is the reader's xor `n` (0..32).
    Xor(u8),
    /// Invocation `n` (0..4) of the reader's quad (the 2x2 block of a fragment quad, in
    /// `hw::isa::quad_lane` order; groups of four consecutive invocations elsewhere).
    QuadLane(u8),
    /// The invocation of the reader's quad whose quad index is the reader's xor `n` (1: the
    /// horizontal neighbour, 2: the vertical one, 3: the diagonal one).
    QuadXor(u8),
    /// The invocation numbered by this I32 value, which may differ between invocations
    /// (lowered by `passes::lower_subgroups`); out of range or inactive: undefined.
    Dynamic(Value),
}

/// What a [`super::Op::Reduce`] computes for each active invocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scan {
    /// The operation over every active invocation of the invocation's cluster.
    Reduce,
    /// Over the active invocations numbered up to and including this one.
    Inclusive,
    /// Over those numbered below this one (the identity for the first).
    Exclusive,
}

/// A reduction or scan: `op` is one of IAdd, IMul, FAdd, FMul, SMin, UMin, FMin, SMax, UMax,
/// FMax, And, Or, Xor (And/Or/Xor on Bool for the logical forms). `cluster` (a power of two
/// up to 32) splits the subgroup into clusters of consecutive invocations for `Reduce`; the
/// scans always span the subgroup (cluster 32).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reduction {
    pub op: BinOp,
    pub scan: Scan,
    pub cluster: u8,
}
