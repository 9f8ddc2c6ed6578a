//! GEM_BIND_OBJECT: GEM ranges the firmware writes command timestamps into.

use super::gem::{GemObject, GemTable};
use super::table::insert_lowest;
use crate::uapi::*;
use crate::KmdResult;
use hw::uat::is_page_aligned;
use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Debug)]
pub(crate) struct TimestampBuffer {
    obj: Arc<GemObject>,
    offset: u64,
    range: u64,
}

impl TimestampBuffer {
    /// Whether a 64-bit timestamp fits at byte `at` of the range.
    pub(crate) fn fits(&self, at: u32) -> bool {
        u64::from(at)
            .checked_add(8)
            .is_some_and(|e| e <= self.range)
    }

    pub(crate) fn write(&self, at: u32, value: u64) {
        if self.fits(at) {
            self.obj
                .mem
                .write(self.offset + u64::from(at), &value.to_le_bytes());
        }
    }
}

pub(crate) type Objects = BTreeMap<u32, Arc<TimestampBuffer>>;

pub(crate) fn bind_object(
    objects: &mut Objects,
    gem: &GemTable,
    args: &mut drm_asahi_gem_bind_object,
) -> KmdResult {
    if args.pad != 0 || args.vm_id != 0 {
        return Err(libc::EINVAL);
    }
    match args.op {
        DRM_ASAHI_BIND_OBJECT_OP_BIND => {
            if !is_page_aligned(args.offset | args.range) || args.range == 0 {
                return Err(libc::EINVAL);
            }
            if args.flags != DRM_ASAHI_BIND_OBJECT_USAGE_TIMESTAMPS {
                return Err(libc::EINVAL);
            }
            let end = args.offset.checked_add(args.range).ok_or(libc::EINVAL)?;
            let obj = gem.lookup(args.handle)?;
            if end > obj.size {
                return Err(libc::EINVAL);
            }
            let buf = TimestampBuffer {
                obj,
                offset: args.offset,
                range: args.range,
            };
            args.object_handle = insert_lowest(objects, Arc::new(buf))?;
            Ok(())
        }
        DRM_ASAHI_BIND_OBJECT_OP_UNBIND => {
            if args.range != 0 || args.offset != 0 || args.flags != 0 || args.handle != 0 {
                return Err(libc::EINVAL);
            }
            objects
                .remove(&args.object_handle)
                .map(|_| ())
                .ok_or(libc::ENOENT)
        }
        _ => Err(libc::EINVAL),
    }
}
