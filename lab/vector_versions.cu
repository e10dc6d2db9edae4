/*
 * vector_versions.cu — the vector lab's table: every version (src/vector/vector_kernels.cuh, lab/vector_teaching.cuh), from the
 * primers' add<<<1,1>>> to production (the versions vector_internal.h names, the ones gp_vec_* run), and the CPU
 * backend's two loops. `gpuprim lab vector` (lab/vector.c) and the tests run them all.
 */
#include "lab_versions.h"
#include "vector_teaching.cuh"

extern "C" {

const lab_version_t lab_vec_versions[] = {
    {1, "vector_v01_single_thread", 1, "add<<<1,1>>>: one thread walks the array; one load in flight, latency-bound",
     "slow: lab caps n", 1u << 16, GP__VEC_EW_OPS, 0, (lab_fn_t)vec_version<1>},
    {2, "vector_v02_single_block", 1, "add<<<1,256>>>: a block strides the array; coalesced, but one SM",
     "slow: lab caps n", 1u << 22, GP__VEC_EW_OPS, 0, (lab_fn_t)vec_version<2>},
    {3, "vector_v03_thread_per_element", 1, "one thread per element, ceil(n/256) blocks, if (i < n): fills the GPU, 4/8-byte accesses",
     "", 0, GP__VEC_EW_OPS, 0, (lab_fn_t)vec_version<3>},
    {4, "vector_v04_grid_stride", 1, "grid-stride loop, grid = SMs x resident blocks: fixed launch size for any n",
     "", 0, GP__VEC_EW_OPS, 0, (lab_fn_t)vec_version<4>},
    {5, "vector_v05_vec16", 1, "16-byte loads/stores with a scalar head and tail: a quarter of the memory instructions",
     "vectors when x, y, z share their offset mod 16, else v04", 0, GP__VEC_EW_OPS, 0, (lab_fn_t)vec_version<5>},
    {6, "vector_v06_vec16_ilp", 1, "four 16-byte vectors per input in flight per thread before any store: memory-level parallelism",
     "vectors when x, y, z share their offset mod 16, else v04", 0, GP__VEC_EW_OPS, 0, (lab_fn_t)vec_version<6>},
    {7, "vector_v07_vec16_ilp_streaming", 1, "v06 with streaming cache hints (ld.global.cs / st.global.cs): evict-first for data used once",
     "vectors when x, y, z share their offset mod 16, else v04", 0, GP__VEC_EW_OPS, 0, (lab_fn_t)vec_version<7>},
    {8, "vector_v08_vec16_streaming", 1, "v05 (one vector in flight) with the streaming cache hints",
     "vectors when x, y, z share their offset mod 16, else v04", 0, GP__VEC_EW_OPS, 0, (lab_fn_t)vec_version<8>},
    {9, "vector_v09_vec16_per_thread", 1, "one 16-byte vector per thread, ceil(n/4/256) blocks, no loop: v03's shape at v05's width",
     "vectors when x, y, z share their offset mod 16, else v04", 0, GP__VEC_EW_OPS, 0, (lab_fn_t)vec_version<9>},
    {10, "vector_v10_dot_two_kernel", 1, "dot: per-block shared-memory tree (sequential addressing), then a one-block kernel adds the partials",
     "", 0, GP__VEC_DOT_OPS, 0, (lab_fn_t)vec_version<10>},
    {11, "vector_v11_dot_single_pass", 1, "dot: 16-byte loads, shuffles, last-block guard (__threadfence + atomic ticket): one launch",
     "vectors when x, y share their offset mod 16, else v10", 0, GP__VEC_DOT_OPS, 0, (lab_fn_t)vec_version<11>},
    {12, "vector_v12_dot_single_pass_ilp", 1, "v11 with four 16-byte vectors per input in flight per thread",
     "vectors when x, y share their offset mod 16, else v10", 0, GP__VEC_DOT_OPS, 0, (lab_fn_t)vec_version<12>},
    {13, "vector_v13_dot_block_chunk", 1, "v11 in v09's shape: each block reads a contiguous run of 16 x 256 vectors; ceil(n/16384) short blocks",
     "vectors when x, y share their offset mod 16, else v10; one 8-byte partial per block in the workspace",
     0, GP__VEC_DOT_OPS, 0, (lab_fn_t)vec_version<13>},
    {90, "vector_cpu_serial", 0, "CPU: one plain loop, the serial baseline",
     "", 1u << 26, GP__VEC_EW_OPS | GP__VEC_DOT_OPS, 0, (lab_fn_t)gp__vec_cpu_serial},
    {91, "vector_cpu_openmp", 0, "CPU backend: OpenMP static schedule over the cores; dot in fixed 64 Ki chunks",
     "", 0, GP__VEC_EW_OPS | GP__VEC_DOT_OPS, 0, (lab_fn_t)gp__vec_cpu_omp},
};
const int lab_vec_nversions = (int)(sizeof lab_vec_versions / sizeof lab_vec_versions[0]);

} /* extern "C" */
