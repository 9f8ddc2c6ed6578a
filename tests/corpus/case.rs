//! What one corpus case is: pipelines, buffers, commands, and the CPU reference.

/// How a buffer is bound: set 0, binding = its index in `Case::buffers`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Desc {
    Storage,
    Uniform,
    /// `STORAGE_BUFFER_DYNAMIC`, bound at offset 0 with this dynamic offset (bytes).
    StorageDynamic(u32),
    /// `UNIFORM_BUFFER_DYNAMIC`, bound at offset 0 with this dynamic offset (bytes).
    UniformDynamic(u32),
}

/// How a buffer gets its first contents.
#[derive(Clone, Debug)]
pub enum Init {
    /// Written through the mapping before submission.
    Host(Vec<u32>),
    /// `vkCmdFillBuffer` with this word over the whole buffer (the host first writes garbage).
    Fill { words: usize, value: u32 },
    /// `vkCmdUpdateBuffer` with these words (the host first writes garbage).
    Update(Vec<u32>),
}

impl Init {
    pub fn words(&self) -> Vec<u32> {
        match self {
            Init::Host(w) | Init::Update(w) => w.clone(),
            Init::Fill { words, value } => vec![*value; *words],
        }
    }
}

/// How the final contents are compared with the reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// Bit-exact words.
    Exact,
    /// Words are f32 bit patterns, compared with the case's tolerance.
    Float,
    /// Equal as multisets: the order depends on which invocation won a race.
    Sorted,
}

#[derive(Clone, Debug)]
pub struct Buffer {
    pub desc: Desc,
    pub init: Init,
    /// Descriptor range in bytes; `None` binds the whole buffer.
    pub range: Option<u64>,
    pub check: Check,
}

/// A compute pipeline: a shader of tests/compute/ and its specialisation constants
/// (id, 32-bit value).
#[derive(Clone, Debug)]
pub struct Pipe {
    pub shader: &'static str,
    pub spec: Vec<(u32, u32)>,
}

/// One recorded command.
#[derive(Clone, Debug)]
pub enum Step {
    Dispatch {
        pipe: usize,
        groups: [u32; 3],
    },
    /// `vkCmdDispatchBase` (Vulkan 1.1).
    Base {
        pipe: usize,
        base: [u32; 3],
        groups: [u32; 3],
    },
    /// `vkCmdDispatchIndirect` reading `VkDispatchIndirectCommand` from a case buffer.
    Indirect {
        pipe: usize,
        buffer: usize,
        offset: u64,
    },
    /// A compute/transfer → compute/indirect/transfer memory barrier.
    Barrier,
    /// The same dependency expressed with `vkCmdSetEvent` + `vkCmdWaitEvents`.
    Event,
    /// `vkCmdPushConstants` at offset 0.
    Push(Vec<u8>),
}

/// Float tolerance: a value passes when within `ulp` units in the last place *or* within
/// `abs` of the reference. `Tol::EXACT` demands identical bits.
#[derive(Clone, Copy, Debug)]
pub struct Tol {
    pub ulp: u32,
    pub abs: f32,
}

impl Tol {
    pub const EXACT: Tol = Tol { ulp: 0, abs: 0.0 };
    pub const fn ulp(n: u32) -> Tol {
        Tol { ulp: n, abs: 0.0 }
    }
    pub const fn abs(e: f32) -> Tol {
        Tol { ulp: 0, abs: e }
    }
}

pub type Reference = Box<dyn Fn(&[Vec<u32>]) -> Vec<Vec<u32>>>;

pub struct Case {
    pub name: &'static str,
    pub pipes: Vec<Pipe>,
    pub buffers: Vec<Buffer>,
    /// Bytes of the push-constant range (0: none).
    pub push_size: u32,
    pub steps: Vec<Step>,
    /// Given every buffer's initial words, the expected final words of every buffer.
    pub reference: Reference,
    pub tol: Tol,
    /// Read results back through `vkCmdCopyBuffer` into separate host-visible buffers.
    pub copy_back: bool,
    /// Bracket the commands with `vkCmdWriteTimestamp` and check the results.
    pub timestamps: bool,
    /// Needs the shaderInt64 device feature: skipped (not passed) on a device without it.
    pub needs_int64: bool,
}

/// Little-endian bytes of 32-bit words, for push constants.
pub fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}
