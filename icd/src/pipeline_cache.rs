//! VkPipelineCache: compiled binaries keyed by a hash of everything that determines them
//! (SPIR-V, entry point, specialization, layout, target).
//!
//! Serialized form: the header the spec defines (VK_PIPELINE_CACHE_HEADER_VERSION_ONE), then
//! entries of: key (u64), the binary's 12 u32 fields, code length (u32), code bytes, preload
//! count (u32) and four u32 per preload, constant data length (u32) and bytes. All
//! little-endian. Data with another header, or damaged entries, is ignored.

use crate::device::Device;
use crate::entry::{guard, guard_or};
use crate::handle::{self, object, Object};
use ash::vk;
use compiler::{ComputeBinary, ComputeRequest, PreloadSource, Stats};
use std::collections::hash_map::DefaultHasher;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::sync::Mutex;

const HEADER_SIZE: usize = 32;

pub struct PipelineCache {
    header: [u8; HEADER_SIZE],
    entries: Mutex<BTreeMap<u64, ComputeBinary>>,
}
object!(PipelineCache, vk::PipelineCache);

/// The cache key of a compile request.
pub fn key(req: &ComputeRequest<'_>) -> u64 {
    let mut h = DefaultHasher::new();
    req.spirv.hash(&mut h);
    req.entry_point.hash(&mut h);
    req.specialization.hash(&mut h);
    req.layout.hash(&mut h);
    req.target.hash(&mut h);
    h.finish()
}

fn header(dev: &Device) -> [u8; HEADER_SIZE] {
    let p = &dev.properties;
    let mut out = [0u8; HEADER_SIZE];
    out[0..4].copy_from_slice(&(HEADER_SIZE as u32).to_le_bytes());
    out[4..8].copy_from_slice(&(vk::PipelineCacheHeaderVersion::ONE.as_raw() as u32).to_le_bytes());
    out[8..12].copy_from_slice(&p.vendor_id.to_le_bytes());
    out[12..16].copy_from_slice(&p.device_id.to_le_bytes());
    out[16..32].copy_from_slice(&p.pipeline_cache_uuid);
    out
}

/// A binary without a preamble, in the preamble offset field.
const NO_PREAMBLE: u32 = u32::MAX;

fn fields(b: &ComputeBinary) -> [u32; 17] {
    let s = &b.stats;
    let p = b.preamble;
    [
        b.gpr_halves,
        b.uniform_halves,
        b.scratch_bytes,
        b.shared_bytes,
        b.local_size[0],
        b.local_size[1],
        b.local_size[2],
        s.instructions,
        s.code_bytes,
        s.gpr_halves,
        s.spills,
        s.fills,
        s.preamble_instructions,
        p.map_or(NO_PREAMBLE, |p| p.offset),
        p.map_or(0, |p| p.gpr_halves),
        p.map_or(0, |p| p.first_half),
        p.map_or(0, |p| p.result_halves),
    ]
}

fn serialize_entry(key: u64, b: &ComputeBinary, out: &mut Vec<u8>) {
    out.extend_from_slice(&key.to_le_bytes());
    for f in fields(b) {
        out.extend_from_slice(&f.to_le_bytes());
    }
    out.extend_from_slice(&(b.code.len() as u32).to_le_bytes());
    out.extend_from_slice(&b.code);
    out.extend_from_slice(&(b.preloads.len() as u32).to_le_bytes());
    for p in &b.preloads {
        let source = match p.source {
            PreloadSource::Set { root_offset } => root_offset,
            PreloadSource::Constants => CONSTANTS_SOURCE,
        };
        for w in [p.uniform_half, p.halves, source, p.byte_offset] {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }
    out.extend_from_slice(&(b.constants.len() as u32).to_le_bytes());
    out.extend_from_slice(&b.constants);
}

/// A preload's source word in an entry: a set's root table offset, or this for the
/// binary's constants.
const CONSTANTS_SOURCE: u32 = u32::MAX;

/// Parses entries after the header; stops at the first damaged one.
fn parse_entries(mut data: &[u8], into: &mut BTreeMap<u64, ComputeBinary>) {
    let take = |n: usize, data: &mut &[u8]| -> Option<Vec<u8>> {
        let (head, rest) = (data.get(..n)?, data.get(n..)?);
        *data = rest;
        Some(head.to_vec())
    };
    while !data.is_empty() {
        let Some(k) = take(8, &mut data) else { return };
        let Some(f) = take(68, &mut data) else { return };
        let Some(len) = take(4, &mut data) else {
            return;
        };
        let len = u32::from_le_bytes(len.try_into().unwrap_or_default()) as usize;
        let Some(code) = take(len, &mut data) else {
            return;
        };
        let Some(n) = take(4, &mut data) else {
            return;
        };
        let n = u32::from_le_bytes(n.try_into().unwrap_or_default()) as usize;
        let Some(p) = n.checked_mul(16).and_then(|b| take(b, &mut data)) else {
            return;
        };
        let word = |i: usize| u32::from_le_bytes([p[i], p[i + 1], p[i + 2], p[i + 3]]);
        let preloads = (0..n)
            .map(|k| compiler::UniformPreload {
                uniform_half: word(16 * k),
                halves: word(16 * k + 4),
                source: match word(16 * k + 8) {
                    CONSTANTS_SOURCE => PreloadSource::Constants,
                    root_offset => PreloadSource::Set { root_offset },
                },
                byte_offset: word(16 * k + 12),
            })
            .collect();
        let Some(len) = take(4, &mut data) else {
            return;
        };
        let len = u32::from_le_bytes(len.try_into().unwrap_or_default()) as usize;
        let Some(constants) = take(len, &mut data) else {
            return;
        };
        let w: Vec<u32> = f
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let binary = ComputeBinary {
            code,
            gpr_halves: w[0],
            uniform_halves: w[1],
            preloads,
            constants,
            preamble: (w[13] != NO_PREAMBLE).then_some(compiler::PreambleCode {
                offset: w[13],
                gpr_halves: w[14],
                first_half: w[15],
                result_halves: w[16],
            }),
            scratch_bytes: w[2],
            shared_bytes: w[3],
            local_size: [w[4], w[5], w[6]],
            stats: Stats {
                instructions: w[7],
                code_bytes: w[8],
                gpr_halves: w[9],
                spills: w[10],
                fills: w[11],
                preamble_instructions: w[12],
            },
        };
        into.insert(u64::from_le_bytes(k.try_into().unwrap_or_default()), binary);
    }
}

impl PipelineCache {
    pub fn lookup(&self, key: u64) -> Option<ComputeBinary> {
        self.entries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .cloned()
    }

    pub fn insert(&self, key: u64, binary: ComputeBinary) {
        self.entries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, binary);
    }

    fn serialize(&self) -> Vec<u8> {
        let mut out = self.header.to_vec();
        for (k, b) in self
            .entries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
        {
            serialize_entry(*k, b, &mut out);
        }
        out
    }
}

pub unsafe extern "system" fn create_pipeline_cache(
    device: vk::Device,
    p_create_info: *const vk::PipelineCacheCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_cache: *mut vk::PipelineCache,
) -> vk::Result {
    guard("vkCreatePipelineCache", || {
        // SAFETY: `device` is vkCreatePipelineCache's device parameter, which valid usage requires
        // to be a live device made by this driver.
        let dev = unsafe { Device::get(device) }?;
        // SAFETY: valid usage: pCreateInfo is valid, pInitialData holds initialDataSize bytes.
        let info = unsafe { &*p_create_info };
        let data: &[u8] = if info.initial_data_size == 0 || info.p_initial_data.is_null() {
            &[]
        } else {
            // SAFETY: as above.
            unsafe {
                std::slice::from_raw_parts(info.p_initial_data as *const u8, info.initial_data_size)
            }
        };
        let header = header(dev);
        let mut entries = BTreeMap::new();
        if data.len() >= HEADER_SIZE && data[..HEADER_SIZE] == header {
            parse_entries(&data[HEADER_SIZE..], &mut entries);
        }
        let cache = PipelineCache {
            header,
            entries: Mutex::new(entries),
        };
        // SAFETY: valid usage: pAllocator is null or valid allocation callbacks.
        let handle =
            unsafe { cache.into_handle_in(p_allocator, vk::SystemAllocationScope::CACHE) }?;
        // SAFETY: valid usage: pPipelineCache is writable.
        unsafe { *p_cache = handle };
        Ok(())
    })
}

pub unsafe extern "system" fn destroy_pipeline_cache(
    _device: vk::Device,
    cache: vk::PipelineCache,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard_or("vkDestroyPipelineCache", (), || {
        // SAFETY: Vulkan valid usage: `cache` is VK_NULL_HANDLE or a live pipeline cache made by
        // this driver, and this destroy command is its last use.
        drop(unsafe { PipelineCache::take(cache) })
    })
}

pub unsafe extern "system" fn get_pipeline_cache_data(
    _device: vk::Device,
    cache: vk::PipelineCache,
    p_size: *mut usize,
    p_data: *mut std::ffi::c_void,
) -> vk::Result {
    guard("vkGetPipelineCacheData", || {
        // SAFETY: Vulkan valid usage: `cache` is a live pipeline cache made by this driver.
        let cache =
            unsafe { PipelineCache::from_handle(cache) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        let data = cache.serialize();
        // SAFETY: valid usage: pDataSize is valid; pData, if not null, holds *pDataSize bytes.
        unsafe {
            if p_data.is_null() {
                *p_size = data.len();
                return Ok(());
            }
            let room = *p_size;
            if room >= data.len() {
                std::ptr::copy_nonoverlapping(data.as_ptr(), p_data as *mut u8, data.len());
                *p_size = data.len();
                return Ok(());
            }
            // Too small: write the header and the whole entries that fit, nothing partial.
            let mut fitting = Vec::new();
            if room >= HEADER_SIZE {
                fitting.extend_from_slice(&cache.header);
                for (k, b) in cache
                    .entries
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .iter()
                {
                    let mut one = Vec::new();
                    serialize_entry(*k, b, &mut one);
                    if fitting.len() + one.len() > room {
                        break;
                    }
                    fitting.extend(one);
                }
            }
            std::ptr::copy_nonoverlapping(fitting.as_ptr(), p_data as *mut u8, fitting.len());
            *p_size = fitting.len();
        }
        Err(vk::Result::INCOMPLETE)
    })
}

pub unsafe extern "system" fn merge_pipeline_caches(
    _device: vk::Device,
    dst: vk::PipelineCache,
    count: u32,
    p_src: *const vk::PipelineCache,
) -> vk::Result {
    guard("vkMergePipelineCaches", || {
        // SAFETY: Vulkan valid usage: `dstCache` is a live pipeline cache made by this driver.
        let dst = unsafe { PipelineCache::from_handle(dst) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        // SAFETY: valid usage: pSrcCaches holds `count` handles.
        for &src in unsafe { handle::slice(p_src, count) } {
            // SAFETY: Vulkan valid usage: each of `pSrcCaches` is a live pipeline cache made by
            // this driver.
            let Some(src) = (unsafe { PipelineCache::from_handle(src) }) else {
                continue;
            };
            let entries: Vec<_> = src
                .entries
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .iter()
                .map(|(k, b)| (*k, b.clone()))
                .collect();
            for (k, b) in entries {
                dst.insert(k, b);
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_damage_is_ignored() {
        let b = ComputeBinary {
            code: vec![1, 2, 3, 4, 5],
            gpr_halves: 8,
            uniform_halves: 112,
            preloads: vec![
                compiler::UniformPreload {
                    uniform_half: 112,
                    halves: 4,
                    source: PreloadSource::Set { root_offset: 8 },
                    byte_offset: 32,
                },
                compiler::UniformPreload {
                    uniform_half: 116,
                    halves: 2,
                    source: PreloadSource::Constants,
                    byte_offset: 0,
                },
            ],
            constants: vec![0, 0, 0x80, 0x3f],
            preamble: Some(compiler::PreambleCode {
                offset: 16,
                gpr_halves: 24,
                first_half: 252,
                result_halves: 6,
            }),
            scratch_bytes: 0,
            shared_bytes: 256,
            local_size: [64, 2, 1],
            stats: Stats {
                instructions: 9,
                code_bytes: 5,
                gpr_halves: 8,
                spills: 1,
                fills: 2,
                preamble_instructions: 3,
            },
        };
        let plain = ComputeBinary {
            preamble: None,
            ..b.clone()
        };
        let mut bytes = Vec::new();
        serialize_entry(42, &b, &mut bytes);
        serialize_entry(7, &plain, &mut bytes);
        let mut out = BTreeMap::new();
        parse_entries(&bytes, &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(out[&42], b);
        assert_eq!(out[&7], plain);
        let mut out = BTreeMap::new();
        parse_entries(&bytes[..bytes.len() - 1], &mut out);
        assert_eq!(out.keys().copied().collect::<Vec<_>>(), vec![42]);
    }
}
