// pb_clock: the start of a PB-MPM step. One thread: counts the step, and sets its dt (the frame's
// fixed step, clock.fixed_dt), its collider blend (steps so far over the frame's planned steps)
// and how long gravity acts before it (clock.pb_kick, from the previous step's length in
// clock.pb_prev_dt), and marks the first iteration as not gathering (clock.pb_gathering), so
// that the host records a whole frame of steps in one submission with no write between them.
// Host side: src/sim/pbmpm/gpu.rs. The explicit integrator's clock_advance does the same job with
// a stable dt chosen from the state.
// Reads and writes: clock.

@compute @workgroup_size(1)
fn pb_clock() {
    clock.substeps += 1u;
    clock.dt = clock.fixed_dt;
    clock.time += clock.fixed_dt;
    clock.blend = min(f32(clock.substeps) / f32(max(clock.planned, 1u)), 1.0);
    clock.running = 1u;
    clock.pb_gathering = 0u;
    clock.pb_kick = 0.5 * (clock.pb_prev_dt + clock.fixed_dt);
    clock.pb_prev_dt = clock.fixed_dt;
}
