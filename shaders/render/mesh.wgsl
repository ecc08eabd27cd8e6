// Collider meshes: opaque triangles with flat per-face normals, lit like the snow.
//
// The host uploads three vertices per triangle, each carrying the triangle's face normal
// (src/render/mesh.rs, MeshVertex; tests/render_shaders.rs checks the attribute formats). The
// rasteriser writes the surface's true depth, so impostors (which write frag_depth) and meshes
// intersect exactly, and the volume raymarch stops at meshes as it does at the ground.
//
// Meshes may be open or seen from inside, so no face is culled and the normal is turned toward the
// eye: both faces are lit.

// Mid grey-blue: bright enough that the sun-facing, turned-away and shadowed faces read apart,
// darker than snow (0.9) and bluer than the ground, so a collider never reads as either.
const MESH_ALBEDO: vec3<f32> = vec3<f32>(0.10, 0.13, 0.20);

struct MeshVertex {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
}

struct MeshFragment {
    @builtin(position) position: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) @interpolate(flat) normal: vec3<f32>,
}

@vertex
fn mesh_vertex(in: MeshVertex) -> MeshFragment {
    var out: MeshFragment;
    out.position = frame.view_proj * vec4<f32>(in.position, 1.0);
    out.world = in.position;
    out.normal = in.normal;
    return out;
}

@fragment
fn mesh_fragment(in: MeshFragment) -> @location(0) vec4<f32> {
    // The face seen is the one toward the eye, whichever way the triangle winds.
    let n = select(in.normal, -in.normal, dot(in.normal, frame.eye - in.world) < 0.0);
    // Plain Lambert: a hard surface, unlike snow's wrapped term. The snow's shadow and occlusion come
    // from the density volume, as on the impostors and the ground, looked up half a voxel out on the
    // lit side so that snow behind a thin wall does not shade its front.
    let probe = in.world + n * (0.5 * frame.volume_voxel);
    let sun = SUN_RADIANCE * (max(dot(n, frame.sun_direction), 0.0) * sun_visibility(probe));
    let ambient = ambient_radiance(n) * sky_visibility(in.world, n);
    return vec4<f32>(to_display(MESH_ALBEDO * (sun + ambient)), 1.0);
}
