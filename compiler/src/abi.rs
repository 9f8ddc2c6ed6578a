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

/// Uniform halves a compute launch may load from descriptor memory after the root table's
/// (`UniformPreload`): the first and the end.
pub const PRELOAD_UNIFORM_START: u32 = ROOT_TABLE_SIZE / 2;
pub const PRELOAD_UNIFORM_END: u32 = 256;

/// Uniform halves where a compute shader's preamble leaves its results
/// (`passes::preamble`), for the main shader to read: the upper half of the uniform file,
/// which nothing else of a compute launch uses. The preamble writes them with
/// `uniform_store` before the launch's threads start.
pub const PREAMBLE_UNIFORM_START: u32 = 256;
pub const PREAMBLE_UNIFORM_END: u32 = 512;

/// Most halves of 64-bit results (buffer addresses) a compute preamble leaves right below
/// `PREAMBLE_UNIFORM_START`, where a memory instruction can name them as its base; the
/// launch's preloads then end where they begin.
pub const PREAMBLE_WIDE_HALVES: u32 = 32;

/// Where a vertex or fragment shader's preamble leaves its results: after the longest root
/// table a graphics launch preloads (a geometry draw's), up to the end of the uniform file.
pub const GRAPHICS_PREAMBLE_UNIFORM_START: u32 = GEOMETRY_ROOT_TABLE_SIZE / 2;

/// Bytes of one buffer descriptor in set memory.
pub const BUFFER_DESCRIPTOR_SIZE: u32 = 16;

/// Image and sampler descriptors (docs/render-abi.md section 7). Set memory holds the G13
/// texture and PBE descriptors themselves; a shader reaches one bindlessly, with the set's
/// address (root table, so uniform halves `set_address_offset(set) / 2`) as the base and the
/// descriptor's byte offset in the set as the index. Samplers live in the device's sampler
/// heap, which every render and compute command names (`sampler_heap`, `sampler_count`);
/// set memory holds a sampler *entry*: the u16 heap index, the sampler's LOD bias as an f16
/// (G13 samplers have no bias field, so the shader adds it), then 4 bytes of zero.
pub const TEXTURE_DESCRIPTOR_SIZE: u32 = hw::g13::control::descriptors::Texture::SIZE as u32;

const _: () = assert!(
    hw::g13::control::descriptors::Pbe::SIZE == hw::g13::control::descriptors::Texture::SIZE
);

/// Bytes of a sampler entry in set memory.
pub const SAMPLER_ENTRY_SIZE: u32 = 8;

/// Offset of the f16 LOD bias in a sampler entry (the u16 heap index is at 0).
pub const SAMPLER_ENTRY_LOD_BIAS_OFFSET: u32 = 2;

/// Offset of the sampler entry in a combined image sampler descriptor.
pub const COMBINED_SAMPLER_OFFSET: u32 = TEXTURE_DESCRIPTOR_SIZE;

/// Offset of the PBE descriptor (for writes and atomics) in a storage image or storage texel
/// buffer descriptor; the texture descriptor (reads, size queries) is at 0.
pub const STORAGE_PBE_OFFSET: u32 = TEXTURE_DESCRIPTOR_SIZE;

/// Bytes one descriptor of `kind` takes in set memory (the stride of an array binding). All
/// are multiples of 8, so every descriptor is 8-byte aligned in a set.
pub const fn descriptor_size(kind: crate::DescriptorKind) -> u32 {
    use crate::DescriptorKind as K;
    match kind {
        K::StorageBuffer | K::UniformBuffer => BUFFER_DESCRIPTOR_SIZE,
        K::Sampler => SAMPLER_ENTRY_SIZE,
        K::SampledImage | K::UniformTexelBuffer => 32,
        K::CombinedImageSampler => COMBINED_SAMPLER_OFFSET + SAMPLER_ENTRY_SIZE,
        K::StorageImage | K::StorageTexelBuffer => STORAGE_PBE_OFFSET + TEXTURE_DESCRIPTOR_SIZE,
    }
}

/// Required alignment of a descriptor set's GPU address.
pub const SET_ALIGNMENT: u32 = 16;

/// Graphics root table (docs/render-abi.md section 5): the compute table, then the draw words.
/// Root table offset of the i32 base vertex of the draw (gl_BaseVertex: firstVertex, or
/// vertexOffset for indexed draws). It sits right before the first instance, as the two do in
/// the indirect arguments of either draw kind, so one copy fills both for indirect draws.
pub const BASE_VERTEX_OFFSET: u32 = ROOT_TABLE_SIZE;

/// Root table offset of the u32 first instance of the draw (for indirect draws, copied there
/// from the arguments by the GPU before the render command runs).
pub const FIRST_INSTANCE_OFFSET: u32 = ROOT_TABLE_SIZE + 4;

/// Root table offset of the four f32 blend constants.
pub const BLEND_CONSTANTS_OFFSET: u32 = ROOT_TABLE_SIZE + 8;

/// Root table offset of the u32 view index (`gl_ViewIndex`) of the render command the draw
/// runs in: each view of a multiview subpass is its own render command with its own copy of
/// the draws (0 without multiview).
pub const VIEW_INDEX_OFFSET: u32 = ROOT_TABLE_SIZE + 24;

/// Root table offset of the u32 draw index (gl_DrawID): the index of the draw within a
/// multi-draw indirect command, 0 for every other draw.
pub const DRAW_INDEX_OFFSET: u32 = ROOT_TABLE_SIZE + 28;

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

/// Root table offset of the u64 GPU address of the fragment shader invocations counter of
/// the active pipeline statistics query, or 0 when no query counts them. Every fragment
/// shader of a pipeline with a fragment stage adds 1 there per non-helper invocation
/// (`passes::count_fragment_invocations`).
pub const FRAGMENT_INVOCATIONS_COUNTER_OFFSET: u32 =
    VERTEX_BUFFERS_OFFSET + MAX_VERTEX_BUFFERS * VERTEX_BUFFER_ENTRY_SIZE;

/// Bytes of the graphics root table (a multiple of 16, as root tables are aligned).
pub const GRAPHICS_ROOT_TABLE_SIZE: u32 = FRAGMENT_INVOCATIONS_COUNTER_OFFSET + 16;

/// Transform feedback capture draws (docs/render-abi.md section 5, `passes::lower_xfb`): the
/// capture variant of a vertex shader preloads a longer root table, the graphics one followed
/// by [`XFB_BUFFER_PARAMS_SIZE`] bytes per transform feedback buffer, then the draw's words.
pub const XFB_PARAMS_OFFSET: u32 = GRAPHICS_ROOT_TABLE_SIZE;

/// Bytes of one buffer's words: u64 address of the bound offset, u64 address of the u32
/// byte offset to start writing at, u64 address to write the u32 end offset to, u32 bytes
/// bound, u32 zero.
pub const XFB_BUFFER_PARAMS_SIZE: u32 = 32;

/// Offsets inside a buffer's words.
pub const XFB_BUFFER_ADDRESS: u32 = 0;
pub const XFB_BUFFER_START_PTR: u32 = 8;
pub const XFB_BUFFER_END_PTR: u32 = 16;
pub const XFB_BUFFER_SIZE: u32 = 24;

/// Root table offset of buffer `b`'s words.
pub const fn xfb_buffer_offset(b: u32) -> u32 {
    XFB_PARAMS_OFFSET + b * XFB_BUFFER_PARAMS_SIZE
}

/// The draw's words (u32 unless said): vertices per primitive, primitives per instance,
/// instances, the first vertex (or vertex offset of an indexed draw), the index size in
/// bytes (0: not indexed), the vertex step between primitives, the topology's
/// [`XFB_ORDER_*`](XFB_ORDER_SWAP_ODD) bits, the first index, then the u64 address of the
/// bound index buffer and
/// the u64 addresses of the transform feedback query's u32 counters of primitives written
/// and primitives needed, which the draw adds to (never 0: a dummy without a query).
pub const XFB_DRAW_OFFSET: u32 = XFB_PARAMS_OFFSET + 4 * XFB_BUFFER_PARAMS_SIZE;
pub const XFB_VERTS_PER_PRIM: u32 = XFB_DRAW_OFFSET;
pub const XFB_PRIMS_PER_INSTANCE: u32 = XFB_DRAW_OFFSET + 4;
pub const XFB_INSTANCES: u32 = XFB_DRAW_OFFSET + 8;
pub const XFB_BASE_VERTEX: u32 = XFB_DRAW_OFFSET + 12;
pub const XFB_INDEX_SIZE: u32 = XFB_DRAW_OFFSET + 16;
pub const XFB_PRIM_STEP: u32 = XFB_DRAW_OFFSET + 20;
pub const XFB_ORDER: u32 = XFB_DRAW_OFFSET + 24;
pub const XFB_FIRST_INDEX: u32 = XFB_DRAW_OFFSET + 28;
pub const XFB_INDEX_ADDRESS: u32 = XFB_DRAW_OFFSET + 32;
pub const XFB_QUERY_ADDRESS: u32 = XFB_DRAW_OFFSET + 40;
pub const XFB_QUERY_NEEDED_ADDRESS: u32 = XFB_DRAW_OFFSET + 48;
/// Indexed draws with primitive restart: 1, and the draw's index count (the capture walks
/// the indices to find each primitive); 0 otherwise.
pub const XFB_RESTART: u32 = XFB_DRAW_OFFSET + 56;
pub const XFB_INDEX_COUNT: u32 = XFB_DRAW_OFFSET + 60;

/// Order bits: odd primitives swap their second and third vertices (triangle strips, with
/// or without adjacency).
pub const XFB_ORDER_SWAP_ODD: u32 = 1;
/// Corners start one vertex later (fans, line adjacency topologies).
pub const XFB_ORDER_SKIP_ONE: u32 = 2;
/// Corners are every other vertex (triangle adjacency topologies).
pub const XFB_ORDER_EVERY_OTHER: u32 = 4;
/// The third corner is the draw's first vertex (triangle fans).
pub const XFB_ORDER_FAN: u32 = 8;
/// Each primitive has vertices of its own (point, line and triangle lists): under primitive
/// restart a list starts counting again after each completed primitive, so a restart drops
/// an incomplete one.
pub const XFB_ORDER_LIST: u32 = 16;
/// Geometry draws only: triangle strips with adjacency, whose corners follow the spec's
/// table of first, last, even and odd primitives (`passes::geometry_prologue`).
pub const GEOMETRY_ORDER_STRIP_ADJACENCY: u32 = 32;
/// Geometry draws only: the pipeline's last vertex provokes, which changes the corner order
/// of strips and fans (`passes::geometry_prologue`).
pub const GEOMETRY_ORDER_LAST_VERTEX: u32 = 64;

/// Bytes of the capture variant's root table.
pub const XFB_ROOT_TABLE_SIZE: u32 = XFB_DRAW_OFFSET + 64;

/// Geometry draws (docs/geometry.md, `passes::lower_geometry_outputs`): the merged VS+GS
/// program's root table is the capture variant's (its prologue finds primitives with the
/// same draw words) followed by the u64 address of the output vertex records and the u64
/// address of the index list.
pub const GEOMETRY_RECORD_ADDRESS: u32 = XFB_ROOT_TABLE_SIZE;
pub const GEOMETRY_INDEX_ADDRESS: u32 = XFB_ROOT_TABLE_SIZE + 8;
/// The rasterization draw of a geometry shader that writes gl_Layer: the framebuffer layer
/// it renders (u32). The pass-through vertex shader moves vertices of other layers outside
/// the clip volume.
pub const GEOMETRY_LAYER: u32 = XFB_ROOT_TABLE_SIZE + 16;
/// The u64 address of the active primitives generated query's counter (or of a dummy
/// word): each geometry draw invocation adds the primitives it emitted.
pub const GEOMETRY_PRIMGEN_ADDRESS: u32 = XFB_ROOT_TABLE_SIZE + 24;
/// Pipeline statistics (icd cmd_buffer/statistics.rs): the u64 addresses of the active
/// query's counters the geometry draw adds to, or 0 for statistics no query counts. Each
/// invocation that has an input primitive adds 1 to the geometry shader invocations counter
/// and the primitives it emitted to the geometry shader primitives counter and to both
/// clipping counters: with a geometry shader, the clipper sees what it emits.
pub const GEOMETRY_STAT_INVOCATIONS_ADDRESS: u32 = XFB_ROOT_TABLE_SIZE + 32;
pub const GEOMETRY_STAT_PRIMITIVES_ADDRESS: u32 = XFB_ROOT_TABLE_SIZE + 40;
pub const GEOMETRY_STAT_CLIPPING_INVOCATIONS_ADDRESS: u32 = XFB_ROOT_TABLE_SIZE + 48;
pub const GEOMETRY_STAT_CLIPPING_PRIMITIVES_ADDRESS: u32 = XFB_ROOT_TABLE_SIZE + 56;

/// Bytes of the geometry draw's root table.
pub const GEOMETRY_ROOT_TABLE_SIZE: u32 = XFB_ROOT_TABLE_SIZE + 64;

/// The index the geometry draw writes to break a strip and to pad an invocation's unused
/// index slots (the primitive restart index of 32-bit indices).
pub const GEOMETRY_RESTART_INDEX: u32 = u32::MAX;
