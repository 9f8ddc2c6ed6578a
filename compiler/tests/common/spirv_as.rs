//! SPIR-V assembly to words through Debian's `spirv-as` (spirv-tools, which scripts/deps.sh
//! installs), for tests of instructions no GLSL compiler emits in the needed form.

/// Assembles `src` for Vulkan 1.0. A missing spirv-as or an assembly error panics with the
/// tool's message.
pub fn spirv_as(src: &str) -> Vec<u32> {
    let exe = "/usr/bin/spirv-as";
    assert!(
        std::path::Path::new(exe).exists(),
        "{exe} is missing: install spirv-tools (scripts/deps.sh does)"
    );
    let h = src.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let dir = std::env::temp_dir().join(format!("agx4-spirv-as-{}-{h:x}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (input, output) = (dir.join("s.spvasm"), dir.join("s.spv"));
    std::fs::write(&input, src).expect("write the assembly");
    let st = std::process::Command::new(exe)
        .args(["--target-env", "vulkan1.0", "-o"])
        .arg(&output)
        .arg(&input)
        .output()
        .expect("run spirv-as");
    assert!(
        st.status.success(),
        "spirv-as failed: {}",
        String::from_utf8_lossy(&st.stderr)
    );
    let bytes = std::fs::read(&output).expect("read the SPIR-V");
    let _ = std::fs::remove_dir_all(&dir);
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
