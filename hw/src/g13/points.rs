//! Point sizes on G13.
//!
//! The rasterizer reads a point's size as a float from the vertex's UVS record. Mesa's asahi
//! Vulkan driver (hk_shader.c) clamps it to [1, 511.95] in the vertex shader because larger
//! points do not render properly on G13, and reports a point size granularity of 1/16.

/// Smallest point size the vertex shader passes on (Vulkan's minimum of pointSizeRange).
pub const POINT_SIZE_MIN: f32 = 1.0;

/// Largest point size the vertex shader passes on: the granule below 512, so the size range
/// the driver reports is a whole number of granules.
pub const POINT_SIZE_MAX: f32 = 512.0 - POINT_SIZE_GRANULARITY;

/// Granularity of point sizes.
pub const POINT_SIZE_GRANULARITY: f32 = 1.0 / 16.0;
