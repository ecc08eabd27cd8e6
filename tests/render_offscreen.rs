//! The renderer drawing real scenes offscreen on lavapipe, checked pixel by pixel: snow where the
//! particles project, sky and ground elsewhere, impostors cut by the ground plane, the speed colour
//! field, the density volume, output formats and the PNG round trip. Collider meshes:
//! `tests/render_meshes.rs`.

mod common;

use common::offscreen::*;
use glam::{Vec2, Vec3};
use powder::render::{Camera, ColorField, OffscreenTarget, RenderError, RenderMode, RenderSettings, Renderer};
use powder::sim::Solver;

#[test]
fn a_block_of_snow_shows_as_snow_where_it_projects_and_nowhere_else() {
    let gpu = common::gpu();
    let solver = solver(&gpu, BLOCK, Vec3::ZERO);
    let camera = camera_on(BLOCK);
    let hull = projected_area(&camera, BLOCK) / (WIDTH * HEIGHT) as f32;
    let centre = project(&camera, 0.5 * (BLOCK.0 + BLOCK.1));
    for samples in [1, 4] {
        let (image, _, drawn) = render_counting(&gpu, &solver, &camera, &Options { samples, ..Default::default() });
        // Culling keeps the three faces in view, 2 to 8 particle layers deep (19 × 19 particles a
        // layer), and drops the buried core.
        let total = solver.particle_count();
        println!("{samples}x: drew {drawn} of {total} particles");
        assert!(drawn > 3 * 2 * 19 * 19 - 3 * 2 * 19 && drawn < total, "drew {drawn} of {total} particles");
        let at_centre = image.mean(centre, 2);
        assert!(is_snow(at_centre), "{samples}x: the block's centre is {at_centre}, not snow");
        assert!(at_centre.min_element() > 0.8, "{samples}x: lit snow should be bright: {at_centre}");
        // Far from the block: sky at the top corners, ground at the bottom ones.
        for (x, y) in [(4, 4), (WIDTH - 5, 4)] {
            let sky = image.mean(Vec2::new(x as f32, y as f32), 2);
            assert!(!is_snow(sky) && sky.z > sky.x && saturation(sky) > 0.1, "{samples}x: sky at ({x}, {y}) is {sky}");
        }
        for (x, y) in [(4, HEIGHT - 5), (WIDTH - 5, HEIGHT - 5)] {
            let ground = image.mean(Vec2::new(x as f32, y as f32), 2);
            assert!(!is_snow(ground) && ground.max_element() < 0.55, "{samples}x: ground at ({x}, {y}) is {ground}");
        }
        // The impostors fill the block's silhouette but for the gaps between spheres at its rim and
        // the shaded undersides of the spheres: 85–102 % of the hull (measured 93–95 %).
        let fraction = image.snow_fraction();
        let ratio = fraction / hull;
        println!("{samples}x: centre {at_centre}, snow fraction {fraction:.4}, hull {hull:.4}, ratio {ratio:.3}");
        assert!((0.85..1.02).contains(&ratio), "{samples}x: snow covers {fraction:.4} of the image, hull {hull:.4}");
    }
}

#[test]
fn buried_particles_are_culled_where_the_volume_is_coarser_than_four_radii() {
    // A grid of 200 × 40 × 40 cells of 5 mm: particles of radius 1.25 mm, but at most 128 voxels
    // along the 1 m axis, so a voxel is 6.25 radii, not 4. Impostors at scale 1 leave no gaps, so
    // the core of a 12 cm block (48³ = 110,592 particles) must still be culled. Before the gap test
    // was tied to the radius it compared r with the voxel (r < 0.2 voxel) and every particle was
    // drawn.
    let gpu = common::gpu();
    let h = 1.0 / 200.0;
    let mut params = common::params(40, h as f64, 1e-4);
    params.grid.cells = glam::UVec3::new(200, 40, 40);
    let lo = Vec3::new(0.44, 0.04, 0.02);
    let hi = lo + Vec3::splat(48.0 * 0.5 * h);
    let particles = common::block(lo, hi, h, 400.0, |_| Vec3::ZERO);
    assert_eq!(particles.len(), 48 * 48 * 48);
    let solver = Solver::new(&gpu, params, &particles).expect("solver");
    let camera = camera_on((lo, hi));
    let settings = RenderSettings { mode: RenderMode::Particles, ..Default::default() };
    let target = OffscreenTarget::new(&gpu.device, WIDTH, HEIGHT, wgpu::TextureFormat::Rgba8UnormSrgb);
    let mut renderer = Renderer::new(&gpu.device, target.format(), 1);
    let inputs = common::frame_inputs(&solver, &camera, &settings, solver.particle_count(), 0.25 * h);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    renderer.render(&gpu.device, &gpu.queue, &mut encoder, target.view(), &inputs);
    gpu.queue.submit([encoder.finish()]);
    let drawn = renderer.drawn_particle_count(&gpu).expect("drawn");
    // Three faces in view, each 48 × 48 particles: at least one layer of them is drawn; with
    // voxels of 6.25 radii (about 3 particle layers), four dense voxels toward the eye bury
    // everything more than about 13 layers deep, so well under the whole block is drawn.
    println!("drew {drawn} of {} particles", particles.len());
    assert!(drawn >= 3 * 48 * 48 - 3 * 48, "only {drawn} drawn: the faces must show");
    assert!(drawn < particles.len() as u32 * 3 / 4, "drew {drawn} of {}: the core was not culled", particles.len());
}

#[test]
fn the_ground_hides_the_lower_half_of_a_half_buried_block() {
    let gpu = common::gpu();
    let buried = (Vec3::new(0.35, 0.35, -0.15), Vec3::new(0.65, 0.65, 0.15));
    let above = (Vec3::new(0.35, 0.35, 0.0), buried.1);
    let solver = solver(&gpu, buried, Vec3::ZERO);
    let camera = camera_on(above);
    let (image, _) = render(&gpu, &solver, &camera, &Options::default());
    let (background, _) = render(&gpu, &solver, &camera, &Options { particle_count: Some(0), ..Default::default() });
    // The face nearest the camera (+x): its upper half is snow, its lower half is the ground in
    // front of it, unchanged from the empty scene.
    let face = |z: f32| project(&camera, Vec3::new(0.65, 0.5, z));
    let upper = image.mean(face(0.075), 1);
    assert!(is_snow(upper), "upper half of the near face is {upper}");
    let lower = image.mean(face(-0.075), 1);
    let empty = background.mean(face(-0.075), 1);
    assert!(!is_snow(lower) && (lower - empty).abs().max_element() < 0.02, "lower half {lower} vs ground {empty}");
    // Only the part above the ground shows: its hull, not the whole block's (which is 1.6× larger).
    let hull = projected_area(&camera, above) / (WIDTH * HEIGHT) as f32;
    let ratio = image.snow_fraction() / hull;
    println!("upper half {upper}, lower half {lower} (empty ground {empty}), snow / upper hull {ratio:.3}");
    assert!((0.85..1.05).contains(&ratio), "snow covers {ratio:.3} of the upper half's hull");
}

#[test]
fn the_speed_field_colours_a_moving_block_unlike_a_resting_one() {
    let gpu = common::gpu();
    let camera = camera_on(BLOCK);
    let centre = project(&camera, 0.5 * (BLOCK.0 + BLOCK.1));
    let settings = RenderSettings {
        mode: RenderMode::Particles,
        color_field: ColorField::Speed,
        speed_scale: 5.0,
        ..Default::default()
    };
    let colour = |velocity| {
        let (image, _) =
            render(&gpu, &solver(&gpu, BLOCK, velocity), &camera, &Options { settings, ..Default::default() });
        image.mean(centre, 3)
    };
    let resting = colour(Vec3::ZERO);
    let moving = colour(Vec3::new(4.0, 0.0, 0.0));
    println!("resting {resting}, moving {moving}");
    // Still is blue, 0.8 of the scale is between yellow and red (particles.wgsl's ramp).
    assert!(resting.z > resting.x + 0.2, "resting block is {resting}, not blue");
    assert!(moving.x > moving.z + 0.2 && moving.y > moving.z, "moving block is {moving}, not yellow-red");
}

#[test]
fn the_volume_puts_bright_density_where_the_particles_are() {
    let gpu = common::gpu();
    let solver = solver(&gpu, BLOCK, Vec3::ZERO);
    let camera = camera_on(BLOCK);
    let settings = RenderSettings { mode: RenderMode::Volume, ..Default::default() };
    let (volume, _) = render(&gpu, &solver, &camera, &Options { settings, ..Default::default() });
    let (background, _) =
        render(&gpu, &solver, &camera, &Options { settings, particle_count: Some(0), ..Default::default() });
    let centre = project(&camera, 0.5 * (BLOCK.0 + BLOCK.1));
    let (lit, behind) = (volume.mean(centre, 2), background.mean(centre, 2));
    println!("volume at the block {lit}, background there {behind}");
    assert!(lit.element_sum() > behind.element_sum() + 0.6 && saturation(lit) < 0.1, "{lit} over {behind}");
    // Away from the block (sky corners, the near ground) the image is the background's.
    for (x, y) in [(4, 4), (WIDTH - 5, 4), (4, HEIGHT - 5), (WIDTH / 2, HEIGHT - 5)] {
        let at = Vec2::new(x as f32, y as f32);
        let difference = (volume.mean(at, 1) - background.mean(at, 1)).abs().max_element();
        assert!(difference < 0.01, "({x}, {y}) differs from the background by {difference}");
    }
    // From inside the block (the eye within the occupied box) the snow fills the view.
    let inside = Camera { distance: 0.05, ..camera };
    let (image, _) = render(&gpu, &solver, &inside, &Options { settings, ..Default::default() });
    let view = image.mean(Vec2::new(WIDTH as f32 / 2.0, HEIGHT as f32 / 2.0), 4);
    assert!(view.min_element() > 0.6 && saturation(view) < 0.1, "inside the block the view is {view}");
}

#[test]
fn every_output_format_reads_back_as_the_same_image() {
    let gpu = common::gpu();
    let solver = solver(&gpu, BLOCK, Vec3::ZERO);
    let camera = camera_on(BLOCK);
    let formats = [
        wgpu::TextureFormat::Rgba8UnormSrgb,
        wgpu::TextureFormat::Bgra8UnormSrgb,
        wgpu::TextureFormat::Rgba8Unorm,
        wgpu::TextureFormat::Bgra8Unorm,
    ];
    let images: Vec<Image> = formats
        .iter()
        .map(|&format| render(&gpu, &solver, &camera, &Options { format, ..Default::default() }).0)
        .collect();
    for (format, image) in formats.iter().zip(&images).skip(1) {
        // BGRA is swizzled back; unorm targets get the shaders' own sRGB encoding, which rounds
        // differently from the hardware's by at most a couple of levels.
        let worst = image.pixels.iter().zip(&images[0].pixels).map(|(a, b)| a.abs_diff(*b)).max().unwrap_or(0);
        println!("{format:?}: largest difference {worst} levels");
        assert!(worst <= 3, "{format:?} differs from Rgba8UnormSrgb by {worst} levels");
    }
}

#[test]
fn a_png_round_trips_and_errors_name_the_path() {
    let gpu = common::gpu();
    let solver = solver(&gpu, BLOCK, Vec3::ZERO);
    let (image, target) = render(&gpu, &solver, &camera_on(BLOCK), &Options::default());
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("frame.png");
    target.save_png(&gpu, &path).expect("save");
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&path).expect("open")));
    let mut reader = decoder.read_info().expect("png header");
    let mut pixels = vec![0; reader.output_buffer_size().expect("size")];
    let info = reader.next_frame(&mut pixels).expect("png data");
    assert_eq!((info.width, info.height, info.color_type), (WIDTH, HEIGHT, png::ColorType::Rgba));
    assert_eq!(&pixels[..info.buffer_size()], &image.pixels[..]);
    // Only the PNG is left: the temporary file was renamed.
    assert_eq!(std::fs::read_dir(dir.path()).expect("list").count(), 1);
    let missing = dir.path().join("no such dir").join("frame.png");
    match target.save_png(&gpu, &missing) {
        Err(e @ RenderError::Io { .. }) => assert!(e.to_string().contains("no such dir"), "{e}"),
        other => panic!("saving into a missing directory gave {other:?}"),
    }
}

#[test]
fn a_stream_too_small_for_a_particle_draws_only_the_background() {
    let gpu = common::gpu();
    let solver = solver(&gpu, BLOCK, Vec3::ZERO);
    let camera = camera_on(BLOCK);
    let (background, _) = render(&gpu, &solver, &camera, &Options { particle_count: Some(0), ..Default::default() });
    // The solver's streams with the position stream replaced by one too small for a particle.
    let mut tiny = solver.pages()[0].particles.clone();
    tiny.position = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("too small"),
        size: 8,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let target = OffscreenTarget::new(&gpu.device, WIDTH, HEIGHT, wgpu::TextureFormat::Rgba8UnormSrgb);
    let mut renderer = Renderer::new(&gpu.device, target.format(), 1);
    renderer.set_sun_direction(shoulder_sun(&camera));
    let settings = RenderSettings { mode: RenderMode::Both, ..Default::default() };
    let mut frame = common::frame_inputs(&solver, &camera, &settings, 1000, 0.25 * H);
    frame.particles = vec![&tiny];
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    renderer.render(&gpu.device, &gpu.queue, &mut encoder, target.view(), &frame);
    gpu.queue.submit([encoder.finish()]);
    assert_eq!(target.read_rgba(&gpu).expect("readback"), background.pixels);
}

// ---- Collider meshes. Small images: lavapipe's cost is per pixel. ----
