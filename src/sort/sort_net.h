/*
 * sort_net.h — the sorting networks' merge of sorted vectors, shared by sort_simd_body.h (AVX-512) and
 * sort_avx2_body.h (AVX2): 2^LC vectors in sorted runs of 2^L0 vectors (each run's keys in row order), merged in
 * runs of w = 2^L0, .. vectors pairwise (the second run reversed, compare-exchanges across vectors at strides w .. 1,
 * then the half-cleaners within each vector). Included inside a body with NAME, SIMD, ALWAYS, UNROLL, QV (the vector
 * type), V_MIN, V_MAX, QREV(v) (the lanes reversed) and QMERGE1(v) (a bitonic vector sorted) defined. No include
 * guard: included once per body and width. Also the columns' network of 8 vectors (cols8): the keys of each lane
 * sorted across them by compare-exchanges of whole vectors — Batcher's odd-even merge sort, 19, no shuffles — with
 * which the AVX-512 body's sort by lanes starts.
 */
#define QCE(i, j)                                                                                                    \
    do {                                                                                                             \
        const QV lo_ = V_MIN(v[i], v[j]);                                                                            \
        v[j] = V_MAX(v[i], v[j]), v[i] = lo_;                                                                        \
    } while (0)
static inline SIMD ALWAYS void NAME(cols8)(QV *v)
{
    QCE(0, 1); QCE(2, 3); QCE(4, 5); QCE(6, 7);
    QCE(0, 2); QCE(1, 3); QCE(4, 6); QCE(5, 7);
    QCE(1, 2); QCE(5, 6);
    QCE(0, 4); QCE(1, 5); QCE(2, 6); QCE(3, 7);
    QCE(2, 4); QCE(3, 5);
    QCE(1, 2); QCE(3, 4); QCE(5, 6);
}
#undef QCE
static inline SIMD ALWAYS void NAME(merge_runs)(QV *v, const int LC, const int L0)
{
    const int C = 1 << LC; /* loops over counts, not shifts: GCC unrolls them fully, so v[] stays in registers */
    UNROLL for (int lw = L0; lw < LC; lw++) {
        const int w = 1 << lw, blocks = C / (2 * w);
        UNROLL for (int bb = 0; bb < blocks; bb++) {
            const int b = bb * 2 * w;
            UNROLL for (int i = 0; i < w / 2; i++) {
                const QV t = v[b + w + i];
                v[b + w + i] = v[b + 2 * w - 1 - i], v[b + 2 * w - 1 - i] = t;
            }
            UNROLL for (int i = 0; i < w; i++) v[b + w + i] = QREV(v[b + w + i]);
            UNROLL for (int ls = lw; ls >= 0; ls--)
                UNROLL for (int i = 0; i < 2 * w; i++)
                    if ((i & (1 << ls)) == 0) {
                        const int x = b + i, y = b + i + (1 << ls);
                        const QV lo = V_MIN(v[x], v[y]), hi = V_MAX(v[x], v[y]);
                        v[x] = lo, v[y] = hi;
                    }
            UNROLL for (int i = b; i < b + 2 * w; i++) v[i] = QMERGE1(v[i]);
        }
    }
}
