//! The proof that the simulated GPU sees nothing but the UAPI: the compute corpus runs live
//! on agx4 with `AGX4_TRACE` recording every kernel call, then the trace is replayed into a
//! fresh simulated device, and every GPU object must end with the same bytes in both runs.

mod corpus;

#[test]
fn replaying_the_corpus_trace_reproduces_every_byte() {
    let dir = std::env::temp_dir().join(format!("agx4-trace-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let trace = dir.join("corpus.trace");
    // SAFETY: set before the loader and the driver are loaded; this binary runs one test.
    unsafe { std::env::set_var(kmd_iface::trace::TRACE_ENV, &trace) };

    let live = corpus::run_corpus(corpus::Driver::Agx4);
    println!("{}", live.summary());
    live.assert_all_passed();

    let replayed = kmd_iface::trace::replay(&trace, None).expect("the trace replays");
    let bytes: usize = replayed.final_contents.iter().map(|(_, c)| c.len()).sum();
    println!(
        "replay: {} records, {} submissions, {} objects ({bytes} bytes) compared, {} differ",
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
