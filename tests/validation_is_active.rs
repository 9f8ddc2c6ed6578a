//! The validation harness itself: with the layer on, an invalid call is reported. Without this
//! check, "zero validation messages" in the other tests could mean the layer never ran.

mod common;

use ash::vk;
use common::{Ctx, MESSAGES};

#[test]
fn an_invalid_call_is_reported() {
    let ctx = Ctx::new();
    let (dev, _queue) = ctx.device();
    // SAFETY: the create info is invalid on purpose (size 0), which the layer reports before
    // the driver sees it; the driver copes with it either way.
    unsafe {
        if let Ok(b) = dev.create_buffer(
            &vk::BufferCreateInfo::default()
                .size(0)
                .usage(vk::BufferUsageFlags::STORAGE_BUFFER),
            None,
        ) {
            dev.destroy_buffer(b, None);
        }
        dev.destroy_device(None);
    }
    let msgs = MESSAGES.lock().unwrap();
    assert!(
        msgs.iter()
            .any(|m| m.contains("VUID-VkBufferCreateInfo-size")),
        "no validation message: {msgs:?}"
    );
}
