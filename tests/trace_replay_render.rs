//! The render scenes under `AGX4_TRACE`: every scene agx4 renders runs live with the trace
//! recording every kernel call, then the trace is replayed into a fresh simulated device, and
//! every GPU object must end with the same bytes in both runs. Render commands carry the most
//! state the simulator reads (VDM streams, tile programs, ZLS buffers, the TVB heap), so this
//! is where a side channel between the driver and the simulator would show. The tiler heap is
//! one 128 KiB block, so the large scene needs partial renders, and the replay must make the
//! same ones.

#[path = "render_scenes/mod.rs"]
mod render_scenes;

use render_scenes::gpu::{self, Driver, Gpu};
use render_scenes::run::{run_scene, selected, Outcome};

#[test]
fn replaying_the_render_scenes_trace_reproduces_every_byte() {
    let dir = std::env::temp_dir().join(format!("agx4-trace-render-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let trace = dir.join("scenes.trace");
    // SAFETY: set before the loader and the driver are loaded; this binary runs one test.
    unsafe {
        std::env::set_var(kmd_iface::trace::TRACE_ENV, &trace);
        std::env::set_var("AGX4_SIM_TVB_MAX_BYTES", "131072");
    }

    let agx = Driver::agx4().expect("agx4 library");
    gpu::register(&[&agx]).expect("register agx4");
    let agpu = Gpu::open(&agx).expect("open agx4");
    let (mut rendered, mut failed) = (0, Vec::new());
    let mut large = false;
    for s in selected() {
        match run_scene(&agpu, &s) {
            Outcome::Pass(_) => {
                rendered += 1;
                large |= s.name == render_scenes::scenes::LARGE;
            }
            Outcome::Skip(_) => {}
            Outcome::Fail(e, _) => failed.push(format!("{}: {e}", s.name)),
        }
    }
    // Destroying the device closes every object, so each one's final hash is in the trace.
    drop(agpu);
    assert!(failed.is_empty(), "scenes failed while traced: {failed:?}");
    assert!(rendered > 0, "no scene rendered");
    assert!(large, "the large scene (partial renders) was not rendered");

    let replayed = kmd_iface::trace::replay(&trace, None).expect("the trace replays");
    println!(
        "{rendered} scenes; replay: {} records, {} submissions, {} objects compared, {} differ",
        replayed.records,
        replayed.submits,
        replayed.objects_compared,
        replayed.mismatches.len()
    );
    assert!(
        replayed.submits > 0 && replayed.objects_compared > 0,
        "the trace holds real work"
    );
    assert!(
        replayed.mismatches.is_empty(),
        "objects that differ: {:?}",
        replayed.mismatches
    );
    let _ = std::fs::remove_dir_all(&dir);
}
