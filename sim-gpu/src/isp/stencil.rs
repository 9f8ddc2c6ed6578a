//! The stencil test and update for 8-bit stencil, with separate front and back state.

use super::compare::CompareOp;
use hw::g13::control::descriptors::StencilOp as HwStencilOp;

/// A Vulkan `VkStencilOp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StencilOp {
    Keep,
    Zero,
    Replace,
    IncrementAndClamp,
    DecrementAndClamp,
    Invert,
    IncrementAndWrap,
    DecrementAndWrap,
}

impl StencilOp {
    pub const ALL: [StencilOp; 8] = [
        StencilOp::Keep,
        StencilOp::Zero,
        StencilOp::Replace,
        StencilOp::IncrementAndClamp,
        StencilOp::DecrementAndClamp,
        StencilOp::Invert,
        StencilOp::IncrementAndWrap,
        StencilOp::DecrementAndWrap,
    ];

    /// The new stencil value before the write mask is applied.
    pub fn apply(self, stored: u8, reference: u8) -> u8 {
        match self {
            StencilOp::Keep => stored,
            StencilOp::Zero => 0,
            StencilOp::Replace => reference,
            StencilOp::IncrementAndClamp => stored.saturating_add(1),
            StencilOp::DecrementAndClamp => stored.saturating_sub(1),
            StencilOp::Invert => !stored,
            StencilOp::IncrementAndWrap => stored.wrapping_add(1),
            StencilOp::DecrementAndWrap => stored.wrapping_sub(1),
        }
    }
}

impl From<HwStencilOp> for StencilOp {
    fn from(op: HwStencilOp) -> StencilOp {
        match op {
            HwStencilOp::Keep => StencilOp::Keep,
            HwStencilOp::Zero => StencilOp::Zero,
            HwStencilOp::Replace => StencilOp::Replace,
            HwStencilOp::IncrSat => StencilOp::IncrementAndClamp,
            HwStencilOp::DecrSat => StencilOp::DecrementAndClamp,
            HwStencilOp::Invert => StencilOp::Invert,
            HwStencilOp::IncrWrap => StencilOp::IncrementAndWrap,
            HwStencilOp::DecrWrap => StencilOp::DecrementAndWrap,
        }
    }
}

/// Which face of a primitive a sample belongs to. Points and lines use the front state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Facing {
    Front,
    Back,
}

/// One face's `VkStencilOpState`. Vulkan uses only the low `s` bits of the reference and
/// masks, `s` being the attachment's stencil bits; with S8 the caller keeps the low byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StencilFace {
    pub fail_op: StencilOp,
    pub pass_op: StencilOp,
    pub depth_fail_op: StencilOp,
    pub compare_op: CompareOp,
    pub compare_mask: u8,
    pub write_mask: u8,
    pub reference: u8,
}

impl StencilFace {
    /// `(reference & compare_mask) op (stored & compare_mask)`.
    pub fn test(&self, stored: u8) -> bool {
        self.compare_op.test(
            self.reference & self.compare_mask,
            stored & self.compare_mask,
        )
    }

    /// `stored` after `op`, only the bits of the write mask changed.
    pub fn update(&self, stored: u8, op: StencilOp) -> u8 {
        let new = op.apply(stored, self.reference);
        (stored & !self.write_mask) | (new & self.write_mask)
    }
}

/// Stencil state of a draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StencilState {
    pub test_enable: bool,
    pub front: StencilFace,
    pub back: StencilFace,
}

impl StencilState {
    pub fn face(&self, facing: Facing) -> &StencilFace {
        match facing {
            Facing::Front => &self.front,
            Facing::Back => &self.back,
        }
    }

    /// Stencil testing off: the attachment is neither tested nor modified.
    pub const DISABLED: StencilState = StencilState {
        test_enable: false,
        front: StencilFace::KEEP_ALWAYS,
        back: StencilFace::KEEP_ALWAYS,
    };
}

impl StencilFace {
    /// Passes everything and changes nothing.
    pub const KEEP_ALWAYS: StencilFace = StencilFace {
        fail_op: StencilOp::Keep,
        pass_op: StencilOp::Keep,
        depth_fail_op: StencilOp::Keep,
        compare_op: CompareOp::Always,
        compare_mask: 0xff,
        write_mask: 0xff,
        reference: 0,
    };
}
