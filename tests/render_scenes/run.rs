//! Running scenes: one scene on one device (skip, render, validation check, comparison with
//! the CPU expectation), and the per-driver tally. `render` is the entry point for other
//! programs (a benchmark): open a driver, run one named scene, get its pixels.

use super::frame::{Frame, R};
use super::gpu::{Driver, Gpu};
use super::image::{compare, Image, Tol};
use super::needs::Needs;
use std::path::Path;

/// One image a scene produced, with what it should be (when the CPU can say) and how close
/// renders must be.
pub struct Out {
    pub got: Image,
    pub want: Option<Image>,
    pub tol: Tol,
}

impl Out {
    pub fn new(got: Image, want: Option<Image>, tol: Tol) -> Out {
        Out { got, want, tol }
    }
}

pub struct Scene {
    pub name: &'static str,
    /// Framebuffer width and height.
    pub size: u32,
    pub needs: fn() -> Needs,
    pub run: fn(&mut Frame) -> R<Vec<Out>>,
}

/// What happened to one scene on one device.
pub enum Outcome {
    Pass(Vec<Out>),
    Skip(String),
    Fail(String, Vec<Out>),
}

/// Renders `scene` on `gpu`. Validation messages emitted while it ran fail it, as does a
/// mismatch with the CPU expectation.
pub fn run_scene(gpu: &Gpu, scene: &Scene) -> Outcome {
    if let Some(why) = (scene.needs)().missing(gpu) {
        return Outcome::Skip(why);
    }
    let _ = gpu.take_messages();
    let result = {
        let mut frame = Frame::new(gpu, scene.size, scene.size);
        (scene.run)(&mut frame)
        // The frame drops here: its objects are destroyed before messages are collected, so
        // leaks and destruction errors count against the scene.
    };
    let msgs = gpu.take_messages();
    let outs = match result {
        Ok(o) => o,
        Err(e) => return Outcome::Fail(e, vec![]),
    };
    if !msgs.is_empty() {
        return Outcome::Fail(
            format!(
                "{} validation messages:\n    {}",
                msgs.len(),
                msgs.join("\n    ")
            ),
            outs,
        );
    }
    let mut errs = Vec::new();
    for o in &outs {
        if let Some(want) = &o.want {
            if let Err((e, _)) = compare(&o.got, want, &o.tol) {
                errs.push(format!("vs CPU expectation: {e}"));
            }
        }
    }
    if errs.is_empty() {
        Outcome::Pass(outs)
    } else {
        Outcome::Fail(errs.join("; "), outs)
    }
}

/// Opens `driver` and renders the scene called `name`: its images, or why it could not.
pub fn render(driver: &Driver, name: &str) -> R<Vec<Image>> {
    let scene = super::scenes::all()
        .into_iter()
        .find(|s| s.name == name)
        .ok_or_else(|| format!("no scene {name}"))?;
    let gpu = Gpu::open(driver)?;
    match run_scene(&gpu, &scene) {
        Outcome::Pass(outs) => Ok(outs.into_iter().map(|o| o.got).collect()),
        Outcome::Skip(why) => Err(format!("skipped: {why}")),
        Outcome::Fail(e, _) => Err(e),
    }
}

/// Counts per driver, for the summary line.
#[derive(Default)]
pub struct Tally {
    pub passed: usize,
    pub skipped: Vec<(String, String)>,
    pub failed: Vec<(String, String)>,
}

impl Tally {
    pub fn summary(&self, driver: &str) -> String {
        // Each distinct missing requirement once, with how many skipped scenes name it.
        let mut counts: Vec<(String, usize)> = Vec::new();
        for (_, why) in &self.skipped {
            for part in why.split("; ") {
                match counts.iter_mut().find(|(r, _)| r == part) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((part.to_string(), 1)),
                }
            }
        }
        counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let reasons: Vec<String> = counts.iter().map(|(r, n)| format!("{r} x{n}")).collect();
        let reasons = if reasons.is_empty() {
            String::new()
        } else {
            format!(" ({})", reasons.join(", "))
        };
        format!(
            "{driver} scenes: {} passed, {} skipped{reasons}, {} failed",
            self.passed,
            self.skipped.len(),
            self.failed.len()
        )
    }
}

/// Writes `<dir>/<scene>.<label>.<driver>.ppm` for each image, and the diff where given.
pub fn dump(dir: &Path, scene: &str, driver: &str, images: &[&Image]) {
    let _ = std::fs::create_dir_all(dir);
    for img in images {
        let label = img.label.replace(['/', ' '], "_");
        let _ = img.write_ppm(&dir.join(format!("{scene}.{label}.{driver}.ppm")));
    }
}

/// The scenes named by `AGX4_SCENES` (comma-separated), or all.
pub fn selected() -> Vec<Scene> {
    let filter: Option<Vec<String>> = std::env::var("AGX4_SCENES")
        .ok()
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.split(',').map(|n| n.trim().to_string()).collect());
    super::scenes::all()
        .into_iter()
        .filter(|s| {
            filter
                .as_ref()
                .is_none_or(|f| f.iter().any(|n| n == s.name))
        })
        .collect()
}
