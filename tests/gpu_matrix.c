/* gpu_matrix.c — GPU tests of the matrix views (tests/matrix_common.h), with shapes up to 70001 x 33 and 4097 x 3001.
 * Exit 77 without a GPU. GP_TEST_QUICK=1 (compute-sanitizer): no big shapes. */
#include "lab_versions.h"
#include "matrix_common.h"

#include "matrix/matrix_internal.h"

/* Every lab version of the SGEMM (row-major packed C = A B) against a long double reference, C poisoned with NaN. */
static void versions_gemm(gp_ctx_t *ctx)
{
    static const size_t shapes[][3] = {{0, 3, 4}, {1, 1, 1}, {131, 67, 259}, {64, 129, 16}, {257, 255, 3}};
    for (int vi = 0; vi < lab_gemm_nversions; vi++) {
        const lab_version_t *v = &lab_gemm_versions[vi];
        if (!v->gpu) continue;
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
            const size_t M = shapes[k][0], N = shapes[k][1], K = shapes[k][2];
            float *a = malloc((M * K + 1) * 4), *b = malloc((K * N + 1) * 4), *c = malloc((M * N + 1) * 4);
            for (size_t e = 0; e < M * K; e++) a[e] = (float)mc_unit();
            for (size_t e = 0; e < K * N; e++) b[e] = (float)mc_unit();
            for (size_t e = 0; e < M * N; e++) c[e] = NAN;
            gp_buffer_t da, db, dc;
            OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, M * K * 4 + 16, &da));
            OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, K * N * 4 + 16, &db));
            OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, M * N * 4 + 16, &dc));
            OK(gp_memcpy_sync(ctx, da.device, a, M * K * 4));
            OK(gp_memcpy_sync(ctx, db.device, b, K * N * 4));
            OK(gp_memcpy_sync(ctx, dc.device, c, M * N * 4));
            OK(LAB_FN(lab_sgemm_fn, v)(ctx, M, N, K, da.device, db.device, dc.device, NULL));
            OK(gp_stream_sync(ctx, NULL));
            OK(gp_memcpy_sync(ctx, c, dc.device, M * N * 4));
            size_t bad = 0;
            for (size_t i = 0; i < M; i++)
                for (size_t j = 0; j < N; j++) {
                    long double ref = 0, mag = 0;
                    for (size_t l = 0; l < K; l++)
                        ref += (long double)a[i * K + l] * b[l * N + j], mag += fabsl((long double)a[i * K + l] * b[l * N + j]);
                    const double tol = (4.0 * sqrt((double)K) + 8.0) / 16777216.0 * (double)mag + 1e-30;
                    bad += !(fabs(c[i * N + j] - (double)ref) <= tol);
                }
            CHECK(bad == 0, "%s %zux%zux%zu: %zu wrong", v->name, M, N, K, bad);
            gp_mem_free(ctx, &da), gp_mem_free(ctx, &db), gp_mem_free(ctx, &dc);
            free(a), free(b), free(c);
        }
    }
}

/* Every GEMM kernel (f32 8-16, 18, 20, 25, 30-32; f64 1-7: the lab's variants and production's) through the canonical form, each storage combination. f64 variants 5
 * to 7 (dgemm_cp) and f32 15-30 (sgemm_cp) take 16-byte rows: their lds are made even (multiples of 4) so every
 * shape reaches them (5 and 6 only for A K-inner
 * and B N-inner; the other combinations run variant 2; 7 every combination). */
static void variants_gemm(gp_ctx_t *ctx)
{
    static const size_t shapes[][3] = {{1, 1, 1}, {129, 130, 131}, {64, 200, 37}, {7, 300, 5}, {70, 301, 260}};
    static const int variants[][2] = {{GP_F32, 8}, {GP_F32, 9}, {GP_F32, 10}, {GP_F32, 11}, {GP_F32, 12}, {GP_F32, 13}, {GP_F32, 14}, {GP_F32, 15}, {GP_F32, 16}, {GP_F32, 18}, {GP_F32, 20}, {GP_F32, 25}, {GP_F32, 30}, {GP_F32, 31}, {GP_F32, 32},
                                      {GP_F64, 1}, {GP_F64, 2}, {GP_F64, 3}, {GP_F64, 4}, {GP_F64, 5},
                                      {GP_F64, 6}, {GP_F64, 7}};
    for (size_t vi = 0; vi < sizeof variants / sizeof variants[0]; vi++)
        for (int kin = 0; kin < 4; kin++)
            for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
                const gp_dtype_t dt = (gp_dtype_t)variants[vi][0];
                const size_t M = shapes[k][0], N = shapes[k][1], K = shapes[k][2], es = gp_dtype_size(dt);
                const int ak = kin & 1, bk = kin >> 1;
                const int even = dt == GP_F64 && variants[vi][1] >= 5, four = dt == GP_F32 && variants[vi][1] >= 15;
                size_t lda = (ak ? K : M) + (k & 1), ldb = (bk ? K : N) + (k & 1) * 4;
                if (even) lda += lda & 1, ldb += ldb & 1;
                if (four) lda = (lda + 3) / 4 * 4, ldb = (ldb + 3) / 4 * 4;
                const size_t ldc = N + 4;
                const size_t na = (ak ? M : K) * lda, nb = (bk ? N : K) * ldb, nc = M * ldc;
                double *a = malloc(na * 8), *b = malloc(nb * 8), *c0 = malloc(nc * 8);
                char *ha = malloc(na * es), *hb = malloc(nb * es), *hc = malloc(nc * es), *got = malloc(nc * es);
                for (size_t e = 0; e < na; e++) a[e] = dt == GP_F32 ? (float)mc_unit() : mc_unit();
                for (size_t e = 0; e < nb; e++) b[e] = dt == GP_F32 ? (float)mc_unit() : mc_unit();
                for (size_t e = 0; e < nc; e++) c0[e] = dt == GP_F32 ? (float)mc_unit() : mc_unit();
                for (size_t e = 0; e < na; e++) dt == GP_F32 ? (void)(((float *)ha)[e] = (float)a[e]) : (void)(((double *)ha)[e] = a[e]);
                for (size_t e = 0; e < nb; e++) dt == GP_F32 ? (void)(((float *)hb)[e] = (float)b[e]) : (void)(((double *)hb)[e] = b[e]);
                for (size_t e = 0; e < nc; e++) dt == GP_F32 ? (void)(((float *)hc)[e] = (float)c0[e]) : (void)(((double *)hc)[e] = c0[e]);
                gp_buffer_t da, db, dc;
                OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, na * es, &da));
                OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, nb * es, &db));
                OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, nc * es, &dc));
                OK(gp_memcpy_sync(ctx, da.device, ha, na * es));
                OK(gp_memcpy_sync(ctx, db.device, hb, nb * es));
                OK(gp_memcpy_sync(ctx, dc.device, hc, nc * es));
                const gp__gemm_t g = {M, N, K, da.device, db.device, dc.device, lda, ldb, ldc, ak, bk, 1.5, -0.5};
                const gp__gemm_kernel_t *kern = lab_gemm_kernel(dt, variants[vi][1]);
                CHECK(kern != NULL, "gemm variant %d %s: no such kernel", variants[vi][1], gp_dtype_name(dt));
                if (kern) OK(gp__matrix_gpu_ops.gemm(ctx, dt, &g, kern, NULL));
                OK(gp_stream_sync(ctx, NULL));
                OK(gp_memcpy_sync(ctx, got, dc.device, nc * es));
                size_t bad = 0;
                const double u = dt == GP_F32 ? 0x1p-24 : 0x1p-53;
                for (size_t i = 0; i < M; i++)
                    for (size_t j = 0; j < N; j++) {
                        long double ref = 0, mag = 0;
                        for (size_t l = 0; l < K; l++) {
                            const long double t = (long double)a[ak ? i * lda + l : l * lda + i] * b[bk ? j * ldb + l : l * ldb + j];
                            ref += t, mag += fabsl(t);
                        }
                        ref = 1.5L * ref - 0.5L * c0[i * ldc + j], mag = 1.5L * mag + 0.5L * fabs(c0[i * ldc + j]);
                        const double gv = dt == GP_F32 ? ((float *)got)[i * ldc + j] : ((double *)got)[i * ldc + j];
                        bad += !(fabs(gv - (double)ref) <= (4.0 * sqrt((double)K) + 8.0) * u * (double)mag);
                    }
                CHECK(bad == 0, "gemm variant %d %s kin %d%d %zux%zux%zu: %zu wrong", variants[vi][1], gp_dtype_name(dt),
                      ak, bk, M, N, K, bad);
                gp_mem_free(ctx, &da), gp_mem_free(ctx, &db), gp_mem_free(ctx, &dc);
                free(a), free(b), free(c0), free(ha), free(hb), free(hc), free(got);
            }
}

/* Every transpose version (and the copy ceiling, checked as a copy) on odd shapes, 1-, 4- and 8-byte elements. */
static void versions_transpose(gp_ctx_t *ctx)
{
    static const size_t shapes[][2] = {{1, 1}, {33, 65}, {130, 132}, {1, 300}, {256, 192}, {100, 67}};
    static const size_t sizes[] = {1, 4, 8};
    for (int vi = 0; vi < lab_transpose_nversions; vi++) {
        const lab_version_t *v = &lab_transpose_versions[vi];
        if (!v->gpu) continue;
        for (size_t z = 0; z < 3; z++)
            for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
                /* odd k: padded lds (element paths); even k: lds rounded to 16 bytes (vector paths) */
                const size_t P = shapes[k][0], Q = shapes[k][1], es = sizes[z];
                const size_t ocols = v->id == 0 ? Q : P, orows = v->id == 0 ? P : Q;
                const size_t ldi = k & 1 ? Q + 3 : (Q * es + 15) / 16 * 16 / es, ldo = k & 1 ? ocols + 1 : (ocols * es + 15) / 16 * 16 / es;
                unsigned char *in = malloc(P * ldi * es), *out = malloc(orows * ldo * es), *want = malloc(orows * ldo * es);
                for (size_t e = 0; e < P * ldi * es; e++) in[e] = (unsigned char)tc_next();
                memset(out, 0x5a, orows * ldo * es);
                memcpy(want, out, orows * ldo * es);
                for (size_t p = 0; p < P; p++)
                    for (size_t q = 0; q < Q; q++)
                        memcpy(want + (v->id == 0 ? p * ldo + q : q * ldo + p) * es, in + (p * ldi + q) * es, es);
                gp_buffer_t bi, bo;
                OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, P * ldi * es, &bi));
                OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, orows * ldo * es, &bo));
                OK(gp_memcpy_sync(ctx, bi.device, in, P * ldi * es));
                OK(gp_memcpy_sync(ctx, bo.device, out, orows * ldo * es));
                const gp__phys_t pi = {bi.device, P, Q, ldi, es}, po = {bo.device, orows, v->id == 0 ? Q : P, ldo, es};
                OK(LAB_FN(lab_transpose_fn, v)(ctx, &po, &pi, NULL));
                OK(gp_stream_sync(ctx, NULL));
                OK(gp_memcpy_sync(ctx, out, bo.device, orows * ldo * es));
                CHECK(memcmp(out, want, orows * ldo * es) == 0, "%s %zux%zu es %zu: wrong", v->name, P, Q, es);
                gp_mem_free(ctx, &bi), gp_mem_free(ctx, &bo);
                free(in), free(out), free(want);
            }
    }
}

/* The TMA kernel's five shapes (128 x 256 or 128 x 128 tiles, clusters of 1 or 2, a persistent grid) on the same operands: the same bits
 * (each C element is the same chain of k16 / k8 wgmma steps whatever the tile width), so the shape chosen per problem
 * never changes a result. Rows odd and wider than one tile, a B read MN-major and one K-major (TF32). */
static void tma_shapes_same_bits(gp_ctx_t *ctx, gp_stream_t s)
{
    static const gp_gemm_precision_t ps[] = {GP_GEMM_TF32, GP_GEMM_BF16, GP_GEMM_FP16};
    static const gp_dtype_t cs[] = {GP_F32, GP_F32, GP_F16};
    const gp_layout_t rr[3] = {GP_ROW_MAJOR, GP_ROW_MAJOR, GP_ROW_MAJOR};
    const size_t m = 389, n = 700, k = 333;
    for (int pi = 0; pi < 3; pi++) {
        mc_mat_t a, b, c;
        mc_make_tc(ctx, &a, mc_in_dtype(ps[pi]), m, k, rr[0], 0, 0);
        mc_make_tc(ctx, &b, mc_in_dtype(ps[pi]), k, n, rr[1], 0, 0);
        mc_make_tc(ctx, &c, cs[pi], m, n, rr[2], 0, 1);
        const size_t bytes = c.span * gp_dtype_size(cs[pi]);
        unsigned char *first = malloc(bytes), *got = malloc(bytes);
        for (int path = 3; path <= 7; path++) {
            OK(gp__gemm_tc_plan_set(ctx, path));
            OK(gp_gemm_ex(ctx, ps[pi], GP_OP_N, GP_OP_N, 1.0, &a.dev, &b.dev, 0.0, &c.dev, s));
            OK(gp_stream_sync(ctx, s));
            mc_fetch(ctx, &c, path == 3 ? first : got);
            if (path > 3)
                CHECK(memcmp(first, got, bytes) == 0, "gemm_ex %s %zu x %zu x %zu: TMA shape %d's bits differ from 128 x 256's",
                      gp_gemm_precision_name(ps[pi]), m, n, k, path);
        }
        OK(gp__gemm_tc_plan_set(ctx, 0));
        free(first), free(got);
        mc_free(ctx, &a), mc_free(ctx, &b), mc_free(ctx, &c);
    }
}

int main(void)
{
    tc_require_gpu("gpu_matrix");
    tc_seed("gpu_matrix");
    gp_ctx_t *ctx = NULL;
    REQUIRE(gp_ctx_create(&ctx, 0) == GP_OK, "GPU context");
    gp_stream_t s;
    OK(gp_stream_create(ctx, &s));
    setvbuf(stdout, NULL, _IOLBF, 0); /* lines survive a sanitizer's time limit */
    /* GP_TEST_TC_PATHS=0,4,...: only the tensor-core set, under those kernel choices (the sanitizer runs split it) */
    const char *only = getenv("GP_TEST_TC_PATHS");
    long before = tc_fail;
    if (only) goto tc;
    mc_transpose_all(ctx, s, getenv("GP_TEST_QUICK") == NULL);
    printf("  transpose f32 f64 i32 u8 f16 i16 i64, every layout pair, odd and large shapes, padded lds, poisoned dst: %s\n",
           tc_fail == before ? "ok" : "FAILED");
    before = tc_fail;
    mc_add_all(ctx, s, getenv("GP_TEST_QUICK") == NULL);
    printf("  add f32 f64 i32 u8, every layout triple, factors 0 (operand NaN), in place, refusals: %s\n",
           tc_fail == before ? "ok" : "FAILED");
    before = tc_fail;
    mc_gemm_all(ctx, s, getenv("GP_TEST_QUICK") == NULL);
    printf("  gemm f32 f64, ops NN NT TN TT x every layout triple, m n k 0 1 odd, beta 0 on NaN c, refusals: %s\n",
           tc_fail == before ? "ok" : "FAILED");
    before = tc_fail;
    /* on sm_90: the production choice, mma.sync, wgmma fed by cp.async, then the TMA kernel in each of its shapes */
    static const char *const paths[] = {"production: wgmma + TMA on sm_90, shape chosen per problem", "mma.sync",
                                        "wgmma, cp.async", "TMA 128 x 256", "TMA 128 x 128, two blocks per SM",
                                        "TMA 128 x 256, clusters of 2 sharing B", "TMA 128 x 128, clusters of 2",
                                        "TMA 128 x 256, persistent grid"};
tc:
    for (int path = 0; path < 8; path++) {
        if (only && !strchr(only, '0' + path)) continue;
        before = tc_fail;
        OK(gp__gemm_tc_plan_set(ctx, path));
        mc_gemm_ex_all(ctx, s, getenv("GP_TEST_QUICK") == NULL);
        mc_gemm_batched_all(ctx, s, getenv("GP_TEST_QUICK") == NULL);
        printf("  gemm_ex tf32 / bf16 / fp16 (f32 or 16-bit c) on the tensor cores (%s), ops x layouts, odd shapes, "
               "misaligned rows, TF32 truncation, batched = one by one, refusals: %s\n", paths[path],
               tc_fail == before ? "ok" : "FAILED");
    }
    OK(gp__gemm_tc_plan_set(ctx, 0));
    before = tc_fail;
    if (only) goto done;
    gp_device_info_t di;
    if (gp_device_info(0, &di) == GP_OK && di.cc_major == 9) tma_shapes_same_bits(ctx, s);
    printf("  gemm_ex: the TMA kernel's five tile / cluster / grid shapes give the same bits: %s\n", tc_fail == before ? "ok" : "FAILED");
    before = tc_fail;
    versions_gemm(ctx);
    variants_gemm(ctx);
    versions_transpose(ctx);
    printf("  lab versions: every SGEMM version (odd shapes, NaN-poisoned C), GEMM kernel variant, transpose version (1/4/8-byte): %s\n",
           tc_fail == before ? "ok" : "FAILED");
    before = tc_fail;
    mc_alloc_copy_errors(ctx);
    printf("  gp_matrix_alloc (pitched), gp_matrix_copy host <-> device, refusals: %s\n",
           tc_fail == before ? "ok" : "FAILED");
done:
    OK(gp_stream_destroy(ctx, s));
    OK(gp_ctx_destroy(ctx));
    return tc_finish("gpu_matrix");
}
