//! VK_EXT_vertex_input_dynamic_state. vkCmdSetVertexInputEXT records the vertex bindings and
//! attributes (and the strides, which vkCmdBindVertexBuffers2 may set too: the later call
//! wins). AGX fetches attributes in the vertex shader (compiler `lower_vertex_input`), so a
//! pipeline that makes the layout dynamic has a vertex program per layout: a draw looks up
//! the one for the part of the layout its shader reads, compiling it the first time any
//! command buffer needs it (`pipeline_graphics::DynamicVertex`). The command buffer
//! remembers the program it chose, so draws that change neither the pipeline nor the layout
//! look nothing up; a pipeline with a static layout has one program and pays nothing.

use super::LiveCommandBuffer;
use super::{record, Recording};
use crate::device::Device;
use crate::format;
use crate::handle;
use crate::pipeline_graphics::{
    DynamicVertex, GraphicsPipeline, VertexProgram, VertexPrograms, MAX_VERTEX_ATTRIBUTES,
    MAX_VERTEX_BINDINGS,
};
use ash::vk;
use compiler::{VertexAttribute, VertexBindingDesc, VertexInputLayout};
use std::ops::Deref;
use std::sync::{Arc, PoisonError};

/// The vertex input layout a command buffer has set and the program its last draw chose.
#[derive(Clone, Default)]
pub struct VertexInputState {
    /// Every binding and attribute of the last vkCmdSetVertexInputEXT.
    pub layout: VertexInputLayout,
    /// Counts vkCmdSetVertexInputEXT calls: a choice made under another count is stale.
    pub serial: u64,
    /// The pipeline, layout serial and program of the last choice.
    chosen: Option<(vk::Pipeline, u64, Arc<VertexProgram>)>,
}

impl std::fmt::Debug for VertexInputState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VertexInputState")
            .field("layout", &self.layout)
            .field("serial", &self.serial)
            .finish_non_exhaustive()
    }
}

impl VertexInputState {
    /// Forgets the last choice (a pipeline was bound: its handle may now name another).
    pub fn rebind(&mut self) {
        self.chosen = None;
    }
}

/// The vertex program a draw runs: the pipeline's own, or a shared variant.
pub enum Program<'a> {
    Fixed(&'a VertexProgram),
    Variant(Arc<VertexProgram>),
}

impl Deref for Program<'_> {
    type Target = VertexProgram;
    fn deref(&self) -> &VertexProgram {
        match self {
            Program::Fixed(p) => p,
            Program::Variant(p) => p,
        }
    }
}

/// The vertex program for a draw with the bound pipeline `p` and the command buffer's
/// vertex input layout.
pub fn program<'p>(
    dev: &Device,
    rec: &mut Recording,
    p: &'p GraphicsPipeline,
) -> Result<Program<'p>, vk::Result> {
    let d = match &p.vertex {
        VertexPrograms::Fixed(v) => return Ok(Program::Fixed(v)),
        VertexPrograms::Dynamic(d) => d,
    };
    let pipeline = rec.gfx().pipeline;
    let vi = &mut rec.gfx_mut().vertex_input;
    if let Some((chosen, serial, prog)) = &vi.chosen {
        if *chosen == pipeline && *serial == vi.serial {
            return Ok(Program::Variant(prog.clone()));
        }
    }
    let prog = variant(dev, d, read_layout(d.stage.locations(), &vi.layout))?;
    vi.chosen = Some((pipeline, vi.serial, prog.clone()));
    Ok(Program::Variant(prog))
}

/// The part of `all` a shader reading input `locations` depends on: the attributes at those
/// locations (in location order) and their bindings (in binding order), with the divisor of
/// per-vertex bindings, which nothing reads, made 1.
pub fn read_layout(locations: &[u32], all: &VertexInputLayout) -> VertexInputLayout {
    let mut out = VertexInputLayout::default();
    for &location in locations {
        // A location without an attribute stays out: compiling then reports it.
        let Some(a) = all.attributes.iter().find(|a| a.location == location) else {
            continue;
        };
        out.attributes.push(*a);
        if out.bindings.iter().any(|b| b.binding == a.binding) {
            continue;
        }
        let mut b = all
            .bindings
            .iter()
            .find(|b| b.binding == a.binding)
            .copied()
            .unwrap_or(VertexBindingDesc {
                binding: a.binding,
                per_instance: false,
                divisor: 1,
            });
        if !b.per_instance {
            b.divisor = 1;
        }
        out.bindings.push(b);
    }
    out.bindings.sort_unstable_by_key(|b| b.binding);
    out
}

/// The program of `d` for layout `key`, compiled and uploaded if no draw made it before.
/// The lock is held while compiling, so each layout is compiled once.
fn variant(
    dev: &Device,
    d: &DynamicVertex,
    key: VertexInputLayout,
) -> Result<Arc<VertexProgram>, vk::Result> {
    let mut map = d.variants.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(p) = map.get(&key) {
        return Ok(p.clone());
    }
    let v = d.stage.compile(&key).map_err(|e| {
        eprintln!("agx4: vertex shader for a dynamic vertex input layout: {e}");
        crate::pipeline::compile_error_result(&e)
    })?;
    let prog = Arc::new(VertexProgram::new(dev, v)?);
    map.insert(key, prog.clone());
    Ok(prog)
}

/// Reads vkCmdSetVertexInputEXT's descriptions into `rec`.
fn set_vertex_input(
    rec: &mut Recording,
    bindings: &[vk::VertexInputBindingDescription2EXT<'_>],
    attributes: &[vk::VertexInputAttributeDescription2EXT<'_>],
) -> Result<(), vk::Result> {
    let mut layout = VertexInputLayout::default();
    for b in bindings {
        if b.binding >= MAX_VERTEX_BINDINGS {
            eprintln!("agx4: vertex binding {} is out of range", b.binding);
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        let per_instance = b.input_rate == vk::VertexInputRate::INSTANCE;
        rec.gfx_mut().ext.strides[b.binding as usize] = b.stride;
        layout.bindings.push(VertexBindingDesc {
            binding: b.binding,
            per_instance,
            divisor: if per_instance { b.divisor } else { 1 },
        });
    }
    for a in attributes {
        let Some(format) = format::vertex_format(a.format) else {
            eprintln!(
                "agx4: vertex attribute format {:?} is not supported",
                a.format
            );
            return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
        };
        if a.location >= MAX_VERTEX_ATTRIBUTES || a.binding >= MAX_VERTEX_BINDINGS {
            eprintln!(
                "agx4: vertex attribute location {} binding {} is out of range",
                a.location, a.binding
            );
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        layout.attributes.push(VertexAttribute {
            location: a.location,
            binding: a.binding,
            format,
            offset: a.offset,
        });
    }
    // Layers such as Zink set the layout before every draw: an unchanged one keeps the
    // program already chosen.
    let vi = &mut rec.gfx_mut().vertex_input;
    if vi.layout != layout {
        vi.layout = layout;
        vi.serial += 1;
        vi.chosen = None;
    }
    rec.state_changed();
    Ok(())
}

pub unsafe extern "system" fn cmd_set_vertex_input(
    cb: vk::CommandBuffer,
    binding_count: u32,
    p_bindings: *const vk::VertexInputBindingDescription2EXT<'_>,
    attribute_count: u32,
    p_attributes: *const vk::VertexInputAttributeDescription2EXT<'_>,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdSetVertexInputEXT", cb, |_, rec| {
        // SAFETY: valid usage: the arrays hold their counts of descriptions.
        let (bindings, attributes) = unsafe {
            (
                handle::slice(p_bindings, binding_count),
                handle::slice(p_attributes, attribute_count),
            )
        };
        set_vertex_input(rec, bindings, attributes)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use compiler::{AttribComponent, VertexFormat};

    fn attr(location: u32, binding: u32, offset: u32) -> VertexAttribute {
        VertexAttribute {
            location,
            binding,
            format: VertexFormat::Plain {
                comp: AttribComponent::F32,
                count: 2,
                bgra: false,
            },
            offset,
        }
    }

    fn binding(binding: u32, per_instance: bool, divisor: u32) -> VertexBindingDesc {
        VertexBindingDesc {
            binding,
            per_instance,
            divisor,
        }
    }

    #[test]
    fn read_layout_keeps_only_what_the_shader_reads() {
        let all = VertexInputLayout {
            attributes: vec![attr(3, 2, 8), attr(0, 5, 0), attr(1, 2, 0)],
            bindings: vec![
                binding(5, false, 7),
                binding(2, true, 3),
                binding(9, true, 2),
            ],
        };
        let k = read_layout(&[0, 3], &all);
        assert_eq!(k.attributes, vec![attr(0, 5, 0), attr(3, 2, 8)]);
        // Bindings in order; the per-vertex binding's divisor does not matter.
        assert_eq!(k.bindings, vec![binding(2, true, 3), binding(5, false, 1)]);
        // Another layout that differs only in what the shader does not read gives the same key.
        let other = VertexInputLayout {
            attributes: vec![attr(0, 5, 0), attr(3, 2, 8), attr(7, 9, 4)],
            bindings: vec![binding(2, true, 3), binding(5, false, 1)],
        };
        assert_eq!(read_layout(&[0, 3], &other), k);
        // An offset the shader reads does change it.
        let moved = VertexInputLayout {
            attributes: vec![attr(0, 5, 4), attr(3, 2, 8)],
            bindings: other.bindings.clone(),
        };
        assert_ne!(read_layout(&[0, 3], &moved), k);
    }

    #[test]
    fn read_layout_leaves_out_missing_locations() {
        let all = VertexInputLayout {
            attributes: vec![attr(1, 0, 0)],
            bindings: vec![binding(0, false, 1)],
        };
        let k = read_layout(&[0, 1], &all);
        assert_eq!(k.attributes, vec![attr(1, 0, 0)]);
        assert_eq!(k.bindings, vec![binding(0, false, 1)]);
    }
}
