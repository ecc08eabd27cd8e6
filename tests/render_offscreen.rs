//! The renderer drawing real scenes offscreen on lavapipe, checked pixel by pixel: snow where the
//! particles project, sky and ground elsewhere, impostors cut by the ground plane, the speed colour
//! field, the density volume, collider meshes against the snow, output formats and the PNG round
//! trip.

mod common;

use glam::{Vec2, Vec3};
use powder::gpu::Gpu;
use powder::mesh::TriangleMesh;
use powder::render::{Camera, ColorField, OffscreenTarget, RenderError, RenderMode, RenderSettings, Renderer};
use powder::sim::Solver;

const WIDTH: u32 = 320;
const HEIGHT: u32 = 240;
/// Cell size of the test domain (the unit cube, 32 cells per axis); particles sit h/2 apart.
const H: f32 = 1.0 / 32.0;
/// The block most tests draw: 0.3 m on a side, floating 0.1 m above the ground (z = 0).
const BLOCK: (Vec3, Vec3) = (Vec3::new(0.35, 0.35, 0.1), Vec3::new(0.65, 0.65, 0.4));

/// A block of snow in the unit-cube domain, uploaded to a solver (not stepped).
fn solver(gpu: &Gpu, (lo, hi): (Vec3, Vec3), velocity: Vec3) -> Solver {
    let particles = common::block(lo, hi, H, 400.0, |_| velocity);
    Solver::new(gpu, common::params(32, H as f64, 1e-4), &particles).expect("solver")
}

/// The default orbit angles, aimed at the middle of `block` from 1.4 m.
fn camera_on((lo, hi): (Vec3, Vec3)) -> Camera {
    Camera { target: 0.5 * (lo + hi), distance: 1.4, ..Camera::default() }
}

/// A sun over the camera's shoulder, so the faces of a block the camera sees are lit.
fn shoulder_sun(camera: &Camera) -> Vec3 {
    (camera.eye() - camera.target).normalize() + Vec3::new(0.0, 0.0, 0.6)
}

struct Options {
    settings: RenderSettings,
    samples: u32,
    format: wgpu::TextureFormat,
    /// `Some(0)` draws the background alone.
    particle_count: Option<u32>,
    size: (u32, u32),
}

impl Default for Options {
    fn default() -> Self {
        Self {
            settings: RenderSettings::default(),
            samples: 1,
            format: wgpu::TextureFormat::Rgba8UnormSrgb,
            particle_count: None,
            size: (WIDTH, HEIGHT),
        }
    }
}

/// Tightly packed RGBA8 pixels of one frame.
struct Image {
    pixels: Vec<u8>,
    width: u32,
    height: u32,
}

impl Image {
    /// The pixel at (x, y) as RGB in 0..1 (sRGB-encoded, as stored).
    fn rgb(&self, x: u32, y: u32) -> Vec3 {
        let i = 4 * (y.min(self.height - 1) * self.width + x.min(self.width - 1)) as usize;
        Vec3::new(self.pixels[i] as f32, self.pixels[i + 1] as f32, self.pixels[i + 2] as f32) / 255.0
    }

    /// Mean RGB over the (2r+1)² pixels around `at`.
    fn mean(&self, at: Vec2, r: i32) -> Vec3 {
        let mut sum = Vec3::ZERO;
        for dy in -r..=r {
            for dx in -r..=r {
                sum += self.rgb((at.x as i32 + dx).max(0) as u32, (at.y as i32 + dy).max(0) as u32);
            }
        }
        sum / ((2 * r + 1) * (2 * r + 1)) as f32
    }

    /// Fraction of all pixels that read as snow.
    fn snow_fraction(&self) -> f32 {
        let n = (self.width * self.height) as usize;
        (0..n).filter(|&i| is_snow(self.rgb(i as u32 % self.width, i as u32 / self.width))).count() as f32 / n as f32
    }
}

/// Saturation (max − min) / max of an RGB colour.
fn saturation(c: Vec3) -> f32 {
    (c.max_element() - c.min_element()) / c.max_element().max(1e-6)
}

/// Whether a pixel reads as snow: bright and nearly grey. Measured on these scenes, snow facing the
/// light is 0.92 (median) in every channel with saturation below 0.01; the pale sky near the horizon
/// is as bright but at least 0.11 saturated, and the ground stays below 0.55 in every channel (the
/// assertions on both below hold these margins).
fn is_snow(c: Vec3) -> bool {
    c.min_element() > 0.6 && saturation(c) < 0.08
}

/// The image, the target, and how many particles were drawn (after culling).
fn render(gpu: &Gpu, solver: &Solver, camera: &Camera, options: &Options) -> (Image, OffscreenTarget) {
    let (image, target, _) = render_counting(gpu, solver, camera, options);
    (image, target)
}

fn render_counting(gpu: &Gpu, solver: &Solver, camera: &Camera, options: &Options) -> (Image, OffscreenTarget, u32) {
    let (width, height) = options.size;
    let target = OffscreenTarget::new(&gpu.device, width, height, options.format);
    let mut renderer = Renderer::new(&gpu.device, options.format, options.samples);
    renderer.resize(&gpu.device, width, height);
    renderer.set_sun_direction(shoulder_sun(camera));
    let count = options.particle_count.unwrap_or(solver.particle_count());
    let inputs = common::frame_inputs(solver, camera, &options.settings, count, 0.25 * H);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    renderer.render(&gpu.device, &gpu.queue, &mut encoder, target.view(), &inputs);
    gpu.queue.submit([encoder.finish()]);
    let pixels = target.read_rgba(gpu).expect("readback");
    let drawn = renderer.drawn_particle_count(gpu).unwrap_or(0);
    (Image { pixels, width, height }, target, drawn)
}

/// Pixel position (x right, y down) of a world point seen by `camera` in a WIDTH × HEIGHT image.
fn project(camera: &Camera, p: Vec3) -> Vec2 {
    let ndc = camera.view_projection(WIDTH as f32 / HEIGHT as f32).project_point3(p);
    Vec2::new((ndc.x + 1.0) * 0.5 * WIDTH as f32, (1.0 - ndc.y) * 0.5 * HEIGHT as f32)
}

/// Area in pixels of the convex hull of the box's eight projected corners (Andrew's monotone chain).
fn projected_area(camera: &Camera, (lo, hi): (Vec3, Vec3)) -> f32 {
    let mut points: Vec<Vec2> = (0..8)
        .map(|c| project(camera, Vec3::select(glam::BVec3::new(c & 1 != 0, c & 2 != 0, c & 4 != 0), hi, lo)))
        .collect();
    points.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    let cross = |o: Vec2, a: Vec2, b: Vec2| (a - o).perp_dot(b - o);
    let mut hull: Vec<Vec2> = Vec::new();
    for pass in 0..2 {
        let start = hull.len();
        let ordered: Vec<Vec2> = if pass == 0 { points.clone() } else { points.iter().rev().cloned().collect() };
        for p in ordered {
            while hull.len() >= start + 2 && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0 {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    (0..hull.len()).map(|i| hull[i].perp_dot(hull[(i + 1) % hull.len()])).sum::<f32>().abs() * 0.5
}

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
    let settings = RenderSettings { color_field: ColorField::Speed, speed_scale: 5.0, ..Default::default() };
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

const MESH_SIZE: (u32, u32) = (160, 120);

/// An axis-aligned box as 12 triangles, counter-clockwise seen from outside; `inward` reverses them.
fn box_mesh((lo, hi): (Vec3, Vec3), inward: bool) -> TriangleMesh {
    let positions: Vec<Vec3> =
        (0..8).map(|c| Vec3::select(glam::BVec3::new(c & 1 != 0, c & 2 != 0, c & 4 != 0), hi, lo)).collect();
    let centre = 0.5 * (lo + hi);
    let mut triangles = Vec::new();
    for axis in 0..3 {
        for side in 0..2u32 {
            // The face's corners in the order of the other two axes' bits: a, b, c, d around a quad
            // as (0, 0), (1, 0), (0, 1), (1, 1).
            let (u, v) = (1 << ((axis + 1) % 3), 1 << ((axis + 2) % 3));
            let base = side << axis;
            for tri in [[base, base | u, base | v], [base | u, base | u | v, base | v]] {
                let [a, b, c] = tri.map(|i| positions[i as usize]);
                let outward = (b - a).cross(c - a).dot((a + b + c) / 3.0 - centre) > 0.0;
                triangles.push(if outward != inward { tri } else { [tri[0], tri[2], tri[1]] });
            }
        }
    }
    TriangleMesh { positions, triangles }
}

/// One renderer and target drawing successive frames, as the app does.
struct MeshView {
    renderer: Renderer,
    target: OffscreenTarget,
}

impl MeshView {
    fn new(gpu: &Gpu, samples: u32, camera: &Camera) -> Self {
        let format = wgpu::TextureFormat::Rgba8UnormSrgb;
        let target = OffscreenTarget::new(&gpu.device, MESH_SIZE.0, MESH_SIZE.1, format);
        let mut renderer = Renderer::new(&gpu.device, format, samples);
        renderer.set_sun_direction(shoulder_sun(camera));
        Self { renderer, target }
    }

    fn draw(&mut self, gpu: &Gpu, solver: &Solver, camera: &Camera, mode: RenderMode, count: u32) -> Image {
        let settings = RenderSettings { mode, ..Default::default() };
        let frame = common::frame_inputs(solver, camera, &settings, count, 0.25 * H);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        self.renderer.render(&gpu.device, &gpu.queue, &mut encoder, self.target.view(), &frame);
        gpu.queue.submit([encoder.finish()]);
        let pixels = self.target.read_rgba(gpu).expect("readback");
        Image { pixels, width: MESH_SIZE.0, height: MESH_SIZE.1 }
    }
}

/// Pixel position of a world point in a MESH_SIZE image.
fn project_small(camera: &Camera, p: Vec3) -> Vec2 {
    let (w, h) = (MESH_SIZE.0 as f32, MESH_SIZE.1 as f32);
    let ndc = camera.view_projection(w / h).project_point3(p);
    Vec2::new((ndc.x + 1.0) * 0.5 * w, (1.0 - ndc.y) * 0.5 * h)
}

/// Signed distance in pixels from `p` to the edge of the convex hull of the box's projected
/// corners: positive inside.
fn hull_distance(camera: &Camera, (lo, hi): (Vec3, Vec3), p: Vec2) -> f32 {
    let corners: Vec<Vec2> = (0..8)
        .map(|c| project_small(camera, Vec3::select(glam::BVec3::new(c & 1 != 0, c & 2 != 0, c & 4 != 0), hi, lo)))
        .collect();
    // Every pair of corners with all others on one side is a hull edge; the distance is the
    // smallest over those edges, measured toward the side the other corners lie on.
    let mut distance = f32::INFINITY;
    for (i, &a) in corners.iter().enumerate() {
        for &b in &corners[i + 1..] {
            let edge = b - a;
            if edge.length() < 1e-3 {
                continue;
            }
            let side = |q: Vec2| edge.perp_dot(q - a) / edge.length();
            let (min, max) = corners.iter().fold((0.0f32, 0.0f32), |(lo, hi), &q| (lo.min(side(q)), hi.max(side(q))));
            if min > -1e-3 {
                distance = distance.min(side(p));
            } else if max < 1e-3 {
                distance = distance.min(-side(p));
            }
        }
    }
    distance
}

/// The box most mesh tests draw: around the lower half of BLOCK, wider than it.
const MESH_BOX: (Vec3, Vec3) = (Vec3::new(0.3, 0.3, 0.0), Vec3::new(0.7, 0.7, 0.25));

/// Whether a pixel reads as the mesh: grey-blue, neither snow nor as bright as the sky. Measured in
/// these views: the box's faces from (0.40, 0.47, 0.61) to (0.55, 0.61, 0.75), blue at least 0.19
/// above red; near lit ground tiles (0.54, 0.56, 0.60), blue 0.06 above red. The far ground hazes
/// into the horizon's blue and can pass, so the tests also compare with the frame without a mesh.
fn is_mesh(c: Vec3) -> bool {
    !is_snow(c) && c.z > c.x + 0.12 && c.max_element() < 0.8 && c.min_element() > 0.3
}

#[test]
fn a_box_mesh_covers_its_silhouette_and_nothing_else() {
    let gpu = common::gpu();
    let solver = solver(&gpu, BLOCK, Vec3::ZERO);
    let camera = camera_on(BLOCK);
    for samples in [1, 4] {
        let mut view = MeshView::new(&gpu, samples, &camera);
        let background = view.draw(&gpu, &solver, &camera, RenderMode::Particles, 0);
        view.renderer.set_meshes(&gpu.device, &gpu.queue, &[box_mesh(MESH_BOX, false)]);
        assert_eq!(view.renderer.mesh_triangle_count(), 12);
        let image = view.draw(&gpu, &solver, &camera, RenderMode::Particles, 0);
        let (mut inside, mut outside, mut least_change, mut worst_outside) = (0, 0, f32::INFINITY, 0.0f32);
        for y in 0..MESH_SIZE.1 {
            for x in 0..MESH_SIZE.0 {
                let d = hull_distance(&camera, MESH_BOX, Vec2::new(x as f32 + 0.5, y as f32 + 0.5));
                let change = (image.rgb(x, y) - background.rgb(x, y)).abs().max_element();
                if d >= 2.0 {
                    inside += 1;
                    least_change = least_change.min(change);
                    assert!(is_mesh(image.rgb(x, y)), "{samples}x: ({x}, {y}) inside the box is {}", image.rgb(x, y));
                } else if d <= -2.0 {
                    outside += 1;
                    worst_outside = worst_outside.max(change);
                }
            }
        }
        println!(
            "{samples}x: {inside} px inside, least change {least_change:.3}; {outside} outside, worst {worst_outside}"
        );
        assert!(inside > 1500, "{samples}x: the box covers only {inside} px");
        // The box is lit from over the camera's shoulder. Its least contrast is a side face against
        // a light ground tile (bluer, darker red): measured 0.063 of the largest channel.
        assert!(least_change > 0.04, "{samples}x: a pixel inside the box changed by only {least_change}");
        // Outside the silhouette the same shaders see the same inputs: the image is unchanged.
        assert!(worst_outside <= 1.0 / 255.0 + 1e-6, "{samples}x: outside the box a pixel changed by {worst_outside}");
        // Both faces are lit: the box wound inside out looks the same.
        view.renderer.set_meshes(&gpu.device, &gpu.queue, &[box_mesh(MESH_BOX, true)]);
        let inverted = view.draw(&gpu, &solver, &camera, RenderMode::Particles, 0);
        let worst = inverted.pixels.iter().zip(&image.pixels).map(|(a, b)| a.abs_diff(*b)).max().unwrap_or(0);
        assert!(worst <= 1, "{samples}x: the inside-out box differs by {worst} levels");
    }
}

#[test]
fn a_box_mesh_and_snow_hide_each_other_by_depth() {
    let gpu = common::gpu();
    let solver = solver(&gpu, BLOCK, Vec3::ZERO);
    let camera = camera_on(BLOCK);
    let mut view = MeshView::new(&gpu, 1, &camera);
    let count = solver.particle_count();
    let snow_only = view.draw(&gpu, &solver, &camera, RenderMode::Particles, count);
    let volume_only = view.draw(&gpu, &solver, &camera, RenderMode::Volume, count);
    view.renderer.set_meshes(&gpu.device, &gpu.queue, &[box_mesh(MESH_BOX, false)]);
    let both = view.draw(&gpu, &solver, &camera, RenderMode::Particles, count);
    let volume = view.draw(&gpu, &solver, &camera, RenderMode::Volume, count);
    // On the near face (+x) of the snow block: below z = 0.25 the box's own +x face (x = 0.7) is in
    // front of it; above, the snow sticks out of the box, with the box's top face behind it.
    let hidden = project_small(&camera, Vec3::new(0.65, 0.5, 0.15));
    let exposed = project_small(&camera, Vec3::new(0.65, 0.5, 0.33));
    let (before, after) = (snow_only.mean(hidden, 1), both.mean(hidden, 1));
    println!("lower half: snow {before}, with the box {after}; upper half {}", both.mean(exposed, 1));
    assert!(is_snow(before) && is_mesh(after), "the box does not hide the lower half: {before} → {after}");
    let upper = both.mean(exposed, 1);
    assert!(is_snow(upper), "the snow above the box is {upper}");
    assert!((upper - snow_only.mean(exposed, 1)).abs().max_element() < 0.02, "the box changed the snow above it");
    // The volume raymarch stops at the mesh's depth: the volume shows snow there without the box,
    // and with it the box's colour as in the particle view (a march of at most a voxel of empty
    // space between the occupied box's grown edge and the mesh adds nothing visible).
    let (marched, boxed) = (volume_only.mean(hidden, 1), volume.mean(hidden, 1));
    println!("volume at the lower half: {marched}, with the box {boxed}");
    assert!(marched.min_element() > 0.6 && saturation(marched) < 0.1, "no volume snow there: {marched}");
    assert!((boxed - after).abs().max_element() < 0.02, "the volume draws over the box: {boxed} vs {after}");
}

#[test]
fn meshes_follow_each_upload_and_an_empty_set_removes_them() {
    let gpu = common::gpu();
    let solver = solver(&gpu, BLOCK, Vec3::ZERO);
    let camera = camera_on(BLOCK);
    let mut view = MeshView::new(&gpu, 1, &camera);
    let empty = view.draw(&gpu, &solver, &camera, RenderMode::Particles, 0);
    // A box shows where the image is mesh-coloured and differs from the empty frame (lit ground
    // tiles are grey-blue too, but unchanged).
    let shows = |image: &Image, (lo, hi): (Vec3, Vec3)| {
        let at = project_small(&camera, 0.5 * (lo + hi));
        let c = image.mean(at, 1);
        is_mesh(c) && (c - empty.mean(at, 1)).abs().max_element() > 0.05
    };
    // Two uploads of the same size reuse the buffer: the second box replaces the first.
    let left = (Vec3::new(0.3, 0.1, 0.0), Vec3::new(0.5, 0.3, 0.2));
    let right = (left.0 + Vec3::new(0.0, 0.5, 0.0), left.1 + Vec3::new(0.0, 0.5, 0.0));
    view.renderer.set_meshes(&gpu.device, &gpu.queue, &[box_mesh(left, false)]);
    let first = view.draw(&gpu, &solver, &camera, RenderMode::Particles, 0);
    view.renderer.set_meshes(&gpu.device, &gpu.queue, &[box_mesh(right, false)]);
    let second = view.draw(&gpu, &solver, &camera, RenderMode::Particles, 0);
    assert!(shows(&first, left) && !shows(&first, right), "the first upload");
    assert!(shows(&second, right) && !shows(&second, left), "the second upload, in the same buffer");
    // Two meshes at once.
    view.renderer.set_meshes(&gpu.device, &gpu.queue, &[box_mesh(left, false), box_mesh(right, false)]);
    let pair = view.draw(&gpu, &solver, &camera, RenderMode::Particles, 0);
    assert_eq!(view.renderer.mesh_triangle_count(), 24);
    assert!(shows(&pair, left) && shows(&pair, right), "two meshes");
    // An empty set: the frame is the one drawn before any mesh (same shaders, same inputs).
    view.renderer.set_meshes(&gpu.device, &gpu.queue, &[]);
    let cleared = view.draw(&gpu, &solver, &camera, RenderMode::Particles, 0);
    let worst = cleared.pixels.iter().zip(&empty.pixels).map(|(a, b)| a.abs_diff(*b)).max().unwrap_or(0);
    assert!(worst <= 1, "after removing the meshes the frame differs by {worst} levels");
    assert_eq!(view.renderer.mesh_triangle_count(), 0);
}
