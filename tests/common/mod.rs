//! Loads agx4 through the real Khronos loader (`libvulkan.so.1`), with `VK_DRIVER_FILES`
//! naming only a manifest for the library cargo just built, and the Khronos validation layer
//! enabled. Every validation message is recorded; tests assert there are none.

#![allow(dead_code)]

pub mod compute;
pub mod render;
pub mod shaders;
pub mod wsi;
pub mod x11;

use ash::vk;
use std::ffi::{c_void, CStr};
use std::path::PathBuf;
use std::sync::{Mutex, Once};

/// The library under test: `target/<profile>/libvulkan_agx4.so`, beside the test's `deps/`.
pub fn library_path() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().unwrap().parent().unwrap();
    let lib = profile_dir.join("libvulkan_agx4.so");
    assert!(
        lib.exists(),
        "{} is missing: run `cargo build` before `cargo test` (scripts/test.sh does)",
        lib.display()
    );
    lib
}

/// Points the loader at agx4 alone. Runs once per test binary, before any Vulkan call.
pub fn use_agx4_only(extra_env: &[(&str, &str)]) {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let dir = std::env::temp_dir().join(format!("agx4-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let manifest = dir.join("agx4_icd.json");
        let json = format!(
            r#"{{"file_format_version": "1.0.1", "ICD": {{"library_path": "{}", "api_version": "1.3.239"}}}}"#,
            library_path().display()
        );
        std::fs::write(&manifest, json).unwrap();
        // SAFETY: called once, before this process starts any thread that reads the environment
        // through the loader (Once serialises the callers).
        unsafe {
            std::env::set_var("VK_DRIVER_FILES", &manifest);
            std::env::set_var("NODEVICE_SELECT", "1");
            std::env::set_var("AGX4_KMD", "sim");
            for (k, v) in extra_env {
                std::env::set_var(k, v);
            }
        }
    });
}

pub static MESSAGES: Mutex<Vec<String>> = Mutex::new(Vec::new());

unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    _user: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: the layer passes valid callback data for the duration of the call.
    let msg = unsafe { (*data).message_as_c_str() }
        .map(|m| m.to_string_lossy().into_owned())
        .unwrap_or_default();
    // A test that failed while holding the lock poisons it; the callback must not panic
    // (it runs inside the driver's call), so it takes the list anyway.
    MESSAGES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(format!("{severity:?}: {msg}"));
    vk::FALSE
}

pub struct Ctx {
    pub entry: ash::Entry,
    pub instance: ash::Instance,
    pub pdev: vk::PhysicalDevice,
    messenger: vk::DebugUtilsMessengerEXT,
    debug_utils: ash::ext::debug_utils::Instance,
}

impl Ctx {
    /// An instance with the validation layer.
    pub fn new() -> Ctx {
        Self::with(true, &[])
    }

    /// An instance without validation, for tests that call the driver wrongly on purpose.
    pub fn without_validation() -> Ctx {
        Self::with(false, &[])
    }

    pub fn with(validation: bool, extra: &[&CStr]) -> Ctx {
        Self::with_api(validation, extra, vk::API_VERSION_1_0)
    }

    /// As [`Ctx::with`], for an application of Vulkan version `api`.
    pub fn with_api(validation: bool, extra: &[&CStr], api: u32) -> Ctx {
        use_agx4_only(&[]);
        // SAFETY: loading the system's Vulkan loader, as any Vulkan application does.
        let entry = unsafe { ash::Entry::load() }.expect("libvulkan.so.1 (install libvulkan1)");
        let layers = if validation {
            vec![c"VK_LAYER_KHRONOS_validation".as_ptr()]
        } else {
            vec![]
        };
        let mut exts = vec![
            ash::ext::debug_utils::NAME.as_ptr(),
            ash::khr::get_physical_device_properties2::NAME.as_ptr(),
        ];
        exts.extend(extra.iter().map(|e| e.as_ptr()));
        let mut messenger_create = messenger_info();
        let app = vk::ApplicationInfo::default().api_version(api);
        let info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_layer_names(&layers)
            .enabled_extension_names(&exts)
            .push_next(&mut messenger_create);
        // SAFETY: valid create info.
        let instance = unsafe { entry.create_instance(&info, None) }
            .expect("vkCreateInstance with validation");
        let debug_utils = ash::ext::debug_utils::Instance::new(&entry, &instance);
        // SAFETY: valid instance and create info.
        let messenger =
            unsafe { debug_utils.create_debug_utils_messenger(&messenger_info(), None) }.unwrap();
        // SAFETY: valid instance.
        let pdevs = unsafe { instance.enumerate_physical_devices() }.unwrap();
        assert_eq!(pdevs.len(), 1, "exactly agx4's simulated device");
        Ctx {
            entry,
            instance,
            pdev: pdevs[0],
            messenger,
            debug_utils,
        }
    }

    /// A device with one queue and the timeline semaphore feature.
    pub fn device(&self) -> (ash::Device, vk::Queue) {
        let prio = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(0)
            .queue_priorities(&prio)];
        let exts = [ash::khr::timeline_semaphore::NAME.as_ptr()];
        let mut timeline =
            vk::PhysicalDeviceTimelineSemaphoreFeatures::default().timeline_semaphore(true);
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&exts)
            .push_next(&mut timeline);
        // SAFETY: valid physical device and create info.
        let device =
            unsafe { self.instance.create_device(self.pdev, &info, None) }.expect("vkCreateDevice");
        // SAFETY: family 0, index 0 was created above.
        let queue = unsafe { device.get_device_queue(0, 0) };
        (device, queue)
    }
}

fn messenger_info() -> vk::DebugUtilsMessengerCreateInfoEXT<'static> {
    vk::DebugUtilsMessengerCreateInfoEXT::default()
        .message_severity(
            vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
        )
        .message_type(
            vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
        )
        .pfn_user_callback(Some(on_message))
}

impl Drop for Ctx {
    fn drop(&mut self) {
        // SAFETY: everything made from this instance has been destroyed by the test.
        unsafe {
            self.debug_utils
                .destroy_debug_utils_messenger(self.messenger, None);
            self.instance.destroy_instance(None);
        }
    }
}

/// Fails the test if the validation layer said anything.
pub fn assert_no_validation_messages() {
    let msgs = MESSAGES.lock().unwrap_or_else(|e| e.into_inner());
    assert!(msgs.is_empty(), "validation messages:\n{}", msgs.join("\n"));
}

/// A command pool of queue family 0 and one primary command buffer from it, recording.
pub struct OneShot {
    pub pool: vk::CommandPool,
    pub cb: vk::CommandBuffer,
}

impl OneShot {
    pub fn begin(dev: &ash::Device) -> OneShot {
        // SAFETY: valid device and infos.
        unsafe {
            let pool = dev
                .create_command_pool(
                    &vk::CommandPoolCreateInfo::default().queue_family_index(0),
                    None,
                )
                .unwrap();
            let cb = dev
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(pool)
                        .command_buffer_count(1),
                )
                .unwrap()[0];
            dev.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            OneShot { pool, cb }
        }
    }

    /// Ends the recording, submits it to `queue` (queue family 0's), waits until it
    /// completes and destroys the pool.
    pub fn submit_and_wait(self, dev: &ash::Device, queue: vk::Queue) {
        // SAFETY: valid device, queue and infos; the GPU is idle when the pool is destroyed.
        unsafe {
            dev.end_command_buffer(self.cb).unwrap();
            let fence = dev
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .unwrap();
            dev.queue_submit(
                queue,
                &[vk::SubmitInfo::default().command_buffers(&[self.cb])],
                fence,
            )
            .unwrap();
            dev.wait_for_fences(&[fence], true, 10_000_000_000)
                .expect("the submission completes");
            dev.destroy_fence(fence, None);
            dev.destroy_command_pool(self.pool, None);
        }
    }
}

/// Records one command buffer with `record`, submits it to `queue` (queue family 0's) and
/// waits until it completes; the command pool is gone afterwards.
pub fn submit_and_wait(
    dev: &ash::Device,
    queue: vk::Queue,
    record: impl FnOnce(vk::CommandBuffer),
) {
    let shot = OneShot::begin(dev);
    record(shot.cb);
    shot.submit_and_wait(dev, queue);
}
