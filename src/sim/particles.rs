//! The particles on the GPU: six streams, one buffer each (a structure of arrays), so that
//!
//! - no binding holds more than 48 bytes per particle: one page of particles, whose buffers are
//!   each one binding, holds 44.7M on the H100 (2 GiB bindings) instead of the 14.9M of a single
//!   144-byte record (26.8M where `p2g_gather`'s 80-byte scatter sources are the widest buffer).
//!   More particles take more pages ([`super::page::ParticlePage::new_pages`]), and the limit is the
//!   device's memory ([`super::capacity::check_limits`]);
//! - a pass reads only the streams it uses: the bin passes and `pick` read 16 bytes of position per
//!   particle, and `g2p2g` never reads the affine matrix it overwrites.
//!
//! The sixth stream is derived state: the Kirchhoff stress τ of the stored F and Jp, written by
//! the passes that update F (`g2p`, `g2p2g`, from the SVD their plasticity step already made) and by
//! the `stress` pass after an upload or a material change. P2G reads it instead of taking a second
//! SVD of F.
//!
//! docs/performance.md has the measurements of this layout against the 144-byte record.
//!
//! The host keeps exchanging whole particles ([`GpuParticle`]): [`ParticleBuffers::new`] splits
//! them into the streams (τ zero, for the `stress` pass to fill) and [`ParticleBuffers::read`]
//! joins them back, in the order the host gave them. On the GPU that order does not last: the
//! sorted path's `reorder` pass (`src/sim/sort/reorder.rs`) moves the particles into block order every
//! few substeps, and each carries its place in the host's order with it (`particle_id`). The WGSL side is
//! `load_particle` / `store_particle` in `shaders/mpm/types.wgsl` (and the render passes' own
//! bindings of three streams).

use bytemuck::{Pod, Zeroable};
use wgpu::util::DeviceExt;

use super::params::GpuParticle;
use crate::gpu::{Gpu, GpuError};

/// τ of one particle as the `particle_stress` stream stores it: xx, yy, zz, xy, xz, yz, 0, 0
/// (what [`crate::sim::checkpoint`] saves and restores).
pub type StoredStress = [f32; 8];

/// Jp, material and damage of one particle: the `particle_plastic` stream. Mirrors
/// `ParticlePlastic` in `shaders/mpm/particle.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuParticlePlastic {
    /// Plastic volume ratio J_P = det F_P.
    pub plastic_jacobian: f32,
    /// Material id.
    pub material: u32,
    /// 1 once the particle has cracked, else 0.
    pub damage: f32,
    /// Strength relative to the material's.
    pub strength: f32,
}

/// The streams in binding order, with the bytes each holds per particle:
/// `particle_position` (xyz, mass as w), `particle_velocity` (xyz, initial volume as w),
/// `particle_affine` (C) and `particle_deformation` (F_E), each three padded columns (the
/// `mat3x3<f32>` layout),
/// `particle_plastic` ([`GpuParticlePlastic`]) and `particle_stress` (τ's six entries xx, yy, zz,
/// xy, xz, yz in two `vec4<f32>`).
pub const STREAMS: [(&str, u64); 6] = [
    ("particle_position", 16),
    ("particle_velocity", 16),
    ("particle_affine", 48),
    ("particle_deformation", 48),
    ("particle_plastic", size_of::<GpuParticlePlastic>() as u64),
    ("particle_stress", 32),
];

/// Bytes per particle of the stream called `name`; panics if [`STREAMS`] has none of that name.
pub fn stream_bytes(name: &str) -> u64 {
    STREAMS.iter().find(|(n, _)| *n == name).map(|(_, bytes)| *bytes).expect("a particle stream of that name")
}

/// GPU bytes of one particle over all streams.
pub const PARTICLE_BYTES: u64 = {
    let mut sum = 0;
    let mut i = 0;
    while i < STREAMS.len() {
        sum += STREAMS[i].1;
        i += 1;
    }
    sum
};

/// Bytes per particle of the widest stream: a binding's size limit divided by this is the most
/// particles one solver can hold (fewer with `p2g_gather`, whose scatter sources take 80 bytes:
/// [`super::capacity::widest_buffer_bytes`]).
pub const WIDEST_STREAM_BYTES: u64 = 48;

/// One particle set on the GPU, as six storage buffers (see the module docs).
#[derive(Clone, Debug)]
pub struct ParticleBuffers {
    /// Position (xyz, metres) and mass (w, kg), `vec4<f32>` per particle.
    pub position: wgpu::Buffer,
    /// Velocity (xyz, m/s) and initial volume (w, m³), `vec4<f32>` per particle.
    pub velocity: wgpu::Buffer,
    /// The APIC/MLS affine matrix C (1/s), three padded columns (`mat3x3<f32>` layout) per particle.
    pub affine: wgpu::Buffer,
    /// The elastic deformation gradient F_E, three padded columns per particle.
    pub deformation: wgpu::Buffer,
    /// [`GpuParticlePlastic`] per particle.
    pub plastic: wgpu::Buffer,
    /// The Kirchhoff stress τ of the stored F and Jp: xx, yy, zz, xy, xz, yz, 0, 0 (f32) per particle.
    pub stress: wgpu::Buffer,
    /// Each stored particle's index in the order the host gave the particles (`u32`): the
    /// `reorder` pass moves particles, and [`ParticleBuffers::read`] puts them back by this.
    pub id: wgpu::Buffer,
    /// Particles held (the buffers hold at least one entry: a binding cannot be empty).
    pub count: u32,
}

/// The streams of `particles` as bytes, in [`STREAMS`] order, with τ zero.
pub fn split(particles: &[GpuParticle]) -> [Vec<u8>; 6] {
    let mut streams: [Vec<u8>; 6] = Default::default();
    for (stream, (_, bytes)) in streams.iter_mut().zip(STREAMS) {
        stream.reserve(bytes as usize * particles.len());
    }
    for p in particles {
        let position = [p.position[0], p.position[1], p.position[2], p.mass];
        let velocity = [p.velocity[0], p.velocity[1], p.velocity[2], p.volume];
        let plastic = GpuParticlePlastic {
            plastic_jacobian: p.plastic_jacobian,
            material: p.material,
            damage: p.damage,
            strength: p.strength,
        };
        streams[0].extend_from_slice(bytemuck::bytes_of(&position));
        streams[1].extend_from_slice(bytemuck::bytes_of(&velocity));
        streams[2].extend_from_slice(bytemuck::bytes_of(&p.affine));
        streams[3].extend_from_slice(bytemuck::bytes_of(&p.deformation));
        streams[4].extend_from_slice(bytemuck::bytes_of(&plastic));
    }
    streams[5] = vec![0; STREAMS[5].1 as usize * particles.len()];
    streams
}

/// The particles of the streams (bytes in [`STREAMS`] order; τ is not part of a particle, and
/// its stream may be empty), joined and put back into the host's order: the particle stored at
/// place `i` goes to place `ids[i]`. One particle per id; `None` unless `ids` is a permutation of
/// `0..ids.len()` (the reorder pass keeps it one; `tests/sorted_path.rs` checks it).
pub fn join(streams: &[Vec<u8>; 6], ids: &[u32]) -> Option<Vec<GpuParticle>> {
    let position: Vec<[f32; 4]> = bytemuck::pod_collect_to_vec(&streams[0]);
    let velocity: Vec<[f32; 4]> = bytemuck::pod_collect_to_vec(&streams[1]);
    let affine: Vec<[[f32; 4]; 3]> = bytemuck::pod_collect_to_vec(&streams[2]);
    let deformation: Vec<[[f32; 4]; 3]> = bytemuck::pod_collect_to_vec(&streams[3]);
    let plastic: Vec<GpuParticlePlastic> = bytemuck::pod_collect_to_vec(&streams[4]);
    let mut out = vec![GpuParticle::default(); ids.len()];
    let mut placed = vec![false; ids.len()];
    for (i, &id) in ids.iter().enumerate() {
        let id = id as usize;
        if id >= ids.len() || std::mem::replace(&mut placed[id], true) {
            return None;
        }
        out[id] = GpuParticle {
            position: [position[i][0], position[i][1], position[i][2]],
            mass: position[i][3],
            velocity: [velocity[i][0], velocity[i][1], velocity[i][2]],
            volume: velocity[i][3],
            affine: affine[i],
            deformation: deformation[i],
            plastic_jacobian: plastic[i].plastic_jacobian,
            material: plastic[i].material,
            damage: plastic[i].damage,
            strength: plastic[i].strength,
        };
    }
    Some(out)
}

impl ParticleBuffers {
    /// Uploads `particles` into new buffers with `usage` (plus `STORAGE`). An empty set gets one
    /// zeroed entry per stream and a count of zero.
    pub fn new(device: &wgpu::Device, particles: &[GpuParticle], usage: wgpu::BufferUsages) -> Self {
        let placeholder = [GpuParticle::default()];
        let uploaded = if particles.is_empty() { &placeholder[..] } else { particles };
        let [position, velocity, affine, deformation, plastic, stress] = split(uploaded);
        let make = |index: usize, contents: &[u8]| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(STREAMS[index].0),
                contents,
                usage: usage | wgpu::BufferUsages::STORAGE,
            })
        };
        let ids: Vec<u32> = (0..uploaded.len() as u32).collect();
        Self {
            position: make(0, &position),
            velocity: make(1, &velocity),
            affine: make(2, &affine),
            deformation: make(3, &deformation),
            plastic: make(4, &plastic),
            stress: make(5, &stress),
            id: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("particle_id"),
                contents: bytemuck::cast_slice(&ids),
                usage: usage | wgpu::BufferUsages::STORAGE,
            }),
            count: particles.len() as u32,
        }
    }

    /// The buffers in binding order ([`STREAMS`]).
    pub fn buffers(&self) -> [&wgpu::Buffer; 6] {
        [&self.position, &self.velocity, &self.affine, &self.deformation, &self.plastic, &self.stress]
    }

    /// Particles the streams the renderer reads (position, velocity, plastic state) have room for:
    /// a copy made for drawing may leave the others empty.
    pub fn drawable_capacity(&self) -> u64 {
        let streams = [(&self.position, 0), (&self.velocity, 1), (&self.plastic, 4)];
        streams.iter().map(|(b, k)| b.size() / STREAMS[*k].1).min().unwrap_or(0)
    }

    /// Particles all the buffers have room for.
    pub fn capacity(&self) -> u64 {
        self.buffers().iter().zip(STREAMS).map(|(b, (_, bytes))| b.size() / bytes).min().unwrap_or(0)
    }

    /// Copies the particles back to the host in one readback (the buffers need `COPY_SRC`), in the
    /// order the host gave them however the GPU has since reordered them. τ is derived state and
    /// not read.
    pub fn read(&self, gpu: &Gpu) -> Result<Vec<GpuParticle>, GpuError> {
        let read = gpu.read_buffers(&[
            &self.position,
            &self.velocity,
            &self.affine,
            &self.deformation,
            &self.plastic,
            &self.id,
        ])?;
        let [position, velocity, affine, deformation, plastic, id]: [Vec<u8>; 6] =
            read.try_into().expect("read_buffers returns one readback per buffer");
        let ids: Vec<u32> = bytemuck::pod_collect_to_vec(&id);
        let count = self.count as usize;
        join(&[position, velocity, affine, deformation, plastic, Vec::new()], &ids[..count]).ok_or_else(|| {
            GpuError::Readback {
                label: "particle_id".into(),
                reason: format!("the ids of the {count} particles are not a permutation of 0..{count}"),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_and_join_give_the_particles_back() {
        let mut a = GpuParticle::new(glam::Vec3::new(1.0, 2.0, 3.0), glam::Vec3::new(-4.0, 5.0, 6.5), 0.25, 1e-6, 3);
        a.affine = [[1.0, 2.0, 3.0, 0.0], [4.0, 5.0, 6.0, 0.0], [7.0, 8.0, 9.0, 0.0]];
        a.plastic_jacobian = 0.75;
        a.damage = 1.0;
        a.strength = 0.5;
        let b = GpuParticle::new(glam::Vec3::splat(-1.0), glam::Vec3::ZERO, 2.0, 3.0, 7);
        let streams = split(&[a, b]);
        for (stream, (name, bytes)) in streams.iter().zip(STREAMS) {
            assert_eq!(stream.len() as u64, 2 * bytes, "{name}");
        }
        assert_eq!(join(&streams, &[0, 1]), Some(vec![a, b]));
        assert_eq!(join(&split(&[b, a]), &[1, 0]), Some(vec![a, b]), "stored swapped, put back by id");
        assert_eq!(join(&streams, &[1, 1]), None, "a repeated id");
        assert_eq!(join(&streams, &[0, 2]), None, "an id out of range");
        assert_eq!(PARTICLE_BYTES, 176);
        assert_eq!(STREAMS.iter().map(|s| s.1).max(), Some(WIDEST_STREAM_BYTES));
    }
}
