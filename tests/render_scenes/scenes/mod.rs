//! The scenes, each a small function that builds its resources, renders, reads back and
//! (where the CPU can say cheaply) builds the expected image from the same geometry.

mod blend;
mod clears;
mod depth_stencil;
mod draws;
mod dynamic;
mod fragment_ops;
mod inputs;
mod large;
mod layers;
mod msaa_transfer;
mod packed;
mod passes;
mod sample_interp;
mod sample_mask;
mod secondary;
mod shaders;
mod spill;
mod textures;
mod topology;
mod transfer;
mod vertex;

// Not every program that includes the scenes names the large one.
#[allow(unused_imports)]
pub use large::LARGE;

use super::frame::{bytes_of, clear_color, Frame, Pipe, R, V};
use super::image::Image;
use super::run::Scene;
use ash::vk;

pub const RGBA8: vk::Format = vk::Format::R8G8B8A8_UNORM;
pub const D32: vk::Format = vk::Format::D32_SFLOAT;
pub const D32S8: vk::Format = vk::Format::D32_SFLOAT_S8_UINT;

pub fn all() -> Vec<Scene> {
    let mut v = Vec::new();
    v.extend(clears::scenes());
    v.extend(draws::scenes());
    v.extend(topology::scenes());
    v.extend(depth_stencil::scenes());
    v.extend(blend::scenes());
    v.extend(passes::scenes());
    v.extend(inputs::scenes());
    v.extend(msaa_transfer::scenes());
    v.extend(vertex::scenes());
    v.extend(transfer::scenes());
    v.extend(layers::scenes());
    v.extend(dynamic::scenes());
    v.extend(packed::scenes());
    v.extend(sample_interp::scenes());
    v.extend(sample_mask::scenes());
    v.extend(secondary::scenes());
    v.extend(fragment_ops::scenes());
    v.extend(shaders::scenes());
    v.extend(spill::scenes());
    v.extend(textures::scenes());
    v.extend(large::scenes());
    v
}

/// An RGBA8 target with a one-subpass pass and its framebuffer.
pub struct Target {
    pub img: vk::Image,
    pub rp: vk::RenderPass,
    pub fb: vk::Framebuffer,
}

pub fn rgba8_target(f: &mut Frame) -> R<Target> {
    let (img, view) = f.target(
        RGBA8,
        vk::ImageUsageFlags::empty(),
        vk::SampleCountFlags::TYPE_1,
    )?;
    let rp = f.simple_pass(&[RGBA8], None, vk::SampleCountFlags::TYPE_1)?;
    let fb = f.framebuffer(rp, &[view])?;
    Ok(Target { img, rp, fb })
}

/// Clears an RGBA8 target to `bg`, draws each (pipe, vertices) in order, reads the target.
pub fn draw_rgba8(f: &mut Frame, bg: [f32; 4], draws: &[(&Pipe, &[V])]) -> R<Image> {
    let t = rgba8_target(f)?;
    let mut bound = Vec::new();
    for (p, verts) in draws {
        let pipe = f.pipeline(p, t.rp)?;
        let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(verts))?;
        bound.push((pipe, vb, verts.len() as u32));
    }
    f.submit(|cb| {
        f.begin(cb, t.rp, t.fb, &[clear_color(bg)]);
        for &(pipe, vb, n) in &bound {
            f.draw(cb, pipe, vb, n);
        }
        // SAFETY: recording, inside the pass begun above.
        unsafe { f.d.cmd_end_render_pass(cb) };
    })?;
    f.read(
        "color",
        t.img,
        RGBA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )
}

/// An RGBA8 expectation filled with the codes of `bg`.
pub fn want_rgba8(f: &Frame, bg: [f32; 4]) -> Image {
    Image::new("color", f.w, f.h, RGBA8, super::frame::codes(bg))
}
