//! Recording every [`Kmd`](crate::Kmd) call into a file, and replaying a recording into a
//! fresh [`SimKmd`](crate::sim::SimKmd).
//!
//! With `AGX4_TRACE=<path>` set, [`open_default`](crate::open_default) wraps the chosen
//! backend in a [`TraceKmd`]. It records the calls that change kernel state (objects, VM
//! bindings, queues, syncobjs, submissions) and, before each SUBMIT and when an object is
//! closed, every byte of GPU memory the host changed since the last snapshot. When an object
//! is closed it records a hash of its final contents. Replaying the file into a new simulated
//! device must give the same final contents for every object: the GPU then saw nothing but
//! what the trace holds, which is the proof that no state reaches the simulator around the
//! UAPI.
//!
//! Tracing makes submission synchronous: SUBMIT returns only after the work finished and its
//! results were taken as the new baseline of every object. The GPU's writes are therefore
//! never recorded as host writes; the replay has to compute them, and any difference shows in
//! the objects' final hashes. (A host write made while the GPU runs, to bytes the GPU does
//! not touch, is taken for the GPU's; Vulkan allows it, but no known caller of agx4 does it.)

mod format;
mod recorder;
mod replay;
mod timestamps;

pub use format::{Record, TraceError};
pub use recorder::TraceKmd;
pub use replay::{replay, ReplayReport};

/// Environment variable naming the trace file to write.
pub const TRACE_ENV: &str = "AGX4_TRACE";

/// FNV-1a, 64-bit: a content hash with no dependency, good enough to detect any difference a
/// test cares about (the replay tool can also write the full contents out).
pub fn content_hash(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}
