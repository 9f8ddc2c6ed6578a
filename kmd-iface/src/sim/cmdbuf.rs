//! Parsing and validating SUBMIT's flat command buffer.

use super::params::{MAX_ATTACHMENTS, MAX_COMMANDS};
use super::user::read_extensible;
use crate::uapi::*;
use crate::KmdResult;

const NONE: u16 = DRM_ASAHI_BARRIER_NONE as u16;
const HEADER: usize = size_of::<drm_asahi_cmd_header>();
const ATTACHMENT: usize = size_of::<drm_asahi_attachment>();
const RENDER_FLAGS: u32 = DRM_ASAHI_RENDER_VERTEX_SCRATCH
    | DRM_ASAHI_RENDER_PROCESS_EMPTY_TILES
    | DRM_ASAHI_RENDER_NO_VERTEX_CLUSTERING
    | DRM_ASAHI_RENDER_DBIAS_IS_INT;

/// One hardware command with its payload widened to the struct this kernel knows.
#[derive(Debug)]
pub(crate) enum HwCmd {
    Render(Box<drm_asahi_cmd_render>),
    Compute(drm_asahi_cmd_compute),
}

/// Parse the whole buffer; any malformed byte rejects the submission.
pub(crate) fn parse(bytes: &[u8]) -> KmdResult<Vec<HwCmd>> {
    let mut cmds = Vec::new();
    let (mut renders, mut computes) = (0u16, 0u16);
    let mut at = 0usize;
    while at < bytes.len() {
        let head = bytes.get(at..at + HEADER).ok_or(libc::EINVAL)?;
        let h: drm_asahi_cmd_header = read_extensible(head)?;
        let start = at + HEADER;
        let end = start + usize::from(h.size);
        let payload = bytes.get(start..end).ok_or(libc::EINVAL)?;
        at = end;
        match u32::from(h.cmd_type) {
            DRM_ASAHI_CMD_RENDER | DRM_ASAHI_CMD_COMPUTE => {
                if cmds.len() >= MAX_COMMANDS as usize
                    || !barrier_ok(h.vdm_barrier, renders)
                    || !barrier_ok(h.cdm_barrier, computes)
                {
                    return Err(libc::EINVAL);
                }
                if u32::from(h.cmd_type) == DRM_ASAHI_CMD_RENDER {
                    let r: drm_asahi_cmd_render = read_extensible(payload)?;
                    check_render(&r)?;
                    cmds.push(HwCmd::Render(Box::new(r)));
                    renders += 1;
                } else {
                    let c: drm_asahi_cmd_compute = read_extensible(payload)?;
                    if c.flags != 0 {
                        return Err(libc::EINVAL);
                    }
                    cmds.push(HwCmd::Compute(c));
                    computes += 1;
                }
            }
            DRM_ASAHI_SET_VERTEX_ATTACHMENTS
            | DRM_ASAHI_SET_FRAGMENT_ATTACHMENTS
            | DRM_ASAHI_SET_COMPUTE_ATTACHMENTS => check_attachments(&h, payload)?,
            _ => return Err(libc::EINVAL),
        }
    }
    if cmds.is_empty() {
        return Err(libc::EINVAL);
    }
    Ok(cmds)
}

/// 0 waits on earlier submits, NONE on nothing, N on the first N commands of that subqueue
/// in this submit, which must already have appeared.
fn barrier_ok(barrier: u16, earlier: u16) -> bool {
    barrier == NONE || barrier <= earlier
}

fn check_render(r: &drm_asahi_cmd_render) -> KmdResult {
    let samples_ok = matches!(r.samples, 1 | 2 | 4);
    if r.flags & !RENDER_FLAGS != 0 || !samples_ok || r.width_px == 0 || r.height_px == 0 {
        return Err(libc::EINVAL);
    }
    Ok(())
}

/// Attachments are hints for the firmware's cache handling. The simulated firmware has no use
/// for them, so they are validated and dropped.
fn check_attachments(h: &drm_asahi_cmd_header, payload: &[u8]) -> KmdResult {
    let records = payload.chunks_exact(ATTACHMENT);
    if h.vdm_barrier != NONE || h.cdm_barrier != NONE || !records.remainder().is_empty() {
        return Err(libc::EINVAL);
    }
    if records.len() > MAX_ATTACHMENTS as usize {
        return Err(libc::EINVAL);
    }
    for chunk in records {
        let a: drm_asahi_attachment = read_extensible(chunk)?;
        if a.pad != 0 || a.flags != 0 {
            return Err(libc::EINVAL);
        }
    }
    Ok(())
}
