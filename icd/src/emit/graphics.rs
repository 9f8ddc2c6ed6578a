//! The generation-neutral description of a draw, and the interface a generation's draw
//! emitter implements. Recording code (`cmd_buffer/draw.rs`) resolves Vulkan's state into
//! these values; the emitter turns them into its own USC, VDM and PPP words.

use super::StateTable;
use crate::cmd_buffer::dynamic_state::Effective;
use crate::pipeline_blend::FragmentProgram;
use crate::pipeline_graphics::{DepthBiasState, GraphicsPipeline};
use crate::topology::{IndexSize, Topology};
use ash::vk;
use hw::g13::tilebuffer::TilebufferLayout;

/// What a draw's vertex USC words say besides the root table's address.
#[derive(Clone, Copy, Debug)]
pub struct VertexLaunch {
    /// The program's code, as an offset from the queue's USC base.
    pub code: u32,
    /// Root table halves the launch preloads.
    pub uniform_halves: u32,
    pub gpr_halves: u32,
    /// Stack bytes per thread.
    pub stack_bytes: u32,
    pub preamble: Option<compiler::PreambleCode>,
}

/// What a draw's fragment USC words say besides the root table's address and the per-draw
/// textures.
#[derive(Clone, Copy, Debug)]
pub struct FragmentLaunch {
    pub prog: FragmentProgram,
    /// The depth and stencil tests may run before the shader.
    pub early_z: bool,
    pub loads_varyings: bool,
}

/// The textures a draw's fragment program reads besides its descriptor sets.
#[derive(Clone, Copy, Debug, Default)]
pub struct DrawTextures {
    /// Input attachments, at `compiler::abi::INPUT_ATTACHMENT_TEXTURE_BASE`.
    pub input_attachments: Option<StateTable>,
    /// Colour targets the tilebuffer could not hold, at
    /// `compiler::abi::SPILLED_TARGET_TEXTURE_BASE`.
    pub spilled_targets: Option<StateTable>,
}

/// Where a draw's index buffer is and how it reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexBuffer {
    /// Address of the first index the draw reads.
    pub va: u64,
    /// Bytes readable from `va`.
    pub bytes: u64,
    pub size: IndexSize,
}

/// A draw's vertices: what it assembles, from which indices, how many times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexList {
    pub primitive: Topology,
    pub restart: bool,
    /// None: the vertices are numbered from `start`.
    pub index: Option<IndexBuffer>,
    /// Counts of a direct draw; none in an indirect one.
    pub count: Option<u32>,
    pub instances: Option<u32>,
    /// First vertex, or the value added to each index.
    pub start: Option<u32>,
    /// The GPU address of the draw's VkDraw(Indexed)IndirectCommand, read when it runs.
    pub indirect: Option<u64>,
}

/// Whether and how a draw's fragments count into an occlusion query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visibility {
    None,
    /// Count samples that pass into counter `index` of the render's query array.
    Counting(u32),
    /// Set counter `index` non-zero when any sample passes.
    Boolean(u32),
}

/// The part of a draw's state that depends on the render pass instance it runs in, beyond
/// what the subpass says (see `cmd_buffer/draw.rs`, `LateDraw`).
#[derive(Clone, Copy, Debug)]
pub struct LateState {
    /// The draw's scissor; none: the whole framebuffer.
    pub scissor: Option<vk::Rect2D>,
    /// The depth range fragments are clamped to.
    pub depth_range: (f32, f32),
    pub depth_bias: Option<DepthBiasState>,
    pub primitive: Topology,
    pub stencil_test: bool,
    pub rasterizer_discard: bool,
    /// Fragments may be killed or write memory before their depth is known to pass.
    pub punch_through: bool,
}

/// A draw's late state with the render pass instance's part worked out.
#[derive(Clone, Copy, Debug)]
pub struct Late {
    pub state: LateState,
    /// The scissor within the render area and framebuffer: x0, x1, y0, y1 (exclusive ends).
    pub rect: [u32; 4],
    pub visibility: Visibility,
}

/// Everything a draw's state words say.
pub struct DrawState<'a> {
    pub fx: &'a Effective,
    pub pipeline: &'a GraphicsPipeline,
    pub viewport: vk::Viewport,
    /// The vertex program: its launch, and the offset of its USC words.
    pub vertex: (&'a compiler::StageBinary, u32),
    /// The fragment program, and the offset of its USC words.
    pub fragment: Option<(FragmentProgram, u32)>,
    pub list: &'a IndexList,
    /// None in a secondary command buffer continuing a render pass instance: the executing
    /// primary supplies it ([`Graphics::late_block`]).
    pub late: Option<Late>,
}

/// A draw that repeats a stream's last one but for its root table: new USC words.
#[derive(Clone, Copy, Debug)]
pub struct Rebind {
    pub vertex_words: u32,
    pub fragment_words: Option<u32>,
    /// The index size of an indexed draw.
    pub index: Option<IndexSize>,
}

/// The draw state a generation's words left in force in a stream, in the generation's own
/// terms: the next draw emits only the words that change it.
pub type StreamState = Box<dyn std::any::Any + Send + Sync>;

/// The parts of a render command's stream that draws add to.
pub struct StreamWords<'a> {
    /// The vertex data master's control stream.
    pub vdm: &'a mut Vec<u8>,
    /// Packed scissor and depth-bias entries the render command points at.
    pub scissors: &'a mut Vec<u8>,
    pub depth_biases: &'a mut Vec<u8>,
    /// None when unknown: the next draw emits every word.
    pub state: &'a mut Option<StreamState>,
}

/// Uploads bytes the stream points at (identical bytes may share memory) and returns their
/// GPU address.
pub type Upload<'a> = dyn FnMut(&mut Vec<u8>) -> Result<u64, vk::Result> + 'a;

/// A generation's draws.
pub trait Graphics: Sync {
    /// The coefficient bindings that interpolate a pipeline's varyings for its fragment
    /// program (docs/render-abi.md section 4), flat varyings taken from vertex `flat` (0, 1
    /// or 2) of each primitive (`pipeline_graphics::flat_vertex`).
    fn coefficient_bindings(&self, b: &compiler::GraphicsPipelineBinary, flat: usize) -> Vec<u8>;
    /// The USC words that bind a draw's vertex program to its root table at `root_va`.
    fn vertex_words(&self, v: &VertexLaunch, root_va: u64) -> Vec<u8>;
    /// The USC words that bind a draw's fragment program, in a render of tilebuffer `tib`.
    fn fragment_words(
        &self,
        f: &FragmentLaunch,
        tib: &TilebufferLayout,
        textures: &DrawTextures,
        root_va: u64,
    ) -> Vec<u8>;
    /// Appends the words that set draw `d`'s state in `s`.
    fn draw_state(
        &self,
        d: &DrawState,
        s: &mut StreamWords,
        upload: &mut Upload,
    ) -> Result<(), vk::Result>;
    /// Appends the words that point `s`'s state at a draw's new USC words; `cached` holds an
    /// upload an earlier call made for the same words. Returns false, appending nothing,
    /// when the state does not allow it: the draw is then recorded in full.
    fn rebind(
        &self,
        r: &Rebind,
        s: &mut StreamWords,
        cached: &mut Option<(u64, u32)>,
        upload: &mut Upload,
    ) -> Result<bool, vk::Result>;
    /// Appends a draw's index list to `vdm`.
    fn index_list(&self, l: &IndexList, vdm: &mut Vec<u8>);
    /// The block a primary puts before a secondary's draw to give it its late state.
    fn late_block(
        &self,
        late: &Late,
        s: &mut StreamWords,
        upload: &mut Upload,
    ) -> Result<Vec<u8>, vk::Result>;
}
