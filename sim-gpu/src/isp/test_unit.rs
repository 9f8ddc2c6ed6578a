//! One sample through the depth/stencil tests, in Vulkan's order.

use super::depth::{DepthFormat, DepthState};
use super::stencil::{Facing, StencilState};

/// Depth and stencil state of a draw.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ZsState {
    pub depth: DepthState,
    pub stencil: StencilState,
}

/// Runs one covered sample with fragment depth `z` through the stencil test, the depth test
/// and the updates, changing the stored values in place. Returns whether the sample stays
/// covered. A missing attachment (`None`) makes its test pass and is never written.
///
/// Order (Vulkan "Fragment Operations"): a sample failing the stencil test loses coverage
/// after the fail op, so it is never depth tested or written; otherwise the depth test
/// result selects the depth-fail or pass op, and a passing sample writes its depth when
/// writes are enabled.
pub fn test_sample(
    state: &ZsState,
    facing: Facing,
    z: f32,
    depth: Option<(DepthFormat, &mut u32)>,
    stencil: Option<&mut u8>,
) -> bool {
    let face = state.stencil.face(facing);
    let stencil = stencil.filter(|_| state.stencil.test_enable);
    let stencil = match stencil {
        Some(s) if !face.test(*s) => {
            *s = face.update(*s, face.fail_op);
            return false;
        }
        other => other,
    };

    let d = &state.depth;
    let mut depth_pass = true;
    let mut write = None;
    if let (true, Some((format, stored))) = (d.test_enable, depth) {
        let zf = d.clamp.map_or(z, |range| range.clamp(z));
        let incoming = format.encode(zf);
        depth_pass = format.compare(d.compare_op, incoming, *stored);
        if depth_pass && d.write_enable {
            write = Some((stored, incoming));
        }
    }

    if let Some(s) = stencil {
        let op = if depth_pass {
            face.pass_op
        } else {
            face.depth_fail_op
        };
        *s = face.update(*s, op);
    }
    if let Some((stored, value)) = write {
        *stored = value;
    }
    depth_pass
}
