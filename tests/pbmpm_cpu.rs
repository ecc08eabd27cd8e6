//! The PB-MPM CPU twin (`powder::sim::pbmpm::cpu`) on small scenes: what it conserves exactly,
//! free fall against its closed form, convergence of an elastic column toward the analytic
//! settlement as the constraint iterations grow, steps far past the explicit limit at any
//! stiffness, snow plasticity against the explicit twin, and wall friction against Coulomb's law,
//! under the default solve (Newton–PCG) and, where the two differ, the constraint iterations too.
//! CPU only, f64.
//!
//! Run with `--nocapture` to see the measured numbers each test prints.

mod common;

use glam::{DVec3, UVec3, Vec3};
use nalgebra::Vector3;
use powder::sim::cpu::CpuSolver;
use powder::sim::cpu::svd::signed_svd;
use powder::sim::explicit::clock::FrameStep;
use powder::sim::material::{PLASTIC_JACOBIAN_MAX, PLASTIC_JACOBIAN_MIN};
use powder::sim::params::{BoundaryKind, GpuParticle, MAX_SUBSTEPS_PER_FRAME, SolverParams};
use powder::sim::pbmpm::cpu::PbmpmCpu;
use powder::sim::pbmpm::{PbSolver, PbmpmSettings};

const G: f64 = 9.81;
/// The step the tests take unless they say otherwise: the reference PB-MPM app's 240 steps per
/// second.
const DT: f64 = 1.0 / 240.0;

/// `cells` cells of edge `h` from the origin: `common::params` (reference snow, gravity −9.81 z,
/// separate walls without friction, 50 m/s speed guard) on a box.
fn params(cells: UVec3, h: f64) -> SolverParams {
    let mut p = common::params(1, h, DT);
    p.grid.cells = cells;
    p
}

/// A box of particles (8 per cell, 400 kg/m³) moving at `velocity`.
fn block(lo: Vec3, hi: Vec3, h: f32, velocity: Vec3) -> Vec<GpuParticle> {
    common::block(lo, hi, h, 400.0, |_| velocity)
}

/// A ball of particles moving at `velocity`.
fn ball(center: Vec3, radius: f32, h: f32, velocity: Vec3) -> Vec<GpuParticle> {
    let r = Vec3::splat(radius);
    common::lattice(center - r, center + r, h, 400.0, |x| (x.distance(center) < radius).then_some(velocity))
}

/// Whether every particle's position, velocity, affine matrix, deformation and Jp are finite.
fn all_finite(s: &PbmpmCpu) -> bool {
    s.particles.iter().all(|p| {
        p.position
            .iter()
            .chain(p.velocity.iter())
            .chain(p.affine.iter())
            .chain(p.deformation.iter())
            .all(|x| x.is_finite())
            && p.plastic_jacobian.is_finite()
    })
}

#[test]
fn mass_is_conserved_on_the_grid() {
    // A block dropped onto the floor: after every step the grid holds the mass the last scatter
    // gave it, which must be the particles' total.
    let h = 0.05;
    let ps = block(Vec3::new(0.1, 0.1, 0.15), Vec3::new(0.3, 0.25, 0.3), h as f32, Vec3::new(0.5, 0.0, -1.0));
    let mut s = PbmpmCpu::new(params(UVec3::splat(8), h), PbmpmSettings::default(), &ps).expect("solver");
    let total = s.total_mass();
    let mut worst: f64 = 0.0;
    for _ in 0..60 {
        s.step(DT);
        worst = worst.max((s.grid_mass() - total).abs() / total);
        // Particle masses are never written.
        assert!(s.particles.iter().zip(&ps).all(|(p, q)| p.mass == q.mass as f64));
    }
    eprintln!("{} particles, 60 steps: largest relative grid mass error {worst:.2e}", ps.len());
    // Each particle's 27 weights sum to one up to ~1e-16; summed over ~13,000 node contributions
    // the total's rounding stays ~1e-14 relative. 1e-12 leaves room and catches any lost weight.
    assert!(worst <= 1e-12, "relative grid mass error {worst:e}");
}

#[test]
fn free_fall_is_exact() {
    // A block thrown sideways and up, far from any wall, in 48 steps of four different lengths
    // (as frames planned by the motion limit are). With no deformation every node gets the same
    // displacement, so each step is the leapfrog update `d = (v + g (dt_prev + dt)/2) dt`,
    // `v' = d/dt`, which is exact for a constant acceleration: after a time t, `x = x₀ + v₀ t +
    // ½ g t²`, and the velocity is the last step's mean, `v₀ + g (t − dt_last/2)`.
    let h = 0.05;
    let v0 = Vec3::new(0.6, -0.3, 1.0);
    let ps = block(Vec3::new(0.35, 0.4, 0.55), Vec3::new(0.55, 0.55, 0.7), h as f32, v0);
    let mut s = PbmpmCpu::new(params(UVec3::splat(20), h), PbmpmSettings::default(), &ps).expect("solver");
    let start: Vec<_> = s.particles.iter().map(|p| (p.position, p.velocity)).collect();
    let lengths = [DT, DT / 3.0, 0.7 * DT, DT / 2.0];
    let mut t = 0.0;
    for k in 0..48 {
        let dt = lengths[(k / 12) % 4];
        s.step(dt);
        t += dt;
    }
    let last = lengths[3];
    let g = Vector3::new(0.0, 0.0, -G);
    let (mut dx, mut dv): (f64, f64) = (0.0, 0.0);
    for (p, (x0, v0)) in s.particles.iter().zip(&start) {
        let x = x0 + t * v0 + 0.5 * t * t * g;
        let v = v0 + (t - 0.5 * last) * g;
        dx = dx.max((p.position - x).norm());
        dv = dv.max((p.velocity - v).norm());
        // The deformation stays the identity to rounding (1e-12: gathered D is the rounding of
        // Σ w (x_i − x_p) ~ 1e-17 m, times 4/h², over 48 steps).
        assert!((p.deformation - nalgebra::Matrix3::identity()).norm() < 1e-12, "F = {}", p.deformation);
    }
    eprintln!("{} particles, 48 steps, {t:.4} s: position error {dx:.2e} m, velocity error {dv:.2e} m/s", ps.len());
    // Rounding only: positions ~1 m carry ~1e-16 m per operation, a step does a few dozen, 48 steps;
    // 1e-12 m (and 1e-10 m/s: d/dt amplifies by up to 720) is far above that and far below what a
    // first-order gravity term leaves (`g·dt` on the velocity every step: 1.9e-3 m here, measured).
    assert!(dx <= 1e-12, "position error {dx:e} m");
    assert!(dv <= 1e-10, "velocity error {dv:e} m/s");
}

#[test]
fn two_snowballs_conserve_linear_and_angular_momentum() {
    for solver in [PbSolver::Constraints, PbSolver::Newton] {
        two_snowballs_collide(solver);
    }
}

fn two_snowballs_collide(solver: PbSolver) {
    // Zero gravity, two balls of reference snow (cracking on) meeting off-centre at 5 m/s. No
    // particle comes within 2.5 cells of a wall, so no wall node is ever in a stencil: the only
    // things acting are the transfers and the constraint, and neither changes Σ m d. The
    // constraint's impulse is the symmetric Kirchhoff stress, free of torque about the nodes, so
    // angular momentum is kept as well (constraint.rs, "Why τ(F')").
    let h = 0.04;
    let mut p = params(UVec3::splat(40), h);
    p.gravity = DVec3::ZERO;
    let mut ps = ball(Vec3::new(0.6, 0.8, 0.8), 0.1, h as f32, Vec3::new(2.0, 0.0, 0.0));
    ps.extend(ball(Vec3::new(1.0, 0.85, 0.8), 0.07, h as f32, Vec3::new(-3.0, 0.2, 0.0)));
    let mut s = PbmpmCpu::new(p, PbmpmSettings { solver, ..PbmpmSettings::default() }, &ps).expect("solver");
    let before = s.total_momentum();
    let scale: f64 = s.particles.iter().map(|p| p.mass * p.velocity.norm()).sum();
    let c = Vector3::new(0.8, 0.8, 0.8);
    let spin_before = common::pbmpm_angular_momentum(&s, c);
    let spin_scale: f64 = s.particles.iter().map(|p| p.mass * (p.position - c).norm() * p.velocity.norm()).sum();
    let (lo, hi) = (2.5 * h, 40.0 * h - 2.5 * h);
    let (mut worst, mut worst_spin): (f64, f64) = (0.0, 0.0);
    for _ in 0..72 {
        s.step(DT);
        worst = worst.max((s.total_momentum() - before).norm() / scale);
        worst_spin = worst_spin.max((common::pbmpm_angular_momentum(&s, c) - spin_before).norm() / spin_scale);
        assert!(s.particles.iter().all(|p| p.position.iter().all(|&x| x > lo && x < hi)), "a ball reached a wall");
    }
    let jp = s.particles.iter().map(|p| p.plastic_jacobian).fold(f64::INFINITY, f64::min);
    let cracked = s.particles.iter().filter(|p| p.damage > 0.0).count();
    eprintln!(
        "{solver:?}: {} particles, 0.3 s: momentum {:?} → {:?} kg·m/s; largest relative error {worst:.2e}; angular \
         momentum {worst_spin:.2e}; min Jp {jp:.3}, {cracked} cracked",
        ps.len(),
        before.as_slice(),
        s.total_momentum().as_slice()
    );
    // The balls did collide (plastic compaction), so the constraint acted.
    assert!(jp < 0.99, "min Jp {jp}");
    // Rounding only: Σ_i w r is ~1e-17 m per particle instead of 0, and Σ m d is summed over ~700
    // particles and ~20,000 node contributions per transfer, 360 transfers; 1e-12 relative to
    // Σ m |v| is three orders above the measured 8e-16 (dividing node sums by mass + 1e-9 kg
    // instead of the mass shows as 3e-5).
    assert!(worst <= 1e-12, "relative momentum error {worst:e}");
    // Angular momentum (relative to Σ m |x − c| |v|): with the impulse `P(F') F_Eᵀ`, whose torque
    // is not zero once the step rotates a particle, this collision lost 1.7e-2 (measured); with
    // τ(F') only rounding is left (measured 4.2e-16), bounded as the linear momentum is. The
    // Newton–PCG step's forces carry no torque either, but what its CG iterations leave of the
    // residual does: 1e-3 is the target, measured 7.2e-4 at its default 10 iterations (4.9e-3 at
    // 5, 9.8e-4 at 8, 5.8e-4 at 15).
    let bound = if solver == PbSolver::Newton { 1e-3 } else { 1e-12 };
    assert!(worst_spin <= bound, "{solver:?}: relative angular momentum error {worst_spin:e}");
}

/// The settled drop of the top of an elastic column (H = 0.5 m, 16 cells over its height, one
/// cell across between frictionless slip walls, 8 particles per cell; E = 2.5e4 Pa, ν = 0.2,
/// ρ = 400 kg/m³, ξ = 0, θc = 0.9, θs = 10, no cracking), released from rest and stepped 300
/// times at 1/240 s with `iterations` constraint iterations, as a fraction of the analytic
/// ρgH²/(2(λ + 2μ)). (The Newton–PCG solve's columns are in `tests/pbmpm_newton.rs`.)
///
/// Test-side damping: after each step the particles' velocity and affine matrix are scaled by
/// 0.95. A state at rest is left as it is, so the column settles where the undamped integrator is
/// stationary, only sooner (by 300 steps every run has settled to four digits).
fn column_settlement(iterations: u32) -> f64 {
    let height = 0.5;
    let cells = 16;
    let h = height / cells as f64;
    let mut p = params(UVec3::new(1, 1, cells + cells / 4), h);
    p.boundary.kind = BoundaryKind::Slip;
    let m = &mut p.material;
    (m.youngs_modulus, m.poisson_ratio, m.density) = (2.5e4, 0.2, 400.0);
    (m.hardening, m.critical_compression, m.critical_stretch, m.tensile_strength) = (0.0, 0.9, 10.0, 0.0);
    let analytic = m.density * G * height * height / (2.0 * (m.lambda0() + 2.0 * m.mu0()));
    let ps = block(Vec3::ZERO, Vec3::new(h as f32, h as f32, height as f32), h as f32, Vec3::ZERO);
    let settings = PbmpmSettings { solver: PbSolver::Constraints, iterations, ..PbmpmSettings::default() };
    let mut s = PbmpmCpu::new(p, settings, &ps).expect("solver");
    // The top layer of particles (at H − h/4, where the analytic drop is 0.02 % less than at H).
    let top: Vec<usize> = (0..ps.len()).filter(|&i| ps[i].position[2] as f64 > height - 0.5 * h).collect();
    let mean_top = |s: &PbmpmCpu| top.iter().map(|&i| s.particles[i].position.z).sum::<f64>() / top.len() as f64;
    let z0 = mean_top(&s);
    for _ in 0..300 {
        s.step(DT);
        for q in &mut s.particles {
            q.velocity *= 0.95;
            q.affine *= 0.95;
        }
    }
    assert!(s.particles.iter().all(|q| q.plastic_jacobian == 1.0), "the column yielded");
    (z0 - mean_top(&s)) / analytic
}

#[test]
fn elastic_column_converges_to_the_analytic_settlement_with_iterations() {
    // Confined compression: F = diag(1, 1, s(Z)) and the fixed-corotated first Piola stress is
    // (λ + 2μ)(s − 1) exactly, so the strain is ρg(H − Z)/(λ + 2μ) and the top drops by
    // ρgH²/(2(λ + 2μ)) = 17.7 mm. At this dt the P wave crosses 1.1 cells per step.
    let counts = [1, 2, 4, 8, 16];
    let errors: Vec<f64> = counts.iter().map(|&n| column_settlement(n) - 1.0).collect();
    for (n, e) in counts.iter().zip(&errors) {
        eprintln!("{n:2} iterations: settlement {:.4} × analytic (error {:+.2} %)", 1.0 + e, 100.0 * e);
    }
    // Too few iterations leave the snow much softer than its moduli (measured: 4.1× at one).
    assert!(errors[0] > 1.0, "one iteration: error {}", errors[0]);
    // Each doubling of the iterations cuts the error by more than half (measured ratios 0.26–0.44).
    for w in errors.windows(2) {
        assert!(w[1] > 0.0 && w[1] < 0.5 * w[0], "errors {errors:?}");
    }
    // At 16 iterations within 6 % (measured +4.5 %): of that, about 2 % is the grid's own error
    // (the floor layer, as in the explicit integrator; 64 iterations measure +2.1 %).
    assert!(errors[4] < 0.06, "16 iterations: error {}", errors[4]);
}

#[test]
fn stiffness_does_not_limit_the_step() {
    // A 12 cm block dropped from 20 cm onto a separate floor with friction, reference snow (ν, ρ,
    // hardening, yield, cracking) at E = 1e4, 1e6, 1e8 Pa, one second at 1/240 s. Explicit MPM's
    // stable step at 1e8 Pa on these 4 cm cells is 0.4 h / c = 3e-5 s (c = 527 m/s before any
    // hardening), 1/137 of this one.
    let h = 0.04;
    for e in [1e4, 1e6, 1e8] {
        let mut p = params(UVec3::splat(12), h);
        p.material.youngs_modulus = e;
        p.boundary.friction = 0.3;
        let ps = block(Vec3::new(0.16, 0.16, 0.2), Vec3::new(0.28, 0.28, 0.32), h as f32, Vec3::ZERO);
        let mut s = PbmpmCpu::new(p, PbmpmSettings::default(), &ps).expect("solver");
        let mut clamped = 0;
        let mut most: f64 = 0.0;
        for _ in 0..240 {
            let r = s.step(DT);
            clamped += r.clamped;
            most = most.max(r.max_displacement_cells);
            assert!(all_finite(&s), "E = {e:e}: a value is not finite");
        }
        let (lo, hi) = (p.grid.domain_min, p.grid.domain_max());
        let inside = s.particles.iter().all(|q| (0..3).all(|a| q.position[a] >= lo[a] && q.position[a] <= hi[a]));
        let top = s.particles.iter().map(|q| q.position.z).fold(0.0, f64::max);
        let speed = s.particles.iter().map(|q| q.velocity.norm()).fold(0.0, f64::max);
        let jp = s.particles.iter().map(|q| q.plastic_jacobian).fold(f64::INFINITY, f64::min);
        eprintln!(
            "E = {e:.0e} Pa: top {top:.4} m (block 0.12 m), max speed at 1 s {speed:.2e} m/s, \
             most motion per step {most:.2} cells, min Jp {jp:.3}, clamped {clamped}"
        );
        assert!(inside && clamped == 0, "E = {e:e}: {clamped} particle positions clamped to the domain");
        // It landed and stopped: it keeps more than half its height (the impact compacts it; not
        // collapsed, not sunk into the floor), it is off its starting height, and it has come to
        // rest (1 cm/s is 0.04 cells per step).
        assert!(top > 0.06 && top < 0.2, "E = {e:e}: top at {top} m");
        assert!(speed < 0.01, "E = {e:e}: still moving at {speed} m/s");
    }
}

#[test]
fn compaction_lowers_jp_as_in_the_explicit_integrator() {
    // A column of reference snow 2 × 2 cells across between slip walls, thrown down onto the floor
    // at 3 m/s: the impact compresses it past 1 − θc. The explicit twin at its stable step and
    // PB-MPM (5 iterations) run 0.1 s from the same start, PB-MPM at 1/960 s (0.08 cells of motion
    // per step) and at 1/240 s (0.3 cells).
    let h = 0.04;
    let mut p = params(UVec3::new(2, 2, 8), h);
    p.boundary.kind = BoundaryKind::Slip;
    let ps = block(Vec3::ZERO, Vec3::new(0.08, 0.08, 0.24), h as f32, Vec3::new(0.0, 0.0, -3.0));
    let m = p.material;
    let (lo, hi) = (1.0 - m.critical_compression, 1.0 + m.critical_stretch);
    let mean_jp =
        |ps: &[powder::sim::cpu::CpuParticle]| ps.iter().map(|q| q.plastic_jacobian).sum::<f64>() / ps.len() as f64;
    let min_jp =
        |ps: &[powder::sim::cpu::CpuParticle]| ps.iter().map(|q| q.plastic_jacobian).fold(f64::INFINITY, f64::min);

    // Explicit substeps of the stable dt of each state (Courant number 0.4), as powder run takes them.
    let mut ex = CpuSolver::new(SolverParams { cfl: 0.4, ..p }, &ps);
    let substeps = ex.step_span(0.1, FrameStep::Auto { max_substeps: MAX_SUBSTEPS_PER_FRAME }).substeps;
    let (ex_jp, ex_min) = (mean_jp(&ex.particles), min_jp(&ex.particles));
    eprintln!("explicit ({substeps} substeps): mean Jp {ex_jp:.4}, min {ex_min:.4}");

    let mut results = Vec::new();
    // Without yield relaxation (yield_time 0), so that the end of each step clamps exactly as the
    // explicit integrator does; `end_step_keeps_exp_minus_dt_over_tau_of_the_excess` (src/sim/pbmpm/cpu/integrate.rs) checks the relaxation.
    let settings = PbmpmSettings { yield_time: 0.0, ..PbmpmSettings::default() };
    for steps in [96, 24] {
        let mut pb = PbmpmCpu::new(p, settings, &ps).expect("solver");
        let mut on_yield = 0;
        for _ in 0..steps {
            pb.step(0.1 / steps as f64);
            for q in &pb.particles {
                let (_, sigma, _) = signed_svd(&q.deformation);
                // The clamp: elastic singular values within [1 − θc, 1 + θs] (to 1e-12, the SVD's
                // rounding of order-1 values), Jp within its bounds.
                assert!(sigma.iter().all(|&x| x >= lo - 1e-12 && x <= hi + 1e-12), "σ = {sigma}");
                assert!((PLASTIC_JACOBIAN_MIN..=PLASTIC_JACOBIAN_MAX).contains(&q.plastic_jacobian));
                if q.plastic_jacobian < 1.0 && (sigma.min() - lo).abs() < 1e-9 {
                    on_yield += 1;
                }
            }
        }
        let (jp, min) = (mean_jp(&pb.particles), min_jp(&pb.particles));
        eprintln!(
            "PB-MPM at 1/{} s: mean Jp {jp:.4}, min {min:.4}; {on_yield} particle-steps on the yield surface",
            steps * 10
        );
        // Direction: the impact compacts (Jp falls) in both, and the particles that yielded in
        // compression sit on the yield surface σ_min = 1 − θc, as the explicit clamp leaves them.
        assert!(min < 0.97 && jp < 1.0 && on_yield > 0, "PB-MPM: mean Jp {jp}, min {min}");
        results.push(jp);
    }
    assert!(ex_min < 0.97 && ex_jp < 1.0, "explicit: mean Jp {ex_jp}, min {ex_min}");
    // Amount: the mean compaction 1 − Jp against the explicit twin's, measured 0.74× at 1/960 s
    // and 1.54× at 1/240 s. Below 1 at small steps because within a step PB-MPM's snow resists
    // elastically and yields only at the step's end (the explicit substep caps the stress at the
    // yield stress all along); above 1 at large steps because the strain that 5 iterations leave
    // unresolved at a step's end is partly kept as compaction (docs/pbmpm.md, "Compaction and
    // motion per step"). The bounds hold both to within the factor of 2 the docs state, and fail
    // for the stress capped inside the step (3.6× at 1/240 s, which the docs' earlier design gave).
    let ratios: Vec<f64> = results.iter().map(|jp| (1.0 - jp) / (1.0 - ex_jp)).collect();
    eprintln!("compaction PB-MPM / explicit at 1/960 s, 1/240 s: {ratios:.3?}");
    assert!(ratios.iter().all(|r| (0.5..=2.0).contains(r)), "compaction ratios PB-MPM / explicit {ratios:?}");
}

#[test]
fn wall_friction_is_coulombs() {
    // A block resting on a floor tilted 30° (gravity turned instead), 0.5 s at 1/240 s: on a
    // `separate` or `slip` floor with μ = 0.3 it slides at g (sin θ − μ cos θ) = 2.356 m/s², and at
    // μ = 0.7 it sticks (Coulomb's answer would be a negative acceleration, i.e. none). The
    // acceleration is the mean one over the second half, from the block's x momentum: only
    // gravity and the floor act along x, and the block (0.3 m at most) never reaches the end wall.
    let h = 0.04;
    let theta = 30f64.to_radians();
    let cases = [(BoundaryKind::Separate, 0.3), (BoundaryKind::Slip, 0.3), (BoundaryKind::Separate, 0.7)];
    for (solver, (kind, mu)) in
        [PbSolver::Constraints, PbSolver::Newton].into_iter().flat_map(|s| cases.map(|c| (s, c)))
    {
        let mut p = params(UVec3::new(30, 6, 8), h);
        (p.boundary.kind, p.boundary.friction) = (kind, mu);
        p.gravity = DVec3::new(G * theta.sin(), 0.0, -G * theta.cos());
        let ps = block(Vec3::new(0.12, 0.08, 0.0), Vec3::new(0.28, 0.16, 0.08), h as f32, Vec3::ZERO);
        let mut s = PbmpmCpu::new(p, PbmpmSettings { solver, ..PbmpmSettings::default() }, &ps).expect("solver");
        let speed = |s: &PbmpmCpu| s.total_momentum().x / s.total_mass();
        for _ in 0..60 {
            s.step(DT);
        }
        let v_half = speed(&s);
        for _ in 0..60 {
            s.step(DT);
        }
        let a = (speed(&s) - v_half) / 0.25;
        let coulomb = (G * (theta.sin() - mu * theta.cos())).max(0.0);
        eprintln!("{solver:?}, {kind:?} floor, μ = {mu}: {a:.6} m/s² (Coulomb {coulomb:.6})");
        // 1e-4 of g: measured within 1e-6 of g under the constraint iterations, within 2e-5 of g
        // under Newton–PCG at its default 10 iterations (1.4e-3 g at 5); the explicit integrator's
        // test, tests/friction.rs, allows 2 %. A 1 % error in the friction's normal impulse would
        // show as 5e-3 m/s². Newton–PCG's normal force is the held force carried to the solution
        // (newton.rs); left at the prediction's (21 times the weight here) it stops the block
        // (measured 0.0015 m/s²).
        assert!((a - coulomb).abs() <= 1e-4 * G, "{solver:?}, {kind:?}, μ = {mu}: {a} m/s², Coulomb {coulomb}");
    }
}
