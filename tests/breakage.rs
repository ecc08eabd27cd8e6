//! Snow breaks into pieces of many sizes: two snowballs collide head-on (the shipped
//! `scenes/snowball_collision.json`, without gravity, at resolution 20 so that it runs in seconds),
//! counted with the fragment counter 14 frames (0.23 s) in, after the collision. This runs on the
//! CPU twin, which `tests/gpu_vs_cpu.rs` checks the GPU passes against, cracking included (and
//! docs/breakage.md shows both giving the same pieces on the wall scene).
//!
//! Numbers measured for this test (`cargo run --example breakage_probe --
//! scenes/snowball_collision.json 20 14 gravity.z=0 [material.critical_stretch=0.025]`): the
//! reference snow ends in 58 pieces, 14 of at least 0.5 % of the mass, the largest 41.4 % (then
//! 34.8, 3.8, 3.3, 1.4, 1.1 %); with θs = 0.025, 14 pieces, 2 of them chunks, the largest 49.5 %;
//! without cracking (`material.tensile_strength=0`) the two balls bounce apart whole.

use powder::fragments::{Fragments, LINK_FACTOR, find_fragments};
use powder::scene::Scene;
use powder::sim::cpu::CpuSolver;

/// The collision scene at resolution 20 with `overrides`, run 14 frames on the CPU twin.
fn pieces_after_collision(overrides: &[(&str, &str)]) -> Fragments {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/snowball_collision.json");
    let mut scene = Scene::load(path.as_ref()).expect("shipped scene");
    for (key, value) in [("grid.resolution", "20"), ("gravity.z", "0")].iter().chain(overrides) {
        scene.set_value(key, value, "test").expect("override");
    }
    let particles = scene.spawn_particles().expect("particles");
    let mut solver = CpuSolver::new(scene.solver_params(), &particles);
    for _ in 0..14 {
        solver.advance_frame(scene.frame_duration(), scene.time.dt, scene.time.cfl);
    }
    let positions: Vec<[f32; 3]> = solver.gpu_particles().iter().map(|p| p.position).collect();
    find_fragments(&positions, None, LINK_FACTOR * scene.particle_spacing()).expect("fragments")
}

/// Pieces holding between 1 % and 10 % of the snow: neither crumbs nor a ball.
fn intermediate(f: &Fragments) -> usize {
    f.shares().iter().filter(|&&s| (0.01..=0.10).contains(&s)).count()
}

#[test]
fn reference_snow_breaks_into_pieces_of_many_sizes_and_stronger_snow_into_fewer() {
    let reference = pieces_after_collision(&[]);
    eprintln!("reference snow: {}", reference.summary());
    // Measured 14 chunks, largest 41.4 %, 6 pieces in [1 %, 10 %]. The bounds sit well inside the
    // outcome of uncracked snow (2 chunks of ~50 %) and leave room for rounding-level changes.
    assert!(reference.significant() >= 5, "chunks: {}", reference.summary());
    assert!(reference.largest_share() < 0.48, "largest: {}", reference.summary());
    assert!(intermediate(&reference) >= 3, "intermediate pieces: {}", reference.summary());

    let tougher = pieces_after_collision(&[("material.critical_stretch", "0.025")]);
    eprintln!("θs = 0.025: {}", tougher.summary());
    // Fewer, larger pieces: measured 2 chunks, largest 49.5 %.
    assert!(tougher.significant() < reference.significant(), "{}", tougher.summary());
    assert!(tougher.largest_share() > reference.largest_share(), "{}", tougher.summary());
}
