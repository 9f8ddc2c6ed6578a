//! agx4: a Vulkan driver (ICD) for Apple AGX GPUs.
//!
//! The Khronos loader finds this library through `agx4_icd.json` and talks to it through the
//! three `vk_icd*` exports in [`loader`]. Every Vulkan object family has its own module; all of
//! them reach the GPU, real or simulated, only through `kmd_iface::Kmd`.

mod advertised;
mod buffer;
mod debug;
mod device;
mod entry;
mod handle;
mod instance;
mod kmd;
mod loader;
mod memory;
mod physical_device;
mod queue;
mod sync;
mod va;

pub use loader::{vk_icdGetInstanceProcAddr, vk_icdGetPhysicalDeviceProcAddr, vk_icdNegotiateLoaderICDInterfaceVersion};
