// grid_view: one plane of nodes of the solver's grid, four f32 per node (src/render/grid_view.rs).
//
// The plane is the nodes whose coordinate along `axis` is `slice_index`; its two other axes, in
// increasing order, are the image's u (fastest) and v. Each node of the plane gets the quantity,
// the node's velocity along u and along v (m/s) and its mass (kg), so the app can draw the flow's
// direction in the plane, where snow is, whatever quantity it colours by. The state read is the
// node's after the last grid update: `grid_velocity` holds velocity (xyz, m/s) and mass (w, kg) per stored node. On a
// sparse grid a node is found through its block's pool block, as the MPM passes find it
// (`grid_place` in mpm/types.wgsl); a node whose block had none in the last substep reads 0, which
// is what an empty node holds on a dense grid.
//
// On the binned paths the grid update visits only the blocks the last substep's stencils touched,
// and nodes elsewhere keep the velocity and mass of the last substep that touched them (no
// particle reads them; grid_update_blocks.wgsl). Those would show a stale trail where snow once
// was, so `grid_view_touched` first marks the plane's nodes whose block some page's sort listed as
// touched (BlockBin.listed, set until the next sort's bin_clear), and only marked nodes are read.
//
// The collider distance is read from the colliders' field at the end of the simulation's current
// frame (`colliders_end`, one ColliderNode per node of the dense grid whatever the grid's storage,
// a single placeholder while there are no colliders): metres, negative inside, FAR where no
// collider is near.

struct GridViewParams {
    node_dims: vec3<u32>,
    axis: u32,
    slice_index: u32,
    // 0: node mass (kg); 1: node speed |v| (m/s); 2: collider signed distance (m); 3: plastic
    // volume ratio Jp; 4: Kirchhoff stress magnitude |τ| (Pa). 3 and 4 are splatted from the
    // particles (grid_view_splat, grid_view_resolve).
    quantity: u32,
    // 0 on a dense grid; the pool's size in blocks on a sparse one.
    pool_blocks: u32,
    // Particles of the page grid_view_splat reads.
    particle_count: u32,
    // The grid's node 0, metres.
    grid_origin: vec3<f32>,
    cell_size: f32,
    // 1 where the grid update visits touched blocks only (the binned paths): read marked nodes only.
    touched_only: u32,
    // Scalars, not a vec3 (which would align to 16 bytes and grow the block past Rust's 64).
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> view: GridViewParams;
@group(0) @binding(1) var<storage, read> grid_velocity: array<vec4<f32>>;
// One entry per grid block, stored one up (0: no pool block), as the sort writes it.
@group(0) @binding(2) var<storage, read> block_slots: array<u32>;
// Per node of the plane: value, velocity along u, velocity along v, mass.
@group(0) @binding(3) var<storage, read_write> slice_values: array<f32>;

// A node of a collider field (ColliderNode in mpm/types.wgsl, GpuColliderNode in Rust).
struct ViewColliderNode {
    normal: vec3<f32>,
    distance: f32,
    velocity: vec3<f32>,
    surface: u32,
}

@group(0) @binding(4) var<storage, read> colliders_end: array<ViewColliderNode>;

// The page's particle streams the splat reads: position (xyz, mass as w), the plastic record
// (Jp first) and the Kirchhoff stress τ (xx, yy, zz, xy | xz, yz, 0, 0).
@group(0) @binding(5) var<storage, read> view_position: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> view_plastic: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read> view_stress: array<vec4<f32>>;
// Per node of the plane: Σ w m q and Σ w m, as f32 bits added with compare-exchange loops.
@group(0) @binding(8) var<storage, read_write> splat_sums: array<atomic<u32>>;

// A grid block's bin (BlockBin in mpm/types.wgsl, GpuBlockBin in Rust): only `listed` is read.
struct ViewBlockBin {
    count: u32,
    offset: u32,
    cursor: u32,
    listed: u32,
}

// The block bins of the page grid_view_touched reads.
@group(0) @binding(9) var<storage, read> view_block_bins: array<ViewBlockBin>;
// Per node of the plane: 1 once some page listed its block as touched in the last substep.
@group(0) @binding(10) var<storage, read_write> touched: array<u32>;

// The distance stored where no collider is near (FAR in src/collider/field.rs).
const VIEW_FAR: f32 = 1.0e30;

// The edge of a grid block in nodes (BLOCK_EDGE in mpm/types.wgsl).
const VIEW_BLOCK_EDGE: u32 = 4u;
const VIEW_NO_NODE: u32 = 0xffffffffu;

// The image axes (u, v) of a plane normal to `axis`: the other two, in increasing order.
fn plane_axes(axis: u32) -> vec2<u32> {
    if (axis == 0u) {
        return vec2<u32>(1u, 2u);
    }
    if (axis == 1u) {
        return vec2<u32>(0u, 2u);
    }
    return vec2<u32>(0u, 1u);
}

// Where `node` is stored in grid_velocity, or VIEW_NO_NODE.
fn stored_place(node: vec3<u32>) -> u32 {
    let d = view.node_dims;
    if (view.pool_blocks == 0u) {
        return node.x + d.x * (node.y + d.y * node.z);
    }
    // Stored 0 (none) wraps to 0xffffffff; 0xffffffff (the pool ran out) to 0xfffffffe.
    let slot = block_slots[node_block(node)] - 1u;
    if (slot >= view.pool_blocks) {
        return VIEW_NO_NODE;
    }
    let w = node % VIEW_BLOCK_EDGE;
    let edge = VIEW_BLOCK_EDGE;
    return slot * edge * edge * edge + w.x + edge * (w.y + edge * w.z);
}

// The grid block holding `node`, in the dense block order of the bins.
fn node_block(node: vec3<u32>) -> u32 {
    let blocks = (view.node_dims + vec3<u32>(VIEW_BLOCK_EDGE - 1u)) / VIEW_BLOCK_EDGE;
    let b = node / VIEW_BLOCK_EDGE;
    return b.x + blocks.x * (b.y + blocks.y * b.z);
}

// The node's grid state (velocity xyz, mass w) after the last grid update; 0 where it has none or
// (touched_only) the last substep did not update it: image place `k`.
fn node_state(node: vec3<u32>, k: u32) -> vec4<f32> {
    if (view.touched_only != 0u && touched[k] == 0u) {
        return vec4<f32>(0.0);
    }
    let place = stored_place(node);
    if (place == VIEW_NO_NODE) {
        return vec4<f32>(0.0);
    }
    return grid_velocity[place];
}

// The plane's size in nodes along u and v.
fn plane_extent() -> vec2<u32> {
    let axes = plane_axes(view.axis);
    return vec2<u32>(view.node_dims[axes.x], view.node_dims[axes.y]);
}

// The plane's node at image place `uv`.
fn plane_node(uv: vec2<u32>) -> vec3<u32> {
    let axes = plane_axes(view.axis);
    var node = vec3<u32>(0u);
    node[view.axis] = view.slice_index;
    node[axes.x] = uv.x;
    node[axes.y] = uv.y;
    return node;
}

// Writes image place `k`: the quantity, the velocity's components along the plane's axes and the
// node's mass, from `state` (velocity xyz, mass w).
fn write_node(k: u32, value: f32, state: vec4<f32>) {
    let axes = plane_axes(view.axis);
    slice_values[4u * k] = value;
    slice_values[4u * k + 1u] = state[axes.x];
    slice_values[4u * k + 2u] = state[axes.y];
    slice_values[4u * k + 3u] = state.w;
}

// One thread per node of the plane: marks it if the page's last sort listed its block as touched.
@compute @workgroup_size(8, 8, 1)
fn grid_view_touched(@builtin(global_invocation_id) id: vec3<u32>) {
    let extent = plane_extent();
    if (id.x >= extent.x || id.y >= extent.y) {
        return;
    }
    if (view_block_bins[node_block(plane_node(id.xy))].listed != 0u) {
        touched[id.x + extent.x * id.y] = 1u;
    }
}

@compute @workgroup_size(8, 8, 1)
fn grid_view_slice(@builtin(global_invocation_id) id: vec3<u32>) {
    let extent = plane_extent();
    if (id.x >= extent.x || id.y >= extent.y) {
        return;
    }
    let node = plane_node(id.xy);
    let state = node_state(node, id.x + extent.x * id.y);
    var value = 0.0;
    if (view.quantity == 0u) {
        value = state.w;
    } else if (view.quantity == 1u) {
        value = length(state.xyz);
    } else {
        let d = view.node_dims;
        let index = node.x + d.x * (node.y + d.y * node.z);
        value = VIEW_FAR;
        if (index < arrayLength(&colliders_end)) {
            value = colliders_end[index].distance;
        }
    }
    write_node(id.x + extent.x * id.y, value, state);
}

// Adds `value` to the f32 whose bits are splat_sums[slot].
fn add_f32(slot: u32, value: f32) {
    var old = atomicLoad(&splat_sums[slot]);
    loop {
        let swapped = atomicCompareExchangeWeak(&splat_sums[slot], old, bitcast<u32>(bitcast<f32>(old) + value));
        if (swapped.exchanged) {
            break;
        }
        old = swapped.old_value;
    }
}

// The particle's quantity: Jp, or |τ| = sqrt(Σ τ_ij²) (Frobenius norm, off-diagonals twice).
fn particle_quantity(p: u32) -> f32 {
    if (view.quantity == 3u) {
        return view_plastic[p].x;
    }
    let a = view_stress[2u * p];
    let b = view_stress[2u * p + 1u];
    return sqrt(a.x * a.x + a.y * a.y + a.z * a.z + 2.0 * (a.w * a.w + b.x * b.x + b.y * b.y));
}

// One thread per particle: its quadratic B-spline stencil (as P2G's) onto the plane's nodes.
@compute @workgroup_size(64, 1, 1)
fn grid_view_splat(@builtin(global_invocation_id) id: vec3<u32>) {
    let p = id.x;
    if (p >= view.particle_count) {
        return;
    }
    let x = view_position[p];
    let xg = (x.xyz - view.grid_origin) / view.cell_size;
    let base = floor(xg - vec3<f32>(0.5));
    let f = xg - base;
    let a = view.axis;
    let o = i32(view.slice_index) - i32(base[a]);
    if (o < 0 || o > 2) {
        return;
    }
    let axes = plane_axes(a);
    let extent = plane_extent();
    let q = particle_quantity(p);
    var w: array<vec3<f32>, 3>;
    w[0] = 0.5 * (vec3<f32>(1.5) - f) * (vec3<f32>(1.5) - f);
    w[1] = vec3<f32>(0.75) - (f - vec3<f32>(1.0)) * (f - vec3<f32>(1.0));
    w[2] = 0.5 * (f - vec3<f32>(0.5)) * (f - vec3<f32>(0.5));
    let wa = w[o][a];
    for (var i = 0u; i < 3u; i++) {
        for (var j = 0u; j < 3u; j++) {
            let u = i32(base[axes.x]) + i32(i);
            let v = i32(base[axes.y]) + i32(j);
            if (u < 0 || v < 0 || u >= i32(extent.x) || v >= i32(extent.y)) {
                continue;
            }
            let weight = wa * w[i][axes.x] * w[j][axes.y] * x.w;
            let k = u32(u) + extent.x * u32(v);
            add_f32(2u * k, weight * q);
            add_f32(2u * k + 1u, weight);
        }
    }
}

// One thread per node of the plane: the mass-weighted mean Σ w m q / Σ w m, 0 where no particle's
// stencil reaches.
@compute @workgroup_size(8, 8, 1)
fn grid_view_resolve(@builtin(global_invocation_id) id: vec3<u32>) {
    let extent = plane_extent();
    if (id.x >= extent.x || id.y >= extent.y) {
        return;
    }
    let k = id.x + extent.x * id.y;
    let weight = bitcast<f32>(atomicLoad(&splat_sums[2u * k + 1u]));
    var value = 0.0;
    if (weight > 0.0) {
        value = bitcast<f32>(atomicLoad(&splat_sums[2u * k])) / weight;
    }
    write_node(k, value, node_state(plane_node(id.xy), k));
}
