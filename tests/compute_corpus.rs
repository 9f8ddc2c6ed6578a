//! The compute shader corpus on agx4's simulated device, through the real loader with
//! validation. The same cases pass on lavapipe (tests/compute_lavapipe.rs).
//! `AGX4_CORPUS_FILTER=<substring>` runs a subset.

mod corpus;

#[test]
fn compute_corpus_on_agx4() {
    let report = corpus::run_corpus(corpus::Driver::Agx4);
    // Per-case lines went to stderr as the cases ran; the assertion lists the failures.
    println!("{}", report.summary());
    report.assert_all_passed();
}
