//! The generation-neutral description of a render command, and the interface a generation's
//! render emitter implements. `cmd_buffer/render.rs` works out the attachments' operations,
//! the tile programs and the uploads; the emitter turns them into the render command and the
//! words around its control stream and tile programs.

use super::StateTable;
use crate::format::DepthFormat;
use ash::vk;
use hw::g13::tilebuffer::TilebufferLayout;
use kmd_iface::uapi::drm_asahi_cmd_render;

/// A tile program's launch: its code and registers, and what it reads.
#[derive(Clone, Copy, Debug)]
pub struct TileLaunch<'a> {
    pub tilebuffer: &'a TilebufferLayout,
    /// The program's code, as an offset from the queue's USC base.
    pub code: u32,
    /// Uniform halves the program reads, preloaded from `uniforms`.
    pub uniform_halves: u32,
    pub gpr_halves: u32,
    pub uniforms: Option<u64>,
    pub textures: Option<StateTable>,
}

/// A depth or stencil plane of a render's attachment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ZsPlane {
    /// Address of the layer and level rendered.
    pub base: u64,
    /// Read into the tiles before the render.
    pub load: bool,
    /// Written back after it.
    pub store: bool,
}

/// A render's depth plane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DepthPlane {
    pub plane: ZsPlane,
    pub format: DepthFormat,
    /// The depth tiles start with when the plane is not loaded.
    pub clear: f32,
}

/// A render's stencil plane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StencilPlane {
    pub plane: ZsPlane,
    /// The value tiles start with when the plane is not loaded.
    pub clear: u8,
}

/// Everything a render command says.
#[derive(Clone, Copy, Debug)]
pub struct RenderDesc<'a> {
    /// The render's size in pixels.
    pub size: vk::Extent2D,
    pub tilebuffer: &'a TilebufferLayout,
    /// The control stream ([`Render::stream`], uploaded).
    pub stream: u64,
    /// The scissor and depth-bias arrays the draws index (0: none).
    pub scissors: u64,
    pub depth_biases: u64,
    /// The occlusion query counters the draws count into (0: none).
    pub occlusion: u64,
    /// USC offsets of the tile programs' words: the background and end-of-tile programs,
    /// and the pair a partial render runs.
    pub background: u32,
    pub end_of_tile: u32,
    pub partial_background: u32,
    pub partial_end_of_tile: u32,
    pub depth: Option<DepthPlane>,
    pub stencil: Option<StencilPlane>,
}

/// A generation's render commands.
pub trait Render: Sync {
    /// The control stream of a render command whose draws recorded `draws`.
    fn stream(&self, draws: &[u8]) -> Vec<u8>;
    /// The USC words that launch a tile program.
    fn tile_words(&self, t: &TileLaunch) -> Vec<u8>;
    fn render_command(&self, r: &RenderDesc) -> drm_asahi_cmd_render;
}
