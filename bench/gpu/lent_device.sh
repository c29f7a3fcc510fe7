#!/usr/bin/env bash
# Everything the NVIDIA checks and benchmark measure, in one call on a lent GPU
# machine that has PyTorch, Triton and a driver but no Tessera build.
#
# Here (no GPU needed, about 3 minutes on 2 cores; 20 s from the kernel cache):
#     bench/gpu/lent_device.sh export
# There (the device tool's run, carry=["build/gpu-aot", "build/gpu-aot-sweep",
# "build/gpu-aot-tf32", "build/gpu-aot-fp8", "build/gpu-aot-descriptors",
# "build/gpu-check", "build/gpu-check-sm80"]):
#     bench/gpu/lent_device.sh measure "$OUT"
# or, for the TMA path alone (98 s on an H200: carry build/gpu-check and
# build/gpu-aot-descriptors), `bench/gpu/lent_device.sh tma "$OUT"`: device.txt,
# correctness.log and descriptors.json/.log as `measure` writes them. Where one
# call may not last that long, `check "$OUT"` (carry build/gpu-check) and
# `descriptors "$OUT"` (carry build/gpu-aot-descriptors) are its two halves.
# `tf32 "$OUT"` (carry build/gpu-check and build/gpu-aot-tf32) checks
# correctness, then times the fp32 GEMMs alone (tf32.json/.log) and profiles
# the tuned NN one (ncu-tf32-nn4096.txt): the swapped tf32 dot (C^T = B^T A^T)
# first runs there. `fp8 "$OUT"` (carry build/gpu-check and build/gpu-aot-fp8)
# checks correctness (the fp8 cases first run there, each in its own process),
# then times the fp8 (e4m3) GEMMs alone (fp8.json/.log): cuBLAS through
# torch._scaled_mm (NT only), Triton on the same source.
#
# `measure` writes, most telling first so that a run cut short still says
# something: correctness.log (correctness.py: the kernels' cases against
# NumPy), quick.json/.log (every row checked against PyTorch, then timed
# against cuBLAS and Triton; the GEMMs as the tiled and the carried
# persistent kernel), tf32.json/.log (fp32 GEMMs at 4096, tf32 products in all
# three; the tiled kernel and the descriptor one with TMA and with a producer
# warpgroup), descriptors.json/.log (the GEMMs on host tensor descriptors at 4096,
# which Triton copies with TMA, and Tessera with cp.async and with TMA),
# ncu-nn4096.txt where Nsight Compute can read the counters, and
# sweep.json/.log (GEMM bf16 at 1024..8192, NN and NT, each as the tiled
# kernel, the same without tl.assume and the two persistent kernels). On an
# H200 the correctness cases took about a minute, the quick and tf32 rows two
# and a half, the descriptor rows 40 s and the sweep of two kernels 100 s
# (of four, about 200 s): with Nsight Compute and an A/B, `measure`
# may reach the device tool's 600 s a call, so split it where time is short.
#
# `core "$OUT"` (carry build/gpu-check, build/gpu-check-sm80, build/gpu-aot,
# build/gpu-aot-tf32 and build/gpu-aot-fp8) is what one call of a short loan
# should hold: correctness, the quick table, then the tf32 and fp8 rows (about
# 6 minutes on an H200).
#
# Every correctness check also runs the same cases compiled for sm_80
# (`--target cuda:sm_80:cubin=sm_90a`: mma.sync, ldmatrix and cp.async code,
# its PTX assembled for the H100/H200) from build/gpu-check-sm80 where that
# was carried, into correctness-sm80.log: the Ampere paths on a Hopper device.
#
# A/B of a compiler change: `export --keep-baseline` first moves the previous
# export's sweep cubins to build/gpu-aot-sweep-base (carry it too); `measure`
# then ends with the 4096^3 GEMM rows of the new cubins and of the baseline,
# one right after the other (ab-new.log, ab-base.log), since rates drift
# between calls and only rows of one call compare. `ab OUTPUT_DIR` runs just
# those rows (carry build/gpu-aot-sweep and build/gpu-aot-sweep-base).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
quick_dir=$repo/build/gpu-aot
sweep_dir=$repo/build/gpu-aot-sweep
check_dir=$repo/build/gpu-check
sm80_check_dir=$repo/build/gpu-check-sm80
baseline_dir=$repo/build/gpu-aot-sweep-base
gemm_kernels=(--gemm-kernels matmul,matmul_unassumed,matmul_persistent,matmul_persistent_carried)
# The quick table's GEMMs: the tiled one and the persistent one in Triton's
# tutorial form, each compiler's fastest at 4096^3 on an H100.
quick_rows=(--quick --gemm-kernels matmul,matmul_persistent_carried)
sweep_rows=(--suite gemm --sizes 1024,2048,4096,8192 --dtypes bf16 --layouts nn,nt
            "${gemm_kernels[@]}")
ab_rows=(--suite gemm --sizes 4096 --dtypes bf16 --layouts nn,nt "${gemm_kernels[@]}")
# tf32 GEMMs (fp32 operands), against cuBLAS with TF32 allowed and Triton.
tf32_dir=$repo/build/gpu-aot-tf32
tf32_kernels=(matmul matmul_descriptors_tma matmul_descriptors_ws)
tf32_rows=(--suite gemm --sizes 4096 --dtypes fp32 --layouts nn,nt)
# fp8 (e4m3) GEMMs with a bf16 result, against cuBLASLt's (NT) and Triton.
fp8_dir=$repo/build/gpu-aot-fp8
fp8_kernels=(matmul matmul_descriptors_tma matmul_descriptors_persistent_tma)
fp8_rows=(--suite gemm --sizes 4096 --dtypes fp8 --layouts nt,nn)
# The GEMM on host tensor descriptors: Triton's TMA form against Tessera's cp.async
# (rows -d), Tessera's TMA (rows -dt) and TMA from a producer warpgroup (rows -dw);
# the same in tutorial 09's persistent form (rows -dp, -dpt, -dpw).
descriptor_dir=$repo/build/gpu-aot-descriptors
descriptor_kernels=(matmul_descriptors matmul_descriptors_persistent matmul_descriptors_tma
                    matmul_descriptors_persistent_tma matmul_descriptors_ws
                    matmul_descriptors_persistent_ws)
descriptor_rows=(--suite gemm --sizes 4096 --dtypes bf16 --layouts nn,nt)

# The device, the driver and the peers' versions into OUT/device.txt.
start_measuring() {
    mkdir -p "$1"
    export PYTHONUNBUFFERED=1
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv |
        tee "$1/device.txt"
    python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)' |
        tee -a "$1/device.txt"
}

# The TMA cases come last and had not run on a GPU when they were written: a
# copy that never completes its mbarrier would hang, so these steps have time
# limits, and what ran before is already in their logs.
check_correctness() {
    timeout 300 python3 "$here/correctness.py" --aot "$check_dir" --untried-limit 20 2>&1 |
        tee "$1/correctness.log"
    if [ -d "$sm80_check_dir" ]; then
        timeout 240 python3 "$here/correctness.py" --aot "$sm80_check_dir" --untried-limit 20 2>&1 |
            tee "$1/correctness-sm80.log"
    fi
}

# The 4096^3 GEMM rows of the new sweep cubins, then of the baseline's.
compare_with_baseline() {
    for side in new base; do
        dir=$sweep_dir
        [ "$side" = base ] && dir=$baseline_dir
        python3 "$here/run.py" "${ab_rows[@]}" --aot "$dir" --json "$1/ab-$side.json" 2>&1 |
            tee "$1/ab-$side.log"
    done
}

# The GEMM kernels of "$2..." that OUT $1's correctness cases give no reason
# to expect to hang, comma-separated: a kernel whose cases hung would hang its
# rows as well. After a HUNG TMA case the TMA ones (_tma, _ws) are left out,
# after a HUNG warp-specialized one the producer's (_ws).
unhung_kernels() {
    local log=$1/correctness.log
    shift
    local kernels=("$@")
    if grep "HUNG" "$log" 2>/dev/null | grep -v warp_specialize | grep -q " tma"; then
        kernels=("${kernels[@]/%*_tma/}")
        kernels=("${kernels[@]/%*_ws/}")
    elif grep -q "HUNG.*warp_specialize" "$log" 2>/dev/null; then
        kernels=("${kernels[@]/%*_ws/}")
    fi
    local chosen all
    chosen=$(printf '%s\n' "${kernels[@]}" | grep . | paste -sd,)
    all=$(IFS=,; echo "$*")
    [ "$chosen" = "$all" ] || echo "timing only $chosen (cases hung: see correctness.log)" >&2
    echo "$chosen"
}

time_quick_table() {
    python3 "$here/run.py" "${quick_rows[@]}" --aot "$quick_dir" --json "$1/quick.json" 2>&1 |
        tee "$1/quick.log"
}

time_descriptor_gemms() {
    timeout 420 python3 "$here/run.py" "${descriptor_rows[@]}" \
        --gemm-kernels "$(unhung_kernels "$1" "${descriptor_kernels[@]}")" \
        --aot "$descriptor_dir" --json "$1/descriptors.json" 2>&1 | tee "$1/descriptors.log"
}

time_fp8_gemms() {
    timeout 300 python3 "$here/run.py" "${fp8_rows[@]}" \
        --gemm-kernels "$(unhung_kernels "$1" "${fp8_kernels[@]}")" \
        --aot "$fp8_dir" --json "$1/fp8.json" 2>&1 | tee "$1/fp8.log"
}

time_tf32_gemms() {
    timeout 300 python3 "$here/run.py" "${tf32_rows[@]}" \
        --gemm-kernels "$(unhung_kernels "$1" "${tf32_kernels[@]}")" \
        --aot "$tf32_dir" --json "$1/tf32.json" 2>&1 | tee "$1/tf32.log"
}

# Nsight Compute's detailed report of the tuned 4096^3 NN GEMM into $1, where
# ncu reads the counters; the rest are profile_gemm.py's arguments.
profile_gemm() {
    local report=$1
    shift
    local ncu
    ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
    [ -n "$ncu" ] || return 0
    timeout 150 "$ncu" --clock-control none --set detailed \
        --nvtx --nvtx-include "tessera-profiled/" -c 1 \
        python3 "$here/profile_gemm.py" --size 4096 --layout nn "$@" \
        >"$report" 2>&1 || echo "ncu failed: see $(basename "$report")"
}

case "${1:-}" in
tma)
    out=${2:?usage: lent_device.sh tma OUTPUT_DIR}
    start_measuring "$out"
    check_correctness "$out"
    time_descriptor_gemms "$out"
    ;;
export)
    export PYTHONPATH=$repo/build/python${PYTHONPATH:+:$PYTHONPATH}
    if [ "${2:-}" = --keep-baseline ]; then
        [ -d "$sweep_dir" ] || { echo "no earlier export in $sweep_dir to keep" >&2; exit 2; }
        rm -rf "$baseline_dir"
        mv "$sweep_dir" "$baseline_dir"
    elif [ -n "${2:-}" ]; then
        echo "usage: $0 export [--keep-baseline]" >&2
        exit 2
    fi
    rm -rf "$quick_dir" "$sweep_dir" "$check_dir" "$sm80_check_dir" "$tf32_dir" "$fp8_dir" \
        "$descriptor_dir"
    python3 "$here/correctness.py" --export "$check_dir" &&
        python3 "$here/correctness.py" --export "$sm80_check_dir" \
            --target cuda:sm_80:cubin=sm_90a &&
        python3 "$here/run.py" "${quick_rows[@]}" --export "$quick_dir" &&
        python3 "$here/run.py" "${tf32_rows[@]}" \
            --gemm-kernels "$(IFS=,; echo "${tf32_kernels[*]}")" --export "$tf32_dir" &&
        python3 "$here/run.py" "${fp8_rows[@]}" \
            --gemm-kernels "$(IFS=,; echo "${fp8_kernels[*]}")" --export "$fp8_dir" &&
        python3 "$here/run.py" "${descriptor_rows[@]}" \
            --gemm-kernels "$(IFS=,; echo "${descriptor_kernels[*]}")" --export "$descriptor_dir" &&
        python3 "$here/run.py" "${sweep_rows[@]}" --export "$sweep_dir"
    ;;
measure)
    out=${2:?usage: lent_device.sh measure OUTPUT_DIR}
    start_measuring "$out"
    check_correctness "$out"
    time_quick_table "$out"
    time_tf32_gemms "$out"
    time_fp8_gemms "$out"
    time_descriptor_gemms "$out"
    profile_gemm "$out/ncu-nn4096.txt" --aot "$sweep_dir"
    python3 "$here/run.py" "${sweep_rows[@]}" --aot "$sweep_dir" --json "$out/sweep.json" 2>&1 |
        tee "$out/sweep.log"
    [ -d "$baseline_dir" ] && compare_with_baseline "$out"
    ;;
core)
    out=${2:?usage: lent_device.sh core OUTPUT_DIR}
    start_measuring "$out"
    check_correctness "$out"
    time_quick_table "$out"
    time_tf32_gemms "$out"
    time_fp8_gemms "$out"
    ;;
tf32)
    out=${2:?usage: lent_device.sh tf32 OUTPUT_DIR}
    start_measuring "$out"
    check_correctness "$out"
    time_tf32_gemms "$out"
    profile_gemm "$out/ncu-tf32-nn4096.txt" --aot "$tf32_dir" --dtype fp32
    ;;
fp8)
    out=${2:?usage: lent_device.sh fp8 OUTPUT_DIR}
    start_measuring "$out"
    check_correctness "$out"
    time_fp8_gemms "$out"
    ;;
check)
    out=${2:?usage: lent_device.sh check OUTPUT_DIR}
    start_measuring "$out"
    check_correctness "$out"
    ;;
descriptors)
    out=${2:?usage: lent_device.sh descriptors OUTPUT_DIR}
    start_measuring "$out"
    time_descriptor_gemms "$out"
    ;;
ab)
    out=${2:?usage: lent_device.sh ab OUTPUT_DIR}
    [ -d "$baseline_dir" ] || { echo "no baseline in $baseline_dir (export --keep-baseline)" >&2; exit 2; }
    start_measuring "$out"
    compare_with_baseline "$out"
    ;;
*)
    echo "usage: $0 export [--keep-baseline] | measure OUTPUT_DIR | core OUTPUT_DIR |" \
         "tma OUTPUT_DIR | tf32 OUTPUT_DIR | fp8 OUTPUT_DIR | check OUTPUT_DIR |" \
         "descriptors OUTPUT_DIR | ab OUTPUT_DIR" >&2
    exit 2
    ;;
esac
