/*
 * gemm_variants.cu — the f32 / f64 GEMM kernels the library tried and does not run: each a launch of gemm_launch.cuh's
 * templates with other parameters, numbered as docs/design/matrix.md numbers them. lab_gemm_kernel gives these and,
 * from the library, production's own (never a copy): `gpuprim lab gemm` (versions 08-10, --variants) and the tests
 * run them through gp__gemm_gpu with the kernel named.
 */
#include "lab_versions.h"
#include "matrix/gemm_launch.cuh"

using namespace gemml;

namespace {

#define F32(num, name, bm, bn, per_sm, needs, ...) {num, name, GP_F32, bm, bn, per_sm, needs, k_s10, __VA_ARGS__}
#define F64(num, name, bm, bn, per_sm, needs, ...) {num, name, GP_F64, bm, bn, per_sm, needs, k_d2, __VA_ARGS__}

/* where a variant's needs fail, production's general kernel of its dtype runs (the library's own, never a copy) */
const gp__gemm_kernel_t *const k_s10 = gp__gemm_kernel_production(GP_F32, 10);
const gp__gemm_kernel_t *const k_d2 = gp__gemm_kernel_production(GP_F64, 2);
const gp__gemm_kernel_t k_variants[] = {
    F32(8, "sgemm_128x128 warp tiles, one stage", 128, 128, 2, 0, s_layouts<false, false>),
    F32(9, "sgemm_128x128 two stages, register prefetch", 128, 128, 2, 0, s_layouts<true, false>),
    F32(11, "sgemm_128x128 two stages, cp.async, one block per SM", 128, 128, 2, 0, s_layouts<true, true, 2, 1>),
    F32(13, "sgemm_128x128 fragments loaded ahead, one block per SM", 128, 128, 2, 0,
        s_layouts<true, true, 2, 1, true>),
    F32(14, "sgemm_128x128 fragments loaded ahead, two blocks per SM", 128, 128, 2, 0,
        s_layouts<true, true, 2, 2, true>),
    F32(15, "sgemm_cp 128x128, 3 stages", 128, 128, 2, GP__GEMM_ROWS16, scp_layouts<3, 128>),
    F32(16, "sgemm_cp 128x128, 4 stages", 128, 128, 2, GP__GEMM_ROWS16, scp_layouts<4, 128>),
    F32(18, "sgemm_cp 256x128, 4 stages", 256, 128, 1, GP__GEMM_ROWS16, scp_layouts<4, 256>),
    F32(20, "sgemm_cp 128x256, 4 stages", 128, 256, 1, GP__GEMM_ROWS16, scp_layouts<4, 128, 256>),
    F32(25, "sgemm_cp 128x256, A transposed by 4-byte cp.async", 128, 256, 1, GP__GEMM_ROWS16,
        scp_layouts<4, 128, 256, 1>),
    F32(31, "sgemm_cp 256x64, A through registers", 256, 64, 2, GP__GEMM_ROWS16, scp_layouts<4, 256, 64, 2>),
    F64(1, "dgemm_dmma m8n8k4 128x128", 128, 128, 1, 0, d_layouts<false, 8, 128>),
    F64(3, "dgemm_dmma m16n8k8 128x128, BK 16", 128, 128, 1, 0, d_layouts<true, 16, 128>),
    F64(4, "dgemm_dmma m16n8k8 128x64, two blocks per SM", 128, 64, 2, 0, d_layouts<true, 8, 64>),
    F64(5, "dgemm_cp m16n8k8 128x64, 16-byte fragment loads", 128, 64, 2, GP__GEMM_ROWS16 | GP__GEMM_AK_BN,
        dcp_launch<64, 0, true, false>),
    F64(6, "dgemm_cp m16n8k16 128x64, 16-byte fragment loads", 128, 64, 2, GP__GEMM_ROWS16 | GP__GEMM_AK_BN,
        dcp_launch<64, 1, true, false>),
};

} // namespace

extern "C" const gp__gemm_kernel_t *lab_gemm_kernel(gp_dtype_t dtype, int number)
{
    const gp__gemm_kernel_t *k = gp__gemm_kernel_production(dtype, number);
    if (k) return k;
    for (size_t i = 0; i < sizeof k_variants / sizeof k_variants[0]; i++)
        if (k_variants[i].dtype == dtype && k_variants[i].number == number) return &k_variants[i];
    return NULL;
}

extern "C" int lab_gemm_variant_numbers(gp_dtype_t dtype, int *out, int cap)
{
    static const int f32[] = {8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 20, 25, 30, 31, 32}, f64[] = {1, 2, 3, 4, 5, 6, 7};
    const int *v = dtype == GP_F64 ? f64 : f32;
    const int n = dtype == GP_F64 ? (int)(sizeof f64 / sizeof f64[0]) : (int)(sizeof f32 / sizeof f32[0]);
    for (int i = 0; i < n && i < cap; i++) out[i] = v[i];
    return n;
}
