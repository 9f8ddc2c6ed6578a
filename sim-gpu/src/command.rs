//! Register-level descriptions of the work the firmware starts on the GPU.
//!
//! These are the values the firmware programs from a UAPI command plus the queue's state, as
//! plain integers. They are deliberately not the UAPI structs: the GPU model must not depend on
//! the kernel interface, and the firmware is where the translation happens.

/// A USC helper program (scratch/stack allocation), as a tagged 32-bit USC address.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HelperProgram {
    pub binary: u32,
    pub cfg: u32,
    /// Sideband value the helper reads through a special register.
    pub data: u64,
}

/// A background or end-of-tile program: tagged USC address of its USC words, and its resource
/// specification (registers, uniforms, textures, samplers).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BgEotProgram {
    pub usc: u32,
    pub rsrc_spec: u32,
}

/// A depth or stencil buffer of the ZLS unit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ZlsBuffer {
    pub base: u64,
    pub comp_base: u64,
    pub stride: u32,
    pub comp_stride: u32,
}

/// One CDM run: a compute control stream and the state it executes under.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ComputeCommand {
    /// USC_EXEC_BASE_CP: 32-bit shader addresses are relative to this.
    pub usc_exec_base: u64,
    /// CDM_CTRL_STREAM_BASE.
    pub ctrl_stream_base: u64,
    /// End of the first contiguous segment of the control stream.
    pub ctrl_stream_end: u64,
    pub sampler_heap: u64,
    pub sampler_count: u32,
    pub helper: HelperProgram,
}

/// One render pass: VDM control stream, tiling and tile-memory setup, the ZLS buffers and the
/// four tile programs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RenderCommand {
    /// USC_EXEC_BASE_TA and USC_EXEC_BASE_ISP.
    pub usc_exec_base: u64,
    /// VDM_CTRL_STREAM_BASE.
    pub vdm_ctrl_stream_base: u64,
    pub flags: u32,
    pub vertex_helper: HelperProgram,
    pub fragment_helper: HelperProgram,
    pub isp_scissor_base: u64,
    pub isp_dbias_base: u64,
    pub isp_oclqry_base: u64,
    pub isp_zls_pixels: u32,
    pub depth: ZlsBuffer,
    pub stencil: ZlsBuffer,
    pub zls_ctrl: u64,
    pub ppp_multisamplectl: u64,
    pub ppp_ctrl: u32,
    pub sampler_heap: u64,
    pub sampler_count: u32,
    pub width_px: u32,
    pub height_px: u32,
    pub layers: u32,
    pub utile_width_px: u32,
    pub utile_height_px: u32,
    pub samples: u32,
    pub sample_size_bytes: u32,
    /// IEEE-754 single precision bit patterns.
    pub isp_merge_upper_x: u32,
    pub isp_merge_upper_y: u32,
    pub bg: BgEotProgram,
    pub eot: BgEotProgram,
    pub partial_bg: BgEotProgram,
    pub partial_eot: BgEotProgram,
    pub isp_bgobjdepth: u32,
    pub isp_bgobjvals: u32,
}
