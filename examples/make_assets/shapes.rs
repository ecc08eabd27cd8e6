//! Closed triangle meshes in glTF's frame (Y up, metres), counter-clockwise seen from outside.
//!
//! Shapes are built in f64 and rounded to f32 once, when a vertex is stored, so a vertex that
//! should lie on a plane or a sphere is the nearest f32 to it rather than carrying f32 round-off
//! from several operations.

use std::collections::HashMap;

use glam::DVec3;

/// Skin influences of one vertex: four (joint, weight) pairs whose weights sum to 1.
pub type Influences = [(u8, f32); 4];

/// A triangle mesh with per-vertex normals and, for skinned meshes, per-vertex joints and weights.
#[derive(Clone, Debug, Default)]
pub struct MeshData {
    /// Vertex positions, metres.
    pub positions: Vec<[f32; 3]>,
    /// Unit vertex normals, pointing out of the surface.
    pub normals: Vec<[f32; 3]>,
    /// Joint indices (into the skin's joint list) per vertex; empty for meshes without a skin.
    pub joints: Vec<[u8; 4]>,
    /// Weights of `joints` per vertex, summing to 1; empty for meshes without a skin.
    pub weights: Vec<[f32; 4]>,
    /// Three vertex indices per triangle, counter-clockwise seen from outside.
    pub indices: Vec<u32>,
}

impl MeshData {
    /// Adds a vertex and returns its index.
    fn push_vertex(&mut self, position: DVec3, normal: DVec3) -> u32 {
        let index = u32::try_from(self.positions.len()).expect("fewer than 2^32 vertices");
        self.positions.push(position.as_vec3().to_array());
        self.normals.push(normal.normalize().as_vec3().to_array());
        index
    }

    /// Adds a flat convex polygon whose corners are given counter-clockwise seen from outside. Its
    /// corners get their own vertices so the face's normal is not blended with its neighbours'.
    pub fn push_flat_polygon(&mut self, corners: &[DVec3]) {
        let normal = (corners[1] - corners[0]).cross(corners[2] - corners[0]);
        let first = self.positions.len() as u32;
        for &corner in corners {
            self.push_vertex(corner, normal);
        }
        for k in 1..corners.len() as u32 - 1 {
            self.indices.extend([first, first + k, first + k + 1]);
        }
    }

    /// Appends `other`'s vertices and triangles to this mesh.
    pub fn append(&mut self, other: MeshData) {
        let offset = self.positions.len() as u32;
        self.positions.extend(other.positions);
        self.normals.extend(other.normals);
        self.joints.extend(other.joints);
        self.weights.extend(other.weights);
        self.indices.extend(other.indices.iter().map(|&i| i + offset));
    }

    /// Binds every vertex of this mesh to `influences`.
    pub fn bind_all(&mut self, influences: Influences) {
        self.joints = vec![influences.map(|(joint, _)| joint); self.positions.len()];
        self.weights = vec![influences.map(|(_, weight)| weight); self.positions.len()];
    }
}

/// An axis-aligned box between corners `min` and `max`, flat shaded (four vertices per face).
pub fn cuboid(min: DVec3, max: DVec3) -> MeshData {
    let mut mesh = MeshData::default();
    for axis in 0..3 {
        // (u, v, axis) is a cyclic permutation of (x, y, z), so u × v points along +axis.
        let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
        for (fixed, outward) in [(max[axis], true), (min[axis], false)] {
            let corner = |cu: f64, cv: f64| {
                let mut p = DVec3::ZERO;
                p[axis] = fixed;
                p[u] = cu;
                p[v] = cv;
                p
            };
            let mut face =
                [corner(min[u], min[v]), corner(max[u], min[v]), corner(max[u], max[v]), corner(min[u], max[v])];
            if !outward {
                face.reverse();
            }
            mesh.push_flat_polygon(&face);
        }
    }
    mesh
}

/// A wedge (triangular prism) whose top face falls from height `height` at x = 0 to 0 at
/// x = `length`, spanning z = ±`width`/2, flat shaded.
pub fn wedge(length: f64, height: f64, width: f64) -> MeshData {
    let (near, far) = (-width / 2.0, width / 2.0);
    let foot = |z| DVec3::new(0.0, 0.0, z);
    let toe = |z| DVec3::new(length, 0.0, z);
    let top = |z| DVec3::new(0.0, height, z);
    let mut mesh = MeshData::default();
    mesh.push_flat_polygon(&[foot(near), toe(near), toe(far), foot(far)]); // bottom, −y
    mesh.push_flat_polygon(&[foot(near), foot(far), top(far), top(near)]); // back, −x
    mesh.push_flat_polygon(&[toe(near), top(near), top(far), toe(far)]); // slope, +x +y
    mesh.push_flat_polygon(&[foot(near), top(near), toe(near)]); // side, −z
    mesh.push_flat_polygon(&[foot(far), toe(far), top(far)]); // side, +z
    mesh
}

/// An icosphere: the icosahedron with each triangle split into four `subdivisions` times, every
/// vertex pushed onto the sphere of `radius` about the origin. Smooth shaded (normal = radial).
pub fn icosphere(radius: f64, subdivisions: u32) -> MeshData {
    let t = (1.0 + 5f64.sqrt()) / 2.0;
    let mut directions: Vec<DVec3> = [
        [-1.0, t, 0.0],
        [1.0, t, 0.0],
        [-1.0, -t, 0.0],
        [1.0, -t, 0.0],
        [0.0, -1.0, t],
        [0.0, 1.0, t],
        [0.0, -1.0, -t],
        [0.0, 1.0, -t],
        [t, 0.0, -1.0],
        [t, 0.0, 1.0],
        [-t, 0.0, -1.0],
        [-t, 0.0, 1.0],
    ]
    .iter()
    .map(|&p| DVec3::from_array(p).normalize())
    .collect();
    let mut faces: Vec<[u32; 3]> = vec![
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    for _ in 0..subdivisions {
        // Each edge's midpoint is made once and shared by the two triangles on that edge, so the
        // subdivided mesh stays welded. Lookups only; the new vertices' order follows `faces`.
        let mut midpoints: HashMap<(u32, u32), u32> = HashMap::new();
        let mut midpoint = |a: u32, b: u32| {
            *midpoints.entry((a.min(b), a.max(b))).or_insert_with(|| {
                directions.push((directions[a as usize] + directions[b as usize]).normalize());
                directions.len() as u32 - 1
            })
        };
        faces = faces
            .iter()
            .flat_map(|&[a, b, c]| {
                let (ab, bc, ca) = (midpoint(a, b), midpoint(b, c), midpoint(c, a));
                [[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]
            })
            .collect();
    }
    let mut mesh = MeshData::default();
    for &direction in &directions {
        mesh.push_vertex(direction * radius, direction);
    }
    mesh.indices = faces.into_iter().flatten().collect();
    mesh
}

/// One cross-section of a [`tube`]: an ellipse at height `y` with half-widths `radius_x` and
/// `radius_z`, whose vertices are skinned with `influences`.
#[derive(Clone, Copy, Debug)]
pub struct Ring {
    /// Height of the cross-section, metres.
    pub y: f64,
    /// Half-width along x, metres.
    pub radius_x: f64,
    /// Half-width along z, metres.
    pub radius_z: f64,
    /// Skin influences of the ring's vertices (and of the cap on it, for the first and last ring).
    pub influences: Influences,
}

/// A closed vertical tube about the line x = `centre_x`, z = `centre_z` through `rings` (listed
/// from the bottom up), each ring a polygon of `sides` corners, closed by flat caps. The side is
/// smooth shaded; the caps have their own vertices so their normals stay vertical.
pub fn tube(centre_x: f64, centre_z: f64, rings: &[Ring], sides: u32) -> MeshData {
    // Angles run counter-clockwise seen from above (+y), so (side step) × (+y) points outward.
    let corner = |ring: &Ring, k: u32| {
        let angle = std::f64::consts::TAU * f64::from(k % sides) / f64::from(sides);
        DVec3::new(centre_x + ring.radius_x * angle.cos(), ring.y, centre_z - ring.radius_z * angle.sin())
    };
    let mut side = MeshData::default();
    for ring in rings {
        for k in 0..sides {
            // The normal is replaced below by the average of the side triangles around the vertex.
            side.push_vertex(corner(ring, k), DVec3::Y);
        }
    }
    for r in 0..rings.len() as u32 - 1 {
        for k in 0..sides {
            let (lower, lower_next) = (r * sides + k, r * sides + (k + 1) % sides);
            let (upper, upper_next) = (lower + sides, lower_next + sides);
            side.indices.extend([lower, lower_next, upper_next, lower, upper_next, upper]);
        }
    }
    // Area-weighted average of the adjacent triangles' normals: right where rings change radius
    // (a neck, a shoulder), where a purely radial normal would not be.
    let mut normal_sums = vec![DVec3::ZERO; side.positions.len()];
    let corners: Vec<DVec3> = rings.iter().flat_map(|ring| (0..sides).map(move |k| corner(ring, k))).collect();
    for triangle in side.indices.chunks_exact(3) {
        let [a, b, c] = [0, 1, 2].map(|i| corners[triangle[i] as usize]);
        let area_normal = (b - a).cross(c - a);
        for &i in triangle {
            normal_sums[i as usize] += area_normal;
        }
    }
    for (normal, sum) in side.normals.iter_mut().zip(normal_sums) {
        *normal = sum.normalize().as_vec3().to_array();
    }
    side.joints = rings.iter().flat_map(|ring| (0..sides).map(|_| ring.influences.map(|(j, _)| j))).collect();
    side.weights = rings.iter().flat_map(|ring| (0..sides).map(|_| ring.influences.map(|(_, w)| w))).collect();

    let mut mesh = side;
    for (ring, up) in [(&rings[rings.len() - 1], true), (&rings[0], false)] {
        let mut cap = MeshData::default();
        let normal = if up { DVec3::Y } else { DVec3::NEG_Y };
        let centre = cap.push_vertex(DVec3::new(centre_x, ring.y, centre_z), normal);
        for k in 0..sides {
            cap.push_vertex(corner(ring, k), normal);
        }
        for k in 0..sides {
            let (this, next) = (1 + k, 1 + (k + 1) % sides);
            let triangle = if up { [centre, this, next] } else { [centre, next, this] };
            cap.indices.extend(triangle);
        }
        cap.bind_all(ring.influences);
        mesh.append(cap);
    }
    mesh
}

/// A closed solid of revolution about the y axis: `profile` is its cross-section's outline in
/// (radius, y), starting and ending on the axis (radius 0) and running so that the solid lies to
/// its left (outward, from the bottom's centre, up the outside and back down the inside), turned
/// through `sides` steps. Its vertices are shared around the solid and smooth shaded (each
/// normal the area-weighted mean of its triangles'), a point on the axis a single vertex.
pub fn lathe(profile: &[(f64, f64)], sides: u32) -> MeshData {
    let corner = |(r, y): (f64, f64), k: u32| {
        let angle = std::f64::consts::TAU * f64::from(k % sides) / f64::from(sides);
        DVec3::new(r * angle.cos(), y, -r * angle.sin())
    };
    let mut mesh = MeshData::default();
    let mut points = Vec::new();
    // Per profile point its vertices: one on the axis, `sides` elsewhere.
    let mut rows: Vec<Vec<u32>> = Vec::new();
    for &p in profile {
        let count = if p.0 == 0.0 { 1 } else { sides };
        rows.push((0..count).map(|k| mesh.push_vertex(corner(p, k), DVec3::Y)).collect());
        points.extend((0..count).map(|k| corner(p, k)));
    }
    let at = |row: &Vec<u32>, k: u32| row[(k % row.len() as u32) as usize];
    for pair in rows.windows(2) {
        let (low, high) = (&pair[0], &pair[1]);
        for k in 0..sides {
            let (a, b, c, d) = (at(low, k), at(low, k + 1), at(high, k + 1), at(high, k));
            // Counter-clockwise seen from the side the profile's right hand points to: outside.
            if a != b {
                mesh.indices.extend([a, b, c]);
            }
            if c != d {
                mesh.indices.extend([a, c, d]);
            }
        }
    }
    let mut sums = vec![DVec3::ZERO; points.len()];
    for triangle in mesh.indices.chunks_exact(3) {
        let [a, b, c] = [0, 1, 2].map(|i| points[triangle[i] as usize]);
        let area_normal = (b - a).cross(c - a);
        for &i in triangle {
            sums[i as usize] += area_normal;
        }
    }
    for (normal, sum) in mesh.normals.iter_mut().zip(sums) {
        *normal = sum.normalize().as_vec3().to_array();
    }
    mesh
}
