//! GPU memory as the GPU model reaches it, and the faults that access can raise.

use std::fmt;

/// The kind of access that faulted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Access::Read => "read",
            Access::Write => "write",
        })
    }
}

/// Why a command stopped. The firmware reports it and the queue is marked faulted; the ICD
/// turns that into `VK_ERROR_DEVICE_LOST`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Fault {
    #[error("GPU page fault: {access} of unmapped address {va:#x}")]
    Unmapped { va: u64, access: Access },
    #[error("GPU permission fault: {access} of {va:#x} not allowed by the mapping")]
    Permission { va: u64, access: Access },
    /// The command used hardware behaviour the model does not implement yet. This is a fault
    /// rather than a silent no-op so a missing feature can never pass as a correct result.
    #[error("not implemented by the simulated GPU: {0}")]
    Unimplemented(&'static str),
    /// A control stream or USC word the hardware would not accept (bad block type or tag, a
    /// value outside its field, a stream that never ends).
    #[error("malformed control word at {va:#x}: {reason}")]
    BadControlWord { va: u64, reason: String },
    /// A shader did something the USC cannot continue from: a jump outside its code, running
    /// off the end without `stop`, an instruction budget exhausted (an endless loop), an
    /// undecodable instruction. `pc` is the instruction's GPU address.
    #[error("shader fault at {pc:#x}: {reason}")]
    Shader { pc: u64, reason: String },
    /// The model itself failed: a bug in agx4, never a property of the submitted work.
    #[error("simulated GPU internal error: {0}")]
    Internal(&'static str),
}

impl From<hw::WordError> for Fault {
    fn from(e: hw::WordError) -> Fault {
        match e {
            hw::WordError::Malformed { va, reason } => Fault::BadControlWord { va, reason },
            hw::WordError::Unmodelled(what) => Fault::Unimplemented(what),
        }
    }
}

/// GPU virtual memory of one VM, with the permissions its mappings grant.
pub trait GpuMemory {
    /// Fill `buf` from `va..va + buf.len()`; fails on the first byte that is not readable.
    fn read(&self, va: u64, buf: &mut [u8]) -> Result<(), Fault>;
    /// Store `data` at `va..va + data.len()`; fails on the first byte that is not writable.
    /// Bytes before the faulting page may already have been written, as on hardware.
    fn write(&mut self, va: u64, data: &[u8]) -> Result<(), Fault>;

    fn read_u32(&self, va: u64) -> Result<u32, Fault> {
        let mut b = [0; 4];
        self.read(va, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    fn read_u64(&self, va: u64) -> Result<u64, Fault> {
        let mut b = [0; 8];
        self.read(va, &mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    fn write_u32(&mut self, va: u64, v: u32) -> Result<(), Fault> {
        self.write(va, &v.to_le_bytes())
    }

    fn write_u64(&mut self, va: u64, v: u64) -> Result<(), Fault> {
        self.write(va, &v.to_le_bytes())
    }

    /// Reads `buf.len() / addrs.len()` bytes at each of `addrs` into consecutive slots of
    /// `buf`: what a SIMD group's load asks of memory at once. Fails as the first failing
    /// [`read`](GpuMemory::read) of the slots in order would; `buf` is then unspecified.
    fn gather(&self, addrs: &[u64], buf: &mut [u8]) -> Result<(), Fault> {
        each_slot(addrs, buf.len(), |at, r| self.read(at, &mut buf[r]))
    }

    /// Writes consecutive slots of `data` to each of `addrs` in order: exactly the
    /// [`write`](GpuMemory::write)s of the slots one after another, stopping at the first
    /// that fails (the slots before it stay written).
    fn scatter(&mut self, addrs: &[u64], data: &[u8]) -> Result<(), Fault> {
        each_slot(addrs, data.len(), |at, r| self.write(at, &data[r]))
    }

    /// The same memory for several host threads at once, when it can be shared (the USC
    /// then spreads workgroups over threads; see `usc::parallel`).
    fn shared(&self) -> Option<&dyn SharedGpuMemory> {
        None
    }

    /// The readable bytes around `va` that lie consecutively in host memory, for a unit
    /// that reads many small pieces near each other; `None` where the memory has no such
    /// view (then [`read`](GpuMemory::read) serves, and reports faults).
    fn read_window(&self, _va: u64) -> Option<ReadWindow<'_>> {
        None
    }
}

/// The control-stream readers of `hw` read GPU memory as any unit does.
impl hw::WordSource for dyn GpuMemory + '_ {
    type Error = Fault;

    fn read_words(&self, va: u64, buf: &mut [u8]) -> Result<(), Fault> {
        self.read(va, buf)
    }
}

/// GPU addresses whose bytes are readable and lie consecutively in host memory, borrowed
/// from the memory that made the window: reads inside it skip the page table and give the
/// bytes [`GpuMemory::read`] would.
pub struct ReadWindow<'a> {
    va: std::ops::Range<u64>,
    ptr: *const u8,
    _mem: std::marker::PhantomData<&'a ()>,
}

impl ReadWindow<'_> {
    /// # Safety
    /// `ptr` must hold the bytes of GPU addresses `va`, all readable by the GPU, and stay
    /// valid for reads of `va.end - va.start` bytes for the window's lifetime. Other threads
    /// may write them meanwhile, as GPU units race on hardware.
    pub unsafe fn new(va: std::ops::Range<u64>, ptr: *const u8) -> Self {
        ReadWindow {
            va,
            ptr,
            _mem: std::marker::PhantomData,
        }
    }

    /// Fills `buf` from `va` if the window holds all of it.
    #[inline]
    pub fn read(&self, va: u64, buf: &mut [u8]) -> bool {
        let Some(end) = va.checked_add(buf.len() as u64) else {
            return false;
        };
        if va < self.va.start || end > self.va.end {
            return false;
        }
        // SAFETY: inside the window, which `new`'s caller vouched for; `buf` is a distinct
        // Rust buffer.
        unsafe {
            copy_small(
                self.ptr.add((va - self.va.start) as usize),
                buf.as_mut_ptr(),
                buf.len(),
            )
        };
        true
    }
}

/// Copies `n` bytes, with the sizes a lane's access has as single moves.
///
/// # Safety
/// As `std::ptr::copy_nonoverlapping`: both ranges valid for `n` bytes, not overlapping.
#[inline]
pub unsafe fn copy_small(src: *const u8, dst: *mut u8, n: usize) {
    // SAFETY: the caller's guarantee; unaligned moves of exactly `n` bytes.
    unsafe {
        match n {
            4 => dst
                .cast::<u32>()
                .write_unaligned(src.cast::<u32>().read_unaligned()),
            8 => dst
                .cast::<u64>()
                .write_unaligned(src.cast::<u64>().read_unaligned()),
            16 => dst
                .cast::<u128>()
                .write_unaligned(src.cast::<u128>().read_unaligned()),
            2 => dst
                .cast::<u16>()
                .write_unaligned(src.cast::<u16>().read_unaligned()),
            _ => std::ptr::copy_nonoverlapping(src, dst, n),
        }
    }
}

/// Calls `f(address, byte range of its slot)` for each address, in order, stopping at the
/// first error; `bytes` is the whole buffer, split evenly between the addresses.
fn each_slot(
    addrs: &[u64],
    bytes: usize,
    mut f: impl FnMut(u64, std::ops::Range<usize>) -> Result<(), Fault>,
) -> Result<(), Fault> {
    let n = bytes.checked_div(addrs.len()).unwrap_or(0);
    for (i, &at) in addrs.iter().enumerate() {
        f(at, i * n..(i + 1) * n)?;
    }
    Ok(())
}

/// GPU memory several host threads access at once. Each access is whole for its thread but
/// not atomic against the others', as plain loads and stores on the hardware: two workgroups
/// that write the same bytes without atomics race there too.
pub trait SharedGpuMemory: Sync {
    fn read(&self, va: u64, buf: &mut [u8]) -> Result<(), Fault>;
    fn write(&self, va: u64, data: &[u8]) -> Result<(), Fault>;

    /// As [`GpuMemory::gather`].
    fn gather(&self, addrs: &[u64], buf: &mut [u8]) -> Result<(), Fault> {
        each_slot(addrs, buf.len(), |at, r| self.read(at, &mut buf[r]))
    }

    /// As [`GpuMemory::scatter`].
    fn scatter(&self, addrs: &[u64], data: &[u8]) -> Result<(), Fault> {
        each_slot(addrs, data.len(), |at, r| self.write(at, &data[r]))
    }

    /// As [`GpuMemory::read_window`].
    fn read_window(&self, _va: u64) -> Option<ReadWindow<'_>> {
        None
    }
}

/// A [`SharedGpuMemory`] as the [`GpuMemory`] one thread uses.
pub struct SharedView<'a>(pub &'a dyn SharedGpuMemory);

impl GpuMemory for SharedView<'_> {
    fn read(&self, va: u64, buf: &mut [u8]) -> Result<(), Fault> {
        self.0.read(va, buf)
    }

    fn write(&mut self, va: u64, data: &[u8]) -> Result<(), Fault> {
        self.0.write(va, data)
    }

    fn gather(&self, addrs: &[u64], buf: &mut [u8]) -> Result<(), Fault> {
        self.0.gather(addrs, buf)
    }

    fn scatter(&mut self, addrs: &[u64], data: &[u8]) -> Result<(), Fault> {
        self.0.scatter(addrs, data)
    }

    fn shared(&self) -> Option<&dyn SharedGpuMemory> {
        Some(self.0)
    }

    fn read_window(&self, va: u64) -> Option<ReadWindow<'_>> {
        self.0.read_window(va)
    }
}
