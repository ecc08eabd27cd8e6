//! `powder adapters`: the GPU adapters this machine offers, in the order `--gpu INDEX` counts them.

use anyhow::Result;
use powder::gpu::{adapters, describe_adapters, vulkan_instance};

/// Prints one line per adapter: `index: name (backend, device type)`.
pub fn list() -> Result<()> {
    let instance = vulkan_instance(wgpu::InstanceDescriptor::new_without_display_handle());
    let found = adapters(&instance);
    anyhow::ensure!(
        !found.is_empty(),
        "no Vulkan GPU adapter found. On a machine without a GPU driver install Mesa's software driver: \
         apt-get install mesa-vulkan-drivers libvulkan1"
    );
    for line in describe_adapters(&found) {
        println!("{line}");
    }
    Ok(())
}
