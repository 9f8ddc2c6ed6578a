//! What the simulated kernel reports through GET_PARAMS, and the limits it enforces.

use crate::uapi::*;
use hw::uat::{PAGE_SIZE, VA_BITS};
use hw::Identity;

/// User VA window: the kernel leaves out page 0 and keeps the top two pages for itself.
pub(crate) const VM_START: u64 = PAGE_SIZE;
pub(crate) const VM_END: u64 = (1 << VA_BITS) - 2 * PAGE_SIZE;
/// Smallest kernel carve-out VM_CREATE accepts (512 MiB, as the Asahi kernel driver).
pub(crate) const VM_KERNEL_MIN_SIZE: u64 = 0x2000_0000;
/// Firmware limit on hardware commands per SUBMIT (the Asahi kernel driver's value).
pub(crate) const MAX_COMMANDS: u32 = 64;
/// Attachments one attachment-setting command may carry (the firmware's table size).
pub(crate) const MAX_ATTACHMENTS: u32 = 16;
/// The Asahi kernel converts command timestamps to nanoseconds before userspace sees them.
/// The ICD must still read this value rather than assume it.
pub(crate) const TIMESTAMP_HZ: u64 = 1_000_000_000;
/// Largest GEM object the simulator will back (64 GiB of lazily allocated host memory).
pub(crate) const MAX_OBJECT_SIZE: u64 = 1 << 36;

pub(crate) fn global(gpu: &Identity) -> drm_asahi_params_global {
    let mut p = drm_asahi_params_global {
        // No soft faults: an unmapped shader access faults the queue, the strict behaviour.
        features: 0,
        gpu_generation: gpu.generation.number(),
        gpu_variant: gpu.variant.letter() as u32,
        gpu_revision: gpu.revision,
        chip_id: gpu.chip_id,
        num_dies: gpu.num_dies,
        num_clusters_total: gpu.num_clusters,
        num_cores_per_cluster: gpu.cores_per_cluster,
        max_frequency_khz: gpu.max_frequency_khz,
        vm_start: VM_START,
        vm_end: VM_END,
        vm_kernel_min_size: VM_KERNEL_MIN_SIZE,
        max_commands_per_submission: MAX_COMMANDS,
        max_attachments: MAX_ATTACHMENTS,
        command_timestamp_frequency_hz: TIMESTAMP_HZ,
        ..Default::default()
    };
    for (slot, mask) in p.core_masks.iter_mut().zip(gpu.core_masks) {
        *slot = u64::from(*mask);
    }
    p
}
