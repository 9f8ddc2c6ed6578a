//! What a scene needs from a device, checked before it runs: a device without one of them
//! skips the scene with the reason instead of failing it.

use super::gpu::{Feature, Gpu};
use ash::vk;
use std::ffi::CStr;

#[derive(Clone, Debug, Default)]
pub struct Needs {
    /// Optimal-tiling format features, with the image usage the scene gives such images.
    pub formats: Vec<(vk::Format, vk::FormatFeatureFlags, vk::ImageUsageFlags)>,
    /// Vertex-buffer formats.
    pub vertex: Vec<vk::Format>,
    pub features: Vec<Feature>,
    /// (format, usage, sample count) images the scene makes multisampled.
    pub samples: Vec<(vk::Format, vk::ImageUsageFlags, vk::SampleCountFlags)>,
    /// Whether the scene draws (as opposed to transfers only).
    pub draws: bool,
    /// Device extensions (the harness enables every wanted one the device lists).
    pub extensions: Vec<&'static CStr>,
    /// (format, usage, create flags, array layers) of layered images.
    pub layered: Vec<(vk::Format, vk::ImageUsageFlags, vk::ImageCreateFlags, u32)>,
    /// Framebuffer layers.
    pub framebuffer_layers: u32,
    /// A depth/stencil resolve that resolves one aspect and not the other.
    pub independent_resolve_none: bool,
}

/// Why lavapipe skips a scene that is then checked against its CPU expectation alone: a
/// property Mesa 22.3's lavapipe does not have.
pub const LAVAPIPE_LACKS: &str = "independentResolveNone";

/// Whether a skip reason is only `LAVAPIPE_LACKS`.
pub fn cpu_checked_only(why: &str) -> bool {
    why == LAVAPIPE_LACKS
}

const COLOR_USAGE: vk::ImageUsageFlags = vk::ImageUsageFlags::from_raw(
    vk::ImageUsageFlags::COLOR_ATTACHMENT.as_raw() | vk::ImageUsageFlags::TRANSFER_SRC.as_raw(),
);
const DEPTH_USAGE: vk::ImageUsageFlags = vk::ImageUsageFlags::from_raw(
    vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT.as_raw()
        | vk::ImageUsageFlags::TRANSFER_SRC.as_raw(),
);

impl Needs {
    pub fn new() -> Needs {
        Needs::default()
    }

    /// A colour attachment format (read back by a copy).
    pub fn color(mut self, f: vk::Format) -> Needs {
        self.draws = true;
        self.formats
            .push((f, vk::FormatFeatureFlags::COLOR_ATTACHMENT, COLOR_USAGE));
        self
    }

    /// A colour attachment format that is blended.
    pub fn blended(mut self, f: vk::Format) -> Needs {
        self.draws = true;
        self.formats.push((
            f,
            vk::FormatFeatureFlags::COLOR_ATTACHMENT
                | vk::FormatFeatureFlags::COLOR_ATTACHMENT_BLEND,
            COLOR_USAGE,
        ));
        self
    }

    /// A colour attachment also read as an input attachment.
    pub fn input(mut self, f: vk::Format) -> Needs {
        self.draws = true;
        let usage = COLOR_USAGE | vk::ImageUsageFlags::INPUT_ATTACHMENT;
        self.formats
            .push((f, vk::FormatFeatureFlags::COLOR_ATTACHMENT, usage));
        self
    }

    pub fn depth(mut self, f: vk::Format) -> Needs {
        self.draws = true;
        self.formats.push((
            f,
            vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT,
            DEPTH_USAGE,
        ));
        self
    }

    /// A format only copied, cleared or blitted: the features (none for plain copies on a
    /// Vulkan 1.0 device without maintenance1) and the usage its images get.
    pub fn transfer(
        mut self,
        f: vk::Format,
        features: vk::FormatFeatureFlags,
        usage: vk::ImageUsageFlags,
    ) -> Needs {
        self.formats.push((f, features, usage));
        self
    }

    pub fn vertex(mut self, f: vk::Format) -> Needs {
        self.vertex.push(f);
        self
    }

    pub fn feature(mut self, f: Feature) -> Needs {
        self.features.push(f);
        self
    }

    pub fn extension(mut self, name: &'static CStr) -> Needs {
        self.extensions.push(name);
        self
    }

    /// Images of `layers` array layers (created with `flags`, cube-compatible for instance).
    pub fn layered(
        mut self,
        f: vk::Format,
        usage: vk::ImageUsageFlags,
        flags: vk::ImageCreateFlags,
        layers: u32,
    ) -> Needs {
        self.layered.push((f, usage, flags, layers));
        self
    }

    /// A framebuffer of `layers` layers.
    pub fn framebuffer_layers(mut self, layers: u32) -> Needs {
        self.framebuffer_layers = self.framebuffer_layers.max(layers);
        self
    }

    pub fn msaa(
        mut self,
        f: vk::Format,
        usage: vk::ImageUsageFlags,
        n: vk::SampleCountFlags,
    ) -> Needs {
        self.samples.push((f, usage, n));
        self
    }

    pub fn independent_resolve_none(mut self) -> Needs {
        self.independent_resolve_none = true;
        self
    }

    /// Why `gpu` cannot run the scene, or `None`.
    pub fn missing(&self, gpu: &Gpu) -> Option<String> {
        let mut why = Vec::new();
        for &(f, feats, usage) in &self.formats {
            let have = gpu.format_properties(f).optimal_tiling_features;
            if !have.contains(feats) {
                why.push(format!("{f:?} lacks {:?}", feats & !have));
            } else if gpu.image_support(f, usage).is_none() {
                why.push(format!("{f:?} images with {usage:?} unsupported"));
            }
        }
        for &f in &self.vertex {
            if !gpu
                .format_properties(f)
                .buffer_features
                .contains(vk::FormatFeatureFlags::VERTEX_BUFFER)
            {
                why.push(format!("{f:?} lacks VERTEX_BUFFER"));
            }
        }
        for &e in &self.extensions {
            if !gpu.has_extension(e) {
                why.push(format!("extension {}", e.to_string_lossy()));
            }
        }
        for &f in &self.features {
            if !gpu.features.has(f) {
                why.push(format!("feature {f:?}"));
            }
        }
        for &(f, usage, flags, layers) in &self.layered {
            match gpu.image_limits(f, usage, flags) {
                Some(p) if p.max_array_layers >= layers => {}
                _ => why.push(format!("{f:?} images of {layers} layers with {flags:?}")),
            }
        }
        if self.independent_resolve_none && !gpu.independent_resolve_none {
            why.push(LAVAPIPE_LACKS.to_string());
        }
        if self.framebuffer_layers > gpu.props.limits.max_framebuffer_layers {
            why.push(format!("{} framebuffer layers", self.framebuffer_layers));
        }
        for &(f, usage, n) in &self.samples {
            let counts = gpu.image_support(f, usage).unwrap_or_default();
            let limits = &gpu.props.limits;
            let fb = if usage.contains(vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT) {
                limits.framebuffer_depth_sample_counts
            } else {
                limits.framebuffer_color_sample_counts
            };
            if !counts.contains(n) || !fb.contains(n) {
                why.push(format!("{f:?} at {n:?} samples"));
            }
        }
        if why.is_empty() {
            None
        } else {
            Some(why.join("; "))
        }
    }
}
