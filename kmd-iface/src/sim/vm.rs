//! GPU virtual address spaces: the page tables VM_BIND edits and the GPU model reads through.
//!
//! A VM maps 16 KiB GPU pages to (object, page offset, permissions). The table stores runs of
//! consecutive pages rather than single pages, which means the same thing but keeps a 4 GiB
//! shader window or a large sparse binding at one entry instead of hundreds of thousands.

use super::gem::GemObject;
use super::params::{VM_END, VM_KERNEL_MIN_SIZE, VM_START};
use super::table;
use crate::uapi::*;
use crate::KmdResult;
use hw::uat::{is_page_aligned, PAGE_SIZE};
use sim_gpu::{copy_small, Access, Fault, GpuMemory, ReadWindow, SharedGpuMemory};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::{Arc, OnceLock, RwLock};

/// A run of pages `[key, end)` mapping object pages from `offset` on.
#[derive(Clone, Debug)]
struct Mapping {
    end: u64,
    obj: Arc<GemObject>,
    offset: u64,
    /// Every page of the run shows the same object page.
    single_page: bool,
    read: bool,
    write: bool,
}

/// One mapping as [`SimKmd::vm_mappings`](super::SimKmd::vm_mappings) reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MappingInfo {
    pub va: Range<u64>,
    /// The GEM handle the object was created under.
    pub handle: u32,
    /// Object offset of the first page.
    pub offset: u64,
    pub read: bool,
    pub write: bool,
    pub single_page: bool,
}

#[derive(Clone, Default, Debug)]
pub(crate) struct PageTable {
    runs: BTreeMap<u64, Mapping>,
    /// The runs as one sorted array, made the first time a GPU command translates through
    /// this table: a snapshot is edited never and read for every access, and a binary
    /// search over an array (after a one-entry hint, [`VmView`]) costs far less than a walk
    /// down the B-tree. Every edit drops it.
    flat: OnceLock<Box<[(u64, Mapping)]>>,
}

impl PageTable {
    /// Remove `[start, end)`, trimming runs that straddle either edge.
    fn unmap(&mut self, start: u64, end: u64) {
        self.flat = OnceLock::new();
        let hit: Vec<u64> = self
            .runs
            .range(..end)
            .rev()
            .take_while(|(_, m)| m.end > start)
            .map(|(&k, _)| k)
            .collect();
        for k in hit {
            let Some(m) = self.runs.remove(&k) else {
                continue;
            };
            if k < start {
                self.runs.insert(
                    k,
                    Mapping {
                        end: start,
                        ..m.clone()
                    },
                );
            }
            if m.end > end {
                let offset = if m.single_page {
                    m.offset
                } else {
                    m.offset + (end - k)
                };
                self.runs.insert(end, Mapping { offset, ..m });
            }
        }
    }

    /// Map over whatever was there, as the kernel's GPU VA manager replaces old mappings.
    fn map(&mut self, start: u64, m: Mapping) {
        self.unmap(start, m.end);
        self.flat = OnceLock::new();
        self.runs.insert(start, m);
    }

    fn remove_object(&mut self, obj: &Arc<GemObject>) {
        self.flat = OnceLock::new();
        self.runs.retain(|_, m| !Arc::ptr_eq(&m.obj, obj));
    }

    fn flat(&self) -> &[(u64, Mapping)] {
        self.flat
            .get_or_init(|| self.runs.iter().map(|(&k, m)| (k, m.clone())).collect())
    }

    /// The run containing `va` (trying the runs at the indices of `hints` first), its
    /// index, and the object offset `va` lands on.
    fn translate(&self, va: u64, hints: &[usize]) -> Option<(&Mapping, usize, u64)> {
        let flat = self.flat();
        let contains = |i: usize| flat.get(i).is_some_and(|(s, m)| *s <= va && va < m.end);
        let i = if let Some(&h) = hints.iter().find(|&&h| contains(h)) {
            h
        } else {
            let i = flat.partition_point(|(s, _)| *s <= va).checked_sub(1)?;
            if !contains(i) {
                return None;
            }
            i
        };
        let (start, m) = &flat[i];
        let off = if m.single_page {
            m.offset + va % PAGE_SIZE
        } else {
            m.offset + (va - start)
        };
        Some((m, i, off))
    }

    fn infos(&self) -> Vec<MappingInfo> {
        self.runs
            .iter()
            .map(|(&k, m)| MappingInfo {
                va: k..m.end,
                handle: m.obj.handle,
                offset: m.offset,
                read: m.read,
                write: m.write,
                single_page: m.single_page,
            })
            .collect()
    }
}

/// A GPU address space and the kernel range reserved in it.
#[derive(Debug)]
pub(crate) struct Vm {
    pub(crate) id: u32,
    kernel: Range<u64>,
    /// Shared with the views of running commands; a change while one runs copies it.
    pt: RwLock<Arc<PageTable>>,
}

/// One validated bind operation, ready to apply.
pub(crate) enum BindOp {
    Map {
        va: Range<u64>,
        obj: Arc<GemObject>,
        offset: u64,
        single_page: bool,
        read: bool,
        write: bool,
    },
    Unmap {
        va: Range<u64>,
    },
}

impl Vm {
    /// VM_CREATE's checks on the kernel carve-out.
    pub(crate) fn new(id: u32, args: &drm_asahi_vm_create) -> KmdResult<Vm> {
        let (start, end) = (args.kernel_start, args.kernel_end);
        if args.pad != 0
            || start < VM_START
            || end > VM_END
            || end <= start
            || end - start < VM_KERNEL_MIN_SIZE
            || !is_page_aligned(start)
            || !is_page_aligned(end)
        {
            return Err(libc::EINVAL);
        }
        Ok(Vm {
            id,
            kernel: start..end,
            pt: RwLock::new(Arc::default()),
        })
    }

    /// Check one bind op as the kernel does, in the kernel's order, without changing anything.
    pub(crate) fn validate(
        &self,
        op: &drm_asahi_gem_bind_op,
        lookup: impl Fn(u32) -> KmdResult<Arc<GemObject>>,
    ) -> KmdResult<BindOp> {
        if op.flags & DRM_ASAHI_BIND_UNBIND != 0 {
            if op.offset != 0 || op.flags != DRM_ASAHI_BIND_UNBIND || op.handle != 0 {
                return Err(libc::EINVAL);
            }
            let va = self.user_range(op.addr, op.range)?;
            return Ok(BindOp::Unmap { va });
        }
        if !is_page_aligned(op.addr | op.range | op.offset) {
            return Err(libc::EINVAL);
        }
        let known = DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE | DRM_ASAHI_BIND_SINGLE_PAGE;
        if op.flags & !known != 0 {
            return Err(libc::EINVAL);
        }
        let single_page = op.flags & DRM_ASAHI_BIND_SINGLE_PAGE != 0;
        let obj = lookup(op.handle)?;
        let end = op.addr.checked_add(op.range).ok_or(libc::EINVAL)?;
        let used = if single_page { PAGE_SIZE } else { op.range };
        match op.offset.checked_add(used) {
            Some(e) if e <= obj.size => {}
            _ => return Err(libc::EINVAL),
        }
        if op.range == 0 || op.addr < VM_START || end > VM_END {
            return Err(libc::EINVAL);
        }
        let (read, write) = (
            op.flags & DRM_ASAHI_BIND_READ != 0,
            op.flags & DRM_ASAHI_BIND_WRITE != 0,
        );
        if !read && !write {
            return Err(libc::EINVAL);
        }
        if obj.vm_private.is_some_and(|vm| vm != self.id) || overlaps(&self.kernel, op.addr, end) {
            return Err(libc::EINVAL);
        }
        Ok(BindOp::Map {
            va: op.addr..end,
            obj,
            offset: op.offset,
            single_page,
            read,
            write,
        })
    }

    /// An UNBIND range: aligned, nonempty, user addresses only, clear of the kernel range.
    fn user_range(&self, addr: u64, range: u64) -> KmdResult<Range<u64>> {
        if !is_page_aligned(addr | range) || range == 0 {
            return Err(libc::EINVAL);
        }
        let end = addr.checked_add(range).ok_or(libc::EINVAL)?;
        if addr < VM_START || end > VM_END || overlaps(&self.kernel, addr, end) {
            return Err(libc::EINVAL);
        }
        Ok(addr..end)
    }

    /// Apply ops that all passed [`Vm::validate`], in order, atomically for GPU readers.
    pub(crate) fn apply(&self, ops: Vec<BindOp>) {
        let mut guard = table::write(&self.pt);
        let pt = Arc::make_mut(&mut guard);
        for op in ops {
            match op {
                BindOp::Map {
                    va,
                    obj,
                    offset,
                    single_page,
                    read,
                    write,
                } => pt.map(
                    va.start,
                    Mapping {
                        end: va.end,
                        obj,
                        offset,
                        single_page,
                        read,
                        write,
                    },
                ),
                BindOp::Unmap { va } => pt.unmap(va.start, va.end),
            }
        }
    }

    /// GEM_CLOSE drops the object's mappings from every VM, as the Asahi kernel does.
    pub(crate) fn remove_object(&self, obj: &Arc<GemObject>) {
        Arc::make_mut(&mut table::write(&self.pt)).remove_object(obj);
    }

    /// VM_DESTROY unmaps the whole user range; queues still using the VM then fault.
    pub(crate) fn clear(&self) {
        *table::write(&self.pt) = Arc::default();
    }

    pub(crate) fn mappings(&self) -> Vec<MappingInfo> {
        table::read(&self.pt).infos()
    }

    /// What one GPU command sees: the mappings at its start. The snapshot holds the objects,
    /// so memory cannot vanish under a running command; taking it copies nothing.
    pub(crate) fn view(&self) -> VmView {
        VmView {
            pt: Arc::clone(&table::read(&self.pt)),
        }
    }
}

fn overlaps(r: &Range<u64>, start: u64, end: u64) -> bool {
    start < r.end && r.start < end
}

/// GPU memory of one VM as the GPU model reaches it.
pub(crate) struct VmView {
    pt: Arc<PageTable>,
}

/// How many runs [`HINTS`] keeps.
const HINT_RUNS: usize = 4;

thread_local! {
    /// The runs this thread's last accesses landed in, the latest first. A shader group
    /// reads its uniforms, descriptors, sampler and image, one run each, over and over.
    /// They are only guesses, checked before use, so they need not belong to the view
    /// being read; kept per thread, so the threads of one command do not write to one
    /// shared cache line on every access.
    static HINTS: Cell<[usize; HINT_RUNS]> = const { Cell::new([0; HINT_RUNS]) };
}

impl VmView {
    /// The mapping of `va` (found through the hints), the object offset `va` lands on, and
    /// whether the mapping grants `access`.
    fn lookup(&self, va: u64, access: Access) -> Option<(&Mapping, u64, bool)> {
        let mut hints = HINTS.get();
        let (m, run, off) = self.pt.translate(va, &hints)?;
        if run != hints[0] {
            // The run moves to the front; the ones before it move back by one.
            let at = hints
                .iter()
                .position(|&h| h == run)
                .unwrap_or(HINT_RUNS - 1);
            hints.copy_within(0..at, 1);
            hints[0] = run;
            HINTS.set(hints);
        }
        let allowed = match access {
            Access::Read => m.read,
            Access::Write => m.write,
        };
        Some((m, off, allowed))
    }

    fn access(
        &self,
        va: u64,
        len: usize,
        access: Access,
        mut f: impl FnMut(&GemObject, u64, Range<usize>) -> bool,
    ) -> Result<(), Fault> {
        let mut done = 0usize;
        while done < len {
            let cur = va.checked_add(done as u64).ok_or(Fault::Unmapped {
                va: u64::MAX,
                access,
            })?;
            let (m, off, allowed) = self
                .lookup(cur, access)
                .ok_or(Fault::Unmapped { va: cur, access })?;
            if !allowed {
                return Err(Fault::Permission { va: cur, access });
            }
            let in_page = (PAGE_SIZE - cur % PAGE_SIZE) as usize;
            let n = in_page.min(len - done);
            if !f(&m.obj, off, done..done + n) {
                return Err(Fault::Unmapped { va: cur, access });
            }
            done += n;
        }
        Ok(())
    }
}

/// GPU addresses `va` that reach one object's bytes consecutively from `ptr`, with the
/// permission a [`VmView::window`] was asked for: where the lanes of one SIMD group's access
/// usually all land, so they skip the page table.
struct Window {
    va: Range<u64>,
    ptr: *mut u8,
}

impl Window {
    /// The host address of `va..va + n`, if the window holds all of it.
    fn at(&self, va: u64, n: usize) -> Option<*mut u8> {
        let end = va.checked_add(n as u64)?;
        (self.va.start <= va && end <= self.va.end)
            .then(|| self.ptr.wrapping_add((va - self.va.start) as usize))
    }
}

impl VmView {
    /// The window around `va` for `access`: its whole run of pages (the page alone for a run
    /// that repeats one page), cut where the object ends. `None` where `va` is unmapped or
    /// the mapping refuses `access`; the caller then takes the checked path, which faults.
    fn window(&self, va: u64, access: Access) -> Option<Window> {
        let (m, off, allowed) = self.lookup(va, access)?;
        if !allowed {
            return None;
        }
        // Object offsets from `off` onwards stay consecutive up to `contiguous` bytes.
        let contiguous = if m.single_page {
            PAGE_SIZE - va % PAGE_SIZE
        } else {
            m.end - va
        };
        let before = if m.single_page {
            va % PAGE_SIZE
        } else {
            off - m.offset
        };
        let len = m.obj.mem.len() as u64;
        let after = contiguous.min(len.checked_sub(off)?);
        let ptr = m.obj.mem.ptr_at(usize::try_from(off).ok()?)?;
        Some(Window {
            va: va - before..va + after,
            ptr: ptr.wrapping_sub(before as usize),
        })
    }
}

impl GpuMemory for VmView {
    fn read(&self, va: u64, buf: &mut [u8]) -> Result<(), Fault> {
        let len = buf.len();
        self.access(va, len, Access::Read, |obj, off, r| {
            obj.mem.read(off, &mut buf[r])
        })
    }

    fn write(&mut self, va: u64, data: &[u8]) -> Result<(), Fault> {
        SharedGpuMemory::write(self, va, data)
    }

    fn gather(&self, addrs: &[u64], buf: &mut [u8]) -> Result<(), Fault> {
        SharedGpuMemory::gather(self, addrs, buf)
    }

    fn scatter(&mut self, addrs: &[u64], data: &[u8]) -> Result<(), Fault> {
        SharedGpuMemory::scatter(self, addrs, data)
    }

    fn shared(&self) -> Option<&dyn SharedGpuMemory> {
        Some(self)
    }

    fn read_window(&self, va: u64) -> Option<ReadWindow<'_>> {
        SharedGpuMemory::read_window(self, va)
    }
}

/// The page table is an immutable snapshot and object memory is written through raw copies
/// (`HostMem::write` takes `&self`), so workgroups on several threads share one view.
impl SharedGpuMemory for VmView {
    fn read(&self, va: u64, buf: &mut [u8]) -> Result<(), Fault> {
        GpuMemory::read(self, va, buf)
    }

    fn write(&self, va: u64, data: &[u8]) -> Result<(), Fault> {
        self.access(va, data.len(), Access::Write, |obj, off, r| {
            obj.mem.write(off, &data[r])
        })
    }

    fn gather(&self, addrs: &[u64], buf: &mut [u8]) -> Result<(), Fault> {
        let n = buf.len().checked_div(addrs.len()).unwrap_or(0);
        let mut w: Option<Window> = None;
        for (i, &va) in addrs.iter().enumerate() {
            let at = i * n;
            // Lanes often load where the lane before them did.
            if i > 0 && addrs[i - 1] == va {
                buf.copy_within(at - n..at, at);
                continue;
            }
            let dst = &mut buf[at..at + n];
            if w.as_ref().and_then(|w| w.at(va, n)).is_none() {
                w = self.window(va, Access::Read);
            }
            match w.as_ref().and_then(|w| w.at(va, n)) {
                // SAFETY: the window lies inside the mapping of an object this view's page
                // table holds (so it outlives the call), and `dst` is a distinct Rust
                // buffer; memory is copied raw, as `HostMem::read` does.
                Some(p) => unsafe { copy_small(p, dst.as_mut_ptr(), n) },
                None => GpuMemory::read(self, va, dst)?,
            }
        }
        Ok(())
    }

    fn read_window(&self, va: u64) -> Option<ReadWindow<'_>> {
        let w = self.window(va, Access::Read)?;
        // SAFETY: the window lies inside the mapping of an object this view's page table
        // holds, so it stays readable while the view is borrowed, and it was made for reads.
        Some(unsafe { ReadWindow::new(w.va, w.ptr) })
    }

    fn scatter(&self, addrs: &[u64], data: &[u8]) -> Result<(), Fault> {
        let n = data.len().checked_div(addrs.len()).unwrap_or(0);
        let mut w: Option<Window> = None;
        for (i, &va) in addrs.iter().enumerate() {
            let src = &data[i * n..(i + 1) * n];
            if w.as_ref().and_then(|w| w.at(va, n)).is_none() {
                w = self.window(va, Access::Write);
            }
            match w.as_ref().and_then(|w| w.at(va, n)) {
                // SAFETY: as in `gather`, with the copy going the other way (`HostMem::write`).
                Some(p) => unsafe { copy_small(src.as_ptr(), p, n) },
                None => SharedGpuMemory::write(self, va, src)?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::hostmem::HostMem;

    /// The run the B-tree holds for `va`, looked up the plain way.
    fn model(pt: &PageTable, va: u64) -> Option<(u64, u64)> {
        let (&start, m) = pt.runs.range(..=va).next_back()?;
        (va < m.end).then_some((start, m.end))
    }

    #[test]
    fn translation_through_the_array_and_hint_finds_the_b_trees_run() {
        let obj = Arc::new(GemObject {
            handle: 1,
            size: 64 * PAGE_SIZE,
            vm_private: None,
            mem: HostMem::new((64 * PAGE_SIZE) as usize).unwrap(),
        });
        let mut pt = PageTable::default();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..300 {
            let start = next(200) * PAGE_SIZE;
            let end = start + (1 + next(20)) * PAGE_SIZE;
            if next(3) == 0 {
                pt.unmap(start, end);
            } else {
                let single_page = next(4) == 0;
                let m = Mapping {
                    end,
                    obj: obj.clone(),
                    offset: next(8) * PAGE_SIZE,
                    single_page,
                    read: true,
                    write: true,
                };
                pt.map(start, m);
            }
            let runs = pt.runs.len();
            for _ in 0..50 {
                let va = next(230 * PAGE_SIZE);
                let hint = next(runs as u64 + 2) as usize;
                let got = pt
                    .translate(va, &[hint, next(runs as u64 + 2) as usize])
                    .map(|(m, i, _)| (pt.flat()[i].0, m.end));
                assert_eq!(got, model(&pt, va), "va {va:#x} hint {hint}");
            }
        }
    }

    /// `gather` and `scatter` go around the page table where they can; they must read,
    /// write and fault exactly as `read` and `write` one slot after another do, over runs
    /// of one page, read-only runs, holes and runs longer than their object.
    #[test]
    fn gather_and_scatter_are_reads_and_writes_in_order() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let pages = 16;
        let object = |handle| {
            Arc::new(GemObject {
                handle,
                size: pages * PAGE_SIZE,
                vm_private: None,
                mem: HostMem::new((pages * PAGE_SIZE) as usize).unwrap(),
            })
        };
        let (a, b) = (object(1), object(2));
        let fill: Vec<u8> = (0..pages * PAGE_SIZE).map(|_| next(256) as u8).collect();
        assert!(a.mem.write(0, &fill) && b.mem.write(0, &fill));
        let (mut pa, mut pb) = (PageTable::default(), PageTable::default());
        for _ in 0..12 {
            let start = next(40) * PAGE_SIZE;
            let end = start + (1 + next(12)) * PAGE_SIZE;
            let (offset, single_page, read, write) = (
                next(8) * PAGE_SIZE,
                next(4) == 0,
                next(6) != 0,
                next(3) != 0,
            );
            for (pt, obj) in [(&mut pa, &a), (&mut pb, &b)] {
                let m = Mapping {
                    end,
                    obj: obj.clone(),
                    offset,
                    single_page,
                    read,
                    write,
                };
                pt.map(start, m);
            }
        }
        let view = |pt: PageTable| VmView { pt: Arc::new(pt) };
        let (mut va, mut vb) = (view(pa), view(pb));
        let (mut faults, mut whole, mut windowed) = (0, 0, 0);
        for round in 0..3000 {
            let n = 1usize << next(5);
            let lanes = 1 + next(32) as usize;
            let base = next(44) * PAGE_SIZE + next(PAGE_SIZE);
            let mut addrs: Vec<u64> = Vec::new();
            for _ in 0..lanes {
                let va = match (next(5), addrs.last()) {
                    (0, _) => next(48 * PAGE_SIZE),
                    // At and across page edges, where runs and objects end.
                    (1, _) => (1 + next(48)) * PAGE_SIZE - next(2 * n as u64),
                    // Where the lane before went.
                    (2, Some(&before)) => before,
                    _ => (base + next(256) * n as u64) & !(n as u64 - 1),
                };
                addrs.push(va);
            }
            let mut got = vec![0u8; lanes * n];
            let mut want = vec![0u8; lanes * n];
            let g = GpuMemory::gather(&va, &addrs, &mut got);
            let w = addrs
                .iter()
                .enumerate()
                .try_for_each(|(i, &at)| GpuMemory::read(&vb, at, &mut want[i * n..(i + 1) * n]));
            assert_eq!(g, w, "round {round}: gather of {addrs:x?}");
            // A read window gives, for every slot it holds, the bytes a plain read gives,
            // and holds no slot a plain read refuses.
            let window = GpuMemory::read_window(&va, addrs[0]);
            for (i, &at) in addrs.iter().enumerate() {
                let mut through = vec![0u8; n];
                if window.as_ref().is_some_and(|w| w.read(at, &mut through)) {
                    let mut plain = vec![0u8; n];
                    assert!(
                        GpuMemory::read(&vb, at, &mut plain).is_ok(),
                        "round {round}: the window of {:#x} holds unreadable {at:#x}",
                        addrs[0]
                    );
                    assert_eq!(
                        through, plain,
                        "round {round}: bytes at {at:#x} in a window"
                    );
                    windowed += usize::from(i > 0);
                }
            }
            if g.is_ok() {
                assert_eq!(got, want, "round {round}: gathered bytes");
                whole += 1;
            } else {
                faults += 1;
            }
            let data: Vec<u8> = (0..lanes * n).map(|_| next(256) as u8).collect();
            let s = GpuMemory::scatter(&mut va, &addrs, &data);
            let w = addrs
                .iter()
                .enumerate()
                .try_for_each(|(i, &at)| GpuMemory::write(&mut vb, at, &data[i * n..(i + 1) * n]));
            assert_eq!(s, w, "round {round}: scatter to {addrs:x?}");
        }
        let (mut ma, mut mb) = (fill.clone(), fill);
        assert!(a.mem.read(0, &mut ma) && b.mem.read(0, &mut mb));
        assert!(ma == mb, "the objects differ after the scatters");
        assert!(
            faults > 100 && whole > 100 && windowed > 1000,
            "{faults} faulting and {whole} whole gathers, {windowed} slots read through windows"
        );
    }
}
