//! What unpacking control words and descriptors can fail with, and where stream readers get
//! their bytes. Both are generation-neutral: every generation's control formats use them.

/// Why bytes do not unpack as a control word, descriptor or stream block.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WordError {
    /// Bytes the hardware would not accept: a bad block type or tag, a value outside its
    /// field, a size that disagrees with its header. `va` is where they came from, 0 until a
    /// reader that knows fills it in ([`at`](crate::g13::control::bits::at)).
    #[error("malformed control word at {va:#x}: {reason}")]
    Malformed { va: u64, reason: String },
    /// A layout the public facts do not define yet (the words of tessellation state, say).
    #[error("not modelled: {0}")]
    Unmodelled(&'static str),
}

/// GPU memory as a control-stream reader sees it: the unit that walks a stream asks it for
/// the bytes of each block. Its errors carry the memory's own faults and [`WordError`]s.
pub trait WordSource {
    type Error: From<WordError>;

    /// Fills `buf` from `va..va + buf.len()`.
    fn read_words(&self, va: u64, buf: &mut [u8]) -> Result<(), Self::Error>;
}
