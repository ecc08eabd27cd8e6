mod common;

use glam::{Mat3, Vec3};
use powder::sim::Solver;

#[test]
fn explore_recovery() {
    for elastic in [true, false] {
        let gpu = common::gpu();
        let h = 1.0 / 32.0;
        let mut params = common::params(16, h, 4e-4);
        params.gravity = glam::DVec3::ZERO;
        params.material.critical_stretch = 1e3;
        if elastic {
            params.material.critical_compression = 0.99;
        }
        let mut ps = common::block(Vec3::splat(0.1875), Vec3::splat(0.3125), h as f32, 400.0, |_| Vec3::ZERO);
        for p in &mut ps {
            p.deformation = common::padded(Mat3::from_diagonal(Vec3::splat(0.95)));
        }
        let solver = Solver::new(&gpu, params, &ps).expect("solver");
        let c0 = Vec3::splat(0.25);
        let r = |ps: &[powder::sim::params::GpuParticle]| common::mean(ps, |p| (Vec3::from(p.position) - c0).length_squared() as f64).sqrt();
        let r0 = r(&ps);
        for i in 0..100 {
            solver.step(&gpu, 4);
            let out = solver.read_particles(&gpu).unwrap();
            let mut fm = nalgebra::Matrix3::zeros();
            for p in &out { fm += common::mat3d(&p.deformation); }
            fm /= out.len() as f64;
            let jmin = out.iter().map(|p| p.plastic_jacobian).fold(f32::MAX, f32::min);
            let jmax = out.iter().map(|p| p.plastic_jacobian).fold(f32::MIN, f32::max);
            let jmean = common::mean(&out, |p| p.plastic_jacobian as f64);
            let fdev = common::mean(&out, |p| (common::mat3d(&p.deformation) - nalgebra::Matrix3::identity()).norm());
            if i % 3 == 0 || i > 84 { eprintln!("{elastic} {:4} r/r0 {:.4} meanF-I {:.4} fdev {fdev:.4} jp {jmin} {jmean:.4} {jmax} ke {:.3e}", (i+1)*4, r(&out)/r0, (fm - nalgebra::Matrix3::identity()).norm(), common::kinetic_energy(&out)); }
        }
    }
}
