//! Choosing the kernel behind the driver: a real asahi render node or the simulated device.

use crate::drm::DrmKmd;
use crate::sim::SimKmd;
use crate::Kmd;
use std::fmt;
use std::sync::Arc;

/// Environment variable that overrides device selection: `auto`, `sim` or `drm`.
pub const KMD_ENV: &str = "AGX4_KMD";

/// Which implementation of [`Kmd`] is in use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Drm,
    Sim,
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Drm => "asahi DRM",
            Backend::Sim => "simulated",
        })
    }
}

/// Why no kernel interface could be opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SelectError {
    message: String,
}

impl SelectError {
    pub fn new(message: impl Into<String>) -> SelectError {
        SelectError {
            message: message.into(),
        }
    }

    pub fn message(&self) -> &str {
        &self.message
    }
}

/// Open the device the environment asks for. With `AGX4_KMD` unset or `auto`, a real asahi
/// render node wins and the simulated device is the fallback. With `AGX4_TRACE=<file>` the
/// device is wrapped in a [`TraceKmd`](crate::trace::TraceKmd) recording into that file.
pub fn open_default() -> Result<Arc<dyn Kmd>, SelectError> {
    let kmd = open_backend()?;
    match std::env::var_os(crate::trace::TRACE_ENV) {
        Some(path) if !path.is_empty() => {
            let traced = crate::trace::TraceKmd::create(kmd, std::path::Path::new(&path))
                .map_err(|e| SelectError::new(format!("cannot write the trace {path:?}: {e}")))?;
            Ok(Arc::new(traced))
        }
        _ => Ok(kmd),
    }
}

fn open_backend() -> Result<Arc<dyn Kmd>, SelectError> {
    let choice = std::env::var(KMD_ENV).unwrap_or_default();
    match choice.trim() {
        "" | "auto" => match DrmKmd::open() {
            Ok(drm) => Ok(Arc::new(drm)),
            Err(_) => Ok(Arc::new(SimKmd::from_env()?)),
        },
        "sim" => Ok(Arc::new(SimKmd::from_env()?)),
        "drm" => Ok(Arc::new(DrmKmd::open()?)),
        other => Err(SelectError::new(format!(
            "{KMD_ENV}={other:?} is not understood; accepted values are auto (default), sim, drm"
        ))),
    }
}
