//! The vertex stage: runs a draw's vertex shader once per (vertex, instance) its primitives
//! use, 32 at a time, and keeps each vertex's UVS record.
//!
//! Preloaded registers (docs/render-abi.md section 3): r5 = the vertex index as Vulkan's
//! `VertexIndex` sees it, r6 = the instance counted from 0.

use super::assembly::AssembledPrimitive;
use super::programs::Loaded;
use crate::pool::{self, Pool};
use crate::usc::{self, GraphicsContext, LaunchState, Preload, Program, VertexContext};
use crate::{Fault, GpuMemory, SharedView, Spare};
use hw::g13::preload;
use hw::isa::{Reach, SIMD_WIDTH};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Mutex;

/// Hashes (vertex, instance) keys with one multiply per word. The map is looked up three
/// times per primitive, and the standard SipHash was a visible share of a draw's time; the
/// keys come from the application's index buffer, so there is no adversary to resist.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u32(u32::from(b));
        }
    }

    fn write_u32(&mut self, v: u32) {
        self.0 = (self.0.rotate_left(5) ^ u64::from(v)).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

type VertexMap = HashMap<(u32, u32), usize, BuildHasherDefault<KeyHasher>>;

/// The record number of each (vertex, instance) a draw's primitives use. Most draws number
/// their vertices within a range not much larger than the vertices they use, and a table
/// over that range finds a record with one index; the hash map serves the rest.
enum VertexIndex {
    Table {
        min: u32,
        span: u32,
        /// `records[instance * span + vertex - min]`, `u32::MAX` where none.
        records: Vec<u32>,
    },
    Map(VertexMap),
}

impl VertexIndex {
    /// An index for the vertices of `prims`.
    fn for_primitives(prims: &[AssembledPrimitive]) -> VertexIndex {
        let (mut min, mut max, mut instances) = (u32::MAX, 0, 0);
        for p in prims {
            for &v in p.vertices() {
                min = min.min(v);
                max = max.max(v);
            }
            instances = instances.max(p.instance);
        }
        let span = u64::from(max.saturating_sub(min)) + 1;
        let cells = span * (u64::from(instances) + 1);
        if min <= max && cells <= 4 * 3 * prims.len() as u64 + 4096 {
            VertexIndex::Table {
                min,
                span: span as u32,
                records: vec![u32::MAX; cells as usize],
            }
        } else {
            VertexIndex::Map(VertexMap::default())
        }
    }

    fn cell(min: u32, span: u32, (v, instance): (u32, u32)) -> Option<usize> {
        let dv = v.checked_sub(min).filter(|&d| d < span)?;
        Some(instance as usize * span as usize + dv as usize)
    }

    fn get(&self, key: (u32, u32)) -> Option<usize> {
        match self {
            VertexIndex::Table { min, span, records } => {
                let r = *records.get(Self::cell(*min, *span, key)?)?;
                (r != u32::MAX).then_some(r as usize)
            }
            VertexIndex::Map(m) => m.get(&key).copied(),
        }
    }

    /// The record of `key`, numbered next in `order` (which gets the key) if it has none yet.
    fn get_or_insert(
        &mut self,
        key: (u32, u32),
        order: &mut Vec<(u32, u32)>,
    ) -> Result<usize, Fault> {
        use std::collections::hash_map::Entry;
        let next = order.len();
        Ok(match self {
            VertexIndex::Table { min, span, records } => {
                // Every key of the primitives the table was made for is inside it.
                let r = Self::cell(*min, *span, key)
                    .and_then(|c| records.get_mut(c))
                    .ok_or(Fault::Internal("a vertex outside its table's range"))?;
                if *r == u32::MAX {
                    *r = next as u32;
                    order.push(key);
                }
                *r as usize
            }
            VertexIndex::Map(m) => match m.entry(key) {
                Entry::Vacant(e) => {
                    e.insert(next);
                    order.push(key);
                    next
                }
                Entry::Occupied(e) => *e.get(),
            },
        })
    }
}

/// The UVS records of a draw's shaded vertices.
pub struct ShadedVertices {
    slots: usize,
    index: VertexIndex,
    uvs: Vec<u32>,
    /// Record numbers of each primitive's vertices, in the order `shade` was given them
    /// (points and lines repeat their last vertex): found once while collecting the vertices,
    /// so setup does not look each one up again.
    by_primitive: Vec<[u32; 3]>,
}

/// Emptied record vectors for later draws: room for about 500,000 vertices of 8 words.
static SPARE_RECORDS: Spare<u32> = Spare::new(16 << 20);

impl Drop for ShadedVertices {
    fn drop(&mut self) {
        SPARE_RECORDS.give(std::mem::take(&mut self.uvs));
    }
}

impl ShadedVertices {
    /// Records of vertices 0, 1, ... of instance 0, as if shaded.
    #[cfg(test)]
    pub fn from_records(slots: usize, records: &[Vec<u32>]) -> ShadedVertices {
        ShadedVertices {
            slots,
            index: VertexIndex::Map((0..records.len()).map(|i| ((i as u32, 0), i)).collect()),
            uvs: records.iter().flat_map(|r| r.iter().copied()).collect(),
            by_primitive: Vec::new(),
        }
    }

    fn record_at(&self, i: usize) -> &[u32] {
        &self.uvs[i * self.slots..][..self.slots]
    }

    /// The records of the vertices of primitive `k` of those shaded, the last repeated for
    /// points and lines.
    pub fn primitive_records(&self, k: usize) -> Option<[&[u32]; 3]> {
        let r = self.by_primitive.get(k)?;
        Some(r.map(|i| self.record_at(i as usize)))
    }

    /// The record of vertex `v` of instance `instance`; every vertex a primitive of the draw
    /// uses has one.
    pub fn record(&self, v: u32, instance: u32) -> Result<&[u32], Fault> {
        let i = self
            .index
            .get((v, instance))
            .ok_or(Fault::Internal("vertex used by a primitive was not shaded"))?;
        Ok(self.record_at(i))
    }
}

/// Whether `p` writes nothing but its vertices' UVS records, so that groups of vertices may
/// be shaded on several threads in any order: no device stores, atomics, image writes or
/// uniform stores (transform feedback is device stores).
fn writes_only_records(p: &Program) -> bool {
    p.instrs().iter().all(|i| i.reach() == Reach::Own)
}

/// What shading one group of up to 32 vertices needs. One launch state and one vertex
/// context serve every group, refilled per group as if new: rebuilding them (uniform file,
/// preload lists, UVS records) for each 32 vertices cost a visible share of a draw of small
/// triangles.
struct Group {
    gfx: GraphicsContext,
    launch: LaunchState,
    context: Option<VertexContext>,
}

impl Group {
    fn new(vs: &Loaded, slots: u32) -> Group {
        let mut launch = LaunchState::new([1, 1, 1], [1, 1, 1]);
        launch.uniforms.clone_from(&vs.words.uniforms);
        launch.stack_bytes = vs.words.stack_bytes;
        launch.shared_bytes = vs.words.shared_bytes;
        launch.preloads = vec![
            Preload {
                reg: preload::VERTEX_INDEX,
                values: Vec::with_capacity(SIMD_WIDTH),
            },
            Preload {
                reg: preload::INSTANCE,
                values: Vec::with_capacity(SIMD_WIDTH),
            },
        ];
        Group {
            gfx: GraphicsContext {
                textures: vs.words.textures.clone(),
                fragment: None,
                vertex: None,
            },
            launch,
            context: Some(VertexContext::new(slots)),
        }
    }

    /// Shades the (vertex, instance) pairs of `chunk` and copies their records to `out`.
    fn shade(
        &mut self,
        vs: &Loaded,
        chunk: &[(u32, u32)],
        mem: &mut dyn GpuMemory,
        out: &mut [u32],
    ) -> Result<(), Fault> {
        let n = chunk.len() as u32;
        let launch = &mut self.launch;
        launch.local_size = [n, 1, 1];
        launch.grid_threads = [n, 1, 1];
        for (p, pick) in launch
            .preloads
            .iter_mut()
            .zip([|k: &(u32, u32)| k.0, |k: &(u32, u32)| k.1])
        {
            p.values.clear();
            p.values.extend(chunk.iter().map(pick));
        }
        let mut context = self
            .context
            .take()
            .ok_or(Fault::Internal("vertex context lost"))?;
        context.uvs.fill(0);
        context.finished = 0;
        self.gfx.vertex = Some(context);
        let run = usc::run_graphics(&vs.program, launch, mem, &mut self.gfx);
        self.context = self.gfx.vertex.take();
        run?;
        let context = self
            .context
            .as_ref()
            .ok_or(Fault::Internal("vertex context lost"))?;
        out.copy_from_slice(&context.uvs[..out.len()]);
        Ok(())
    }
}

/// Shades the vertices `prims` use, in order of first use, 32 at a time; on several threads
/// when the shader writes nothing but its records.
pub fn shade(
    vs: &Loaded,
    slots: u32,
    prims: &[AssembledPrimitive],
    mem: &mut dyn GpuMemory,
    pool: Pool,
) -> Result<ShadedVertices, Fault> {
    let mut order = Vec::new();
    let mut index = VertexIndex::for_primitives(prims);
    let mut by_primitive = Vec::with_capacity(prims.len());
    for p in prims {
        let mut records = [0u32; 3];
        let vs = p.vertices();
        for (i, &v) in vs.iter().enumerate() {
            records[i] = index.get_or_insert((v, p.instance), &mut order)? as u32;
        }
        for i in vs.len()..3 {
            records[i] = records[vs.len() - 1];
        }
        by_primitive.push(records);
    }
    let s = slots as usize;
    let mut uvs = SPARE_RECORDS.take(order.len() * s);
    uvs.resize(order.len() * s, 0);
    let chunks = order.len().div_ceil(SIMD_WIDTH) as u64;
    match mem.shared() {
        Some(shared) if pool.threads > 1 && chunks > 1 && writes_only_records(&vs.program) => {
            let out: Vec<Mutex<&mut [u32]>> =
                uvs.chunks_mut(SIMD_WIDTH * s).map(Mutex::new).collect();
            pool::run(
                chunks,
                pool.threads,
                pool.alone,
                || Group::new(vs, slots),
                |g, i| {
                    let i = i as usize;
                    let chunk = &order[i * SIMD_WIDTH..order.len().min((i + 1) * SIMD_WIDTH)];
                    let mut out = out[i].lock().unwrap_or_else(|e| e.into_inner());
                    g.shade(vs, chunk, &mut SharedView(shared), &mut out)
                },
                |_| {},
            )?;
        }
        _ => {
            let mut g = Group::new(vs, slots);
            for (chunk, out) in order.chunks(SIMD_WIDTH).zip(uvs.chunks_mut(SIMD_WIDTH * s)) {
                g.shade(vs, chunk, mem, out)?;
            }
        }
    }
    Ok(ShadedVertices {
        slots: s,
        index,
        uvs,
        by_primitive,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table and the map number (vertex, instance) keys alike: in order of first use, each
    /// key once, and `get` finds what `get_or_insert` numbered.
    #[test]
    fn table_and_map_number_vertices_alike() {
        let mut rng = hw::test_rng::Rng(0x9e37_79b9);
        let mut next = |n: u32| rng.below(u64::from(n)) as u32;
        let (min, span, instances) = (1000, 300, 3);
        let keys: Vec<(u32, u32)> = (0..2000)
            .map(|_| (min + next(span), next(instances)))
            .collect();
        let mut table = VertexIndex::Table {
            min,
            span,
            records: vec![u32::MAX; (span * instances) as usize],
        };
        let mut map = VertexIndex::Map(VertexMap::default());
        let (mut table_order, mut map_order) = (Vec::new(), Vec::new());
        for &k in &keys {
            let a = table.get_or_insert(k, &mut table_order).unwrap();
            let b = map.get_or_insert(k, &mut map_order).unwrap();
            assert_eq!(a, b, "{k:?}");
            assert_eq!(table.get(k), Some(a));
        }
        assert_eq!(table_order, map_order);
        assert!(table_order.len() > 500 && table_order.len() < keys.len());
        // Keys outside the table: none found, and numbering one is an error, not a panic.
        assert_eq!(table.get((min - 1, 0)), None);
        assert_eq!(table.get((min + span, 0)), None);
        assert_eq!(table.get((min, instances)), None);
        assert!(table
            .get_or_insert((min + span, 0), &mut table_order)
            .is_err());
    }
}
