//! agx4: a Vulkan driver (ICD) for Apple AGX GPUs.
//!
//! The Khronos loader finds this library through `agx4_icd.json` and talks to it through the
//! three `vk_icd*` exports in [`loader`]. Every Vulkan object family has its own module; all of
//! them reach the GPU, real or simulated, only through `kmd_iface::Kmd`.

// Every `unsafe` block says why it is sound, directly above it (the test command runs clippy
// with warnings as errors).
#![warn(clippy::undocumented_unsafe_blocks)]

mod advertised;
mod bo;
mod buffer;
mod buffer_view;
mod cmd_buffer;
mod command_pool;
mod debug;
mod descriptor_pool;
mod descriptor_set_layout;
mod descriptor_update_template;
mod device;
mod device_address;
mod emit;
mod entry;
mod event;
mod external;
mod features;
mod format;
mod framebuffer;
mod handle;
mod host_alloc;
mod image;
mod image_view;
mod instance;
mod kmd;
mod loader;
mod memory;
mod physical_device;
mod pipeline;
mod pipeline_blend;
mod pipeline_cache;
mod pipeline_graphics;
mod pipeline_layout;
mod private_data;
mod properties;
mod query_pool;
mod queue;
mod render_pass;
mod sampler;
mod shader_module;
mod sync;
mod topology;
mod va;
mod wsi;

pub use loader::{
    vk_icdGetInstanceProcAddr, vk_icdGetPhysicalDeviceProcAddr,
    vk_icdNegotiateLoaderICDInterfaceVersion,
};
