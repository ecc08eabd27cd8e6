mod common;
use glam::{UVec3, Vec3};
use powder::sim::params::{Boundary, BoundaryKind};
use powder::sim::pbmpm::cpu::PbmpmCpu;
use powder::sim::pbmpm::PbmpmSettings;
use powder::sim::presets::preset_by_id;

fn run(h: f64, width: f32, height: f32, secs: f64) {
    let floor = 2.0 * h;
    let sand = preset_by_id("dry_sand").expect("dry sand").material;
    let mut params = common::params(1, h, 1e-4);
    params.grid.cells = UVec3::new((0.6 / h) as u32, 2, ((height as f64 + 0.02) / h).ceil() as u32 + 2);
    params.material = sand;
    params.boundary = Boundary { kind: BoundaryKind::Slip, friction: 0.0 };
    params.fixed_point = powder::sim::fixed_point::FixedPoint::for_scene(sand.density, h, params.max_speed);
    let ps = common::block(Vec3::new(0.0, 0.0, floor as f32), Vec3::new(width, (2.0 * h) as f32, floor as f32 + height), h as f32, sand.density as f32, |_| Vec3::ZERO);
    let settings: PbmpmSettings = std::env::var("PBSET").ok().map(|s| serde_json::from_str(&s).unwrap()).unwrap_or_default();
    let mut s = PbmpmCpu::new(params, settings, &ps).unwrap();
    s.colliders = Some(common::sticky_floor(&params, floor));
    let frames = (secs * 60.0).round() as u32;
    let t0 = std::time::Instant::now();
    for f in 0..frames {
        let (steps, _) = s.advance_frame(1.0 / 60.0);
        if f % 12 == 11 {
            let mut xs: Vec<f64> = s.particles.iter().map(|p| p.position.x).collect();
            xs.sort_by(f64::total_cmp);
            let front = xs[(xs.len() as f64 * 0.995) as usize];
            let ke: f64 = s.particles.iter().map(|p| 0.5 * p.mass * p.velocity.norm_squared()).sum();
            let zmean = s.particles.iter().map(|p| p.position.z - floor).sum::<f64>() / s.particles.len() as f64;
            let a = (height / width) as f64;
            let lube = if a < 1.8 { 1.2 * a } else { 1.9 * a.powf(2.0 / 3.0) };
            let runout = (front - width as f64) / width as f64;
            eprintln!("t {:.2} steps {steps} runout {runout:.3} (/lube {:.2}) zmean {zmean:.4} ke {ke:.2e} cg {:?} wall {:.1}s", (f + 1) as f64 / 60.0, runout / lube, s.last_solve, t0.elapsed().as_secs_f64());
        }
    }
}

#[test]
fn pbsand() {
    let h: f64 = std::env::var("H").ok().map(|s| s.parse().unwrap()).unwrap_or(1.0 / 64.0);
    let a: f32 = std::env::var("A").ok().map(|s| s.parse().unwrap()).unwrap_or(1.0);
    let w = 0.1f32;
    run(h, w, a * w, 1.2);
}
