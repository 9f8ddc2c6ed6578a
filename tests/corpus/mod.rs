//! The compute shader corpus: GLSL sources in tests/compute/, a table of cases with CPU
//! references (cases.rs), and a runner (runner.rs) that drives any Vulkan driver through the
//! real loader with the Khronos validation layer enabled.
//!
//! Each integration test binary is its own process, so the loader environment
//! (`VK_DRIVER_FILES`) chosen by `run_corpus` holds for the whole binary.

#![allow(dead_code)]

#[path = "../common/mod.rs"]
mod common;

mod case;
mod cases;
mod runner;
mod spirv;

use std::path::PathBuf;

pub use runner::Report;

/// Which ICD the loader is pointed at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Driver {
    /// Mesa's software rasteriser, the reference the corpus must pass on today.
    Lavapipe,
    /// The driver of this repository, on its simulated device.
    Agx4,
}

impl std::fmt::Display for Driver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Driver::Lavapipe => "lavapipe",
            Driver::Agx4 => "agx4",
        })
    }
}

/// Finds Mesa's lavapipe manifest (its file name carries the architecture).
fn lavapipe_manifest() -> Result<PathBuf, String> {
    for dir in [
        "/usr/share/vulkan/icd.d",
        "/usr/local/share/vulkan/icd.d",
        "/etc/vulkan/icd.d",
    ] {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
                name.starts_with("lvp_icd") && name.ends_with(".json")
            })
            .collect();
        found.sort();
        // Prefer the manifest of this machine's architecture when several are installed.
        if let Some(p) = found
            .iter()
            .find(|p| p.to_string_lossy().contains(std::env::consts::ARCH))
        {
            return Ok(p.clone());
        }
        if let Some(p) = found.into_iter().next() {
            return Ok(p);
        }
    }
    Err("no lvp_icd*.json found: install mesa-vulkan-drivers (scripts/deps.sh)".into())
}

/// Points the loader at exactly one driver. Must run before the first Vulkan call.
fn select_driver(driver: Driver) -> Result<(), String> {
    match driver {
        Driver::Agx4 => common::use_agx4_only(&[]),
        Driver::Lavapipe => {
            let manifest = lavapipe_manifest()?;
            // SAFETY: called before this process loads the Vulkan loader or starts threads
            // that read the environment; the test binary runs a single #[test].
            unsafe {
                std::env::set_var("VK_DRIVER_FILES", &manifest);
                std::env::set_var("NODEVICE_SELECT", "1");
            }
        }
    }
    Ok(())
}

/// Runs every case (or those whose name contains `AGX4_CORPUS_FILTER`) on `driver`.
pub fn run_corpus(driver: Driver) -> Report {
    let filter = std::env::var("AGX4_CORPUS_FILTER")
        .ok()
        .filter(|f| !f.is_empty());
    if let Err(e) = select_driver(driver) {
        return Report::setup_failure(driver, e);
    }
    let cases: Vec<case::Case> = cases::all()
        .into_iter()
        .filter(|c| filter.as_deref().is_none_or(|f| c.name.contains(f)))
        .collect();
    runner::run(driver, &cases)
}
