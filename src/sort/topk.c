/*
 * topk.c — gp_topk: the checks, then the CPU backend (here) or the GPU's (topk.cu); docs/design/sort.md. Both select
 * the same k per row: the k-th radix key T by a radix select (8-bit digits from the top, counting only the keys that
 * share the digits chosen so far), every key below T and the first ties at T in index order, then those k ordered by
 * (key, position) — the first k of the row's stable sort.
 */
#include "sort_internal.h"

#include <stdlib.h>

/* one row on the CPU: x (n elements of es bytes) -> vals / idx (k each; either may be NULL); rk: n words of scratch */
static gp_status_t row_cpu(gp_dtype_t dt, const unsigned char *x, size_t n, size_t k, int largest, unsigned char *vals,
                           size_t ib, unsigned char *idx, uint64_t *rk)
{
    const gp__sort_xf_t xf = gp__sort_xf(dt, largest);
    const size_t es = gp_dtype_size(dt);
    const int w = 8 * (int)es;
    for (size_t i = 0; i < n; i++) rk[i] = gp__sort_xf_key(&xf, gp__sort_bits(x + i * es, es), es);
    uint64_t prefix = 0;
    size_t want = k; /* the rank of T among the keys that share prefix's digits so far (1-based) */
    for (int shift = w - 8; shift >= 0; shift -= 8) {
        size_t h[256] = {0};
        const int top = shift + 8 >= 64;
        for (size_t i = 0; i < n; i++)
            if (top || (rk[i] >> (shift + 8)) == (prefix >> (shift + 8))) h[(rk[i] >> shift) & 255]++;
        unsigned d = 0;
        size_t below = 0;
        while (below + h[d] < want) below += h[d++];
        prefix |= (uint64_t)d << shift;
        want -= below;
    }
    /* every key below T, and the first `want` keys equal to it, in index order */
    unsigned char *gx = malloc(k * es), *sx = malloc(k * es);
    uint64_t *gi = malloc(k * 8), *si = malloc(k * 8);
    gp_status_t st = GP_OK;
    if (!gx || !sx || !gi || !si) {
        st = gp__error(GP_ERR_OUT_OF_MEMORY, "gp_topk: %zu elements of scratch", k);
        goto done;
    }
    size_t c = 0;
    for (size_t i = 0; i < n && c < k; i++)
        if (rk[i] < prefix || (rk[i] == prefix && want > 0)) {
            if (rk[i] == prefix) want--;
            memcpy(gx + c * es, x + i * es, es);
            gi[c++] = i;
        }
    /* in index order already: a stable sort by the key gives (key, position) order */
    if ((st = gp__sort_cpu(dt, k, gx, sx, 8, gi, si, largest, 0, w)) != GP_OK) goto done;
    if (vals) memcpy(vals, sx, k * es);
    if (idx)
        for (size_t j = 0; j < k; j++) {
            if (ib == 4) {
                const uint32_t v = (uint32_t)si[j];
                memcpy(idx + j * 4, &v, 4);
            } else
                memcpy(idx + j * 8, &si[j], 8);
        }
done:
    free(gx), free(sx), free(gi), free(si);
    return st;
}

static gp_status_t topk_cpu(gp_dtype_t dt, size_t rows, size_t n, const unsigned char *x, size_t k, int largest,
                            unsigned char *vals, size_t ib, unsigned char *idx)
{
    const size_t es = gp_dtype_size(dt);
    gp_status_t st = GP_OK;
#pragma omp parallel for schedule(dynamic, 1) if (rows > 1)
    for (size_t r = 0; r < rows; r++) {
        gp_status_t s;
        uint64_t *rk = malloc(n * 8);
        if (rk == NULL) s = gp__error(GP_ERR_OUT_OF_MEMORY, "gp_topk: %zu keys of scratch", n);
        else
            s = row_cpu(dt, x + r * n * es, n, k, largest, vals ? vals + r * k * es : NULL, ib,
                        idx ? idx + r * k * ib : NULL, rk);
        free(rk);
        if (s != GP_OK) {
#pragma omp critical
            st = s;
        }
    }
    return st;
}

static gp_status_t run(const char *fn, gp_ctx_t *ctx, gp_dtype_t dtype, size_t rows, size_t n, const void *x,
                       size_t k, int largest, void *values, gp_dtype_t index_dtype, void *indices, gp_stream_t stream,
                       int sync)
{
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    if ((unsigned)dtype >= GP_DTYPE_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: dtype %d is not a gp_dtype_t", fn, (int)dtype);
    if (k > n) return gp__error(GP_ERR_INVALID_ARG, "%s: k = %zu is more than the row's n = %zu", fn, k, n);
    const size_t es = gp_dtype_size(dtype), ib = indices ? gp__sort_index_bytes(index_dtype) : 8;
    if (!ib)
        return gp__error(GP_ERR_INVALID_ARG, "%s: index_dtype %d (GP_U32, GP_I64 or GP_U64)", fn, (int)index_dtype);
    if (indices && ib == 4 && n > (size_t)UINT32_MAX + 1)
        return gp__error(GP_ERR_INVALID_ARG, "%s: index_dtype u32 cannot index rows of n = %zu (GP_I64 can)", fn, n);
    size_t total, kb;
    if (!gp__mul_ok(rows, n, &total) || !gp__mul_ok(total, es, &kb) || total > (SIZE_MAX >> 5) ||
        !gp__mul_ok(rows, k, &kb) || !gp__mul_ok(kb, 16, &kb))
        return gp__error(GP_ERR_OVERFLOW, "%s: rows = %zu x n = %zu (k = %zu) overflow", fn, rows, n, k);
    if (rows == 0 || k == 0) return GP_OK;
    GP_ARG_NONNULL(fn, x);
    if (!values && !indices) return gp__error(GP_ERR_INVALID_ARG, "%s: values and indices are both NULL", fn);
    if ((uintptr_t)x % es || (values && (uintptr_t)values % es))
        return gp__error(GP_ERR_INVALID_ARG, "%s: %s is not %zu-byte aligned", fn, (uintptr_t)x % es ? "x" : "values",
                         es);
    if (indices && (uintptr_t)indices % ib)
        return gp__error(GP_ERR_INVALID_ARG, "%s: indices is not %zu-byte aligned", fn, ib);
    const uintptr_t xa = (uintptr_t)x, xe = xa + total * es, va = (uintptr_t)values, ve = va + rows * k * es,
                    ia = (uintptr_t)indices, ie = ia + rows * k * ib;
    if ((values && va < xe && xa < ve) || (indices && ia < xe && xa < ie) ||
        (values && indices && va < ie && ia < ve))
        return gp__error(GP_ERR_INVALID_ARG, "%s: x, values and indices overlap", fn);
    if (gp__is_cpu(ctx)) return topk_cpu(dtype, rows, n, x, k, largest != 0, values, ib, indices);
    cudaStream_t s = sync ? NULL : (cudaStream_t)stream;
    if (sync) GP_NO_CAPTURE(ctx, fn, "it waits for the result");
    GP_TRY_RET(gp__topk_gpu(ctx, dtype, rows, n, x, k, largest != 0, values, ib, indices, s));
    if (sync) {
        const cudaError_t e = cudaStreamSynchronize(s);
        if (e != cudaSuccess) return gp__cuda_error(e, fn, __FILE__, __LINE__);
    }
    return GP_OK;
}

gp_status_t gp_topk(gp_ctx_t *ctx, gp_dtype_t dtype, size_t rows, size_t n, const void *x, size_t k, int largest,
                    void *values, gp_dtype_t index_dtype, void *indices, gp_stream_t stream)
{
    return run("gp_topk", ctx, dtype, rows, n, x, k, largest, values, index_dtype, indices, stream, 0);
}

gp_status_t gp_topk_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t rows, size_t n, const void *x, size_t k, int largest,
                         void *values, gp_dtype_t index_dtype, void *indices)
{
    return run("gp_topk_sync", ctx, dtype, rows, n, x, k, largest, values, index_dtype, indices, NULL, 1);
}
