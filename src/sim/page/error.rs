//! Why a simulation's pages could not be made ([`StateError`]): the capacity check's refusals and
//! the states a solver cannot be put in.

use thiserror::Error;

/// Why the solver state could not be created.
#[derive(Debug, Error)]
pub enum StateError {
    /// The grid needs a buffer larger than the adapter allows.
    #[error(
        "grid of {nodes} nodes ({dims:?} incl. padding) needs a {bytes}-byte buffer, but this GPU \
         allows at most {limit} bytes per storage buffer: lower grid.resolution to at most {max_resolution}"
    )]
    GridTooLarge {
        /// Nodes requested.
        nodes: u64,
        /// Node dimensions.
        dims: [u32; 3],
        /// Buffer size needed.
        bytes: u64,
        /// The adapter's limit.
        limit: u64,
        /// Largest resolution along the longest axis that fits.
        max_resolution: u32,
    },
    /// A page of particles needs a buffer larger than one binding may be (a page size asked for,
    /// or a P2G kernel whose per-particle buffer is wider than the pages were made for).
    #[error(
        "a page of {count} particles needs a {bytes}-byte buffer for its widest per-particle data ({per_particle} \
         bytes each), but this GPU allows at most {limit} bytes per storage buffer: at most {max_count} particles \
         fit in one page"
    )]
    PageTooLarge {
        /// Particles in the page.
        count: u64,
        /// Size of the widest per-particle buffer.
        bytes: u64,
        /// Its bytes per particle.
        per_particle: u64,
        /// The adapter's limit.
        limit: u64,
        /// Most particles whose buffers fit one binding.
        max_count: u64,
    },
    /// More particles than 32-bit indices can count.
    #[error("{count} particles are more than the solver can index: at most {max_count}")]
    TooManyParticles {
        /// Particles requested.
        count: usize,
        /// The most it can index.
        max_count: u64,
    },
    /// The particles and grid need more memory than the GPU has.
    #[error(
        "{count} particles on a grid of {nodes} nodes need {needed} bytes of GPU memory ({per_particle} per \
         particle, {grid} for the grid), but this GPU has {available}: at most {max_count} particles fit on this \
         grid"
    )]
    OutOfMemory {
        /// Particles requested.
        count: usize,
        /// Grid nodes.
        nodes: u64,
        /// Bytes the solver's buffers need in all.
        needed: u64,
        /// Bytes per particle (streams and id, reorder scratch, sort order, scatter sources).
        per_particle: u64,
        /// Bytes of the grid, its bins and the collider fields.
        grid: u64,
        /// The device-local memory of the GPU.
        available: u64,
        /// Most particles that fit next to this grid.
        max_count: u64,
    },
    /// The collider fields need a buffer larger than the adapter allows.
    #[error(
        "the colliders' distance fields need a {bytes}-byte buffer, but this GPU allows at most {limit} bytes per \
         storage buffer: lower grid.resolution to at most {max_resolution} (a scene without colliders may go \
         further, on a sparse grid)"
    )]
    CollidersTooLarge {
        /// Buffer size needed.
        bytes: u64,
        /// The adapter's limit.
        limit: u64,
        /// Largest resolution along the longest axis whose fields fit.
        max_resolution: u32,
    },
    /// There are no particles to simulate.
    #[error("the scene has no particles")]
    NoParticles,
    /// The collider fields of a sparse grid's domain need more memory than the GPU has left.
    #[error(
        "the colliders' distance fields need {bytes} bytes of GPU memory over the sparse grid's whole domain, but \
         {available} are left: lower grid.resolution"
    )]
    CollidersOutOfMemory {
        /// Bytes of the two collider frames.
        bytes: u64,
        /// Device memory less what the solver has.
        available: u64,
    },
    /// A path other than the sorted one on a grid that must stay sparse.
    #[error("the {path} path needs a dense grid, and {reason}; keeping the sorted path on the sparse grid")]
    NeedsDenseGrid {
        /// The path asked for.
        path: &'static str,
        /// Why the grid cannot be dense: the dense grid's own capacity error, or that the solver
        /// was asked for a sparse grid.
        reason: String,
    },
}
