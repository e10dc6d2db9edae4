/*
 * jit_host.h — the CPU backend of a user operator: the same trees as jit_kernels.cuh, compiled by the system C
 * compiler into a shared object at run time (src/jit/uop.c embeds this text after the same kind of preamble; never
 * compiled into the library). The library calls these functions over ranges of tiles from its OpenMP loops:
 *   gpj_h_tiles(x, n, t0, t1, partials)   tile results of tiles [t0, t1) (either tree)
 *   gpj_h_fold(src, m, g0, g1, dst)        one level: groups [g0, g1) of src[0, m) into dst[g]
 *   gpj_h_ident(r)                         the identity
 *   gpj_h_map(x, y, i0, i1)                y[i] = map(x[i])
 *   gpj_h_seg(x, n, off, s0, s1, out)      segments [s0, s1) (jit_seg.cuh's trees)
 * gpj_h_tile_elems / gpj_h_group_elems say how many elements a tile and entries a group hold.
 */
#define GPJ_LANES 256
#define GPJ_VECS 16
#define GPJ_EXPORT __attribute__((visibility("default")))

#if defined(GPJ_BINARY)
typedef struct {
    GPJ_T v[GPJ_K];
} GPJ_S;

static inline GPJ_S gpj_c(GPJ_S a, GPJ_S b)
{
    GPJ_S r;
    gpj_comb(a.v, b.v, r.v);
    return r;
}
static inline GPJ_S gpj_id(void)
{
    GPJ_S r;
    gpj_ident(r.v);
    return r;
}
GPJ_EXPORT void gpj_h_ident(void *r) { *(GPJ_S *)r = gpj_id(); }
GPJ_EXPORT void gpj_h_comb(const void *a, const void *b, void *c)
{
    *(GPJ_S *)c = gpj_c(*(const GPJ_S *)a, *(const GPJ_S *)b);
}

/* ---------------------------------------------------------------- scans (jit_scan.cuh's association order) */
typedef struct {
    GPJ_IN c[GPJ_K];
} GPJ_SE;
#define GPJ_SVB ((int)sizeof(GPJ_S))
#define GPJ_SR (GPJ_SVB <= 8 ? 16 : GPJ_SVB <= 16 ? 8 : GPJ_SVB <= 32 ? 4 : GPJ_SVB <= 64 ? 2 : 1)
GPJ_EXPORT const size_t gpj_h_scan_tile_elems = (size_t)GPJ_LANES * GPJ_SR;
/* L (the in-tile values) of a tile of m <= 256 R elements: runs left to right (padding past m: the identity),
 * Kogge-Stone over each warp's 32 run totals, over the 8 warp totals, then each run after its exclusive prefix;
 * S: 256 run totals, G: 8 warp totals (scratch) */
GPJ_EXPORT void gpj_h_scan_tile(const void *xv, size_t m, void *Lv, void *Sv, void *Gv)
{
    const GPJ_SE *x = (const GPJ_SE *)xv;
    GPJ_S *L = (GPJ_S *)Lv, *S = (GPJ_S *)Sv, *G = (GPJ_S *)Gv;
    for (size_t i = 0; i < GPJ_LANES; i++) {
        for (size_t q = 0; q < (size_t)GPJ_SR; q++) {
            const size_t j = i * GPJ_SR + q;
            GPJ_S v;
            if (j < m) {
                for (int c = 0; c < GPJ_K; c++) v.v[c] = gpj_in(x[j].c[c]);
            } else {
                v = gpj_id();
            }
            L[j] = q == 0 ? v : gpj_c(L[j - 1], v);
        }
        S[i] = L[i * GPJ_SR + GPJ_SR - 1];
    }
    for (size_t g = 0; g < GPJ_LANES / 32; g++)
        for (size_t d = 1; d < 32; d <<= 1)
            for (size_t l = 31; l >= d; l--) S[g * 32 + l] = gpj_c(S[g * 32 + l - d], S[g * 32 + l]);
    for (size_t g = 0; g < GPJ_LANES / 32; g++) G[g] = S[g * 32 + 31];
    for (size_t d = 1; d < GPJ_LANES / 32; d <<= 1)
        for (size_t g = GPJ_LANES / 32 - 1; g >= d; g--) G[g] = gpj_c(G[g - d], G[g]);
    for (size_t i = 1; i < GPJ_LANES && i * GPJ_SR < m; i++) {
        const size_t g = i / 32, l = i % 32;
        const GPJ_S E = g && l ? gpj_c(G[g - 1], S[i - 1]) : g ? G[g - 1] : S[i - 1];
        for (size_t q = 0; q < (size_t)GPJ_SR; q++) L[i * GPJ_SR + q] = gpj_c(E, L[i * GPJ_SR + q]);
    }
}
static GPJ_SE gpj_sback(GPJ_S v)
{
    GPJ_SE e;
    for (int c = 0; c < GPJ_K; c++) e.c[c] = gpj_back(v.v[c]);
    return e;
}
/* the outputs of a tile after the carry C (NULL: none); exclusive: shifted by one, C (or the identity) first */
GPJ_EXPORT void gpj_h_scan_out(const void *Lv, size_t m, const void *Cv, int excl, void *yv)
{
    const GPJ_S *L = (const GPJ_S *)Lv, *C = (const GPJ_S *)Cv;
    GPJ_SE *y = (GPJ_SE *)yv;
    if (!excl) {
        for (size_t j = 0; j < m; j++) y[j] = gpj_sback(C ? gpj_c(*C, L[j]) : L[j]);
        return;
    }
    y[0] = gpj_sback(C ? *C : gpj_id());
    for (size_t j = 1; j < m; j++) y[j] = gpj_sback(C ? gpj_c(*C, L[j - 1]) : L[j - 1]);
}

#if GPJ_COMM
#ifdef GPJ_TR
typedef GPJ_XIN GPJ_E;
static inline GPJ_S gpj_make(const GPJ_E *p)
{
    GPJ_S s;
    s.v[0] = gpj_map(gpj_xin(*p));
    return s;
}
#define GPJ_ES ((int)sizeof(GPJ_XIN))
#else
typedef struct {
    GPJ_IN c[GPJ_K];
} GPJ_E;
static inline GPJ_S gpj_make(const GPJ_E *p)
{
    GPJ_S s;
    for (int c = 0; c < GPJ_K; c++) s.v[c] = gpj_in(p->c[c]);
    return s;
}
#define GPJ_ES ((int)sizeof(GPJ_IN) * GPJ_K)
#endif
#define GPJ_W (16 / GPJ_ES)
#define GPJ_GROUP ((size_t)GPJ_LANES * GPJ_VECS)
GPJ_EXPORT const size_t gpj_h_tile_elems = (size_t)GPJ_LANES * GPJ_VECS * GPJ_W;
GPJ_EXPORT const size_t gpj_h_group_elems = GPJ_GROUP;

/* the GPU's block tree: within each warp for o = 16 .. 1: s[l] = s[l] o s[l+o] (l < o), then the 8 warp results */
static GPJ_S gpj_block_tree(GPJ_S *s)
{
    for (int w = 0; w < GPJ_LANES / 32; w++)
        for (int o = 16; o > 0; o >>= 1)
            for (int l = 0; l < o; l++) s[32 * w + l] = gpj_c(s[32 * w + l], s[32 * w + l + o]);
    GPJ_S r[GPJ_LANES / 32];
    for (int i = 0; i < GPJ_LANES / 32; i++) r[i] = s[32 * i];
    for (int o = GPJ_LANES / 64; o > 0; o >>= 1)
        for (int i = 0; i < o; i++) r[i] = gpj_c(r[i], r[i + o]);
    return r[0];
}

GPJ_EXPORT void gpj_h_tiles(const void *xv, size_t n, size_t t0, size_t t1, void *partials)
{
    const GPJ_E *x = (const GPJ_E *)xv;
    GPJ_S s[GPJ_LANES];
    for (size_t k = t0; k < t1; k++) {
        const size_t base = k * gpj_h_tile_elems;
        const int full = base + gpj_h_tile_elems <= n;
        for (int l = 0; l < GPJ_LANES; l++) {
            GPJ_S a = gpj_id();
            for (int j = 0; j < GPJ_VECS; j++) {
                const size_t e0 = base + ((size_t)l + (size_t)GPJ_LANES * j) * GPJ_W;
                if (full) {
                    for (int w = 0; w < GPJ_W; w++) a = gpj_c(a, gpj_make(x + e0 + w));
                } else {
                    for (int w = 0; w < GPJ_W; w++)
                        if (e0 + w < n) a = gpj_c(a, gpj_make(x + e0 + w));
                }
            }
            s[l] = a;
        }
        ((GPJ_S *)partials)[k] = gpj_block_tree(s);
    }
}

GPJ_EXPORT void gpj_h_fold(const void *srcv, size_t m, size_t g0, size_t g1, void *dstv)
{
    const GPJ_S *src = (const GPJ_S *)srcv;
    GPJ_S s[GPJ_LANES];
    for (size_t g = g0; g < g1; g++) {
        for (int l = 0; l < GPJ_LANES; l++) {
            GPJ_S a = gpj_id();
            for (int j = 0; j < GPJ_VECS; j++) {
                const size_t e = g * GPJ_GROUP + (size_t)j * GPJ_LANES + (size_t)l;
                if (e < m) a = gpj_c(a, src[e]);
            }
            s[l] = a;
        }
        ((GPJ_S *)dstv)[g] = gpj_block_tree(s);
    }
}


#ifndef GPJ_TR
/* gp_reduce_segmented_uop (jit_seg.cuh's commutative tree): segments [s0, s1) of the CSR offsets into out */
static GPJ_S gpj_seg_block(const GPJ_E *x, size_t b, size_t e)
{
    GPJ_S s[GPJ_LANES];
    for (size_t l = 0; l < GPJ_LANES; l++) {
        GPJ_S a = gpj_id();
        for (size_t g = b + l * GPJ_W; g < e; g += (size_t)GPJ_LANES * GPJ_W)
            for (size_t i = g; i < g + GPJ_W && i < e; i++) a = gpj_c(a, gpj_make(x + i));
        s[l] = a;
    }
    return gpj_block_tree(s);
}
static GPJ_S gpj_seg_one(const GPJ_E *x, size_t b, size_t e)
{
    if (e == b) return gpj_id();
    if (e - b <= 2048) { /* a warp: lane l folds l, l+32, ...; then the shuffle tree */
        GPJ_S w[32];
        for (size_t l = 0; l < 32; l++) {
            w[l] = gpj_id();
            for (size_t i = b + l; i < e; i += 32) w[l] = gpj_c(w[l], gpj_make(x + i));
        }
        for (int o = 16; o > 0; o >>= 1)
            for (int l = 0; l < o; l++) w[l] = gpj_c(w[l], w[l + o]);
        return w[0];
    }
    if (e - b <= 16384) return gpj_seg_block(x, b, e);
    GPJ_S lanes[GPJ_LANES]; /* chunks of 16384, their values lane-strided, then the block tree */
    for (size_t l = 0; l < GPJ_LANES; l++) lanes[l] = gpj_id();
    const size_t nch = (e - b + 16383) / 16384;
    for (size_t k = 0; k < nch; k++) {
        const size_t cb = b + k * 16384, ce = cb + 16384 < e ? cb + 16384 : e;
        lanes[k % GPJ_LANES] = gpj_c(lanes[k % GPJ_LANES], gpj_seg_block(x, cb, ce));
    }
    return gpj_block_tree(lanes);
}
#endif
#else
/* ---------------------------------------------------------------- the ordered tree */
typedef struct {
    GPJ_IN c[GPJ_K];
} GPJ_E;
#define GPJ_ES ((int)sizeof(GPJ_IN) * GPJ_K)
#define GPJ_R (256 / GPJ_ES > 0 ? 256 / GPJ_ES : 1)
GPJ_EXPORT const size_t gpj_h_tile_elems = (size_t)GPJ_LANES * GPJ_R;
GPJ_EXPORT const size_t gpj_h_group_elems = (size_t)GPJ_LANES * GPJ_R;
typedef struct {
    GPJ_S s;
    int ok;
} GPJ_O;
static inline GPJ_O gpj_oc(GPJ_O a, GPJ_O b)
{
    if (!b.ok) return a;
    if (!a.ok) return b;
    GPJ_O r;
    r.ok = 1;
    r.s = gpj_c(a.s, b.s);
    return r;
}
/* the GPU's fold: warp up-sweep (lane l, a multiple of 2o, takes s[l] o s[l+o]), warps left to right */
static GPJ_S gpj_block_fold(GPJ_O *s)
{
    for (int w = 0; w < GPJ_LANES / 32; w++)
        for (int o = 1; o < 32; o <<= 1)
            for (int l = 0; l < 32; l += 2 * o) s[32 * w + l] = gpj_oc(s[32 * w + l], s[32 * w + l + o]);
    GPJ_O r = s[0];
    for (int w = 1; w < GPJ_LANES / 32; w++) r = gpj_oc(r, s[32 * w]);
    return r.s;
}
static void gpj_ofold(const GPJ_S *src, const GPJ_E *x, size_t m, size_t g, GPJ_S *dst)
{
    GPJ_O s[GPJ_LANES];
    for (int l = 0; l < GPJ_LANES; l++) {
        GPJ_O a;
        a.ok = 0;
        const size_t first = g * gpj_h_tile_elems + (size_t)l * GPJ_R;
        for (int j = 0; j < GPJ_R; j++)
            if (first + j < m) {
                GPJ_O e;
                e.ok = 1;
                if (x) {
                    for (int c = 0; c < GPJ_K; c++) e.s.v[c] = gpj_in(x[first + j].c[c]);
                } else {
                    e.s = src[first + j];
                }
                a = gpj_oc(a, e);
            }
        s[l] = a;
    }
    dst[g] = gpj_block_fold(s);
}
GPJ_EXPORT void gpj_h_tiles(const void *x, size_t n, size_t t0, size_t t1, void *partials)
{
    for (size_t k = t0; k < t1; k++) gpj_ofold(NULL, (const GPJ_E *)x, n, k, (GPJ_S *)partials);
}
GPJ_EXPORT void gpj_h_fold(const void *src, size_t m, size_t g0, size_t g1, void *dst)
{
    for (size_t g = g0; g < g1; g++) gpj_ofold((const GPJ_S *)src, NULL, m, g, (GPJ_S *)dst);
}
/* gp_reduce_segmented_uop (ordered): a segment exactly as gp_reduce_uop reduces it alone; 0, or -1 out of memory */
static int gpj_seg_one_o(const GPJ_E *x, size_t L, GPJ_S *r)
{
    if (L == 0) {
        *r = gpj_id();
        return 0;
    }
    const size_t nt = (L + gpj_h_tile_elems - 1) / gpj_h_tile_elems;
    if (nt == 1) {
        gpj_ofold(NULL, x, L, 0, r);
        return 0;
    }
    GPJ_S *a = (GPJ_S *)malloc(nt * sizeof *a), *b = (GPJ_S *)malloc(nt * sizeof *b);
    if (!a || !b) {
        free(a);
        free(b);
        return -1;
    }
    for (size_t k = 0; k < nt; k++) gpj_ofold(NULL, x, L, k, a);
    for (size_t m = nt; m > 1;) {
        const size_t groups = (m + gpj_h_group_elems - 1) / gpj_h_group_elems;
        for (size_t g = 0; g < groups; g++) gpj_ofold(a, NULL, m, g, b);
        GPJ_S *t = a;
        a = b;
        b = t;
        m = groups;
    }
    *r = a[0];
    free(a);
    free(b);
    return 0;
}
#endif
#if !defined(GPJ_TR)
/* segments [s0, s1) of the CSR offsets (clamped as gp_reduce_segmented's) into out; 0, or -1 out of memory */
GPJ_EXPORT int gpj_h_seg(const void *xv, size_t n, const long long *off, size_t s0, size_t s1, void *outv)
{
    const GPJ_E *x = (const GPJ_E *)xv;
    GPJ_S *out = (GPJ_S *)outv;
    for (size_t sg = s0; sg < s1; sg++) {
        long long lo = off[sg], hi = off[sg + 1];
        lo = lo < 0 ? 0 : lo > (long long)n ? (long long)n : lo;
        hi = hi < lo ? lo : hi > (long long)n ? (long long)n : hi;
#if GPJ_COMM
        out[sg] = gpj_seg_one(x, (size_t)lo, (size_t)hi);
#else
        if (gpj_seg_one_o(x + lo, (size_t)(hi - lo), &out[sg])) return -1;
#endif
    }
    return 0;
}
#endif
#endif /* GPJ_BINARY */

#if defined(GPJ_PRED)
/* gp_select_if: the kept count of x[i0, i1), and the kept elements of x[i0, i1) written to y in order */
GPJ_EXPORT size_t gpj_h_count(const void *xv, size_t i0, size_t i1)
{
    const GPJ_XIN *x = (const GPJ_XIN *)xv;
    size_t c = 0;
    for (size_t i = i0; i < i1; i++) c += gpj_pred(gpj_xin(x[i])) != 0;
    return c;
}
GPJ_EXPORT size_t gpj_h_select(const void *xv, size_t i0, size_t i1, void *yv)
{
    const GPJ_XIN *x = (const GPJ_XIN *)xv;
    GPJ_XIN *y = (GPJ_XIN *)yv;
    size_t c = 0;
    for (size_t i = i0; i < i1; i++)
        if (gpj_pred(gpj_xin(x[i])) != 0) y[c++] = x[i];
    return c;
}
#endif

#if defined(GPJ_MAP) && !defined(GPJ_TR)
GPJ_EXPORT void gpj_h_map(const void *xv, void *yv, size_t i0, size_t i1)
{
    const GPJ_XIN *x = (const GPJ_XIN *)xv;
    GPJ_OUT *y = (GPJ_OUT *)yv;
    for (size_t i = i0; i < i1; i++) y[i] = gpj_out(gpj_map(gpj_xin(x[i])));
}
#endif

#if defined(GPJ_LESS)
/* gp_sort_uop: a stable merge sort by gpj_less (jit_sort.cuh's order of ties: the earlier run's key first).
 *   gpj_h_split(a, na, b, nb, diag)                       the merge-path split: elements of a before output diag
 *   gpj_h_merge(ka, va, na, kb, vb, nb, vbytes, ko, vo, c) the first c outputs of the merge of a and b
 *   gpj_h_sortrun(k, v, n, vbytes, tk, tv)                 k[0, n) sorted in place (tk, tv: scratch of n) */
#define GPJ_HRUN 24
GPJ_EXPORT size_t gpj_h_split(const void *av, size_t na, const void *bv, size_t nb, size_t diag)
{
    const GPJ_KEY *a = (const GPJ_KEY *)av, *b = (const GPJ_KEY *)bv;
    size_t lo = diag > nb ? diag - nb : 0, hi = diag < na ? diag : na;
    while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (gpj_less(b[diag - 1 - mid], a[mid])) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}
GPJ_EXPORT void gpj_h_merge(const void *kav, const void *vav, size_t na, const void *kbv, const void *vbv, size_t nb,
                            size_t vbytes, void *kov, void *vov, size_t cnt)
{
    const GPJ_KEY *ka = (const GPJ_KEY *)kav, *kb = (const GPJ_KEY *)kbv;
    const unsigned char *va = (const unsigned char *)vav, *vb = (const unsigned char *)vbv;
    GPJ_KEY *ko = (GPJ_KEY *)kov;
    unsigned char *vo = (unsigned char *)vov;
    size_t i = 0, j = 0;
    for (size_t o = 0; o < cnt; o++) {
        if (j < nb && (i >= na || gpj_less(kb[j], ka[i]))) {
            ko[o] = kb[j];
            if (vbytes) memcpy(vo + o * vbytes, vb + j * vbytes, vbytes);
            j++;
        } else {
            ko[o] = ka[i];
            if (vbytes) memcpy(vo + o * vbytes, va + i * vbytes, vbytes);
            i++;
        }
    }
}
GPJ_EXPORT void gpj_h_sortrun(void *kv, void *vv, size_t n, size_t vbytes, void *tkv, void *tvv)
{
    GPJ_KEY *k = (GPJ_KEY *)kv, *tk = (GPJ_KEY *)tkv;
    unsigned char *v = (unsigned char *)vv, *tv = (unsigned char *)tvv, hold[16];
    for (size_t r0 = 0; r0 < n; r0 += GPJ_HRUN) { /* runs by insertion: a key moves past strictly greater ones only */
        const size_t r1 = r0 + GPJ_HRUN < n ? r0 + GPJ_HRUN : n;
        for (size_t i = r0 + 1; i < r1; i++) {
            const GPJ_KEY x = k[i];
            size_t j = i;
            if (vbytes) memcpy(hold, v + i * vbytes, vbytes);
            while (j > r0 && gpj_less(x, k[j - 1])) {
                k[j] = k[j - 1];
                if (vbytes) memcpy(v + j * vbytes, v + (j - 1) * vbytes, vbytes);
                j--;
            }
            k[j] = x;
            if (vbytes) memcpy(v + j * vbytes, hold, vbytes);
        }
    }
    GPJ_KEY *sk = k, *dk = tk;
    unsigned char *sv = v, *dv = tv;
    for (size_t w = GPJ_HRUN; w < n; w *= 2) {
        for (size_t s = 0; s < n; s += 2 * w) {
            const size_t na = w < n - s ? w : n - s, nb = n - s - na < w ? n - s - na : w;
            gpj_h_merge(sk + s, sv + s * vbytes, na, sk + s + na, sv + (s + na) * vbytes, nb, vbytes, dk + s,
                        dv + s * vbytes, na + nb);
        }
        GPJ_KEY *t = sk;
        sk = dk;
        dk = t;
        unsigned char *u = sv;
        sv = dv;
        dv = u;
    }
    if (sk != k) {
        memcpy(k, sk, n * sizeof *k);
        if (vbytes) memcpy(v, sv, n * vbytes);
    }
}
#endif
