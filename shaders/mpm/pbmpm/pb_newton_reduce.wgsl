// pb_newton_reduce: one workgroup adds up the partial sums of the last node pass and turns them
// into the conjugate-gradient scalars in pb_solve's header, by the immediate: 0, rᵀz at the
// prediction (β = 0, so the first direction is z); 1, pᵀAp and α = rᵀz / pᵀAp; 2, the new rᵀz
// and β = new / old; 3, rᵀM⁻¹r at the prediction and the mass; 4, rᵀM⁻¹r after the last
// iteration (where the solve stopped on its tolerance, the one round 2 kept from
// pb_newton_prolong's second sum), and the relative residual (its square root over the
// prediction's; 0 for a prediction's residual under NEWTON_RESIDUAL_FLOOR) into status's largest
// since the last report, and the iterations run into its counts; 5, rᵀz at a later Newton step's
// point (β = 0 again), stopping its iterations if it is already within the tolerance of r₀ᵀz₀ (the
// first step's) and keeping the iteration count. Round 0 also keeps r₀ᵀz₀ and
// stops a solve with nothing to do; round 2 stops it once √(rᵀz) ≤ pb_tolerance · √(r₀ᵀz₀);
// rounds 1 and 2 then do nothing for the rest of the step. CPU twin: newton::step
// (SolveReport::mass_residual).
// Reads: params, pb_solve. Writes: pb_solve, status.

var<immediate> newton_round: u32;

@compute @workgroup_size(WORKGROUP_SIZE)
fn pb_newton_reduce(@builtin(local_invocation_index) local: u32) {
    // α and β belong to the iterations, which stop once the tolerance is met.
    if (newton_round == 1u || newton_round == 2u) {
        if (newton_stopped(local)) {
            return;
        }
    }
    let count = (node_count() + WORKGROUP_SIZE - 1u) / WORKGROUP_SIZE;
    var mine = vec2<f32>(0.0);
    for (var i = local; i < count; i += WORKGROUP_SIZE) {
        mine += pb_solve[partial_base() + i].xy;
    }
    newton_partial[local] = mine;
    workgroupBarrier();
    for (var stride = 128u; stride > 0u; stride >>= 1u) {
        if (local < stride && local + stride < WORKGROUP_SIZE) {
            newton_partial[local] += newton_partial[local + stride];
        }
        workgroupBarrier();
    }
    if (local != 0u) {
        return;
    }
    let sum = newton_partial[0].x;
    let h = pb_solve[0];
    switch newton_round {
        case 0u: {
            pb_solve[0] = vec4<f32>(sum, 0.0, 0.0, 0.0);
            let head = pb_solve[1];
            pb_solve[1].w = sum;
            // pb_newton_prolong's second sum: rᵀM⁻¹r, the residual a stop before any iteration leaves.
            pb_solve[1].y = newton_partial[0].y;
            // A prediction in balance needs no iteration, as in the twin: rᵀz = 0, or under a
            // tolerance an imbalance under NEWTON_RESIDUAL_FLOOR (rounding, as in free fall).
            let balanced = sum <= 0.0 || (params.pb_tolerance > 0.0 && newton_rounding(head));
            pb_solve[2] = vec4<f32>(select(0.0, 1.0, balanced), 0.0, 0.0, 0.0);
        }
        case 5u: {
            pb_solve[0] = vec4<f32>(sum, 0.0, 0.0, 0.0);
            let head = pb_solve[1];
            pb_solve[1].y = newton_partial[0].y;
            let tolerance = params.pb_tolerance;
            let balanced = head.w <= 0.0 || (tolerance > 0.0 && newton_rounding(head));
            pb_solve[2].x = select(0.0, 1.0, balanced || sum <= tolerance * tolerance * head.w);
        }
        case 3u: {
            pb_solve[1] = vec4<f32>(sum, 0.0, newton_partial[0].y, 0.0);
            pb_solve[2] = vec4<f32>(0.0);
        }
        case 4u: {
            let head = pb_solve[1];
            let initial = head.x;
            // A solve that stopped on its tolerance ran no update since its last round 2, which
            // kept the residual then; otherwise the last update's sums are the residual.
            let last = select(sum, head.y, pb_solve[2].x == 1.0);
            pb_solve[1] = vec4<f32>(initial, last, head.z, head.w);
            let relative = select(0.0, sqrt(max(last, 0.0) / initial), !newton_rounding(head) && initial > 0.0);
            atomicMax(&status.max_solve_residual_bits, bitcast<u32>(relative));
            atomicAdd(&status.solve_iterations, u32(pb_solve[2].y));
            atomicAdd(&status.solve_steps, 1u);
        }
        case 1u: {
            pb_solve[0] = vec4<f32>(h.x, sum, select(0.0, h.x / sum, sum > 0.0), h.w);
            pb_solve[2].y += 1.0;
        }
        default: {
            pb_solve[0] = vec4<f32>(sum, h.y, h.z, select(0.0, sum / h.x, h.x > 0.0));
            pb_solve[1].y = newton_partial[0].y;
            // The twin's test: stop once √(rᵀz) ≤ tolerance · √(r₀ᵀz₀).
            let tolerance = params.pb_tolerance;
            if (sum <= tolerance * tolerance * pb_solve[1].w) {
                pb_solve[2].x = 1.0;
            }
        }
    }
}
