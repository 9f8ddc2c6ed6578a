//! One driver opened through the real loader with the Khronos validation layer: instance,
//! physical device, a device with the features the scenes may use (those the device has),
//! one queue, and a per-instance sink for validation messages.
//!
//! The loader sees every manifest the harness registered (`VK_DRIVER_FILES` lists them all,
//! set once per process), and each `Driver` picks its physical device by vendor ID, so one
//! process can hold agx4 and lavapipe side by side.

use ash::vk;
use std::ffi::{c_void, CStr};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};

/// A driver to render on: its ICD manifest and the vendor ID of the device it exposes.
#[derive(Clone, Debug)]
pub struct Driver {
    pub name: String,
    pub manifest: PathBuf,
    pub vendor_id: u32,
}

const VENDOR_APPLE: u32 = 0x106b;
const VENDOR_MESA: u32 = 0x10005;

impl Driver {
    /// agx4 as built by cargo beside this test executable (`target/<profile>/libvulkan_agx4.so`).
    pub fn agx4() -> Result<Driver, String> {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let profile = exe
            .parent()
            .and_then(Path::parent)
            .ok_or("test executable has no profile directory")?;
        let lib = profile.join("libvulkan_agx4.so");
        if !lib.exists() {
            return Err(format!(
                "{} is missing: run `cargo build` before `cargo test`",
                lib.display()
            ));
        }
        let dir = std::env::temp_dir().join(format!("agx4-scenes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let manifest = dir.join("agx4_icd.json");
        let json = format!(
            r#"{{"file_format_version": "1.0.1", "ICD": {{"library_path": "{}", "api_version": "1.3.239"}}}}"#,
            lib.display()
        );
        // Tests in this process call this concurrently while other threads' loaders read the
        // manifest: write a private file and rename it over, so a reader never sees it empty.
        if std::fs::read_to_string(&manifest).ok().as_deref() != Some(json.as_str()) {
            let tmp = dir.join(format!("agx4_icd.json.{:?}", std::thread::current().id()));
            std::fs::write(&tmp, &json).map_err(|e| e.to_string())?;
            std::fs::rename(&tmp, &manifest).map_err(|e| e.to_string())?;
        }
        Ok(Driver {
            name: "agx4".into(),
            manifest,
            vendor_id: VENDOR_APPLE,
        })
    }

    /// Mesa's lavapipe, from the system's ICD directory.
    pub fn lavapipe() -> Result<Driver, String> {
        for dir in [
            "/usr/share/vulkan/icd.d",
            "/usr/local/share/vulkan/icd.d",
            "/etc/vulkan/icd.d",
        ] {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            let mut found: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("lvp_icd") && n.ends_with(".json"))
                })
                .collect();
            found.sort_by_key(|p| !p.to_string_lossy().contains(std::env::consts::ARCH));
            if let Some(manifest) = found.into_iter().next() {
                return Ok(Driver {
                    name: "lavapipe".into(),
                    manifest,
                    vendor_id: VENDOR_MESA,
                });
            }
        }
        Err("no lvp_icd*.json found: install mesa-vulkan-drivers".into())
    }
}

/// Registers the manifests with the loader, once per process: the given drivers plus agx4 and
/// lavapipe when they can be found (so tests running in parallel threads agree on the list).
/// Later calls are checked against that list.
pub fn register(drivers: &[&Driver]) -> Result<(), String> {
    static ONCE: Once = Once::new();
    static LIST: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    ONCE.call_once(|| {
        let mut list: Vec<PathBuf> = drivers.iter().map(|d| d.manifest.clone()).collect();
        for d in [Driver::agx4(), Driver::lavapipe()].into_iter().flatten() {
            if !list
                .iter()
                .any(|p| p == &d.manifest || same_library(p, &d.manifest))
            {
                list.push(d.manifest);
            }
        }
        let joined = list
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(":");
        // SAFETY: runs once, before this process loads the Vulkan loader; the Once makes every
        // other thread that wants Vulkan wait here first.
        unsafe {
            std::env::set_var("VK_DRIVER_FILES", joined);
            std::env::set_var("NODEVICE_SELECT", "1");
            std::env::set_var("AGX4_KMD", "sim");
        }
        *LIST.lock().unwrap() = list;
    });
    let list = LIST.lock().map_err(|e| e.to_string())?;
    for d in drivers {
        // agx4's manifest is per process and per call; compare by library instead of path.
        let known = list
            .iter()
            .any(|p| p == &d.manifest || same_library(p, &d.manifest));
        if !known {
            return Err(format!(
                "{} was not registered with the loader in this process",
                d.manifest.display()
            ));
        }
    }
    Ok(())
}

fn same_library(a: &Path, b: &Path) -> bool {
    let lib = |p: &Path| {
        std::fs::read_to_string(p).ok().and_then(|s| {
            s.split("library_path")
                .nth(1)
                .map(|t| t.split('"').nth(2).unwrap_or("").to_string())
        })
    };
    lib(a).is_some() && lib(a) == lib(b)
}

type Sink = Mutex<Vec<String>>;

unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: the layer passes valid callback data for the duration of the call; `user` is the
    // boxed sink of the Gpu that created this messenger, alive until the messenger is destroyed.
    let (msg, sink) = unsafe { ((*data).message_as_c_str(), &*(user as *const Sink)) };
    let msg = msg
        .map(|m| m.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let Ok(mut m) = sink.lock() {
        m.push(format!("{severity:?}: {msg}"));
    }
    vk::FALSE
}

/// The device features scenes may ask for; each is enabled when the device has it. The last
/// three come from extension structures read through vkGetPhysicalDeviceFeatures2KHR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    LogicOp,
    IndependentBlend,
    SampleRateShading,
    FillModeNonSolid,
    WideLines,
    MultiDrawIndirect,
    DrawIndirectFirstInstance,
    FullDrawIndexUint32,
    DepthClamp,
    Multiview,
    ImagelessFramebuffer,
    DynamicRendering,
    /// shaderDrawParameters (VK_KHR_shader_draw_parameters).
    ShaderDrawParameters,
    DepthBiasClamp,
    LargePoints,
}

impl Feature {
    pub const ALL: [Feature; 15] = [
        Feature::LogicOp,
        Feature::IndependentBlend,
        Feature::SampleRateShading,
        Feature::FillModeNonSolid,
        Feature::WideLines,
        Feature::MultiDrawIndirect,
        Feature::DrawIndirectFirstInstance,
        Feature::FullDrawIndexUint32,
        Feature::DepthClamp,
        Feature::Multiview,
        Feature::ImagelessFramebuffer,
        Feature::DynamicRendering,
        Feature::ShaderDrawParameters,
        Feature::DepthBiasClamp,
        Feature::LargePoints,
    ];

    /// The VkPhysicalDeviceFeatures member, for the core features.
    fn core_field(self, f: &mut vk::PhysicalDeviceFeatures) -> Option<&mut vk::Bool32> {
        Some(match self {
            Feature::LogicOp => &mut f.logic_op,
            Feature::IndependentBlend => &mut f.independent_blend,
            Feature::SampleRateShading => &mut f.sample_rate_shading,
            Feature::FillModeNonSolid => &mut f.fill_mode_non_solid,
            Feature::WideLines => &mut f.wide_lines,
            Feature::MultiDrawIndirect => &mut f.multi_draw_indirect,
            Feature::DrawIndirectFirstInstance => &mut f.draw_indirect_first_instance,
            Feature::FullDrawIndexUint32 => &mut f.full_draw_index_uint32,
            Feature::DepthClamp => &mut f.depth_clamp,
            Feature::DepthBiasClamp => &mut f.depth_bias_clamp,
            Feature::LargePoints => &mut f.large_points,
            Feature::Multiview
            | Feature::ImagelessFramebuffer
            | Feature::DynamicRendering
            | Feature::ShaderDrawParameters => return None,
        })
    }
}

/// A set of features: the core ones and those of the extension structures.
#[derive(Clone, Copy, Debug, Default)]
pub struct Features {
    pub core: vk::PhysicalDeviceFeatures,
    pub multiview: bool,
    pub imageless_framebuffer: bool,
    pub dynamic_rendering: bool,
    pub shader_draw_parameters: bool,
}

impl Features {
    pub fn has(&self, f: Feature) -> bool {
        match f {
            Feature::Multiview => self.multiview,
            Feature::ImagelessFramebuffer => self.imageless_framebuffer,
            Feature::DynamicRendering => self.dynamic_rendering,
            Feature::ShaderDrawParameters => self.shader_draw_parameters,
            _ => {
                let mut copy = self.core;
                f.core_field(&mut copy).is_some_and(|b| *b != vk::FALSE)
            }
        }
    }

    /// The wanted features `supported` has.
    fn wanted(supported: &Features) -> Features {
        let mut out = Features {
            multiview: supported.multiview,
            imageless_framebuffer: supported.imageless_framebuffer,
            dynamic_rendering: supported.dynamic_rendering,
            shader_draw_parameters: supported.shader_draw_parameters,
            ..Features::default()
        };
        for f in Feature::ALL {
            if supported.has(f) {
                if let Some(b) = f.core_field(&mut out.core) {
                    *b = vk::TRUE;
                }
            }
        }
        out
    }
}

/// Device extensions scenes may need, each after the extensions it depends on, with those
/// dependencies and whether it also needs VK_KHR_get_physical_device_properties2 on the
/// instance. One is enabled when the device lists it and its dependencies are enabled.
const WANTED_EXTENSIONS: [(&CStr, &[&CStr], bool); 10] = [
    (ash::khr::maintenance1::NAME, &[], false),
    (ash::khr::maintenance2::NAME, &[], false),
    (ash::khr::image_format_list::NAME, &[], false),
    (ash::khr::multiview::NAME, &[], true),
    (
        ash::khr::create_renderpass2::NAME,
        &[ash::khr::multiview::NAME, ash::khr::maintenance2::NAME],
        false,
    ),
    (
        ash::khr::depth_stencil_resolve::NAME,
        &[ash::khr::create_renderpass2::NAME],
        false,
    ),
    (
        ash::khr::dynamic_rendering::NAME,
        &[ash::khr::depth_stencil_resolve::NAME],
        true,
    ),
    (
        ash::khr::imageless_framebuffer::NAME,
        &[
            ash::khr::maintenance2::NAME,
            ash::khr::image_format_list::NAME,
        ],
        true,
    ),
    (ash::ext::custom_border_color::NAME, &[], true),
    (ash::khr::shader_draw_parameters::NAME, &[], true),
];

pub struct Gpu {
    pub driver: Driver,
    _entry: ash::Entry,
    pub instance: ash::Instance,
    pub pdev: vk::PhysicalDevice,
    pub props: vk::PhysicalDeviceProperties,
    pub mem: vk::PhysicalDeviceMemoryProperties,
    /// The features this device was created with (the wanted ones it has).
    pub features: Features,
    /// The device extensions it was created with (the wanted ones it has).
    pub extensions: Vec<&'static CStr>,
    /// VkPhysicalDeviceDepthStencilResolveProperties::independentResolveNone (false without
    /// the extension).
    pub independent_resolve_none: bool,
    /// VK_KHR_create_renderpass2's entry points, when enabled.
    pub rp2: Option<ash::khr::create_renderpass2::Device>,
    /// VK_KHR_dynamic_rendering's entry points, when enabled.
    pub dynamic_rendering: Option<ash::khr::dynamic_rendering::Device>,
    pub device: ash::Device,
    pub queue: vk::Queue,
    pub family: u32,
    pub pool: vk::CommandPool,
    debug_utils: ash::ext::debug_utils::Instance,
    messenger: vk::DebugUtilsMessengerEXT,
    sink: Box<Sink>,
}

fn vkerr(what: &'static str) -> impl Fn(vk::Result) -> String {
    move |e| format!("{what}: {e:?}")
}

impl Gpu {
    pub fn open(driver: &Driver) -> Result<Gpu, String> {
        register(&[driver])?;
        // SAFETY: loading the system's Vulkan loader, as any Vulkan application does.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| format!("libvulkan.so.1: {e}"))?;
        let sink: Box<Sink> = Box::new(Mutex::new(Vec::new()));
        let user = &*sink as *const Sink as *mut c_void;
        let messenger_info = || {
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
                .user_data(user)
        };
        let layers = [c"VK_LAYER_KHRONOS_validation".as_ptr()];
        // SAFETY: a loaded entry.
        let instance_exts = unsafe { entry.enumerate_instance_extension_properties(None) }
            .map_err(vkerr("vkEnumerateInstanceExtensionProperties"))?;
        let props2 = ash::khr::get_physical_device_properties2::NAME;
        let has_props2 = instance_exts
            .iter()
            .any(|e| e.extension_name_as_c_str() == Ok(props2));
        let mut exts = vec![ash::ext::debug_utils::NAME.as_ptr()];
        if has_props2 {
            exts.push(props2.as_ptr());
        }
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_0);
        let mut create_messenger = messenger_info();
        let info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_layer_names(&layers)
            .enabled_extension_names(&exts)
            .push_next(&mut create_messenger);
        // SAFETY: valid create info; the sink outlives the instance (dropped after it).
        let instance = unsafe { entry.create_instance(&info, None) }
            .map_err(vkerr("vkCreateInstance (with VK_LAYER_KHRONOS_validation)"))?;
        let debug_utils = ash::ext::debug_utils::Instance::new(&entry, &instance);
        // SAFETY: valid instance and create info.
        let messenger =
            unsafe { debug_utils.create_debug_utils_messenger(&messenger_info(), None) }
                .map_err(vkerr("vkCreateDebugUtilsMessengerEXT"))?;
        let fail = |e: String| {
            // SAFETY: nothing else was made from this instance.
            unsafe {
                debug_utils.destroy_debug_utils_messenger(messenger, None);
                instance.destroy_instance(None);
            }
            e
        };
        // SAFETY: valid instance.
        let pdevs = unsafe { instance.enumerate_physical_devices() }
            .map_err(vkerr("vkEnumeratePhysicalDevices"))
            .map_err(fail)?;
        // SAFETY: handles from the enumeration above.
        let pdev = pdevs.into_iter().find(|&p| unsafe { instance.get_physical_device_properties(p) }.vendor_id == driver.vendor_id);
        let Some(pdev) = pdev else {
            return Err(fail(format!(
                "no physical device with vendor ID {:#x} ({})",
                driver.vendor_id, driver.name
            )));
        };
        // SAFETY: valid physical device.
        let (props, mem, families, dev_exts) = unsafe {
            (
                instance.get_physical_device_properties(pdev),
                instance.get_physical_device_memory_properties(pdev),
                instance.get_physical_device_queue_family_properties(pdev),
                instance.enumerate_device_extension_properties(pdev),
            )
        };
        let dev_exts = dev_exts
            .map_err(vkerr("vkEnumerateDeviceExtensionProperties"))
            .map_err(fail)?;
        let mut extensions: Vec<&'static CStr> = Vec::new();
        for (name, deps, wants_props2) in WANTED_EXTENSIONS {
            let listed = dev_exts
                .iter()
                .any(|e| e.extension_name_as_c_str() == Ok(name));
            if listed
                && (has_props2 || !wants_props2)
                && deps.iter().all(|d| extensions.contains(d))
            {
                extensions.push(name);
            }
        }
        let has = |n: &CStr| extensions.contains(&n);
        let props2_fns = has_props2
            .then(|| ash::khr::get_physical_device_properties2::Instance::new(&entry, &instance));
        // Only structures of enabled extensions go into the chains, as validation requires.
        let mut mv = vk::PhysicalDeviceMultiviewFeatures::default();
        let mut imageless = vk::PhysicalDeviceImagelessFramebufferFeatures::default();
        let mut dynamic = vk::PhysicalDeviceDynamicRenderingFeatures::default();
        // Custom border colours are enabled as far as the driver has them (scenes need the
        // colours, with or without a format); no scene depends on more.
        let mut border = vk::PhysicalDeviceCustomBorderColorFeaturesEXT::default();
        let mut draw_params = vk::PhysicalDeviceShaderDrawParametersFeatures::default();
        let supported = match &props2_fns {
            Some(p2) => {
                let mut f2 = vk::PhysicalDeviceFeatures2::default();
                if has(ash::khr::multiview::NAME) {
                    f2 = f2.push_next(&mut mv);
                }
                if has(ash::khr::imageless_framebuffer::NAME) {
                    f2 = f2.push_next(&mut imageless);
                }
                if has(ash::khr::dynamic_rendering::NAME) {
                    f2 = f2.push_next(&mut dynamic);
                }
                if has(ash::ext::custom_border_color::NAME) {
                    f2 = f2.push_next(&mut border);
                }
                if has(ash::khr::shader_draw_parameters::NAME) {
                    f2 = f2.push_next(&mut draw_params);
                }
                // SAFETY: valid physical device; the chain holds structures of listed extensions.
                unsafe { p2.get_physical_device_features2(pdev, &mut f2) };
                let core = f2.features;
                Features {
                    core,
                    multiview: mv.multiview != vk::FALSE,
                    imageless_framebuffer: imageless.imageless_framebuffer != vk::FALSE,
                    dynamic_rendering: dynamic.dynamic_rendering != vk::FALSE,
                    shader_draw_parameters: draw_params.shader_draw_parameters != vk::FALSE,
                }
            }
            None => Features {
                // SAFETY: valid physical device.
                core: unsafe { instance.get_physical_device_features(pdev) },
                ..Features::default()
            },
        };
        let Some(family) = families
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::GRAPHICS))
        else {
            return Err(fail(format!("{}: no graphics queue family", driver.name)));
        };
        let features = Features::wanted(&supported);
        let mut resolve = vk::PhysicalDeviceDepthStencilResolveProperties::default();
        if let (Some(p2), true) = (&props2_fns, has(ash::khr::depth_stencil_resolve::NAME)) {
            let mut props = vk::PhysicalDeviceProperties2::default().push_next(&mut resolve);
            // SAFETY: valid physical device; the chain holds a structure of a listed extension.
            unsafe { p2.get_physical_device_properties2(pdev, &mut props) };
        }
        let independent_resolve_none = resolve.independent_resolve_none != vk::FALSE;
        let prio = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family as u32)
            .queue_priorities(&prio)];
        let ext_ptrs: Vec<_> = extensions.iter().map(|e| e.as_ptr()).collect();
        let mut f2 = vk::PhysicalDeviceFeatures2::default().features(features.core);
        let mut mv_on =
            vk::PhysicalDeviceMultiviewFeatures::default().multiview(features.multiview);
        let mut imageless_on = vk::PhysicalDeviceImagelessFramebufferFeatures::default()
            .imageless_framebuffer(features.imageless_framebuffer);
        let mut dynamic_on = vk::PhysicalDeviceDynamicRenderingFeatures::default()
            .dynamic_rendering(features.dynamic_rendering);
        let mut border_on = vk::PhysicalDeviceCustomBorderColorFeaturesEXT::default()
            .custom_border_colors(border.custom_border_colors != vk::FALSE)
            .custom_border_color_without_format(
                border.custom_border_color_without_format != vk::FALSE,
            );
        let mut draw_params_on = vk::PhysicalDeviceShaderDrawParametersFeatures::default()
            .shader_draw_parameters(features.shader_draw_parameters);
        let mut dinfo = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&ext_ptrs);
        if props2_fns.is_some() {
            dinfo = dinfo.push_next(&mut f2);
            if has(ash::khr::multiview::NAME) {
                dinfo = dinfo.push_next(&mut mv_on);
            }
            if has(ash::khr::imageless_framebuffer::NAME) {
                dinfo = dinfo.push_next(&mut imageless_on);
            }
            if has(ash::khr::dynamic_rendering::NAME) {
                dinfo = dinfo.push_next(&mut dynamic_on);
            }
            if has(ash::ext::custom_border_color::NAME) {
                dinfo = dinfo.push_next(&mut border_on);
            }
            if has(ash::khr::shader_draw_parameters::NAME) {
                dinfo = dinfo.push_next(&mut draw_params_on);
            }
        } else {
            dinfo = dinfo.enabled_features(&features.core);
        }
        // SAFETY: valid physical device; features are a subset of the supported ones.
        let device = unsafe { instance.create_device(pdev, &dinfo, None) }
            .map_err(vkerr("vkCreateDevice"))
            .map_err(fail)?;
        let rp2 = has(ash::khr::create_renderpass2::NAME)
            .then(|| ash::khr::create_renderpass2::Device::new(&instance, &device));
        let dynamic_rendering = has(ash::khr::dynamic_rendering::NAME)
            .then(|| ash::khr::dynamic_rendering::Device::new(&instance, &device));
        // SAFETY: queue 0 of `family` was created above.
        let queue = unsafe { device.get_device_queue(family as u32, 0) };
        let pinfo = vk::CommandPoolCreateInfo::default()
            .queue_family_index(family as u32)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY: valid device.
        let pool = match unsafe { device.create_command_pool(&pinfo, None) } {
            Ok(p) => p,
            Err(e) => {
                // SAFETY: nothing else was made from the device.
                unsafe { device.destroy_device(None) };
                return Err(fail(format!("vkCreateCommandPool: {e:?}")));
            }
        };
        Ok(Gpu {
            driver: driver.clone(),
            _entry: entry,
            instance,
            pdev,
            props,
            mem,
            features,
            extensions,
            independent_resolve_none,
            rp2,
            dynamic_rendering,
            device,
            queue,
            family: family as u32,
            pool,
            debug_utils,
            messenger,
            sink,
        })
    }

    pub fn has_extension(&self, name: &CStr) -> bool {
        self.extensions.contains(&name)
    }

    /// The validation messages since the last call.
    pub fn take_messages(&self) -> Vec<String> {
        self.sink
            .lock()
            .map(|mut m| std::mem::take(&mut *m))
            .unwrap_or_default()
    }

    pub fn memory_type(&self, bits: u32, want: vk::MemoryPropertyFlags) -> Result<u32, String> {
        (0..self.mem.memory_type_count)
            .find(|&i| {
                bits & (1 << i) != 0
                    && self.mem.memory_types[i as usize]
                        .property_flags
                        .contains(want)
            })
            .ok_or_else(|| format!("no memory type in {bits:#x} with {want:?}"))
    }

    pub fn format_properties(&self, format: vk::Format) -> vk::FormatProperties {
        // SAFETY: valid physical device.
        unsafe {
            self.instance
                .get_physical_device_format_properties(self.pdev, format)
        }
    }

    /// Whether 2D optimal images of `format` with `usage` exist, and their sample counts.
    pub fn image_support(
        &self,
        format: vk::Format,
        usage: vk::ImageUsageFlags,
    ) -> Option<vk::SampleCountFlags> {
        self.image_limits(format, usage, vk::ImageCreateFlags::empty())
            .map(|p| p.sample_counts)
    }

    /// The limits of 2D optimal images of `format` with `usage` and `flags`, if they exist.
    pub fn image_limits(
        &self,
        format: vk::Format,
        usage: vk::ImageUsageFlags,
        flags: vk::ImageCreateFlags,
    ) -> Option<vk::ImageFormatProperties> {
        // SAFETY: valid physical device.
        unsafe {
            self.instance.get_physical_device_image_format_properties(
                self.pdev,
                format,
                vk::ImageType::TYPE_2D,
                vk::ImageTiling::OPTIMAL,
                usage,
                flags,
            )
        }
        .ok()
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        // SAFETY: every scene's objects were destroyed by its Frame; the device is idle.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_device(None);
            self.debug_utils
                .destroy_debug_utils_messenger(self.messenger, None);
            self.instance.destroy_instance(None);
        }
    }
}
