//! Vulkan-level fixed-function values in G13's terms.

use crate::topology::{IndexSize, Topology};
use ash::vk;
use hw::g13::control::descriptors::{StencilOp, ZsFunc};
use hw::g13::control::ppp::PolygonMode;
use hw::g13::control::vdm::{self, Primitive};

/// A depth or stencil comparison; values outside the enum compare as always.
pub fn zs_func(op: vk::CompareOp) -> ZsFunc {
    match op {
        vk::CompareOp::NEVER => ZsFunc::Never,
        vk::CompareOp::LESS => ZsFunc::Less,
        vk::CompareOp::EQUAL => ZsFunc::Equal,
        vk::CompareOp::LESS_OR_EQUAL => ZsFunc::Lequal,
        vk::CompareOp::GREATER => ZsFunc::Greater,
        vk::CompareOp::NOT_EQUAL => ZsFunc::NotEqual,
        vk::CompareOp::GREATER_OR_EQUAL => ZsFunc::Gequal,
        _ => ZsFunc::Always,
    }
}

/// A stencil operation; values outside the enum keep.
pub fn stencil_op(op: vk::StencilOp) -> StencilOp {
    match op {
        vk::StencilOp::ZERO => StencilOp::Zero,
        vk::StencilOp::REPLACE => StencilOp::Replace,
        vk::StencilOp::INCREMENT_AND_CLAMP => StencilOp::IncrSat,
        vk::StencilOp::DECREMENT_AND_CLAMP => StencilOp::DecrSat,
        vk::StencilOp::INVERT => StencilOp::Invert,
        vk::StencilOp::INCREMENT_AND_WRAP => StencilOp::IncrWrap,
        vk::StencilOp::DECREMENT_AND_WRAP => StencilOp::DecrWrap,
        _ => StencilOp::Keep,
    }
}

/// A polygon mode; pipelines and vkCmdSetPolygonModeEXT accept only these three.
pub fn polygon_mode(mode: vk::PolygonMode) -> PolygonMode {
    match mode {
        vk::PolygonMode::LINE => PolygonMode::Line,
        vk::PolygonMode::POINT => PolygonMode::Point,
        _ => PolygonMode::Fill,
    }
}

pub fn primitive(t: Topology) -> Primitive {
    match t {
        Topology::Points => Primitive::Points,
        Topology::Lines => Primitive::Lines,
        Topology::LineStrip => Primitive::LineStrip,
        Topology::Triangles => Primitive::Triangles,
        Topology::TriangleStrip => Primitive::TriangleStrip,
        Topology::TriangleFan => Primitive::TriangleFan,
    }
}

pub fn index_size(s: IndexSize) -> vdm::IndexSize {
    match s {
        IndexSize::U8 => vdm::IndexSize::U8,
        IndexSize::U16 => vdm::IndexSize::U16,
        IndexSize::U32 => vdm::IndexSize::U32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// G13 numbers comparisons and stencil operations as Vulkan does; the tables must agree
    /// with the hardware enums' values for every defined Vulkan value.
    #[test]
    fn comparisons_and_stencil_ops_keep_vulkan_numbering() {
        for raw in 0..8 {
            assert_eq!(zs_func(vk::CompareOp::from_raw(raw)).bits(), raw as u64);
            assert_eq!(stencil_op(vk::StencilOp::from_raw(raw)).bits(), raw as u64);
        }
    }
}
