//! The WGSL sources of the MPM passes and how they are put together.
//!
//! WGSL has no `#include`, so each pass module is the concatenation of the shared library files
//! (structs and bindings, the workgroup reduction of the stats passes, the interpolation stencil,
//! the SVD, the snow model) and the pass's own
//! file ([`super::passes::PassInfo::file`]). Release and debug builds both embed the sources with `include_str!`; `tests/wgsl.rs`
//! validates every composed module with naga, without a GPU.

use super::passes::MpmPass;

/// The particle struct (mirror of `GpuParticle`) and finiteness helpers: first in every MPM module
/// and in every render module that reads particles.
pub const PARTICLE: (&str, &str) = ("mpm/particle.wgsl", include_str!("../../shaders/mpm/particle.wgsl"));

/// Library files every pass includes, in dependency order: (path under `shaders/`, source).
pub const LIBRARIES: [(&str, &str); 13] = [
    PARTICLE,
    ("mpm/materials.wgsl", include_str!("../../shaders/mpm/materials.wgsl")),
    ("mpm/types.wgsl", include_str!("../../shaders/mpm/types.wgsl")),
    ("mpm/reduce.wgsl", include_str!("../../shaders/mpm/reduce.wgsl")),
    ("mpm/kernel.wgsl", include_str!("../../shaders/mpm/kernel.wgsl")),
    ("mpm/svd.wgsl", include_str!("../../shaders/mpm/svd.wgsl")),
    ("mpm/snow.wgsl", include_str!("../../shaders/mpm/snow.wgsl")),
    ("mpm/scatter.wgsl", include_str!("../../shaders/mpm/scatter.wgsl")),
    ("mpm/advance.wgsl", include_str!("../../shaders/mpm/advance.wgsl")),
    ("mpm/tile.wgsl", include_str!("../../shaders/mpm/tile.wgsl")),
    ("mpm/grid_node.wgsl", include_str!("../../shaders/mpm/grid_node.wgsl")),
    ("mpm/pbmpm/iteration.wgsl", include_str!("../../shaders/mpm/pbmpm/iteration.wgsl")),
    ("mpm/pbmpm/newton.wgsl", include_str!("../../shaders/mpm/pbmpm/newton.wgsl")),
];

/// Prepends the library files to a pass (or test) source.
pub fn compose(pass_source: &str) -> String {
    let mut text = String::new();
    for (_, library) in LIBRARIES {
        text.push_str(library);
        text.push('\n');
    }
    text.push_str(pass_source);
    text
}

impl MpmPass {
    /// The complete module: the libraries followed by the pass. Defined here rather than beside the
    /// pass table so that the table does not depend on the shaders that compose from it.
    pub fn composed_source(self) -> String {
        compose(self.source())
    }
}

/// Directory of the shader sources in this checkout (for hot reload in debug builds).
pub fn source_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders")
}

/// Every pass's composed module read from the files under `dir` (the libraries and each pass's
/// [`super::passes::PassInfo::file`]) instead of the embedded copies. Used by hot reload; an unreadable file is an error naming it.
pub fn composed_sources_from(
    dir: &std::path::Path,
) -> Result<std::collections::HashMap<MpmPass, String>, std::io::Error> {
    let read = |rel: &str| {
        let path = dir.join(rel);
        std::fs::read_to_string(&path).map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))
    };
    let mut prelude = String::new();
    for (rel, _) in LIBRARIES {
        prelude.push_str(&read(rel)?);
        prelude.push('\n');
    }
    MpmPass::ALL.into_iter().map(|pass| Ok((pass, format!("{prelude}{}", read(pass.info().file)?)))).collect()
}

/// The newest modification time among the shader files under `dir` (`mpm/`, `mpm/explicit/`, `mpm/pbmpm/` and
/// `render/`), for change detection.
pub fn newest_modification(dir: &std::path::Path) -> Option<std::time::SystemTime> {
    let newest = |sub: &str| -> Option<std::time::SystemTime> {
        std::fs::read_dir(dir.join(sub)).ok()?.filter_map(|e| e.ok()?.metadata().ok()?.modified().ok()).max()
    };
    ["mpm", "mpm/explicit", "mpm/pbmpm", "render"].into_iter().filter_map(newest).max()
}
