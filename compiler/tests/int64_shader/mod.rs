//! One GLSL shader exercising 64-bit integers (GL_ARB_gpu_shader_int64), shared by the
//! front-end (IR interpreter) and G13 (simulated USC) end-to-end tests, with its expected
//! output computed here with Rust's u64/i64 arithmetic.

pub const SRC: &str = r#"#version 450
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) buffer A { uint64_t a[]; };
layout(std430, set = 0, binding = 1) buffer O { uint64_t o[]; };
layout(std430, set = 0, binding = 2) buffer S { uint tag; uint64_t v; u64vec2 w; int64_t z[]; } s;
layout(push_constant) uniform P { uint pad; uint64_t k; int sh; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint64_t x = a[2u * i], y = a[2u * i + 1u];
    int64_t sx = int64_t(x), sy = int64_t(y);
    uint b = i * 20u;
    o[b + 0u] = x + y * pc.k;
    o[b + 1u] = x - y;
    o[b + 2u] = x * y;
    o[b + 3u] = y != 0ul ? x / y : 0ul;
    o[b + 4u] = y != 0ul ? x % y : 0ul;
    o[b + 5u] = sy != 0l ? uint64_t(sx / sy) : 0ul;
    o[b + 6u] = (x & y) ^ (x | 0xff00ff00ff00ul);
    o[b + 7u] = x << uint(pc.sh + int(i));
    o[b + 8u] = x >> ((i * 3u) & 63u);
    o[b + 9u] = uint64_t(sx >> (i * 2u + 1u));
    o[b + 10u] = uint64_t(x < y) | (uint64_t(sx < sy) << 1) | (uint64_t(x == y) << 2)
        | (uint64_t(sx >= sy) << 3);
    o[b + 11u] = uint64_t(floatBitsToUint(float(x))) | (uint64_t(floatBitsToUint(float(sx))) << 32);
    float f = uintBitsToFloat(0x5a000000u + i * 0x12345u);
    o[b + 12u] = uint64_t(int64_t((i & 1u) != 0u ? -f : f));
    o[b + 13u] = uint64_t(f * 300.0);
    o[b + 14u] = uint64_t(int64_t(int(i) - 16));
    o[b + 15u] = uint64_t(uint(x)) + uint64_t(i);
    uvec2 p = unpackUint2x32(x);
    o[b + 16u] = packUint2x32(uvec2(p.y, p.x + 1u));
    o[b + 17u] = uint64_t(-sx) ^ ~y;
    o[b + 18u] = uint64_t(min(sx, sy)) + max(x, y);
    o[b + 19u] = uint64_t(float(i) * 0.75) + uint64_t(int64_t(-float(i) * 0.75));
    if (i == 0u) {
        s.tag = 7u;
        s.v = x;
        s.w = u64vec2(y, pc.k);
        s.z[1] = sx;
    }
}
"#;

pub const INVOCATIONS: usize = 32;
pub const K: u64 = 0x0000_0003_0000_0005;
pub const SH: i32 = 5;

/// The input buffer: pairs (x, y), edge cases first.
pub fn inputs() -> Vec<u64> {
    let mut v = vec![
        0,
        1,
        u64::MAX,
        3,
        i64::MIN as u64,
        7,
        1 << 32,
        (1 << 32) - 1,
        12345,
        0,
        (-100i64) as u64,
        (-7i64) as u64,
        0x8000_0000,
        0xffff_ffff_0000_0001,
    ];
    let mut r = 0x2545_f491_4f6c_dd1du64;
    while v.len() < 2 * INVOCATIONS {
        r ^= r << 13;
        r ^= r >> 7;
        r ^= r << 17;
        let n = v.len();
        v.push(if n % 6 == 5 { r >> (r % 61) } else { r });
    }
    v
}

/// The push constants: { uint pad; uint64_t k (offset 8); int sh (offset 16); }.
pub fn push() -> Vec<u8> {
    let mut p = vec![0u8; 24];
    p[8..16].copy_from_slice(&K.to_le_bytes());
    p[16..20].copy_from_slice(&SH.to_le_bytes());
    p
}

pub fn expected(a: &[u64]) -> Vec<u64> {
    let mut o = Vec::new();
    for i in 0..INVOCATIONS {
        let (x, y) = (a[2 * i], a[2 * i + 1]);
        let (sx, sy) = (x as i64, y as i64);
        let iu = i as u32;
        let f = f32::from_bits(0x5a00_0000 + iu * 0x12345);
        let sf = if i & 1 != 0 { -f } else { f };
        o.extend([
            x.wrapping_add(y.wrapping_mul(K)),
            x.wrapping_sub(y),
            x.wrapping_mul(y),
            x.checked_div(y).unwrap_or(0),
            x.checked_rem(y).unwrap_or(0),
            if sy != 0 {
                sx.wrapping_div(sy) as u64
            } else {
                0
            },
            (x & y) ^ (x | 0xff00_ff00_ff00),
            x << (SH as u32 + iu),
            x >> ((iu * 3) & 63),
            (sx >> (iu * 2 + 1)) as u64,
            (x < y) as u64
                | ((sx < sy) as u64) << 1
                | ((x == y) as u64) << 2
                | ((sx >= sy) as u64) << 3,
            (x as f32).to_bits() as u64 | ((sx as f32).to_bits() as u64) << 32,
            sf as i64 as u64,
            (f * 300.0) as u64,
            (i as i64 - 16) as u64,
            (x as u32 as u64) + i as u64,
            ((x >> 32) | ((x as u32).wrapping_add(1) as u64) << 32),
            (sx.wrapping_neg() as u64) ^ !y,
            (sx.min(sy) as u64).wrapping_add(x.max(y)),
            ((i as f32 * 0.75) as u64).wrapping_add((-(i as f32) * 0.75) as i64 as u64),
        ]);
    }
    o
}

/// Checks the struct buffer { uint tag; uint64_t v (8); u64vec2 w (16); int64_t z[] (32) }.
pub fn check_struct(s: &[u8], a: &[u64]) {
    let w = |o: usize| u64::from_le_bytes(s[o..o + 8].try_into().unwrap());
    assert_eq!(u32::from_le_bytes(s[0..4].try_into().unwrap()), 7, "tag");
    assert_eq!(w(8), a[0], "v at offset 8");
    assert_eq!(w(16), a[1], "w.x at offset 16");
    assert_eq!(w(24), K, "w.y at offset 24");
    assert_eq!(w(40), a[0], "z[1] at offset 40");
}

pub fn u64s(xs: &[u64]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn as_u64(b: &[u8]) -> Vec<u64> {
    b.chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

pub fn compare(got: &[u64], want: &[u64], what: &str) {
    for (n, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(
            g,
            w,
            "{what}: invocation {} result {}: got {g:#x}, want {w:#x}",
            n / 20,
            n % 20
        );
    }
    assert_eq!(got.len(), want.len());
}

/// 64-bit values in workgroup memory, a dynamically indexed local array, a dynamically indexed
/// push-constant array and 64-bit vectors.
pub const SRC_MEMORY: &str = r#"#version 450
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 8) in;
layout(std430, set = 0, binding = 0) buffer O { u64vec2 o[]; };
layout(push_constant) uniform P { uint64_t t[4]; } pc;
shared uint64_t sh[8];
void main() {
    uint i = gl_LocalInvocationID.x;
    uint64_t loc[5];
    for (int k = 0; k < 5; k++) loc[k] = uint64_t(k + 1) << (8u * i);
    sh[i] = pc.t[i & 3u] * uint64_t(i + 1u);
    barrier();
    u64vec2 v = u64vec2(sh[(i + 1u) & 7u], loc[i % 5u]);
    v = v * 3ul + u64vec2(1ul, 2ul);
    o[i] = v >> u64vec2(1ul, uint64_t(i));
}
"#;

pub const T: [u64; 4] = [
    0x0123_4567_89ab_cdef,
    u64::MAX,
    0x8000_0000_0000_0001,
    0xffff_ffff,
];

pub fn push_memory() -> Vec<u8> {
    u64s(&T)
}

pub fn expected_memory() -> Vec<u64> {
    let mut o = Vec::new();
    for i in 0..8u64 {
        let j = (i + 1) & 7;
        let s = T[(j & 3) as usize].wrapping_mul(j + 1);
        let l = ((i % 5) + 1) << (8 * i);
        o.push(s.wrapping_mul(3).wrapping_add(1) >> 1);
        o.push(l.wrapping_mul(3).wrapping_add(2) >> i);
    }
    o
}
