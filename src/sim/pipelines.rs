//! The compiled MPM kernels: one compute pipeline per pass, all sharing one bind group layout.
//! The data they run on lives in [`super::page::ParticlePage`]; kernels are built once per device
//! and survive scene loads and grid changes.

use std::collections::HashMap;

use super::params::WORKGROUP_SIZE;
use super::passes::MpmPass;

/// Number of bindings in group 0 (see `types.wgsl`); each page's bind group fills them
/// ([`super::page`]).
pub const BINDINGS: usize = 25;

/// Compute pipelines of every MPM pass and their bind group layout (group 0, see `types.wgsl`).
pub struct Kernels {
    /// Layout of the simulation-state bind group.
    pub layout: wgpu::BindGroupLayout,
    /// Layout of group 1, which only `bin_dispatch` and `clock_gate` have: the indirect arguments they write
    /// (`bin_dispatch.wgsl`). They cannot be in group 0: a buffer bound as writable storage cannot
    /// be read as indirect arguments by the same dispatch, and group 0 is bound to every one.
    pub dispatch_args_layout: wgpu::BindGroupLayout,
    pipelines: HashMap<(MpmPass, bool), wgpu::ComputePipeline>,
}

fn storage_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: false },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// Storage buffers the MPM bind group layout holds (all bindings but the two uniform blocks):
/// the device must allow this many per compute shader stage, which the device setup asks for
/// ([`crate::gpu::STORAGE_BUFFERS_NEEDED`]).
pub const STORAGE_BUFFERS: u32 = BINDINGS as u32 - 2;
const _: () = assert!(STORAGE_BUFFERS == crate::gpu::STORAGE_BUFFERS_NEEDED, "the device setup asks for too few");

/// A shader that failed to build, with naga's (or the driver's) message.
#[derive(Debug, thiserror::Error)]
#[error("shader {pass} failed to build:\n{message}")]
pub struct ShaderError {
    /// The pass whose module failed.
    pub pass: &'static str,
    /// The compiler's message, with source locations.
    pub message: String,
}

fn layout_entries() -> [wgpu::BindGroupLayoutEntry; BINDINGS] {
    let uniform = |binding| wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    };
    let read_only = |binding| wgpu::BindGroupLayoutEntry {
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: true },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        ..storage_entry(binding)
    };
    // Uniforms: params (0) and pick_ray (10); read-only: the collider fields (11, 12, 21); the
    // rest, the particle streams (1–6) among them, are read-write storage (see types.wgsl).
    std::array::from_fn(|i| match i as u32 {
        b @ (0 | 10) => uniform(b),
        b @ (11 | 12 | 21) => read_only(b),
        b => storage_entry(b),
    })
}

/// Parses and validates a composed module with naga, as the device would, so a broken edit is
/// reported with its source location instead of reaching the driver.
pub fn validate_source(pass: MpmPass, source: &str) -> Result<(), ShaderError> {
    use wgpu::naga;
    let fail = |message| ShaderError { pass: pass.name(), message };
    let module = naga::front::wgsl::parse_str(source).map_err(|e| fail(e.emit_to_string(source)))?;
    validator().validate(&module).map_err(|e| fail(e.emit_to_string(source)))?;
    Ok(())
}

/// naga's validator as the device sees the MPM modules: default capabilities, plus subgroup
/// operations in compute shaders (only [`crate::sim::passes::PassInfo::needs_subgroups`] passes use them, and those are
/// built only where the device has them) and immediate data (the reorder's round; Vulkan always
/// has it).
pub fn validator() -> wgpu::naga::valid::Validator {
    use wgpu::naga::valid::{Capabilities, ShaderStages, SubgroupOperationSet, ValidationFlags, Validator};
    let mut validator = Validator::new(
        ValidationFlags::all(),
        Capabilities::default() | Capabilities::SUBGROUP | Capabilities::IMMEDIATES,
    );
    validator.subgroup_stages(ShaderStages::COMPUTE).subgroup_operations(SubgroupOperationSet::all());
    validator
}

impl Kernels {
    /// Compiles every pass for `device` from the embedded sources.
    pub fn new(device: &wgpu::Device) -> Self {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("mpm.state"),
            entries: &layout_entries(),
        });
        let sources = MpmPass::ALL.into_iter().map(|pass| (pass, pass.composed_source())).collect();
        // The embedded sources are validated by tests/wgsl.rs; failing here is a build defect.
        let dispatch_args_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("mpm.dispatch_args"),
            entries: &[storage_entry(0)],
        });
        let pipelines =
            build_pipelines(device, [&layout, &dispatch_args_layout], &sources).expect("embedded MPM shaders compile");
        Self { layout, dispatch_args_layout, pipelines }
    }

    /// Rebuilds every pipeline from `sources` (composed modules, e.g. re-read from disk). On any
    /// error the current pipelines stay and the error says which pass failed and why.
    pub fn reload(&mut self, device: &wgpu::Device, sources: &HashMap<MpmPass, String>) -> Result<(), ShaderError> {
        self.pipelines = build_pipelines(device, [&self.layout, &self.dispatch_args_layout], sources)?;
        Ok(())
    }

    /// The pipeline of `pass` (see [`Kernels::has`]) for a dense grid, or for a sparse one where
    /// `sparse` (its `SPARSE_GRID` variant, [`crate::sim::passes::PassInfo::sparse_variant`]; the others serve both).
    pub fn pipeline(&self, pass: MpmPass, sparse: bool) -> &wgpu::ComputePipeline {
        &self.pipelines[&(pass, sparse && pass.info().sparse_variant)]
    }

    /// Whether `pass` was built: all are, except those needing subgroups on a device without them.
    pub fn has(&self, pass: MpmPass) -> bool {
        self.pipelines.contains_key(&(pass, false))
    }
}

/// What wgpu adds to the MPM kernels when it translates them (`POWDER_SHADER_CHECKS`).
///
/// wgpu's defaults bound every loop with a hidden 64-bit counter, so that a driver cannot assume
/// an endless loop away, and clamp every dynamic index. Every loop of the MPM kernels is a `for`
/// over a count or a stride loop over a buffer's length, so the counter guards nothing there, and
/// on the H100 it made the substep markedly slower (docs/performance.md, "What wgpu adds to the
/// kernels"). The MPM kernels are therefore
/// built without it; index clamps stay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuntimeChecks {
    /// wgpu's defaults (`all`).
    All,
    /// Indices still clamped, no loop counters (`no-loop-bounding`): the default.
    NoLoopBounding,
    /// Neither (`none`). Buffer accesses are then checked only where the driver does it itself
    /// (Vulkan's robustBufferAccess2); for measuring what the index clamps cost, not for use.
    None,
}

impl RuntimeChecks {
    /// The default for the MPM kernels.
    pub const DEFAULT: Self = Self::NoLoopBounding;

    /// The setting `name` stands for (`all`, `no-loop-bounding`, `none`).
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "all" => Some(Self::All),
            "no-loop-bounding" => Some(Self::NoLoopBounding),
            "none" => Some(Self::None),
            _ => None,
        }
    }

    /// From `POWDER_SHADER_CHECKS`, or [`Self::DEFAULT`] where it is unset or names no setting
    /// (with a warning).
    pub fn from_env() -> Self {
        let Ok(name) = std::env::var("POWDER_SHADER_CHECKS") else {
            return Self::DEFAULT;
        };
        Self::from_name(name.trim()).unwrap_or_else(|| {
            log::warn!("POWDER_SHADER_CHECKS={name:?} is not all, no-loop-bounding or none; using no-loop-bounding");
            Self::DEFAULT
        })
    }

    fn wgpu(self) -> wgpu::ShaderRuntimeChecks {
        match self {
            Self::All => wgpu::ShaderRuntimeChecks::checked(),
            Self::NoLoopBounding => {
                wgpu::ShaderRuntimeChecks { force_loop_bounding: false, ..wgpu::ShaderRuntimeChecks::checked() }
            }
            Self::None => wgpu::ShaderRuntimeChecks::unchecked(),
        }
    }
}

/// Builds every pass's pipeline from `sources`: group 0 is `layouts[0]` for all, the pass that
/// [`crate::sim::passes::PassInfo::writes_dispatch_args`] also has group 1, `layouts[1]`, and those that
/// [`crate::sim::passes::PassInfo::takes_round`] four bytes of immediate data.
fn build_pipelines(
    device: &wgpu::Device,
    layouts: [&wgpu::BindGroupLayout; 2],
    sources: &HashMap<MpmPass, String>,
) -> Result<HashMap<(MpmPass, bool), wgpu::ComputePipeline>, ShaderError> {
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("mpm"),
        bind_group_layouts: &[Some(layouts[0])],
        immediate_size: 0,
    });
    let dispatch_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("mpm.bin_dispatch"),
        bind_group_layouts: &[Some(layouts[0]), Some(layouts[1])],
        immediate_size: 0,
    });
    let round_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("mpm.rounds"),
        bind_group_layouts: &[Some(layouts[0])],
        immediate_size: size_of::<u32>() as u32,
    });
    let mut pipelines = HashMap::new();
    let checks = RuntimeChecks::from_env();
    let subgroups = device.features().contains(wgpu::Features::SUBGROUP);
    for pass in MpmPass::ALL.into_iter().filter(|p| subgroups || !p.info().needs_subgroups) {
        let missing = || ShaderError { pass: pass.name(), message: "no source given".into() };
        let source = sources.get(&pass).ok_or_else(missing)?;
        validate_source(pass, source)?;
        // naga accepted it; anything the device still rejects is caught by the error scope.
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let descriptor = wgpu::ShaderModuleDescriptor {
            label: Some(pass.name()),
            source: wgpu::ShaderSource::Wgsl(source.as_str().into()),
        };
        // SAFETY: create_shader_module_trusted asks that the module has no endless loop where
        // loop bounding is off; every loop of the MPM kernels runs over a count (RuntimeChecks).
        // `none` also drops index clamps, which only POWDER_SHADER_CHECKS=none asks for.
        let module = unsafe { device.create_shader_module_trusted(descriptor, checks.wgpu()) };
        let variants: &[bool] = if pass.info().sparse_variant { &[false, true] } else { &[false] };
        for &sparse in variants {
            let mut constants = vec![("WORKGROUP_SIZE", WORKGROUP_SIZE as f64)];
            constants.extend(pass.info().tile_nodes.map(|n| ("TILE_NODES", n as f64)));
            constants.push(("SPARSE_GRID", sparse as u32 as f64));
            let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(pass.name()),
                layout: Some(if pass.info().writes_dispatch_args {
                    &dispatch_layout
                } else if pass.info().takes_round {
                    &round_layout
                } else {
                    &pipeline_layout
                }),
                module: &module,
                entry_point: Some(pass.name()),
                compilation_options: wgpu::PipelineCompilationOptions { constants: &constants, ..Default::default() },
                cache: None,
            });
            pipelines.insert((pass, sparse), pipeline);
        }
        if let Some(error) = pollster::block_on(scope.pop()) {
            return Err(ShaderError { pass: pass.name(), message: error.to_string() });
        }
    }
    Ok(pipelines)
}

#[cfg(test)]
mod tests {
    use super::RuntimeChecks;

    #[test]
    fn runtime_checks_by_name() {
        assert_eq!(RuntimeChecks::from_name("all"), Some(RuntimeChecks::All));
        assert_eq!(RuntimeChecks::from_name("no-loop-bounding"), Some(RuntimeChecks::NoLoopBounding));
        assert_eq!(RuntimeChecks::from_name("none"), Some(RuntimeChecks::None));
        assert_eq!(RuntimeChecks::from_name("off"), None);
        // Only the loop counters go by default; index clamps stay.
        let default = RuntimeChecks::DEFAULT.wgpu();
        assert!(!default.force_loop_bounding && default.bounds_checks);
        assert!(RuntimeChecks::All.wgpu().force_loop_bounding);
    }
}
