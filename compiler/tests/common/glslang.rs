//! GLSL to SPIR-V through Debian's `glslangValidator`, for the compiler's tests.
//!
//! It is shared by the integration tests (`mod common;`) and the back end's unit tests
//! (through a `#[path]` module), so there is one copy. A missing glslangValidator is a test
//! failure with the fix in the message, never a silent skip: scripts/deps.sh installs it.

/// Compiles one compute shader. Returns `Option` so callers can use `?`/`let else`; it is
/// always `Some` (a failure panics with glslang's own message).
pub fn glslang(src: &str) -> Option<Vec<u32>> {
    glslang_stage(src, "comp")
}

/// Compiles one shader of the stage glslang names by file extension (`comp`, `vert`,
/// `frag`, ...). Same contract as [`glslang`].
#[allow(dead_code)]
pub fn glslang_stage(src: &str, stage: &str) -> Option<Vec<u32>> {
    glslang_env(src, stage, "vulkan1.1")
}

/// As [`glslang_stage`] for another target environment: `vulkan1.2` gives SPIR-V 1.5, where
/// glslang copies between types of different layouts with OpCopyLogical.
#[allow(dead_code)]
pub fn glslang_env(src: &str, stage: &str, env: &str) -> Option<Vec<u32>> {
    let exe = "/usr/bin/glslangValidator";
    assert!(
        std::path::Path::new(exe).exists(),
        "{exe} is missing: install glslang-tools (scripts/deps.sh does)"
    );
    // A directory per call, so tests compiling in parallel (even the same source) never
    // share files.
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("agx4-glslang-{}-{call}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (input, output) = (dir.join(format!("s.{stage}")), dir.join("s.spv"));
    std::fs::write(&input, src).expect("write the GLSL");
    let st = std::process::Command::new(exe)
        .args(["-V", "--target-env", env, "-o"])
        .arg(&output)
        .arg(&input)
        .output()
        .expect("run glslangValidator");
    assert!(
        st.status.success(),
        "glslang failed: {}",
        String::from_utf8_lossy(&st.stdout)
    );
    let bytes = std::fs::read(&output).expect("read the SPIR-V");
    let _ = std::fs::remove_dir_all(&dir);
    Some(
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    )
}
