//! The trace file: a magic word, then records, each a tag byte and little-endian fields.

use std::io::{self, Read, Write};

const MAGIC: &[u8; 8] = b"AGX4TRC1";

/// Why a trace could not be written, read or replayed.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("trace I/O: {0}")]
    Io(#[from] io::Error),
    #[error("not an agx4 trace (bad magic)")]
    BadMagic,
    #[error("corrupt trace: {0}")]
    Corrupt(String),
    #[error("replay diverged: {0}")]
    Diverged(String),
    #[error("kernel call failed during replay: {call} returned errno {errno}")]
    Call { call: &'static str, errno: i32 },
}

/// One recorded call. Output fields (handles and ids the kernel chose) are recorded so replay
/// can check it gets the same ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    /// The GPU the trace was recorded on: `chip_id` from GET_PARAMS.
    Device {
        chip_id: u32,
    },
    VmCreate {
        kernel_start: u64,
        kernel_end: u64,
        vm_id: u32,
    },
    VmDestroy {
        vm_id: u32,
    },
    /// Bind operations as (flags, handle, offset, range, addr).
    VmBind {
        vm_id: u32,
        ops: Vec<[u64; 5]>,
    },
    GemCreate {
        size: u64,
        flags: u32,
        vm_id: u32,
        handle: u32,
    },
    /// `final_hash` is [`super::content_hash`] of the object when it was closed.
    GemClose {
        handle: u32,
        final_hash: u64,
    },
    GemBindObject {
        op: u32,
        flags: u32,
        handle: u32,
        offset: u64,
        range: u64,
        object_handle: u32,
    },
    QueueCreate {
        flags: u32,
        vm_id: u32,
        priority: u32,
        usc_exec_base: u64,
        queue_id: u32,
    },
    QueueDestroy {
        queue_id: u32,
    },
    /// Bytes written at `offset` into object `handle` since the last snapshot.
    MemWrite {
        handle: u32,
        offset: u64,
        bytes: Vec<u8>,
    },
    /// Syncs as (type, handle, value): `in_count` waits, then signals.
    Submit {
        queue_id: u32,
        flags: u32,
        in_count: u32,
        syncs: Vec<[u64; 3]>,
        cmdbuf: Vec<u8>,
    },
    SyncobjCreate {
        flags: u32,
        handle: u32,
    },
    SyncobjDestroy {
        handle: u32,
    },
    SyncobjReset {
        handles: Vec<u32>,
    },
    SyncobjSignal {
        handles: Vec<u32>,
    },
    SyncobjTimelineSignal {
        handles: Vec<u32>,
        points: Vec<u64>,
    },
    SyncobjTransfer {
        src: u32,
        dst: u32,
        src_point: u64,
        dst_point: u64,
        flags: u32,
    },
}

pub(crate) fn write_magic(w: &mut impl Write) -> io::Result<()> {
    w.write_all(MAGIC)
}

pub(crate) fn read_magic(r: &mut impl Read) -> Result<(), TraceError> {
    let mut m = [0u8; 8];
    r.read_exact(&mut m)?;
    if &m != MAGIC {
        return Err(TraceError::BadMagic);
    }
    Ok(())
}

struct Out<'a, W: Write>(&'a mut W);

impl<W: Write> Out<'_, W> {
    fn u8(&mut self, v: u8) -> io::Result<()> {
        self.0.write_all(&[v])
    }
    fn u32(&mut self, v: u32) -> io::Result<()> {
        self.0.write_all(&v.to_le_bytes())
    }
    fn u64(&mut self, v: u64) -> io::Result<()> {
        self.0.write_all(&v.to_le_bytes())
    }
    fn bytes(&mut self, b: &[u8]) -> io::Result<()> {
        self.u64(b.len() as u64)?;
        self.0.write_all(b)
    }
    fn u32s(&mut self, v: &[u32]) -> io::Result<()> {
        self.u64(v.len() as u64)?;
        v.iter().try_for_each(|&x| self.u32(x))
    }
    fn u64s(&mut self, v: &[u64]) -> io::Result<()> {
        self.u64(v.len() as u64)?;
        v.iter().try_for_each(|&x| self.u64(x))
    }
}

/// Upper bound on any one length field, so a corrupt file cannot ask for absurd allocations.
const MAX_LEN: u64 = 1 << 34;

struct In<'a, R: Read>(&'a mut R);

impl<R: Read> In<'_, R> {
    fn u8(&mut self) -> Result<u8, TraceError> {
        let mut b = [0; 1];
        self.0.read_exact(&mut b)?;
        Ok(b[0])
    }
    fn u32(&mut self) -> Result<u32, TraceError> {
        let mut b = [0; 4];
        self.0.read_exact(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }
    fn u64(&mut self) -> Result<u64, TraceError> {
        let mut b = [0; 8];
        self.0.read_exact(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }
    fn len(&mut self, elem: u64) -> Result<usize, TraceError> {
        let n = self.u64()?;
        if n.saturating_mul(elem) > MAX_LEN {
            return Err(TraceError::Corrupt(format!("length {n} too large")));
        }
        Ok(n as usize)
    }
    fn bytes(&mut self) -> Result<Vec<u8>, TraceError> {
        let n = self.len(1)?;
        let mut v = vec![0; n];
        self.0.read_exact(&mut v)?;
        Ok(v)
    }
    fn u32s(&mut self) -> Result<Vec<u32>, TraceError> {
        let n = self.len(4)?;
        (0..n).map(|_| self.u32()).collect()
    }
    fn u64s(&mut self) -> Result<Vec<u64>, TraceError> {
        let n = self.len(8)?;
        (0..n).map(|_| self.u64()).collect()
    }
}

impl Record {
    pub fn write(&self, w: &mut impl Write) -> io::Result<()> {
        let mut o = Out(w);
        match self {
            Record::Device { chip_id } => {
                o.u8(1)?;
                o.u32(*chip_id)
            }
            Record::VmCreate {
                kernel_start,
                kernel_end,
                vm_id,
            } => {
                o.u8(2)?;
                o.u64(*kernel_start)?;
                o.u64(*kernel_end)?;
                o.u32(*vm_id)
            }
            Record::VmDestroy { vm_id } => {
                o.u8(3)?;
                o.u32(*vm_id)
            }
            Record::VmBind { vm_id, ops } => {
                o.u8(4)?;
                o.u32(*vm_id)?;
                o.u64s(&ops.iter().flatten().copied().collect::<Vec<_>>())
            }
            Record::GemCreate {
                size,
                flags,
                vm_id,
                handle,
            } => {
                o.u8(5)?;
                o.u64(*size)?;
                o.u32(*flags)?;
                o.u32(*vm_id)?;
                o.u32(*handle)
            }
            Record::GemClose { handle, final_hash } => {
                o.u8(6)?;
                o.u32(*handle)?;
                o.u64(*final_hash)
            }
            Record::GemBindObject {
                op,
                flags,
                handle,
                offset,
                range,
                object_handle,
            } => {
                o.u8(7)?;
                o.u32(*op)?;
                o.u32(*flags)?;
                o.u32(*handle)?;
                o.u64(*offset)?;
                o.u64(*range)?;
                o.u32(*object_handle)
            }
            Record::QueueCreate {
                flags,
                vm_id,
                priority,
                usc_exec_base,
                queue_id,
            } => {
                o.u8(8)?;
                o.u32(*flags)?;
                o.u32(*vm_id)?;
                o.u32(*priority)?;
                o.u64(*usc_exec_base)?;
                o.u32(*queue_id)
            }
            Record::QueueDestroy { queue_id } => {
                o.u8(9)?;
                o.u32(*queue_id)
            }
            Record::MemWrite {
                handle,
                offset,
                bytes,
            } => {
                o.u8(10)?;
                o.u32(*handle)?;
                o.u64(*offset)?;
                o.bytes(bytes)
            }
            Record::Submit {
                queue_id,
                flags,
                in_count,
                syncs,
                cmdbuf,
            } => {
                o.u8(11)?;
                o.u32(*queue_id)?;
                o.u32(*flags)?;
                o.u32(*in_count)?;
                o.u64s(&syncs.iter().flatten().copied().collect::<Vec<_>>())?;
                o.bytes(cmdbuf)
            }
            Record::SyncobjCreate { flags, handle } => {
                o.u8(12)?;
                o.u32(*flags)?;
                o.u32(*handle)
            }
            Record::SyncobjDestroy { handle } => {
                o.u8(13)?;
                o.u32(*handle)
            }
            Record::SyncobjReset { handles } => {
                o.u8(14)?;
                o.u32s(handles)
            }
            Record::SyncobjSignal { handles } => {
                o.u8(15)?;
                o.u32s(handles)
            }
            Record::SyncobjTimelineSignal { handles, points } => {
                o.u8(16)?;
                o.u32s(handles)?;
                o.u64s(points)
            }
            Record::SyncobjTransfer {
                src,
                dst,
                src_point,
                dst_point,
                flags,
            } => {
                o.u8(17)?;
                o.u32(*src)?;
                o.u32(*dst)?;
                o.u64(*src_point)?;
                o.u64(*dst_point)?;
                o.u32(*flags)
            }
        }
    }

    /// The next record, or `None` at a clean end of file.
    pub fn read(r: &mut impl Read) -> Result<Option<Record>, TraceError> {
        let mut i = In(r);
        let tag = match i.u8() {
            Ok(t) => t,
            Err(TraceError::Io(e)) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(e),
        };
        let quads = |v: Vec<u64>, n: usize| -> Result<Vec<Vec<u64>>, TraceError> {
            if !v.len().is_multiple_of(n) {
                return Err(TraceError::Corrupt("ragged tuple list".into()));
            }
            Ok(v.chunks(n).map(<[u64]>::to_vec).collect())
        };
        Ok(Some(match tag {
            1 => Record::Device { chip_id: i.u32()? },
            2 => Record::VmCreate {
                kernel_start: i.u64()?,
                kernel_end: i.u64()?,
                vm_id: i.u32()?,
            },
            3 => Record::VmDestroy { vm_id: i.u32()? },
            4 => {
                let vm_id = i.u32()?;
                let ops = quads(i.u64s()?, 5)?
                    .into_iter()
                    .map(|c| [c[0], c[1], c[2], c[3], c[4]])
                    .collect();
                Record::VmBind { vm_id, ops }
            }
            5 => Record::GemCreate {
                size: i.u64()?,
                flags: i.u32()?,
                vm_id: i.u32()?,
                handle: i.u32()?,
            },
            6 => Record::GemClose {
                handle: i.u32()?,
                final_hash: i.u64()?,
            },
            7 => Record::GemBindObject {
                op: i.u32()?,
                flags: i.u32()?,
                handle: i.u32()?,
                offset: i.u64()?,
                range: i.u64()?,
                object_handle: i.u32()?,
            },
            8 => Record::QueueCreate {
                flags: i.u32()?,
                vm_id: i.u32()?,
                priority: i.u32()?,
                usc_exec_base: i.u64()?,
                queue_id: i.u32()?,
            },
            9 => Record::QueueDestroy { queue_id: i.u32()? },
            10 => Record::MemWrite {
                handle: i.u32()?,
                offset: i.u64()?,
                bytes: i.bytes()?,
            },
            11 => {
                let queue_id = i.u32()?;
                let flags = i.u32()?;
                let in_count = i.u32()?;
                let syncs = quads(i.u64s()?, 3)?
                    .into_iter()
                    .map(|c| [c[0], c[1], c[2]])
                    .collect();
                Record::Submit {
                    queue_id,
                    flags,
                    in_count,
                    syncs,
                    cmdbuf: i.bytes()?,
                }
            }
            12 => Record::SyncobjCreate {
                flags: i.u32()?,
                handle: i.u32()?,
            },
            13 => Record::SyncobjDestroy { handle: i.u32()? },
            14 => Record::SyncobjReset { handles: i.u32s()? },
            15 => Record::SyncobjSignal { handles: i.u32s()? },
            16 => Record::SyncobjTimelineSignal {
                handles: i.u32s()?,
                points: i.u64s()?,
            },
            17 => Record::SyncobjTransfer {
                src: i.u32()?,
                dst: i.u32()?,
                src_point: i.u64()?,
                dst_point: i.u64()?,
                flags: i.u32()?,
            },
            t => return Err(TraceError::Corrupt(format!("unknown record tag {t}"))),
        }))
    }
}
