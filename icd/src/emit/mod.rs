//! The hardware words a command buffer records, behind an interface per kind of work. The
//! recording code (`cmd_buffer/`) works out Vulkan-level and binary-level values; a
//! generation's encoding of them lives in its own folder here (`g13/`), as Mesa panvk keeps
//! its per-architecture emission files.
//!
//! Three kinds of work are behind it:
//! - compute: the words that bind a compute shader, the launch, the barrier between
//!   launches, and the blocks that link and end a control stream;
//! - draws (`graphics.rs`): the words that bind a draw's programs, its fixed-function state
//!   and its index list;
//! - render commands (`render.rs`): the command itself, its control stream's ends, and the
//!   words that launch its tile programs.
//!
//! The attachments' texture and PBE descriptors are still G13's, packed by name
//! (docs/generations.md).

mod g13;
mod graphics;
mod render;

pub use graphics::*;
pub use render::*;

use hw::Generation;

/// A range of a compute shader's uniform registers loaded from memory at launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UniformRange {
    /// First 16-bit uniform register.
    pub first_half: u32,
    pub halves: u32,
    /// GPU address of the first half's value.
    pub va: u64,
}

/// State registers (textures or samplers) loaded from a table in memory at launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateTable {
    pub count: u32,
    pub va: u64,
}

/// What a compute shader is bound to for a launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ComputeBinding<'a> {
    /// Threadgroup memory per workgroup, in bytes.
    pub shared_bytes: u32,
    /// Uniform registers the launch reserves, at least the end of every range.
    pub uniform_halves: u32,
    pub uniforms: &'a [UniformRange],
    pub textures: Option<StateTable>,
    pub samplers: Option<StateTable>,
    /// The shader's code, as an offset from the queue's USC base.
    pub code: u32,
    /// General registers per thread, in 16-bit halves.
    pub gpr_halves: u32,
    /// Stack bytes per thread (at most [`Emitter::max_stack_bytes`]).
    pub stack_bytes: u32,
    /// The uniform preamble run once per launch: its code offset and registers.
    pub preamble: Option<(u32, u32)>,
}

/// Where a launch's grid comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grid {
    /// The grid size in threads.
    Direct([u32; 3]),
    /// The GPU address of three u32 grid sizes in threads, read when the launch runs.
    Indirect(u64),
}

/// A compute launch: the binding words' USC offset (from [`Compute::binding_words`], uploaded
/// to the shader window) and the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ComputeLaunch<'a> {
    pub binding: &'a ComputeBinding<'a>,
    /// Offset of the binding words from the queue's USC base.
    pub words: u32,
    pub grid: Grid,
    pub local_size: [u32; 3],
}

/// A generation's compute control stream.
pub trait Compute: Sync {
    /// The words the launch names to bind its shader, uploaded where the USC reads them.
    fn binding_words(&self, b: &ComputeBinding) -> Vec<u8>;
    /// Appends the launch to `out`.
    fn launch(&self, l: &ComputeLaunch, out: &mut Vec<u8>);
    /// Appends a barrier that makes a launch wait for the memory writes of those before it.
    fn barrier(&self, out: &mut Vec<u8>);
    /// A block that continues the stream at `target`.
    fn link(&self, target: u64) -> Vec<u8>;
    /// The block that ends the stream.
    fn terminate(&self) -> Vec<u8>;
    /// Bytes of [`Compute::link`] and of [`Compute::terminate`]: a chunk of a stream always
    /// keeps room for both.
    fn link_bytes(&self) -> u64;
    fn terminate_bytes(&self) -> u64;
}

/// What a generation records.
pub struct Emitter {
    pub compute: &'static dyn Compute,
    pub graphics: &'static dyn Graphics,
    pub render: &'static dyn Render,
    /// The most stack a launch can give each thread, in bytes.
    pub max_stack_bytes: u32,
}

/// The emitter of `generation`, if agx4 knows its control streams: G13's serves G14 too,
/// whose words agx4 takes to be G13's (as for its machine code). G16 has none yet.
pub fn for_generation(generation: Generation) -> Option<&'static Emitter> {
    match generation {
        Generation::G13 | Generation::G14 => Some(&g13::EMITTER),
        Generation::G16 => None,
    }
}
