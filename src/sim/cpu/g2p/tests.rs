//! Tests of the `g2p` pass, in a file of their own: they drive it through
//! [`crate::sim::cpu::solver::CpuSolver`], which runs the pass, so inline they would make a loop.

use super::*;
use crate::sim::cpu::solver::CpuSolver;
use crate::sim::cpu::test_scene;
use glam::Vec3;
use nalgebra::Vector3;

/// One particle at an interior point with deformation `f` and plastic ratio `jp`; the grid
/// velocity is zero everywhere (as after `CpuSolver::new`).
fn deformed(f: Matrix3<f64>, jp: f64) -> CpuSolver {
    let p = test_scene::particle(Vec3::new(0.43, 0.41, 0.47), Vec3::ZERO);
    let mut solver = CpuSolver::new(test_scene::params(), &[p]);
    solver.particles[0].deformation = f;
    solver.particles[0].plastic_jacobian = jp;
    solver
}

#[test]
fn stretch_past_theta_s_becomes_plastic() {
    let mut s = deformed(Matrix3::from_diagonal(&Vector3::new(1.1, 1.0, 1.0)), 1.0);
    s.g2p();
    let theta_s = s.params.material.critical_stretch;
    let p = &s.particles[0];
    let (_, sigma, _) = signed_svd(&p.deformation);
    // Relative 1e-12: with zero grid velocity F' = F exactly and the SVD of a diagonal matrix
    // is exact to a few ulps, so only a handful of roundings separate the two sides.
    assert!((sigma.max() - (1.0 + theta_s)).abs() <= 1e-12 * (1.0 + theta_s), "σ = {sigma}");
    assert!((sigma.min() - 1.0).abs() <= 1e-12);
    let want = 1.1 / (1.0 + theta_s);
    assert!((p.plastic_jacobian - want).abs() <= 1e-12 * want, "Jp = {}", p.plastic_jacobian);
}

#[test]
fn compression_past_theta_c_becomes_plastic() {
    let mut s = deformed(Matrix3::from_diagonal(&Vector3::new(1.0, 0.9, 1.0)), 1.0);
    s.g2p();
    let theta_c = s.params.material.critical_compression;
    let (_, sigma, _) = signed_svd(&s.particles[0].deformation);
    // Same 1e-12 argument as for stretch.
    assert!((sigma.min() - (1.0 - theta_c)).abs() <= 1e-12);
    let want = 0.9 / (1.0 - theta_c);
    assert!((s.particles[0].plastic_jacobian - want).abs() <= 1e-12 * want);
}

#[test]
fn plastic_jacobian_is_clamped() {
    // 1.5e-3 · 0.5 / 0.975 ≈ 7.7e-4 < 1e-3: held at the bound (exact, clamp returns it).
    let mut s = deformed(Matrix3::from_diagonal(&Vector3::new(0.5, 1.0, 1.0)), 1.5e-3);
    s.g2p();
    assert_eq!(s.particles[0].plastic_jacobian, PLASTIC_JACOBIAN_MIN);
}

#[test]
fn gravity_only_substep_is_a_free_fall_step() {
    let (x0, v0) = (Vector3::new(0.43, 0.41, 0.47), Vector3::new(0.3, -0.2, 0.1));
    let p = test_scene::particle(Vec3::new(0.43, 0.41, 0.47), Vec3::new(0.3, -0.2, 0.1));
    let mut s = CpuSolver::new(test_scene::params(), &[p]);
    // Use the particle's own (f32-rounded) start so the check is about the step, not the input.
    let (x0f, v0f) = (s.particles[0].position, s.particles[0].velocity);
    assert!((x0f - x0).norm() < 1e-7 && (v0f - v0).norm() < 1e-7);
    s.substep();
    let g = Vector3::new(0.0, 0.0, -9.81);
    let dt = s.params.dt;
    let v1 = v0f + dt * g;
    let x1 = x0f + dt * v1;
    let p = &s.particles[0];
    // 1e-12: every node gets the same velocity v + g dt, and the weights sum to one, so v' and
    // x' differ from the closed form only by rounding (~1e-16 relative).
    assert!((p.velocity - v1).norm() < 1e-12, "v = {}", p.velocity);
    assert!((p.position - x1).norm() < 1e-12, "x = {}", p.position);
    // C' = (4/h²)·v·Σ w dᵀ = 0 up to 400 × rounding of Σ w d (~1e-17 m), so F stays I.
    assert!(p.affine.norm() < 1e-10, "C = {}", p.affine);
    assert!((p.deformation - Matrix3::identity()).norm() < 1e-12);
    assert_eq!(p.plastic_jacobian, 1.0);
}

#[test]
fn clamps_position_to_the_domain_and_speed_after_moving() {
    let low = test_scene::particle(Vec3::new(0.4, 0.4, 0.001), Vec3::ZERO);
    let mid = test_scene::particle(Vec3::new(0.4, 0.4, 0.4), Vec3::ZERO);
    let mut s = CpuSolver::new(test_scene::params(), &[low, mid]);
    s.grid.velocity.fill(Vector3::new(0.0, 0.0, -80.0));
    s.g2p();
    let dt = s.params.dt;
    // Low particle: 0.001 − 80 dt = −0.007 → clamped to the floor z = 0 (exact).
    assert_eq!(s.particles[0].position.z, 0.0);
    // Mid particle moves with the unclamped −80 m/s (to rounding, 1e-12), then its velocity is
    // clamped to 50 m/s.
    let z0 = 0.4f32 as f64;
    assert!((s.particles[1].position.z - (z0 - 80.0 * dt)).abs() < 1e-12);
    assert!((s.particles[1].velocity - Vector3::new(0.0, 0.0, -50.0)).norm() < 1e-12);
}

/// The dry-sand preset, whose friction angle and moduli the Drucker–Prager tests use.
fn sand() -> SnowMaterial {
    crate::sim::presets::preset_by_id("dry_sand").expect("dry sand").material
}

/// `(‖ε̂‖, tr ε)` of singular values `sigma` with the volume `v` added to the trace.
fn hencky(sigma: Vector3<f64>, v: f64) -> (f64, f64) {
    let e = sigma.map(f64::ln);
    let tr = e.sum() + v;
    ((e - Vector3::repeat(tr / 3.0)).norm(), tr)
}

#[test]
fn sand_outside_its_cone_returns_onto_it_and_keeps_its_volume() {
    // Klár et al. 2016's return mapping: a compressed, sheared state outside the cone moves along
    // its deviatoric direction onto ‖ε̂‖ = −α (3λ + 2μ)/(2μ) tr ε, keeping tr ε (the volume).
    let m = sand();
    let k = m.drucker_prager_alpha() * (3.0 * m.lambda0() + 2.0 * m.mu0()) / (2.0 * m.mu0());
    let trial = Vector3::new(1.05, 0.97, 0.90);
    let (dev, tr) = hencky(trial, 0.0);
    assert!(tr < 0.0 && dev > -k * tr, "the trial state is compressed and outside the cone");
    let (returned, v) = sand_return(&m, trial, 1.0);
    let (dev_after, tr_after) = hencky(returned, 0.0);
    assert!((tr_after - tr).abs() < 1e-12, "the volume changed: {tr} → {tr_after}");
    assert!((dev_after - (-k * tr)).abs() < 1e-12, "not on the cone: {dev_after} against {}", -k * tr);
    assert_eq!(v, 0.0);
    // The direction of the deviatoric strain is kept: only its length shrinks.
    let direction = |s: Vector3<f64>| {
        let e = s.map(f64::ln);
        let d = e - Vector3::repeat(e.sum() / 3.0);
        d / d.norm()
    };
    assert!((direction(returned) - direction(trial)).norm() < 1e-12);
}

#[test]
fn cohesive_sand_holds_tension_up_to_its_apex() {
    // Wet sand (cohesion c): the cone's apex moves into tension by a = c cot φ / K. A state pulled
    // apart less than a, inside the shifted cone, is left elastic, where dry sand would drop all its
    // stress; pulled further, it keeps the apex's strain a/3 on every axis and the rest in v.
    let wet = crate::sim::presets::preset_by_id("wet_sand").expect("wet sand").material;
    let apex = wet.cohesion_strain();
    let bulk = wet.lambda0() + 2.0 * wet.mu0() / 3.0;
    let want = wet.cohesion / (30f64.to_radians().tan() * bulk);
    assert!((apex - want).abs() <= 1e-15 && apex > 1e-3, "apex {apex} against {want}");
    let slight = Vector3::repeat((0.3 * apex / 3.0).exp());
    let (returned, v) = sand_return(&wet, slight, 1.0);
    assert!((returned - slight).norm() < 1e-12 && v == 0.0, "held: {returned} {v}");
    let (dry, _) = sand_return(&sand(), slight, 1.0);
    assert_eq!(dry, Vector3::repeat(1.0), "dry sand keeps no tension");
    let pulled = Vector3::new(1.02, 1.01, 0.995);
    let (returned, v) = sand_return(&wet, pulled, 1.0);
    let (_, tr) = hencky(pulled, 0.0);
    assert!((returned - Vector3::repeat((apex / 3.0).exp())).norm() < 1e-12, "{returned}");
    assert!((v - (tr - apex)).abs() < 1e-12, "kept volume {v} against {}", tr - apex);
    // A compressed, sheared state: returned onto the shifted cone ‖ε̂‖ = −k (tr − a).
    let k = wet.drucker_prager_alpha() * (3.0 * wet.lambda0() + 2.0 * wet.mu0()) / (2.0 * wet.mu0());
    let trial = Vector3::new(1.05, 0.97, 0.90);
    let (returned, _) = sand_return(&wet, trial, 1.0);
    let (dev_after, tr_after) = hencky(returned, 0.0);
    assert!((dev_after - (-k * (tr_after - apex))).abs() < 1e-12, "not on the shifted cone: {dev_after}");
}

#[test]
fn sand_inside_its_cone_is_left_alone_and_pulled_sand_keeps_no_stress() {
    let m = sand();
    // Pressed evenly with a little shear: inside the cone, elastic.
    let inside = Vector3::new(0.99, 0.985, 0.98);
    let (returned, v) = sand_return(&m, inside, 1.0);
    assert!((returned - inside).norm() < 1e-12 && v == 0.0, "{returned} {v}");
    // Pulled apart (tr ε ≥ 0): no stress (Σ = I), and the volume gained is kept in Jp = e^v …
    let pulled = Vector3::new(1.02, 1.01, 0.995);
    let (returned, v) = sand_return(&m, pulled, 1.0);
    assert_eq!(returned, Vector3::repeat(1.0));
    let (_, tr) = hencky(pulled, 0.0);
    assert!((v - tr).abs() < 1e-15, "kept {v} of {tr}");
    // … and given back when the sand is pressed again (Tampubolon et al. 2017): the same
    // compression counts from the kept volume, so it returns nearer the apex.
    let pressed = Vector3::new(0.995, 0.995, 0.995);
    let (fresh, _) = sand_return(&m, pressed, 1.0);
    let (after_pull, v_after) = sand_return(&m, pressed, v.exp());
    let (_, tr_fresh) = hencky(fresh, 0.0);
    assert!(tr_fresh < 0.0, "fresh sand stays compressed");
    assert_eq!(after_pull, Vector3::repeat(1.0), "the kept volume outweighs the compression");
    assert!((v_after - (v + pressed.map(f64::ln).sum())).abs() < 1e-15);
}

#[test]
fn sand_plasticity_runs_through_g2p() {
    // The snow clamp would leave this state alone (inside [1 − θc, 1 + θs] for the reference snow),
    // the sand's cone does not: g2p takes the material's kind.
    let mut s = deformed(Matrix3::from_diagonal(&Vector3::new(1.006, 0.999, 0.994)), 1.0);
    s.params.material = sand();
    s.g2p();
    let (_, sigma, _) = signed_svd(&s.particles[0].deformation);
    let (expected, _) = sand_return(&s.params.material, Vector3::new(1.006, 0.999, 0.994), 1.0);
    let mut sorted = expected;
    sorted.as_mut_slice().sort_by(|a, b| b.total_cmp(a));
    assert!((sigma - sorted).norm() < 1e-12, "{sigma} against {sorted}");
    assert!((sigma - Vector3::new(1.006, 0.999, 0.994)).norm() > 1e-4, "the cone did not act");
}

/// The `mud` preset: yield stress 100 Pa, viscosity 5 Pa·s, shear modulus 2e4 Pa.
fn mud() -> SnowMaterial {
    crate::sim::presets::preset_by_id("mud").expect("mud").material
}

#[test]
fn the_visco_return_relaxes_the_overstress_and_keeps_the_volume() {
    let m = mud();
    let (mu, k) = (m.mu0(), std::f64::consts::SQRT_2 * m.yield_stress);
    let deviator = |s: Vector3<f64>| {
        let e = s.map(f64::ln);
        e - Vector3::repeat(e.sum() / 3.0)
    };
    // Inside the yield surface (‖s‖ = 2μ‖ε̂‖ ≈ 57 Pa < k ≈ 141 Pa): nothing changes, bit for bit.
    let small = Vector3::new(1.001, 0.9995, 0.9997);
    assert!(2.0 * mu * deviator(small).norm() < k);
    assert_eq!(visco_return(&m, small, 1e-3), small);
    // Past it (‖s‖ ≈ 1.3 kPa): ‖s'‖ = (‖s‖ + r k) / (1 + r), r = μ dt / η; the deviator keeps its
    // direction and the volume its value. 1e-12 relative: a few roundings of logs and exps.
    let big = Vector3::new(1.02, 0.99, 0.985);
    let dt = 2e-4;
    let out = visco_return(&m, big, dt);
    let (before, after) = (deviator(big), deviator(out));
    let r = mu * dt / m.viscosity;
    let expected = (2.0 * mu * before.norm() + r * k) / (1.0 + r);
    assert!((2.0 * mu * after.norm() / expected - 1.0).abs() < 1e-12, "{} vs {expected}", 2.0 * mu * after.norm());
    assert!((after.normalize() - before.normalize()).norm() < 1e-12);
    assert!((out.product() / big.product() - 1.0).abs() < 1e-12);
}

#[test]
fn steady_simple_shear_gives_the_bingham_stress() {
    // One material point sheared at γ̇ = 5/s (F ← (I + dt L) F, then the return) for 0.4 s,
    // two thousand relaxation times η/μ: the shear stress settles at τ_y + η γ̇ = 125 Pa, the
    // Bingham law the return mapping is built for. 1 %: the fixed corotated stress is the
    // Hencky one only to first order in the elastic strain (τ/μ = 0.6 %).
    let m = mud();
    let (rate, dt) = (5.0, 1e-4);
    let velocity_gradient = Matrix3::new(0.0, rate, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    let mut f = Matrix3::identity();
    for _ in 0..4000 {
        let trial = (Matrix3::identity() + dt * velocity_gradient) * f;
        f = project_plasticity_svd(&m, &trial, 1.0, 0.0, dt).0;
    }
    let tau = crate::sim::cpu::p2g::kirchhoff_stress(&m, &f, 1.0, 0.0);
    let expected = m.yield_stress + m.viscosity * rate;
    assert!((tau[(0, 1)] / expected - 1.0).abs() < 0.01, "τ_xy = {} against {expected}", tau[(0, 1)]);
    // Slower than the yield stress allows to flow (γ̇ → 0), a Newtonian fluid's stress vanishes
    // with the rate: honey (τ_y = 0) sheared at 0.5/s carries η γ̇ = 5 Pa.
    let honey = crate::sim::presets::preset_by_id("honey").expect("honey").material;
    let slow = velocity_gradient * 0.1;
    let mut f = Matrix3::identity();
    for _ in 0..4000 {
        f = project_plasticity_svd(&honey, &((Matrix3::identity() + dt * slow) * f), 1.0, 0.0, dt).0;
    }
    let tau = crate::sim::cpu::p2g::kirchhoff_stress(&honey, &f, 1.0, 0.0);
    assert!((tau[(0, 1)] / (honey.viscosity * 0.5) - 1.0).abs() < 0.01, "τ_xy = {}", tau[(0, 1)]);
}
