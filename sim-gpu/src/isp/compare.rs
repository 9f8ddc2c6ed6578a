//! The eight comparison functions shared by the depth and stencil tests.

use hw::g13::control::descriptors::{CompareFunc, ZsFunc};

/// A Vulkan `VkCompareOp`. The incoming value (fragment depth, or the masked stencil
/// reference) is the left operand, the stored value the right one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareOp {
    Never,
    Less,
    Equal,
    LessOrEqual,
    Greater,
    NotEqual,
    GreaterOrEqual,
    Always,
}

impl CompareOp {
    pub const ALL: [CompareOp; 8] = [
        CompareOp::Never,
        CompareOp::Less,
        CompareOp::Equal,
        CompareOp::LessOrEqual,
        CompareOp::Greater,
        CompareOp::NotEqual,
        CompareOp::GreaterOrEqual,
        CompareOp::Always,
    ];

    /// Whether `incoming op stored` holds.
    pub fn test<T: PartialOrd>(self, incoming: T, stored: T) -> bool {
        match self {
            CompareOp::Never => false,
            CompareOp::Less => incoming < stored,
            CompareOp::Equal => incoming == stored,
            CompareOp::LessOrEqual => incoming <= stored,
            CompareOp::Greater => incoming > stored,
            CompareOp::NotEqual => incoming != stored,
            CompareOp::GreaterOrEqual => incoming >= stored,
            CompareOp::Always => true,
        }
    }
}

impl From<ZsFunc> for CompareOp {
    fn from(f: ZsFunc) -> CompareOp {
        match f {
            ZsFunc::Never => CompareOp::Never,
            ZsFunc::Less => CompareOp::Less,
            ZsFunc::Equal => CompareOp::Equal,
            ZsFunc::Lequal => CompareOp::LessOrEqual,
            ZsFunc::Greater => CompareOp::Greater,
            ZsFunc::NotEqual => CompareOp::NotEqual,
            ZsFunc::Gequal => CompareOp::GreaterOrEqual,
            ZsFunc::Always => CompareOp::Always,
        }
    }
}

/// The sampler's encoding orders the functions differently; the meaning is the same.
impl From<CompareFunc> for CompareOp {
    fn from(f: CompareFunc) -> CompareOp {
        match f {
            CompareFunc::Never => CompareOp::Never,
            CompareFunc::Less => CompareOp::Less,
            CompareFunc::Equal => CompareOp::Equal,
            CompareFunc::Lequal => CompareOp::LessOrEqual,
            CompareFunc::Greater => CompareOp::Greater,
            CompareFunc::NotEqual => CompareOp::NotEqual,
            CompareFunc::Gequal => CompareOp::GreaterOrEqual,
            CompareFunc::Always => CompareOp::Always,
        }
    }
}
