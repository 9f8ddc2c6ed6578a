//! Trace and replay: what goes through a TraceKmd comes back out of a replay, and a trace
//! that was tampered with is caught.

mod common;

use common::*;
use hw::Identity;
use kmd_iface::sim::SimKmd;
use kmd_iface::trace::{replay, TraceKmd};
use kmd_iface::uapi::*;
use kmd_iface::Kmd;
use std::sync::Arc;

const PATTERN: &[u8] = b"agx4 trace pattern: this exact text must survive the replay";
/// Written after the last submission, before the close: it reaches no GPU, but it is part of
/// the object's final contents, so the trace must carry it too.
const LATE: &[u8] = b"written by the host after the last SUBMIT";

fn write_object(kmd: &dyn Kmd, handle: u32, size: usize, at: usize, data: &[u8]) {
    let mut off = drm_asahi_gem_mmap_offset {
        handle,
        ..Default::default()
    };
    kmd.gem_mmap_offset(&mut off).expect("GEM_MMAP_OFFSET");
    let p = kmd.mmap(off.offset, size).expect("mmap");
    // SAFETY: `p` maps `size` bytes of the object and `at + data.len()` stays inside it.
    unsafe {
        std::ptr::copy_nonoverlapping(data.as_ptr(), p.add(at), data.len());
        kmd.munmap(p, size).expect("munmap");
    }
}

/// Records a small session: two objects bound into a VM, data written, a submission, closes.
fn record(path: &std::path::Path) {
    let sim = Arc::new(SimKmd::new(Identity::by_name("g13g").expect("known GPU")));
    let kmd = TraceKmd::create(sim, path).expect("trace file");
    let p = params(&kmd);
    let mut vm = drm_asahi_vm_create {
        kernel_start: p.vm_end - (1 << 30),
        kernel_end: p.vm_end,
        ..Default::default()
    };
    kmd.vm_create(&mut vm).expect("VM_CREATE");
    let mut bos = Vec::new();
    for size in [PAGE, 4 * PAGE] {
        let mut c = drm_asahi_gem_create {
            size,
            ..Default::default()
        };
        kmd.gem_create(&mut c).expect("GEM_CREATE");
        bos.push((c.handle, size));
    }
    bind_on(
        &kmd,
        vm.vm_id,
        &[
            map(bos[0].0, 0, PAGE, 0x10_0000_0000),
            map(bos[1].0, 0, 4 * PAGE, 0x10_0001_0000),
        ],
    )
    .expect("VM_BIND");
    write_object(&kmd, bos[0].0, PAGE as usize, 100, PATTERN);
    write_object(
        &kmd,
        bos[1].0,
        4 * PAGE as usize,
        3 * PAGE as usize + 7,
        &[0xa5; 300],
    );

    let mut q = drm_asahi_queue_create {
        vm_id: vm.vm_id,
        usc_exec_base: USC_BASE,
        ..Default::default()
    };
    kmd.queue_create(&mut q).expect("QUEUE_CREATE");
    let mut s = drm_syncobj_create::default();
    kmd.syncobj_create(&mut s).expect("SYNCOBJ_CREATE");
    let syncs = [binary(s.handle)];
    let cmd = compute(NONE, NONE);
    let args = drm_asahi_submit {
        syncs: syncs.as_ptr() as u64,
        cmdbuf: cmd.as_ptr() as u64,
        queue_id: q.queue_id,
        out_sync_count: 1,
        cmdbuf_size: cmd.len() as u32,
        ..Default::default()
    };
    // SAFETY: `syncs` and `cmd` are alive and hold the counts stated.
    unsafe { kmd.submit(&args) }.expect("SUBMIT");
    wait(
        &kmd,
        &[s.handle],
        DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL,
        deadline_ms(&kmd, 10_000),
    )
    .expect("signalled");
    write_object(&kmd, bos[1].0, 4 * PAGE as usize, 64, LATE);
    for (handle, _) in bos {
        kmd.gem_close(&drm_gem_close { handle, pad: 0 })
            .expect("GEM_CLOSE");
    }
}

#[test]
fn replay_reproduces_every_object() {
    let dir = std::env::temp_dir().join(format!("agx4-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("session.trace");
    record(&path);

    let report = replay(&path, Some(&dir.join("out"))).expect("replay");
    assert_eq!(report.submits, 1);
    assert_eq!(report.objects_compared, 2);
    assert!(report.mismatches.is_empty(), "{:?}", report.mismatches);
    let (_, first) = &report.final_contents[0];
    assert_eq!(&first[100..100 + PATTERN.len()], PATTERN);
    let (_, second) = &report.final_contents[1];
    assert_eq!(&second[64..64 + LATE.len()], LATE);

    // Flip one byte of the recorded data: the replay must notice the object differs.
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes
        .windows(PATTERN.len())
        .position(|w| w == PATTERN)
        .expect("pattern is in the trace");
    bytes[at] ^= 1;
    let tampered = dir.join("tampered.trace");
    std::fs::write(&tampered, &bytes).unwrap();
    let report = replay(&tampered, None).expect("replay");
    assert_eq!(
        report.mismatches.len(),
        1,
        "the tampered object is reported"
    );

    // Truncated and garbage traces are errors, not panics.
    std::fs::write(&tampered, &bytes[..bytes.len() / 2]).unwrap();
    assert!(replay(&tampered, None).is_err());
    std::fs::write(&tampered, b"not a trace").unwrap();
    assert!(replay(&tampered, None).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}
