//! What the compute corpus (tests/compute/*.comp) would need on G16 (Apple M4).
//!
//! `cargo run --example g16_corpus` compiles each shader with agx4's compiler (for G13, whose
//! instruction model the compiler selects today), maps every instruction to the G16 forms
//! that do its work (`hw::g16::needs`), and prints, per shader, the forms whose evidence is
//! weaker than a run on an M4 and the operations no public source encodes for G16; then the
//! corpus's share of instructions and of distinct forms with hardware evidence. Nothing here
//! runs on G16: agx4 has no G16 codec yet, so this is what a G16 back end would have to cover.
//! Needs glslangValidator (Debian's glslang-tools).

use hw::g16::evidence::EvidenceClass;
use hw::g16::needs::{needs, Need};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, ExitCode};

fn spirv(path: &Path) -> Result<Vec<u32>, String> {
    let out = std::env::temp_dir().join(format!(
        "agx4-g16-{}-{}.spv",
        std::process::id(),
        path.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("shader")
    ));
    let status = Command::new("glslangValidator")
        .args(["-V", "--target-env", "vulkan1.2", "-o"])
        .arg(&out)
        .arg(path)
        .output()
        .map_err(|e| format!("glslangValidator: {e}"))?;
    if !status.status.success() {
        return Err(String::from_utf8_lossy(&status.stdout).into_owned());
    }
    let bytes = std::fs::read(&out).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&out);
    Ok(bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect())
}

/// The decoded instructions of `path`'s compute shader.
fn instructions(path: &Path) -> Result<Vec<hw::isa::Instr>, String> {
    let words = spirv(path)?;
    let layout = compiler::reflect::layout_from_spirv(&words).map_err(|e| e.to_string())?;
    let req = compiler::ComputeRequest {
        spirv: &words,
        entry_point: "main",
        specialization: &[],
        layout: &layout,
        target: compiler::Target::G13,
    };
    let bin = compiler::compile_compute(&req).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    let mut at = 0;
    while at < bin.code.len() {
        let (i, n) = hw::g13::decode(&bin.code[at..]).map_err(|e| format!("{e:?}"))?;
        out.push(i);
        at += n;
    }
    Ok(out)
}

fn main() -> ExitCode {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compute");
    let mut paths: Vec<_> = match std::fs::read_dir(&dir) {
        Ok(d) => d
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "comp"))
            .collect(),
        Err(e) => {
            eprintln!("g16_corpus: {}: {e}", dir.display());
            return ExitCode::FAILURE;
        }
    };
    paths.sort();
    let (mut total, mut hardware, mut shaders, mut formable) = (0usize, 0usize, 0usize, 0usize);
    let mut by_form: BTreeMap<&str, (EvidenceClass, usize)> = BTreeMap::new();
    let mut missing: BTreeMap<&str, usize> = BTreeMap::new();
    for p in &paths {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("?");
        let instrs = match instructions(p) {
            Ok(i) => i,
            Err(e) => {
                println!(
                    "{name:<28} not compiled: {}",
                    e.lines().next().unwrap_or("")
                );
                continue;
            }
        };
        shaders += 1;
        let mut weak: BTreeMap<&str, EvidenceClass> = BTreeMap::new();
        let mut lacks: BTreeMap<&str, usize> = BTreeMap::new();
        for i in &instrs {
            let n = needs(i);
            total += 1;
            if n.iter()
                .all(|n| matches!(n, Need::Form(f) if f.evidence.emittable()))
            {
                hardware += 1;
            }
            for need in n {
                match need {
                    Need::Form(f) => {
                        by_form.entry(f.name).or_insert((f.evidence, 0)).1 += 1;
                        if !f.evidence.emittable() {
                            weak.insert(f.name, f.evidence);
                        }
                    }
                    Need::Missing(what) => {
                        *lacks.entry(what).or_default() += 1;
                        *missing.entry(what).or_default() += 1;
                    }
                }
            }
        }
        if lacks.is_empty() {
            formable += 1;
        }
        let mut line = format!("{name:<28} {:4} instructions", instrs.len());
        if lacks.is_empty() && weak.is_empty() {
            line += "  every form run on an M4";
        }
        for (what, n) in &lacks {
            line += &format!("  | missing: {what} ({n})");
        }
        for (f, class) in &weak {
            line += &format!("  | {f}: {class}");
        }
        println!("{line}");
    }
    println!();
    println!("{shaders} shaders compiled, {total} instructions");
    println!(
        "{formable} shaders need only documented G16 forms; {} need an operation with none",
        shaders - formable
    );
    if total > 0 {
        println!(
            "{hardware} of {total} instructions ({:.1}%) need only forms run on an M4",
            100.0 * hardware as f64 / total as f64
        );
    }
    let distinct = by_form.len();
    let run = by_form.values().filter(|(c, _)| c.emittable()).count();
    println!("{run} of the {distinct} distinct G16 forms used were run on an M4:");
    for (name, (class, n)) in &by_form {
        println!("  {n:6}  {name} [{class}]");
    }
    println!("operations with no public G16 encoding:");
    for (what, n) in &missing {
        println!("  {n:6}  {what}");
    }
    ExitCode::SUCCESS
}
