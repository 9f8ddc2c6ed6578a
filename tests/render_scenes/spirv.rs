//! Scene shaders (tests/scenes/*.vert, *.frag): GLSL → SPIR-V at test time with glslangValidator, cached under the cargo target directory
//! by a hash of the source text so an edited shader is rebuilt.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

const GLSLANG: &str = "/usr/bin/glslangValidator";

fn source_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("scenes")
}

/// `<target>/scene-spv`, from the test executable at `<target>/<profile>/deps/<exe>`.
fn cache_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    let target = exe
        .ancestors()
        .nth(3)
        .map(Path::to_path_buf)
        .unwrap_or_else(std::env::temp_dir);
    target.join("scene-spv")
}

/// The SPIR-V words of `tests/scenes/<name>`.
pub fn compile(name: &str) -> Result<Vec<u32>, String> {
    let src_path = source_dir().join(name);
    let src =
        std::fs::read(&src_path).map_err(|e| format!("reading {}: {e}", src_path.display()))?;
    let mut h = DefaultHasher::new();
    name.hash(&mut h);
    src.hash(&mut h);
    let dir = cache_dir();
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let spv = dir.join(format!("{name}.{:016x}.spv", h.finish()));
    if !spv.exists() {
        if !Path::new(GLSLANG).exists() {
            return Err(format!(
                "{GLSLANG} is missing: run scripts/deps.sh (installs glslang-tools)"
            ));
        }
        // Written under a per-process, per-thread name and renamed, so concurrent test binaries
        // and the tests of one binary never read a half-written module or move each other's.
        let thread = format!("{:?}", std::thread::current().id());
        let thread: String = thread.chars().filter(char::is_ascii_digit).collect();
        let tmp = dir.join(format!("{name}.{}.{thread}.tmp", std::process::id()));
        let out = Command::new(GLSLANG)
            .arg("-V")
            .arg("--target-env")
            .arg("vulkan1.0")
            .arg("-o")
            .arg(&tmp)
            .arg(&src_path)
            .output()
            .map_err(|e| format!("running {GLSLANG}: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "glslangValidator failed on {name}:\n{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        std::fs::rename(&tmp, &spv).map_err(|e| format!("caching {}: {e}", spv.display()))?;
    }
    let bytes = std::fs::read(&spv).map_err(|e| format!("reading {}: {e}", spv.display()))?;
    ash::util::read_spv(&mut std::io::Cursor::new(bytes))
        .map_err(|e| format!("{name}: bad SPIR-V: {e}"))
}
