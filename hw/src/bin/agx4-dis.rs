//! agx4-dis: disassembles G13 shader machine code.
//!
//! Usage: `agx4-dis FILE` (raw bytes) or `agx4-dis --hex FILE` (hex text; whitespace, commas
//! and `0x` prefixes are ignored). `-` reads standard input. Prints offset, bytes and assembly
//! per instruction; stops with an error message at the first undecodable instruction.

use std::io::Read;
use std::process::ExitCode;

fn run(args: &[String]) -> Result<String, String> {
    let (hex, path) = match args {
        [flag, path] if flag == "--hex" => (true, path),
        [path] if !path.starts_with("--") || path == "-" => (false, path),
        _ => return Err("usage: agx4-dis [--hex] FILE|-".into()),
    };
    let mut raw = Vec::new();
    if path == "-" {
        std::io::stdin()
            .read_to_end(&mut raw)
            .map_err(|e| format!("stdin: {e}"))?;
    } else {
        raw = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    }
    let code = if hex {
        let text = String::from_utf8(raw).map_err(|_| "hex input is not UTF-8 text".to_string())?;
        hw::isa::disasm::parse_hex(&text)?
    } else {
        raw
    };
    hw::isa::disasm::disassemble(&hw::g13::CODEC, &code).map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    hw::isa::disasm::tool_main("agx4-dis", run)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_tmp(name: &str, data: &[u8]) -> String {
        let p = std::env::temp_dir().join(format!("agx4-dis-{}-{name}", std::process::id()));
        std::fs::write(&p, data).unwrap();
        p.to_string_lossy().into_owned()
    }

    // Program bytes from applegpu's assembler: iadd r0, r1, u2 / mov_imm r0l, 5 /
    // device_load ... / wait 0 / stop.
    const PROGRAM: &str = "0e01424218000000 62000500 0521400e00c0f200 3800 8800";

    #[test]
    fn disassembles_hex_and_raw() {
        let path = write_tmp("hex", PROGRAM.as_bytes());
        let text = run(&["--hex".into(), path]).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 5);
        assert!(lines[0].starts_with("     0:  0e 01 42 42 18 00 00 00"));
        assert!(lines[0].ends_with("iadd r0, r1, u2"), "{}", lines[0]);
        assert!(lines[1].starts_with("     8:") && lines[1].ends_with("mov_imm r0l, 0x5"));
        assert!(
            lines[2].ends_with("device_load 0, i32, xyzw, r4_r5_r6_r7, u0_u1, r2, unsigned"),
            "{}",
            lines[2]
        );
        assert!(
            lines[3].starts_with("    14:")
                && lines[3].ends_with("wait 0")
                && lines[4].starts_with("    16:")
                && lines[4].ends_with("stop")
        );
        let raw = write_tmp("raw", &hw::isa::disasm::parse_hex(PROGRAM).unwrap());
        assert_eq!(run(&[raw]).unwrap(), text);
    }

    #[test]
    fn errors_are_messages() {
        let bad = write_tmp("bad", b"ffff");
        assert!(run(&["--hex".into(), bad])
            .unwrap_err()
            .contains("unknown opcode"));
        let cut = write_tmp("cut", b"0e0142");
        assert!(run(&["--hex".into(), cut])
            .unwrap_err()
            .contains("truncated"));
        let odd = write_tmp("odd", b"0e0");
        assert!(run(&["--hex".into(), odd]).is_err());
        assert!(run(&["--hex".into(), "/nonexistent/agx4".into()]).is_err());
        assert!(run(&[]).is_err());
    }
}
