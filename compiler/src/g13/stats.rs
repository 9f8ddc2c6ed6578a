//! Shader statistics, and the `stats` / `asm` diagnostics of `AGX4_COMPILER_DEBUG`.

use super::encode::Encoded;
use super::Compiled;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stats {
    pub instructions: u32,
    pub bytes: u32,
    pub gprs: u32,
    pub spills: u32,
    pub fills: u32,
}

impl Stats {
    pub fn new(c: &Compiled, e: &Encoded) -> Stats {
        Stats {
            instructions: e.instructions,
            bytes: e.code.len() as u32,
            gprs: c.gpr_halves,
            spills: c.spills,
            fills: c.fills,
        }
    }

    pub fn api(&self) -> crate::Stats {
        crate::Stats {
            instructions: self.instructions,
            code_bytes: self.bytes,
            gpr_halves: self.gprs,
            spills: self.spills,
            fills: self.fills,
            preamble_instructions: 0,
        }
    }

    /// What `AGX4_COMPILER_DEBUG` asks for, of a preamble.
    pub fn report_preamble(&self, code: &[u8]) {
        let flags = crate::debug::flags();
        if flags.stats || flags.asm {
            eprintln!("agx4-shader: preamble:");
        }
        self.report(code);
    }

    /// The shader-db style line.
    pub fn line(&self) -> String {
        format!(
            "agx4-shader: instrs {}, bytes {}, gprs {}, spills {}, fills {}",
            self.instructions, self.bytes, self.gprs, self.spills, self.fills
        )
    }

    /// Prints what `AGX4_COMPILER_DEBUG` asks for.
    pub fn report(&self, code: &[u8]) {
        let flags = crate::debug::flags();
        if flags.stats {
            eprintln!("{}", self.line());
        }
        if flags.asm {
            match hw::isa::disasm::disassemble(&hw::g13::CODEC, code) {
                Ok(text) => eprint!("{text}"),
                Err(e) => eprintln!("agx4-shader: disassembly failed: {e}"),
            }
        }
    }
}
