//! wgpu instance, adapter and device creation, and small helpers every GPU user needs.
//!
//! powder runs on Vulkan (wgpu is built with that backend only). Machines without a GPU use Mesa's
//! software Vulkan driver, lavapipe; tests assert the backend so a silent fallback cannot hide.

use std::sync::Arc;

use thiserror::Error;

/// Storage buffers per compute shader stage the device must allow: the simulation's bind group
/// holds this many (`crate::sim::pipelines::STORAGE_BUFFERS`, which a compile-time assertion ties
/// to it). lavapipe allows 32; WebGPU's default is only 8.
pub const STORAGE_BUFFERS_NEEDED: u32 = 23;

/// Failures while setting up the GPU.
#[derive(Debug, Error)]
pub enum GpuError {
    /// No adapter was found at all.
    #[error(
        "no Vulkan GPU adapter found ({0}). On a machine without a GPU driver install Mesa's software \
         driver: apt-get install mesa-vulkan-drivers libvulkan1"
    )]
    NoAdapter(String),
    /// The adapter refused the device request.
    #[error("the GPU adapter '{adapter}' refused to create a device: {reason}")]
    RequestDevice {
        /// Adapter name.
        adapter: String,
        /// wgpu's reason.
        reason: String,
    },
    /// `--gpu` (or `POWDER_GPU`) named an adapter that is not there.
    #[error("--gpu {asked}: {why}; the adapters are (index: name, backend, type): {available}")]
    NoSuchAdapter {
        /// What was asked for, as written.
        asked: String,
        /// Why nothing matched: an index out of range or a name no adapter contains.
        why: String,
        /// The adapters there are, as [`describe_adapters`] lists them, on one line.
        available: String,
    },
    /// A buffer could not be mapped for reading.
    #[error("reading back the GPU buffer '{label}' failed: {reason}")]
    Readback {
        /// The buffer's label.
        label: String,
        /// wgpu's reason.
        reason: String,
    },
}

/// The device, its queue and what we learned about the adapter.
#[derive(Clone)]
pub struct Gpu {
    /// The wgpu instance (kept so surfaces can be created from it later).
    pub instance: wgpu::Instance,
    /// The chosen adapter.
    pub adapter: wgpu::Adapter,
    /// The logical device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// Name, backend and driver of the adapter.
    pub info: wgpu::AdapterInfo,
    /// Whether compute passes can carry timestamp queries.
    pub has_timestamps: bool,
    /// Set by the device-lost callback; long loops check it instead of hanging.
    pub lost: Arc<std::sync::atomic::AtomicBool>,
}

/// The instance flags of powder's devices: wgpu's defaults for the build, with the `WGPU_*`
/// environment overrides, except that indirect calls are not validated on the GPU unless
/// `WGPU_VALIDATION_INDIRECT_CALL=1` asks for it.
///
/// That validation records an extra compute dispatch before every indirect dispatch or draw, to
/// clamp its arguments: two or three per substep, and a tenth of the host's recording time. The
/// arguments powder passes are valid by construction: `bin_dispatch` spills workgroup counts past
/// 65 535 into y, so neither count passes the limit Vulkan guarantees, and the particle draw's
/// arguments have `first_instance` 0 and draw no vertex buffer.
pub fn instance_flags() -> wgpu::InstanceFlags {
    (wgpu::InstanceFlags::default() - wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL).with_env()
}

/// A Vulkan-only instance for `desc` (with a display handle for the window, or without), with the
/// `WGPU_*` environment overrides and [`instance_flags`].
pub fn vulkan_instance(desc: wgpu::InstanceDescriptor) -> wgpu::Instance {
    let mut desc = desc.with_env();
    desc.backends = wgpu::Backends::VULKAN;
    desc.flags = instance_flags();
    wgpu::Instance::new(desc)
}

/// Environment variable that names the GPU adapter when `--gpu` does not: an index or part of a
/// name, as `--gpu` takes, so that a job scheduler can place one job per GPU.
pub const GPU_ENV: &str = "POWDER_GPU";

/// Which GPU adapter to run on (`--gpu`): an index into [`adapters`]'s list, or a part of an
/// adapter's name, matched without regard to case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GpuChoice {
    /// The adapter at this index of [`adapters`].
    Index(usize),
    /// The first adapter whose name contains this text, case ignored.
    Name(String),
}

impl GpuChoice {
    /// `text` as a choice: all digits is an index, anything else a name.
    pub fn parse(text: &str) -> Self {
        let text = text.trim();
        match text.parse::<usize>() {
            Ok(index) => GpuChoice::Index(index),
            Err(_) => GpuChoice::Name(text.to_string()),
        }
    }

    /// `flag` if given, else [`GPU_ENV`] if set and not empty, else `None` (the best adapter).
    pub fn or_env(flag: Option<GpuChoice>) -> Option<GpuChoice> {
        flag.or_else(|| std::env::var(GPU_ENV).ok().filter(|v| !v.trim().is_empty()).map(|v| GpuChoice::parse(&v)))
    }

    /// The choice as written on the command line.
    fn text(&self) -> String {
        match self {
            GpuChoice::Index(i) => i.to_string(),
            GpuChoice::Name(name) => name.clone(),
        }
    }
}

/// Every Vulkan adapter of `instance`, in the order `--gpu INDEX` counts them (wgpu's enumeration
/// order, which is the driver's).
pub fn adapters(instance: &wgpu::Instance) -> Vec<wgpu::Adapter> {
    pollster::block_on(instance.enumerate_adapters(wgpu::Backends::VULKAN))
}

/// One line per adapter: `index: name (backend, device type)`.
pub fn describe_adapters(adapters: &[wgpu::Adapter]) -> Vec<String> {
    adapters
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let info = a.get_info();
            format!("{i}: {} ({:?}, {:?})", info.name, info.backend, info.device_type)
        })
        .collect()
}

/// The adapter `choice` names among `adapters`; an error listing them all where none matches.
pub fn select_adapter(adapters: Vec<wgpu::Adapter>, choice: &GpuChoice) -> Result<wgpu::Adapter, GpuError> {
    let count = adapters.len();
    let found = match choice {
        GpuChoice::Index(i) => adapters.get(*i).cloned(),
        GpuChoice::Name(name) => {
            let wanted = name.to_lowercase();
            adapters.iter().find(|a| a.get_info().name.to_lowercase().contains(&wanted)).cloned()
        }
    };
    found.ok_or_else(|| {
        let why = match choice {
            GpuChoice::Index(i) => format!("there is no adapter {i} ({count} found, numbered from 0)"),
            GpuChoice::Name(name) => format!("no adapter's name contains {name:?}"),
        };
        let listed = describe_adapters(&adapters);
        let available = if listed.is_empty() { "none".to_string() } else { listed.join("; ") };
        GpuError::NoSuchAdapter { asked: choice.text(), why, available }
    })
}

impl Gpu {
    /// Creates a device on the best Vulkan adapter, without a window.
    pub fn new_headless() -> Result<Self, GpuError> {
        Self::new_headless_on(None)
    }

    /// Creates a device without a window on the adapter `choice` names, or on the best Vulkan
    /// adapter (a discrete GPU first) without one.
    pub fn new_headless_on(choice: Option<&GpuChoice>) -> Result<Self, GpuError> {
        let instance = vulkan_instance(wgpu::InstanceDescriptor::new_without_display_handle());
        let adapter = match choice {
            Some(choice) => select_adapter(adapters(&instance), choice)?,
            None => pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                ..Default::default()
            }))
            .map_err(|e| GpuError::NoAdapter(e.to_string()))?,
        };
        Self::from_adapter(instance, adapter)
    }

    /// Creates the device on `adapter`, asking for the adapter's own limits (lavapipe and real GPUs
    /// both offer far more than WebGPU's defaults) and for timestamp queries where available.
    pub fn from_adapter(instance: wgpu::Instance, adapter: wgpu::Adapter) -> Result<Self, GpuError> {
        let info = adapter.get_info();
        let has_timestamps = adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        let mut required_features = wgpu::Features::empty();
        if has_timestamps {
            required_features |= wgpu::Features::TIMESTAMP_QUERY;
        }
        // p2g_tiled_subgroup's shuffles; without them the sorted path uses p2g_tiled.
        required_features |= adapter.features() & wgpu::Features::SUBGROUP;
        // The reorder's round (src/sim/sort/reorder.rs): Vulkan's push constants, which every Vulkan
        // adapter has.
        required_features |= wgpu::Features::IMMEDIATES;
        let needed = STORAGE_BUFFERS_NEEDED;
        let offered = adapter.limits().max_storage_buffers_per_shader_stage;
        if offered < needed {
            return Err(GpuError::RequestDevice {
                adapter: info.name.clone(),
                reason: format!(
                    "powder's simulation binds {needed} storage buffers per compute shader, and this adapter allows \
                     {offered} (max_storage_buffers_per_shader_stage)"
                ),
            });
        }
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("powder"),
            required_features,
            required_limits: adapter.limits(),
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        }))
        .map_err(|e| GpuError::RequestDevice { adapter: info.name.clone(), reason: e.to_string() })?;
        let lost = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let lost_flag = lost.clone();
        device.set_device_lost_callback(move |reason, message| {
            lost_flag.store(true, std::sync::atomic::Ordering::SeqCst);
            log::error!("GPU device lost ({reason:?}): {message}");
        });
        log::info!(
            "GPU: {} ({:?}, {:?}, driver {} {})",
            info.name,
            info.backend,
            info.device_type,
            info.driver,
            info.driver_info
        );
        Ok(Self { instance, adapter, device, queue, info, has_timestamps, lost })
    }

    /// A one-line description of the adapter for logs and benchmark reports.
    pub fn describe(&self) -> String {
        format!(
            "{} ({:?} {:?}, driver {} {})",
            self.info.name, self.info.backend, self.info.device_type, self.info.driver, self.info.driver_info
        )
    }

    /// A timestamp query set of `count` queries named `label`, and the buffer (8 bytes a query)
    /// it resolves into, to be copied out for reading.
    pub fn timestamp_queries(&self, label: &str, count: u32) -> (wgpu::QuerySet, wgpu::Buffer) {
        let queries = self.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some(label),
            ty: wgpu::QueryType::Timestamp,
            count,
        });
        let resolve = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: 8 * count as u64,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        (queries, resolve)
    }

    /// Blocks until the GPU has finished all submitted work.
    pub fn wait_idle(&self) {
        // An error here means the device is lost; the lost flag and callback report that.
        if let Err(e) = self.device.poll(wgpu::PollType::wait_indefinitely()) {
            log::error!("waiting for the GPU failed: {e}");
        }
    }

    /// Copies a whole texture (which needs `COPY_SRC`, and a format with a fixed texel size) to the
    /// host: rows x fastest, then rows, then layers, without the copy's row padding.
    pub fn read_texture(&self, texture: &wgpu::Texture) -> Result<Vec<u8>, GpuError> {
        let size = texture.size();
        let texel = texture.format().block_copy_size(None).unwrap_or(4);
        let row_bytes = texel * size.width;
        // Buffer rows of a texture copy must start at multiples of 256 bytes.
        let padded_row = row_bytes.next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("texture readback"),
            size: padded_row as u64 * size.height as u64 * size.depth_or_array_layers as u64,
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let mut encoder = self.device.create_command_encoder(&Default::default());
        encoder.copy_texture_to_buffer(
            texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &staging,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded_row),
                    rows_per_image: Some(size.height),
                },
            },
            size,
        );
        self.queue.submit([encoder.finish()]);
        let padded = self.map_read(&staging, format!("{texture:?}"))?;
        Ok(padded.chunks_exact(padded_row as usize).flat_map(|row| &row[..row_bytes as usize]).copied().collect())
    }

    /// Copies `buffer` (which needs `COPY_SRC`) to the host and returns its bytes.
    pub fn read_buffer(&self, buffer: &wgpu::Buffer) -> Result<Vec<u8>, GpuError> {
        Ok(self.read_buffers(&[buffer])?.pop().unwrap_or_default())
    }

    /// Copies `buffers` (each needs `COPY_SRC`) to the host with one staging buffer, one submission
    /// and one wait, and returns their bytes in order.
    pub fn read_buffers(&self, buffers: &[&wgpu::Buffer]) -> Result<Vec<Vec<u8>>, GpuError> {
        // Buffer sizes are multiples of wgpu::COPY_BUFFER_ALIGNMENT, so every offset is too.
        let offsets: Vec<u64> = buffers.iter().scan(0, |at, b| Some(std::mem::replace(at, *at + b.size()))).collect();
        let total: u64 = buffers.iter().map(|b| b.size()).sum();
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: total.max(wgpu::COPY_BUFFER_ALIGNMENT),
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let mut encoder = self.device.create_command_encoder(&Default::default());
        for (buffer, &offset) in buffers.iter().zip(&offsets) {
            encoder.copy_buffer_to_buffer(buffer, 0, &staging, offset, buffer.size());
        }
        self.queue.submit([encoder.finish()]);
        let bytes = self.map_read(&staging, format!("{buffers:?}"))?;
        Ok(buffers.iter().zip(&offsets).map(|(b, &o)| bytes[o as usize..(o + b.size()) as usize].to_vec()).collect())
    }

    /// Maps a `MAP_READ` buffer after the work submitted so far and returns its bytes; errors name
    /// `label`, what was being read.
    fn map_read(&self, staging: &wgpu::Buffer, label: String) -> Result<Vec<u8>, GpuError> {
        let (sender, receiver) = std::sync::mpsc::channel();
        staging.slice(..).map_async(wgpu::MapMode::Read, move |r| {
            let _ = sender.send(r);
        });
        self.wait_idle();
        let fail = |reason: String| GpuError::Readback { label: label.clone(), reason };
        match receiver.recv() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(fail(e.to_string())),
            Err(e) => return Err(fail(e.to_string())),
        }
        let bytes = staging.slice(..).get_mapped_range().map_err(|e| fail(e.to_string()))?.to_vec();
        staging.unmap();
        Ok(bytes)
    }
}

/// A copy of GPU buffers to the host that nobody waits for: [`Gpu::record_read`] records the copies
/// into a command encoder; once that is submitted, [`PendingRead::start`] asks for the mapping,
/// which completes when the GPU has finished the submission and the device is polled
/// ([`Gpu::poll`]); [`PendingRead::take`] then returns the bytes. Clones are the same read.
#[derive(Clone)]
pub struct PendingRead {
    staging: wgpu::Buffer,
    sizes: Vec<u64>,
    started: Arc<std::sync::atomic::AtomicBool>,
    state: Arc<std::sync::Mutex<Option<Result<(), wgpu::BufferAsyncError>>>>,
}

impl PendingRead {
    /// Asks for the mapping: call once the submission carrying the copies was submitted. Later
    /// calls do nothing.
    pub fn start(&self) {
        if self.started.swap(true, std::sync::atomic::Ordering::SeqCst) {
            return;
        }
        let state = self.state.clone();
        self.staging.slice(..).map_async(wgpu::MapMode::Read, move |result| {
            if let Ok(mut slot) = state.lock() {
                *slot = Some(result);
            }
        });
    }

    /// Whether the bytes are there (or the copy failed): [`PendingRead::take`] will not be `None`.
    pub fn ready(&self) -> bool {
        self.state.lock().map_or(true, |slot| slot.is_some())
    }

    /// The bytes of each buffer, in the order given to [`Gpu::record_read`], once the mapping has
    /// completed; `None` before.
    pub fn take(&self) -> Option<Result<Vec<Vec<u8>>, GpuError>> {
        let fail = |reason: String| GpuError::Readback { label: "pending read".to_string(), reason };
        let state = match self.state.lock() {
            Ok(mut slot) => slot.take()?,
            Err(e) => return Some(Err(fail(e.to_string()))),
        };
        if let Err(e) = state {
            return Some(Err(fail(e.to_string())));
        }
        let bytes = match self.staging.slice(..).get_mapped_range() {
            Ok(view) => {
                let mut at = 0usize;
                let parts = self.sizes.iter().map(|&n| {
                    let part = view[at..at + n as usize].to_vec();
                    at += n as usize;
                    part
                });
                Ok(parts.collect())
            }
            Err(e) => Err(fail(e.to_string())),
        };
        self.staging.unmap();
        Some(bytes)
    }
}

impl Gpu {
    /// Records copies of the whole of each of `buffers` (each needs `COPY_SRC`) into `encoder`,
    /// into one staging buffer, for a [`PendingRead`].
    pub fn record_read(&self, encoder: &mut wgpu::CommandEncoder, buffers: &[&wgpu::Buffer]) -> PendingRead {
        let sizes: Vec<u64> = buffers.iter().map(|b| b.size()).collect();
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("pending_read"),
            size: sizes.iter().sum::<u64>().max(wgpu::COPY_BUFFER_ALIGNMENT),
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let mut offset = 0;
        for (buffer, &size) in buffers.iter().zip(&sizes) {
            encoder.copy_buffer_to_buffer(buffer, 0, &staging, offset, size);
            offset += size;
        }
        PendingRead {
            staging,
            sizes,
            started: Arc::new(std::sync::atomic::AtomicBool::new(false)),
            state: Arc::new(std::sync::Mutex::new(None)),
        }
    }

    /// Runs the callbacks of work the GPU has finished (mappings), waiting at most `wait` for
    /// `submission` to finish (not at all with `None` or a zero wait). Returns whether the device
    /// reported all submitted work done, or the submission when one was given.
    pub fn poll(&self, submission: Option<&wgpu::SubmissionIndex>, wait: Option<std::time::Duration>) -> bool {
        let poll = match (submission, wait) {
            (Some(index), Some(timeout)) if !timeout.is_zero() => {
                wgpu::PollType::Wait { submission_index: Some(index.clone()), timeout: Some(timeout) }
            }
            _ => wgpu::PollType::Poll,
        };
        match self.device.poll(poll) {
            Ok(status) => status.wait_finished(),
            Err(wgpu::PollError::Timeout) => false,
            Err(e) => {
                // The device is lost; the lost flag and callback report that.
                log::error!("polling the GPU failed: {e}");
                false
            }
        }
    }
}

/// Bytes of the largest device-local memory heap of `device`'s Vulkan adapter: the GPU memory a
/// solver's buffers must fit in (on lavapipe, the machine's memory). wgpu has no portable query for
/// it, so this asks Vulkan directly; `None` where the device is not a Vulkan one.
pub fn device_memory_bytes(device: &wgpu::Device) -> Option<u64> {
    // SAFETY: the raw instance and physical device are only used for a read-only property query
    // while `device` (which keeps them alive) is borrowed; nothing is created or destroyed.
    let hal = unsafe { device.as_hal::<wgpu::hal::api::Vulkan>() }?;
    let properties = unsafe {
        hal.shared_instance().raw_instance().get_physical_device_memory_properties(hal.raw_physical_device())
    };
    // VK_MEMORY_HEAP_DEVICE_LOCAL_BIT (ash is not a direct dependency, so its constant is spelt out).
    const DEVICE_LOCAL_BIT: u32 = 0x1;
    properties.memory_heaps_as_slice().iter().filter(|h| h.flags.as_raw() & DEVICE_LOCAL_BIT != 0).map(|h| h.size).max()
}

#[cfg(test)]
mod tests {
    use super::GpuChoice;

    #[test]
    fn digits_choose_an_index_and_other_text_a_name() {
        assert_eq!(GpuChoice::parse("1"), GpuChoice::Index(1));
        assert_eq!(GpuChoice::parse(" 0 "), GpuChoice::Index(0));
        assert_eq!(GpuChoice::parse("RTX 4090"), GpuChoice::Name("RTX 4090".to_string()));
        assert_eq!(GpuChoice::parse("-1"), GpuChoice::Name("-1".to_string()));
    }

    #[test]
    fn indirect_calls_are_not_validated_unless_asked_for() {
        // With no WGPU_* variable set (CI sets none): the build's defaults less indirect validation.
        if std::env::vars_os().all(|(name, _)| !name.to_string_lossy().starts_with("WGPU_")) {
            let want = wgpu::InstanceFlags::default() - wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL;
            assert_eq!(super::instance_flags(), want);
            assert!(wgpu::InstanceFlags::default().contains(wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL));
        }
    }
}
