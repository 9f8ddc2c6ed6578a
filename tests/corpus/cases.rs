//! The table of corpus cases, grouped by topic, and the small builders they share.

mod arith;
mod control;
mod dispatch;
mod float;
mod int64;
mod memory;

use super::case::{Buffer, Case, Check, Desc, Init, Pipe, Reference, Step, Tol};

pub fn all() -> Vec<Case> {
    let mut v = Vec::new();
    v.extend(arith::cases());
    v.extend(float::cases());
    v.extend(int64::cases());
    v.extend(control::cases());
    v.extend(memory::cases());
    v.extend(dispatch::cases());
    v
}

/// Deterministic pseudo-random words (xorshift32), different per seed.
pub fn rand(seed: u32, n: usize) -> Vec<u32> {
    let mut s = seed.wrapping_mul(0x9e37_79b9) ^ 0x1234_5678;
    if s == 0 {
        s = 1;
    }
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            s
        })
        .collect()
}

/// Uniform floats in [lo, hi), quantised to multiples of `step` so the inputs are exact.
pub fn rand_f(seed: u32, n: usize, lo: f32, hi: f32, step: f32) -> Vec<f32> {
    rand(seed, n)
        .into_iter()
        .map(|r| {
            let t = (r >> 8) as f32 / (1u32 << 24) as f32;
            let v = lo + t * (hi - lo);
            (v / step).floor() * step
        })
        .collect()
}

pub fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|f| f.to_bits()).collect()
}

pub fn floats(w: &[u32]) -> Vec<f32> {
    w.iter().map(|&b| f32::from_bits(b)).collect()
}

pub fn ints(w: &[u32]) -> Vec<i32> {
    w.iter().map(|&b| b as i32).collect()
}

pub fn words_i(v: &[i32]) -> Vec<u32> {
    v.iter().map(|&i| i as u32).collect()
}

/// A storage buffer written by the host, compared bit-exactly.
pub fn input(words: Vec<u32>) -> Buffer {
    Buffer {
        desc: Desc::Storage,
        init: Init::Host(words),
        range: None,
        check: Check::Exact,
    }
}

/// A zeroed storage buffer, compared bit-exactly.
pub fn output(words: usize) -> Buffer {
    input(vec![0; words])
}

/// A zeroed storage buffer of floats, compared with the case tolerance.
pub fn output_f(words: usize) -> Buffer {
    Buffer {
        check: Check::Float,
        ..output(words)
    }
}

pub fn uniform(words: Vec<u32>) -> Buffer {
    Buffer {
        desc: Desc::Uniform,
        ..input(words)
    }
}

/// A one-pipeline, one-dispatch case whose last buffer is the output.
pub fn simple(
    name: &'static str,
    shader: &'static str,
    buffers: Vec<Buffer>,
    groups: [u32; 3],
    reference: Reference,
) -> Case {
    Case {
        name,
        pipes: vec![Pipe {
            shader,
            spec: Vec::new(),
        }],
        buffers,
        push_size: 0,
        steps: vec![Step::Dispatch { pipe: 0, groups }],
        reference,
        tol: Tol::EXACT,
        copy_back: false,
        timestamps: false,
        needs_int64: false,
    }
}

/// A reference that keeps every buffer but the last, which `f` computes from the others.
pub fn last_from(f: impl Fn(&[Vec<u32>]) -> Vec<u32> + 'static) -> Reference {
    Box::new(move |init: &[Vec<u32>]| {
        let mut out = init.to_vec();
        let n = out.len();
        out[n - 1] = f(&init[..n - 1]);
        out
    })
}
