//! agx4-g16-forms: what agx4 knows of G16 (Apple M4) instruction forms, and where from.
//!
//! Usage: `agx4-g16-forms` prints every form with its lengths, evidence class and source (a
//! `*` marks those agx4 encodes), and how many forms each class holds. `agx4-g16-forms --hex FILE` frames G16 code (hex text; `-`
//! reads standard input) with the published length rules and names each instruction's form
//! where agx4 decodes it, with that form's evidence class.

use hw::g16::encode::{
    Compact2, Convert, ExecControl, Fma, GetSr, MovImm, MovImm32, PredicateCompare,
};
use hw::g16::forms::{tally, Form, FORMS};
use hw::g16::length::frame;
use std::io::Read;
use std::process::ExitCode;

fn form(name: &str) -> Option<&'static Form> {
    FORMS.iter().find(|f| f.name.starts_with(name))
}

/// The form `bytes` decodes as, among those agx4 decodes.
fn identify(bytes: &[u8]) -> Option<(&'static Form, String)> {
    if bytes == [0x0e, 0, 0, 0] {
        return Some((form("stop")?, "stop".into()));
    }
    if let Some(i) = MovImm::decode(bytes).ok().filter(|_| bytes.len() == 2) {
        return Some((form("mov_imm")?, format!("{i:?}")));
    }
    if let Some(i) = MovImm32::decode(bytes).ok().filter(|_| bytes.len() == 8) {
        return Some((form("mov_imm32")?, format!("{i:?}")));
    }
    if let Some(i) = GetSr::decode(bytes).ok().filter(|_| bytes.len() == 4) {
        return Some((form("get_sr")?, format!("{i:?}")));
    }
    if let Some(i) = Fma::decode(bytes).ok().filter(|_| bytes.len() == 8) {
        return Some((form("fma")?, format!("{i:?}")));
    }
    if let Some(i) = Compact2::decode(bytes).ok().filter(|_| bytes.len() == 6) {
        let name = match i.op {
            hw::g16::encode::Compact2Op::Min(_) | hw::g16::encode::Compact2Op::Max(_) => "min",
            _ => "falu2",
        };
        return Some((form(name)?, format!("{i:?}")));
    }
    if let Ok(i) = PredicateCompare::decode(bytes) {
        return Some((form("predicate compare")?, format!("{i:?}")));
    }
    if let Ok(i) = Convert::decode(bytes) {
        let name = if i.to_float { "i2f" } else { "f2i" };
        return Some((form(name)?, format!("{i:?}")));
    }
    if let Ok(i) = ExecControl::decode(bytes) {
        let name = match i {
            ExecControl::Push { .. } => "execution mask push",
            ExecControl::Else => "execution mask else",
            ExecControl::Pop => "execution mask pop",
            ExecControl::Jump { .. } => "jump",
            _ => "loop push",
        };
        return Some((form(name)?, format!("{i:?}")));
    }
    None
}

fn table() -> String {
    let mut out = String::new();
    for f in FORMS {
        let lengths: Vec<String> = f.lengths.iter().map(|n| n.to_string()).collect();
        out += &format!(
            "{}{:<48} {:>12}  {:<24} {}:{}{}{}\n",
            if f.encoded { "* " } else { "  " },
            f.name,
            lengths.join("/"),
            f.evidence.name(),
            f.source.repo,
            f.source.path,
            if f.note.is_empty() { "" } else { "  " },
            f.note
        );
    }
    for (class, n) in tally() {
        out += &format!("{n:3} forms: {class}\n");
    }
    let encoded = FORMS.iter().filter(|f| f.encoded).count();
    out += &format!("{encoded:3} forms (*) encoded and decoded field by field by agx4\n");
    out
}

fn run(args: &[String]) -> Result<String, String> {
    match args {
        [] => Ok(table()),
        [flag, path] if flag == "--hex" => {
            let mut text = String::new();
            if path == "-" {
                std::io::stdin()
                    .read_to_string(&mut text)
                    .map_err(|e| e.to_string())?;
            } else {
                text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
            }
            let code = hw::isa::disasm::parse_hex(&text)?;
            let lengths = frame(&code).map_err(|(at, e)| format!("at byte {at}: {e}"))?;
            let mut out = String::new();
            let mut at = 0;
            for n in lengths {
                let bytes = &code[at..at + n];
                let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
                let what = match identify(bytes) {
                    Some((f, text)) => format!("{text}  [{}]", f.evidence),
                    None => "(length rule only)".into(),
                };
                out += &format!("{at:6x}: {:<42} {what}\n", hex.join(" "));
                at += n;
            }
            Ok(out)
        }
        _ => Err("usage: agx4-g16-forms [--hex FILE]".into()),
    }
}

fn main() -> ExitCode {
    hw::isa::disasm::tool_main("agx4-g16-forms", run)
}
