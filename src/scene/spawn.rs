//! Making a scene's particles: the emitters sampled (which lattice points each keeps), counted,
//! then turned into particles.

use super::emitter::{self, Emitter, Sampling};
use super::error::SceneError;
use super::format::{MAX_PARTICLES, Scene};
use super::pour::PourSchedule;
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
        // A pouring emitter's lattice times its batches at its own flow (the most it can make).
        let bound = self.emitters.iter().zip(&meshes).fold(0u64, |t, (e, m)| {
            let most = self.batches_of(e, m.as_ref(), None).1;
            t.saturating_add(e.max_points(s, m.as_ref()).saturating_mul(most))
        });
        if bound > MAX_PARTICLES {
            return Err(SceneError::TooManyParticles {
                source_name: source.to_string(),
                count: bound,
                limit: MAX_PARTICLES,
            });
        }
        let samplings: Vec<Sampling> = self
            .emitters
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let mut report = |done, total| progress(FillProgress { emitter: i, done, total });
                e.sample(s, emitter::emitter_seed(self.seed, i), meshes[i].as_ref(), false, &mut report)
            })
            .collect();
        let batches = self.emitters.iter().zip(&samplings).zip(&meshes);
        let batches = batches.map(|((e, sampling), m)| self.batches_of(e, m.as_ref(), Some(sampling.count())).1);
        let batches = batches.collect();
        Ok(EmitterSamples { samplings, meshes, batches })
    }

    /// `(period, batches)` of emitter `e` ([`Pour::batches`]): `(0, 1)` for one that fills once.
    /// `count` is its fill's particles (the fill's volume at `s³` each); `None` takes the shape's
    /// own flow, the most batches it can make.
    fn batches_of(&self, e: &Emitter, mesh: Option<&TriangleMesh>, count: Option<u64>) -> (f64, u64) {
        let Some(pour) = e.pour() else { return (0.0, 1) };
        let volume = count.map_or(f64::INFINITY, |n| n as f64 * self.particle_spacing().powi(3));
        pour.batches(e.length_along_velocity(mesh), e.velocity().length(), volume)
    }

    /// The batches of the scene's pouring emitters ([`PourSchedule`]), their fills sampled as
    /// [`Scene::sample_emitters`] samples them (the same particles, so the same stream however the
    /// run was started or resumed). Empty when no emitter pours.
    pub fn pour_schedule(&self, source: &str) -> Result<PourSchedule, SceneError> {
        let domain = self.grid_spec();
        let (lo, hi) = (domain.domain_min.as_vec3(), domain.domain_max().as_vec3());
        let mut schedule = PourSchedule::new(self.gravity, (lo, hi));
        for (i, e) in self.emitters.iter().enumerate() {
            let Some(pour) = e.pour() else { continue };
            let batch = self.emitter_particles(i, source)?;
            let volume = batch.len() as f64 * self.particle_spacing().powi(3);
            let length = e.length_along_velocity(self.emitter_mesh(i).as_ref());
            schedule.add(batch, pour, length, e.velocity().length(), volume);
        }
        Ok(schedule)
    }

    /// Emitter `i`'s fill, sampled and made as [`Scene::make_particles`] makes it (empty for an
    /// index past the last emitter): what the app adds when an emitter joins a running scene.
    pub fn emitter_particles(&self, i: usize, source: &str) -> Result<Vec<GpuParticle>, SceneError> {
        let Some(e) = self.emitters.get(i) else { return Ok(Vec::new()) };
        let mesh = self.emitter_mesh(i);
        let seed = emitter::emitter_seed(self.seed, i);
        let sampling = e.sample(self.particle_spacing(), seed, mesh.as_ref(), false, &mut |_, _| {});
        let mut out = Vec::new();
        reserve(&mut out, sampling.count(), source)?;
        self.emit_fill(i, e, mesh.as_ref(), &sampling, &mut out);
        Ok(out)
    }

    /// Pushes emitter `i`'s fill onto `out`.
    fn emit_fill(
        &self,
        i: usize,
        e: &Emitter,
        mesh: Option<&TriangleMesh>,
        sampling: &Sampling,
        out: &mut Vec<GpuParticle>,
    ) {
        let s = self.particle_spacing();
        let volume = s.powi(3);
        let v = e.velocity().as_vec3();
        // The emitter's own density, or the scene's: the table's entry for this material id.
        let mass = (self.solver_params().material_of(i as u32).density * volume) as f32;
        e.emit(s, emitter::emitter_seed(self.seed, i), mesh, sampling, |p| {
            let mut particle = GpuParticle::new(p.as_vec3(), v, mass, volume as f32, i as u32);
            particle.plastic_jacobian = self.packing.plastic_jacobian(p, self.seed) as f32;
            particle.strength = self.packing.strength_factor(p, self.seed, s) as f32;
            out.push(particle);
        });
    }

    /// The particles `samples` (from [`Scene::sample_emitters`] on this scene) counted, in emitter
    /// order. Each stands for a cube of side [`Scene::particle_spacing`]: volume `s³`, mass
    /// `density · s³` (the emitter's material's density), the emitter's velocity, and material id =
    /// emitter index. Deterministic for a given scene (seeded by `seed` and the emitter's index).
    /// Overlapping emitters both emit, so their overlap holds denser snow. Asks the allocator for
    /// exactly the counted particles, and refuses if the host cannot give that much.
    pub fn make_particles(&self, samples: &EmitterSamples, source: &str) -> Result<Vec<GpuParticle>, SceneError> {
        let mut out = Vec::new();
        reserve(&mut out, samples.initial_count(self), source)?;
        for (i, (e, sampling)) in self.emitters.iter().zip(&samples.samplings).enumerate() {
            if born_at_zero(e) {
                self.emit_fill(i, e, samples.meshes[i].as_ref(), sampling, &mut out);
            }
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

/// Whether emitter `e` has particles at time zero: it fills once, or pours from time zero on.
fn born_at_zero(e: &Emitter) -> bool {
    e.pour().is_none_or(|p| p.start <= 0.0)
}

/// Asks the allocator for room for `count` particles in `out`, refusing (naming the scene) if the
/// host cannot give it.
fn reserve(out: &mut Vec<GpuParticle>, count: u64, source: &str) -> Result<(), SceneError> {
    out.try_reserve_exact(count as usize).map_err(|_| SceneError::HostMemory {
        source_name: source.to_string(),
        count,
        bytes: count.saturating_mul(size_of::<GpuParticle>() as u64),
    })
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
    /// Batches each emitter makes: 1 for one that fills once.
    batches: Vec<u64>,
}

impl EmitterSamples {
    /// Particles the scene makes in all, every batch of its pouring emitters counted: what must
    /// fit the device.
    pub fn count(&self) -> u64 {
        self.samplings.iter().zip(&self.batches).map(|(s, &b)| s.count().saturating_mul(b)).fold(0, u64::saturating_add)
    }

    /// Particles `scene` (the one sampled) holds at time zero.
    pub fn initial_count(&self, scene: &Scene) -> u64 {
        let born = scene.emitters.iter().zip(&self.samplings).filter(|(e, _)| born_at_zero(e));
        born.map(|(_, s)| s.count()).sum()
    }

    /// Particles emitter `index` makes.
    pub fn emitter_count(&self, index: usize) -> u64 {
        self.samplings.get(index).map_or(0, Sampling::count)
    }
}
