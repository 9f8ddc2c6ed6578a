//! A mutation fuzzer for the SPIR-V front end, on stable Rust with no dependencies.
//!
//! It starts from seed modules (every `*.spv` in the directories given, plus a minimal
//! built-in module), mutates them (bit flips, word overwrites with interesting values,
//! truncation, duplication and splicing of instruction words) and runs each result through
//! `compiler::frontend::fuzz_one`, which must return and never panic. On a panic the input is
//! written to `fuzz-crash-<n>.spv` in the current directory and the program exits with 1.
//!
//! Usage: `agx4-fuzz-spirv [--seconds N] [--seed S] <seed dir>...`
//! The run is deterministic for a given seed and seed set, except for where the time limit
//! cuts it off; the iteration count is printed so a run can be repeated with `--iterations`.

use std::panic;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// xorshift64*: small, fast, deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Values that tend to hit edge cases in word-oriented parsers.
const INTERESTING: [u32; 12] = [
    0,
    1,
    2,
    3,
    4,
    0xff,
    0xffff,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0x0723_0203,
    0x0001_0000,
];

fn minimal_module() -> Vec<u8> {
    // An empty compute module: header, OpCapability Shader, OpMemoryModel Logical GLSL450.
    let words: [u32; 8] = [
        0x0723_0203,
        0x0001_0000,
        0,
        8,
        0,
        0x0002_0011,
        1,
        0x0003_000e,
    ];
    let mut w: Vec<u32> = words.to_vec();
    w.extend_from_slice(&[0, 1]);
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn mutate(rng: &mut Rng, seeds: &[Vec<u8>], input: &[u8]) -> Vec<u8> {
    let mut v = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let words = v.len() / 4;
        match rng.below(7) {
            0 if !v.is_empty() => {
                let i = rng.below(v.len());
                v[i] ^= 1 << rng.below(8);
            }
            1 if words > 0 => {
                let i = rng.below(words) * 4;
                let x = INTERESTING[rng.below(INTERESTING.len())];
                v[i..i + 4].copy_from_slice(&x.to_le_bytes());
            }
            2 if words > 0 => {
                let i = rng.below(words) * 4;
                let x = (rng.next() as u32).to_le_bytes();
                v[i..i + 4].copy_from_slice(&x);
            }
            3 if !v.is_empty() => v.truncate(rng.below(v.len())),
            4 if words > 1 => {
                let a = rng.below(words) * 4;
                let n = (1 + rng.below(8)).min(words - a / 4) * 4;
                let chunk = v[a..a + n].to_vec();
                let at = rng.below(words) * 4;
                v.splice(at..at, chunk);
            }
            5 if words > 1 => {
                let a = rng.below(words) * 4;
                let n = (1 + rng.below(8)).min(words - a / 4) * 4;
                v.drain(a..a + n);
            }
            _ => {
                let other = &seeds[rng.below(seeds.len())];
                let cut = rng.below(v.len() / 4 + 1) * 4;
                let from = rng.below(other.len() / 4 + 1) * 4;
                v.truncate(cut);
                v.extend_from_slice(&other[from..]);
            }
        }
    }
    v
}

fn main() -> ExitCode {
    let mut seconds = 30u64;
    let mut seed = 0x5eed_u64;
    let mut iterations = u64::MAX;
    let mut dirs = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let num = |v: Option<String>| v.and_then(|s| s.parse::<u64>().ok());
        match a.as_str() {
            "--seconds" => seconds = num(args.next()).unwrap_or(seconds),
            "--seed" => seed = num(args.next()).unwrap_or(seed),
            "--iterations" => iterations = num(args.next()).unwrap_or(iterations),
            _ => dirs.push(PathBuf::from(a)),
        }
    }
    let mut seeds = vec![minimal_module()];
    for d in &dirs {
        let Ok(entries) = std::fs::read_dir(d) else {
            eprintln!("agx4-fuzz-spirv: cannot read {}", d.display());
            return ExitCode::from(2);
        };
        for e in entries.flatten() {
            if e.path().extension().is_some_and(|x| x == "spv") {
                if let Ok(b) = std::fs::read(e.path()) {
                    seeds.push(b);
                }
            }
        }
    }
    // Panics are the findings; keep the default hook from printing a backtrace per input.
    panic::set_hook(Box::new(|_| {}));
    let mut rng = Rng(seed | 1);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut n = 0u64;
    let mut accepted = 0u64;
    while n < iterations && Instant::now() < deadline {
        let base = &seeds[rng.below(seeds.len())];
        let input = mutate(&mut rng, &seeds, base);
        n += 1;
        match panic::catch_unwind(|| compiler::frontend::fuzz_one(&input)) {
            Ok(true) => accepted += 1,
            Ok(false) => {}
            Err(_) => {
                let name = format!("fuzz-crash-{n}.spv");
                let _ = std::fs::write(&name, &input);
                let _ = panic::take_hook();
                eprintln!("agx4-fuzz-spirv: input {n} panicked the front end; saved as {name}");
                return ExitCode::FAILURE;
            }
        }
    }
    println!(
        "agx4-fuzz-spirv: {n} inputs from {} seeds in {seconds} s budget, {accepted} compiled, 0 panics",
        seeds.len()
    );
    ExitCode::SUCCESS
}
