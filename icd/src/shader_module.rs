//! VkShaderModule: the SPIR-V words, checked by the compiler's front end at creation.

use crate::device::Device;
use crate::entry::{guard, guard_or};
use crate::handle::{object, Object};
use ash::vk;

pub struct ShaderModule {
    pub words: Vec<u32>,
}
object!(ShaderModule, vk::ShaderModule);

pub unsafe extern "system" fn create_shader_module(
    device: vk::Device,
    p_create_info: *const vk::ShaderModuleCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_module: *mut vk::ShaderModule,
) -> vk::Result {
    guard("vkCreateShaderModule", || {
        // SAFETY: `device` is vkCreateShaderModule's device parameter, which valid usage requires
        // to be a live device made by this driver.
        unsafe { Device::get(device) }?;
        // SAFETY: valid usage: pCreateInfo is valid and pCode holds codeSize bytes.
        let info = unsafe { &*p_create_info };
        if info.code_size % 4 != 0 || info.p_code.is_null() {
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        // SAFETY: as above; codeSize is a multiple of 4.
        let words = unsafe { std::slice::from_raw_parts(info.p_code, info.code_size / 4) }.to_vec();
        // Bad SPIR-V fails here rather than at pipeline creation. Vulkan has no core error
        // code for it, so it is VK_ERROR_UNKNOWN with the reason on stderr.
        compiler::check_module(&words).map_err(|e| {
            eprintln!("agx4: vkCreateShaderModule: {e}");
            vk::Result::ERROR_UNKNOWN
        })?;
        // SAFETY: valid usage: pAllocator is null or valid allocation callbacks.
        let handle = unsafe {
            ShaderModule { words }.into_handle_in(p_allocator, vk::SystemAllocationScope::OBJECT)
        }?;
        // SAFETY: valid usage: pShaderModule is writable.
        unsafe { *p_module = handle };
        Ok(())
    })
}

pub unsafe extern "system" fn destroy_shader_module(
    _device: vk::Device,
    module: vk::ShaderModule,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard_or("vkDestroyShaderModule", (), || {
        // SAFETY: Vulkan valid usage: `shaderModule` is VK_NULL_HANDLE or a live shader module
        // made by this driver, and this destroy command is its last use.
        drop(unsafe { ShaderModule::take(module) })
    })
}
