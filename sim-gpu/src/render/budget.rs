//! The tiler's view of the TVB heap, and what a render reports.
//!
//! The heap belongs to the firmware (`kmd-iface/src/sim/tvb.rs`); the GPU model only asks
//! for bytes as it bins primitives and says when a partial render has emptied the heap.

/// Why a reservation failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TvbFull {
    /// The heap holds binned primitives and has no room: run a partial render, call
    /// [`TvbBudget::flush_partial`], and reserve again.
    #[error("TVB heap full")]
    Full,
    /// Not even an empty heap of the maximum size holds the request.
    #[error("{needed} TVB bytes needed, the heap holds at most {max}")]
    TooLarge { needed: u64, max: u64 },
}

/// The TVB heap as the tiler uses it.
pub trait TvbBudget {
    /// Take `bytes` for one binned primitive; nothing is taken on error.
    fn reserve(&mut self, bytes: u64) -> Result<(), TvbFull>;
    /// A partial render consumed everything binned so far: the heap is empty again.
    fn flush_partial(&mut self);
}

/// A heap that never fills (tests and tools that do not model the TVB).
#[derive(Debug, Clone, Copy, Default)]
pub struct UnlimitedTvb;

impl TvbBudget for UnlimitedTvb {
    fn reserve(&mut self, _bytes: u64) -> Result<(), TvbFull> {
        Ok(())
    }

    fn flush_partial(&mut self) {}
}

/// What a render command did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RenderStats {
    /// Draws (Index List blocks) the VDM issued.
    pub draws: u64,
    /// Primitives assembled, before clipping and culling.
    pub primitives: u64,
    /// Fragment shader lanes run (one per shaded pixel and primitive).
    pub fragments: u64,
    /// Partial renders the TVB heap forced.
    pub partial_renders: u64,
    /// TVB bytes reserved over the whole render.
    pub tvb_bytes: u64,
}
