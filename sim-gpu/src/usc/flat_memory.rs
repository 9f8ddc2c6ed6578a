//! A simple [`GpuMemory`] for tests and benchmarks: a few byte regions at fixed addresses,
//! everything else unmapped.

use crate::{Access, Fault, GpuMemory, ReadWindow};

#[derive(Debug, Clone, Default)]
pub struct FlatMemory {
    regions: Vec<(u64, Vec<u8>)>,
}

impl FlatMemory {
    pub fn new() -> FlatMemory {
        FlatMemory::default()
    }

    /// Memory holding `bytes` at `va`.
    pub fn with(va: u64, bytes: &[u8]) -> FlatMemory {
        let mut m = FlatMemory::new();
        m.map(va, bytes.to_vec());
        m
    }

    /// Map `bytes` at `va` (regions must not overlap).
    pub fn map(&mut self, va: u64, bytes: Vec<u8>) {
        self.regions.push((va, bytes));
    }

    /// The region containing `va..va+len`: its index and the offset in it.
    fn find(&self, va: u64, len: usize) -> Option<(usize, usize)> {
        self.regions.iter().enumerate().find_map(|(i, (base, b))| {
            let off = va.checked_sub(*base)?;
            (off.checked_add(len as u64)? <= b.len() as u64).then_some((i, off as usize))
        })
    }

    /// The bytes at `va..va+len`, if mapped.
    pub fn bytes(&self, va: u64, len: usize) -> Option<&[u8]> {
        let (i, off) = self.find(va, len)?;
        Some(&self.regions[i].1[off..off + len])
    }
}

impl GpuMemory for FlatMemory {
    fn read(&self, va: u64, buf: &mut [u8]) -> Result<(), Fault> {
        let (i, off) = self.find(va, buf.len()).ok_or(Fault::Unmapped {
            va,
            access: Access::Read,
        })?;
        buf.copy_from_slice(&self.regions[i].1[off..off + buf.len()]);
        Ok(())
    }

    fn write(&mut self, va: u64, data: &[u8]) -> Result<(), Fault> {
        let (i, off) = self.find(va, data.len()).ok_or(Fault::Unmapped {
            va,
            access: Access::Write,
        })?;
        self.regions[i].1[off..off + data.len()].copy_from_slice(data);
        Ok(())
    }

    fn read_window(&self, va: u64) -> Option<ReadWindow<'_>> {
        let (i, _) = self.find(va, 1)?;
        let (base, b) = &self.regions[i];
        // SAFETY: the region's bytes, all readable, are borrowed with `self` for the
        // window's lifetime.
        Some(unsafe { ReadWindow::new(*base..*base + b.len() as u64, b.as_ptr()) })
    }
}

/// A [`FlatMemory`] behind a lock, which threads may share: what tests run multithreaded
/// launches and renders on.
#[cfg(test)]
pub struct Locked(pub std::sync::Mutex<FlatMemory>);

#[cfg(test)]
impl Locked {
    pub fn new(m: FlatMemory) -> Locked {
        Locked(std::sync::Mutex::new(m))
    }

    pub fn into_inner(self) -> FlatMemory {
        self.0.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
impl crate::SharedGpuMemory for Locked {
    fn read(&self, va: u64, buf: &mut [u8]) -> Result<(), Fault> {
        self.0.lock().unwrap().read(va, buf)
    }

    fn write(&self, va: u64, data: &[u8]) -> Result<(), Fault> {
        self.0.lock().unwrap().write(va, data)
    }
}

#[cfg(test)]
impl GpuMemory for Locked {
    fn read(&self, va: u64, buf: &mut [u8]) -> Result<(), Fault> {
        crate::SharedGpuMemory::read(self, va, buf)
    }

    fn write(&mut self, va: u64, data: &[u8]) -> Result<(), Fault> {
        crate::SharedGpuMemory::write(self, va, data)
    }

    fn shared(&self) -> Option<&dyn crate::SharedGpuMemory> {
        Some(self)
    }
}
