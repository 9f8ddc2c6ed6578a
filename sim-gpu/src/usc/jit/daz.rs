//! Translated code run with the host treating denormal operands as zero (x86's MXCSR.DAZ).
//!
//! The G13 float ALU flushes a denormal operand to a zero of its sign before it computes
//! (`float_mode::F32_FLUSHES_DENORMALS`), and DAZ does exactly that to every operand of the
//! host's float instructions. It leaves results alone (FTZ, which flushes results, judges
//! tininess before the final rounding on some hosts and after it on others, so agx4 never
//! sets it). With DAZ on, a float result read only by more float arithmetic needs neither its
//! flush nor its default NaN: the arithmetic ignores a denormal operand's bits and any NaN
//! operand's payload. The translator then makes a result canonical once, where it leaves the
//! arithmetic ([`super::chunk::Chunk::write32_raw`]), instead of after every operation.

use super::{Ctx, RegionFn};

/// MXCSR's denormals-are-zero bit.
#[cfg(target_arch = "x86_64")]
const DAZ: u32 = 1 << 6;

/// Whether translated float arithmetic may read results not yet made canonical: on x86-64
/// hosts whose float instructions cover every operation the translator emits (FMA and SSE4.1
/// rounding; without them Cranelift would call library code, which DAZ would change).
pub fn lazy_floats() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        hw::g13::float_mode::F32_FLUSHES_DENORMALS
            && std::arch::is_x86_feature_detected!("fma")
            && std::arch::is_x86_feature_detected!("sse4.1")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Calls `f(ctx)` with DAZ set, and the caller's MXCSR back afterwards.
///
/// # Safety
/// As calling `f(ctx)`: `f` is a region function and `ctx` what it may be given.
#[cfg(target_arch = "x86_64")]
pub unsafe fn call(f: RegionFn, ctx: *mut Ctx) -> u32 {
    let mut csr = [0u32; 2];
    let ret: u32;
    // SAFETY: one asm block spans the whole DAZ window, so no Rust float code runs under it.
    // r12 (callee-saved) keeps the save area's address across the call; the stack is aligned
    // for a call on entry to an asm block; `clobber_abi("C")` covers what the call clobbers.
    // The function reads and writes only what the caller vouched for.
    unsafe {
        std::arch::asm!(
            "stmxcsr [r12]",
            "mov ecx, [r12]",
            "or ecx, {daz}",
            "mov [r12 + 4], ecx",
            "ldmxcsr [r12 + 4]",
            "call {f}",
            "ldmxcsr [r12]",
            daz = const DAZ,
            out("ecx") _,
            f = in(reg) f,
            in("r12") csr.as_mut_ptr(),
            in("rdi") ctx,
            lateout("eax") ret,
            clobber_abi("C"),
        );
    }
    ret
}

/// Never called: [`lazy_floats`] is false on this host.
///
/// # Safety
/// As calling `f(ctx)`.
#[cfg(not(target_arch = "x86_64"))]
pub unsafe fn call(f: RegionFn, ctx: *mut Ctx) -> u32 {
    // SAFETY: the caller's guarantee.
    unsafe { f(ctx) }
}
