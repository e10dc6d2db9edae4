/*
 * segmented.c — gp_sort_segmented: the checks, then the CPU backend (here) or the GPU's (segmented.cu). Each segment
 * is sorted as gp_sort sorts (docs/design/sort.md, "Segmented sort"); on the CPU short segments are sorted a thread
 * each (up to 64 elements their radix keys with their places in AVX-512 registers, or by insertion; else the serial
 * sort), long ones one after another with every thread.
 */
#include "sort_internal.h"
#include "core/backend.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

enum { SHORT_MAX = 64, PAR_SEG = 1 << 18 /* gp__sort_cpu's own threads from here (PAR_MIN there) */ };

/* a short segment (m <= SHORT_MAX): its radix keys' bits [lo, hi) sorted with their places, then the elements
 * gathered into out through the places (read before written: out may be in). Up to 58 bits: each key above its
 * 6-bit place in one word, the words sorted in AVX-512 registers, or by insertion without AVX-512 (equal keys by
 * place: stable); wider keys by insertion with their places (a key moves past strictly greater ones only) */
static void short_sort(const gp__sort_xf_t *xf, size_t ks, size_t vs, const unsigned char *in,
                       const unsigned char *vin, unsigned char *out, unsigned char *vout, size_t m, int lo, int hi)
{
    const uint64_t mask = hi - lo >= 64 ? ~0ull : (1ull << (hi - lo)) - 1;
    uint64_t k[SHORT_MAX];
    unsigned char p[SHORT_MAX], tk[SHORT_MAX * 8], tv[SHORT_MAX * 16];
    if (hi - lo <= 58) { /* the words are distinct: any sort of them is the stable order */
        for (size_t i = 0; i < m; i++)
            k[i] = ((gp__sort_xf_key(xf, gp__sort_bits(in + i * ks, ks), ks) >> lo) & mask) << 6 | i;
        if (!gp__sort_cpu_words_small(k, m))
            for (size_t i = 1; i < m; i++) {
                const uint64_t w = k[i];
                size_t j = i;
                for (; j > 0 && k[j - 1] > w; j--) k[j] = k[j - 1];
                k[j] = w;
            }
        for (size_t i = 0; i < m; i++) p[i] = (unsigned char)(k[i] & 63);
    } else
        for (size_t i = 0; i < m; i++) {
            const uint64_t key = (gp__sort_xf_key(xf, gp__sort_bits(in + i * ks, ks), ks) >> lo) & mask;
            size_t j = i;
            for (; j > 0 && k[j - 1] > key; j--) k[j] = k[j - 1], p[j] = p[j - 1];
            k[j] = key, p[j] = (unsigned char)i;
        }
    for (size_t i = 0; i < m; i++) {
        memcpy(tk + i * ks, in + (size_t)p[i] * ks, ks);
        if (vs) memcpy(tv + i * vs, vin + (size_t)p[i] * vs, vs);
    }
    memcpy(out, tk, m * ks);
    if (vs) memcpy(vout, tv, m * vs);
}

static gp_status_t segmented_cpu(gp_dtype_t dt, size_t n, const unsigned char *keys, unsigned char *out, size_t vs,
                                 const unsigned char *vals, unsigned char *vout, size_t nseg, const int64_t *o,
                                 int desc, int lo, int hi)
{
    const size_t ks = gp_dtype_size(dt);
    const gp__sort_xf_t xf = gp__sort_xf(dt, desc);
    if (out != keys) { /* the elements outside every segment, as they are */
        memcpy(out, keys, (size_t)o[0] * ks);
        memcpy(out + (size_t)o[nseg] * ks, keys + (size_t)o[nseg] * ks, (n - (size_t)o[nseg]) * ks);
    }
    if (vs && vout != vals) {
        memcpy(vout, vals, (size_t)o[0] * vs);
        memcpy(vout + (size_t)o[nseg] * vs, vals + (size_t)o[nseg] * vs, (n - (size_t)o[nseg]) * vs);
    }
    gp_status_t st = GP_OK;
#pragma omp parallel for schedule(dynamic, 64) if (nseg > 64)
    for (size_t s = 0; s < nseg; s++) {
        const size_t b = (size_t)o[s], m = (size_t)o[s + 1] - b;
        if (m >= PAR_SEG) continue;
        gp_status_t e = GP_OK;
        if (m <= SHORT_MAX)
            short_sort(&xf, ks, vs, keys + b * ks, vs ? vals + b * vs : NULL, out + b * ks, vs ? vout + b * vs : NULL,
                       m, lo, hi);
        else
            e = gp__sort_cpu(dt, m, keys + b * ks, out + b * ks, vs, vs ? vals + b * vs : NULL,
                             vs ? vout + b * vs : NULL, desc, lo, hi);
        if (e != GP_OK) {
#pragma omp critical
            st = e;
        }
    }
    for (size_t s = 0; s < nseg && st == GP_OK; s++) {
        const size_t b = (size_t)o[s], m = (size_t)o[s + 1] - b;
        if (m >= PAR_SEG)
            st = gp__sort_cpu(dt, m, keys + b * ks, out + b * ks, vs, vs ? vals + b * vs : NULL,
                              vs ? vout + b * vs : NULL, desc, lo, hi);
    }
    return st;
}

static gp_status_t segsort_enqueue(const char *fn, gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *keys,
                                   void *keys_out, size_t vs, const void *vals, void *vals_out, size_t nseg,
                                   const int64_t *offsets, const gp_sort_opts_t *opts, gp_stream_t stream, int sync)
{
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    if ((unsigned)dtype >= GP_DTYPE_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: dtype %d is not a gp_dtype_t", fn, (int)dtype);
    int lo = 0, hi = 0, desc = 0;
    GP_TRY_RET(gp__sort_opts(fn, dtype, opts, &desc, &lo, &hi));
    if (!(vs == 0 || vs == 1 || vs == 2 || vs == 4 || vs == 8 || vs == 16))
        return gp__error(GP_ERR_INVALID_ARG, "%s: value_bytes %zu (0, 1, 2, 4, 8 or 16)", fn, vs);
    const size_t ks = gp_dtype_size(dtype);
    size_t kb = 0, vb = 0;
    if (!gp__mul_ok(n, ks, &kb) || !gp__mul_ok(n, vs, &vb) || n > (SIZE_MAX >> 5) || nseg > (SIZE_MAX >> 4))
        return gp__error(GP_ERR_OVERFLOW, "%s: n = %zu elements, nseg = %zu segments overflow", fn, n, nseg);
    GP_ARG_NONNULL(fn, offsets);
    if ((uintptr_t)offsets % 8) return gp__error(GP_ERR_INVALID_ARG, "%s: offsets are not 8-byte aligned", fn);
    if (n) {
        GP_ARG_NONNULL(fn, keys);
        GP_ARG_NONNULL(fn, keys_out);
        if ((uintptr_t)keys % ks || (uintptr_t)keys_out % ks)
            return gp__error(GP_ERR_INVALID_ARG, "%s: keys are not %zu-byte aligned", fn, ks);
        if (keys_out != keys && gp__overlap(keys, kb, keys_out, kb))
            return gp__error(GP_ERR_INVALID_ARG, "%s: keys and keys_out overlap (equal pointers sort in place)", fn);
        if (vs) {
            GP_ARG_NONNULL(fn, vals);
            GP_ARG_NONNULL(fn, vals_out);
            const size_t va = vs < 8 ? vs : 8;
            if ((uintptr_t)vals % va || (uintptr_t)vals_out % va)
                return gp__error(GP_ERR_INVALID_ARG, "%s: values are not %zu-byte aligned", fn, va);
            if (vals_out != vals && gp__overlap(vals, vb, vals_out, vb))
                return gp__error(GP_ERR_INVALID_ARG, "%s: values and values_out overlap (equal pointers: in place)", fn);
            if (gp__overlap(vals_out, vb, keys, kb) || gp__overlap(vals_out, vb, keys_out, kb) || gp__overlap(vals, vb, keys, kb) ||
                gp__overlap(vals, vb, keys_out, kb))
                return gp__error(GP_ERR_INVALID_ARG, "%s: the values overlap the keys", fn);
        }
    }
    if (gp__is_cpu(ctx)) {
        for (size_t i = 0; i <= nseg; i++)
            if (offsets[i] < 0 || (uint64_t)offsets[i] > n || (i && offsets[i] < offsets[i - 1]))
                return gp__error(GP_ERR_INVALID_ARG, "%s: offsets[%zu] = %lld %s", fn, i, (long long)offsets[i],
                                 offsets[i] < 0 || (uint64_t)offsets[i] > n ? "is outside [0, n]"
                                                                             : "is below the offset before it");
        if (n == 0) return GP_OK;
        return segmented_cpu(dtype, n, keys, keys_out, vs, vals, vals_out, nseg, offsets, desc, lo, hi);
    }
    GP_NO_CAPTURE(ctx, fn, "it reads the segments' lengths back");
    cudaStream_t s;
    GP_TRY_RET(gp__gpu_stream(ctx, fn, stream, sync, &s));
    GP_TRY_RET(gp__sort_gpu_ops.segmented(ctx, dtype, n, keys, keys_out, vs, vals, vals_out, nseg, offsets, desc, lo, hi,
                                          fn, s));
    return gp__gpu_wait(fn, s, sync);
}

gp_status_t gp_sort_segmented(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *keys, void *keys_out,
                              size_t value_bytes, const void *values, void *values_out, size_t nseg,
                              const int64_t *offsets, const gp_sort_opts_t *opts, gp_stream_t stream)
{
    return segsort_enqueue("gp_sort_segmented", ctx, dtype, n, keys, keys_out, value_bytes, values, values_out, nseg,
                           offsets, opts, stream, 0);
}

gp_status_t gp_sort_segmented_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *keys, void *keys_out,
                                   size_t value_bytes, const void *values, void *values_out, size_t nseg,
                                   const int64_t *offsets, const gp_sort_opts_t *opts)
{
    return segsort_enqueue("gp_sort_segmented_sync", ctx, dtype, n, keys, keys_out, value_bytes, values, values_out,
                           nseg, offsets, opts, NULL, 1);
}
