/* SPDX-License-Identifier: MIT */
/*
 * agx4's statement of the Linux kernel interface it drives: the Asahi GPU ioctls (upstream
 * since Linux 6.16) and the core DRM structs and syncobj ioctls it uses beside them.
 *
 * Written for agx4 from the published layouts; it is input to bindgen, not a copy of the
 * kernel headers. Rules kept throughout:
 *   - every struct is 8-byte aligned and has no implicit padding: each hole is a named pad;
 *   - request codes are enum constants (not macros) so bindgen evaluates them;
 *   - layouts assume LP64 (aarch64 / x86_64), the only ABIs agx4 runs on.
 *
 * kmd-iface/src/uapi.rs asserts every size, key offsets and every request code at compile
 * time against numbers computed independently of this file.
 */
#ifndef AGX4_ASAHI_UAPI_H
#define AGX4_ASAHI_UAPI_H

#include <stddef.h>
#include <stdint.h>

/* ---- ioctl request encoding (asm-generic: aarch64 and x86_64) ----------------------------
 * bits 0-7 command number, 8-15 type ('d' for DRM), 16-29 argument size, 30-31 direction.
 * WRITE means userspace passes data in, READ that the kernel copies the struct back out. */
#define AGX4_IOC_NONE 0u
#define AGX4_IOC_WRITE 1u
#define AGX4_IOC_READ 2u
#define AGX4_IOC(dir, type, nr, size) \
	(((dir) << 30) | ((uint32_t)(size) << 16) | ((uint32_t)(type) << 8) | (uint32_t)(nr))

#define DRM_IOCTL_BASE 'd'
/* Driver-private ioctl numbers start here; generic DRM ones live below and from 0xA0 up. */
#define DRM_COMMAND_BASE 0x40u

#define AGX4_DRM_IOW(nr, type) AGX4_IOC(AGX4_IOC_WRITE, DRM_IOCTL_BASE, nr, sizeof(type))
#define AGX4_DRM_IOWR(nr, type) \
	AGX4_IOC(AGX4_IOC_WRITE | AGX4_IOC_READ, DRM_IOCTL_BASE, nr, sizeof(type))

/* ======================================= core DRM ======================================= */

/* DRM_IOCTL_VERSION: the kernel fills the three numbers and copies at most *_len bytes of
 * each string into the user buffers, then sets *_len to the full string length. */
struct drm_version {
	int32_t version_major;
	int32_t version_minor;
	int32_t version_patchlevel;
	int32_t pad0; /* hole before the first size_t */
	size_t name_len;
	char *name;
	size_t date_len;
	char *date;
	size_t desc_len;
	char *desc;
};

/* DRM_IOCTL_GEM_CLOSE: drop a GEM handle. */
struct drm_gem_close {
	uint32_t handle;
	uint32_t pad;
};

/* Create the syncobj with an already signaled fence. */
#define DRM_SYNCOBJ_CREATE_SIGNALED (1u << 0)

struct drm_syncobj_create {
	uint32_t handle; /* out */
	uint32_t flags;
};

struct drm_syncobj_destroy {
	uint32_t handle;
	uint32_t pad;
};

/* Wait flags (WAIT and TIMELINE_WAIT; AVAILABLE only for TIMELINE_WAIT):
 *   WAIT_ALL        all handles instead of any one;
 *   WAIT_FOR_SUBMIT a syncobj without a fence (yet) is waited on rather than an error;
 *   WAIT_AVAILABLE  done once the fence for the point exists, signaled or not;
 *   WAIT_DEADLINE   deadline_nsec is a hint for the fence's signaler. */
#define DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL (1u << 0)
#define DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT (1u << 1)
#define DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE (1u << 2)
#define DRM_SYNCOBJ_WAIT_FLAGS_WAIT_DEADLINE (1u << 3)

/* Both timeouts are absolute CLOCK_MONOTONIC times in nanoseconds. */
struct drm_syncobj_wait {
	uint64_t handles; /* user pointer to count_handles u32 */
	int64_t timeout_nsec;
	uint32_t count_handles;
	uint32_t flags;
	uint32_t first_signaled; /* out, meaningful only without WAIT_ALL */
	uint32_t pad;
	uint64_t deadline_nsec;
};

struct drm_syncobj_timeline_wait {
	uint64_t handles; /* user pointer to count_handles u32 */
	uint64_t points;  /* user pointer to count_handles u64 */
	int64_t timeout_nsec;
	uint32_t count_handles;
	uint32_t flags;
	uint32_t first_signaled;
	uint32_t pad;
	uint64_t deadline_nsec;
};

/* RESET and SIGNAL. */
struct drm_syncobj_array {
	uint64_t handles;
	uint32_t count_handles;
	uint32_t pad;
};

/* QUERY reports the last submitted point instead of the last signaled one. */
#define DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED (1u << 0)

/* TIMELINE_SIGNAL and QUERY. */
struct drm_syncobj_timeline_array {
	uint64_t handles;
	uint64_t points;
	uint32_t count_handles;
	uint32_t flags;
};

/* PRIME: a GEM handle as a dma-buf file descriptor and back. flags (handle->fd only) may hold
 * DRM_CLOEXEC and DRM_RDWR, which are O_CLOEXEC and O_RDWR. Importing an fd the file already
 * has a handle for returns that handle. */
#define DRM_RDWR 02u
#define DRM_CLOEXEC 02000000u

struct drm_prime_handle {
	uint32_t handle;
	uint32_t flags;
	int32_t fd;
};

/* Syncobj <-> fd. Without flags the fd stands for the syncobj itself (importing it gives a new
 * handle to the same syncobj); with the SYNC_FILE flags it is a sync file holding the syncobj's
 * current fence (export) or a fence to put in the syncobj (import). */
#define DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE (1u << 0)
#define DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE (1u << 0)

struct drm_syncobj_handle {
	uint32_t handle;
	uint32_t flags;
	int32_t fd;
	uint32_t pad;
};

/* Copy the fence at src_point of src into dst: a point of a timeline when dst_point != 0,
 * else dst's binary fence. flags may hold WAIT_FOR_SUBMIT. */
struct drm_syncobj_transfer {
	uint32_t src_handle;
	uint32_t dst_handle;
	uint64_t src_point;
	uint64_t dst_point;
	uint32_t flags;
	uint32_t pad;
};

/* ========================================= Asahi ======================================== */

/* Command numbers, relative to DRM_COMMAND_BASE. Append-only. */
enum drm_asahi_ioctl_id {
	DRM_ASAHI_GET_PARAMS = 0,
	DRM_ASAHI_GET_TIME = 1,
	DRM_ASAHI_VM_CREATE = 2,
	DRM_ASAHI_VM_DESTROY = 3,
	DRM_ASAHI_VM_BIND = 4,
	DRM_ASAHI_GEM_CREATE = 5,
	DRM_ASAHI_GEM_MMAP_OFFSET = 6,
	DRM_ASAHI_GEM_BIND_OBJECT = 7,
	DRM_ASAHI_QUEUE_CREATE = 8,
	DRM_ASAHI_QUEUE_DESTROY = 9,
	DRM_ASAHI_SUBMIT = 10,
};

#define DRM_ASAHI_MAX_CLUSTERS 64u

/* Parameter group 0. The kernel writes min(size, sizeof) bytes, so the struct only grows. */
struct drm_asahi_params_global {
	uint64_t features; /* enum drm_asahi_feature bits */
	uint32_t gpu_generation; /* 13 for G13x */
	uint32_t gpu_variant; /* ASCII letter: 'G', 'S', 'C', 'D' */
	uint32_t gpu_revision; /* BCD: 0x00 A0, 0x11 B1, 0x20 C0 */
	uint32_t chip_id; /* BCD SoC number: 0x8103 for T8103 */
	uint32_t num_dies;
	uint32_t num_clusters_total;
	uint32_t num_cores_per_cluster; /* slots, including fused-off cores */
	uint32_t max_frequency_khz;
	uint64_t core_masks[DRM_ASAHI_MAX_CLUSTERS]; /* enabled cores, per cluster */
	uint64_t vm_start; /* user GPU VA window [vm_start, vm_end) */
	uint64_t vm_end;
	uint64_t vm_kernel_min_size; /* smallest carve-out VM_CREATE accepts */
	uint32_t max_commands_per_submission;
	uint32_t max_attachments; /* per attachment-setting command */
	uint64_t command_timestamp_frequency_hz;
};

enum drm_asahi_feature {
	/* Shader loads from unmapped memory read zero and stores are dropped (no fault). */
	DRM_ASAHI_FEATURE_SOFT_FAULTS = (1u << 0),
};

struct drm_asahi_get_params {
	uint32_t param_group; /* MBZ */
	uint32_t pad;
	uint64_t pointer; /* user pointer to drm_asahi_params_global */
	uint64_t size; /* bytes available at pointer */
};

/* The kernel range [kernel_start, kernel_end) lies inside [vm_start, vm_end], is at least
 * vm_kernel_min_size long, and is never bound by userspace. */
struct drm_asahi_vm_create {
	uint64_t kernel_start;
	uint64_t kernel_end;
	uint32_t vm_id; /* out */
	uint32_t pad;
};

struct drm_asahi_vm_destroy {
	uint32_t vm_id;
	uint32_t pad;
};

enum drm_asahi_gem_flags {
	/* CPU mapping is cached (write-back) rather than write-combined. */
	DRM_ASAHI_GEM_WRITEBACK = (1u << 0),
	/* Only ever bound in vm_id; cannot be exported. */
	DRM_ASAHI_GEM_VM_PRIVATE = (1u << 1),
};

struct drm_asahi_gem_create {
	uint64_t size;
	uint32_t flags;
	uint32_t vm_id; /* with VM_PRIVATE only, else 0 */
	uint32_t handle; /* out */
	uint32_t pad;
};

struct drm_asahi_gem_mmap_offset {
	uint32_t handle;
	uint32_t flags; /* MBZ */
	uint64_t offset; /* out: pass to mmap() on the device file */
};

enum drm_asahi_bind_flags {
	DRM_ASAHI_BIND_UNBIND = (1u << 0),
	DRM_ASAHI_BIND_READ = (1u << 1),
	DRM_ASAHI_BIND_WRITE = (1u << 2),
	/* Repeat the page at offset across the whole range (sparse, scratch and zero pages). */
	DRM_ASAHI_BIND_SINGLE_PAGE = (1u << 3),
};

/* offset, range and addr are multiples of the 16 KiB GPU page. */
struct drm_asahi_gem_bind_op {
	uint32_t flags;
	uint32_t handle; /* 0 for UNBIND */
	uint64_t offset; /* into the object; 0 for UNBIND */
	uint64_t range;
	uint64_t addr;
};

struct drm_asahi_vm_bind {
	uint32_t vm_id;
	uint32_t num_binds;
	uint32_t stride; /* bytes between bind ops, for future growth of the op struct */
	uint32_t pad;
	uint64_t userptr; /* user pointer to num_binds ops */
};

enum drm_asahi_bind_object_op {
	DRM_ASAHI_BIND_OBJECT_OP_BIND = 0,
	DRM_ASAHI_BIND_OBJECT_OP_UNBIND = 1,
};

enum drm_asahi_bind_object_flags {
	/* The firmware writes command timestamps into this range. */
	DRM_ASAHI_BIND_OBJECT_USAGE_TIMESTAMPS = (1u << 0),
};

struct drm_asahi_gem_bind_object {
	uint32_t op;
	uint32_t flags;
	uint32_t handle; /* BIND: the GEM object */
	uint32_t vm_id; /* MBZ */
	uint64_t offset; /* BIND only */
	uint64_t range; /* BIND only */
	uint32_t object_handle; /* out for BIND, in for UNBIND */
	uint32_t pad;
};

enum drm_asahi_cmd_type {
	DRM_ASAHI_CMD_RENDER = 0, /* payload: drm_asahi_cmd_render */
	DRM_ASAHI_CMD_COMPUTE = 1, /* payload: drm_asahi_cmd_compute */
	/* Software commands: payload is an array of drm_asahi_attachment that applies to the
	 * following commands of this submit. */
	DRM_ASAHI_SET_VERTEX_ATTACHMENTS = 2,
	DRM_ASAHI_SET_FRAGMENT_ATTACHMENTS = 3,
	DRM_ASAHI_SET_COMPUTE_ATTACHMENTS = 4,
};

enum drm_asahi_priority {
	DRM_ASAHI_PRIORITY_LOW = 0,
	DRM_ASAHI_PRIORITY_MEDIUM = 1,
	DRM_ASAHI_PRIORITY_HIGH = 2, /* reserved */
	DRM_ASAHI_PRIORITY_REALTIME = 3, /* reserved */
};

struct drm_asahi_queue_create {
	uint32_t flags; /* MBZ */
	uint32_t vm_id;
	uint32_t priority;
	uint32_t queue_id; /* out */
	/* Base of the 4 GiB window all USC (shader) addresses of this queue are relative to. */
	uint64_t usc_exec_base;
};

struct drm_asahi_queue_destroy {
	uint32_t queue_id;
	uint32_t pad;
};

enum drm_asahi_sync_type {
	DRM_ASAHI_SYNC_SYNCOBJ = 0,
	DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ = 1,
};

struct drm_asahi_sync {
	uint32_t sync_type;
	uint32_t handle;
	uint64_t timeline_value; /* 0 for binary syncobjs */
};

/* A barrier index that waits for nothing on that subqueue. */
#define DRM_ASAHI_BARRIER_NONE 0xFFFFu

/* Header of each command in the flat command buffer. size excludes the header. Barriers are
 * per subqueue: 0 waits for all earlier work, N for the first N commands of that subqueue in
 * this submit, NONE for nothing. Attachment commands must pass NONE for both. */
struct drm_asahi_cmd_header {
	uint16_t cmd_type;
	uint16_t size;
	uint16_t vdm_barrier;
	uint16_t cdm_barrier;
};

struct drm_asahi_submit {
	uint64_t syncs; /* user pointer: in_sync_count waits, then out_sync_count signals */
	uint64_t cmdbuf; /* user pointer to the flat command buffer */
	uint32_t flags; /* MBZ */
	uint32_t queue_id;
	uint32_t in_sync_count;
	uint32_t out_sync_count;
	uint32_t cmdbuf_size;
	uint32_t pad;
};

/* A memory range shaders write, as a hint for the firmware. */
struct drm_asahi_attachment {
	uint64_t pointer;
	uint64_t size;
	uint32_t pad;
	uint32_t flags; /* MBZ */
};

enum drm_asahi_render_flags {
	DRM_ASAHI_RENDER_VERTEX_SCRATCH = (1u << 0),
	/* Run tile programs on tiles without geometry too (needed for clears). */
	DRM_ASAHI_RENDER_PROCESS_EMPTY_TILES = (1u << 1),
	DRM_ASAHI_RENDER_NO_VERTEX_CLUSTERING = (1u << 2),
	/* Integer (unorm) depth-bias formula; matches the hardware register bit. */
	DRM_ASAHI_RENDER_DBIAS_IS_INT = (1u << 18),
};

/* One ZLS (depth/stencil load-store) buffer. */
struct drm_asahi_zls_buffer {
	uint64_t base;
	uint64_t comp_base;
	uint32_t stride; /* layer stride when layered */
	uint32_t comp_stride;
};

/* A timestamp write: handle from GEM_BIND_OBJECT (0 = none) and byte offset in it. */
struct drm_asahi_timestamp {
	uint32_t handle;
	uint32_t offset;
};

struct drm_asahi_timestamps {
	struct drm_asahi_timestamp start;
	struct drm_asahi_timestamp end;
};

struct drm_asahi_helper_program {
	uint32_t binary; /* tagged USC address */
	uint32_t cfg;
	uint64_t data; /* sideband for the helper, uninterpreted */
};

struct drm_asahi_bg_eot {
	uint32_t usc; /* tagged USC address of the program's USC words */
	uint32_t rsrc_spec;
};

struct drm_asahi_cmd_render {
	uint32_t flags;
	uint32_t isp_zls_pixels;
	uint64_t vdm_ctrl_stream_base;
	struct drm_asahi_helper_program vertex_helper;
	struct drm_asahi_helper_program fragment_helper;
	uint64_t isp_scissor_base;
	uint64_t isp_dbias_base;
	uint64_t isp_oclqry_base;
	struct drm_asahi_zls_buffer depth;
	struct drm_asahi_zls_buffer stencil;
	uint64_t zls_ctrl;
	uint64_t ppp_multisamplectl;
	uint64_t sampler_heap;
	uint32_t ppp_ctrl;
	uint16_t width_px;
	uint16_t height_px;
	uint16_t layers;
	uint16_t sampler_count;
	uint8_t utile_width_px;
	uint8_t utile_height_px;
	uint8_t samples; /* 1, 2 or 4 */
	uint8_t sample_size_B;
	uint32_t isp_merge_upper_x; /* f32 bits: tan(60 deg) * width */
	uint32_t isp_merge_upper_y; /* f32 bits: tan(60 deg) * height */
	struct drm_asahi_bg_eot bg;
	struct drm_asahi_bg_eot eot;
	struct drm_asahi_bg_eot partial_bg;
	struct drm_asahi_bg_eot partial_eot;
	uint32_t isp_bgobjdepth;
	uint32_t isp_bgobjvals;
	struct drm_asahi_timestamps ts_vtx;
	struct drm_asahi_timestamps ts_frag;
};

struct drm_asahi_cmd_compute {
	uint32_t flags; /* MBZ */
	uint32_t sampler_count;
	uint64_t cdm_ctrl_stream_base;
	uint64_t cdm_ctrl_stream_end; /* end of the first contiguous segment */
	uint64_t sampler_heap;
	struct drm_asahi_helper_program helper;
	struct drm_asahi_timestamps ts;
};

struct drm_asahi_get_time {
	uint64_t flags; /* MBZ */
	uint64_t gpu_timestamp; /* out, nanoseconds */
};

/* ====================================== request codes =================================== */

#define AGX4_ASAHI_IOW(id, type) AGX4_DRM_IOW(DRM_COMMAND_BASE + (id), type)
#define AGX4_ASAHI_IOWR(id, type) AGX4_DRM_IOWR(DRM_COMMAND_BASE + (id), type)

enum agx4_drm_ioctl {
	DRM_IOCTL_VERSION = AGX4_DRM_IOWR(0x00, struct drm_version),
	DRM_IOCTL_GEM_CLOSE = AGX4_DRM_IOW(0x09, struct drm_gem_close),

	DRM_IOCTL_PRIME_HANDLE_TO_FD = AGX4_DRM_IOWR(0x2d, struct drm_prime_handle),
	DRM_IOCTL_PRIME_FD_TO_HANDLE = AGX4_DRM_IOWR(0x2e, struct drm_prime_handle),

	DRM_IOCTL_SYNCOBJ_CREATE = AGX4_DRM_IOWR(0xBF, struct drm_syncobj_create),
	DRM_IOCTL_SYNCOBJ_DESTROY = AGX4_DRM_IOWR(0xC0, struct drm_syncobj_destroy),
	DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD = AGX4_DRM_IOWR(0xC1, struct drm_syncobj_handle),
	DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE = AGX4_DRM_IOWR(0xC2, struct drm_syncobj_handle),
	DRM_IOCTL_SYNCOBJ_WAIT = AGX4_DRM_IOWR(0xC3, struct drm_syncobj_wait),
	DRM_IOCTL_SYNCOBJ_RESET = AGX4_DRM_IOWR(0xC4, struct drm_syncobj_array),
	DRM_IOCTL_SYNCOBJ_SIGNAL = AGX4_DRM_IOWR(0xC5, struct drm_syncobj_array),
	DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT = AGX4_DRM_IOWR(0xCA, struct drm_syncobj_timeline_wait),
	DRM_IOCTL_SYNCOBJ_QUERY = AGX4_DRM_IOWR(0xCB, struct drm_syncobj_timeline_array),
	DRM_IOCTL_SYNCOBJ_TRANSFER = AGX4_DRM_IOWR(0xCC, struct drm_syncobj_transfer),
	DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL = AGX4_DRM_IOWR(0xCD, struct drm_syncobj_timeline_array),

	DRM_IOCTL_ASAHI_GET_PARAMS = AGX4_ASAHI_IOW(DRM_ASAHI_GET_PARAMS, struct drm_asahi_get_params),
	DRM_IOCTL_ASAHI_GET_TIME = AGX4_ASAHI_IOWR(DRM_ASAHI_GET_TIME, struct drm_asahi_get_time),
	DRM_IOCTL_ASAHI_VM_CREATE = AGX4_ASAHI_IOWR(DRM_ASAHI_VM_CREATE, struct drm_asahi_vm_create),
	DRM_IOCTL_ASAHI_VM_DESTROY = AGX4_ASAHI_IOW(DRM_ASAHI_VM_DESTROY, struct drm_asahi_vm_destroy),
	DRM_IOCTL_ASAHI_VM_BIND = AGX4_ASAHI_IOW(DRM_ASAHI_VM_BIND, struct drm_asahi_vm_bind),
	DRM_IOCTL_ASAHI_GEM_CREATE = AGX4_ASAHI_IOWR(DRM_ASAHI_GEM_CREATE, struct drm_asahi_gem_create),
	DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET =
		AGX4_ASAHI_IOWR(DRM_ASAHI_GEM_MMAP_OFFSET, struct drm_asahi_gem_mmap_offset),
	DRM_IOCTL_ASAHI_GEM_BIND_OBJECT =
		AGX4_ASAHI_IOWR(DRM_ASAHI_GEM_BIND_OBJECT, struct drm_asahi_gem_bind_object),
	DRM_IOCTL_ASAHI_QUEUE_CREATE =
		AGX4_ASAHI_IOWR(DRM_ASAHI_QUEUE_CREATE, struct drm_asahi_queue_create),
	DRM_IOCTL_ASAHI_QUEUE_DESTROY =
		AGX4_ASAHI_IOW(DRM_ASAHI_QUEUE_DESTROY, struct drm_asahi_queue_destroy),
	DRM_IOCTL_ASAHI_SUBMIT = AGX4_ASAHI_IOW(DRM_ASAHI_SUBMIT, struct drm_asahi_submit),
};

#endif /* AGX4_ASAHI_UAPI_H */
