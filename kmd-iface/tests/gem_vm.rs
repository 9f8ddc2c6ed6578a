//! GEM objects, CPU mappings, GET_PARAMS and VM_BIND on the simulated kernel.

mod common;

use common::*;
use kmd_iface::uapi::*;
use kmd_iface::Kmd;

#[test]
fn get_params_reports_the_simulated_m1() {
    let d = dev();
    let p = d.params;
    assert_eq!(
        (p.gpu_generation, p.gpu_variant, p.chip_id),
        (13, 'G' as u32, 0x8103)
    );
    assert_eq!(
        (
            p.num_clusters_total,
            p.num_cores_per_cluster,
            p.core_masks[0]
        ),
        (1, 8, 0xff)
    );
    assert_eq!(
        (p.vm_start, p.vm_end, p.vm_kernel_min_size),
        (0x4000, 0x7f_ffff_8000, 0x2000_0000)
    );
    assert_eq!(p.max_commands_per_submission, 64);
    assert_ne!(p.command_timestamp_frequency_hz, 0);
}

#[test]
fn get_params_writes_only_what_the_caller_has_room_for() {
    let d = dev();
    let mut buf = [0xaau8; 600];
    let mut args = drm_asahi_get_params {
        pointer: buf.as_mut_ptr() as u64,
        size: 12,
        ..Default::default()
    };
    // SAFETY: `buf` is writable for 600 >= 12 bytes.
    unsafe { d.kmd.get_params(&mut args) }.expect("truncated GET_PARAMS");
    assert_eq!(
        &buf[8..12],
        &13u32.to_le_bytes(),
        "gpu_generation is in the first 12 bytes"
    );
    assert!(
        buf[12..].iter().all(|&b| b == 0xaa),
        "nothing written past `size`"
    );

    for (group, pad) in [(1, 0), (0, 1)] {
        let mut args = drm_asahi_get_params {
            param_group: group,
            pad,
            pointer: buf.as_mut_ptr() as u64,
            size: 600,
        };
        // SAFETY: as above.
        assert_eq!(unsafe { d.kmd.get_params(&mut args) }, Err(libc::EINVAL));
    }
}

#[test]
fn get_time_is_monotonic_and_rejects_flags() {
    let d = dev();
    let (mut a, mut b) = (drm_asahi_get_time::default(), drm_asahi_get_time::default());
    d.kmd.get_time(&mut a).expect("GET_TIME");
    d.kmd.get_time(&mut b).expect("GET_TIME");
    assert!(a.gpu_timestamp > 0 && b.gpu_timestamp >= a.gpu_timestamp);
    let mut bad = drm_asahi_get_time {
        flags: 1,
        ..Default::default()
    };
    assert_eq!(d.kmd.get_time(&mut bad), Err(libc::EINVAL));
}

#[test]
fn gem_create_rejects_bad_input_and_allocates_lowest_handles() {
    let d = dev();
    let create = |size, flags, vm_id| {
        let mut c = drm_asahi_gem_create {
            size,
            flags,
            vm_id,
            ..Default::default()
        };
        d.kmd.gem_create(&mut c).map(|_| c.handle)
    };
    assert_eq!(create(PAGE, 1 << 5, 0), Err(libc::EINVAL), "unknown flag");
    assert_eq!(
        create(PAGE, 0, d.vm),
        Err(libc::EINVAL),
        "vm_id without VM_PRIVATE"
    );
    assert_eq!(
        create(PAGE, DRM_ASAHI_GEM_VM_PRIVATE, 99),
        Err(libc::ENOENT),
        "private to no VM"
    );
    assert_eq!(create(0, 0, 0), Err(libc::EINVAL), "zero size");
    assert_eq!(
        create(u64::MAX, 0, 0),
        Err(libc::EINVAL),
        "size overflows page rounding"
    );
    assert_eq!(create(1 << 50, 0, 0), Err(libc::ENOMEM), "absurd size");
    let mut padded = drm_asahi_gem_create {
        size: PAGE,
        pad: 1,
        ..Default::default()
    };
    assert_eq!(d.kmd.gem_create(&mut padded), Err(libc::EINVAL));

    // Nothing above consumed a handle.
    assert_eq!(create(1, DRM_ASAHI_GEM_WRITEBACK, 0), Ok(1));
    assert_eq!(create(PAGE, DRM_ASAHI_GEM_VM_PRIVATE, d.vm), Ok(2));
    assert_eq!(
        d.kmd.gem_close(&drm_gem_close { handle: 1, pad: 0 }),
        Ok(())
    );
    assert_eq!(
        create(PAGE, 0, 0),
        Ok(1),
        "freed handles are reused, lowest first"
    );
}

#[test]
fn gem_close_of_unknown_handle_is_einval_and_harmless() {
    let d = dev();
    let h = d.bo(PAGE);
    assert_eq!(
        d.kmd.gem_close(&drm_gem_close {
            handle: h + 1,
            pad: 0
        }),
        Err(libc::EINVAL)
    );
    assert_eq!(
        d.kmd.gem_close(&drm_gem_close { handle: 0, pad: 0 }),
        Err(libc::EINVAL)
    );
    let mut off = drm_asahi_gem_mmap_offset {
        handle: h,
        ..Default::default()
    };
    assert_eq!(
        d.kmd.gem_mmap_offset(&mut off),
        Ok(()),
        "the real handle survived"
    );
    assert_eq!(
        d.kmd.gem_close(&drm_gem_close { handle: h, pad: 0 }),
        Ok(())
    );
    assert_eq!(
        d.kmd.gem_close(&drm_gem_close { handle: h, pad: 0 }),
        Err(libc::EINVAL)
    );
}

#[test]
fn mmap_round_trip_and_limits() {
    let d = dev();
    let h = d.bo(2 * PAGE);
    let mut off = drm_asahi_gem_mmap_offset {
        handle: h,
        ..Default::default()
    };
    d.kmd.gem_mmap_offset(&mut off).expect("MMAP_OFFSET");
    let mut again = drm_asahi_gem_mmap_offset {
        handle: h,
        ..Default::default()
    };
    d.kmd.gem_mmap_offset(&mut again).expect("MMAP_OFFSET");
    assert_eq!(off.offset, again.offset, "one offset per object");
    let mut flagged = drm_asahi_gem_mmap_offset {
        handle: h,
        flags: 1,
        ..Default::default()
    };
    assert_eq!(d.kmd.gem_mmap_offset(&mut flagged), Err(libc::EINVAL));
    let mut unknown = drm_asahi_gem_mmap_offset {
        handle: 42,
        ..Default::default()
    };
    assert_eq!(d.kmd.gem_mmap_offset(&mut unknown), Err(libc::ENOENT));

    let size = (2 * PAGE) as usize;
    let p = d.kmd.mmap(off.offset, size).expect("mmap");
    // SAFETY: `p` maps `size` writable bytes of the object.
    unsafe {
        assert_eq!(*p.add(size - 1), 0, "fresh objects read zero");
        for i in 0..size {
            *p.add(i) = (i % 251) as u8;
        }
        d.kmd.munmap(p, size).expect("munmap");
    }
    let q = d.kmd.mmap(off.offset, size).expect("mmap again");
    // SAFETY: as above.
    let back: Vec<u8> = unsafe { std::slice::from_raw_parts(q, size) }.to_vec();
    assert!(
        back.iter().enumerate().all(|(i, &b)| b == (i % 251) as u8),
        "data survived remapping"
    );

    assert_eq!(
        d.kmd.mmap(off.offset, size + 1).err(),
        Some(libc::EINVAL),
        "beyond the object"
    );
    assert_eq!(
        d.kmd.mmap(off.offset + 8 * PAGE, 16).err(),
        Some(libc::EINVAL),
        "unknown offset"
    );
    assert_eq!(
        d.kmd.mmap(off.offset, 0).err(),
        Some(libc::EINVAL),
        "empty mapping"
    );
    // SAFETY: not a mapping the kernel gave out; it must be refused, not followed.
    assert_eq!(
        unsafe { d.kmd.munmap(q.wrapping_add(1), size) },
        Err(libc::EINVAL)
    );

    // The mapping keeps the memory alive after the handle goes; new mappings are refused.
    d.kmd
        .gem_close(&drm_gem_close { handle: h, pad: 0 })
        .expect("close");
    // SAFETY: the mapping is still live; the simulated kernel holds the object for it.
    unsafe {
        *q.add(5) = 0x5a;
        assert_eq!(*q.add(5), 0x5a);
    }
    assert!(d.kmd.mmap(off.offset, size).is_err());
    // SAFETY: `q`/`size` is exactly the mapping returned above, no longer used.
    unsafe { d.kmd.munmap(q, size) }.expect("munmap after close");
}

#[test]
fn vm_create_validates_the_kernel_range() {
    let d = dev();
    let p = d.params;
    let create = |kernel_start, kernel_end, pad| {
        let mut v = drm_asahi_vm_create {
            kernel_start,
            kernel_end,
            pad,
            ..Default::default()
        };
        d.kmd.vm_create(&mut v).map(|_| v.vm_id)
    };
    let min = p.vm_kernel_min_size;
    assert_eq!(
        create(p.vm_end - min + PAGE, p.vm_end, 0),
        Err(libc::EINVAL),
        "too small"
    );
    assert_eq!(create(0, min, 0), Err(libc::EINVAL), "below vm_start");
    assert_eq!(
        create(p.vm_end - min, p.vm_end + PAGE, 0),
        Err(libc::EINVAL),
        "past vm_end"
    );
    assert_eq!(
        create(p.vm_end, p.vm_end - min, 0),
        Err(libc::EINVAL),
        "end before start"
    );
    assert_eq!(
        create(p.vm_start + 1, p.vm_start + 1 + min, 0),
        Err(libc::EINVAL),
        "unaligned"
    );
    assert_eq!(
        create(p.vm_start, p.vm_start + min, 1),
        Err(libc::EINVAL),
        "pad"
    );
    assert_eq!(create(p.vm_start, p.vm_start + min, 0), Ok(d.vm + 1));
    assert_eq!(
        d.kmd
            .vm_destroy(&drm_asahi_vm_destroy { vm_id: 77, pad: 0 }),
        Err(libc::ENOENT)
    );
    assert_eq!(
        d.kmd.vm_destroy(&drm_asahi_vm_destroy {
            vm_id: d.vm + 1,
            pad: 0
        }),
        Ok(())
    );
    assert_eq!(
        d.kmd.vm_destroy(&drm_asahi_vm_destroy {
            vm_id: d.vm + 1,
            pad: 0
        }),
        Err(libc::ENOENT)
    );
}

const VA: u64 = 0x10_0000_0000;

#[test]
fn vm_bind_rejects_misaligned_ops() {
    let d = dev();
    let h = d.bo(4 * PAGE);
    assert_eq!(
        d.bind(&[map(h, 0, PAGE, VA + 0x1000)]),
        Err(libc::EINVAL),
        "addr"
    );
    assert_eq!(
        d.bind(&[map(h, 0x1000, PAGE, VA)]),
        Err(libc::EINVAL),
        "offset"
    );
    assert_eq!(
        d.bind(&[map(h, 0, PAGE + 1, VA)]),
        Err(libc::EINVAL),
        "range"
    );
    assert_eq!(
        d.bind(&[map(h, 0, 0, VA)]),
        Err(libc::EINVAL),
        "empty range"
    );
    assert_eq!(
        d.bind(&[unmap(PAGE, VA + 4)]),
        Err(libc::EINVAL),
        "unbind addr"
    );
    assert!(d.mappings().is_empty());
}

#[test]
fn vm_bind_rejects_the_kernel_carve_out_and_outside_addresses() {
    let d = dev();
    let h = d.bo(4 * PAGE);
    let k = d.kernel.clone();
    assert_eq!(
        d.bind(&[map(h, 0, PAGE, k.start)]),
        Err(libc::EINVAL),
        "inside the carve-out"
    );
    assert_eq!(
        d.bind(&[map(h, 0, 2 * PAGE, k.start - PAGE)]),
        Err(libc::EINVAL),
        "straddles it"
    );
    assert_eq!(
        d.bind(&[unmap(PAGE, k.start)]),
        Err(libc::EINVAL),
        "unbinding it"
    );
    assert_eq!(
        d.bind(&[map(h, 0, PAGE, 0)]),
        Err(libc::EINVAL),
        "page 0 is not user VA"
    );
    assert_eq!(
        d.bind(&[map(h, 0, PAGE, d.params.vm_end)]),
        Err(libc::EINVAL),
        "past vm_end"
    );
    assert_eq!(
        d.bind(&[map(h, 0, PAGE, u64::MAX - PAGE + 1)]),
        Err(libc::EINVAL),
        "wraps"
    );
    assert_eq!(
        d.bind(&[map(h, 0, PAGE, k.start - PAGE)]),
        Ok(()),
        "just below is fine"
    );
    assert_eq!(d.mappings(), vec![(k.start - PAGE, k.start, h, 0)]);
}

#[test]
fn vm_bind_rejects_bad_objects_flags_and_vms() {
    let d = dev();
    let h = d.bo(2 * PAGE);
    assert_eq!(
        d.bind(&[map(h + 9, 0, PAGE, VA)]),
        Err(libc::ENOENT),
        "unknown handle"
    );
    assert_eq!(
        d.bind(&[map(h, PAGE, 2 * PAGE, VA)]),
        Err(libc::EINVAL),
        "past the object"
    );
    let mut no_perm = map(h, 0, PAGE, VA);
    no_perm.flags = 0;
    assert_eq!(
        d.bind(&[no_perm]),
        Err(libc::EINVAL),
        "neither READ nor WRITE"
    );
    let mut unknown = map(h, 0, PAGE, VA);
    unknown.flags |= 1 << 7;
    assert_eq!(d.bind(&[unknown]), Err(libc::EINVAL), "unknown flag");
    let mut sloppy_unbind = unmap(PAGE, VA);
    sloppy_unbind.handle = h;
    assert_eq!(
        d.bind(&[sloppy_unbind]),
        Err(libc::EINVAL),
        "UNBIND with a handle"
    );
    assert_eq!(
        bind_on(&d.kmd, d.vm + 5, &[map(h, 0, PAGE, VA)]),
        Err(libc::ENOENT),
        "unknown VM"
    );

    let short = drm_asahi_vm_bind {
        vm_id: d.vm,
        num_binds: 1,
        stride: 16,
        pad: 0,
        userptr: 8,
    };
    // SAFETY: rejected on the stride before the pointer is read.
    assert_eq!(
        unsafe { d.kmd.vm_bind(&short) },
        Err(libc::EINVAL),
        "stride below the op size"
    );

    let mut private = drm_asahi_gem_create {
        size: PAGE,
        flags: DRM_ASAHI_GEM_VM_PRIVATE,
        vm_id: d.vm,
        ..Default::default()
    };
    d.kmd.gem_create(&mut private).expect("private BO");
    let mut other = drm_asahi_vm_create {
        kernel_start: d.kernel.start,
        kernel_end: d.kernel.end,
        ..Default::default()
    };
    d.kmd.vm_create(&mut other).expect("second VM");
    assert_eq!(
        bind_on(&d.kmd, other.vm_id, &[map(private.handle, 0, PAGE, VA)]),
        Err(libc::EINVAL)
    );
    assert_eq!(
        d.bind(&[map(private.handle, 0, PAGE, VA)]),
        Ok(()),
        "its own VM is fine"
    );
    assert_eq!(d.mappings(), vec![(VA, VA + PAGE, private.handle, 0)]);
}

#[test]
fn vm_bind_applies_nothing_when_one_op_is_bad() {
    let d = dev();
    let a = d.bo(4 * PAGE);
    let b = d.bo(4 * PAGE);
    d.bind(&[map(a, 0, 2 * PAGE, VA)]).expect("initial mapping");
    let before = d.mappings();

    let good = [
        unmap(2 * PAGE, VA),
        map(b, 0, PAGE, VA + 8 * PAGE),
        map(b, PAGE, PAGE, VA + 9 * PAGE),
    ];
    let mut ops = good.to_vec();
    ops.push(map(b, 0, PAGE, d.kernel.start)); // bad: inside the carve-out
    assert_eq!(d.bind(&ops), Err(libc::EINVAL));
    assert_eq!(
        d.mappings(),
        before,
        "the unmap before the bad op was not applied"
    );

    assert_eq!(d.bind(&good), Ok(()));
    assert_eq!(
        d.mappings(),
        vec![
            (VA + 8 * PAGE, VA + 9 * PAGE, b, 0),
            (VA + 9 * PAGE, VA + 10 * PAGE, b, PAGE)
        ]
    );
}

#[test]
fn vm_bind_replaces_overlapping_mappings_and_unbinds_parts() {
    let d = dev();
    let a = d.bo(4 * PAGE);
    let b = d.bo(PAGE);
    d.bind(&[map(a, 0, 3 * PAGE, VA)]).expect("bind a");
    d.bind(&[map(b, 0, PAGE, VA + PAGE)])
        .expect("bind b over a's middle page");
    assert_eq!(
        d.mappings(),
        vec![
            (VA, VA + PAGE, a, 0),
            (VA + PAGE, VA + 2 * PAGE, b, 0),
            (VA + 2 * PAGE, VA + 3 * PAGE, a, 2 * PAGE)
        ]
    );
    d.bind(&[unmap(2 * PAGE, VA + PAGE)])
        .expect("unbind b and a's tail");
    assert_eq!(d.mappings(), vec![(VA, VA + PAGE, a, 0)]);
}

#[test]
fn gpu_sees_cpu_writes_through_the_vm() {
    let d = dev();
    let h = d.bo(2 * PAGE);
    let mut off = drm_asahi_gem_mmap_offset {
        handle: h,
        ..Default::default()
    };
    d.kmd.gem_mmap_offset(&mut off).expect("offset");
    let p = d.kmd.mmap(off.offset, (2 * PAGE) as usize).expect("mmap");
    // SAFETY: the mapping is 2 pages long and writable.
    unsafe {
        *p = 0x11;
        *p.add(PAGE as usize) = 0x22;
    }
    let mut single = map(h, PAGE, 4 * PAGE, VA + 16 * PAGE);
    single.flags = DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_SINGLE_PAGE;
    d.bind(&[map(h, 0, 2 * PAGE, VA), single]).expect("bind");

    let mut b = [0u8; 1];
    d.kmd.read_gpu(d.vm, VA, &mut b).expect("mapped");
    assert_eq!(b[0], 0x11);
    d.kmd.read_gpu(d.vm, VA + PAGE, &mut b).expect("mapped");
    assert_eq!(b[0], 0x22);
    for i in 0..4 {
        d.kmd
            .read_gpu(d.vm, VA + (16 + i) * PAGE, &mut b)
            .expect("single-page run");
        assert_eq!(b[0], 0x22, "every page of the run shows object page 1");
    }
    assert!(
        d.kmd.read_gpu(d.vm, VA + 2 * PAGE, &mut b).is_err(),
        "unmapped"
    );

    // Closing the handle drops its GPU mappings, as the Asahi kernel does.
    d.kmd
        .gem_close(&drm_gem_close { handle: h, pad: 0 })
        .expect("close");
    assert!(d.mappings().is_empty());
    assert!(d.kmd.read_gpu(d.vm, VA, &mut b).is_err());
    // SAFETY: the mapping from above, no longer used.
    unsafe { d.kmd.munmap(p, (2 * PAGE) as usize) }.expect("munmap");
}
