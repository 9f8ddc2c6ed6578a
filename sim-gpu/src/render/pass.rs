//! Every tile of a render through one pass, on one host thread or several.
//!
//! Tiles go to threads ([`crate::pool`], tiles in row-major order as items) when nothing
//! one tile does can reach another except through its own pixels:
//! - only the tile programs write memory, and they store the tile's own pixels
//!   (docs/render-abi.md section 2), through image writes or device stores: no fragment
//!   shader stores, atomics or image writes, no atomics or uniform stores anywhere;
//! - a tile's depth/stencil block is the tile itself: with tiles smaller than the 32x32 ZS
//!   block, a ZLS store writes the neighbouring tiles' pixels too;
//! - occlusion counts are tallied per tile and written once the pass is over
//!   ([`Visibility`]), which is where the serial pass writes them as well.
//!
//! Everything else a tile reads (vertex records, its bins, textures) is fixed for the pass,
//! so the images and counts do not depend on the thread count.

use super::tiles::{run_tile, Pass, PassInput, TileScratch, Visibility};
use crate::pool::{self, Pool};
use crate::raster::bin::TILE_SIZE;
use crate::usc::Program;
use crate::{Fault, GpuMemory, SharedView};
use hw::isa::Reach;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Passes that took the threaded path, so tests can tell they tested it.
#[cfg(test)]
pub static THREADED_PASSES: AtomicU64 = AtomicU64::new(0);

/// Whether `p` writes no memory whose order could show: none at all, or with `tile_program`
/// only plain stores and image writes, which a tile program aims at its tile's pixels.
fn writes_only_own_pixels(p: &Program, tile_program: bool) -> bool {
    p.instrs().iter().all(|i| match i.reach() {
        Reach::Own => true,
        Reach::Stores => tile_program,
        Reach::Shared => false,
    })
}

/// Whether the tiles of this pass may run on several threads (see the module comment).
fn independent(inp: &PassInput, pass: Pass) -> bool {
    let t = inp.target;
    let zs_blocks_are_tiles = t.tile_w == TILE_SIZE && t.tile_h == TILE_SIZE;
    let progs = inp.programs;
    let bg = if pass.first {
        Some(&progs.bg)
    } else {
        progs.partial_bg.as_ref()
    };
    let eot = if pass.last {
        Some(&progs.eot)
    } else {
        progs.partial_eot.as_ref()
    };
    let tile_programs = [bg, eot]
        .iter()
        .flatten()
        .all(|p| writes_only_own_pixels(&p.program, true));
    let shaders = inp
        .states
        .iter()
        .filter_map(|s| s.fs.as_ref())
        .all(|fs| writes_only_own_pixels(&fs.program, false));
    zs_blocks_are_tiles && tile_programs && shaders
}

/// Runs every tile through `pass` with its bin from `bins` (row-major), on up to `pool`'s
/// threads. Returns the fragment shader lanes run.
pub fn run_pass(
    inp: &PassInput,
    bins: &[Vec<u32>],
    pass: Pass,
    mem: &mut dyn GpuMemory,
    pool: Pool,
) -> Result<u64, Fault> {
    let t = inp.target;
    let tiles = u64::from(t.tiles_x) * u64::from(t.tiles_y);
    let tile = |i: u64| {
        (
            (i % u64::from(t.tiles_x)) as u32,
            (i / u64::from(t.tiles_x)) as u32,
        )
    };
    let shared = mem.shared();
    let mut visibility = Visibility::default();
    let fragments = match shared {
        Some(shared) if pool.threads > 1 && tiles > 1 && independent(inp, pass) => {
            #[cfg(test)]
            THREADED_PASSES.fetch_add(1, Ordering::Relaxed);
            let fragments = AtomicU64::new(0);
            let counted = Mutex::new(Visibility::default());
            pool::run(
                tiles,
                pool.threads,
                pool.alone,
                || (Visibility::default(), TileScratch::default()),
                |(v, reuse), i| {
                    let (tx, ty) = tile(i);
                    let n = run_tile(
                        inp,
                        tx,
                        ty,
                        &bins[i as usize],
                        pass,
                        &mut SharedView(shared),
                        v,
                        reuse,
                    )?;
                    fragments.fetch_add(n, Ordering::Relaxed);
                    Ok(())
                },
                |(v, _)| counted.lock().unwrap_or_else(|e| e.into_inner()).merge(v),
            )?;
            visibility = counted.into_inner().unwrap_or_else(|e| e.into_inner());
            fragments.into_inner()
        }
        _ => {
            let mut fragments = 0;
            let mut reuse = TileScratch::default();
            for i in 0..tiles {
                let (tx, ty) = tile(i);
                let list = &bins[i as usize];
                fragments += run_tile(inp, tx, ty, list, pass, mem, &mut visibility, &mut reuse)?;
            }
            fragments
        }
    };
    visibility.write(mem)?;
    Ok(fragments)
}
