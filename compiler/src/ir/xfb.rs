//! Transform feedback (VK_EXT_transform_feedback): which vertex outputs a shader captures and
//! where. The front end fills this from the XfbBuffer, XfbStride and Offset decorations;
//! `passes::lower_xfb` turns it into stores in the capture variant of the vertex shader.

use super::OutputBuiltin;

/// Transform feedback buffers a shader may write (`maxTransformFeedbackBuffers`).
pub const XFB_BUFFERS: usize = 4;

/// The output a captured value comes from, as the shader's output stores name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum XfbSource {
    Location { location: u32, component: u8 },
    Builtin(OutputBuiltin),
}

/// One captured output leaf (a scalar or vector of 32-bit components).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct XfbSlot {
    pub source: XfbSource,
    /// Components from `source`'s component on.
    pub lanes: u8,
    pub buffer: u8,
    /// Byte offset of the first component inside the vertex's record in `buffer`.
    pub offset: u32,
}

/// A vertex shader's transform feedback outputs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct XfbInfo {
    pub slots: Vec<XfbSlot>,
    /// Bytes per vertex of each buffer (XfbStride); 0: the shader writes nothing there.
    pub strides: [u32; XFB_BUFFERS],
}

impl XfbInfo {
    /// Buffers the shader captures into.
    pub fn used(&self, buffer: usize) -> bool {
        self.strides[buffer] != 0 && self.slots.iter().any(|s| usize::from(s.buffer) == buffer)
    }
}
