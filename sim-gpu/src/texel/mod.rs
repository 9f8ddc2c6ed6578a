//! Texels: how the texture unit and the PBE turn the bytes of an image into channel values and
//! back, where a texel of an image described by a texture or PBE descriptor lives, and how
//! samples are filtered.
//!
//! * [`minifloat`]: floats narrower than 32 bits (half, the 11- and 10-bit unsigned floats).
//! * [`srgb`]: the sRGB transfer function.
//! * [`format`]: decoding and encoding one texel of each channel layout and number type.
//! * [`astc`]: agx4's ASTC LDR block decoder, to Vulkan's FP16 and sRGB results.
//! * [`compressed`]: decoding the block of a block-compressed image (BC, ETC2/EAC, ASTC).
//! * [`image`]: texel addresses from a texture or PBE descriptor (through the ail layout).
//! * [`sample`]: wrapping, filtering, mip selection, border colours and depth comparison.

pub mod astc;
pub mod compressed;
pub mod format;
pub mod image;
pub mod minifloat;
pub mod sample;
pub mod srgb;

#[cfg(test)]
mod tests;

pub use format::{decode, encode, Texel};
