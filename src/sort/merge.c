/*
 * merge.c — gp_merge: the checks, then the CPU backend (here) or the GPU's (merge.cu); docs/design/sort.md. Keys
 * compare as radix keys (sort_internal.h), so the order is gp_sort's; ties take a's element first, which makes the
 * merge the stable sort of a followed by b.
 */
#include "sort_internal.h"
#include "core/backend.h"

#ifdef _OPENMP
#include <omp.h>
#endif

typedef struct {
    gp__sort_xf_t xf;
    size_t ks, vs, na, nb;
    const unsigned char *a, *b, *va, *vb;
} mrg_t;

static inline uint64_t key_a(const mrg_t *m, size_t i) { return gp__sort_xf_key(&m->xf, gp__sort_bits(m->a + i * m->ks, m->ks), m->ks); }
static inline uint64_t key_b(const mrg_t *m, size_t j) { return gp__sort_xf_key(&m->xf, gp__sort_bits(m->b + j * m->ks, m->ks), m->ks); }

/* how many of the first d merged elements come from a: the largest i with a[i - 1] before-or-tied b[d - i] */
static size_t split(const mrg_t *m, size_t d)
{
    size_t lo = d > m->nb ? d - m->nb : 0, hi = d < m->na ? d : m->na;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (key_a(m, mid) <= key_b(m, d - mid - 1)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* outputs [d0, d1): the two heads' radix keys kept, one recomputed a step (an exhausted side's key is past every
 * key: all ones and a flag, since all ones is also a key) */
static inline __attribute__((always_inline)) void merge_range_k(const mrg_t *m, size_t d0, size_t d1,
                                                                unsigned char *out, unsigned char *vout,
                                                                const size_t ks, const size_t vs)
{
    size_t i = split(m, d0), j = d0 - i;
    uint64_t ka = i < m->na ? key_a(m, i) : 0, kb = j < m->nb ? key_b(m, j) : 0;
    for (size_t d = d0; d < d1; d++) {
        const int from_a = j >= m->nb || (i < m->na && ka <= kb);
        const unsigned char *k = from_a ? m->a + i * ks : m->b + j * ks;
        memcpy(out + d * ks, k, ks);
        if (vs) memcpy(vout + d * vs, from_a ? m->va + i * vs : m->vb + j * vs, vs);
        if (from_a) {
            if (++i < m->na) ka = gp__sort_xf_key(&m->xf, gp__sort_bits(m->a + i * ks, ks), ks);
        } else if (++j < m->nb)
            kb = gp__sort_xf_key(&m->xf, gp__sort_bits(m->b + j * ks, ks), ks);
    }
}
static void merge_range(const mrg_t *m, size_t d0, size_t d1, unsigned char *out, unsigned char *vout)
{
    /* the key and value sizes as constants, so each copy is a register move */
#define MR(K, V) merge_range_k(m, d0, d1, out, vout, K, V)
    const size_t ks = m->ks, vs = m->vs;
    if (vs == 0) {
        if (ks == 1) MR(1, 0);
        else if (ks == 2) MR(2, 0);
        else if (ks == 4) MR(4, 0);
        else MR(8, 0);
    } else if (ks == 4 && vs == 4) MR(4, 4);
    else if (ks == 8 && vs == 8) MR(8, 8);
    else MR(ks, vs);
#undef MR
}

static void merge_cpu(gp_dtype_t dt, size_t na, const void *a, size_t nb, const void *b, void *out, size_t vs,
                      const void *va, const void *vb, void *vout, int desc)
{
    const mrg_t m = {gp__sort_xf(dt, desc), gp_dtype_size(dt), vs, na, nb, a, b, va, vb};
    const size_t n = na + nb;
    int parts = 1;
#ifdef _OPENMP
    if (n >= ((size_t)1 << 16)) parts = omp_get_max_threads();
#endif
#pragma omp parallel for schedule(static) num_threads(parts) if (parts > 1)
    for (int t = 0; t < parts; t++)
        merge_range(&m, n / (size_t)parts * (size_t)t + (n % (size_t)parts) * (size_t)t / (size_t)parts,
                    n / (size_t)parts * (size_t)(t + 1) + (n % (size_t)parts) * (size_t)(t + 1) / (size_t)parts, out,
                    vout);
}

static int overlaps(const void *p, size_t pb, const void *q, size_t qb)
{
    const uintptr_t x = (uintptr_t)p, y = (uintptr_t)q;
    return p && q && pb && qb && x < y + qb && y < x + pb;
}

static gp_status_t merge_enqueue(const char *fn, gp_ctx_t *ctx, gp_dtype_t dtype, size_t na, const void *a, size_t nb,
                                 const void *b, void *out, size_t vs, const void *va, const void *vb, void *vout,
                                 int desc, gp_stream_t stream, int sync)
{
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    if ((unsigned)dtype >= GP_DTYPE_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: dtype %d is not a gp_dtype_t", fn, (int)dtype);
    if (vs != 0 && vs != 1 && vs != 2 && vs != 4 && vs != 8 && vs != 16)
        return gp__error(GP_ERR_INVALID_ARG, "%s: value_bytes %zu (0, 1, 2, 4, 8 or 16)", fn, vs);
    const size_t ks = gp_dtype_size(dtype), n = na + nb;
    size_t bytes;
    if (n < na || !gp__mul_ok(n, ks > vs ? ks : vs, &bytes) || n > (SIZE_MAX >> 5))
        return gp__error(GP_ERR_OVERFLOW, "%s: na = %zu + nb = %zu elements overflow", fn, na, nb);
    if (n == 0) return GP_OK;
    if (na) GP_ARG_NONNULL(fn, a);
    if (nb) GP_ARG_NONNULL(fn, b);
    GP_ARG_NONNULL(fn, out);
    if (vs) {
        if (na) GP_ARG_NONNULL(fn, va);
        if (nb) GP_ARG_NONNULL(fn, vb);
        GP_ARG_NONNULL(fn, vout);
    }
    const size_t al = vs < 8 ? vs : 8;
    if ((na && (uintptr_t)a % ks) || (nb && (uintptr_t)b % ks) || (uintptr_t)out % ks ||
        (vs && ((na && (uintptr_t)va % al) || (nb && (uintptr_t)vb % al) || (uintptr_t)vout % al)))
        return gp__error(GP_ERR_INVALID_ARG, "%s: a pointer is not aligned to its element (keys %zu bytes, values %zu)",
                         fn, ks, al);
    const void *ins[4] = {na ? a : NULL, nb ? b : NULL, vs && na ? va : NULL, vs && nb ? vb : NULL};
    const size_t inb[4] = {na * ks, nb * ks, na * vs, nb * vs};
    for (int i = 0; i < 4; i++)
        if (overlaps(out, n * ks, ins[i], inb[i]) || (vs && overlaps(vout, n * vs, ins[i], inb[i])))
            return gp__error(GP_ERR_INVALID_ARG, "%s: %s overlaps an input", fn,
                             overlaps(out, n * ks, ins[i], inb[i]) ? "out" : "vout");
    if (vs && overlaps(out, n * ks, vout, n * vs))
        return gp__error(GP_ERR_INVALID_ARG, "%s: out and vout overlap", fn);
    if (gp__is_cpu(ctx)) {
        merge_cpu(dtype, na, a, nb, b, out, vs, va, vb, vout, desc != 0);
        return GP_OK;
    }
    cudaStream_t s;
    GP_TRY_RET(gp__gpu_stream(ctx, fn, stream, sync, &s));
    GP_TRY_RET(gp__sort_gpu_ops.merge(ctx, dtype, na, a, nb, b, out, vs, va, vb, vout, desc != 0, s));
    return gp__gpu_wait(fn, s, sync);
}

gp_status_t gp_merge(gp_ctx_t *ctx, gp_dtype_t dtype, size_t na, const void *a, size_t nb, const void *b, void *out,
                     size_t value_bytes, const void *va, const void *vb, void *vout, int descending, gp_stream_t stream)
{
    return merge_enqueue("gp_merge", ctx, dtype, na, a, nb, b, out, value_bytes, va, vb, vout, descending, stream, 0);
}

gp_status_t gp_merge_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t na, const void *a, size_t nb, const void *b,
                          void *out, size_t value_bytes, const void *va, const void *vb, void *vout, int descending)
{
    return merge_enqueue("gp_merge_sync", ctx, dtype, na, a, nb, b, out, value_bytes, va, vb, vout, descending, NULL,
                         1);
}

/* gp_sorted_until: chunks of the keys checked in parallel for large n, each chunk's first key against the one before
 * it; the first inversion is the smallest found. */
gp_status_t gp_sorted_until(gp_dtype_t dtype, size_t n, const void *x, int descending, size_t *until)
{
    static const char fn[] = "gp_sorted_until";
    GP_ARG_NONNULL(fn, until);
    if ((unsigned)dtype >= GP_DTYPE_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: dtype %d is not a gp_dtype_t", fn, (int)dtype);
    if (descending != 0 && descending != 1)
        return gp__error(GP_ERR_INVALID_ARG, "%s: descending %d (0 or 1)", fn, descending);
    const size_t ks = gp_dtype_size(dtype);
    if (n > SIZE_MAX / ks) return gp__error(GP_ERR_OVERFLOW, "%s: n = %zu keys of %zu bytes overflow", fn, n, ks);
    if (n > 1) GP_ARG_NONNULL(fn, x);
    if (n > 1 && (uintptr_t)x % ks) return gp__error(GP_ERR_INVALID_ARG, "%s: x is not %zu-byte aligned", fn, ks);
    const gp__sort_xf_t xf = gp__sort_xf(dtype, descending);
    const unsigned char *p = x;
    enum { CHUNK = 1 << 16 };
    const size_t chunks = n > 1 ? (n - 1 + CHUNK - 1) / CHUNK : 0;
    size_t first = n;
#pragma omp parallel for schedule(static) reduction(min : first) if (gp__cpu_par(1, n * ks))
    for (size_t c = 0; c < chunks; c++) {
        const size_t a = 1 + c * CHUNK, b = a + CHUNK < n ? a + CHUNK : n;
        uint64_t prev = gp__sort_xf_key(&xf, gp__sort_bits(p + (a - 1) * ks, ks), ks);
        for (size_t i = a; i < b; i++) {
            const uint64_t k = gp__sort_xf_key(&xf, gp__sort_bits(p + i * ks, ks), ks);
            if (k < prev) {
                if (i < first) first = i;
                break;
            }
            prev = k;
        }
    }
    *until = first;
    return GP_OK;
}
