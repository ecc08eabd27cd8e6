// clock_advance: chooses the current substep's dt from the state it is about to step, and
// whether it runs at all (src/sim/explicit/clock.rs has the host's side). One thread, once per substep,
// after clock_stats over every page and before clock_gate.
// Reads: params, clock (with clock_stats's maxima). Writes: clock.
//
// The stable dt is cfl · h / (v_max + c), with c = max sqrt((λ₀ + 2μ₀) · hc / ρ) the fastest
// P-wave speed of any particle (its material, hardened by its Jp), and no longer than the viscous
// limit clock.viscous_dt (docs/algorithm.md, "Time step"). A frame of planned
// substeps runs them at fixed_dt, whatever the stable dt; otherwise the frame's remaining time is
// split into equal substeps no longer than the stable dt, the first of which runs now, so no
// substep passes the frame's end and none is left a sliver. Past max_substeps the substeps
// stretch to end the frame in time. Every substep's dt / stable dt goes into max_ratio.

// A frame of planned = 0 has ended once less than this fraction of its span is left: the last
// substep ends at span up to f32 rounding of the sum.
const TIME_TOLERANCE: f32 = 1.0e-5;

fn frame_finished() -> bool {
    if (clock.planned > 0u) {
        return clock.substeps >= clock.planned;
    }
    return clock.substeps >= clock.max_substeps || clock.span - clock.time <= TIME_TOLERANCE * clock.span;
}

@compute @workgroup_size(1)
fn clock_advance() {
    let speed_bits = atomicExchange(&clock.max_speed_bits, 0u);
    let wave_bits = atomicExchange(&clock.max_wave_speed_squared_bits, 0u);
    if (clock.finished != 0u) {
        clock.running = 0u;
        return;
    }
    // Compared as bits so that NaN and +∞ (whose bits order above every finite value) fall back
    // to the bounds the solver enforces, as stable_dt in src/sim/solver/mod.rs does.
    var speed = bitcast<f32>(speed_bits);
    if (speed_bits > bitcast<u32>(params.max_speed)) {
        speed = params.max_speed;
    }
    var wave_squared = bitcast<f32>(wave_bits);
    if (wave_bits >= 0x7f800000u) {
        wave_squared = clock.wave_speed_squared * exp(MAX_HARDENING_EXPONENT);
    }
    // +∞ where no particle moves and none is stiff (no particles): then one substep ends the frame.
    let stable = min(clock.cfl * params.cell_size / (speed + sqrt(wave_squared)), clock.viscous_dt);
    var dt = clock.fixed_dt;
    if (clock.planned == 0u) {
        let remaining = clock.span - clock.time;
        let left = clock.max_substeps - clock.substeps;
        let wanted = max(ceil(remaining / stable), 1.0);
        if (wanted <= f32(left)) {
            // remaining / wanted ≤ stable but for rounding, which the min removes.
            dt = min(remaining / wanted, stable);
        } else {
            dt = remaining / f32(left);
        }
    }
    clock.dt = dt;
    clock.time += dt;
    clock.substeps += 1u;
    clock.running = 1u;
    clock.max_ratio = max(clock.max_ratio, dt / stable);
    clock.stable_dt = stable;
    clock.min_stable_dt = min(clock.min_stable_dt, stable);
    if (clock.planned > 0u) {
        clock.blend = f32(clock.substeps) / f32(clock.planned);
    } else {
        clock.blend = min(clock.time / clock.span, 1.0);
    }
    clock.finished = u32(frame_finished());
}
