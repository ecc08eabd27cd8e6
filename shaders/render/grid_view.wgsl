// grid_view: one plane of nodes of the solver's grid, as one f32 per node (src/render/grid_view.rs).
//
// The plane is the nodes whose coordinate along `axis` is `slice_index`; its two other axes, in
// increasing order, are the image's u (fastest) and v. The value read is the node's state after the
// last grid update: `grid_velocity` holds velocity (xyz, m/s) and mass (w, kg) per stored node. On a
// sparse grid a node is found through its block's pool block, as the MPM passes find it
// (`grid_place` in mpm/types.wgsl); a node whose block had none in the last substep reads 0, which
// is what an empty node holds on a dense grid.
//
// The collider distance is read from the colliders' field at the end of the simulation's current
// frame (`colliders_end`, one ColliderNode per node of the dense grid whatever the grid's storage,
// a single placeholder while there are no colliders): metres, negative inside, FAR where no
// collider is near.

struct GridViewParams {
    node_dims: vec3<u32>,
    axis: u32,
    slice_index: u32,
    // 0: node mass (kg); 1: node speed |v| (m/s); 2: collider signed distance (m).
    quantity: u32,
    // 0 on a dense grid; the pool's size in blocks on a sparse one.
    pool_blocks: u32,
    _pad0: u32,
}

@group(0) @binding(0) var<uniform> view: GridViewParams;
@group(0) @binding(1) var<storage, read> grid_velocity: array<vec4<f32>>;
// One entry per grid block, stored one up (0: no pool block), as the sort writes it.
@group(0) @binding(2) var<storage, read> block_slots: array<u32>;
@group(0) @binding(3) var<storage, read_write> slice_values: array<f32>;

// A node of a collider field (ColliderNode in mpm/types.wgsl, GpuColliderNode in Rust).
struct ViewColliderNode {
    normal: vec3<f32>,
    distance: f32,
    velocity: vec3<f32>,
    surface: u32,
}

@group(0) @binding(4) var<storage, read> colliders_end: array<ViewColliderNode>;

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
    let blocks = (d + vec3<u32>(VIEW_BLOCK_EDGE - 1u)) / VIEW_BLOCK_EDGE;
    let b = node / VIEW_BLOCK_EDGE;
    // Stored 0 (none) wraps to 0xffffffff; 0xffffffff (the pool ran out) to 0xfffffffe.
    let slot = block_slots[b.x + blocks.x * (b.y + blocks.y * b.z)] - 1u;
    if (slot >= view.pool_blocks) {
        return VIEW_NO_NODE;
    }
    let w = node % VIEW_BLOCK_EDGE;
    let edge = VIEW_BLOCK_EDGE;
    return slot * edge * edge * edge + w.x + edge * (w.y + edge * w.z);
}

@compute @workgroup_size(8, 8, 1)
fn grid_view_slice(@builtin(global_invocation_id) id: vec3<u32>) {
    let axes = plane_axes(view.axis);
    let extent = vec2<u32>(view.node_dims[axes.x], view.node_dims[axes.y]);
    if (id.x >= extent.x || id.y >= extent.y) {
        return;
    }
    var node = vec3<u32>(0u);
    node[view.axis] = view.slice_index;
    node[axes.x] = id.x;
    node[axes.y] = id.y;
    var value = 0.0;
    if (view.quantity == 2u) {
        let d = view.node_dims;
        let index = node.x + d.x * (node.y + d.y * node.z);
        value = VIEW_FAR;
        if (index < arrayLength(&colliders_end)) {
            value = colliders_end[index].distance;
        }
        slice_values[id.x + extent.x * id.y] = value;
        return;
    }
    let place = stored_place(node);
    if (place != VIEW_NO_NODE) {
        let state = grid_velocity[place];
        if (view.quantity == 0u) {
            value = state.w;
        } else {
            value = length(state.xyz);
        }
    }
    slice_values[id.x + extent.x * id.y] = value;
}
