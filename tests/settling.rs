//! A block of snow resting on the floor settles (lavapipe, real dispatches).

mod common;

use glam::Vec3;
use powder::sim::Solver;
use powder::sim::params::BoundaryKind;

#[test]
fn explore() {
    for (kind, fr) in [(BoundaryKind::Separate, 0.0), (BoundaryKind::Sticky, 0.0), (BoundaryKind::Separate, 0.3)] {
        let gpu = common::gpu();
        let h = 1.0 / 32.0;
        let mut params = common::params(16, h, 1e-4);
        params.boundary.kind = kind; params.boundary.friction = fr;
        let ps = common::block(Vec3::new(0.125, 0.125, 0.0), Vec3::new(0.375, 0.375, 0.25), h as f32, 400.0, |_| Vec3::ZERO);
        let mut solver = Solver::new(&gpu, params, &ps).expect("solver");
        let (dt, _) = solver.stable_dt(&gpu, 0.4).unwrap();
        solver.set_dt(&gpu, dt);
        let z0 = common::mean(&ps, |p| p.position[2] as f64);
        eprintln!("{kind:?}: n {} dt {dt:e} z0 {z0}", ps.len());
        let mut kes = vec![]; let mut zs = vec![];
        for i in 0..200 {
            solver.step(&gpu, 5);
            let out = solver.read_particles(&gpu).unwrap();
            let z = common::mean(&out, |p| p.position[2] as f64);
            let zmin = out.iter().map(|p| p.position[2]).fold(f32::MAX, f32::min);
            let ke = common::kinetic_energy(&out);
            let jmin = out.iter().map(|p| p.plastic_jacobian).fold(f32::MAX, f32::min);
            let _ = (i, zmin, jmin);
            kes.push(ke); zs.push(z - z0);
        }
        for w in 0..10 { let r = w*20..(w+1)*20; eprintln!("window {w}: max ke {:.4e} mean dz {:.4e}", kes[r.clone()].iter().cloned().fold(0.0, f64::max), zs[r].iter().sum::<f64>()/20.0); }
    }
}
