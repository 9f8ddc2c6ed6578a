//! Recording every [`Kmd`](crate::Kmd) call into a file, and replaying a recording into a
//! fresh [`SimKmd`](crate::sim::SimKmd).
//!
//! With `AGX4_TRACE=<path>` set, [`open_default`](crate::open_default) wraps the chosen
//! backend in a [`TraceKmd`]. It records the calls that change kernel state (objects, VM
//! bindings, queues, syncobjs, submissions) and, before each SUBMIT, every byte of GPU memory
//! that changed since the previous SUBMIT. When an object is closed it records a hash of its
//! final contents. Replaying the file into a new simulated device must give the same final
//! contents for every object: the GPU then saw nothing but what the trace holds, which is the
//! proof that no state reaches the simulator around the UAPI.
//!
//! Tracing makes submission synchronous: before it snapshots memory for a SUBMIT it waits for
//! the previous SUBMIT to finish, so a snapshot never catches the GPU half way through.

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
