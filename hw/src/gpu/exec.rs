//! Executing commands. Nothing is modelled yet: every command ends in an honest
//! `Unimplemented` fault until the compute and render work fill these in.

use super::{ComputeCommand, Fault, GpuMemory, RenderCommand};
use crate::Identity;

/// Run a compute command to completion, or to the first fault.
pub fn execute_compute(
    _gpu: &Identity,
    _cmd: &ComputeCommand,
    _mem: &mut dyn GpuMemory,
) -> Result<(), Fault> {
    Err(Fault::Unimplemented("CDM control stream execution"))
}

/// Run a render command to completion, or to the first fault.
pub fn execute_render(
    _gpu: &Identity,
    _cmd: &RenderCommand,
    _mem: &mut dyn GpuMemory,
) -> Result<(), Fault> {
    Err(Fault::Unimplemented("VDM control stream execution"))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct NoMemory;

    impl GpuMemory for NoMemory {
        fn read(&self, va: u64, _buf: &mut [u8]) -> Result<(), Fault> {
            Err(Fault::Unmapped { va, access: crate::gpu::Access::Read })
        }
        fn write(&mut self, va: u64, _data: &[u8]) -> Result<(), Fault> {
            Err(Fault::Unmapped { va, access: crate::gpu::Access::Write })
        }
    }

    #[test]
    fn commands_report_unimplemented() {
        let gpu = Identity::by_name("g13g").expect("known");
        let c = execute_compute(gpu, &ComputeCommand::default(), &mut NoMemory);
        assert!(matches!(c, Err(Fault::Unimplemented(_))));
        let r = execute_render(gpu, &RenderCommand::default(), &mut NoMemory);
        assert!(matches!(r, Err(Fault::Unimplemented(_))));
    }

    #[test]
    fn default_accessors_propagate_faults() {
        let mut m = NoMemory;
        assert_eq!(m.read_u64(0x1000), Err(Fault::Unmapped { va: 0x1000, access: crate::gpu::Access::Read }));
        assert!(m.write_u32(0x2000, 1).is_err());
    }
}
