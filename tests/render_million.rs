//! One million tiny triangles on agx4 and on lavapipe, compared pixel by pixel, under the
//! validation layer (which must stay silent).
//!
//! The scene: two layers, each a 500x500 grid of cells split into two triangles (500,000
//! triangles a layer), covering a 256x256 R8G8B8A8_UNORM target: cells are 0.512 pixels wide,
//! so each triangle is about an eighth of a pixel in area. One indexed draw (uint32 indices:
//! the 502,002 vertices exceed the 16-bit range) with a position and a colour per vertex and a
//! D32_SFLOAT depth test (LESS).
//! Depth and colour are linear functions of the vertex's grid position, different for each
//! layer, and the two depth planes cross along 3x + 2y = 768 (pixels), which no pixel centre
//! lies on. So the expected image is known without rasterizing: at each pixel centre the
//! nearer layer's colour function, which interpolation across whichever tiny triangle covers
//! the centre reproduces exactly up to float rounding. The rows of the two layers are
//! interleaved in the index buffer so the depth test both passes and fails.
//!
//! Tolerance: 2 codes of 255 per colour channel (float interpolation then rounding to UNORM8),
//! alpha exact, no pixel allowed beyond it: lavapipe against this expectation, agx4 against
//! lavapipe and against the expectation. A wrong index (a 16-bit truncation, a bad vertex
//! fetch), a crack between triangles, a wrong depth test or the wrong layer all show up as
//! differences far beyond the tolerance.
//!
//! agx4 is skipped, with the reason printed, while it does not advertise the formats the scene
//! needs. Run after `cargo build` (the test loads `target/<profile>/libvulkan_agx4.so`).

use ash::vk;
use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

const GLSLANG: &str = "/usr/bin/glslangValidator";
const LAVAPIPE_MANIFEST: &str = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";
const VENDOR_APPLE: u32 = 0x106b;
const SIZE: u32 = 256;
/// Grid cells per side of each layer: 2 x 500 x 500 x 2 triangles = 1,000,000.
const CELLS: u32 = 500;
const COLOR_FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;
const DEPTH_FORMAT: vk::Format = vk::Format::D32_SFLOAT;
const ATTR_FORMAT: vk::Format = vk::Format::R32G32B32_SFLOAT;
const VERTEX_FLOATS: usize = 6;
const TOLERANCE: u8 = 2;

const VERT: &str = r#"#version 450
layout(location = 0) in vec3 pos;
layout(location = 1) in vec3 col;
layout(location = 0) out vec3 v_col;
void main() {
    v_col = col;
    gl_Position = vec4(pos, 1.0);
}
"#;

const FRAG: &str = r#"#version 450
layout(location = 0) in vec3 v_col;
layout(location = 0) out vec4 colour;
void main() {
    colour = vec4(v_col, 1.0);
}
"#;

// ---------------------------------------------------------------------------------------------
// The scene and its expected image.

/// Depth of layer `l` at (u, v) in [0, 1]^2 across the target. The planes are equal where
/// 0.6u + 0.4v = 0.6, i.e. 3x + 2y = 768 in pixels; pixel centres give 3x + 2y = integer +
/// 0.5, so the nearer layer differs from the farther one by at least 0.1/256 at every centre.
fn layer_depth(l: usize, u: f64, v: f64) -> f64 {
    if l == 0 {
        0.2 + 0.3 * u + 0.2 * v
    } else {
        0.8 - 0.3 * u - 0.2 * v
    }
}

/// Colour of layer `l` at (u, v): blue tells the layers apart everywhere.
fn layer_colour(l: usize, u: f64, v: f64) -> [f64; 3] {
    if l == 0 {
        [u, v, 0.0]
    } else {
        [1.0 - v, 0.25 + 0.5 * u, 1.0]
    }
}

struct Scene {
    vertices: Vec<f32>,
    indices: Vec<u32>,
}

fn scene() -> Scene {
    let n = CELLS as usize + 1;
    let mut vertices = Vec::with_capacity(2 * n * n * VERTEX_FLOATS);
    for l in 0..2 {
        for j in 0..n {
            for i in 0..n {
                let (u, v) = (i as f64 / f64::from(CELLS), j as f64 / f64::from(CELLS));
                vertices.extend([
                    (2.0 * u - 1.0) as f32,
                    (2.0 * v - 1.0) as f32,
                    layer_depth(l, u, v) as f32,
                ]);
                vertices.extend(layer_colour(l, u, v).map(|c| c as f32));
            }
        }
    }
    let mut indices = Vec::with_capacity(2 * 6 * (CELLS * CELLS) as usize);
    for row in 0..CELLS as usize {
        let order = if row % 2 == 0 { [0, 1] } else { [1, 0] };
        for l in order {
            let base = l * n * n;
            for col in 0..CELLS as usize {
                let v00 = (base + row * n + col) as u32;
                let (v10, v01, v11) = (v00 + 1, v00 + n as u32, v00 + n as u32 + 1);
                indices.extend([v00, v10, v11, v00, v11, v01]);
            }
        }
    }
    Scene { vertices, indices }
}

fn unorm8(v: f64) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

fn expected() -> Vec<u8> {
    let mut rgba = Vec::with_capacity((SIZE * SIZE * 4) as usize);
    for y in 0..SIZE {
        for x in 0..SIZE {
            let (u, v) = (
                (f64::from(x) + 0.5) / f64::from(SIZE),
                (f64::from(y) + 0.5) / f64::from(SIZE),
            );
            let l = if layer_depth(0, u, v) < layer_depth(1, u, v) {
                0
            } else {
                1
            };
            rgba.extend(layer_colour(l, u, v).map(unorm8));
            rgba.push(255);
        }
    }
    rgba
}

/// A pixel beyond the tolerance: (x, y), the pixel got, the pixel wanted.
type BadPixel = (u32, u32, [u8; 4], [u8; 4]);

/// The pixels where `got` differs from `want` by more than the tolerance (any channel; alpha
/// must match exactly), and the largest colour difference.
fn differences(got: &[u8], want: &[u8]) -> (Vec<BadPixel>, u8) {
    let mut bad = Vec::new();
    let mut worst = 0;
    for (i, (g, w)) in got.chunks_exact(4).zip(want.chunks_exact(4)).enumerate() {
        let d = g[..3]
            .iter()
            .zip(&w[..3])
            .map(|(a, b)| a.abs_diff(*b))
            .max()
            .unwrap_or(0);
        worst = worst.max(d);
        if d > TOLERANCE || g[3] != w[3] {
            let i = i as u32;
            bad.push((
                i % SIZE,
                i / SIZE,
                [g[0], g[1], g[2], g[3]],
                [w[0], w[1], w[2], w[3]],
            ));
        }
    }
    (bad, worst)
}

fn check(what: &str, got: &[u8], want: &[u8]) -> Result<(), String> {
    let (bad, worst) = differences(got, want);
    println!(
        "{what}: {} of {} pixels beyond {TOLERANCE}/255 (largest colour difference {worst})",
        bad.len(),
        SIZE * SIZE
    );
    if bad.is_empty() {
        return Ok(());
    }
    let first: Vec<String> = bad
        .iter()
        .take(8)
        .map(|(x, y, g, w)| format!("({x},{y}) got {g:?} want {w:?}"))
        .collect();
    Err(format!(
        "{what}: {} pixels differ, first: {}",
        bad.len(),
        first.join(", ")
    ))
}

// ---------------------------------------------------------------------------------------------
// Loader set-up: agx4 and lavapipe in one instance, with the validation layer.

fn agx4_library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(Path::parent).unwrap();
    let lib = profile_dir.join("libvulkan_agx4.so");
    assert!(
        lib.exists(),
        "{} is missing: run `cargo build` before `cargo test`",
        lib.display()
    );
    lib
}

static MESSAGES: Mutex<Vec<String>> = Mutex::new(Vec::new());

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
    if let Ok(mut m) = MESSAGES.lock() {
        m.push(format!("{severity:?}: {msg}"));
    }
    vk::FALSE
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

fn glslang(dir: &Path, name: &str, src: &str) -> Vec<u32> {
    let path = dir.join(name);
    let spv = dir.join(format!("{name}.spv"));
    std::fs::write(&path, src).unwrap();
    let o = Command::new(GLSLANG)
        .args(["-V", "--target-env", "vulkan1.0", "-o"])
        .arg(&spv)
        .arg(&path)
        .output()
        .unwrap_or_else(|e| panic!("running {GLSLANG} (install glslang-tools): {e}"));
    assert!(
        o.status.success(),
        "glslangValidator failed on {name}:\n{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    ash::util::read_spv(&mut std::io::Cursor::new(std::fs::read(&spv).unwrap())).unwrap()
}

#[test]
fn million_triangles_agx4_vs_lavapipe() {
    let start = Instant::now();
    let dir = std::env::temp_dir().join(format!("agx4-million-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = dir.join("agx4_icd.json");
    std::fs::write(
        &manifest,
        format!(r#"{{"file_format_version": "1.0.1", "ICD": {{"library_path": "{}", "api_version": "1.3.239"}}}}"#, agx4_library().display()),
    )
    .unwrap();
    assert!(
        Path::new(LAVAPIPE_MANIFEST).exists(),
        "{LAVAPIPE_MANIFEST} is missing: install mesa-vulkan-drivers"
    );
    // SAFETY: the only test in this binary; no thread has loaded the Vulkan loader yet.
    unsafe {
        std::env::set_var(
            "VK_DRIVER_FILES",
            format!("{}:{LAVAPIPE_MANIFEST}", manifest.display()),
        );
        std::env::set_var("NODEVICE_SELECT", "1");
        std::env::set_var("AGX4_KMD", "sim");
    }
    let vert = glslang(&dir, "million.vert", VERT);
    let frag = glslang(&dir, "million.frag", FRAG);
    let t = Instant::now();
    let s = scene();
    let want = expected();
    println!(
        "scene: {} triangles, {} vertices, {} uint32 indices, {SIZE}x{SIZE} target ({:.0} ms to build with its expectation)",
        s.indices.len() / 3,
        s.vertices.len() / VERTEX_FLOATS,
        s.indices.len(),
        t.elapsed().as_secs_f64() * 1e3
    );
    assert_eq!(s.indices.len(), 3_000_000);

    // SAFETY: loading the system's Vulkan loader.
    let entry = unsafe { ash::Entry::load() }.expect("libvulkan.so.1 (install libvulkan1)");
    let layers = [c"VK_LAYER_KHRONOS_validation".as_ptr()];
    let exts = [ash::ext::debug_utils::NAME.as_ptr()];
    let mut mcreate = messenger_info();
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_0);
    let info = vk::InstanceCreateInfo::default()
        .application_info(&app)
        .enabled_layer_names(&layers)
        .enabled_extension_names(&exts)
        .push_next(&mut mcreate);
    // SAFETY: valid create info.
    let instance = unsafe { entry.create_instance(&info, None) }
        .expect("vkCreateInstance with the validation layer");
    let debug_utils = ash::ext::debug_utils::Instance::new(&entry, &instance);
    // SAFETY: valid instance and create info.
    let messenger =
        unsafe { debug_utils.create_debug_utils_messenger(&messenger_info(), None) }.unwrap();
    // SAFETY: valid instance.
    let pdevs = unsafe { instance.enumerate_physical_devices() }.unwrap();
    // SAFETY: physical devices of this instance.
    let vendor =
        |p: vk::PhysicalDevice| unsafe { instance.get_physical_device_properties(p) }.vendor_id;
    let agx4 = pdevs
        .iter()
        .copied()
        .find(|&p| vendor(p) == VENDOR_APPLE)
        .expect("agx4's device");
    let lvp = pdevs
        .iter()
        .copied()
        .find(|&p| vendor(p) != VENDOR_APPLE)
        .expect("lavapipe's device");

    let outcome = (|| -> Result<(), String> {
        if let Some(why) = missing(&instance, lvp, &s) {
            return Err(format!("lavapipe cannot run the scene: {why}"));
        }
        let (limage, ltime) = render(&instance, lvp, &s, &vert, &frag)?;
        println!("lavapipe: rendered in {:.0} ms", ltime.as_secs_f64() * 1e3);
        check("lavapipe vs expectation", &limage, &want)?;
        if let Some(why) = missing(&instance, agx4, &s) {
            println!("agx4: SKIPPED, it does not advertise what the scene needs: {why}");
            return Ok(());
        }
        let (aimage, atime) =
            render(&instance, agx4, &s, &vert, &frag).map_err(|e| format!("agx4: {e}"))?;
        println!("agx4: rendered in {:.0} ms", atime.as_secs_f64() * 1e3);
        let vs_lvp = check("agx4 vs lavapipe", &aimage, &limage);
        let vs_want = check("agx4 vs expectation", &aimage, &want);
        vs_lvp.and(vs_want)
    })();

    // SAFETY: every device was destroyed by `render`.
    unsafe {
        debug_utils.destroy_debug_utils_messenger(messenger, None);
        instance.destroy_instance(None);
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "render_million: {:.1} s in all",
        start.elapsed().as_secs_f64()
    );
    if let Err(e) = outcome {
        panic!("{e}");
    }
    let msgs = MESSAGES.lock().unwrap();
    assert!(msgs.is_empty(), "validation messages:\n{}", msgs.join("\n"));
}

/// What the device lacks for the scene.
fn missing(instance: &ash::Instance, pdev: vk::PhysicalDevice, s: &Scene) -> Option<String> {
    let mut why = Vec::new();
    // SAFETY: valid physical device.
    let fp = |f| unsafe { instance.get_physical_device_format_properties(pdev, f) };
    let image_ok = |f, usage| {
        // SAFETY: valid physical device.
        let r = unsafe {
            instance.get_physical_device_image_format_properties(
                pdev,
                f,
                vk::ImageType::TYPE_2D,
                vk::ImageTiling::OPTIMAL,
                usage,
                vk::ImageCreateFlags::empty(),
            )
        };
        r.is_ok_and(|p| p.max_extent.width >= SIZE && p.max_extent.height >= SIZE)
    };
    let color_usage = vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC;
    if !fp(COLOR_FORMAT)
        .optimal_tiling_features
        .contains(vk::FormatFeatureFlags::COLOR_ATTACHMENT)
    {
        why.push(format!(
            "{COLOR_FORMAT:?} has no COLOR_ATTACHMENT format feature"
        ));
    } else if !image_ok(COLOR_FORMAT, color_usage) {
        why.push(format!(
            "{SIZE}x{SIZE} {COLOR_FORMAT:?} images with {color_usage:?} are not supported"
        ));
    }
    if !fp(DEPTH_FORMAT)
        .optimal_tiling_features
        .contains(vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT)
    {
        why.push(format!(
            "{DEPTH_FORMAT:?} has no DEPTH_STENCIL_ATTACHMENT format feature"
        ));
    } else if !image_ok(DEPTH_FORMAT, vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT) {
        why.push(format!(
            "{DEPTH_FORMAT:?} depth attachments are not supported"
        ));
    }
    if !fp(ATTR_FORMAT)
        .buffer_features
        .contains(vk::FormatFeatureFlags::VERTEX_BUFFER)
    {
        why.push(format!(
            "{ATTR_FORMAT:?} has no VERTEX_BUFFER format feature"
        ));
    }
    // SAFETY: valid physical device.
    let families = unsafe { instance.get_physical_device_queue_family_properties(pdev) };
    if !families
        .iter()
        .any(|f| f.queue_flags.contains(vk::QueueFlags::GRAPHICS))
    {
        why.push("no queue family with GRAPHICS".into());
    }
    // SAFETY: valid physical device.
    let limits = unsafe { instance.get_physical_device_properties(pdev) }.limits;
    let max_index = s.indices.iter().copied().max().unwrap_or(0);
    if limits.max_draw_indexed_index_value < max_index {
        why.push(format!(
            "maxDrawIndexedIndexValue {} < {max_index}",
            limits.max_draw_indexed_index_value
        ));
    }
    if why.is_empty() {
        None
    } else {
        Some(why.join("; "))
    }
}

// ---------------------------------------------------------------------------------------------
// The Vulkan program: the same on both drivers.

/// Objects to free, in creation order; freed in reverse whatever happened.
#[derive(Default)]
struct Objects {
    buffers: Vec<(vk::Buffer, vk::DeviceMemory)>,
    images: Vec<(vk::Image, vk::DeviceMemory)>,
    views: Vec<vk::ImageView>,
    render_pass: vk::RenderPass,
    framebuffer: vk::Framebuffer,
    modules: Vec<vk::ShaderModule>,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
    pool: vk::CommandPool,
    fence: vk::Fence,
}

impl Objects {
    fn destroy(&mut self, d: &ash::Device) {
        // SAFETY: the device is idle and each object is destroyed once.
        unsafe {
            let _ = d.device_wait_idle();
            d.destroy_fence(self.fence, None);
            d.destroy_command_pool(self.pool, None);
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_pipeline_layout(self.layout, None);
            for m in self.modules.drain(..) {
                d.destroy_shader_module(m, None);
            }
            d.destroy_framebuffer(self.framebuffer, None);
            d.destroy_render_pass(self.render_pass, None);
            for v in self.views.drain(..) {
                d.destroy_image_view(v, None);
            }
            for (i, m) in self.images.drain(..) {
                d.destroy_image(i, None);
                d.free_memory(m, None);
            }
            for (b, m) in self.buffers.drain(..) {
                d.destroy_buffer(b, None);
                d.free_memory(m, None);
            }
        }
    }
}

fn vkerr(what: &'static str) -> impl Fn(vk::Result) -> String {
    move |e| format!("{what}: {e:?}")
}

/// Renders the scene once on `pdev`: the image read back, and the time from submit to fence.
fn render(
    instance: &ash::Instance,
    pdev: vk::PhysicalDevice,
    s: &Scene,
    vert: &[u32],
    frag: &[u32],
) -> Result<(Vec<u8>, Duration), String> {
    // SAFETY: valid physical device.
    let families = unsafe { instance.get_physical_device_queue_family_properties(pdev) };
    let family = families
        .iter()
        .position(|f| f.queue_flags.contains(vk::QueueFlags::GRAPHICS))
        .ok_or("no graphics queue")? as u32;
    let prio = [1.0f32];
    let qinfo = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(family)
        .queue_priorities(&prio)];
    // SAFETY: valid physical device and create info.
    let device = unsafe {
        instance.create_device(
            pdev,
            &vk::DeviceCreateInfo::default().queue_create_infos(&qinfo),
            None,
        )
    }
    .map_err(vkerr("vkCreateDevice"))?;
    // SAFETY: valid physical device.
    let mem = unsafe { instance.get_physical_device_memory_properties(pdev) };
    let mut o = Objects::default();
    let r = build_and_run(&device, family, &mem, &mut o, s, vert, frag);
    o.destroy(&device);
    // SAFETY: every child object was destroyed.
    unsafe { device.destroy_device(None) };
    r
}

fn memory_type(
    mem: &vk::PhysicalDeviceMemoryProperties,
    bits: u32,
    want: vk::MemoryPropertyFlags,
) -> Option<u32> {
    (0..mem.memory_type_count).find(|&i| {
        bits & (1 << i) != 0 && mem.memory_types[i as usize].property_flags.contains(want)
    })
}

/// A host-visible buffer holding `data` (or zeros past it), and its mapping.
fn host_buffer(
    d: &ash::Device,
    mem: &vk::PhysicalDeviceMemoryProperties,
    o: &mut Objects,
    size: usize,
    usage: vk::BufferUsageFlags,
    data: &[u8],
) -> Result<(vk::Buffer, *mut u8), String> {
    // SAFETY: valid create and allocate infos; the memory is bound before use and stays mapped
    // until it is freed.
    unsafe {
        let buffer = d
            .create_buffer(
                &vk::BufferCreateInfo::default()
                    .size(size as u64)
                    .usage(usage),
                None,
            )
            .map_err(vkerr("vkCreateBuffer"))?;
        let req = d.get_buffer_memory_requirements(buffer);
        let Some(ty) = memory_type(
            mem,
            req.memory_type_bits,
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
        ) else {
            d.destroy_buffer(buffer, None);
            return Err("no host-visible coherent memory for a buffer".into());
        };
        let memory = match d.allocate_memory(
            &vk::MemoryAllocateInfo::default()
                .allocation_size(req.size)
                .memory_type_index(ty),
            None,
        ) {
            Ok(m) => m,
            Err(e) => {
                d.destroy_buffer(buffer, None);
                return Err(format!("vkAllocateMemory of {} bytes: {e:?}", req.size));
            }
        };
        o.buffers.push((buffer, memory));
        d.bind_buffer_memory(buffer, memory, 0)
            .map_err(vkerr("vkBindBufferMemory"))?;
        let ptr = d
            .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
            .map_err(vkerr("vkMapMemory"))? as *mut u8;
        std::slice::from_raw_parts_mut(ptr, size)[..data.len()].copy_from_slice(data);
        Ok((buffer, ptr))
    }
}

fn image(
    d: &ash::Device,
    mem: &vk::PhysicalDeviceMemoryProperties,
    o: &mut Objects,
    format: vk::Format,
    usage: vk::ImageUsageFlags,
    aspect: vk::ImageAspectFlags,
) -> Result<(vk::Image, vk::ImageView), String> {
    let info = vk::ImageCreateInfo::default()
        .image_type(vk::ImageType::TYPE_2D)
        .format(format)
        .extent(vk::Extent3D {
            width: SIZE,
            height: SIZE,
            depth: 1,
        })
        .mip_levels(1)
        .array_layers(1)
        .samples(vk::SampleCountFlags::TYPE_1)
        .tiling(vk::ImageTiling::OPTIMAL)
        .usage(usage)
        .initial_layout(vk::ImageLayout::UNDEFINED);
    // SAFETY: valid create infos; the memory is bound before the view is made.
    unsafe {
        let image = d
            .create_image(&info, None)
            .map_err(|e| format!("vkCreateImage {format:?}: {e:?}"))?;
        let req = d.get_image_memory_requirements(image);
        let ty = memory_type(
            mem,
            req.memory_type_bits,
            vk::MemoryPropertyFlags::DEVICE_LOCAL,
        )
        .or_else(|| memory_type(mem, req.memory_type_bits, vk::MemoryPropertyFlags::empty()));
        let memory = match ty.map(|ty| {
            d.allocate_memory(
                &vk::MemoryAllocateInfo::default()
                    .allocation_size(req.size)
                    .memory_type_index(ty),
                None,
            )
        }) {
            Some(Ok(m)) => m,
            other => {
                d.destroy_image(image, None);
                return Err(format!("image memory for {format:?}: {other:?}"));
            }
        };
        o.images.push((image, memory));
        d.bind_image_memory(image, memory, 0)
            .map_err(vkerr("vkBindImageMemory"))?;
        let range = vk::ImageSubresourceRange {
            aspect_mask: aspect,
            base_mip_level: 0,
            level_count: 1,
            base_array_layer: 0,
            layer_count: 1,
        };
        let view = d
            .create_image_view(
                &vk::ImageViewCreateInfo::default()
                    .image(image)
                    .view_type(vk::ImageViewType::TYPE_2D)
                    .format(format)
                    .subresource_range(range),
                None,
            )
            .map_err(vkerr("vkCreateImageView"))?;
        o.views.push(view);
        Ok((image, view))
    }
}

fn build_and_run(
    d: &ash::Device,
    family: u32,
    mem: &vk::PhysicalDeviceMemoryProperties,
    o: &mut Objects,
    s: &Scene,
    vert: &[u32],
    frag: &[u32],
) -> Result<(Vec<u8>, Duration), String> {
    let vbytes: Vec<u8> = s.vertices.iter().flat_map(|f| f.to_le_bytes()).collect();
    let ibytes: Vec<u8> = s.indices.iter().flat_map(|i| i.to_le_bytes()).collect();
    let (vbuf, _) = host_buffer(
        d,
        mem,
        o,
        vbytes.len(),
        vk::BufferUsageFlags::VERTEX_BUFFER,
        &vbytes,
    )?;
    let (ibuf, _) = host_buffer(
        d,
        mem,
        o,
        ibytes.len(),
        vk::BufferUsageFlags::INDEX_BUFFER,
        &ibytes,
    )?;
    let out_size = (SIZE * SIZE * 4) as usize;
    let (rbuf, rptr) = host_buffer(d, mem, o, out_size, vk::BufferUsageFlags::TRANSFER_DST, &[])?;
    let (cimage, cview) = image(
        d,
        mem,
        o,
        COLOR_FORMAT,
        vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
        vk::ImageAspectFlags::COLOR,
    )?;
    let (_, dview) = image(
        d,
        mem,
        o,
        DEPTH_FORMAT,
        vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
        vk::ImageAspectFlags::DEPTH,
    )?;

    let attachments = [
        vk::AttachmentDescription::default()
            .format(COLOR_FORMAT)
            .samples(vk::SampleCountFlags::TYPE_1)
            .load_op(vk::AttachmentLoadOp::CLEAR)
            .store_op(vk::AttachmentStoreOp::STORE)
            .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
            .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
            .initial_layout(vk::ImageLayout::UNDEFINED)
            .final_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL),
        vk::AttachmentDescription::default()
            .format(DEPTH_FORMAT)
            .samples(vk::SampleCountFlags::TYPE_1)
            .load_op(vk::AttachmentLoadOp::CLEAR)
            .store_op(vk::AttachmentStoreOp::DONT_CARE)
            .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
            .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
            .initial_layout(vk::ImageLayout::UNDEFINED)
            .final_layout(vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL),
    ];
    let color_ref = [vk::AttachmentReference {
        attachment: 0,
        layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
    }];
    let depth_ref = vk::AttachmentReference {
        attachment: 1,
        layout: vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
    };
    let subpass = [vk::SubpassDescription::default()
        .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
        .color_attachments(&color_ref)
        .depth_stencil_attachment(&depth_ref)];
    // SAFETY (this block and the rest of the function): valid create infos naming live
    // objects; commands recorded into a command buffer of this device and submitted once.
    unsafe {
        o.render_pass = d
            .create_render_pass(
                &vk::RenderPassCreateInfo::default()
                    .attachments(&attachments)
                    .subpasses(&subpass),
                None,
            )
            .map_err(vkerr("vkCreateRenderPass"))?;
        let views = [cview, dview];
        o.framebuffer = d
            .create_framebuffer(
                &vk::FramebufferCreateInfo::default()
                    .render_pass(o.render_pass)
                    .attachments(&views)
                    .width(SIZE)
                    .height(SIZE)
                    .layers(1),
                None,
            )
            .map_err(vkerr("vkCreateFramebuffer"))?;
        for code in [vert, frag] {
            let m = d
                .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(code), None)
                .map_err(vkerr("vkCreateShaderModule"))?;
            o.modules.push(m);
        }
        o.layout = d
            .create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default(), None)
            .map_err(vkerr("vkCreatePipelineLayout"))?;
        let stages = [
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::VERTEX)
                .module(o.modules[0])
                .name(c"main"),
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::FRAGMENT)
                .module(o.modules[1])
                .name(c"main"),
        ];
        let bindings = [vk::VertexInputBindingDescription {
            binding: 0,
            stride: (VERTEX_FLOATS * 4) as u32,
            input_rate: vk::VertexInputRate::VERTEX,
        }];
        let attrs = [
            vk::VertexInputAttributeDescription {
                location: 0,
                binding: 0,
                format: ATTR_FORMAT,
                offset: 0,
            },
            vk::VertexInputAttributeDescription {
                location: 1,
                binding: 0,
                format: ATTR_FORMAT,
                offset: 12,
            },
        ];
        let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
            .vertex_binding_descriptions(&bindings)
            .vertex_attribute_descriptions(&attrs);
        let ia = vk::PipelineInputAssemblyStateCreateInfo::default()
            .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
        let viewports = [vk::Viewport {
            x: 0.0,
            y: 0.0,
            width: SIZE as f32,
            height: SIZE as f32,
            min_depth: 0.0,
            max_depth: 1.0,
        }];
        let area = vk::Rect2D {
            offset: vk::Offset2D { x: 0, y: 0 },
            extent: vk::Extent2D {
                width: SIZE,
                height: SIZE,
            },
        };
        let scissors = [area];
        let vp = vk::PipelineViewportStateCreateInfo::default()
            .viewports(&viewports)
            .scissors(&scissors);
        let raster = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(vk::PolygonMode::FILL)
            .cull_mode(vk::CullModeFlags::NONE)
            .front_face(vk::FrontFace::COUNTER_CLOCKWISE)
            .line_width(1.0);
        let ms = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(vk::SampleCountFlags::TYPE_1);
        let ds = vk::PipelineDepthStencilStateCreateInfo::default()
            .depth_test_enable(true)
            .depth_write_enable(true)
            .depth_compare_op(vk::CompareOp::LESS);
        let blend = [vk::PipelineColorBlendAttachmentState::default()
            .color_write_mask(vk::ColorComponentFlags::RGBA)];
        let cb = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend);
        let info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&ia)
            .viewport_state(&vp)
            .rasterization_state(&raster)
            .multisample_state(&ms)
            .depth_stencil_state(&ds)
            .color_blend_state(&cb)
            .layout(o.layout)
            .render_pass(o.render_pass)
            .subpass(0);
        o.pipeline = d
            .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
            .map_err(|(_, e)| format!("vkCreateGraphicsPipelines: {e:?}"))?[0];

        o.pool = d
            .create_command_pool(
                &vk::CommandPoolCreateInfo::default().queue_family_index(family),
                None,
            )
            .map_err(vkerr("vkCreateCommandPool"))?;
        let c = d
            .allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(o.pool)
                    .level(vk::CommandBufferLevel::PRIMARY)
                    .command_buffer_count(1),
            )
            .map_err(vkerr("vkAllocateCommandBuffers"))?[0];
        o.fence = d
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .map_err(vkerr("vkCreateFence"))?;

        let clear = [
            vk::ClearValue {
                color: vk::ClearColorValue { float32: [0.0; 4] },
            },
            vk::ClearValue {
                depth_stencil: vk::ClearDepthStencilValue {
                    depth: 1.0,
                    stencil: 0,
                },
            },
        ];
        let rp_begin = vk::RenderPassBeginInfo::default()
            .render_pass(o.render_pass)
            .framebuffer(o.framebuffer)
            .render_area(area)
            .clear_values(&clear);
        d.begin_command_buffer(
            c,
            &vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
        )
        .map_err(vkerr("vkBeginCommandBuffer"))?;
        d.cmd_begin_render_pass(c, &rp_begin, vk::SubpassContents::INLINE);
        d.cmd_bind_pipeline(c, vk::PipelineBindPoint::GRAPHICS, o.pipeline);
        d.cmd_bind_vertex_buffers(c, 0, &[vbuf], &[0]);
        d.cmd_bind_index_buffer(c, ibuf, 0, vk::IndexType::UINT32);
        d.cmd_draw_indexed(c, s.indices.len() as u32, 1, 0, 0, 0);
        d.cmd_end_render_pass(c);
        let to_copy = [vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::COLOR_ATTACHMENT_WRITE)
            .dst_access_mask(vk::AccessFlags::TRANSFER_READ)];
        d.cmd_pipeline_barrier(
            c,
            vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
            vk::PipelineStageFlags::TRANSFER,
            vk::DependencyFlags::empty(),
            &to_copy,
            &[],
            &[],
        );
        let region = vk::BufferImageCopy {
            buffer_offset: 0,
            buffer_row_length: 0,
            buffer_image_height: 0,
            image_subresource: vk::ImageSubresourceLayers {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                mip_level: 0,
                base_array_layer: 0,
                layer_count: 1,
            },
            image_offset: vk::Offset3D { x: 0, y: 0, z: 0 },
            image_extent: vk::Extent3D {
                width: SIZE,
                height: SIZE,
                depth: 1,
            },
        };
        d.cmd_copy_image_to_buffer(
            c,
            cimage,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            rbuf,
            &[region],
        );
        let to_host = [vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ)];
        d.cmd_pipeline_barrier(
            c,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::HOST,
            vk::DependencyFlags::empty(),
            &to_host,
            &[],
            &[],
        );
        d.end_command_buffer(c)
            .map_err(vkerr("vkEndCommandBuffer"))?;

        let queue = d.get_device_queue(family, 0);
        let cmds = [c];
        let t = Instant::now();
        d.queue_submit(
            queue,
            &[vk::SubmitInfo::default().command_buffers(&cmds)],
            o.fence,
        )
        .map_err(vkerr("vkQueueSubmit"))?;
        d.wait_for_fences(&[o.fence], true, u64::MAX)
            .map_err(vkerr("vkWaitForFences"))?;
        let elapsed = t.elapsed();
        Ok((std::slice::from_raw_parts(rptr, out_size).to_vec(), elapsed))
    }
}
