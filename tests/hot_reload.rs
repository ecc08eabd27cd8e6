//! Shader hot reload: an edited shader file takes effect; a broken one is refused with naga's
//! message, naming the pass, and the previous kernels keep running.

mod common;

use std::path::Path;

use glam::Vec3;
use powder::sim::Solver;
use powder::sim::shaders::source_dir;

fn copy_shaders(to: &Path) {
    for sub in ["mpm", "mpm/explicit", "mpm/pbmpm"] {
        std::fs::create_dir_all(to.join(sub)).expect("dir");
        for entry in std::fs::read_dir(source_dir().join(sub)).expect("shader folder") {
            let entry = entry.expect("entry");
            if entry.file_type().expect("file type").is_file() {
                std::fs::copy(entry.path(), to.join(sub).join(entry.file_name())).expect("copy");
            }
        }
    }
}

fn mean_vz(solver: &Solver, gpu: &powder::gpu::Gpu) -> f64 {
    let ps = solver.read_particles(gpu).expect("particles");
    ps.iter().map(|p| p.velocity[2] as f64).sum::<f64>() / ps.len() as f64
}

#[test]
fn an_edit_takes_effect_and_a_broken_edit_keeps_the_last_good_kernels() {
    let gpu = common::gpu();
    let dir = tempfile::tempdir().expect("temp dir");
    copy_shaders(dir.path());
    let h = 1.0 / 16.0;
    let dt = 1e-3;
    let particles = common::block(Vec3::splat(0.4), Vec3::splat(0.6), h as f32, 400.0, |_| Vec3::ZERO);
    let mut solver = Solver::new(&gpu, common::params(16, h, dt), &particles).expect("solver");

    // Unchanged files reload cleanly and behave as the embedded ones: free fall, vz = −g·dt·n.
    solver.reload_kernels(&gpu, dir.path()).expect("the shipped shaders reload");
    solver.step(&gpu, 10);
    let falling = mean_vz(&solver, &gpu);
    assert!((falling + 9.81 * dt * 10.0).abs() < 1e-4, "vz {falling}");

    // An edit that switches gravity off in the node update both grid update passes share: after
    // reloading, the velocity stops changing.
    let update = dir.path().join("mpm/grid_node.wgsl");
    let text = std::fs::read_to_string(&update).expect("read");
    assert!(text.contains("substep_dt() * params.gravity"));
    std::fs::write(&update, text.replace("substep_dt() * params.gravity", "substep_dt() * params.gravity * 0.0"))
        .expect("write");
    solver.reload_kernels(&gpu, dir.path()).expect("the edited shader compiles");
    solver.step(&gpu, 10);
    let coasting = mean_vz(&solver, &gpu);
    assert!((coasting - falling).abs() < 1e-5, "gravity still acts: {falling} → {coasting}");

    // A broken edit: refused with naga's message naming the pass, and the edited-but-good kernels
    // (no gravity) keep running.
    let p2g = dir.path().join("mpm/explicit/p2g.wgsl");
    let text = std::fs::read_to_string(&p2g).expect("read");
    let call = "grid_scatter(p, scatter_affine(p, index));";
    assert!(text.contains(call), "p2g.wgsl no longer has the line this test breaks");
    std::fs::write(&p2g, text.replace(call, "grid_scatter(p, scatter_affine(p.no_such_field, index));"))
        .expect("write");
    let err = solver.reload_kernels(&gpu, dir.path()).expect_err("a broken shader is refused");
    let message = err.to_string();
    assert!(message.contains("p2g") && message.contains("no_such_field"), "{message}");
    solver.step(&gpu, 10);
    let still = mean_vz(&solver, &gpu);
    assert!((still - falling).abs() < 1e-5, "the last good kernels did not keep running: {still}");
}

/// Renders an empty scene (sky and ground) offscreen at 64 × 48 and returns the RGBA pixels.
fn render_empty(gpu: &powder::gpu::Gpu, renderer: &mut powder::render::Renderer, solver: &Solver) -> Vec<u8> {
    use powder::render::{Camera, OffscreenTarget, RenderSettings};
    let target = OffscreenTarget::new(&gpu.device, 64, 48, wgpu::TextureFormat::Rgba8UnormSrgb);
    let camera = Camera::default();
    let settings = RenderSettings::default();
    let inputs = common::frame_inputs(solver, &camera, &settings, 0, 0.01);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    renderer.render(&gpu.device, &gpu.queue, &mut encoder, target.view(), &inputs);
    gpu.queue.submit([encoder.finish()]);
    target.read_rgba(gpu).expect("readback")
}

#[test]
fn render_shaders_reload_and_a_broken_one_keeps_the_last_good_pipelines() {
    let gpu = common::gpu();
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(dir.path().join("render")).expect("dir");
    copy_shaders(dir.path());
    for entry in std::fs::read_dir(source_dir().join("render")).expect("shaders/render") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), dir.path().join("render").join(entry.file_name())).expect("copy");
    }
    let h = 1.0 / 16.0;
    let particles = common::block(Vec3::splat(0.4), Vec3::splat(0.6), h as f32, 400.0, |_| Vec3::ZERO);
    let solver = Solver::new(&gpu, common::params(16, h, 1e-3), &particles).expect("solver");
    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    let mut renderer = powder::render::Renderer::new(&gpu.device, format, 1);
    let before = render_empty(&gpu, &mut renderer, &solver);
    renderer.reload_shaders(&gpu.device, dir.path()).expect("the shipped render shaders reload");
    assert_eq!(render_empty(&gpu, &mut renderer, &solver), before, "unchanged files draw the same image");

    // An edit: every pass writes black (radiance scaled by zero before tone mapping).
    let types = dir.path().join("render/types.wgsl");
    let text = std::fs::read_to_string(&types).expect("read");
    let exposed = "tonemap(radiance * frame.exposure)";
    assert!(text.contains(exposed));
    std::fs::write(&types, text.replace(exposed, "tonemap(radiance * frame.exposure * 0.0)")).expect("write");
    renderer.reload_shaders(&gpu.device, dir.path()).expect("the edit compiles");
    let black = render_empty(&gpu, &mut renderer, &solver);
    let max_rgb = |px: &[u8]| px.chunks(4).flat_map(|c| c[..3].iter().copied()).max().unwrap_or(0);
    assert!(
        max_rgb(&before) > 100 && max_rgb(&black) == 0,
        "the edit took effect: max {} → {}",
        max_rgb(&before),
        max_rgb(&black)
    );

    // A broken edit is refused with naga's message naming the stage; the black pipelines stay.
    let env = dir.path().join("render/environment.wgsl");
    let text = std::fs::read_to_string(&env).expect("read");
    std::fs::write(&env, format!("{text}\nfn broken() -> f32 {{ return frame.no_such_field; }}\n")).expect("write");
    let message = renderer.reload_shaders(&gpu.device, dir.path()).expect_err("refused").to_string();
    assert!(message.contains("environment") && message.contains("no_such_field"), "{message}");
    assert_eq!(render_empty(&gpu, &mut renderer, &solver), black, "the last good pipelines keep drawing");
}
