//! The density volume's resolve on lavapipe against a march over the whole volume on the host.
//!
//! The resolve sums fill toward the sun and straight up only through the occupied box (the
//! splat's bounding box of the voxels holding snow). That is exact only if the box really holds
//! every voxel with fill; this test checks the box, then every voxel's three channels against the
//! plain march of the volume's first version, which visited every voxel on the way out.

mod common;

use glam::{UVec3, Vec3};
use powder::render::volume_splat::{VOLUME_FIXED_SCALE, VolumeContents};
use powder::render::{Camera, FrameInputs, OffscreenTarget, RenderMode, RenderSettings, Renderer};
use powder::sim::Solver;

/// Cell size of the test domain (the unit cube, 32 cells per axis); particles sit h/2 apart, and
/// with an impostor radius of h/4 a voxel is one cell.
const H: f32 = 1.0 / 32.0;

/// Two blocks, a tall one and a slab floating beside it: one shadows the other, the box is larger
/// than each and smaller than the volume, so sun rays start outside it, cross it, or miss it.
fn scene() -> Vec<powder::sim::params::GpuParticle> {
    let still = |_| Vec3::ZERO;
    let mut particles = common::block(Vec3::new(0.2, 0.3, 0.0), Vec3::new(0.4, 0.5, 0.6), H, 400.0, still);
    particles.extend(common::block(Vec3::new(0.5, 0.25, 0.7), Vec3::new(0.8, 0.45, 0.8), H, 400.0, still));
    particles
}

/// [`scene`]'s blocks flying along +x at 3 m/s: about a voxel (one cell, 3.1 cm) in 100 substeps
/// of 1e-4 s, in a solver of that dt.
fn flying_scene(gpu: &powder::gpu::Gpu) -> Solver {
    let particles: Vec<_> = scene()
        .into_iter()
        .map(|mut p| {
            p.velocity = [3.0, 0.0, 0.0];
            p
        })
        .collect();
    Solver::new(gpu, common::params(32, H as f64, 1e-4), &particles).expect("solver")
}

/// Renders `settings` of `solver` with the motion bound `moved` and returns the volume's fill sums.
fn render_sums(
    gpu: &powder::gpu::Gpu,
    renderer: &mut Renderer,
    solver: &Solver,
    settings: &RenderSettings,
    moved: Option<f32>,
) -> Vec<u32> {
    let target = OffscreenTarget::new(&gpu.device, 64, 48, wgpu::TextureFormat::Rgba8UnormSrgb);
    let camera = Camera { target: Vec3::splat(0.5), distance: 2.0, ..Camera::default() };
    let inputs = inputs(solver, &camera, settings, moved);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    renderer.render(&gpu.device, &gpu.queue, &mut encoder, target.view(), &inputs);
    gpu.queue.submit([encoder.finish()]);
    renderer.read_volume(gpu).expect("volume readback").sums
}

/// A frame of all of `solver`'s particles, drawn as impostors of radius h/4: a voxel is one cell.
fn inputs<'a>(
    solver: &'a Solver,
    camera: &'a Camera,
    settings: &'a RenderSettings,
    moved: Option<f32>,
) -> FrameInputs<'a> {
    FrameInputs { moved, ..common::frame_inputs(solver, camera, settings, solver.particle_count(), 0.25 * H) }
}

/// Renders one frame with the sun along `sun` and returns the volume it left.
fn resolve(sun: Vec3) -> (VolumeContents, Vec3) {
    let gpu = common::gpu();
    let particles = scene();
    let solver = Solver::new(&gpu, common::params(32, H as f64, 1e-4), &particles).expect("solver");
    let target = OffscreenTarget::new(&gpu.device, 64, 48, wgpu::TextureFormat::Rgba8UnormSrgb);
    let mut renderer = Renderer::new(&gpu.device, target.format(), 1);
    renderer.set_sun_direction(sun);
    let settings = RenderSettings { mode: RenderMode::Both, ..Default::default() };
    let camera = Camera { target: Vec3::splat(0.5), distance: 2.0, ..Camera::default() };
    let inputs = inputs(&solver, &camera, &settings, None);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    renderer.render(&gpu.device, &gpu.queue, &mut encoder, target.view(), &inputs);
    gpu.queue.submit([encoder.finish()]);
    (renderer.read_volume(&gpu).expect("volume readback"), renderer.sun_direction())
}

/// The three channels of every voxel as the first resolve computed them: from the voxel's centre,
/// one voxel per step toward the sun (nearest voxel) until the ray leaves the volume, and every
/// voxel above; half the voxel's own fill in both.
fn full_march(v: &VolumeContents, sun: Vec3) -> Vec<[f32; 3]> {
    let d = v.dims;
    let index = |p: UVec3| (p.x + d.x * (p.y + d.y * p.z)) as usize;
    let fill = |p: UVec3| v.sums[index(p)] as f32 / VOLUME_FIXED_SCALE;
    let mut out = Vec::with_capacity(v.sums.len());
    for z in 0..d.z {
        for y in 0..d.y {
            for x in 0..d.x {
                let id = UVec3::new(x, y, z);
                let own = fill(id);
                let centre = id.as_vec3() + 0.5;
                let mut sun_path = 0.5 * own;
                for k in 1.. {
                    let p = centre + k as f32 * sun;
                    if p.cmplt(Vec3::ZERO).any() || p.cmpge(d.as_vec3()).any() {
                        break;
                    }
                    sun_path += fill(p.as_uvec3());
                }
                let up_path = 0.5 * own + (z + 1..d.z).map(|above| fill(UVec3::new(x, y, above))).sum::<f32>();
                out.push([own, sun_path, up_path]);
            }
        }
    }
    out
}

#[test]
fn the_resolve_through_the_occupied_box_matches_a_march_through_the_whole_volume() {
    for sun in [Vec3::new(0.5, -0.3, 0.8), Vec3::new(-0.7, 0.2, 0.3), Vec3::Z, Vec3::new(0.0, 1.0, 0.05)] {
        let (volume, sun) = resolve(sun);
        assert_eq!(volume.dims, UVec3::splat(32), "one voxel per cell");
        let d = volume.dims;

        // Every voxel with fill lies in the box, and the box is at most a voxel larger than them
        // (the splat widens it by the corners a particle touches, which may receive nothing).
        let [lo_x, lo_y, lo_z, hi_x, hi_y, hi_z] = volume.occupied;
        let (lo, hi) = (UVec3::new(lo_x, lo_y, lo_z), UVec3::new(hi_x, hi_y, hi_z));
        let (mut fill_lo, mut fill_hi) = (UVec3::MAX, UVec3::ZERO);
        for (i, &sum) in volume.sums.iter().enumerate() {
            if sum > 0 {
                let i = i as u32;
                let p = UVec3::new(i % d.x, (i / d.x) % d.y, i / (d.x * d.y));
                (fill_lo, fill_hi) = (fill_lo.min(p), fill_hi.max(p));
            }
        }
        println!("sun {sun}: fill in {fill_lo}..={fill_hi}, occupied box {lo}..={hi}");
        assert!(lo.cmple(fill_lo).all() && hi.cmpge(fill_hi).all(), "voxels with fill outside the box");
        assert!((fill_lo - lo).max_element() <= 1 && (hi - fill_hi).max_element() <= 1, "box too large");
        assert!(hi.z < d.z - 4 && hi.x < d.x - 4 && (lo.x > 4 || lo.y > 4), "box is the volume");

        // The texture holds f16, 11 significant bits: one unit in the last place is at most 2⁻¹⁰
        // of the value, and Vulkan lets a storage write round to nearest or toward zero, so a
        // whole unit is allowed. The sums themselves are f32 additions of the same terms in the
        // same order, so they agree far more closely than that.
        let want = full_march(&volume, sun);
        let mut worst = 0.0f32;
        let mut shadowed = 0;
        for (i, (got, want)) in volume.texels.iter().zip(&want).enumerate() {
            for c in 0..3 {
                let error = (got[c] - want[c]).abs();
                let allowed = want[c].abs() * 2f32.powi(-10) + 1e-6;
                worst = worst.max(error / allowed);
                assert!(error <= allowed, "voxel {i} channel {c}: resolve {} against full march {}", got[c], want[c]);
            }
            shadowed += usize::from(want[1] - 0.5 * want[0] > 0.5);
        }
        println!("worst error {worst:.3} of the allowed; {shadowed} voxels shadowed by another's fill");
        assert!(shadowed > 1000, "the scene should shadow much of the volume: {shadowed} voxels");
    }
}

/// The renderer reuses its volume while the frames' motion bounds (`FrameInputs::moved`) sum to
/// less than half a voxel (`VOLUME_REUSE_VOXELS`), and splats it again beyond that or when the
/// bound is unknown. The sums are integers, so reuse and a fresh splat are told apart exactly.
#[test]
fn the_volume_is_splatted_again_once_the_snow_may_have_moved_half_a_voxel() {
    use powder::render::VOLUME_REUSE_VOXELS;
    let gpu = common::gpu();
    let solver = flying_scene(&gpu);
    let settings = RenderSettings { mode: RenderMode::Both, ..Default::default() };
    let render = |renderer: &mut Renderer, moved: Option<f32>| render_sums(&gpu, renderer, &solver, &settings, moved);
    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    let mut renderer = Renderer::new(&gpu.device, format, 1);
    let before = render(&mut renderer, None);
    solver.step(&gpu, 100);
    let fresh = render(&mut Renderer::new(&gpu.device, format, 1), None);
    assert_ne!(before, fresh, "the snow must have moved for this test to tell reuse from a splat");
    // A voxel is one cell here (particle radius h/4, four radii per voxel edge).
    let limit = VOLUME_REUSE_VOXELS * H;
    assert_eq!(render(&mut renderer, Some(0.6 * limit)), before, "under the limit: the volume is reused");
    assert_eq!(render(&mut renderer, Some(0.3 * limit)), before, "0.9 of the limit in all: still reused");
    assert_eq!(render(&mut renderer, Some(0.2 * limit)), fresh, "1.1 of the limit: splatted again");
    // Counting restarts at the splat: the snow moves on, and 0.95 of the limit since the splat
    // (2.05 since the first frame) still reuses the volume. An unknown bound always splats.
    solver.step(&gpu, 100);
    assert_eq!(render(&mut renderer, Some(0.95 * limit)), fresh, "reused: 0.95 of the limit since the splat");
    let moved_on = render(&mut renderer, None);
    assert_ne!(moved_on, fresh, "an unknown bound splats the moved snow");
}

/// The colour field rides along in the volume (channel a = fill × the field's value), so the
/// surface and the volume view show it: each voxel's a / r against the fill-weighted mean of its
/// particles' values computed here with the splat's tent weights, for the speed field with the
/// two blocks at different speeds (and a change of field splats again).
#[test]
fn the_volume_carries_the_fill_weighted_colour_field() {
    use powder::render::ColorField;
    let gpu = common::gpu();
    // Particles below x = 0.3 (half the tall block) at 2 m/s, the rest at 6 m/s: values 0.2 and
    // 0.6 of the 10 m/s scale, mixed in the voxels around x = 0.3.
    let particles: Vec<_> = scene()
        .into_iter()
        .map(|mut p| {
            p.velocity = if p.position[0] < 0.3 { [2.0, 0.0, 0.0] } else { [0.0, 6.0, 0.0] };
            p
        })
        .collect();
    let solver = Solver::new(&gpu, common::params(32, H as f64, 1e-4), &particles).expect("solver");
    let target = OffscreenTarget::new(&gpu.device, 64, 48, wgpu::TextureFormat::Rgba8UnormSrgb);
    let camera = Camera { target: Vec3::splat(0.5), distance: 2.0, ..Camera::default() };
    let mut renderer = Renderer::new(&gpu.device, target.format(), 1);
    let mut render = |color_field| {
        let settings =
            RenderSettings { mode: RenderMode::Surface, color_field, speed_scale: 10.0, ..Default::default() };
        // A zero motion bound: only the change of colour field can make this frame splat again.
        let inputs = inputs(&solver, &camera, &settings, Some(0.0));
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        renderer.render(&gpu.device, &gpu.queue, &mut encoder, target.view(), &inputs);
        gpu.queue.submit([encoder.finish()]);
        renderer.read_volume(&gpu).expect("volume readback")
    };
    let snow = render(ColorField::Snow);
    assert!(snow.field.iter().all(|&s| s == 0), "plain snow carries no field");
    let volume = render(ColorField::Speed);
    let d = volume.dims;
    // The splat's weights, in f64: Σ fill·value and Σ fill per voxel.
    let mut weighted = vec![(0.0f64, 0.0f64); volume.sums.len()];
    for p in &particles {
        let g = ((Vec3::from(p.position) / H) - 0.5).clamp(Vec3::ZERO, (d - 1).as_vec3());
        let base = g.as_uvec3().min(d - 1);
        let f = g - base.as_vec3();
        let value = (Vec3::from(p.velocity).length() / 10.0) as f64;
        for corner in 0..8u32 {
            let o = UVec3::new(corner & 1, (corner >> 1) & 1, corner >> 2);
            let cell = (base + o).min(d - 1);
            let w = Vec3::select(o.cmpeq(UVec3::ONE), f, 1.0 - f);
            let fill = (p.volume / (H * H * H) * w.x * w.y * w.z) as f64;
            let i = (cell.x + d.x * (cell.y + d.y * cell.z)) as usize;
            weighted[i].0 += fill * value;
            weighted[i].1 += fill;
        }
    }
    let (mut checked, mut mixed) = (0, 0);
    for (i, (texel, &(sum, fill))) in volume.texels.iter().zip(&weighted).enumerate() {
        // Voxels with at least a tenth of rest fill: below that the ratio of two f16s is noisy.
        if fill < 0.1 {
            continue;
        }
        let want = sum / fill;
        let got = (texel[3] / texel[0]) as f64;
        // Each of a and r is an f16 (2⁻¹⁰ relative, as above), and the splat rounds each
        // contribution to a fixed-point unit (10⁻⁶): 3·2⁻¹⁰ of the value covers the ratio.
        assert!((got - want).abs() <= 3.0 * 2f64.powi(-10) * want + 1e-5, "voxel {i}: field {got}, expected {want}");
        checked += 1;
        mixed += usize::from(want > 0.21 && want < 0.59);
    }
    println!("{checked} voxels checked, {mixed} mixing the two speeds");
    assert!(checked > 500 && mixed > 0, "{checked} voxels, {mixed} mixed");
}

/// The speed scale is part of what the volume holds only in the speed field: with a zero motion
/// bound, changing it splats again in the speed field (the field's values change) and reuses the
/// volume in the others (snow, Jp). The snow has moved since the first splat, so a reused volume
/// and a fresh splat differ.
#[test]
fn the_speed_scale_splats_again_only_in_the_speed_field() {
    use powder::render::ColorField;
    let gpu = common::gpu();
    let solver = flying_scene(&gpu);
    for field in [ColorField::Snow, ColorField::PlasticJacobian, ColorField::Speed] {
        let mut renderer = Renderer::new(&gpu.device, wgpu::TextureFormat::Rgba8UnormSrgb, 1);
        let mut render = |speed_scale: f32, moved: Option<f32>| {
            let settings =
                RenderSettings { mode: RenderMode::Surface, color_field: field, speed_scale, ..Default::default() };
            render_sums(&gpu, &mut renderer, &solver, &settings, moved)
        };
        let first = render(10.0, None);
        solver.step(&gpu, 100);
        let after = render(20.0, Some(0.0));
        let differing = after.iter().zip(&first).filter(|(a, b)| a != b).count();
        if field == ColorField::Speed {
            assert!(differing > 0, "{field:?}: a new speed scale splats the moved snow");
        } else {
            assert_eq!(differing, 0, "{field:?}: the speed scale changes nothing in the volume: reused");
        }
    }
}
