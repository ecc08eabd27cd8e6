//! How unevenly the snow is packed at time zero: the scene's `packing` section.
//!
//! Real snowballs are packed by hand, unevenly; a uniform one has no weaker places to crack
//! along and, in MPM, flattens or holds together as a whole. powder varies each particle's initial
//! plastic volume ratio `Jp = 1 + amplitude · n(x)`, with `n` a smooth noise in [−1, 1] that
//! changes over `length` metres. Stomakhin et al. 2013's hardening ties stiffness to `Jp`:
//! `E = E₀ · exp(ξ (1 − Jp))`, so a particle packed tighter (`Jp < 1`) starts stiffer and one packed
//! looser (`Jp > 1`) softer, by up to `exp(ξ · amplitude)` either way, with `E₀` (the material's
//! Young's modulus) the median. Everything after time zero is the unchanged model. See
//! docs/breakage.md for why and what it changes.

use glam::DVec3;
use serde::{Deserialize, Serialize};

use super::emitter::emitter_seed;

/// Uneven packing of the emitted snow (the scene's `packing` section).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Packing {
    /// Largest departure of the initial plastic volume ratio `Jp` from 1, in [0, 0.5]; 0 packs the
    /// snow evenly.
    pub amplitude: f64,
    /// Distance over which the packing changes, metres (the noise's lattice spacing); > 0.
    pub length: f64,
    /// How much the snow's strength varies, in [0, 3]: each particle's tensile strength and
    /// cracking stretch are the material's times `exp(strength · m(x))`, with `m` a second noise
    /// like `n`. 0 makes every particle as strong as the material.
    pub strength: f64,
    /// Size of the clumps the snow is packed from, metres; 0 packs it as one mass. With clumps,
    /// particles within one particle spacing of the boundary between two clumps keep the
    /// material's strength and the rest are `GRAIN_INTERIOR_STRENGTH` times as strong, so cracks
    /// run between the clumps.
    pub grain: f64,
}

impl Default for Packing {
    fn default() -> Self {
        Self { amplitude: DEFAULT_AMPLITUDE, length: DEFAULT_LENGTH, strength: DEFAULT_STRENGTH, grain: 0.0 }
    }
}

/// Default [`Packing::amplitude`].
pub const DEFAULT_AMPLITUDE: f64 = 0.0;
/// Default [`Packing::length`], metres.
pub const DEFAULT_LENGTH: f64 = 0.1;
/// Default [`Packing::strength`].
pub const DEFAULT_STRENGTH: f64 = 0.0;

impl Packing {
    /// The initial `Jp` of a particle at `p` in a scene seeded by `seed`: `1 + amplitude · n(p)`.
    pub fn plastic_jacobian(&self, p: DVec3, seed: u64) -> f64 {
        if self.amplitude == 0.0 {
            return 1.0;
        }
        1.0 + self.amplitude * value_noise(p / self.length, seed)
    }

    /// The strength of a particle at `p` relative to the material's: `exp(strength · m(p))`, from
    /// a noise independent of the packing's, times `GRAIN_INTERIOR_STRENGTH` inside a clump (more than `spacing` from the boundary
    /// between two clumps) where `grain` > 0.
    pub fn strength_factor(&self, p: DVec3, seed: u64, spacing: f64) -> f64 {
        let clump = if self.grain > 0.0 && clump_boundary_distance(p / self.grain, seed) * self.grain > spacing {
            GRAIN_INTERIOR_STRENGTH
        } else {
            1.0
        };
        if self.strength == 0.0 {
            return clump;
        }
        clump * (self.strength * value_noise(p / self.length, emitter_seed(seed, 0x7374_7267))).exp()
    }
}

/// How much stronger the inside of a clump is than the boundary between clumps.
pub const GRAIN_INTERIOR_STRENGTH: f64 = 10.0;

/// Distance from `q` to the nearest boundary of its cell in a Voronoi diagram of one seed per unit
/// lattice cell (jittered inside the cell by a hash of the cell and `seed`), in lattice units.
fn clump_boundary_distance(q: DVec3, seed: u64) -> f64 {
    let base = q.floor();
    // The seeds of the 3³ cells around q's: every seed that can bound q's Voronoi cell.
    let seeds: [DVec3; 27] = std::array::from_fn(|k| {
        let offset = DVec3::new((k % 3) as f64 - 1.0, (k / 3 % 3) as f64 - 1.0, (k / 9) as f64 - 1.0);
        site_of(base + offset, seed)
    });
    let nearest = seeds.iter().copied().min_by(|a, b| a.distance_squared(q).total_cmp(&b.distance_squared(q)));
    let Some(nearest) = nearest else { return f64::INFINITY };
    // The distance to the bisecting plane between the nearest seed and another one, minimised.
    seeds
        .iter()
        .filter(|s| **s != nearest)
        .map(|s| (s.distance_squared(q) - nearest.distance_squared(q)) / (2.0 * s.distance(nearest)))
        .fold(f64::INFINITY, f64::min)
}

/// The Voronoi seed of the unit lattice cell holding `q`: a point in it, placed by a hash of the
/// cell and `seed`.
fn site_of(q: DVec3, seed: u64) -> DVec3 {
    let cell = q.floor();
    let key = [cell.x as i64, cell.y as i64, cell.z as i64];
    let h = key.iter().fold(emitter_seed(seed, 0x6772_6e73), |h, &k| emitter_seed(h, k as u64 as usize));
    let unit = |bits: u64| (bits & 0x1f_ffff) as f64 / (1u64 << 21) as f64;
    cell + DVec3::new(unit(h), unit(h >> 21), unit(h >> 42))
}

/// Value noise in [−1, 1]: independent uniform values at the integer lattice points (hashed from
/// the point and `seed`), blended between them with smoothstep weights, so it is continuous and
/// changes over about one unit.
fn value_noise(q: DVec3, seed: u64) -> f64 {
    let base = q.floor();
    let f = q - base;
    let s = f * f * (DVec3::splat(3.0) - 2.0 * f);
    let corner = |dx: i64, dy: i64, dz: i64| -> f64 {
        let key = [base.x as i64 + dx, base.y as i64 + dy, base.z as i64 + dz];
        let h = key.iter().fold(emitter_seed(seed, 0x7061_636b), |h, &k| emitter_seed(h, k as u64 as usize));
        // The top 53 bits as a uniform number in [0, 1), mapped to [−1, 1).
        (h >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    let lerp = |a: f64, b: f64, t: f64| a + (b - a) * t;
    let mut z = [0.0; 2];
    for (dz, zv) in z.iter_mut().enumerate() {
        let mut y = [0.0; 2];
        for (dy, yv) in y.iter_mut().enumerate() {
            *yv = lerp(corner(0, dy as i64, dz as i64), corner(1, dy as i64, dz as i64), s.x);
        }
        *zv = lerp(y[0], y[1], s.y);
    }
    lerp(z[0], z[1], s.z)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn even_packing_is_exactly_one() {
        let p = Packing { amplitude: 0.0, length: 0.1, strength: 0.0, grain: 0.0 };
        assert_eq!(p.plastic_jacobian(DVec3::new(0.3, 0.2, 0.1), 5), 1.0);
    }

    #[test]
    fn uneven_packing_stays_in_its_bounds_and_varies_over_its_length() {
        let p = Packing { amplitude: 0.2, length: 0.1, strength: 0.0, grain: 0.0 };
        let (mut lo, mut hi, mut sum, mut jump) = (f64::MAX, f64::MIN, 0.0, 0.0f64);
        let n = 4000;
        for i in 0..n {
            let x = DVec3::new(i as f64 * 0.0013, 0.37, 0.11);
            let jp = p.plastic_jacobian(x, 3);
            let next = p.plastic_jacobian(x + DVec3::new(0.001, 0.0, 0.0), 3);
            (lo, hi, sum) = (lo.min(jp), hi.max(jp), sum + jp);
            jump = jump.max((next - jp).abs());
        }
        // Bounded by 1 ± amplitude (interpolated corner values never leave [−1, 1]).
        assert!(lo >= 0.8 && hi <= 1.2, "Jp in [{lo}, {hi}]");
        // Over 52 noise lengths it uses most of its range, and it averages near 1: the corner
        // values are uniform on [−1, 1], so the mean of ~50 independent ones is within ±0.2 of 0
        // (about 1.5 standard deviations of 0.58/√50 times the amplitude, twice over).
        assert!(lo < 0.9 && hi > 1.1, "Jp in [{lo}, {hi}]");
        assert!((sum / n as f64 - 1.0).abs() < 0.04, "mean {}", sum / n as f64);
        // Smooth: a step of 1/100 of the length changes n by at most 1.5 · 2 / 100 (the steepest
        // smoothstep slope 1.5 times the largest corner difference 2), times the amplitude.
        assert!(jump <= 0.2 * 0.03 + 1e-12, "largest change over 1 mm: {jump}");
        // Another seed, other values.
        let x = DVec3::new(0.55, 0.37, 0.11);
        assert_ne!(p.plastic_jacobian(x, 3), p.plastic_jacobian(x, 4));
    }

    /// The seam distance against a brute-force Voronoi diagram: seeds of a 7³ block of lattice
    /// cells, the distance to the bisecting plane of the nearest and each other seed, minimised.
    /// The 27 cells the function searches hold every seed that can bound the query's cell (a seed
    /// two cells away is farther than any in the adjacent cells), so the two agree to rounding.
    #[test]
    fn seam_distance_matches_a_brute_force_voronoi_diagram() {
        let seed = 9;
        // The same seeds clump_boundary_distance places, from a point inside each lattice cell.
        let seeds: Vec<DVec3> = (-3..=3)
            .flat_map(|z| (-3..=3).flat_map(move |y| (-3..=3).map(move |x| DVec3::new(x as f64, y as f64, z as f64))))
            .map(|cell| site_of(cell + DVec3::splat(0.5), seed))
            .collect();
        let mut checked = 0;
        for i in 0..400 {
            let t = i as f64;
            let q = DVec3::new((t * 0.6180339).fract(), (t * 0.4142135).fract(), (t * 0.7320508).fract()) - 0.5;
            let near = seeds.iter().copied().min_by(|a, b| a.distance_squared(q).total_cmp(&b.distance_squared(q)));
            let near = near.unwrap();
            let brute = seeds
                .iter()
                .filter(|s| **s != near)
                .map(|s| (s.distance_squared(q) - near.distance_squared(q)) / (2.0 * s.distance(near)))
                .fold(f64::INFINITY, f64::min);
            let fast = clump_boundary_distance(q, seed);
            assert!((fast - brute).abs() < 1e-12, "at {q}: {fast} against {brute}");
            assert!(fast >= 0.0);
            checked += 1;
        }
        assert_eq!(checked, 400);
    }

    #[test]
    fn clump_insides_are_stronger_than_their_seams() {
        let p = Packing { amplitude: 0.0, length: 0.1, strength: 0.0, grain: 0.12 };
        let spacing = 0.015;
        let (mut seam, mut inside) = (0, 0);
        for i in 0..2000 {
            let t = i as f64;
            let x = DVec3::new((t * 0.6180339).fract(), (t * 0.4142135).fract(), (t * 0.7320508).fract());
            let f = p.strength_factor(x, 1, spacing);
            let d = clump_boundary_distance(x / p.grain, 1) * p.grain;
            assert_eq!(f, if d > spacing { GRAIN_INTERIOR_STRENGTH } else { 1.0 }, "at {x}");
            if f == 1.0 { seam += 1 } else { inside += 1 }
        }
        // The seams' share of the volume is about 2 · spacing · S_V for a face area per volume S_V;
        // a Poisson Voronoi diagram of one seed per grain³ has S_V ≈ 2.91 / grain, which gives
        // 0.73 (an overestimate at this width: bands overlap at edges). Measured 0.56 here;
        // anything outside [0.3, 0.8] would mean the distance or the threshold is off by a
        // factor.
        let share = seam as f64 / (seam + inside) as f64;
        assert!((0.3..=0.8).contains(&share), "seam share {share}");
        let even = Packing { grain: 0.0, ..p };
        assert_eq!(even.strength_factor(DVec3::splat(0.3), 1, spacing), 1.0);
    }
}
