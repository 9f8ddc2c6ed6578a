//! GPU generations and die variants, and how well each generation is publicly understood.

use crate::isa::Codec;
use std::fmt;

/// An AGX architecture generation. The number is what GET_PARAMS reports as `gpu_generation`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Generation {
    /// M1 family.
    G13,
    /// M2 family.
    G14,
    /// M4 family.
    G16,
}

/// How much of a generation's encodings and behaviour rests on public evidence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evidence {
    /// ISA, control words, descriptors and UAPI are all publicly documented (Mesa, applegpu).
    Complete,
    /// Only part is documented; everything else is an informed guess and must say so.
    Partial,
}

impl Generation {
    /// The value of `drm_asahi_params_global::gpu_generation`.
    pub const fn number(self) -> u32 {
        match self {
            Generation::G13 => 13,
            Generation::G14 => 14,
            Generation::G16 => 16,
        }
    }

    pub const fn from_number(n: u32) -> Option<Generation> {
        match n {
            13 => Some(Generation::G13),
            14 => Some(Generation::G14),
            16 => Some(Generation::G16),
            _ => None,
        }
    }

    /// The encoding of the generation's machine code, where agx4 has one. G14 uses G13's, as
    /// the compiler's targets assume.
    pub fn codec(self) -> Option<&'static dyn Codec> {
        match self {
            Generation::G13 | Generation::G14 => Some(&crate::g13::CODEC),
            Generation::G16 => None,
        }
    }

    /// G13 and G14 are fully reverse engineered in public; for G16 only straight-line compute
    /// has hardware evidence so far (graphics, control flow, texture operands, bg/eot are not).
    pub const fn evidence(self) -> Evidence {
        match self {
            Generation::G13 | Generation::G14 => Evidence::Complete,
            Generation::G16 => Evidence::Partial,
        }
    }
}

impl fmt::Display for Generation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "G{}", self.number())
    }
}

/// The die configuration within a generation, reported as an ASCII letter in `gpu_variant`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Base chip (M1, M2, M4).
    G,
    /// "Pro".
    S,
    /// "Max".
    C,
    /// "Ultra": two C dies.
    D,
}

impl Variant {
    /// The value of `drm_asahi_params_global::gpu_variant`.
    pub const fn letter(self) -> char {
        match self {
            Variant::G => 'G',
            Variant::S => 'S',
            Variant::C => 'C',
            Variant::D => 'D',
        }
    }

    pub fn from_letter(c: u32) -> Option<Variant> {
        match char::from_u32(c)?.to_ascii_uppercase() {
            'G' => Some(Variant::G),
            'S' => Some(Variant::S),
            'C' => Some(Variant::C),
            'D' => Some(Variant::D),
            _ => None,
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}
