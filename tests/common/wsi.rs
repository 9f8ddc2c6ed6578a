//! A device that presents: swapchains, and frames cleared to a colour on the GPU.

use super::Ctx;
use ash::vk;

pub struct Wsi {
    pub ctx: Ctx,
    pub device: ash::Device,
    pub queue: vk::Queue,
    pub surface_fn: ash::khr::surface::Instance,
    pub swapchain_fn: ash::khr::swapchain::Device,
    pub pool: vk::CommandPool,
}

impl Wsi {
    /// An instance with the surface extensions (and the validation layer if `validation`), a
    /// device with VK_KHR_swapchain.
    pub fn new(validation: bool, platform_ext: &std::ffi::CStr) -> Wsi {
        Self::with_device_extensions(validation, platform_ext, &[])
    }

    /// [`Wsi::new`] with more device extensions.
    pub fn with_device_extensions(
        validation: bool,
        platform_ext: &std::ffi::CStr,
        device_exts: &[&std::ffi::CStr],
    ) -> Wsi {
        let ctx = Ctx::with(validation, &[ash::khr::surface::NAME, platform_ext]);
        let prio = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(0)
            .queue_priorities(&prio)];
        let exts: Vec<_> = std::iter::once(ash::khr::swapchain::NAME)
            .chain(device_exts.iter().copied())
            .map(|e| e.as_ptr())
            .collect();
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&exts);
        // SAFETY: valid physical device and create info.
        let device = unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }.unwrap();
        // SAFETY: family 0, index 0 exists.
        let queue = unsafe { device.get_device_queue(0, 0) };
        let pool_info = vk::CommandPoolCreateInfo::default()
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY: valid device.
        let pool = unsafe { device.create_command_pool(&pool_info, None) }.unwrap();
        Wsi {
            surface_fn: ash::khr::surface::Instance::new(&ctx.entry, &ctx.instance),
            swapchain_fn: ash::khr::swapchain::Device::new(&ctx.instance, &device),
            ctx,
            device,
            queue,
            pool,
        }
    }

    pub fn swapchain(
        &self,
        surface: vk::SurfaceKHR,
        extent: vk::Extent2D,
        format: vk::Format,
        mode: vk::PresentModeKHR,
        count: u32,
        old: vk::SwapchainKHR,
    ) -> (vk::SwapchainKHR, Vec<vk::Image>) {
        // As an application must (the validation layer checks the create info against what
        // these said): the surface's capabilities, formats and present modes first.
        // SAFETY: valid physical device and surface.
        unsafe {
            let pd = self.ctx.pdev;
            let _caps = self
                .surface_fn
                .get_physical_device_surface_capabilities(pd, surface)
                .unwrap();
            self.surface_fn
                .get_physical_device_surface_formats(pd, surface)
                .unwrap();
            self.surface_fn
                .get_physical_device_surface_present_modes(pd, surface)
                .unwrap();
        }
        let info = vk::SwapchainCreateInfoKHR::default()
            .surface(surface)
            .min_image_count(count)
            .image_format(format)
            .image_color_space(vk::ColorSpaceKHR::SRGB_NONLINEAR)
            .image_extent(extent)
            .image_array_layers(1)
            .image_usage(vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_DST)
            .image_sharing_mode(vk::SharingMode::EXCLUSIVE)
            .pre_transform(vk::SurfaceTransformFlagsKHR::IDENTITY)
            .composite_alpha(vk::CompositeAlphaFlagsKHR::OPAQUE)
            .present_mode(mode)
            .clipped(true)
            .old_swapchain(old);
        // SAFETY: valid device and create info.
        let sc = unsafe { self.swapchain_fn.create_swapchain(&info, None) }.unwrap();
        // SAFETY: valid swapchain.
        let images = unsafe { self.swapchain_fn.get_swapchain_images(sc) }.unwrap();
        assert_eq!(images.len() as u32, count);
        (sc, images)
    }

    /// Acquires an image, clears it to `rgba` on the GPU and presents it. Returns acquire's
    /// error, or whether it said suboptimal and what present returned.
    pub fn present_colour(
        &self,
        sc: vk::SwapchainKHR,
        images: &[vk::Image],
        rgba: [f32; 4],
    ) -> Result<Frame, vk::Result> {
        self.present_colour_with(sc, images, rgba, None)
    }

    /// [`Wsi::present_colour`] with VK_KHR_incremental_present's rectangles (the device
    /// must have the extension): what changed since the last present.
    pub fn present_colour_regions(
        &self,
        sc: vk::SwapchainKHR,
        images: &[vk::Image],
        rgba: [f32; 4],
        rects: &[vk::RectLayerKHR],
    ) -> Result<Frame, vk::Result> {
        self.present_colour_with(sc, images, rgba, Some(rects))
    }

    fn present_colour_with(
        &self,
        sc: vk::SwapchainKHR,
        images: &[vk::Image],
        rgba: [f32; 4],
        rects: Option<&[vk::RectLayerKHR]>,
    ) -> Result<Frame, vk::Result> {
        let d = &self.device;
        // SAFETY: plain object creation and use on a valid device; every object is destroyed
        // before returning, after the queue is idle.
        unsafe {
            let acquired = d
                .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
                .unwrap();
            let rendered = d
                .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
                .unwrap();
            let destroy = || {
                d.queue_wait_idle(self.queue).unwrap();
                d.destroy_semaphore(acquired, None);
                d.destroy_semaphore(rendered, None);
            };
            let (index, sub_acquire) = match self.swapchain_fn.acquire_next_image(
                sc,
                u64::MAX,
                acquired,
                vk::Fence::null(),
            ) {
                Ok(v) => v,
                Err(e) => {
                    destroy();
                    return Err(e);
                }
            };
            let cb = d
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(self.pool)
                        .command_buffer_count(1),
                )
                .unwrap()[0];
            d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            let range = vk::ImageSubresourceRange::default()
                .aspect_mask(vk::ImageAspectFlags::COLOR)
                .level_count(1)
                .layer_count(1);
            let image = images[index as usize];
            let to_dst = vk::ImageMemoryBarrier::default()
                .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .old_layout(vk::ImageLayout::UNDEFINED)
                .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                .image(image)
                .subresource_range(range);
            d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[to_dst],
            );
            d.cmd_clear_color_image(
                cb,
                image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &vk::ClearColorValue { float32: rgba },
                &[range],
            );
            let to_present = vk::ImageMemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                .new_layout(vk::ImageLayout::PRESENT_SRC_KHR)
                .image(image)
                .subresource_range(range);
            d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[to_present],
            );
            d.end_command_buffer(cb).unwrap();
            let waits = [acquired];
            let stages = [vk::PipelineStageFlags::TRANSFER];
            let cbs = [cb];
            let signals = [rendered];
            let submit = vk::SubmitInfo::default()
                .wait_semaphores(&waits)
                .wait_dst_stage_mask(&stages)
                .command_buffers(&cbs)
                .signal_semaphores(&signals);
            d.queue_submit(self.queue, &[submit], vk::Fence::null())
                .unwrap();
            let chains = [sc];
            let indices = [index];
            let region = [vk::PresentRegionKHR::default().rectangles(rects.unwrap_or(&[]))];
            let mut regions = vk::PresentRegionsKHR::default().regions(&region);
            let mut present = vk::PresentInfoKHR::default()
                .wait_semaphores(&signals)
                .swapchains(&chains)
                .image_indices(&indices);
            if rects.is_some() {
                present = present.push_next(&mut regions);
            }
            let r = self.swapchain_fn.queue_present(self.queue, &present);
            destroy();
            d.free_command_buffers(self.pool, &cbs);
            Ok(Frame {
                acquire_suboptimal: sub_acquire,
                present: r,
            })
        }
    }
}

impl Wsi {
    /// An acquire that does not wait (with a fence, as valid usage asks for one of fence and
    /// semaphore): the index, or the error.
    pub fn try_acquire(&self, sc: vk::SwapchainKHR) -> Result<(u32, bool), vk::Result> {
        // SAFETY: valid device and swapchain; the fence is destroyed once acquire has
        // signalled it (or failed, leaving it unused).
        unsafe {
            let f = self
                .device
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .unwrap();
            let r = self
                .swapchain_fn
                .acquire_next_image(sc, 0, vk::Semaphore::null(), f);
            if r.is_ok() {
                self.device.wait_for_fences(&[f], true, u64::MAX).unwrap();
            }
            self.device.destroy_fence(f, None);
            r
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
pub struct Frame {
    pub acquire_suboptimal: bool,
    /// Whether present said suboptimal, or its error.
    pub present: Result<bool, vk::Result>,
}

/// A frame that acquire and present took without complaint.
pub const OPTIMAL: Result<Frame, vk::Result> = Ok(Frame {
    acquire_suboptimal: false,
    present: Ok(false),
});

impl Drop for Wsi {
    fn drop(&mut self) {
        // SAFETY: the tests destroy their swapchains and surfaces first.
        unsafe {
            self.device.device_wait_idle().unwrap();
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_device(None);
        }
    }
}

/// 0xRRGGBB of a clear colour whose channels are multiples of 1/255.
pub fn rgb(c: [f32; 4]) -> u32 {
    let b = |v: f32| (v * 255.0).round() as u32;
    (b(c[0]) << 16) | (b(c[1]) << 8) | b(c[2])
}
