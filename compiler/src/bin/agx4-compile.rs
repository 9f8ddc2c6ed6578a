//! Compiles one compute SPIR-V module with agx4's compiler and prints what it made.
//!
//! Usage: `agx4-compile [--robust] <module.spv> [entry point]`. The pipeline layout comes from
//! the module's own bindings (`compiler::reflect`); buffer accesses are bounds-checked only
//! with `--robust`, as on a device that enables robustBufferAccess. Prints the shader-db style
//! statistics line and the disassembly; `AGX4_COMPILER_DEBUG=ir` adds the IR after every pass.

use compiler::{BufferRobustness, ComputeRequest, Target};
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let robust = args.first().is_some_and(|a| a == "--robust");
    if robust {
        args.remove(0);
    }
    let Some(path) = args.first() else {
        eprintln!("usage: agx4-compile [--robust] <module.spv> [entry point]");
        return ExitCode::from(2);
    };
    let entry = args.get(1).map(String::as_str).unwrap_or("main");
    let words: Vec<u32> = match std::fs::read(path) {
        Ok(b) if b.len() % 4 == 0 => b
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect(),
        Ok(_) => {
            eprintln!("agx4-compile: {path}: not a whole number of 32-bit words");
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("agx4-compile: {path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut layout = match compiler::reflect::layout_from_spirv(&words) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("agx4-compile: {path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    layout.buffer_robustness = if robust {
        BufferRobustness::Checked
    } else {
        BufferRobustness::Unchecked
    };
    let req = ComputeRequest {
        spirv: &words,
        entry_point: entry,
        specialization: &[],
        layout: &layout,
        target: Target::G13,
    };
    match compiler::compile_compute(&req) {
        Ok(bin) => {
            let s = bin.stats;
            let text = match hw::isa::disasm::disassemble(&hw::g13::CODEC, &bin.code) {
                Ok(text) => text,
                Err(e) => format!("(disassembly failed: {e})\n"),
            };
            // A reader that stops early (`| head`) closes the pipe: not an error.
            let _ = write!(
                std::io::stdout().lock(),
                "agx4-shader: instrs {}, bytes {}, gprs {} halves, spills {}, fills {}\n{text}",
                s.instructions,
                s.code_bytes,
                s.gpr_halves,
                s.spills,
                s.fills
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("agx4-compile: {path}: {e}");
            ExitCode::FAILURE
        }
    }
}
