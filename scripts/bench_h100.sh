#!/usr/bin/env bash
# The benchmark runs behind docs/performance.md, as one command on a GPU machine. Run from the
# repository root there, with the release binaries in bench-bin/ (git-ignored) and, where the
# machine lacks them, the Vulkan loader packages in .gl/:
#
#   cargo build --release && mkdir -p bench-bin && cp target/release/powder bench-bin/
#   bash scripts/bench_h100.sh <what>...
#
# <what> is any of:
#   table     naive, sorted and fused at 100k, 1M, 4M and 16M particles
#   layout    the same cases on sorted and fused with bench-bin/powder-aos (the 144-byte particle
#             record, built from the commit before the stream layout), for comparison in one call
#   ablate    g2p2g at 1M with parts of it removed (--shaders): where its time goes
#   stress    sorted and fused at 1M and 4M with bench-bin/powder-prev (the commit before the
#             stored stress, P2G taking its own SVD) and with bench-bin/powder, in one call
#   realtime  the sorted path at 1M, then whole frames (substeps + rendering, 1280×720) with as many
#             substeps per frame as real time at 30 fps needs at the stable dt it reports
#   scatter   sorted and fused at 1M and 4M with the shaders of the stream-layout commit
#             (bench-bin/shaders-streams, from `git archive`) and with the current ones; then
#             g2p2g with 5 and 3 Jacobi sweeps in the SVD (4 since 2026-11-24; the run in
#             docs/performance.md varied 5 → 4 and 3), and without its scatter
#   reorder   at 1M, lattice and shuffled particle order: naive, and sorted and fused reordering
#             never and every 1, 16 and 64 substeps (src/sim/sort/reorder.rs)
#   shuffled  the table's cases with the particles in a shuffled order (snow that has mixed)
#   spread    sorted and fused at 1M and 16M with the current shaders and with bench-bin/shaders-spread
#             (a copy of shaders/ whose tile kernels visit a block's particles in a strided order)
#   variants  sorted and fused at 1M and 16M with the current shaders and with each copy
#             bench-bin/shaders-* (edited copies of shaders/, described in docs/performance.md)
#   checks    sorted and fused at 1M and 16M with each POWDER_SHADER_CHECKS (what wgpu adds to the
#             kernels: loop counters, index clamps), with the current shaders and each
#             bench-bin/shaders-* copy
#   p2g       the sorted path's three P2G kernels at 1M and 4M
#   pages     sorted and fused at 1M and 16M in one page and in smaller pages (--page-particles),
#             then 64M and 100M particles, past one binding's size limit
#   sparse    the sorted path on a dense and a sparse grid at 1M and 16M, then on 800³ and 1024³ grids
# Outputs go to $OUT (or out/ where OUT is unset), one file per part.
set -uo pipefail
out="${OUT:-out}"
mkdir -p "$out"
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
bin=bench-bin/powder
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$out/gpu.txt"

# A copy of shaders/ with `sed` expressions applied to one file: variants for --shaders.
variant() {
    local name=$1 file=$2 expr=$3
    rm -rf "/tmp/variants/$name"
    mkdir -p /tmp/variants
    cp -r shaders "/tmp/variants/$name"
    sed -i "$expr" "/tmp/variants/$name/mpm/$file"
    if cmp -s "shaders/mpm/$file" "/tmp/variants/$name/mpm/$file"; then
        echo "variant $name changed nothing in $file" >&2
        exit 1
    fi
}

for what in "$@"; do
    case $what in
    table)
        $bin bench --particles 100000,1000000,4000000,16000000 --grid 128,128,256,256 --substeps 200 \
            --path naive,sorted,fused 2>&1 | tee "$out/table.txt"
        ;;
    pages)
        # Particle pages (src/sim/page.rs): 1M and 16M in one page and in pages of a quarter
        # (and 16M in halves), then 64M and 100M, past one binding (44.7M on the H100).
        {
            $bin bench --particles 1000000,16000000 --grid 128,256 --substeps 200 --path sorted,fused
            $bin bench --particles 1000000 --grid 128 --substeps 200 --path sorted,fused --page-particles 250000
            $bin bench --particles 16000000 --grid 256 --substeps 200 --path sorted,fused --page-particles 8000000
            $bin bench --particles 16000000 --grid 256 --substeps 200 --path sorted,fused --page-particles 4000000
            $bin bench --particles 64000000,100000000 --grid 400 --substeps 50 --path sorted
        } 2>&1 | tee "$out/pages.txt"
        nvidia-smi --query-gpu=memory.total --format=csv | tee -a "$out/pages.txt"
        ;;
    sparse)
        # The sparse grid (src/sim/grid_pool.rs): dense against sparse at 1M and 16M, then 1M and
        # 16M on 800³ and 1024³ grids, whose dense grids are past one binding (auto: sparse).
        {
            for storage in dense sparse; do
                $bin bench --particles 1000000,16000000 --grid 128,256 --substeps 200 --path sorted \
                    --grid-storage $storage
            done
            $bin bench --particles 1000000,16000000 --grid 800 --substeps 100 --path sorted
            $bin bench --particles 1000000,16000000 --grid 1024 --substeps 100 --path sorted
        } 2>&1 | tee "$out/sparse.txt"
        ;;
    reorder)
        $bin bench --particles 1000000 --grid 128 --substeps 200 --path naive,sorted,fused \
            --order lattice,shuffled --reorder 0,1,16,64 2>&1 | tee "$out/reorder.txt"
        ;;
    shuffled)
        $bin bench --particles 100000,1000000,4000000,16000000 --grid 128,128,256,256 --substeps 200 \
            --path naive,sorted,fused --order shuffled 2>&1 | tee "$out/shuffled.txt"
        ;;
    spread)
        for dir in shaders bench-bin/shaders-spread; do
            echo "== $dir"
            $bin bench --particles 1000000,16000000 --grid 128,256 --substeps 200 --path sorted,fused \
                --shaders "$dir" 2>&1
        done | tee "$out/spread.txt"
        ;;
    variants)
        for dir in shaders bench-bin/shaders-*; do
            echo "== $dir"
            $bin bench --particles 1000000,16000000 --grid 128,256 --substeps 200 --path sorted,fused \
                --shaders "$dir" 2>&1
        done | tee "$out/variants.txt"
        ;;
    checks)
        for checks in all no-loop-bounding none; do
            for dir in shaders bench-bin/shaders-*; do
                echo "== POWDER_SHADER_CHECKS=$checks $dir"
                POWDER_SHADER_CHECKS=$checks $bin bench --particles 1000000,16000000 --grid 128,256 --substeps 200 \
                    --path sorted,fused --shaders "$dir" 2>&1
            done
        done | tee "$out/checks.txt"
        ;;
    p2g)
        $bin bench --particles 1000000,4000000 --grid 128,256 --substeps 200 --path sorted \
            --p2g p2g_tiled,p2g_tiled_subgroup,p2g_gather 2>&1 | tee "$out/p2g.txt"
        ;;
    shuffled64)
        $bin bench --particles 1000000,16000000 --grid 128,256 --substeps 200 --path naive,sorted,fused \
            --order shuffled 2>&1 | tee "$out/shuffled64.txt"
        ;;
    layout)
        bench-bin/powder-aos bench --particles 100000,1000000,4000000 --grid 128,128,256 --substeps 200 \
            --path sorted,fused 2>&1 | tee "$out/layout-aos.txt"
        $bin bench --particles 100000,1000000,4000000 --grid 128,128,256 --substeps 200 \
            --path sorted,fused 2>&1 | tee "$out/layout-streams.txt"
        ;;
    ablate)
        variant no_scatter g2p2g.wgsl 's/^\( *\)tile_scatter(q, affine, start, FUSED_REACH[^)]*);/\1/; s/^\( *\)grid_scatter(q, affine);/\1/'
        variant no_svd advance.wgsl 's/let plastic = project_plastic(trial, p.plastic_jacobian);/var plastic: PlasticState; plastic.deformation = trial; plastic.plastic_jacobian = p.plastic_jacobian; plastic.u = IDENTITY3; plastic.sigma = vec3<f32>(1.0);/'
        variant no_gather advance.wgsl 's/let vi = grid_velocity\[stencil_node(s, o)\].xyz;/let vi = vec3<f32>(f32(x), f32(y), -f32(z));/'
        for v in baseline no_scatter no_svd no_gather; do
            dir=shaders
            [ "$v" = baseline ] || dir=/tmp/variants/$v
            echo "== $v"
            $bin bench --particles 1000000 --grid 128 --substeps 200 --path fused --shaders "$dir" 2>&1
        done | tee "$out/ablate.txt"
        ;;
    stress)
        for b in bench-bin/powder-prev $bin; do
            echo "== $b"
            $b bench --particles 1000000,4000000 --grid 128,256 --substeps 200 --path sorted,fused 2>&1
        done | tee "$out/stress.txt"
        ;;
    realtime)
        $bin bench --particles 1000000 --grid 128 --substeps 200 --path sorted 2>&1 | tee "$out/realtime.txt"
        dt=$(sed -n 's/.*stable dt \([0-9.e+-]*\) s.*/\1/p' "$out/realtime.txt")
        n=$(awk "BEGIN { n = 1 / (30 * $dt); print (n == int(n)) ? n : int(n) + 1 }")
        echo "dt $dt s: $n substeps per frame for real time at 30 fps" | tee -a "$out/realtime.txt"
        $bin bench --particles 1000000 --grid 128 --substeps 20 --path sorted --render --frame-substeps "$n" \
            --size 1280x720 2>&1 | tee -a "$out/realtime.txt"
        ;;
    scatter)
        for dir in bench-bin/shaders-streams shaders; do
            echo "== $dir"
            $bin bench --particles 1000000,4000000 --grid 128,256 --substeps 200 --path sorted,fused \
                --shaders "$dir" 2>&1
        done | tee "$out/scatter.txt"
        variant sweeps5 svd.wgsl 's/const JACOBI_SWEEPS: u32 = [0-9]u;/const JACOBI_SWEEPS: u32 = 5u;/'
        variant sweeps3 svd.wgsl 's/const JACOBI_SWEEPS: u32 = [0-9]u;/const JACOBI_SWEEPS: u32 = 3u;/'
        variant no_scatter g2p2g.wgsl 's/^\( *\)tile_scatter(q, affine, start, FUSED_REACH[^)]*);/\1/; s/^\( *\)grid_scatter(q, affine);/\1/'
        for v in sweeps5 sweeps3 no_scatter; do
            echo "== $v"
            $bin bench --particles 1000000 --grid 128 --substeps 200 --path fused --shaders /tmp/variants/$v 2>&1
        done | tee "$out/scatter-variants.txt"
        ;;
    *)
        echo "unknown part $what" >&2
        exit 2
        ;;
    esac
done
