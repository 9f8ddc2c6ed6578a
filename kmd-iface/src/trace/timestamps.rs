//! The bytes a replay may legitimately get different: command timestamps.
//!
//! The firmware writes the GPU clock into timestamp objects (GEM_BIND_OBJECT with
//! USAGE_TIMESTAMPS) when a command starts and ends. A replay runs at another time, so those
//! 8-byte slots differ by nature. Both the recorder and the replayer learn where the slots
//! are from the same calls (the bind records and each SUBMIT's command buffer) and leave
//! exactly those bytes out of the final-contents hash; every other byte must match.

use crate::uapi::*;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Default)]
pub(crate) struct TimestampSlots {
    /// Bound timestamp object -> (GEM handle, byte offset of the bound range).
    objects: BTreeMap<u32, (u32, u64)>,
    /// (GEM handle, byte offset) of every slot some command named.
    slots: BTreeSet<(u32, u64)>,
}

impl TimestampSlots {
    pub(crate) fn bind(&mut self, op: u32, handle: u32, offset: u64, object_handle: u32) {
        if op == DRM_ASAHI_BIND_OBJECT_OP_BIND {
            self.objects.insert(object_handle, (handle, offset));
        } else {
            self.objects.remove(&object_handle);
        }
    }

    /// Notes the timestamp targets of every command in a SUBMIT command buffer. Malformed
    /// buffers were refused by the kernel before this is called, but parse defensively.
    pub(crate) fn submit(&mut self, cmdbuf: &[u8]) {
        let head = size_of::<drm_asahi_cmd_header>();
        let mut at = 0usize;
        while at + head <= cmdbuf.len() {
            let ty = u16::from_le_bytes([cmdbuf[at], cmdbuf[at + 1]]);
            let size = usize::from(u16::from_le_bytes([cmdbuf[at + 2], cmdbuf[at + 3]]));
            let body = at + head;
            let Some(payload) = cmdbuf.get(body..body + size) else {
                return;
            };
            let fields: &[usize] = match u32::from(ty) {
                DRM_ASAHI_CMD_COMPUTE => &[std::mem::offset_of!(drm_asahi_cmd_compute, ts)],
                DRM_ASAHI_CMD_RENDER => &[
                    std::mem::offset_of!(drm_asahi_cmd_render, ts_vtx),
                    std::mem::offset_of!(drm_asahi_cmd_render, ts_frag),
                ],
                _ => &[],
            };
            for &f in fields {
                // drm_asahi_timestamps: start {handle, offset}, end {handle, offset}.
                for pair in 0..2 {
                    let p = f + pair * 8;
                    let Some(b) = payload.get(p..p + 8) else {
                        continue;
                    };
                    let object = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                    let offset = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
                    if let Some(&(gem, base)) = self.objects.get(&object) {
                        self.slots.insert((gem, base + u64::from(offset)));
                    }
                }
            }
            at = body + size;
        }
    }

    /// The content hash of object `handle` with its timestamp slots zeroed.
    pub(crate) fn hash(&self, handle: u32, contents: &[u8]) -> u64 {
        let mut c = contents.to_vec();
        for &(_, off) in self.slots.range((handle, 0)..=(handle, u64::MAX)) {
            if let Some(s) = usize::try_from(off)
                .ok()
                .and_then(|o| c.get_mut(o..o.checked_add(8)?))
            {
                s.fill(0);
            }
        }
        super::content_hash(&c)
    }

    /// Forgets the slots of a closed object (its handle may be reused).
    pub(crate) fn close(&mut self, handle: u32) {
        self.slots.retain(|s| s.0 != handle);
    }
}
