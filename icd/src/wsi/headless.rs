//! VK_EXT_headless_surface: a surface with no window. Its swapchains pace and recycle images
//! as any other (the present mode is honoured), but nothing is shown.

use super::{Backend, PresentImage};
use ash::vk;

pub struct Presenter;

impl Backend for Presenter {
    fn show(&mut self, _image: &PresentImage<'_>) -> Result<(), vk::Result> {
        Ok(())
    }

    fn wants_pixels(&self) -> bool {
        false
    }
}
