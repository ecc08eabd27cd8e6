// Memory-bandwidth probe of `powder bench` (src/bench.rs): each thread copies one 16-byte element,
// the access pattern of a well-coalesced streaming kernel. Its time gives the floor that the MPM
// passes are compared against.

override WORKGROUP_SIZE: u32 = 256u;

@group(0) @binding(0) var<storage, read> source: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> destination: array<vec4<u32>>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn copy(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = (workgroup.y * workgroups.x + workgroup.x) * WORKGROUP_SIZE + local;
    if (index < arrayLength(&destination)) {
        destination[index] = source[index];
    }
}
