//! `AGX4_COMPILER_DEBUG`: which diagnostics the compiler prints on stderr.

use std::sync::OnceLock;

#[derive(Debug, Clone, Copy, Default)]
pub struct Flags {
    /// Print and validate the IR after every pass.
    pub ir: bool,
    /// One statistics line per compiled shader.
    pub stats: bool,
    /// Disassembly of the final code.
    pub asm: bool,
    /// No uniform preambles (`passes::preamble`): every value is computed in the shader.
    pub no_preamble: bool,
}

pub fn flags() -> Flags {
    static FLAGS: OnceLock<Flags> = OnceLock::new();
    *FLAGS.get_or_init(|| {
        let mut f = Flags::default();
        if let Ok(v) = std::env::var("AGX4_COMPILER_DEBUG") {
            for word in v.split(',') {
                match word.trim() {
                    "ir" => f.ir = true,
                    "stats" => f.stats = true,
                    "asm" => f.asm = true,
                    "nopreamble" => f.no_preamble = true,
                    "" => {}
                    other => eprintln!("agx4: AGX4_COMPILER_DEBUG: unknown flag {other:?}"),
                }
            }
        }
        f
    })
}
