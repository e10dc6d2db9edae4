#!/bin/sh
# gemm_cpu_tune.sh [SIZES...] — the CPU GEMM's block sizes tried on this machine: one build of bench/tune per
# (KC, MC), each timing gp__gemm_cpu alone (best of 5). The defaults live in src/matrix/gemm_cpu.c.
set -u
cd "$(dirname "$0")/../.."
sizes=${*:-2048 4096}
cuda=$(dirname "$(dirname "$(command -v nvcc)")")
out=${TMPDIR:-/tmp}/gemm_cpu_tune
for kc in 256 384 512; do
  for mc in 72 144 288; do
    gcc -std=c11 -O3 -fopenmp -DGP_GEMM_KC=$kc -DGP_GEMM_MC=$mc -Iinclude -Isrc -Isrc/core -I"$cuda/include" \
      bench/tune/gemm_cpu_tune.c src/matrix/gemm_cpu.c src/core/status.c -L"$cuda/lib64" -lcudart -o "$out" &&
      "$out" $sizes
  done
done
