//! The tiled vertex buffer heap, as the kernel and firmware own it.
//!
//! The UAPI has no TVB fields: the tiler's output lives in a heap the firmware manages per
//! queue. The heap is made of [`TVB_BLOCK_BYTES`] blocks. A render starts with the heap's
//! current size and consumes bytes as binned primitives are written
//! ([`TvbCostModel`]); when the next primitive does not fit, the firmware must run a partial
//! render (`partial_eot` stores the tiles, `partial_bg` reloads them) and continue binning
//! with the heap emptied. Each partial render also doubles the heap for the rest of the
//! render, so a first frame that needs N blocks pays about log2(N) partial renders rather
//! than N (the render benchmark's 6 MB first frame: 5 instead of 46). After each render the
//! heap grows to what that render would have needed without partial renders, never beyond
//! its maximum, so a repeated frame stops overflowing once the heap has caught up. How the
//! real firmware and kernel size the heap is not public: both rules are model choices.
//!
//! The maximum defaults to [`DEFAULT_TVB_MAX_BYTES`]; the environment variable
//! [`TVB_MAX_ENV`] (`AGX4_SIM_TVB_MAX_BYTES`) overrides it, read once per process. Its value
//! is a byte count, optionally with a `K`, `M` or `G` suffix (powers of 1024), of at least
//! one block; it is rounded down to whole blocks. A tiny maximum is how tests force partial
//! renders.
//!
//! The cost model is a model parameter, not a hardware fact: the real TVB layout is not
//! public. The GPU model's tiler prices each binned primitive with it and asks the render's
//! heap for the bytes through [`sim_gpu::TvbBudget`], which [`RenderTvb`] implements.
//!
//! Each queue's firmware worker keeps one heap for the queue's life (see `firmware.rs`).
//! With the environment variable `AGX4_SIM_STATS=<path>` set, the simulated firmware appends
//! one line per render command to that file:
//! `render draws=<n> primitives=<n> fragments=<n> partial_renders=<n> tvb_bytes=<n>`.

// Some accessors exist for tests and tools only.
#![allow(dead_code)]

use sim_gpu::raster::bin::TvbCostModel;
use sim_gpu::{TvbBudget, TvbFull};
use std::sync::OnceLock;

/// Size of one heap block.
pub const TVB_BLOCK_BYTES: u64 = 128 * 1024;
/// The heap's maximum when [`TVB_MAX_ENV`] is unset.
pub const DEFAULT_TVB_MAX_BYTES: u64 = 64 << 20;
/// Environment variable overriding the heap maximum, in bytes.
pub const TVB_MAX_ENV: &str = "AGX4_SIM_TVB_MAX_BYTES";
/// Blocks a new heap starts with.
pub const INITIAL_TVB_BLOCKS: u64 = 1;
/// Largest maximum accepted from the environment (4 GiB): far above any real heap, and
/// small enough that block arithmetic never overflows.
pub const MAX_TVB_MAX_BYTES: u64 = 4 << 30;

/// Why a primitive could not be binned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Overflow {
    /// The heap is full: run a partial render, call [`RenderTvb::flush_partial`], and bin the
    /// primitive again.
    #[error("TVB heap full: {needed} bytes needed, {free} free")]
    HeapFull { needed: u64, free: u64 },
    /// Not even an empty heap of the maximum size holds this one primitive.
    #[error("primitive needs {needed} TVB bytes, more than the {max}-byte maximum heap")]
    PrimitiveTooLarge { needed: u64, max: u64 },
}

/// What one render used, for the firmware to report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TvbStats {
    /// Blocks the render would have needed without partial renders (the growth feedback).
    pub blocks_used: u64,
    /// Bytes binned over the whole render, across partial renders.
    pub bytes_used: u64,
    /// Partial renders the heap forced.
    pub partial_renders: u64,
}

/// One queue's TVB heap.
#[derive(Debug, Clone)]
pub struct TvbHeap {
    cost: TvbCostModel,
    max_blocks: u64,
    blocks: u64,
    renders: u64,
    partial_renders: u64,
    last: Option<TvbStats>,
}

impl TvbHeap {
    /// A heap of at most `max_bytes`, rounded down to whole blocks (at least one block: a
    /// heap with none could bin nothing).
    pub fn new(max_bytes: u64) -> TvbHeap {
        TvbHeap::with_cost_model(max_bytes, TvbCostModel::default())
    }

    pub fn with_cost_model(max_bytes: u64, cost: TvbCostModel) -> TvbHeap {
        let max_blocks = (max_bytes / TVB_BLOCK_BYTES).max(1);
        TvbHeap {
            cost,
            max_blocks,
            blocks: INITIAL_TVB_BLOCKS.min(max_blocks),
            renders: 0,
            partial_renders: 0,
            last: None,
        }
    }

    /// A heap with the maximum from [`TVB_MAX_ENV`], or the default.
    pub fn from_env() -> Result<TvbHeap, String> {
        Ok(TvbHeap::new(env_max_bytes()?))
    }

    /// Current size in blocks: what the next render starts with.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    pub fn max_blocks(&self) -> u64 {
        self.max_blocks
    }

    /// Renders finished on this heap.
    pub fn renders(&self) -> u64 {
        self.renders
    }

    /// Partial renders over the heap's life (per queue, as the firmware can report them).
    pub fn partial_renders(&self) -> u64 {
        self.partial_renders
    }

    /// Statistics of the last finished render.
    pub fn last_render(&self) -> Option<TvbStats> {
        self.last
    }

    /// Start binning a render with the heap at its current size.
    pub fn begin_render(&mut self) -> RenderTvb<'_> {
        let capacity = self.blocks;
        RenderTvb {
            heap: self,
            capacity_blocks: capacity,
            resident: 0,
            total: 0,
            partial_renders: 0,
        }
    }
}

/// The heap while one render bins into it.
#[derive(Debug)]
pub struct RenderTvb<'a> {
    heap: &'a mut TvbHeap,
    capacity_blocks: u64,
    /// Bytes in the heap now (since the last partial render).
    resident: u64,
    /// Bytes binned over the whole render.
    total: u64,
    partial_renders: u64,
}

impl RenderTvb<'_> {
    /// Bytes the heap holds during this render.
    pub fn capacity_bytes(&self) -> u64 {
        self.capacity_blocks * TVB_BLOCK_BYTES
    }

    /// Bytes written since the render began or the last partial render.
    pub fn resident_bytes(&self) -> u64 {
        self.resident
    }

    /// Blocks holding the resident bytes.
    pub fn resident_blocks(&self) -> u64 {
        self.resident.div_ceil(TVB_BLOCK_BYTES)
    }

    /// Bin one primitive listed in `primitive_tile_count` tiles. On
    /// [`Overflow::HeapFull`] nothing is consumed. A primitive that does not fit even an
    /// empty heap grows the heap for this render up to the maximum, as it could never be
    /// binned otherwise.
    pub fn bin(&mut self, primitive_tile_count: usize) -> Result<(), Overflow> {
        let needed = self.heap.cost.primitive_bytes(primitive_tile_count);
        self.reserve_bytes(needed)
    }

    /// Take `needed` bytes for one primitive, with the rules of [`RenderTvb::bin`].
    pub fn reserve_bytes(&mut self, needed: u64) -> Result<(), Overflow> {
        let max = self.heap.max_blocks * TVB_BLOCK_BYTES;
        if needed > max {
            return Err(Overflow::PrimitiveTooLarge { needed, max });
        }
        let free = self.capacity_bytes() - self.resident;
        if needed > free {
            if self.resident != 0 {
                return Err(Overflow::HeapFull { needed, free });
            }
            self.capacity_blocks = needed.div_ceil(TVB_BLOCK_BYTES);
        }
        self.resident += needed;
        self.total += needed;
        Ok(())
    }

    /// The firmware ran a partial render: the binned primitives were rendered and the heap
    /// is empty again, and twice its size (up to the maximum) for the rest of the render.
    pub fn flush_partial(&mut self) {
        self.partial_renders += 1;
        self.resident = 0;
        self.capacity_blocks = (2 * self.capacity_blocks).min(self.heap.max_blocks);
    }

    /// Finish the render: record its statistics and grow the heap for the next one.
    pub fn end_render(self) -> TvbStats {
        let stats = TvbStats {
            blocks_used: self.total.div_ceil(TVB_BLOCK_BYTES),
            bytes_used: self.total,
            partial_renders: self.partial_renders,
        };
        let heap = self.heap;
        // Not the doubled capacity: the next render starts with what this one needed (an
        // oversized primitive's blocks are part of `blocks_used` too).
        let grown = heap.blocks.max(stats.blocks_used);
        heap.blocks = grown.min(heap.max_blocks);
        heap.renders += 1;
        heap.partial_renders += stats.partial_renders;
        heap.last = Some(stats);
        stats
    }
}

impl TvbBudget for RenderTvb<'_> {
    fn reserve(&mut self, bytes: u64) -> Result<(), TvbFull> {
        self.reserve_bytes(bytes).map_err(|e| match e {
            Overflow::HeapFull { .. } => TvbFull::Full,
            Overflow::PrimitiveTooLarge { needed, max } => TvbFull::TooLarge { needed, max },
        })
    }

    fn flush_partial(&mut self) {
        RenderTvb::flush_partial(self);
    }
}

/// The heap maximum named by a [`TVB_MAX_ENV`] value (`None` when unset): bytes with an
/// optional `K`/`M`/`G` suffix (powers of 1024, `KiB`/`MiB`/`GiB` also accepted), rounded
/// down to whole blocks.
pub fn parse_max_bytes(value: Option<&str>) -> Result<u64, String> {
    let Some(v) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(DEFAULT_TVB_MAX_BYTES);
    };
    let bad = |why: &str| format!("{TVB_MAX_ENV}={v:?}: {why}");
    let upper = v.to_ascii_uppercase();
    let (digits, shift) = [
        ("GIB", 30),
        ("MIB", 20),
        ("KIB", 10),
        ("G", 30),
        ("M", 20),
        ("K", 10),
    ]
    .iter()
    .find_map(|(s, k)| upper.strip_suffix(s).map(|d| (d.trim_end(), *k)))
    .unwrap_or((upper.as_str(), 0));
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad("expected a byte count such as 8388608, 8192K or 8M"));
    }
    let n: u64 = digits.parse().map_err(|_| bad("number too large"))?;
    let bytes = n
        .checked_mul(1 << shift)
        .ok_or_else(|| bad("number too large"))?;
    if bytes < TVB_BLOCK_BYTES {
        return Err(bad(&format!("below one {TVB_BLOCK_BYTES}-byte block")));
    }
    if bytes > MAX_TVB_MAX_BYTES {
        return Err(bad(&format!("above the {MAX_TVB_MAX_BYTES}-byte limit")));
    }
    Ok(bytes / TVB_BLOCK_BYTES * TVB_BLOCK_BYTES)
}

/// [`TVB_MAX_ENV`] parsed once per process.
pub fn env_max_bytes() -> Result<u64, String> {
    static MAX: OnceLock<Result<u64, String>> = OnceLock::new();
    MAX.get_or_init(|| parse_max_bytes(std::env::var(TVB_MAX_ENV).ok().as_deref()))
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLOCK: u64 = 131072;

    #[test]
    fn exact_block_arithmetic_and_overflow() {
        // One block, 64 bytes per primitive with no tiles: exactly 2048 primitives fit.
        let mut heap = TvbHeap::new(BLOCK);
        let mut r = heap.begin_render();
        assert_eq!(r.capacity_bytes(), BLOCK);
        for _ in 0..2048 {
            r.bin(0).unwrap();
        }
        assert_eq!(r.resident_bytes(), BLOCK);
        assert_eq!(
            r.bin(0),
            Err(Overflow::HeapFull {
                needed: 64,
                free: 0
            })
        );
        r.flush_partial();
        r.bin(0).unwrap();
        let stats = r.end_render();
        // 2049 * 64 bytes = one block and 64 bytes: two blocks, capped at the maximum of one.
        assert_eq!(
            stats,
            TvbStats {
                blocks_used: 2,
                bytes_used: 2049 * 64,
                partial_renders: 1
            }
        );
        assert_eq!(heap.blocks(), 1);
    }

    #[test]
    fn overflow_leaves_the_heap_unchanged() {
        let mut heap = TvbHeap::new(BLOCK);
        let mut r = heap.begin_render();
        // 64 + 4 * 1000 = 4064 bytes each; 32 of them take 130048, leaving 1024.
        for _ in 0..32 {
            r.bin(1000).unwrap();
        }
        assert_eq!(r.resident_bytes(), 130048);
        assert_eq!(
            r.bin(1000),
            Err(Overflow::HeapFull {
                needed: 4064,
                free: 1024
            })
        );
        assert_eq!(r.resident_bytes(), 130048);
        // A smaller primitive still fits: 64 + 4 * 240 = 1024 bytes.
        r.bin(240).unwrap();
        assert_eq!(r.resident_bytes(), BLOCK);
        assert_eq!(r.resident_blocks(), 1);
    }

    #[test]
    fn heap_grows_from_feedback_up_to_the_maximum() {
        let mut heap = TvbHeap::new(4 * BLOCK);
        assert_eq!((heap.blocks(), heap.max_blocks()), (1, 4));
        // A render of 5000 primitives of 64 + 4 * 100 = 464 bytes: 2_320_000 bytes
        // = 17.7 blocks, so 18 needed.
        let run = |heap: &mut TvbHeap| {
            let mut r = heap.begin_render();
            for _ in 0..5000 {
                if r.bin(100).is_err() {
                    r.flush_partial();
                    r.bin(100).unwrap();
                }
            }
            r.end_render()
        };
        let first = run(&mut heap);
        assert_eq!(first.bytes_used, 2_320_000);
        assert_eq!(first.blocks_used, 18);
        // 1 block holds 282 primitives (282 * 464 = 130848), 2 blocks 564 and 4 blocks (the
        // maximum) 1129: 282 + 564 + 3 * 1129 < 5000, so 5 partial renders.
        assert_eq!(first.partial_renders, 5);
        assert_eq!(heap.blocks(), 4);
        // 4 blocks hold 1129 primitives (1129 * 464 = 523856 <= 524288): 4 partial renders.
        let second = run(&mut heap);
        assert_eq!(second.partial_renders, 4);
        assert_eq!(heap.partial_renders(), 9);
        assert_eq!(heap.renders(), 2);
        assert_eq!(heap.last_render(), Some(second));

        // With room to grow, 1, 2, 4, 8 and 16 blocks: 282 + 564 + 1129 + 2259 < 5000 fit
        // the first four, so 4 partial renders; and the next render starts with what the
        // last one needed, not the 16 blocks it ended with.
        let mut big = TvbHeap::new(64 << 20);
        let first = run(&mut big);
        assert_eq!((first.partial_renders, big.blocks()), (4, 18));
        let second = run(&mut big);
        assert_eq!(second.partial_renders, 0);
        assert_eq!(big.blocks(), 18);
        // A smaller render does not shrink the heap.
        let mut r = big.begin_render();
        r.bin(0).unwrap();
        r.end_render();
        assert_eq!(big.blocks(), 18);
    }

    #[test]
    fn oversized_primitives() {
        // 64 + 4 * 40000 = 160064 bytes: more than one block. An empty one-block heap grows
        // for it (2 blocks) when the maximum allows ...
        let mut heap = TvbHeap::new(2 * BLOCK);
        let mut r = heap.begin_render();
        r.bin(40000).unwrap();
        assert_eq!(r.capacity_bytes(), 2 * BLOCK);
        assert_eq!(r.end_render().blocks_used, 2);
        assert_eq!(heap.blocks(), 2);
        // ... and is refused outright when it cannot.
        let mut heap = TvbHeap::new(BLOCK);
        let mut r = heap.begin_render();
        assert_eq!(
            r.bin(40000),
            Err(Overflow::PrimitiveTooLarge {
                needed: 160064,
                max: BLOCK
            })
        );
        // On a heap that is not empty it is a plain overflow first.
        let mut heap = TvbHeap::new(2 * BLOCK);
        let mut r = heap.begin_render();
        r.bin(0).unwrap();
        assert_eq!(
            r.bin(40000),
            Err(Overflow::HeapFull {
                needed: 160064,
                free: BLOCK - 64
            })
        );
    }

    #[test]
    fn budget_trait_maps_overflows() {
        let mut heap = TvbHeap::new(BLOCK);
        let mut r = heap.begin_render();
        let b: &mut dyn TvbBudget = &mut r;
        b.reserve(BLOCK - 8).unwrap();
        assert_eq!(b.reserve(16), Err(TvbFull::Full));
        b.flush_partial();
        b.reserve(16).unwrap();
        assert_eq!(
            b.reserve(2 * BLOCK),
            Err(TvbFull::TooLarge {
                needed: 2 * BLOCK,
                max: BLOCK
            })
        );
        let stats = r.end_render();
        assert_eq!(stats.partial_renders, 1);
        assert_eq!(stats.bytes_used, BLOCK - 8 + 16);
    }

    #[test]
    fn maximum_rounds_to_blocks() {
        assert_eq!(TvbHeap::new(3 * BLOCK + 5).max_blocks(), 3);
        assert_eq!(TvbHeap::new(0).max_blocks(), 1);
        assert_eq!(TvbHeap::new(DEFAULT_TVB_MAX_BYTES).max_blocks(), 512);
    }

    #[test]
    fn env_value_parsing() {
        assert_eq!(parse_max_bytes(None), Ok(64 << 20));
        assert_eq!(parse_max_bytes(Some("  ")), Ok(64 << 20));
        assert_eq!(parse_max_bytes(Some("131072")), Ok(BLOCK));
        assert_eq!(parse_max_bytes(Some("262143")), Ok(BLOCK));
        assert_eq!(parse_max_bytes(Some("8M")), Ok(8 << 20));
        assert_eq!(parse_max_bytes(Some("8 MiB")), Ok(8 << 20));
        assert_eq!(parse_max_bytes(Some("256k")), Ok(2 * BLOCK));
        assert_eq!(parse_max_bytes(Some("1G")), Ok(1 << 30));
        assert_eq!(parse_max_bytes(Some("4G")), Ok(4 << 30));
        for bad in [
            "5G",
            "131071",
            "127K",
            "0",
            "-1",
            "1.5M",
            "M",
            "0x100000",
            "12Q",
            "99999999999999999999999",
        ] {
            assert!(parse_max_bytes(Some(bad)).is_err(), "{bad}");
        }
        let e = parse_max_bytes(Some("lots")).unwrap_err();
        assert!(e.contains(TVB_MAX_ENV), "{e}");
    }
}
