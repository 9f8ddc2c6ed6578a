//! External memory, semaphores and fences by file descriptor between two instances (so two
//! simulated devices, two DRM files): bytes written through one are seen through the other,
//! signals cross over, and fds that are not dma-bufs or syncobjs are refused with
//! VK_ERROR_INVALID_EXTERNAL_HANDLE.

mod common;

use ash::vk;
use common::{Ctx, OneShot};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

const SIZE: u64 = 65536;

struct Dev {
    ctx: Ctx,
    device: ash::Device,
    queue: vk::Queue,
    mem_fd: ash::khr::external_memory_fd::Device,
    sem_fd: ash::khr::external_semaphore_fd::Device,
    fence_fd: ash::khr::external_fence_fd::Device,
}

impl Dev {
    fn new() -> Dev {
        let ctx = Ctx::with_api(false, &[], vk::API_VERSION_1_1);
        let prio = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(0)
            .queue_priorities(&prio)];
        let exts = [
            ash::khr::external_memory_fd::NAME.as_ptr(),
            ash::ext::external_memory_dma_buf::NAME.as_ptr(),
            ash::khr::external_semaphore_fd::NAME.as_ptr(),
            ash::khr::external_fence_fd::NAME.as_ptr(),
        ];
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&exts);
        // SAFETY: valid physical device and create info.
        let device =
            unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }.expect("vkCreateDevice");
        // SAFETY: family 0, index 0 was created above.
        let queue = unsafe { device.get_device_queue(0, 0) };
        Dev {
            mem_fd: ash::khr::external_memory_fd::Device::new(&ctx.instance, &device),
            sem_fd: ash::khr::external_semaphore_fd::Device::new(&ctx.instance, &device),
            fence_fd: ash::khr::external_fence_fd::Device::new(&ctx.instance, &device),
            ctx,
            device,
            queue,
        }
    }

    /// A buffer of SIZE bytes bound to `mem`.
    fn buffer_on(
        &self,
        mem: vk::DeviceMemory,
        ty: vk::ExternalMemoryHandleTypeFlags,
    ) -> vk::Buffer {
        let mut ext = vk::ExternalMemoryBufferCreateInfo::default().handle_types(ty);
        let info = vk::BufferCreateInfo::default()
            .size(SIZE)
            .usage(vk::BufferUsageFlags::TRANSFER_DST | vk::BufferUsageFlags::TRANSFER_SRC)
            .push_next(&mut ext);
        // SAFETY: valid device and create info; `mem` is at least SIZE bytes.
        unsafe {
            let b = self.device.create_buffer(&info, None).expect("buffer");
            self.device.bind_buffer_memory(b, mem, 0).expect("bind");
            b
        }
    }

    fn map(&self, mem: vk::DeviceMemory) -> *mut u8 {
        // SAFETY: host-visible memory of SIZE bytes, not mapped yet.
        unsafe {
            self.device
                .map_memory(mem, 0, SIZE, vk::MemoryMapFlags::empty())
        }
        .expect("map")
        .cast()
    }

    fn exportable_memory(&self, ty: vk::ExternalMemoryHandleTypeFlags) -> vk::DeviceMemory {
        let mut export = vk::ExportMemoryAllocateInfo::default().handle_types(ty);
        let info = vk::MemoryAllocateInfo::default()
            .allocation_size(SIZE)
            .memory_type_index(0)
            .push_next(&mut export);
        // SAFETY: valid device and allocate info.
        unsafe { self.device.allocate_memory(&info, None) }.expect("exportable memory")
    }

    fn import_memory(
        &self,
        ty: vk::ExternalMemoryHandleTypeFlags,
        fd: i32,
    ) -> Result<vk::DeviceMemory, vk::Result> {
        let mut import = vk::ImportMemoryFdInfoKHR::default().handle_type(ty).fd(fd);
        let info = vk::MemoryAllocateInfo::default()
            .allocation_size(SIZE)
            .memory_type_index(0)
            .push_next(&mut import);
        // SAFETY: valid device and allocate info.
        unsafe { self.device.allocate_memory(&info, None) }
    }

    fn semaphore(&self, ty: vk::ExternalSemaphoreHandleTypeFlags) -> vk::Semaphore {
        let mut export = vk::ExportSemaphoreCreateInfo::default().handle_types(ty);
        let info = vk::SemaphoreCreateInfo::default().push_next(&mut export);
        // SAFETY: valid device and create info.
        unsafe { self.device.create_semaphore(&info, None) }.expect("semaphore")
    }

    fn fence(&self, ty: vk::ExternalFenceHandleTypeFlags) -> vk::Fence {
        let mut export = vk::ExportFenceCreateInfo::default().handle_types(ty);
        let info = vk::FenceCreateInfo::default().push_next(&mut export);
        // SAFETY: valid device and create info.
        unsafe { self.device.create_fence(&info, None) }.expect("fence")
    }

    /// An empty submission that waits for `wait` and signals `signal` and `fence`.
    fn submit(&self, wait: &[vk::Semaphore], signal: &[vk::Semaphore], fence: vk::Fence) {
        let stages = vec![vk::PipelineStageFlags::ALL_COMMANDS; wait.len()];
        let submit = vk::SubmitInfo::default()
            .wait_semaphores(wait)
            .wait_dst_stage_mask(&stages)
            .signal_semaphores(signal);
        // SAFETY: valid queue and handles of this device.
        unsafe { self.device.queue_submit(self.queue, &[submit], fence) }.expect("submit");
    }

    fn wait(&self, fence: vk::Fence) {
        // SAFETY: a fence of this device.
        unsafe { self.device.wait_for_fences(&[fence], true, 10_000_000_000) }
            .expect("the fence signals");
    }
}

impl Drop for Dev {
    fn drop(&mut self) {
        // SAFETY: the tests destroy what they make before the device goes.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_device(None);
        }
    }
}

fn memory_round_trip(ty: vk::ExternalMemoryHandleTypeFlags) {
    let a = Dev::new();
    let b = Dev::new();
    let mem_a = a.exportable_memory(ty);
    let pa = a.map(mem_a);
    // SAFETY: the mapping is SIZE bytes.
    unsafe { std::ptr::write_bytes(pa, 0x5a, SIZE as usize) };
    let info = vk::MemoryGetFdInfoKHR::default()
        .memory(mem_a)
        .handle_type(ty);
    // SAFETY: memory exported with `ty`.
    let fd = unsafe { a.mem_fd.get_memory_fd(&info) }.expect("vkGetMemoryFdKHR");
    assert!(fd >= 0);
    if ty == vk::ExternalMemoryHandleTypeFlags::DMA_BUF_EXT {
        let mut props = vk::MemoryFdPropertiesKHR::default();
        // SAFETY: a dma-buf fd.
        unsafe { b.mem_fd.get_memory_fd_properties(ty, fd, &mut props) }
            .expect("vkGetMemoryFdPropertiesKHR");
        assert_ne!(props.memory_type_bits & 1, 0);
    }
    let mem_b = b
        .import_memory(ty, fd)
        .expect("import on the second device");
    let pb = b.map(mem_b);
    // SAFETY: both mappings are SIZE bytes.
    unsafe {
        assert_eq!(*pb, 0x5a);
        assert_eq!(*pb.add(SIZE as usize - 1), 0x5a);
    }

    // The GPU of the second device writes through the import; the first device sees it.
    let buf_b = b.buffer_on(mem_b, ty);
    let cmd = OneShot::begin(&b.device);
    // SAFETY: recording into a command buffer in the recording state; buf_b is SIZE bytes.
    unsafe {
        b.device
            .cmd_fill_buffer(cmd.cb, buf_b, 256, 1024, 0x1234_5678)
    };
    cmd.submit_and_wait(&b.device, b.queue);
    // SAFETY: the fill finished; the mapping is SIZE bytes.
    unsafe {
        let word = std::ptr::read_unaligned(pa.add(256).cast::<u32>());
        assert_eq!(word, 0x1234_5678);
        assert_eq!(*pa.add(255), 0x5a);
        assert_eq!(*pa.add(256 + 1024), 0x5a);
        b.device.destroy_buffer(buf_b, None);
        b.device.unmap_memory(mem_b);
        b.device.free_memory(mem_b, None);
        a.device.unmap_memory(mem_a);
        a.device.free_memory(mem_a, None);
    }
}

#[test]
fn opaque_fd_memory_is_shared_between_instances() {
    memory_round_trip(vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD);
}

#[test]
fn dma_buf_memory_is_shared_between_instances() {
    memory_round_trip(vk::ExternalMemoryHandleTypeFlags::DMA_BUF_EXT);
}

#[test]
fn memory_imported_twice_on_one_device_stays_valid() {
    let a = Dev::new();
    let ty = vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD;
    let mem = a.exportable_memory(ty);
    let info = vk::MemoryGetFdInfoKHR::default()
        .memory(mem)
        .handle_type(ty);
    // SAFETY: memory exported with `ty`.
    let (fd1, fd2) = unsafe {
        (
            a.mem_fd.get_memory_fd(&info).expect("fd"),
            a.mem_fd.get_memory_fd(&info).expect("fd"),
        )
    };
    let m1 = a.import_memory(ty, fd1).expect("first import");
    let m2 = a.import_memory(ty, fd2).expect("second import");
    // Freeing the original and one import leaves the other usable.
    // SAFETY: handles of this device, not in use.
    unsafe {
        a.device.free_memory(mem, None);
        a.device.free_memory(m1, None);
    }
    let p = a.map(m2);
    // SAFETY: the mapping is SIZE bytes.
    unsafe {
        *p.add(7) = 9;
        assert_eq!(*p.add(7), 9);
        a.device.unmap_memory(m2);
        a.device.free_memory(m2, None);
    }
}

#[test]
fn semaphores_and_fences_cross_instances() {
    let a = Dev::new();
    let b = Dev::new();

    // OPAQUE_FD semaphore: a permanent import shares the payload.
    let opaque = vk::ExternalSemaphoreHandleTypeFlags::OPAQUE_FD;
    let sa = a.semaphore(opaque);
    let info = vk::SemaphoreGetFdInfoKHR::default()
        .semaphore(sa)
        .handle_type(opaque);
    // SAFETY: a semaphore exported with OPAQUE_FD.
    let fd = unsafe { a.sem_fd.get_semaphore_fd(&info) }.expect("vkGetSemaphoreFdKHR");
    let sb = b.semaphore(vk::ExternalSemaphoreHandleTypeFlags::empty());
    let import = vk::ImportSemaphoreFdInfoKHR::default()
        .semaphore(sb)
        .handle_type(opaque)
        .fd(fd);
    // SAFETY: a syncobj fd from the other instance.
    unsafe { b.sem_fd.import_semaphore_fd(&import) }.expect("vkImportSemaphoreFdKHR");
    let fb = b.fence(vk::ExternalFenceHandleTypeFlags::empty());
    a.submit(&[], &[sa], vk::Fence::null());
    b.submit(&[sb], &[], fb);
    b.wait(fb);

    // SYNC_FD semaphore: a signalled sync file, imported temporarily, waited on.
    let sync = vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD;
    let sa2 = a.semaphore(sync);
    a.submit(&[], &[sa2], vk::Fence::null());
    let info = vk::SemaphoreGetFdInfoKHR::default()
        .semaphore(sa2)
        .handle_type(sync);
    // SAFETY: a semaphore with a pending signal, exported with SYNC_FD.
    let fd = unsafe { a.sem_fd.get_semaphore_fd(&info) }.expect("sync file");
    let sb2 = b.semaphore(vk::ExternalSemaphoreHandleTypeFlags::empty());
    let import = vk::ImportSemaphoreFdInfoKHR::default()
        .semaphore(sb2)
        .handle_type(sync)
        .flags(vk::SemaphoreImportFlags::TEMPORARY)
        .fd(fd);
    // SAFETY: a sync file from the other instance.
    unsafe { b.sem_fd.import_semaphore_fd(&import) }.expect("sync file import");
    // SAFETY: a fence of b.
    unsafe { b.device.reset_fences(&[fb]) }.expect("reset");
    b.submit(&[sb2], &[], fb);
    b.wait(fb);

    // OPAQUE_FD fence: a signal on one instance is seen on the other.
    let fopaque = vk::ExternalFenceHandleTypeFlags::OPAQUE_FD;
    let fa = a.fence(fopaque);
    let info = vk::FenceGetFdInfoKHR::default()
        .fence(fa)
        .handle_type(fopaque);
    // SAFETY: a fence exported with OPAQUE_FD.
    let fd = unsafe { a.fence_fd.get_fence_fd(&info) }.expect("vkGetFenceFdKHR");
    let fb2 = b.fence(vk::ExternalFenceHandleTypeFlags::empty());
    let import = vk::ImportFenceFdInfoKHR::default()
        .fence(fb2)
        .handle_type(fopaque)
        .fd(fd);
    // SAFETY: a syncobj fd from the other instance.
    unsafe { b.fence_fd.import_fence_fd(&import) }.expect("vkImportFenceFdKHR");
    // SAFETY: a fence of b, shared with a, not signalled yet.
    assert_eq!(
        unsafe { b.device.get_fence_status(fb2) },
        Ok(false),
        "nothing signalled it yet"
    );
    a.submit(&[], &[], fa);
    b.wait(fb2);

    // SAFETY: everything is idle once the fences have signalled.
    unsafe {
        a.device.device_wait_idle().expect("idle");
        b.device.device_wait_idle().expect("idle");
        for s in [sa, sa2] {
            a.device.destroy_semaphore(s, None);
        }
        for s in [sb, sb2] {
            b.device.destroy_semaphore(s, None);
        }
        a.device.destroy_fence(fa, None);
        b.device.destroy_fence(fb, None);
        b.device.destroy_fence(fb2, None);
    }
}

/// A memfd of `size` bytes that agx4 did not make.
fn foreign_memfd(size: u64) -> OwnedFd {
    // SAFETY: memfd_create with a NUL-terminated name; the fd is owned below.
    let raw = unsafe { libc::memfd_create(c"not-a-dmabuf".as_ptr(), libc::MFD_CLOEXEC) };
    assert!(raw >= 0);
    // SAFETY: `raw` is new and ours.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    // SAFETY: plain call on our fd.
    assert_eq!(unsafe { libc::ftruncate(fd.as_raw_fd(), size as i64) }, 0);
    fd
}

#[test]
fn foreign_fds_are_invalid_external_handles() {
    let a = Dev::new();
    let file = std::fs::File::open("/proc/self/status").expect("a plain file");
    let memfd = foreign_memfd(SIZE);
    let small = foreign_memfd(100);
    for fd in [file.as_raw_fd(), memfd.as_raw_fd(), small.as_raw_fd()] {
        for ty in [
            vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD,
            vk::ExternalMemoryHandleTypeFlags::DMA_BUF_EXT,
        ] {
            assert_eq!(
                a.import_memory(ty, fd).err(),
                Some(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE)
            );
        }
        let mut props = vk::MemoryFdPropertiesKHR::default();
        // SAFETY: the call itself is valid; the fd is the thing being judged.
        let r = unsafe {
            a.mem_fd.get_memory_fd_properties(
                vk::ExternalMemoryHandleTypeFlags::DMA_BUF_EXT,
                fd,
                &mut props,
            )
        };
        assert_eq!(r, Err(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE));

        let s = a.semaphore(vk::ExternalSemaphoreHandleTypeFlags::empty());
        let f = a.fence(vk::ExternalFenceHandleTypeFlags::empty());
        for (ty, flags) in [
            (
                vk::ExternalSemaphoreHandleTypeFlags::OPAQUE_FD,
                vk::SemaphoreImportFlags::empty(),
            ),
            (
                vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD,
                vk::SemaphoreImportFlags::TEMPORARY,
            ),
        ] {
            let import = vk::ImportSemaphoreFdInfoKHR::default()
                .semaphore(s)
                .handle_type(ty)
                .flags(flags)
                .fd(fd);
            // SAFETY: as above.
            let r = unsafe { a.sem_fd.import_semaphore_fd(&import) };
            assert_eq!(r, Err(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE));
        }
        let import = vk::ImportFenceFdInfoKHR::default()
            .fence(f)
            .handle_type(vk::ExternalFenceHandleTypeFlags::OPAQUE_FD)
            .fd(fd);
        // SAFETY: as above.
        let r = unsafe { a.fence_fd.import_fence_fd(&import) };
        assert_eq!(r, Err(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE));
        // The semaphore and fence are untouched: still usable.
        a.submit(&[], &[s], f);
        a.wait(f);
        // SAFETY: idle handles of this device.
        unsafe {
            a.device.device_wait_idle().expect("idle");
            a.device.destroy_semaphore(s, None);
            a.device.destroy_fence(f, None);
        }
    }
    // A refused fd stays the caller's: it is still open.
    // SAFETY: F_GETFD only reads the descriptor flags.
    assert!(unsafe { libc::fcntl(memfd.as_raw_fd(), libc::F_GETFD) } >= 0);
}

#[test]
fn queries_answer_what_works() {
    let a = Dev::new();
    let i = &a.ctx.instance;
    let pdev = a.ctx.pdev;
    let buffer = |ty| {
        let info = vk::PhysicalDeviceExternalBufferInfo::default()
            .usage(vk::BufferUsageFlags::TRANSFER_DST)
            .handle_type(ty);
        let mut out = vk::ExternalBufferProperties::default();
        // SAFETY: valid physical device and structures.
        unsafe { i.get_physical_device_external_buffer_properties(pdev, &info, &mut out) };
        out.external_memory_properties
    };
    let both =
        vk::ExternalMemoryFeatureFlags::EXPORTABLE | vk::ExternalMemoryFeatureFlags::IMPORTABLE;
    assert_eq!(
        buffer(vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD).external_memory_features,
        both
    );
    assert_eq!(
        buffer(vk::ExternalMemoryHandleTypeFlags::DMA_BUF_EXT).external_memory_features,
        both
    );
    assert!(buffer(vk::ExternalMemoryHandleTypeFlags::OPAQUE_WIN32)
        .external_memory_features
        .is_empty());

    let image = |ty, tiling| {
        let mut ext = vk::PhysicalDeviceExternalImageFormatInfo::default().handle_type(ty);
        let info = vk::PhysicalDeviceImageFormatInfo2::default()
            .format(vk::Format::R8G8B8A8_UNORM)
            .ty(vk::ImageType::TYPE_2D)
            .tiling(tiling)
            .usage(vk::ImageUsageFlags::TRANSFER_DST)
            .push_next(&mut ext);
        let mut ext_out = vk::ExternalImageFormatProperties::default();
        let mut out = vk::ImageFormatProperties2::default().push_next(&mut ext_out);
        // SAFETY: valid physical device and structures.
        let r = unsafe { i.get_physical_device_image_format_properties2(pdev, &info, &mut out) };
        r.map(|_| ext_out.external_memory_properties.external_memory_features)
    };
    let dmabuf = vk::ExternalMemoryHandleTypeFlags::DMA_BUF_EXT;
    let opaque = vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD;
    assert_eq!(image(dmabuf, vk::ImageTiling::LINEAR), Ok(both));
    assert_eq!(
        image(dmabuf, vk::ImageTiling::OPTIMAL),
        Err(vk::Result::ERROR_FORMAT_NOT_SUPPORTED)
    );
    assert_eq!(image(opaque, vk::ImageTiling::OPTIMAL), Ok(both));

    let semaphore = |ty, timeline: bool| {
        let mut t = vk::SemaphoreTypeCreateInfo::default().semaphore_type(if timeline {
            vk::SemaphoreType::TIMELINE
        } else {
            vk::SemaphoreType::BINARY
        });
        let info = vk::PhysicalDeviceExternalSemaphoreInfo::default()
            .handle_type(ty)
            .push_next(&mut t);
        let mut out = vk::ExternalSemaphoreProperties::default();
        // SAFETY: valid physical device and structures.
        unsafe { i.get_physical_device_external_semaphore_properties(pdev, &info, &mut out) };
        out.external_semaphore_features
    };
    let sem_both = vk::ExternalSemaphoreFeatureFlags::EXPORTABLE
        | vk::ExternalSemaphoreFeatureFlags::IMPORTABLE;
    let sync = vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD;
    let sopaque = vk::ExternalSemaphoreHandleTypeFlags::OPAQUE_FD;
    assert_eq!(semaphore(sync, false), sem_both);
    assert_eq!(semaphore(sopaque, true), sem_both);
    assert!(
        semaphore(sync, true).is_empty(),
        "no sync file for a timeline"
    );

    // Both instances name the same device and driver, so they may share memory.
    let b = Dev::new();
    let ids = |ctx: &Ctx| {
        let mut id = vk::PhysicalDeviceIDProperties::default();
        let mut p = vk::PhysicalDeviceProperties2::default().push_next(&mut id);
        // SAFETY: valid physical device and structures.
        unsafe {
            ctx.instance
                .get_physical_device_properties2(ctx.pdev, &mut p)
        };
        (id.device_uuid, id.driver_uuid)
    };
    assert_eq!(ids(&a.ctx), ids(&b.ctx));
}

/// The environment variable that turns [`dma_buf_memory_reaches_another_process`] into its
/// child: it names the inherited dma-buf fd to import.
const CHILD_FD_ENV: &str = "AGX4_TEST_EXTERNAL_FD_CHILD";

/// The child of [`dma_buf_memory_reaches_another_process`]: imports the inherited fd and
/// overwrites its first bytes.
#[test]
#[ignore = "run by dma_buf_memory_reaches_another_process in a child process"]
fn child_process_side() {
    let fd = std::env::var(CHILD_FD_ENV).expect("started by the parent test");
    let fd: i32 = fd.parse().expect("an fd number");
    let b = Dev::new();
    let ty = vk::ExternalMemoryHandleTypeFlags::DMA_BUF_EXT;
    let mem = b
        .import_memory(ty, fd)
        .expect("import in the child process");
    let p = b.map(mem);
    // SAFETY: the mapping is SIZE bytes.
    unsafe {
        assert_eq!(*p.add(100), 0x3c, "the parent's bytes");
        std::ptr::write_bytes(p, 0xc3, 16);
        b.device.unmap_memory(mem);
        b.device.free_memory(mem, None);
    }
}

#[test]
fn dma_buf_memory_reaches_another_process() {
    let a = Dev::new();
    let ty = vk::ExternalMemoryHandleTypeFlags::DMA_BUF_EXT;
    let mem = a.exportable_memory(ty);
    let p = a.map(mem);
    // SAFETY: the mapping is SIZE bytes.
    unsafe { std::ptr::write_bytes(p, 0x3c, SIZE as usize) };
    let info = vk::MemoryGetFdInfoKHR::default()
        .memory(mem)
        .handle_type(ty);
    // SAFETY: memory exported as a dma-buf.
    let fd = unsafe { a.mem_fd.get_memory_fd(&info) }.expect("vkGetMemoryFdKHR");
    // The child inherits the fd: clear close-on-exec.
    // SAFETY: plain fcntl on our fd.
    assert_eq!(unsafe { libc::fcntl(fd, libc::F_SETFD, 0) }, 0);
    let out = std::process::Command::new(std::env::current_exe().expect("test binary"))
        .args(["--exact", "child_process_side", "--ignored", "--nocapture"])
        .env(CHILD_FD_ENV, fd.to_string())
        .output()
        .expect("run the child");
    // SAFETY: our fd, no longer needed here.
    unsafe { libc::close(fd) };
    let log = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && log.contains("1 passed"),
        "child failed: {log}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // SAFETY: the mapping is SIZE bytes; the child has exited.
    unsafe {
        assert_eq!(*p, 0xc3, "the child's write is seen here");
        assert_eq!(*p.add(15), 0xc3);
        assert_eq!(*p.add(16), 0x3c);
        a.device.unmap_memory(mem);
        a.device.free_memory(mem, None);
    }
}
