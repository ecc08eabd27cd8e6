// The water step's particle passes: particles to faces, faces back to particles (APIC or the
// PIC/FLIP blend) and the move, and the volume correction's count and displacement (after
// common.wgsl).

// Particles to faces (`FaceGrid::scatter`): weight and APIC momentum, and the particle's cell
// marked liquid.
@compute @workgroup_size(256)
fn w_scatter(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let p = linear(id, groups);
    if p >= u.particles {
        return;
    }
    let x = local_position(p);
    let v = velocities[p].xyz;
    let columns = array<vec3<f32>, 3>(affines[3u * p].xyz, affines[3u * p + 1u].xyz, affines[3u * p + 2u].xyz);
    for (var a = 0u; a < 3u; a++) {
        let s = stencil(a, x);
        // Row a of C: the gradient of velocity component a.
        let c = vec3<f32>(columns[0][a], columns[1][a], columns[2][a]);
        for (var n = 0u; n < 27u; n++) {
            let node = stencil_node(s, a, n);
            if node.x < 0 {
                continue;
            }
            let w = stencil_weight(s, n);
            let d = (vec3<f32>(node) - s.xi) * u.h;
            let f = face_index(a, vec3<u32>(node));
            atomicAdd(&face_weight[f], i32(round(w * u.fixed)));
            atomicAdd(&face_momentum[f], i32(round(w * (v[a] + dot(c, d)) * u.fixed)));
        }
    }
    atomicStore(&liquid[particle_cell(x)], 1u);
}

// The faces' field at x (`FaceGrid::sample`).
fn sample_faces(x: vec3<f32>) -> vec3<f32> {
    var out = vec3<f32>(0.0);
    for (var a = 0u; a < 3u; a++) {
        let s = stencil(a, x);
        for (var n = 0u; n < 27u; n++) {
            let node = stencil_node(s, a, n);
            if node.x >= 0 {
                out[a] += stencil_weight(s, n) * velocity[face_index(a, vec3<u32>(node))];
            }
        }
    }
    return out;
}

// Inside the domain (`WaterCpu::clamp_inside`).
fn clamp_inside(x: vec3<f32>) -> vec3<f32> {
    return clamp(x, vec3<f32>(1e-3 * u.h), u.extent - 1e-3 * u.h);
}

var<workgroup> fastest: atomic<u32>;

// Faces to particles (`FaceGrid::gather`): APIC's velocity and affine part, or the PIC/FLIP
// blend against the faces as scattered; then the move, and the fastest speed into the status.
@compute @workgroup_size(256)
fn w_gather(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    if lid == 0u {
        atomicStore(&fastest, 0u);
    }
    workgroupBarrier();
    let p = linear(id, groups);
    if p < u.particles {
        let x = local_position(p);
        var pic = vec3<f32>(0.0);
        var change = vec3<f32>(0.0);
        var affine: array<vec3<f32>, 3>;
        let scale = 4.0 / (u.h * u.h);
        for (var a = 0u; a < 3u; a++) {
            let s = stencil(a, x);
            var c = vec3<f32>(0.0);
            for (var n = 0u; n < 27u; n++) {
                let node = stencil_node(s, a, n);
                if node.x < 0 {
                    continue;
                }
                let w = stencil_weight(s, n);
                let f = face_index(a, vec3<u32>(node));
                let v = velocity[f];
                pic[a] += w * v;
                change[a] += w * (v - scattered[f]);
                c += scale * w * v * (vec3<f32>(node) - s.xi) * u.h;
            }
            affine[a] = c;
        }
        var v = pic;
        if u.transfer == 1u {
            v = u.flip_ratio * (velocities[p].xyz + change) + (1.0 - u.flip_ratio) * pic;
            affine = array<vec3<f32>, 3>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
        }
        // No faster than the scene allows (the face sums' fixed point is sized for it).
        let speed = length(v);
        if speed > u.max_speed {
            v *= u.max_speed / speed;
        }
        velocities[p] = vec4<f32>(v, velocities[p].w);
        // Rows a of C back as the stream's columns.
        for (var j = 0u; j < 3u; j++) {
            affines[3u * p + j] = vec4<f32>(affine[0][j], affine[1][j], affine[2][j], 0.0);
        }
        store_position(p, clamp_inside(x + u.dt * v));
        atomicMax(&fastest, bitcast<u32>(length(v)));
    }
    workgroupBarrier();
    if lid == 0u {
        atomicMax(&status[STATUS_SPEED], atomicLoad(&fastest));
    }
}

// The volume correction's particles per cell (`volume::particles_per_cell`: trilinear shares of
// the eight cells around), and the particle's cell marked liquid for its classification.
@compute @workgroup_size(256)
fn w_count(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let p = linear(id, groups);
    if p >= u.particles {
        return;
    }
    let x = local_position(p);
    for (var corner = 0u; corner < 8u; corner++) {
        // With snow the shares landing in the solid layer are folded into the cell inside it
        // (`volume::spread`'s fold: hole closing needs the counts exact at the walls).
        let c = corner_share(x, corner, i32(u.snow));
        atomicAdd(&count[c.cell], i32(round(c.share * u.fixed)));
    }
    atomicStore(&liquid[particle_cell(x)], 1u);
}

// Each particle moved by the displacement at it (`volume::correct`), unless no cell is air (water
// filling its container has nowhere to spread, and its solve has no free surface).
@compute @workgroup_size(256)
fn w_displace(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let p = linear(id, groups);
    if p >= u.particles || atomicLoad(&status[STATUS_AIR]) == 0u {
        return;
    }
    let x = local_position(p);
    store_position(p, clamp_inside(x + sample_faces(x)));
}
