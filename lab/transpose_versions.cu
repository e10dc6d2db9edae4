/*
 * transpose_versions.cu — the transpose lab's table: every version (lab/transpose_teaching.cuh and production),
 * from the primers' naive kernels to production (the version GP__TRANSPOSE_PRODUCTION of src/matrix/transpose_kernels.cuh, the one
 * gp_matrix_transpose runs). `gpuprim lab transpose` (lab/transpose.c) and the GPU tests run them all.
 */
#include "lab_versions.h"
#include "transpose_teaching.cuh"

extern "C" {

const lab_version_t lab_transpose_versions[] = {
    {0, "transpose_v00_copy_ceiling", 1,
     "not a transpose: the same-shape 2D copy in 16-byte vectors, the ceiling", "", 0, 0, 0, (lab_fn_t)t_version<0>},
    {1, "transpose_v01_naive_row_read", 1,
     "thread per element, reads coalesced, writes 32 rows apart", "", 0, 0, 0, (lab_fn_t)t_version<1>},
    {2, "transpose_v02_naive_col_read", 1,
     "thread per element, writes coalesced, reads 32 rows apart", "", 0, 0, 0, (lab_fn_t)t_version<2>},
    {3, "transpose_v03_smem_tile", 1,
     "32 x 32 shared tile, 1024 threads: both sides coalesced, 32-way bank conflicts",
     "", 0, 0, 0, (lab_fn_t)t_version<3>},
    {4, "transpose_v04_padded_tile", 1,
     "tile rows padded to 33: a tile column spans all 32 banks", "", 0, 0, 0, (lab_fn_t)t_version<4>},
    {5, "transpose_v05_four_per_thread", 1,
     "32 x 8 threads, 4 elements each (the primers' BLOCK_ROWS)", "", 0, 0, 0, (lab_fn_t)t_version<5>},
    {6, "transpose_v06_grid_stride", 1,
     "v05 with a GPU-sized grid striding over the tiles", "", 0, 0, 0, (lab_fn_t)t_version<6>},
    {7, "transpose_v07_tile64", 1,
     "64 x 64 tiles, 16 elements per thread: 256-byte runs on both sides", "", 0, 0, 0, (lab_fn_t)t_version<7>},
    {8, "transpose_v08_tile64_512", 1, "v07 with 512 threads, 8 elements each", "", 0, 0, 0, (lab_fn_t)t_version<8>},
    {9, "transpose_v09_tile64_grid_stride", 1,
     "v07 with a GPU-sized grid striding over the tiles", "", 0, 0, 0, (lab_fn_t)t_version<9>},
    {10, "transpose_v10_tile64_vec", 1,
     "v07 with vector accesses (16 bytes for f32/f64): 4x fewer memory instructions",
     "", 0, 0, 0, (lab_fn_t)t_version<10>},
    {11, "transpose_v11_tile128_vec", 1,
     "v10 with 128 x 128 tiles (dynamic shared memory): 512-byte runs both sides",
     "", 0, 0, 0, (lab_fn_t)t_version<11>},
    {12, "transpose_v12_tile64x256_vec", 1,
     "64 rows x 256 columns: 1 KiB read runs, 256-byte write runs", "", 0, 0, 0, (lab_fn_t)t_version<12>},
    {13, "transpose_v13_tile256x64_vec", 1,
     "256 rows x 64 columns: 256-byte read runs, 1 KiB write runs", "", 0, 0, 0, (lab_fn_t)t_version<13>},
    {14, "transpose_v14_tile64_vec_128t", 1,
     "v10 with 128 threads: 8 vectors in flight each, 16 blocks per SM", "", 0, 0, 0, (lab_fn_t)t_version<14>},
    {15, "transpose_v15_tile32_vec_64t", 1,
     "32 x 32 tiles, 64 threads: 32 small blocks per SM, short-lived", "", 0, 0, 0, (lab_fn_t)t_version<15>},
    {16, "transpose_v16_tile64_vec_512t", 1,
     "v10 with 512 threads: 2 vectors each", "", 0, 0, 0, (lab_fn_t)t_version<16>},
    {17, "transpose_v17_tile32_vec_32t", 1,
     "32 x 32 tiles, one warp per block (8 vectors each)", "", 0, 0, 0, (lab_fn_t)t_version<17>},
    {18, "transpose_v18_tile32_vec_128t", 1,
     "32 x 32 tiles, 128 threads (2 vectors each)", "", 0, 0, 0, (lab_fn_t)t_version<18>},
    {19, "transpose_v19_tile32x64_vec_64t", 1,
     "32 rows x 64 columns, 64 threads: 256-byte read runs", "", 0, 0, 0, (lab_fn_t)t_version<19>},
    {20, "transpose_v20_tile64x32_vec_64t", 1,
     "64 rows x 32 columns, 64 threads: 256-byte write runs", "", 0, 0, 0, (lab_fn_t)t_version<20>},
    {21, "transpose_v21_tile32_vec_colorder", 1,
     "v15 with blocks walking down columns of tiles (shared output rows)", "", 0, 0, 0, (lab_fn_t)t_version<21>},
    {22, "transpose_v22_tile32_vec_groups", 1,
     "v15 with blocks taking tiles in 8 x 8 groups (fewer DRAM pages at once)", "", 0, 0, 0, (lab_fn_t)t_version<22>},
    {90, "transpose_cpu_backend", 0, "CPU: 32 x 32 cache blocks, OpenMP over block rows", "", 2048, 0, 0, NULL},
};
const int lab_transpose_nversions = (int)(sizeof lab_transpose_versions / sizeof lab_transpose_versions[0]);

} /* extern "C" */
