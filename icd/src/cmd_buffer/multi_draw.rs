//! VK_EXT_multi_draw: vkCmdDrawMultiEXT and vkCmdDrawMultiIndexedEXT. The draws become
//! indirect draw records in the command buffer's upload memory, drawn as
//! vkCmdDraw(Indexed)Indirect draws them, so each one sees its own gl_DrawID and
//! conditional rendering, transform feedback and queries treat them alike.

use super::draw::draw_records;
use super::record;
use super::LiveCommandBuffer;
use ash::vk;

/// Most draws one command takes (maxMultiDrawCount).
pub const MAX_MULTI_DRAW_COUNT: u32 = 2048;

/// The `count` structures of `stride` bytes at `p`, each read as `T`.
///
/// # Safety
/// `p` points to `count` readable `T`s, `stride` bytes apart (valid usage of both commands).
unsafe fn each<T: Copy>(p: *const T, count: u32, stride: u32) -> Vec<T> {
    (0..count as usize)
        .map(|i| {
            // SAFETY: the caller's valid usage: element i lies i * stride bytes from p.
            unsafe {
                std::ptr::read_unaligned((p as *const u8).add(i * stride as usize) as *const T)
            }
        })
        .collect()
}

fn bytes(words: impl IntoIterator<Item = u32>) -> Vec<u8> {
    words.into_iter().flat_map(u32::to_le_bytes).collect()
}

pub unsafe extern "system" fn cmd_draw_multi(
    cb: vk::CommandBuffer,
    count: u32,
    p_vertex_info: *const vk::MultiDrawInfoEXT,
    instances: u32,
    first_instance: u32,
    stride: u32,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdDrawMultiEXT", cb, |dev, rec| {
        if count == 0 || instances == 0 {
            return Ok(());
        }
        // SAFETY: valid usage: pVertexInfo holds drawCount structures, stride apart.
        let draws = unsafe { each(p_vertex_info, count, stride) };
        let records = bytes(
            draws
                .iter()
                .flat_map(|d| [d.vertex_count, instances, d.first_vertex, first_instance]),
        );
        let base = rec.upload.push(dev, &records, 4)?;
        let most = draws.iter().map(|d| d.vertex_count).max().unwrap_or(0);
        rec.known_args = Some((most, instances));
        let r = draw_records(dev, rec, base, count, 16, false, None);
        rec.known_args = None;
        r
    })
}

pub unsafe extern "system" fn cmd_draw_multi_indexed(
    cb: vk::CommandBuffer,
    count: u32,
    p_index_info: *const vk::MultiDrawIndexedInfoEXT,
    instances: u32,
    first_instance: u32,
    stride: u32,
    p_vertex_offset: *const i32,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdDrawMultiIndexedEXT", cb, |dev, rec| {
        if count == 0 || instances == 0 {
            return Ok(());
        }
        // SAFETY: valid usage: pIndexInfo holds drawCount structures, stride apart.
        let draws = unsafe { each(p_index_info, count, stride) };
        // SAFETY: valid usage: pVertexOffset is null or points to one i32.
        let shared_offset = unsafe { p_vertex_offset.as_ref() }.copied();
        let records = bytes(draws.iter().flat_map(|d| {
            let offset = shared_offset.unwrap_or(d.vertex_offset);
            [
                d.index_count,
                instances,
                d.first_index,
                offset as u32,
                first_instance,
            ]
        }));
        let base = rec.upload.push(dev, &records, 4)?;
        let most = draws.iter().map(|d| d.index_count).max().unwrap_or(0);
        rec.known_args = Some((most, instances));
        let r = draw_records(dev, rec, base, count, 20, true, None);
        rec.known_args = None;
        r
    })
}
