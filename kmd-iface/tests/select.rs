//! Device selection from the environment. One test, because the variables are process-wide.

mod common;

use kmd_iface::{open_default, Backend};

fn set(kmd: Option<&str>, gpu: Option<&str>) {
    for (name, value) in [("AGX4_KMD", kmd), ("AGX4_SIM_GPU", gpu)] {
        match value {
            Some(v) => std::env::set_var(name, v),
            None => std::env::remove_var(name),
        }
    }
}

#[test]
fn environment_selects_the_backend_and_simulated_gpu() {
    assert_eq!(Backend::Drm.to_string(), "asahi DRM");
    assert_eq!(Backend::Sim.to_string(), "simulated");

    set(Some("bogus"), None);
    let e = open_default().err().expect("unknown AGX4_KMD value");
    assert!(
        e.to_string().contains("auto")
            && e.to_string().contains("sim")
            && e.to_string().contains("drm"),
        "{e}"
    );

    set(Some("sim"), None);
    let kmd = open_default().expect("simulated device");
    assert_eq!(kmd.backend(), Backend::Sim);
    assert_eq!(
        common::params(&*kmd).chip_id,
        0x8103,
        "default GPU is the M1"
    );

    set(Some("sim"), Some("g14c"));
    let kmd = open_default().expect("simulated M2 Max");
    let p = common::params(&*kmd);
    assert_eq!(
        (p.chip_id, p.gpu_generation, p.gpu_variant),
        (0x6021, 14, 'C' as u32)
    );

    set(Some("sim"), Some("g99x"));
    let e = open_default().err().expect("unknown GPU");
    assert!(
        e.to_string().contains("AGX4_SIM_GPU") && e.to_string().contains("g13g"),
        "{e}"
    );

    set(Some("drm"), None);
    match open_default() {
        Ok(kmd) => assert_eq!(kmd.backend(), Backend::Drm),
        Err(e) => assert!(e.to_string().contains("no asahi render node"), "{e}"),
    }

    set(None, None);
    let kmd = open_default().expect("auto always finds a device");
    let real = kmd_iface::drm::DrmKmd::open().is_ok();
    assert_eq!(
        kmd.backend(),
        if real { Backend::Drm } else { Backend::Sim }
    );
}
