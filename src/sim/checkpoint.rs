//! The solver's state as a host copy that a new solver can be built from and step on exactly as
//! the old one would have: every particle stream (position, mass, velocity, volume, the affine
//! matrix C, the elastic deformation gradient F_E, J_P, material, damage, strength) and the stored
//! Kirchhoff stress τ, and the length of the last PB-MPM step (its velocities are that step's mean
//! velocities, and the next step's gravity kick depends on it).
//!
//! τ is derived from F_E and J_P, but the `g2p` pass writes it from the SVD its plasticity step
//! already made, while a fresh `stress` pass takes its own SVD of the clamped F_E: the two agree
//! only to rounding. A bake resumed from a checkpoint must give the same bytes as one that never
//! stopped, so τ is saved and restored as it was.
//!
//! Nothing else on the GPU outlives a frame: the grid is cleared by every substep, the substep
//! clock starts afresh with each frame, and the particles' order in GPU memory (which the
//! `reorder` pass changes) does not change any result, because P2G sums in fixed point and every
//! other pass works on one particle or one node at a time.

use super::params::GpuParticle;
pub use super::particles::StoredStress;
use super::particles::join;
use super::solver::{Solver, SolverError};
use crate::gpu::{Gpu, GpuError};

/// A host copy of the solver's particles, τ included, in the host's order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SolverSnapshot {
    /// The particles, in the order the host gave them.
    pub particles: Vec<GpuParticle>,
    /// Each particle's stored stress, in the same order.
    pub stress: Vec<StoredStress>,
    /// The length of the last PB-MPM step, seconds (0 after an explicit frame or none).
    pub pb_last_dt: f64,
}

impl SolverSnapshot {
    /// Copies the solver's particles and stored stress back (one readback per page, and one of the
    /// water's own streams where water meets snow), each page's put back into the host's order by
    /// the particles' ids.
    pub fn capture(gpu: &Gpu, solver: &Solver) -> Result<Self, SolverError> {
        solver.refresh_stale_stress(gpu);
        let mut snapshot = SolverSnapshot { pb_last_dt: solver.pb_last_dt.get(), ..SolverSnapshot::default() };
        // The pages, then the water's own streams where water meets snow (its ids are its order).
        for p in solver.particle_pages() {
            let read =
                gpu.read_buffers(&[&p.position, &p.velocity, &p.affine, &p.deformation, &p.plastic, &p.stress, &p.id])?;
            let [position, velocity, affine, deformation, plastic, stress, id]: [Vec<u8>; 7] =
                read.try_into().expect("read_buffers returns one readback per buffer");
            let count = p.count as usize;
            let ids: Vec<u32> = bytemuck::pod_collect_to_vec(&id);
            let ids = &ids[..count];
            let not_a_permutation = || GpuError::Readback {
                label: "particle_id".into(),
                reason: format!("the ids of the {count} particles are not a permutation of 0..{count}"),
            };
            let particles = join(&[position, velocity, affine, deformation, plastic, Vec::new()], ids)
                .ok_or_else(not_a_permutation)?;
            let stored: Vec<StoredStress> = bytemuck::pod_collect_to_vec(&stress);
            let mut stress = vec![StoredStress::default(); count];
            // `join` checked that the ids are a permutation, so every place is written once.
            for (stored_at, &id) in ids.iter().enumerate() {
                stress[id as usize] = stored[stored_at];
            }
            snapshot.particles.extend(particles);
            snapshot.stress.extend(stress);
        }
        Ok(snapshot)
    }

    /// Gives a solver just built from [`SolverSnapshot::particles`] (whose pages hold them in the
    /// host's order) the stored stress and the last PB-MPM step length of the snapshot. `None` if
    /// the counts differ.
    pub fn restore_stored(&self, gpu: &Gpu, solver: &Solver) -> Option<()> {
        solver.pb_last_dt.set(self.pb_last_dt);
        (solver.particle_count() as usize == self.stress.len()).then(|| solver.restore_stress(gpu, &self.stress))
    }
}
