//! The ISP's per-sample depth and stencil unit, with the tile storage it works on.
//!
//! Semantics are Vulkan's fragment operations: the stencil test, then the depth test, then the
//! stencil update chosen by both results and the depth write. A tile holds the depth and
//! stencil values of 32x32 pixels times the sample count; the ZLS unit loads it from the
//! depth/stencil images before the tile is shaded and stores it afterwards, as the render's
//! ZLS Control word asks ([`ZlsPlan`]).
//!
//! Everything here is generation-neutral except the conversions from the G13 enums and the
//! ZLS Control word, which are kept in [`zls`] and the `From` impls.

mod compare;
mod depth;
mod stencil;
mod test_unit;
mod tile;
pub mod zls;

#[cfg(test)]
mod tests;

pub use compare::CompareOp;
pub use depth::{float_from_unorm16, unorm16_from_float, DepthFormat, DepthRange, DepthState};
pub use stencil::{Facing, StencilFace, StencilOp, StencilState};
pub use test_unit::{test_sample, ZsState};
pub use tile::{DepthOnly, ZsImage, ZsTile};
pub use zls::{clear_values, ZlsPlan};

use crate::Fault;

/// Why the depth/stencil unit could not do what it was asked.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum IspError {
    #[error("unsupported sample count {0} (1, 2 or 4)")]
    SampleCount(u32),
    #[error("sample ({x}, {y}) #{sample} is outside the tile")]
    OutsideTile { x: u32, y: u32, sample: u32 },
    #[error("the tile has no {0} plane")]
    NoPlane(&'static str),
    #[error("image does not match the tile: {0}")]
    ImageMismatch(String),
    #[error("bad ZLS state: {0}")]
    BadState(String),
    #[error("not implemented by the simulated ISP: {0}")]
    Unimplemented(&'static str),
    #[error(transparent)]
    Fault(#[from] Fault),
}

impl From<IspError> for Fault {
    /// How a render reports the failure: memory faults stay faults, missing features stay
    /// visible as such, everything else is state the hardware would not accept.
    fn from(e: IspError) -> Fault {
        match e {
            IspError::Fault(f) => f,
            IspError::Unimplemented(what) => Fault::Unimplemented(what),
            other => Fault::BadControlWord {
                va: 0,
                reason: other.to_string(),
            },
        }
    }
}
