//! What a render's ZLS Control word and background registers ask of the depth/stencil unit.

use super::depth::DepthFormat;
use super::IspError;
use hw::g13::control::descriptors::ZlsControl;

/// Loads and stores the ZLS unit does around each tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZlsPlan {
    /// The depth format; the word carries one even when the render has no depth image.
    pub depth_format: DepthFormat,
    pub depth_load: bool,
    pub depth_store: bool,
    pub stencil_load: bool,
    pub stencil_store: bool,
}

impl ZlsPlan {
    /// The plan for a control word. Compression, multisample resolve and the bits with no
    /// known meaning are refused rather than ignored: the model does not implement them.
    pub fn from_control(c: &ZlsControl) -> Result<ZlsPlan, IspError> {
        if c.z_compress_1 || c.z_compress_2 || c.s_compress_1 || c.s_compress_2 {
            return Err(IspError::Unimplemented("compressed depth/stencil images"));
        }
        if c.z_resolve || c.s_resolve {
            return Err(IspError::Unimplemented(
                "depth/stencil resolve in the ZLS unit",
            ));
        }
        if c.unknown_0 || c.unknown_1 || c.unknown_3 || c.unknown_5 || c.unknown_7 {
            return Err(IspError::Unimplemented(
                "ZLS control bits of unknown meaning",
            ));
        }
        Ok(ZlsPlan {
            depth_format: DepthFormat::from_zls(c.z_format),
            depth_load: c.z_load,
            depth_store: c.z_store,
            stencil_load: c.s_load,
            stencil_store: c.s_store,
        })
    }

    /// The plan for the 64-bit register value the firmware programs.
    pub fn from_word(word: u64) -> Result<ZlsPlan, IspError> {
        let c = ZlsControl::unpack(&word.to_le_bytes()).map_err(crate::Fault::from)?;
        ZlsPlan::from_control(&c)
    }
}

/// The depth word and stencil value a cleared tile starts with, from the render's
/// `isp_bgobjdepth` and `isp_bgobjvals` registers. The driver writes the depth as the
/// format's stored form (a unorm code for D16, float bits for D32) and the stencil in the
/// low byte of the values register.
pub fn clear_values(
    format: DepthFormat,
    isp_bgobjdepth: u32,
    isp_bgobjvals: u32,
) -> Result<(u32, u8), IspError> {
    if format == DepthFormat::D16Unorm && isp_bgobjdepth > 0xffff {
        return Err(IspError::BadState(format!(
            "D16 background depth {isp_bgobjdepth:#x} does not fit 16 bits"
        )));
    }
    Ok((isp_bgobjdepth, (isp_bgobjvals & 0xff) as u8))
}
