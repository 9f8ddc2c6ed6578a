//! The compute shader corpus on Mesa's lavapipe, through the real loader with validation.
//! This is the check on the corpus itself: every reference must agree with a conformant
//! driver. `AGX4_CORPUS_FILTER=<substring>` runs a subset.

mod corpus;

#[test]
fn compute_corpus_on_lavapipe() {
    let report = corpus::run_corpus(corpus::Driver::Lavapipe);
    // Per-case lines went to stderr as the cases ran; the assertion lists the failures.
    println!("{}", report.summary());
    report.assert_all_passed();
}
