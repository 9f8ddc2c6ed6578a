//! SUBMIT and queues on the simulated kernel: validation, fault handling, fence signaling.

mod common;

use common::*;
use kmd_iface::uapi::*;
use kmd_iface::Kmd;

const ALL: u32 = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;

/// A submit that must be refused with `errno` and leave `out` without a fence and the
/// queue usable.
fn refused(d: &Dev, queue: u32, errno: i32, ins: &[drm_asahi_sync], cmdbuf: &[u8], what: &str) {
    let out = d.syncobj(0);
    assert_eq!(
        d.submit(queue, ins, &[binary(out)], cmdbuf),
        Err(errno),
        "{what}"
    );
    assert_eq!(
        wait(&d.kmd, &[out], 0, 0),
        Err(libc::EINVAL),
        "{what}: out-sync got no fence"
    );
}

#[test]
fn queue_create_validates_its_arguments() {
    let d = dev();
    let create = |flags, vm_id, priority, usc_exec_base| {
        let mut q = drm_asahi_queue_create {
            flags,
            vm_id,
            priority,
            usc_exec_base,
            ..Default::default()
        };
        d.kmd.queue_create(&mut q).map(|_| q.queue_id)
    };
    assert_eq!(create(1, d.vm, 0, USC_BASE), Err(libc::EINVAL), "flags");
    assert_eq!(
        create(0, d.vm, DRM_ASAHI_PRIORITY_HIGH, USC_BASE),
        Err(libc::EINVAL),
        "priority"
    );
    assert_eq!(create(0, d.vm + 3, 0, USC_BASE), Err(libc::ENOENT), "vm");
    assert_eq!(
        create(0, d.vm, 0, 0),
        Err(libc::EINVAL),
        "window starts below vm_start"
    );
    assert_eq!(
        create(0, d.vm, 0, d.params.vm_end - (1 << 31)),
        Err(libc::EINVAL),
        "window runs past vm_end"
    );
    assert_eq!(
        create(0, d.vm, 0, u64::MAX - 5),
        Err(libc::EINVAL),
        "window wraps"
    );
    assert_eq!(create(0, d.vm, DRM_ASAHI_PRIORITY_MEDIUM, USC_BASE), Ok(1));
    assert_eq!(
        d.kmd.queue_destroy(&drm_asahi_queue_destroy {
            queue_id: 2,
            pad: 0
        }),
        Err(libc::ENOENT)
    );
    assert_eq!(
        d.kmd.queue_destroy(&drm_asahi_queue_destroy {
            queue_id: 1,
            pad: 1
        }),
        Err(libc::EINVAL)
    );
    assert_eq!(
        d.kmd.queue_destroy(&drm_asahi_queue_destroy {
            queue_id: 1,
            pad: 0
        }),
        Ok(())
    );
}

#[test]
fn compute_faults_the_queue_but_signals_its_syncs() {
    let d = dev();
    let q = d.queue();
    let (bin, tl) = (d.syncobj(0), d.syncobj(0));
    d.submit(
        q,
        &[],
        &[binary(bin), timeline(tl, 3)],
        &compute(NONE, NONE),
    )
    .expect("first submit");
    assert_eq!(
        query(&d.kmd, tl, DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED),
        Ok(3),
        "point installed at submit"
    );
    twait(&d.kmd, &[(tl, 3)], ALL, deadline_ms(&d.kmd, 10_000)).expect("timeline point signals");
    wait(&d.kmd, &[bin], ALL, deadline_ms(&d.kmd, 10_000)).expect("binary signals");
    assert_eq!(query(&d.kmd, tl, 0), Ok(3));

    // The command's control stream address is one that nothing maps.
    let fault = d.kmd.queue_fault(q).expect("the GPU model faulted");
    assert!(
        matches!(
            fault,
            sim_gpu::Fault::Unmapped {
                va: 0x1_2340_0000,
                ..
            }
        ),
        "{fault}"
    );
    assert_eq!(
        d.submit(q, &[], &[], &compute(NONE, NONE)),
        Err(libc::ECANCELED)
    );

    // Other queues are unaffected.
    let q2 = d.queue();
    let s = d.syncobj(0);
    d.submit(q2, &[timeline(tl, 3)], &[binary(s)], &compute(0, 0))
        .expect("fresh queue accepts work");
    wait(&d.kmd, &[s], ALL, deadline_ms(&d.kmd, 10_000)).expect("and signals it");
}

#[test]
fn malformed_command_buffers_are_refused() {
    let d = dev();
    let q = d.queue();
    let cmd = compute(NONE, NONE);

    let mut over = cmd.clone();
    over[2..4].copy_from_slice(&(size_of::<drm_asahi_cmd_compute>() as u16 + 8).to_le_bytes());
    refused(&d, q, libc::EINVAL, &[], &over, "size runs past the buffer");
    refused(&d, q, libc::EINVAL, &[], &cmd[..4], "truncated header");
    refused(
        &d,
        q,
        libc::EINVAL,
        &[],
        &cmd[..cmd.len() - 1],
        "truncated payload",
    );

    let mut unknown = cmd.clone();
    unknown[0] = 9;
    refused(&d, q, libc::EINVAL, &[], &unknown, "unknown command type");
    refused(&d, q, libc::EINVAL, &[], &[], "no commands at all");
    let attachments_only = header(DRM_ASAHI_SET_COMPUTE_ATTACHMENTS, 0, NONE, NONE);
    refused(
        &d,
        q,
        libc::EINVAL,
        &[],
        &attachments_only,
        "only a software command",
    );

    let too_many: Vec<u8> = (0..65).flat_map(|_| compute(NONE, NONE)).collect();
    refused(&d, q, libc::EINVAL, &[], &too_many, "65 hardware commands");

    refused(
        &d,
        q,
        libc::EINVAL,
        &[],
        &compute(NONE, 1),
        "barrier on a compute not yet submitted",
    );
    refused(
        &d,
        q,
        libc::EINVAL,
        &[],
        &compute(1, NONE),
        "vdm barrier with no render before",
    );
    let mut second_bad = compute(NONE, NONE);
    second_bad.extend(compute(NONE, 2));
    refused(
        &d,
        q,
        libc::EINVAL,
        &[],
        &second_bad,
        "barrier past the earlier computes",
    );

    let mut flagged = cmd.clone();
    flagged[8] = 1;
    refused(&d, q, libc::EINVAL, &[], &flagged, "compute flags are MBZ");
    let mut long = header(
        DRM_ASAHI_CMD_COMPUTE,
        size_of::<drm_asahi_cmd_compute>() + 8,
        NONE,
        NONE,
    );
    long.extend(vec![0u8; size_of::<drm_asahi_cmd_compute>()]);
    long.extend([0, 0, 0, 1, 0, 0, 0, 0]);
    refused(&d, q, libc::EINVAL, &[], &long, "unknown nonzero tail");

    let mut att = header(DRM_ASAHI_SET_VERTEX_ATTACHMENTS, 24, 0, NONE);
    att.extend([0u8; 24]);
    att.extend(compute(NONE, NONE));
    refused(
        &d,
        q,
        libc::EINVAL,
        &[],
        &att,
        "attachment command with a barrier",
    );
    let mut att = header(DRM_ASAHI_SET_VERTEX_ATTACHMENTS, 20, NONE, NONE);
    att.extend([0u8; 20]);
    att.extend(compute(NONE, NONE));
    refused(
        &d,
        q,
        libc::EINVAL,
        &[],
        &att,
        "attachment size not a multiple of the struct",
    );

    // The queue took none of that as work: it has not faulted and still accepts this.
    assert!(d.kmd.queue_fault(q).is_none());
    let mut ok = header(DRM_ASAHI_SET_COMPUTE_ATTACHMENTS, 24, NONE, NONE);
    ok.extend([0u8; 24]);
    ok.extend(compute(NONE, NONE));
    ok.extend(compute(0, 1));
    let mut short = header(DRM_ASAHI_CMD_COMPUTE, 16, NONE, NONE);
    short.extend([0u8; 16]);
    ok.extend(short);
    let out = d.syncobj(0);
    d.submit(q, &[], &[binary(out)], &ok)
        .expect("well-formed, with a short (zero-extended) payload");
    wait(&d.kmd, &[out], ALL, deadline_ms(&d.kmd, 10_000)).expect("signals");
}

#[test]
fn malformed_syncs_and_arguments_are_refused() {
    let d = dev();
    let q = d.queue();
    let cmd = compute(NONE, NONE);
    let unsignaled = d.syncobj(0);
    let tl = d.syncobj(0);
    tsignal(&d.kmd, tl, 2).expect("point 2 exists");

    refused(
        &d,
        q,
        libc::ENOENT,
        &[binary(99)],
        &cmd,
        "unknown in-syncobj",
    );
    refused(
        &d,
        q,
        libc::EINVAL,
        &[binary(unsignaled)],
        &cmd,
        "binary in-sync without a fence",
    );
    refused(
        &d,
        q,
        libc::EINVAL,
        &[timeline(tl, 5)],
        &cmd,
        "timeline point not submitted yet",
    );
    refused(
        &d,
        q,
        libc::EINVAL,
        &[drm_asahi_sync {
            sync_type: 7,
            handle: tl,
            timeline_value: 0,
        }],
        &cmd,
        "sync type",
    );
    let signaled = d.syncobj(DRM_SYNCOBJ_CREATE_SIGNALED);
    let mut b = binary(signaled);
    b.timeline_value = 1;
    refused(
        &d,
        q,
        libc::EINVAL,
        &[b],
        &cmd,
        "binary sync with a timeline value",
    );
    assert_eq!(
        d.submit(q, &[], &[binary(99)], &cmd),
        Err(libc::ENOENT),
        "unknown out-syncobj"
    );

    let base = drm_asahi_submit {
        cmdbuf: cmd.as_ptr() as u64,
        cmdbuf_size: cmd.len() as u32,
        queue_id: q,
        ..Default::default()
    };
    assert_eq!(
        d.submit_raw(&drm_asahi_submit { pad: 1, ..base }),
        Err(libc::EINVAL),
        "pad"
    );
    assert_eq!(
        d.submit_raw(&drm_asahi_submit { flags: 1, ..base }),
        Err(libc::EINVAL),
        "flags"
    );
    assert_eq!(
        d.submit_raw(&drm_asahi_submit {
            queue_id: q + 7,
            ..base
        }),
        Err(libc::ENOENT),
        "queue"
    );

    // Nothing was queued or installed: the queue is clean and the existing points unchanged.
    assert!(d.kmd.queue_fault(q).is_none());
    assert_eq!(
        query(&d.kmd, tl, DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED),
        Ok(2)
    );
    let out = d.syncobj(0);
    d.submit(
        q,
        &[timeline(tl, 2), binary(signaled)],
        &[binary(out)],
        &cmd,
    )
    .expect("valid now");
    wait(&d.kmd, &[out], ALL, deadline_ms(&d.kmd, 10_000)).expect("signals");
}

#[test]
fn jobs_wait_for_their_in_fences_across_queues() {
    let d = dev();
    let (q1, q2) = (d.queue(), d.queue());
    let (tl, last) = (d.syncobj(0), d.syncobj(0));
    d.submit(q1, &[], &[timeline(tl, 1)], &compute(NONE, NONE))
        .expect("producer");
    d.submit(
        q2,
        &[timeline(tl, 1)],
        &[binary(last)],
        &compute(NONE, NONE),
    )
    .expect("consumer");
    wait(&d.kmd, &[last], ALL, deadline_ms(&d.kmd, 10_000)).expect("consumer signals");
    assert!(
        twait(&d.kmd, &[(tl, 1)], ALL, 0).is_ok(),
        "its in-fence had signaled first"
    );
}

#[test]
fn destroying_a_queue_still_signals_its_jobs() {
    let d = dev();
    let q = d.queue();
    let out = d.syncobj(0);
    d.submit(q, &[], &[binary(out)], &compute(NONE, NONE))
        .expect("submit");
    d.kmd
        .queue_destroy(&drm_asahi_queue_destroy {
            queue_id: q,
            pad: 0,
        })
        .expect("destroy");
    wait(&d.kmd, &[out], ALL, deadline_ms(&d.kmd, 10_000)).expect("no hang");
    assert_eq!(
        d.submit(q, &[], &[], &compute(NONE, NONE)),
        Err(libc::ENOENT)
    );
}
