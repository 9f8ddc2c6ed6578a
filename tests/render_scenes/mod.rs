//! Differential rendering scenes: the same Vulkan program rendered on agx4 and on Mesa's
//! lavapipe, compared pixel by pixel, and against a CPU expectation where one is cheap.
//!
//! Layout: `gpu` opens a driver through the loader with validation; `frame` holds one scene's
//! objects and the drawing helpers; `needs` says what a scene requires (a device without it
//! skips the scene); `raster` is the CPU reference for triangles; `image` decodes, compares
//! and writes PPMs; `run` runs scenes and is the entry point for other programs
//! (`run::render(&driver, name)` gives a scene's pixels); `scenes` lists them.
//!
//! Include it from a test or bench with
//! `#[path = "<...>/tests/render_scenes/mod.rs"] mod render_scenes;`.

#![allow(dead_code)]

pub mod frame;
pub mod gpu;
pub mod image;
pub mod needs;
pub mod raster;
pub mod run;
pub mod scenes;
mod spirv;
