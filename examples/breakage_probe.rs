//! Runs a scene on the CPU twin (f64, one thread, no GPU) and prints the pieces the snow is in
//! after each frame: a quick way to try material settings at small resolutions.
//!
//! `cargo run --release --example breakage_probe -- SCENE|default RESOLUTION FRAMES [KEY=VALUE ...]`
//!
//! KEY=VALUE are scene overrides as for `powder run --set`; `integrator.kind=pbmpm` runs the
//! PB-MPM twin. Each substep's dt is the stable one of
//! the state it steps (from the particles' fastest speed and stiffest hardening), as `powder run`
//! chooses it.

use powder::fragments::{LINK_FACTOR, find_fragments};
use powder::runner::plan_frame;
use powder::scene::{Scene, TimeStep};
use powder::sim::cpu::CpuSolver;
use powder::sim::explicit::clock::FrameStep;
use powder::sim::integrator::Integrator;
use powder::sim::params::MAX_SUBSTEPS_PER_FRAME;
use powder::sim::pbmpm::cpu::PbmpmCpu;

/// The CPU twin of the scene's integrator.
enum Twin {
    Explicit(CpuSolver),
    Pbmpm(PbmpmCpu),
}

/// A frame of the scene as `powder run` steps it ([`powder::runner::advance`]): substeps of the
/// stable dt of the state each steps under `"dt": "auto"`, else whole substeps of the fixed dt.
fn frame_step(scene: &Scene) -> FrameStep {
    match scene.time.dt {
        TimeStep::Auto => FrameStep::Auto { max_substeps: MAX_SUBSTEPS_PER_FRAME },
        TimeStep::Fixed(_) => {
            let (substeps, dt, _) = plan_frame(scene.frame_duration(), scene.time.dt, f64::INFINITY);
            FrameStep::Fixed { dt, substeps }
        }
    }
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    anyhow::ensure!(args.len() >= 3, "usage: breakage_probe SCENE|default RESOLUTION FRAMES [KEY=VALUE ...]");
    let mut scene = if args[0] == "default" { Scene::builtin_default() } else { Scene::open(args[0].as_ref())? };
    scene.set_value("grid.resolution", &args[1], "--resolution")?;
    for kv in &args[3..] {
        let (k, v) = kv.split_once('=').ok_or_else(|| anyhow::anyhow!("{kv}: expected KEY=VALUE"))?;
        scene.set_value(k, v, kv)?;
    }
    let frames: u32 = args[2].parse()?;
    let particles = scene.spawn_particles()?;
    let link = LINK_FACTOR * scene.particle_spacing();
    let mut solver = match scene.integrator {
        Integrator::Explicit => Twin::Explicit(CpuSolver::new(scene.solver_params(), &particles)),
        Integrator::Pbmpm(settings) => Twin::Pbmpm(PbmpmCpu::new(scene.solver_params(), settings, &particles)?),
        Integrator::Flip(_) => anyhow::bail!("the probe counts snow's fragments: a water scene has none"),
    };
    println!("{} particles, link {link:.4} m, {} integrator", particles.len(), scene.integrator.name());
    let mut substeps = 0u64;
    for frame in 1..=frames {
        let (gpu, cpu) = match &mut solver {
            Twin::Explicit(s) => {
                substeps += s.step_span(scene.frame_duration(), frame_step(&scene)).substeps as u64;
                (s.gpu_particles(), &s.particles)
            }
            Twin::Pbmpm(s) => {
                substeps += s.advance_frame(scene.frame_duration()).0 as u64;
                (s.gpu_particles(), &s.particles)
            }
        };
        let positions: Vec<[f32; 3]> = gpu.iter().map(|p| p.position).collect();
        let f = find_fragments(&positions, None, link)?;
        let jp: Vec<f64> = cpu.iter().map(|p| p.plastic_jacobian).collect();
        let n = cpu.len() as f64;
        let com = cpu.iter().fold(nalgebra::Vector3::zeros(), |a, p| a + p.position) / n;
        let (lo, hi) = jp.iter().fold((f64::MAX, f64::MIN), |(a, b), &j| (a.min(j), b.max(j)));
        let cracked = cpu.iter().filter(|p| p.damage > 0.0).count();
        let com = format!("({:.3}, {:.3}, {:.3}), {cracked} cracked", com.x, com.y, com.z);
        println!("frame {frame:3} ({substeps} substeps, Jp {lo:.2}..{hi:.2}, centre {com}): {}", f.summary());
    }
    Ok(())
}
