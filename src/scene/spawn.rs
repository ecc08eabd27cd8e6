//! Making a scene's particles: the emitters sampled (which lattice points each keeps), counted,
//! then turned into particles.

use super::emitter::{self, Sampling};
use super::error::SceneError;
use super::format::{MAX_PARTICLES, Scene};
use crate::mesh::TriangleMesh;
use crate::sim::params::GpuParticle;

impl Scene {
    /// Which lattice points each emitter keeps, and so how many particles the scene makes, without
    /// making them: what a capacity check needs before anything is allocated for the particles
    /// (the bits take an eighth of a byte per lattice point). `progress` hears how far the mesh
    /// emitters, the slow ones, have got. Refuses a scene whose lattices exceed [`MAX_PARTICLES`]
    /// (validation does too, before anything is sampled).
    pub fn sample_emitters(
        &self,
        source: &str,
        progress: &mut dyn FnMut(FillProgress),
    ) -> Result<EmitterSamples, SceneError> {
        let s = self.particle_spacing();
        let meshes: Vec<_> = (0..self.emitters.len()).map(|i| self.emitter_mesh(i)).collect();
        let bound =
            self.emitters.iter().zip(&meshes).fold(0u64, |t, (e, m)| t.saturating_add(e.max_points(s, m.as_ref())));
        if bound > MAX_PARTICLES {
            return Err(SceneError::TooManyParticles {
                source_name: source.to_string(),
                count: bound,
                limit: MAX_PARTICLES,
            });
        }
        let samplings = self
            .emitters
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let mut report = |done, total| progress(FillProgress { emitter: i, done, total });
                e.sample(s, emitter::emitter_seed(self.seed, i), meshes[i].as_ref(), false, &mut report)
            })
            .collect();
        Ok(EmitterSamples { samplings, meshes })
    }

    /// The particles `samples` (from [`Scene::sample_emitters`] on this scene) counted, in emitter
    /// order. Each stands for a cube of side [`Scene::particle_spacing`]: volume `s³`, mass
    /// `density · s³` (the emitter's material's density), the emitter's velocity, and material id =
    /// emitter index. Deterministic for a given scene (seeded by `seed` and the emitter's index).
    /// Overlapping emitters both emit, so their overlap holds denser snow. Asks the allocator for
    /// exactly the counted particles, and refuses if the host cannot give that much.
    pub fn make_particles(&self, samples: &EmitterSamples, source: &str) -> Result<Vec<GpuParticle>, SceneError> {
        let s = self.particle_spacing();
        let volume = s.powi(3);
        let params = self.solver_params();
        let count = samples.count();
        let mut out = Vec::new();
        out.try_reserve_exact(count as usize).map_err(|_| SceneError::HostMemory {
            source_name: source.to_string(),
            count,
            bytes: count.saturating_mul(size_of::<GpuParticle>() as u64),
        })?;
        for (i, (e, sampling)) in self.emitters.iter().zip(&samples.samplings).enumerate() {
            let v = e.velocity().as_vec3();
            // The emitter's own density, or the scene's: the table's entry for this material id.
            let mass = (params.material_of(i as u32).density * volume) as f32;
            let seed = emitter::emitter_seed(self.seed, i);
            e.emit(s, seed, samples.meshes[i].as_ref(), sampling, |p| {
                let mut particle = GpuParticle::new(p.as_vec3(), v, mass, volume as f32, i as u32);
                particle.plastic_jacobian = self.packing.plastic_jacobian(p, self.seed) as f32;
                particle.strength = self.packing.strength_factor(p, self.seed, s) as f32;
                out.push(particle);
            });
        }
        Ok(out)
    }

    /// [`Scene::sample_emitters`] then [`Scene::make_particles`], progress logged. Errors (lattices
    /// past [`MAX_PARTICLES`], host memory refused) name the scene as `"scene"`; callers that know
    /// the file call the two with its name.
    pub fn spawn_particles(&self) -> Result<Vec<GpuParticle>, SceneError> {
        let samples = self.sample_emitters("scene", &mut log_progress())?;
        self.make_particles(&samples, "scene")
    }
}

/// How far [`Scene::sample_emitters`] has got with emitter `emitter`: `done` of its `total`
/// lattice points tested.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FillProgress {
    /// Index of the emitter in `emitters`.
    pub emitter: usize,
    /// Lattice points tested so far.
    pub done: u64,
    /// Lattice points in all.
    pub total: u64,
}

/// A progress callback for [`Scene::sample_emitters`] that logs (at info level) every tenth of an
/// emitter of more than a million lattice points, for callers without a progress bar.
pub fn log_progress() -> impl FnMut(FillProgress) {
    let mut logged = (usize::MAX, 0);
    move |p: FillProgress| {
        let tenth = (p.done * 10).checked_div(p.total).unwrap_or(10);
        if p.total > 1_000_000 && (p.emitter, tenth) != logged {
            logged = (p.emitter, tenth);
            log::info!("emitters[{}]: {}% of {} lattice points tested", p.emitter, tenth * 10, p.total);
        }
    }
}

/// The emitters of a scene sampled ([`Scene::sample_emitters`]): which lattice points each keeps.
#[derive(Clone, Debug)]
pub struct EmitterSamples {
    samplings: Vec<Sampling>,
    meshes: Vec<Option<TriangleMesh>>,
}

impl EmitterSamples {
    /// Particles the scene makes.
    pub fn count(&self) -> u64 {
        self.samplings.iter().map(Sampling::count).sum()
    }

    /// Particles emitter `index` makes.
    pub fn emitter_count(&self, index: usize) -> u64 {
        self.samplings.get(index).map_or(0, Sampling::count)
    }
}
