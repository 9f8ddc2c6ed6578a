//! Value types.

/// A scalar type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scalar {
    Bool,
    I8,
    I16,
    I32,
    I64,
    F16,
    F32,
}

impl Scalar {
    pub fn bits(self) -> u32 {
        match self {
            Scalar::Bool => 1,
            Scalar::I8 => 8,
            Scalar::I16 | Scalar::F16 => 16,
            Scalar::I32 | Scalar::F32 => 32,
            Scalar::I64 => 64,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F16 | Scalar::F32)
    }
}

/// A scalar or a vector of 2 to 4 scalars. Integers carry no signedness: operations say how
/// they interpret their operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Type {
    pub scalar: Scalar,
    pub lanes: u8,
}

impl Type {
    pub const BOOL: Type = Type::scalar(Scalar::Bool);
    pub const I32: Type = Type::scalar(Scalar::I32);
    pub const I64: Type = Type::scalar(Scalar::I64);
    pub const F32: Type = Type::scalar(Scalar::F32);

    pub const fn scalar(scalar: Scalar) -> Type {
        Type { scalar, lanes: 1 }
    }

    pub const fn vec(scalar: Scalar, lanes: u8) -> Type {
        Type { scalar, lanes }
    }

    pub fn is_scalar(self) -> bool {
        self.lanes == 1
    }
}
