//! How the G13 float ALU treats denormals and rounds, per operand width (applegpu's
//! FloatSrc/FloatDst pseudocode; Mesa's asahi driver reports the same: 32-bit denormals
//! flushed, 16-bit ones preserved, round to nearest even). The mode is fixed: no instruction
//! bit or control word changes it, so a shader cannot ask for another one.
//!
//! The simulated USC applies these rules (`sim_gpu::usc`), the compiler relies on them, and the
//! ICD reports them as Vulkan's float-controls properties.

/// 32-bit float sources and results that are denormal read and write as zero of their sign.
pub const F32_FLUSHES_DENORMALS: bool = true;

/// 16-bit float sources and results keep their denormals.
pub const F16_FLUSHES_DENORMALS: bool = false;

/// Float arithmetic rounds to nearest, ties to even, at both widths. Round toward zero exists
/// only as a mode of `convert` (float to integer), never of float results.
pub const FLOAT_ROUNDS_TO_NEAREST_EVEN: bool = true;

/// Signed zeros, infinities and NaNs pass through arithmetic as IEEE 754 says at both widths
/// (the ALU has no fast-math mode that drops them).
pub const FLOAT_PRESERVES_SIGNED_ZERO_INF_NAN: bool = true;

/// A 32-bit add, multiply or fused multiply-add whose result is NaN gives this default NaN,
/// whatever NaN its operands held (applegpu's fma model, run against the hardware, returns
/// the default NaN for every NaN operand). Derivatives, differences of neighbouring lanes,
/// follow the same rule in agx4's model (their NaN behaviour is not public). The host's
/// payload rules differ between instructions and compilers, so this also keeps the
/// simulator's results one value.
pub const F32_DEFAULT_NAN: u32 = 0x7fc0_0000;
