/*
 * sort_qs.h — the scalar frame of the CPU quicksorts, shared by sort_simd_body.h (AVX-512) and sort_avx2_body.h
 * (AVX2): the pivot's medians, the heap sort it falls back to, a step, the loop and the OpenMP tasks around a
 * body's partition_lt / pivot_of / sort_small / final_keys, the reads that make the keys sorted before (over a body's
 * to_keys and float_* passes), and the floats' zeros and NaNs put back after. Included inside a
 * body with T, NAME, SIMD, SMALL, QLT(x, y) (the keys' order) and QTOP (the largest key) defined. No include guard:
 * included once per body and width.
 */
static SIMD size_t NAME(partition_lt)(T *a, size_t n, T pivot);
static SIMD T NAME(pivot_of)(const T *a, size_t n);
static SIMD void NAME(sort_small)(T *a, size_t n, int kind, T flip);
static inline SIMD void NAME(final_keys)(T *a, size_t m, int kind, T flip);
static SIMD void NAME(to_keys)(const T *x, T *k, size_t i0, size_t i1, int kind, T flip);
static SIMD void NAME(float_counts)(const T *x, size_t i0, size_t i1, size_t *c);
static SIMD void NAME(float_counts_keys)(const T *x, T *k, size_t i0, size_t i1, T flip, size_t *c);
static SIMD void NAME(float_gather)(const T *x, size_t i0, size_t i1, T *zs, T *ns);

static inline T NAME(med3)(T x, T y, T z)
{
    const T lo = QLT(x, y) ? x : y, hi = QLT(x, y) ? y : x;
    return QLT(z, lo) ? lo : QLT(hi, z) ? hi : z;
}

/* a heap sort: the quicksort's way out where its parts stop shrinking */
static void NAME(sift)(T *a, size_t i, size_t m)
{
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= m) return;
        if (c + 1 < m && QLT(a[c], a[c + 1])) c++;
        if (!QLT(a[i], a[c])) return;
        const T t = a[i];
        a[i] = a[c], a[c] = t, i = c;
    }
}
static void NAME(heap_sort)(T *a, size_t n)
{
    for (size_t k = n / 2; k-- > 0;) NAME(sift)(a, k, n);
    for (size_t m = n; m > 1; m--) {
        const T t = a[0];
        a[0] = a[m - 1], a[m - 1] = t;
        NAME(sift)(a, 0, m - 1);
    }
}

/* One step of the quicksort on (*a, *n): partitioned around a sampled pivot; the part left to sort goes to
 * (*a2, *n2), (*a, *n) keeps the other (*n2 = 0: none). A pivot that is the smallest key splits off the keys equal to
 * it instead, so equal keys end a part (made keys again: kind, flip). */
static SIMD void NAME(qs_step)(T **a, size_t *n, T **a2, size_t *n2, int kind, T flip)
{
    const T pivot = NAME(pivot_of)(*a, *n);
    size_t p = NAME(partition_lt)(*a, *n, pivot);
    *n2 = 0;
    if (p == 0) { /* every key is at least the pivot: those equal to it are in place once split off */
        if (pivot == QTOP) {
            NAME(final_keys)(*a, *n, kind, flip);
            *n = 0;
            return;
        }
        p = NAME(partition_lt)(*a, *n, pivot + 1);
        NAME(final_keys)(*a, p, kind, flip);
        *a += p, *n -= p;
        return;
    }
    *a2 = *a + p, *n2 = *n - p, *n = p;
}

/* a[0, n) sorted by one thread, made keys again (kind, flip: from_keys'; 0, 0: left as sorted) */
static SIMD void NAME(qs)(T *a, size_t n, int depth, int kind, T flip)
{
    while (n > SMALL) {
        if (depth-- <= 0) {
            NAME(heap_sort)(a, n);
            NAME(final_keys)(a, n, kind, flip);
            return;
        }
        T *b = NULL;
        size_t m = 0;
        NAME(qs_step)(&a, &n, &b, &m, kind, flip);
        if (m) { /* the smaller part by recursion, the larger by the loop */
            if (m < n) {
                NAME(qs)(b, m, depth, kind, flip);
            } else {
                NAME(qs)(a, n, depth, kind, flip);
                a = b, n = m;
            }
        }
    }
    NAME(sort_small)(a, n, kind, flip);
}

/* a[0, n) sorted, the parts of at least TASK_MIN keys as tasks of the team around it (not a SIMD function: the tasks'
 * outlined bodies call the SIMD ones, not inline them) */
static void NAME(qs_tasks)(T *a, size_t n, int depth, int kind, T flip)
{
    while (n > TASK_MIN && depth > 0) {
        depth--;
        T *b = NULL;
        size_t m = 0;
        NAME(qs_step)(&a, &n, &b, &m, kind, flip);
        if (m) {
#pragma omp task firstprivate(b, m, depth, kind, flip)
            NAME(qs_tasks)(b, m, depth, kind, flip);
        }
    }
    NAME(qs)(a, n, depth, kind, flip);
}

/* chunk c of nc of keys_in's reads of x: step 0 the floats' counts to fc[c] (and their keys, fused), 1 their zeros'
 * and NaNs' bits to side from the places fc[c] holds by then, 2 the keys */
static void NAME(in_chunk)(const T *x, T *k, size_t n, size_t c, size_t nc, int step, int kind, T flip, int fused,
                           size_t (*fc)[4], T *side)
{
    const size_t i0 = n * c / nc, i1 = n * (c + 1) / nc;
    if (step == 0 && fused) NAME(float_counts_keys)(x, k, i0, i1, flip, fc[c]);
    else if (step == 0) NAME(float_counts)(x, i0, i1, fc[c]);
    else if (step == 1) NAME(float_gather)(x, i0, i1, side + fc[c][0], side + fc[c][1]);
    else NAME(to_keys)(x, k, i0, i1, kind, flip);
}
/* one of keys_in's reads: over 64 fixed chunks with a team (par), else as one chunk without an OpenMP region (each
 * one, even of one thread, costs a team's set-up: ~1 us at 2^10) */
static void NAME(in_pass)(const T *x, T *k, size_t n, int par, int step, int kind, T flip, int fused, size_t (*fc)[4],
                          T *side)
{
    if (!par) {
        NAME(in_chunk)(x, k, n, 0, 1, step, kind, flip, fused, fc, side);
        return;
    }
#pragma omp parallel for schedule(static)
    for (size_t c = 0; c < 64; c++) NAME(in_chunk)(x, k, n, c, 64, step, kind, flip, fused, fc, side);
}
/* The keys [0, n) of x made the keys sorted, in k (x may be k), before the sort. Floats: their radix keys make -0.0
 * and +0.0 two keys and every NaN one, where the order says zeros are equal and NaNs are equal, each kept in input
 * order; so the zeros, NaNs and negatives (neither) are counted (zc[0..2]) and, where a -0.0 or a NaN is there, the
 * zeros' and NaNs' bits gathered in input order into *side (zeros, then NaNs) for put_side. plain: the keys are the
 * keys sorted (nothing converted in place). 0 where memory for side is refused (nothing allocated). */
static int NAME(keys_in)(const T *x, T *k, size_t n, int kind, T flip, int par, int plain, T **side, size_t *zc)
{
    size_t fc[64][4], z = 0, nn = 0, neg = 0, negz = 0;
    const size_t nc = par ? 64 : 1;
    const int fused = kind == 2 && x != k; /* the counts and the keys in one read */
    *side = NULL;
    if (kind == 2) {
        NAME(in_pass)(x, k, n, par, 0, kind, flip, fused, fc, NULL);
        for (size_t c = 0; c < nc; c++) z += fc[c][0], nn += fc[c][1], neg += fc[c][2], negz |= fc[c][3];
        if (negz || nn) {
            if ((*side = malloc((z + nn) * sizeof(T))) == NULL) return 0;
            size_t zo = 0, no = z;
            for (size_t c = 0; c < nc; c++) { /* chunk c's first zero and NaN places */
                const size_t cz = fc[c][0], cn = fc[c][1];
                fc[c][0] = zo, fc[c][1] = no;
                zo += cz, no += cn;
            }
            NAME(in_pass)(x, k, n, par, 1, kind, flip, fused, fc, *side);
        }
    }
    if (!fused && (!plain || x != k)) NAME(in_pass)(x, k, n, par, 2, kind, flip, fused, fc, NULL);
    zc[0] = z, zc[1] = nn, zc[2] = neg;
    return 1;
}

/* the zeros' and NaNs' bits in input order (side: z zeros, then nn NaNs; NULL: none to put) over their places in
 * sorted k: ascending the negatives, zeros, positives, NaNs; descending NaNs, positives, zeros, negatives. Frees
 * side. */
static void NAME(put_side)(T *k, size_t n, T *side, size_t z, size_t nn, size_t neg, int descending)
{
    if (!side) return;
    const size_t pos = n - z - nn - neg, z0 = descending ? nn + pos : neg, n0 = descending ? 0 : n - nn;
    memcpy(k + z0, side, z * sizeof(T));
    memcpy(k + n0, side + z, nn * sizeof(T));
    free(side);
}
