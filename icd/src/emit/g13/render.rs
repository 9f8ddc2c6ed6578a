//! G13's render commands: the VDM stream opens with a barrier that invalidates the USC's
//! caches and ends with a terminate block; tile programs launch from USC words like any
//! fragment-stage program; the ZLS control word says which depth and stencil planes load and
//! store.

use super::super::render::{Render, RenderDesc, TileLaunch};
use super::draw::tile_shared_word;
use super::G13;
use crate::format::DepthFormat;
use hw::g13::control::descriptors::{ZlsControl, ZlsFormat};
use hw::g13::control::vdm::{VdmBarrier, VdmStreamTerminate};
use hw::g13::control::{pack_uniform_range, UscWord};
use kmd_iface::uapi::*;

/// The render command's sample positions for 1, 2 and 4 samples, as Mesa's drivers write
/// them.
fn multisample_ctl(samples: u32) -> u64 {
    match samples {
        2 => 0x44cc,
        4 => 0xeaa2_6e26,
        _ => 0x88,
    }
}

fn zls_format(f: DepthFormat) -> ZlsFormat {
    match f {
        DepthFormat::Unorm16 => ZlsFormat::U16,
        DepthFormat::Float32 => ZlsFormat::F32,
    }
}

/// The ZLS control word of a render's depth and stencil planes.
fn zls_control(r: &RenderDesc) -> u64 {
    let (z, s) = (r.depth.map(|d| d.plane), r.stencil.map(|s| s.plane));
    let format = zls_format(r.depth.map_or(DepthFormat::Float32, |d| d.format));
    let word = ZlsControl {
        s_load: s.is_some_and(|p| p.load),
        z_load: z.is_some_and(|p| p.load),
        s_store: s.is_some_and(|p| p.store),
        z_store: z.is_some_and(|p| p.store),
        ..ZlsControl::nothing(format)
    };
    u64::from_le_bytes(word.pack())
}

impl Render for G13 {
    fn stream(&self, draws: &[u8]) -> Vec<u8> {
        let start = VdmBarrier {
            usc_cache_invalidate: true,
            ..Default::default()
        }
        .pack();
        let end = VdmStreamTerminate.pack();
        let mut out = Vec::with_capacity(start.len() + draws.len() + end.len());
        out.extend_from_slice(&start);
        out.extend_from_slice(draws);
        out.extend_from_slice(&end);
        out
    }

    fn tile_words(&self, t: &TileLaunch) -> Vec<u8> {
        let mut w = Vec::new();
        tile_shared_word(t.tilebuffer, &mut w);
        if let Some(u) = t.uniforms {
            pack_uniform_range(0, t.uniform_halves, u, &mut w);
        }
        if let Some(tex) = t.textures.filter(|tex| tex.count > 0) {
            super::texture_word(0, tex).pack(&mut w);
        }
        UscWord::Shader {
            code: t.code,
            loads_varyings: false,
        }
        .pack(&mut w);
        UscWord::registers(t.gpr_halves, 0).pack(&mut w);
        UscWord::NoPreshader.pack(&mut w);
        w
    }

    fn render_command(&self, r: &RenderDesc) -> drm_asahi_cmd_render {
        let params = r.tilebuffer.render_params();
        let (width, height) = (r.size.width, r.size.height);
        let plane = |p: Option<u64>| drm_asahi_zls_buffer {
            base: p.unwrap_or(0),
            ..Default::default()
        };
        // The depth bias of a UNORM16 plane is in its integer steps.
        let dbias_is_int = match r.depth.map(|d| d.format) {
            Some(DepthFormat::Unorm16) => DRM_ASAHI_RENDER_DBIAS_IS_INT,
            _ => 0,
        };
        let tan_60 = 1.732_051f32;
        let bg_eot = |usc| drm_asahi_bg_eot { usc, rsrc_spec: 0 };
        drm_asahi_cmd_render {
            // Empty tiles still run their background and end-of-tile programs, so clears and
            // loads reach every pixel even without draws.
            flags: DRM_ASAHI_RENDER_PROCESS_EMPTY_TILES | dbias_is_int,
            depth: plane(r.depth.map(|d| d.plane.base)),
            stencil: plane(r.stencil.map(|s| s.plane.base)),
            zls_ctrl: zls_control(r),
            vdm_ctrl_stream_base: r.stream,
            isp_scissor_base: r.scissors,
            isp_dbias_base: r.depth_biases,
            isp_oclqry_base: r.occlusion,
            ppp_multisamplectl: multisample_ctl(r.tilebuffer.samples),
            ppp_ctrl: 0x202,
            width_px: width as u16,
            height_px: height as u16,
            layers: 1,
            utile_width_px: params.utile_width_px,
            utile_height_px: params.utile_height_px,
            samples: params.samples,
            sample_size_B: params.sample_size_bytes,
            isp_merge_upper_x: (tan_60 / width as f32).to_bits(),
            isp_merge_upper_y: (tan_60 / height as f32).to_bits(),
            bg: bg_eot(r.background),
            eot: bg_eot(r.end_of_tile),
            partial_bg: bg_eot(r.partial_background),
            partial_eot: bg_eot(r.partial_end_of_tile),
            isp_bgobjdepth: r
                .depth
                .map_or(1.0f32.to_bits(), |d| d.format.texel(d.clear)),
            isp_bgobjvals: r.stencil.map_or(0, |s| u32::from(s.clear)),
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::{DepthPlane, StateTable, StencilPlane, ZsPlane};
    use ash::vk;
    use hw::g13::control::vdm::VdmBlock;
    use hw::g13::tilebuffer::TilebufferLayout;

    /// The render command carries the planes' addresses, load and store bits, format and
    /// clear values; the stream is the draws between a cache-invalidating barrier and a
    /// terminate block; tile program words read back as their launch.
    #[test]
    fn render_commands_read_back() {
        let tib = TilebufferLayout::build(&[None], 4).unwrap();
        let depth = DepthPlane {
            plane: ZsPlane {
                base: 0x5_0000_0000,
                load: true,
                store: false,
            },
            format: DepthFormat::Unorm16,
            clear: 0.5,
        };
        let stencil = StencilPlane {
            plane: ZsPlane {
                base: 0x5_0010_0000,
                load: false,
                store: true,
            },
            clear: 0x7f,
        };
        let desc = RenderDesc {
            size: vk::Extent2D {
                width: 640,
                height: 480,
            },
            tilebuffer: &tib,
            stream: 0x1000,
            scissors: 0x2000,
            depth_biases: 0,
            occlusion: 0x3000,
            background: 0x10,
            end_of_tile: 0x20,
            partial_background: 0x30,
            partial_end_of_tile: 0x40,
            depth: Some(depth),
            stencil: Some(stencil),
        };
        let c = G13.render_command(&desc);
        assert_eq!(
            (c.depth.base, c.stencil.base),
            (0x5_0000_0000, 0x5_0010_0000)
        );
        let zls = ZlsControl::unpack(&c.zls_ctrl.to_le_bytes()).unwrap();
        assert_eq!(
            (zls.z_load, zls.z_store, zls.s_load, zls.s_store),
            (true, false, false, true)
        );
        assert_eq!(zls.z_format, ZlsFormat::U16);
        assert_eq!(c.isp_bgobjdepth, 32768, "0.5 as UNORM16 rounds to nearest");
        assert_eq!(c.isp_bgobjvals, 0x7f);
        assert_ne!(c.flags & DRM_ASAHI_RENDER_DBIAS_IS_INT, 0);
        assert_eq!((c.width_px, c.height_px, c.samples), (640, 480, 4));
        assert_eq!(c.ppp_multisamplectl, multisample_ctl(4));
        let usc = [c.bg.usc, c.eot.usc, c.partial_bg.usc, c.partial_eot.usc];
        assert_eq!(usc, [0x10, 0x20, 0x30, 0x40]);
        assert_eq!(
            (
                c.vdm_ctrl_stream_base,
                c.isp_scissor_base,
                c.isp_oclqry_base
            ),
            (0x1000, 0x2000, 0x3000)
        );

        // Without a depth/stencil attachment: nothing loads or stores, depth clears to 1.0.
        let bare = G13.render_command(&RenderDesc {
            depth: None,
            stencil: None,
            ..desc
        });
        let zls = ZlsControl::unpack(&bare.zls_ctrl.to_le_bytes()).unwrap();
        assert!(!(zls.z_load || zls.z_store || zls.s_load || zls.s_store));
        assert_eq!(bare.isp_bgobjdepth, 1.0f32.to_bits());
        assert_eq!(bare.flags & DRM_ASAHI_RENDER_DBIAS_IS_INT, 0);

        let stream = G13.stream(&[]);
        let (first, n) = VdmBlock::unpack(&stream).unwrap();
        assert!(matches!(first, VdmBlock::Barrier(b) if b.usc_cache_invalidate));
        let (last, m) = VdmBlock::unpack(&stream[n..]).unwrap();
        assert!(matches!(last, VdmBlock::Terminate));
        assert_eq!(n + m, stream.len());

        let words = G13.tile_words(&TileLaunch {
            tilebuffer: &tib,
            code: 0x400,
            uniform_halves: 8,
            gpr_halves: 24,
            uniforms: Some(0x6000),
            textures: Some(StateTable {
                count: 3,
                va: 0x7000,
            }),
        });
        let mut read = Vec::new();
        let mut at = 0;
        while at < words.len() {
            let (w, n) = UscWord::unpack(&words[at..]).unwrap();
            read.push(w);
            at += n;
        }
        assert!(read.contains(&UscWord::Texture {
            start: 0,
            count: 3,
            buffer: 0x7000
        }));
        assert!(read.contains(&UscWord::Shader {
            code: 0x400,
            loads_varyings: false
        }));
        assert_eq!(read.last(), Some(&UscWord::NoPreshader));
    }
}
