//! `powder run --images WxH`: a PNG per frame, of the size asked for, with the snow drawn where
//! the frame's particles project through the camera the images are made with (lavapipe).
//!
//! Mutation check (made by hand, seen failing, restored): an image sequence whose camera is not
//! framed (`camera.frame` left out of `ImageSequence::new`, before it framed the snow) failed
//! `each_frame_has_an_image_with_the_snow_where_it_is`.

use std::process::Command;

use glam::{Vec2, Vec3};
use powder::export::images::{ImageCamera, snow_camera};
use powder::export::read_ply;

/// A 0.16 m snowball thrown at 3 m/s in a 0.5 m box at resolution 12.
const SCENE: &str = r#"{
  "version": 1,
  "domain": { "size": [0.5, 0.5, 0.5] },
  "grid": { "resolution": 12 },
  "time": { "fps": 60 },
  "emitters": [ { "shape": "sphere", "center": [0.25, 0.25, 0.2], "radius": 0.08, "velocity": [3, 0, 0] } ]
}"#;
const SIZE: (u32, u32) = (64, 48);

/// Whether a pixel reads as snow: bright and nearly grey (tests/render_offscreen.rs measured snow
/// at 0.92 in every channel with saturation below 0.01, the pale sky at least 0.11 saturated and
/// the ground below 0.55).
fn is_snow(rgb: [u8; 3]) -> bool {
    let c = rgb.map(|v| v as f32 / 255.0);
    let (lo, hi) = (c[0].min(c[1]).min(c[2]), c[0].max(c[1]).max(c[2]));
    lo > 0.6 && (hi - lo) / hi < 0.08
}

fn decode(path: &std::path::Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).expect("image exists")));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut pixels).expect("decodes");
    assert_eq!(info.color_type, png::ColorType::Rgba, "{}", path.display());
    pixels.truncate(info.buffer_size());
    (info.width, info.height, pixels)
}

#[test]
fn each_frame_has_an_image_with_the_snow_where_it_is() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = dir.path().join("scene.json");
    std::fs::write(&scene, SCENE).expect("scene written");
    let out = dir.path().join("bake");
    let size = format!("{}x{}", SIZE.0, SIZE.1);
    let run = Command::new(env!("CARGO_BIN_EXE_powder"))
        .args(["run", scene.to_str().expect("utf-8"), "--frames", "1", "--images", &size, "--out"])
        .arg(&out)
        .output()
        .expect("powder runs");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    // The camera the images are made with: the app's default orbit, framed on frame 0's snow
    // (particle spacing h / 8^(1/3) = 0.5 / 12 / 2 m).
    let first = read_ply(&out.join("frame_00000.ply")).expect("frame 0 reads");
    let snow = first.iter().map(|p| Vec3::from(p.position));
    let domain = (Vec3::ZERO, Vec3::splat(0.5));
    let camera = snow_camera(snow, 0.5 / 24.0, domain, SIZE, ImageCamera::default()).expect("snow");
    let view_projection = camera.view_projection(SIZE.0 as f32 / SIZE.1 as f32);
    let project = |p: Vec3| {
        let ndc = view_projection.project_point3(p);
        Vec2::new((ndc.x + 1.0) * 0.5 * SIZE.0 as f32, (1.0 - ndc.y) * 0.5 * SIZE.1 as f32)
    };
    let mut centres = Vec::new();
    for frame in 0..=1 {
        let (width, height, pixels) = decode(&out.join(format!("frame_{frame:05}.png")));
        assert_eq!((width, height), SIZE, "frame {frame}");
        let particles = read_ply(&out.join(format!("frame_{frame:05}.ply"))).expect("frame reads");
        let projected: Vec<Vec2> = particles.iter().map(|p| project(Vec3::from(p.position))).collect();
        let (lo, hi) = projected.iter().fold((Vec2::MAX, Vec2::MIN), |(lo, hi), &p| (lo.min(p), hi.max(p)));
        let centre = projected.iter().sum::<Vec2>() / projected.len() as f32;
        centres.push(centre);
        // The surface reaches about half a particle spacing (0.01 m, about a pixel at this
        // framing) past the outermost particles; two pixels also cover the edge pixels the
        // rasteriser rounds outwards.
        let (lo, hi) = (lo - 2.0, hi + 2.0);
        let mut snow = 0;
        for y in 0..height {
            for x in 0..width {
                let i = 4 * (y * width + x) as usize;
                if is_snow([pixels[i], pixels[i + 1], pixels[i + 2]]) {
                    snow += 1;
                    let p = Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
                    assert!(p.cmpge(lo).all() && p.cmple(hi).all(), "frame {frame}: snow at {p} outside {lo}..{hi}");
                }
            }
        }
        // The ball is 0.16 m across, about 7 pixels: tens of pixels of snow at least.
        assert!(snow >= 20, "frame {frame}: {snow} snow pixels");
        let c = centre.as_uvec2();
        let i = 4 * (c.y * width + c.x) as usize;
        assert!(is_snow([pixels[i], pixels[i + 1], pixels[i + 2]]), "frame {frame}: no snow at the centre {centre}");
    }
    // Thrown at 3 m/s along x for a frame: 5 cm, which this camera shows moving right.
    assert!(centres[1].x > centres[0].x, "{centres:?}");
}

/// `powder run --surface`: a closed surface mesh per frame, around the frame's particles.
#[test]
fn each_frame_has_a_closed_surface_mesh_around_its_particles() {
    use powder::export::mesh_ply::{read_mesh_ply, surface_file_name};
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = dir.path().join("scene.json");
    std::fs::write(&scene, SCENE).expect("scene written");
    let out = dir.path().join("bake");
    let run = Command::new(env!("CARGO_BIN_EXE_powder"))
        .args(["run", scene.to_str().expect("utf-8"), "--frames", "1", "--surface", "--out"])
        .arg(&out)
        .output()
        .expect("powder runs");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    for frame in 0..=1 {
        let mesh = read_mesh_ply(&out.join(surface_file_name(frame))).expect("surface file");
        let particles = read_ply(&out.join(powder::export::frame_file_name(frame))).expect("frame file");
        let (lo, hi) = particles.iter().fold((Vec3::MAX, Vec3::MIN), |(lo, hi), p| {
            (lo.min(Vec3::from(p.position)), hi.max(Vec3::from(p.position)))
        });
        // The surface lies outside the particles' centres by up to half a particle spacing plus
        // the half cell of the level set's accuracy: a cell (0.5 m / 12) covers both.
        let cell = 0.5 / 12.0;
        let outside = mesh.positions.iter().filter(|p| p.cmplt(lo - cell).any() || p.cmpgt(hi + cell).any()).count();
        println!("frame {frame}: {} triangles, {outside} vertices outside the particles' box", mesh.triangles.len());
        assert!(mesh.triangles.len() > 100 && mesh.open_edges() == 0, "frame {frame}: not a closed surface");
        assert_eq!(outside, 0, "frame {frame}: surface vertices far from the snow");
    }
}

/// Whether a pixel reads as a collider: the meshes' blue-grey albedo (0.10, 0.13, 0.20) lit and
/// tone-mapped comes out at about (133, 154, 188) on the sunlit ramp and (50, 69, 111) on the
/// wall's shaded face, blue over red by 55–61; the pale sky is at most 35 bluer than red near the
/// horizon (189, 207, 224), and the ground, walls and snow are greyer.
fn is_collider(rgb: [u8; 3]) -> bool {
    let [r, g, b] = rgb.map(i32::from);
    b - r > 45 && g < 200
}

#[test]
fn a_baked_image_shows_the_colliders_and_frames_the_snow() {
    let out = tempfile::tempdir().expect("temp dir");
    let scene = concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/ramp_wall.json");
    let run = Command::new(env!("CARGO_BIN_EXE_powder"))
        .args(["run", scene, "--frames", "1", "--images", "160x90", "--checkpoint-every", "0", "--out"])
        .arg(out.path())
        .output()
        .expect("powder runs");
    assert!(run.status.success(), "powder run failed: {}", String::from_utf8_lossy(&run.stderr));
    let (w, h, pixels) = decode(&out.path().join("frame_00001.png"));
    let rgb = || pixels.chunks_exact(4).map(|p| [p[0], p[1], p[2]]);
    let total = (w * h) as usize;
    let (collider, snow) = (rgb().filter(|&p| is_collider(p)).count(), rgb().filter(|&p| is_snow(p)).count());
    eprintln!("{collider} collider and {snow} snow pixels of {total}");
    // Measured at 640x360: 16 % ramp and wall, 4.5 % snow. Before, with no meshes drawn and the
    // camera on the whole domain, no pixel was a collider's and the snow covered 0.45 %.
    assert!(collider * 20 >= total, "{collider} of {total} pixels show a collider");
    assert!(snow * 50 >= total, "the snow covers {snow} of {total} pixels");
}
