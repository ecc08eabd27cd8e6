//! The snow surface (`render.surface`, marching tetrahedra on the density volume) on lavapipe: a
//! resting sphere of snow from the scene's emitter, its surface against the emitter's sphere, the
//! mesh's closure, the CPU twin, and a second frame after the snow moved.

mod common;

use glam::Vec3;
use powder::render::surface::SurfaceContents;
use powder::render::surface_cpu::{IndexedMesh, SurfaceVolume, weld};
use powder::render::volume_splat::VolumeContents;
use powder::render::{Camera, ColorField, OffscreenTarget, RenderMode, RenderSettings, Renderer};
use powder::scene::Scene;
use powder::sim::Solver;

/// Cell edge of the test scene (the unit cube at 32 cells). Particles are h/2 apart (8 per cell)
/// and drawn at radius h/4, so a voxel of the density volume is one cell.
const H: f32 = 1.0 / 32.0;
const RADIUS: f32 = 0.22;

fn sphere_scene(center: Vec3, speed: f32) -> Scene {
    let text = format!(
        r#"{{ "version": 1, "domain": {{ "min": [0, 0, 0], "size": [1, 1, 1] }}, "grid": {{ "resolution": 32 }},
        "particles_per_cell": 8, "seed": 3,
        "emitters": [ {{ "shape": "sphere", "center": [{}, {}, {}], "radius": {RADIUS}, "velocity": [{speed}, 0, 0] }} ] }}"#,
        center.x, center.y, center.z
    );
    Scene::from_json(&text, "sphere.json").expect("scene")
}

struct Frame {
    surface: SurfaceContents,
    volume: VolumeContents,
    /// The field the surface was drawn from: the fill sums raised by `surface_cover`.
    field: Vec<u32>,
    pixels: Vec<u8>,
}

/// Renders one surface frame of a sphere of snow at `center` (or of no snow) and reads it back.
fn render(gpu: &powder::gpu::Gpu, renderer: &mut Renderer, solver: &Solver, camera: &Camera, count: u32) -> Frame {
    render_field(gpu, renderer, solver, camera, count, ColorField::Snow)
}

fn render_field(
    gpu: &powder::gpu::Gpu,
    renderer: &mut Renderer,
    solver: &Solver,
    camera: &Camera,
    count: u32,
    color_field: ColorField,
) -> Frame {
    let target = OffscreenTarget::new(&gpu.device, 96, 72, wgpu::TextureFormat::Rgba8UnormSrgb);
    let settings = RenderSettings { mode: RenderMode::Surface, color_field, speed_scale: 10.0, ..Default::default() };
    let inputs = common::frame_inputs(solver, camera, &settings, count, 0.25 * H);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    renderer.render(&gpu.device, &gpu.queue, &mut encoder, target.view(), &inputs);
    gpu.queue.submit([encoder.finish()]);
    let surface = renderer.read_surface(gpu).map(|r| r.expect("surface readback")).unwrap_or(SurfaceContents {
        found_vertices: 0,
        found: 0,
        vertices: Vec::new(),
        triangles: Vec::new(),
    });
    let volume = renderer.read_volume(gpu).expect("volume readback");
    let field = match renderer.read_surface_field(gpu) {
        Some(field) => field.expect("field readback"),
        None => volume.sums.clone(),
    };
    Frame { surface, volume, field, pixels: target.read_rgba(gpu).expect("pixels") }
}

fn solver_for(gpu: &powder::gpu::Gpu, center: Vec3, speed: f32) -> Solver {
    let scene = sphere_scene(center, speed);
    powder::runner::build_solver(gpu, &scene, "sphere.json").expect("solver")
}

#[test]
fn a_resting_sphere_gets_a_closed_surface_on_its_emitter_sphere_rebuilt_as_it_moves() {
    let gpu = common::gpu();
    let center = Vec3::new(0.5, 0.5, 0.45);
    let solver = solver_for(&gpu, center, 0.0);
    let camera = Camera { target: center, distance: 1.6, yaw: 0.6, pitch: 0.35, ..Camera::default() };
    let mut renderer = Renderer::new(&gpu.device, wgpu::TextureFormat::Rgba8UnormSrgb, 1);
    // The sun behind the eye: the sphere's shadow falls behind it, out of sight, so the pixels that
    // change with the snow are those of its surface.
    renderer.set_sun_direction(camera.eye() - center);
    let frame = render(&gpu, &mut renderer, &solver, &camera, solver.particle_count());

    // Within half a cell of the emitter's sphere: every corner of every triangle.
    let surface = &frame.surface;
    assert!(surface.found > 1000, "{} triangles", surface.found);
    assert_eq!(surface.triangles.len(), surface.found as usize, "the triangle list overflowed");
    assert_eq!(surface.vertices.len(), surface.found_vertices as usize, "the vertex list overflowed");
    let worst =
        surface.vertices.iter().map(|v| (Vec3::from(v.position).distance(center) - RADIUS).abs()).fold(0.0, f32::max);
    println!("{} triangles, farthest corner {:.3} cells from the sphere", surface.found, worst / H);
    assert!(worst <= 0.5 * H, "a corner lies {:.3} cells from the emitter's sphere", worst / H);
    // Normals point out of the sphere (the gradient of the fill, reversed).
    let inward =
        surface.vertices.iter().filter(|v| Vec3::from(v.normal).dot(Vec3::from(v.position) - center) <= 0.0).count();
    assert_eq!(inward, 0, "normals pointing into the snow");
    // Triangles wind counter-clockwise seen from outside (the draw culls the other side).
    let turned = surface
        .triangles
        .iter()
        .filter(|t| {
            let [a, b, c] = t.map(|k| Vec3::from(surface.vertices[k as usize].position));
            (b - a).cross(c - a).dot((a + b + c) / 3.0 - center) <= 0.0
        })
        .count();
    assert_eq!(turned, 0, "triangles wound clockwise seen from outside");

    // Closed: every edge of the indexed mesh (a vertex per crossing edge of the tetrahedra, shared
    // by the triangles around it) is shared by exactly two triangles, wound oppositely (consistent
    // orientation); none degenerate. The crossing margin keeps each corner 2 % of its edge from
    // the edge's ends, which bounds a triangle's area below by about (0.02 h)² / 2 = 2e-4 h²;
    // 1e-5 h² is well below that and far above a collapsed triangle's rounding noise.
    let mesh = surface.mesh();
    assert_eq!(mesh.open_edges(), 0, "edges not shared by exactly two oppositely wound triangles");
    assert!(mesh.triangles.iter().all(|t| t[0] != t[1] && t[1] != t[2] && t[0] != t[2]), "a collapsed triangle");
    let smallest = mesh.smallest_area();
    println!("{} vertices, smallest triangle {:.2e} h²", mesh.positions.len(), smallest / (H * H));
    assert!(smallest > 1e-5 * H * H, "a degenerate triangle of {:.2e} h²", smallest / (H * H));
    // One connected closed surface of a ball: Euler characteristic V − E + F = 2.
    let edges = (3 * mesh.triangles.len() / 2) as i64;
    assert_eq!(mesh.positions.len() as i64 - edges + mesh.triangles.len() as i64, 2, "not a sphere's topology");

    // The CPU twin, from the same field (the fill sums as surface_cover raised them): the same
    // triangles (as welded vertex sets).
    let v = &frame.volume;
    let grid = &solver.params().grid;
    let voxel = (grid.domain_max() - grid.domain_min).as_vec3().x / v.dims.x as f32;
    let twin = SurfaceVolume { sums: &frame.field, dims: v.dims, voxel, origin: grid.domain_min.as_vec3() }.triangles();
    assert_eq!(twin.len(), surface.found as usize, "triangle count against the twin");
    // The twin makes its triangles' corners one by one; welding them (the same crossing computed
    // for several triangles, by the same operations) recovers the shared vertices.
    let twin_mesh = weld(twin.iter().flatten().map(|c| (c.position, c.normal)), 1e-6 * H);
    assert_eq!(twin_mesh.open_edges(), 0, "the twin's surface is not closed");
    let sorted = |m: &IndexedMesh| {
        let mut p: Vec<[f32; 3]> = m.positions.iter().map(|p| p.to_array()).collect();
        p.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
        p
    };
    let (gpu_points, cpu_points) = (sorted(&mesh), sorted(&twin_mesh));
    assert_eq!(gpu_points.len(), cpu_points.len());
    // f32 on both sides in the same order of operations; fused multiply-adds on either side may
    // differ in the last bits: 1e-5 of a cell.
    let far =
        gpu_points.iter().zip(&cpu_points).map(|(a, b)| Vec3::from(*a).distance(Vec3::from(*b))).fold(0.0, f32::max);
    assert!(far < 1e-5 * H, "GPU and twin vertices differ by {:.2e} cells", far / H);

    // Drawn: the view shows snow where the sphere projects, and nowhere else. Pixels that differ
    // from a frame without snow, against the pixels whose ray passes within the half-cell bound
    // of the sphere.
    let empty = render(&gpu, &mut renderer, &solver, &camera, 0);
    let changed = frame
        .pixels
        .chunks(4)
        .zip(empty.pixels.chunks(4))
        .filter(|(a, b)| a.iter().zip(b.iter()).any(|(x, y)| x.abs_diff(*y) > 8))
        .count();
    let aspect = 96.0 / 72.0;
    let hits = |r: f32| {
        (0..72 * 96)
            .filter(|i| {
                let ndc = glam::Vec2::new(
                    ((i % 96) as f32 + 0.5) / 96.0 * 2.0 - 1.0,
                    1.0 - ((i / 96) as f32 + 0.5) / 72.0 * 2.0,
                );
                let (origin, dir) = camera.ray(ndc, aspect);
                let along = (center - origin).dot(dir);
                (origin + dir * along).distance(center) <= r
            })
            .count()
    };
    let (inner, outer) = (hits(RADIUS - 0.5 * H), hits(RADIUS + 0.5 * H));
    println!("{changed} pixels of snow; the sphere covers {inner}..{outer}");
    assert!((inner..=outer).contains(&changed), "{changed} snow pixels, the sphere covers {inner}..{outer}");

    // Moved by 3.3 cells: the next frame's surface follows (its centroid moves with the snow).
    // This sphere flies at 4 m/s and is coloured by speed.
    let shift = Vec3::new(3.3 * H, 0.0, 0.0);
    let moved = solver_for(&gpu, center + shift, 4.0);
    let next = render_field(&gpu, &mut renderer, &moved, &camera, moved.particle_count(), ColorField::Speed);
    let centroid =
        |s: &SurfaceContents| s.vertices.iter().map(|v| Vec3::from(v.position)).sum::<Vec3>() / s.vertices.len() as f32;
    let travelled = centroid(&next.surface) - centroid(surface);
    println!("surface centroid moved {:.3} cells", travelled.x / H);
    // The lattice is not shifted with the sphere (it is centred on the sphere's box, which is), so
    // the two surfaces are the same shape; a tenth of a cell covers the centroid's rounding.
    assert!((travelled - shift).length() < 0.1 * H, "the surface moved {travelled} for a shift of {shift}");
    // Every corner shows the speed field's colour of 4 m/s on the 10 m/s scale: the volume's a / r
    // is the mean of equal values, exact but for f16 (2⁻¹⁰) and the rgba8 albedo (1/255).
    let want = powder::render::particles::color_ramps::speed(0.4);
    let worst = next
        .surface
        .vertices
        .iter()
        .map(|v| (Vec3::from_array(powder_unpack(v.albedo)) - want).abs().max_element())
        .fold(0.0, f32::max);
    println!("speed colour off by {worst:.4} at worst");
    assert!(worst <= 1.5 / 255.0, "surface colour off by {worst} from the speed ramp's {want}");
}

/// The rgb of an rgba8 unorm word (WGSL's unpack4x8unorm).
fn powder_unpack(word: u32) -> [f32; 3] {
    [0, 1, 2].map(|k| ((word >> (8 * k)) & 0xff) as f32 / 255.0)
}

/// A bake's surface file: the mesh the baker extracts (welded, closed) survives the PLY file
/// exactly, and a damaged file is refused with the reason.
#[test]
fn the_baked_surface_mesh_is_closed_and_round_trips_through_its_ply_file() {
    use powder::export::ExportError;
    use powder::export::mesh_ply::{read_mesh_ply, surface_file_name, write_mesh_ply};
    let gpu = common::gpu();
    let solver = solver_for(&gpu, Vec3::new(0.5, 0.5, 0.45), 0.0);
    let mut baker = powder::export::surface::SurfaceBaker::new(&gpu);
    let mesh = baker.mesh(&gpu, &solver, 0.25 * H).expect("surface");
    assert!(mesh.triangles.len() > 1000 && mesh.open_edges() == 0, "{} triangles", mesh.triangles.len());
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(surface_file_name(7));
    assert!(path.ends_with("surface_00007.ply"));
    write_mesh_ply(&path, &mesh).expect("write");
    assert_eq!(read_mesh_ply(&path).expect("read"), mesh);
    // Cut short by one byte: the header's counts no longer match the data.
    let bytes = std::fs::read(&path).expect("bytes");
    std::fs::write(&path, &bytes[..bytes.len() - 1]).expect("truncate");
    match read_mesh_ply(&path) {
        Err(ExportError::Format { message, .. }) => assert!(message.contains("bytes of data"), "{message}"),
        other => panic!("a truncated file was not refused: {other:?}"),
    }
}
