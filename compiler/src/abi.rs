//! The software contract between compiled compute shaders and the ICD that launches them.
//!
//! The hardware preloads uniform registers from memory as the USC words of a launch say
//! (`USC Uniform`). agx4 preloads one block, the *root table*, that the ICD writes for every
//! dispatch. Its layout is fixed here and nowhere else; offsets are in bytes of the root table
//! and in 16-bit halves of the uniform file (they are the same thing: uniform half `h` holds
//! root bytes `2h..2h+2`).
//!
//! Descriptor sets are GPU memory that the root table points at. A buffer descriptor is 16
//! bytes: the buffer's GPU address (u64) and the size of the bound range in bytes (u32), then
//! 4 bytes of zero. Dynamic buffers are resolved by the ICD when it binds the set (it writes a
//! copy of the set with the dynamic offsets applied), so shaders see only plain descriptors.

/// Descriptor sets a pipeline layout may use.
pub const MAX_SETS: u32 = 8;

/// Root table offset of set `i`'s GPU address (u64).
pub const fn set_address_offset(i: u32) -> u32 {
    i * 8
}

/// Root table offset of the number of workgroups, three u32 (x, y, z).
pub const NUM_WORKGROUPS_OFFSET: u32 = 64;

/// Root table offset of the base workgroup of `vkCmdDispatchBase`, three u32.
pub const BASE_WORKGROUP_OFFSET: u32 = 76;

/// Root table offset of the root table's own GPU address (u64). Shaders that index push
/// constants dynamically read them from memory through it, since uniform registers can only
/// be named at constant offsets.
pub const ROOT_ADDRESS_OFFSET: u32 = 88;

/// Root table offset of the push constants.
pub const PUSH_CONSTANTS_OFFSET: u32 = 96;

/// Bytes of push constants a pipeline layout may declare (Vulkan's minimum maximum).
pub const MAX_PUSH_CONSTANTS_SIZE: u32 = 128;

/// Bytes of the root table.
pub const ROOT_TABLE_SIZE: u32 = PUSH_CONSTANTS_OFFSET + MAX_PUSH_CONSTANTS_SIZE;

/// Bytes of one buffer descriptor in set memory.
pub const BUFFER_DESCRIPTOR_SIZE: u32 = 16;

/// Required alignment of a descriptor set's GPU address.
pub const SET_ALIGNMENT: u32 = 16;

/// Graphics root table (docs/render-abi.md section 5): the compute table, then the draw words.
/// Root table offset of the u32 first instance of the draw (for indirect draws, copied there
/// from the arguments by the GPU before the render command runs).
pub const FIRST_INSTANCE_OFFSET: u32 = ROOT_TABLE_SIZE + 4;

/// Root table offset of the four f32 blend constants.
pub const BLEND_CONSTANTS_OFFSET: u32 = ROOT_TABLE_SIZE + 8;

/// Root table offset of the u32 view index (`gl_ViewIndex`) of the render command the draw
/// runs in: each view of a multiview subpass is its own render command with its own copy of
/// the draws (0 without multiview).
pub const VIEW_INDEX_OFFSET: u32 = ROOT_TABLE_SIZE + 24;

/// Root table offset of the vertex buffer table: [`MAX_VERTEX_BUFFERS`] entries of
/// [`VERTEX_BUFFER_ENTRY_SIZE`] bytes (u64 address of the bound offset, u32 bytes readable
/// from there, u32 stride).
pub const VERTEX_BUFFERS_OFFSET: u32 = 256;

/// Vertex buffer bindings a pipeline may use.
pub const MAX_VERTEX_BUFFERS: u32 = 16;

/// Bytes of one vertex buffer table entry.
pub const VERTEX_BUFFER_ENTRY_SIZE: u32 = 16;

/// Fragment shaders (docs/render-abi.md section 4): input attachment `n` (its
/// `InputAttachmentIndex`) is read through texture state register
/// `INPUT_ATTACHMENT_TEXTURE_BASE + n`, which the ICD fills from the subpass's
/// `pInputAttachments[n]`.
pub const INPUT_ATTACHMENT_TEXTURE_BASE: u32 = 0;

/// Input attachment indices a fragment shader may read.
pub const MAX_INPUT_ATTACHMENTS: u32 = 8;

/// The stencil aspect of depth/stencil input attachment `n` is read through texture state
/// register `INPUT_ATTACHMENT_STENCIL_TEXTURE_BASE + n` (its depth aspect, like a colour
/// attachment, through `INPUT_ATTACHMENT_TEXTURE_BASE + n`): a shader reads a combined
/// depth/stencil input attachment as a float (depth) and as an integer (stencil).
pub const INPUT_ATTACHMENT_STENCIL_TEXTURE_BASE: u32 =
    INPUT_ATTACHMENT_TEXTURE_BASE + MAX_INPUT_ATTACHMENTS;

/// Fragment shaders: a colour target that does not fit the tilebuffer (spilled) at output
/// location `l` is read through the texture descriptor in texture state register
/// `SPILLED_TARGET_TEXTURE_BASE + 2 * l` and written through the PBE descriptor in the next
/// one (docs/render-abi.md section 4).
pub const SPILLED_TARGET_TEXTURE_BASE: u32 =
    INPUT_ATTACHMENT_STENCIL_TEXTURE_BASE + MAX_INPUT_ATTACHMENTS;

/// Bytes of the graphics root table.
pub const GRAPHICS_ROOT_TABLE_SIZE: u32 =
    VERTEX_BUFFERS_OFFSET + MAX_VERTEX_BUFFERS * VERTEX_BUFFER_ENTRY_SIZE;
