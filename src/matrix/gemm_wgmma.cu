/*
 * gemm_wgmma.cu — TF32 / BF16 / FP16 GEMM on Hopper's warpgroup MMA (wgmma, sm_90a; built as its own object with
 * -gencode=arch=compute_90a,code=sm_90a, the rest of the library being plain sm_90). A K-major, or for the TMA
 * kernel's TF32 on 128 x 256 tiles MN-major (read into registers: the wgmma's A from registers); B K-major, or for
 * the TMA kernel and 16-bit types N-inner as the caller stored it (read through the wgmma's transpose bit), or for
 * TF32 MN-major by the swapped problem C^T = B^T A^T; the launcher in gemm_tc.cu transposes or packs the others
 * first; rows 16-byte aligned. TF32 operands are read as stored: the tensor cores use the top 19 bits of each f32
 * (gp__f32_to_tf32, the rule the tests check; the register-fed operand is masked to them).
 * Two kernels (docs/design/matrix.md):
 * - gemm_wgmma: block tile 128 x 256 x 128 bytes of K, two consumer warpgroups each issuing one m64n256k16 (k8 for
 *   TF32) wgmma per 32 bytes of K on its 64 rows; every thread copies 16-byte chunks with cp.async (bytes past an edge
 *   zero-filled) into a 4-stage ring in the 128-byte swizzle the descriptors name (chunk c of row r at r * 128 +
 *   ((c ^ (r mod 8)) * 16)), then fence.proxy.async; one wgmma group left in flight.
 * - gemm_tma (production): the copy engine fills the ring (cp.async.bulk.tensor, zeros past the tensor's edges),
 *   full / empty mbarriers, a producer warpgroup (or warp) and two consumer warpgroups; block tile 128 x 256 (one
 *   block per SM) or 128 x 128 (two), alone or in clusters of two multicasting their shared B tile, or (PS) a
 *   persistent grid walking the tiles; K optionally split over grid layers whose f32 partials splitk_finish sums in
 *   order. C written two columns per store where it can.
 * Not here: a 16-bit MN-major A (transposed by the launcher).
 */
#include "matrix_internal.h"

#include "../core/half.h"

#include <cuda.h> /* CUtensorMap and its enums only: the driver entry point is fetched through the runtime */
#include <stdint.h>
#include <string.h>
#include <type_traits>

namespace {

constexpr int BM = 128, BN = 256, STAGES = 4, THREADS = 256; /* K per stage: 128 bytes of a row */
constexpr int A_BYTES = BM * 128, B_BYTES = BN * 128, STAGE_BYTES = A_BYTES + B_BYTES;
constexpr size_t SMEM = (size_t)STAGES * STAGE_BYTES + 1024; /* + slack to align the ring to 1024 bytes */

__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void cp16(unsigned dst, const void *src, int bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(bytes));
}

/* K-major operand tile: R rows (from r0, of RN) x 128 bytes of K (from k0, of K; ES-byte elements), 128-byte swizzled */
template <int R, int ES>
__device__ __forceinline__ void load_tile(unsigned s, const char *X, size_t ld, size_t r0, size_t RN, size_t k0,
                                          size_t K)
{
    constexpr int EPC = 16 / ES; /* elements per 16-byte chunk */
#pragma unroll
    for (int i = 0; i < R * 8 / THREADS; i++) {
        const int c = threadIdx.x + i * THREADS, row = c >> 3, ch = c & 7;
        const size_t gr = r0 + row, gc = k0 + (size_t)ch * EPC;
        int bytes = 0;
        if (gr < RN && gc < K) bytes = K - gc >= (size_t)EPC ? 16 : (int)(K - gc) * ES;
        const char *src = bytes ? X + (gr * ld + gc) * ES : X;
        cp16(s + row * 128 + ((ch ^ (row & 7)) << 4), src, bytes);
    }
}

/* shared-memory matrix descriptor: K-major, 128-byte swizzle, 8-row groups 1024 bytes apart */
__device__ __forceinline__ uint64_t desc(unsigned addr)
{
    return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)1 << 16) | ((uint64_t)(1024 >> 4) << 32) |
           ((uint64_t)1 << 62);
}

/* the accumulators of an m64n256 (128 registers) or m64n128 (64) wgmma: the register lists and the operands */
#define GP_WG_R64 "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63"
#define GP_WG_R128 GP_WG_R64 ",%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127"
#define GP_WG_O64 "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define GP_WG_O128 GP_WG_O64, "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])

/* one wgmma of N = 256 or 128 columns (f32 accumulators) from two descriptors; OP: the instruction's name up to its
 * operands, TAIL: the operands after the descriptors (scales, and for 16-bit types the transpose bits) */
#define GP_WG_ASM(N, OP, TAIL) GP_WG_ASM_##N(OP, TAIL)
#define GP_WG_ASM_256(OP, TAIL)                                                                                    \
    asm volatile(OP " {" GP_WG_R128 "}, %128, %129, " TAIL ";\n" : GP_WG_O128 : "l"(da), "l"(db))
#define GP_WG_ASM_128(OP, TAIL)                                                                                    \
    asm volatile(OP " {" GP_WG_R64 "}, %64, %65, " TAIL ";\n" : GP_WG_O64 : "l"(da), "l"(db))

/* m64nNk16 on a 16-bit type TY, f32 accumulators; TB: B is MN-major (N-inner in shared memory: the wgmma's
 * transpose bit) */
#define GP_WG16(NAME, TY)                                                                                          \
    template <int N, int TB> __device__ __forceinline__ void NAME(float *d, uint64_t da, uint64_t db)              \
    {                                                                                                              \
        if constexpr (N == 256 && TB) {                                                                            \
            GP_WG_ASM(256, "wgmma.mma_async.sync.aligned.m64n256k16.f32." TY "." TY, "1, 1, 1, 0, 1");             \
        } else if constexpr (N == 256) {                                                                           \
            GP_WG_ASM(256, "wgmma.mma_async.sync.aligned.m64n256k16.f32." TY "." TY, "1, 1, 1, 0, 0");             \
        } else if constexpr (TB) {                                                                                 \
            GP_WG_ASM(128, "wgmma.mma_async.sync.aligned.m64n128k16.f32." TY "." TY, "1, 1, 1, 0, 1");             \
        } else {                                                                                                   \
            GP_WG_ASM(128, "wgmma.mma_async.sync.aligned.m64n128k16.f32." TY "." TY, "1, 1, 1, 0, 0");             \
        }                                                                                                          \
    }
GP_WG16(wgmma_bf16, "bf16")
GP_WG16(wgmma_f16, "f16")
#undef GP_WG16
template <int N> __device__ __forceinline__ void wgmma_tf32(float *d, uint64_t da, uint64_t db)
{
    if constexpr (N == 256) {
        GP_WG_ASM(256, "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32", "1, 1, 1");
    } else {
        GP_WG_ASM(128, "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32", "1, 1, 1");
    }
}

/* m64nNk8 TF32 with A from registers (a: this thread's four elements, PTX's m64nNk8 A fragment: rows g and g + 8 of
 * its warp's 16, columns t and t + 4) and B from a descriptor */
template <int N> __device__ __forceinline__ void wgmma_tf32_rs(float *d, const unsigned *a, uint64_t db)
{
    if constexpr (N == 256) {
        asm volatile("wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {" GP_WG_R128 "}, {%128, %129, %130, %131}, "
                     "%132, 1, 1, 1;\n"
                     : GP_WG_O128
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
    } else {
        asm volatile("wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {" GP_WG_R64 "}, {%64, %65, %66, %67}, "
                     "%68, 1, 1, 1;\n"
                     : GP_WG_O64
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
    }
}

/* shared-memory matrix descriptor of an MN-major 16-bit operand, 128-byte swizzle: 8-element k groups 1024 bytes
 * apart (SBO), 64-element MN groups (one TMA box of 64 x BK) 8192 bytes apart (LBO) */
__device__ __forceinline__ uint64_t desc_mn(unsigned addr)
{
    return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)(8192 >> 4) << 16) | ((uint64_t)(1024 >> 4) << 32) |
           ((uint64_t)1 << 62);
}

/* c's value in f32: alpha * acc (+ beta * old) */
template <int P, typename OT> __device__ __forceinline__ float c_in(OT old)
{
    if constexpr (sizeof(OT) == 4) return old;
    else if constexpr (P == 3) return gp__f16_bits_to_f32(old);
    else return gp__bf16_bits_to_f32(old);
}
template <int P, typename OT> __device__ __forceinline__ OT c_out(float v)
{
    if constexpr (sizeof(OT) == 4) return v;
    else if constexpr (P == 3) return gp__f32_to_f16(v);
    else return gp__f32_to_bf16(v);
}

/* the row of the block tile (of 128) that accumulator row 16 w + 8 h + g of consumer warpgroup cw holds: the
 * wgmma's own order, or, AM (an MN-major A read into registers, TF32), the order that keeps those reads free of bank
 * conflicts (load_a_rs): 32-row box w' / 2 (w' = 4 cw + w), 16-byte chunk 4 (g / 4) + 2 h + w' mod 2, word g mod 4 */
template <int AM> __device__ __forceinline__ int tile_row(int cw, int w, int h, int g)
{
    if constexpr (AM) {
        const int wp = 4 * cw + w;
        return 32 * (wp >> 1) + 4 * ((g >> 2) * 4 + h * 2 + (wp & 1)) + (g & 3);
    } else {
        return 64 * cw + 16 * w + 8 * h + g;
    }
}

/* C rows [m0, m0 + 128) (those of consumer warpgroup cw, tile_row) x columns [n0, n0 + 8 NJ) from a warpgroup's
 * accumulators: d[4 j + q] is accumulator row 16 w + g (+ 8 for q >= 2), column 8 j + 2 t (+ 1 for odd q); alpha *
 * acc + beta * C in f32, written as OT at C + i rs + c cs (rs = ldc, cs = 1: row-major; rs = 1, cs = ldc: the
 * transposed product of a swapped problem). vec (cs = 1, every even column's element at a multiple of two elements):
 * the two columns of a row in one store */
template <int P, typename OT, int NJ, int AM>
__device__ __forceinline__ void store_c(const float *d, OT *__restrict__ C, size_t rs, size_t cs, size_t M, size_t N,
                                        size_t m0, int cw, size_t n0, float alpha, float beta, int vec)
{
    const int lane = threadIdx.x & 31, w = (threadIdx.x >> 5) & 3, g = lane >> 2, t = lane & 3;
    typedef typename std::conditional<sizeof(OT) == 4, float2, unsigned>::type V; /* two OTs */
#pragma unroll
    for (int j = 0; j < NJ; j++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const size_t i = m0 + tile_row<AM>(cw, w, h, g), c = n0 + j * 8 + 2 * t;
            if (i >= M || c >= N) continue;
            OT *p = C + i * rs + c * cs;
            float v0 = alpha * d[4 * j + 2 * h], v1 = alpha * d[4 * j + 2 * h + 1];
            if (vec && c + 1 < N) {
                if (beta != 0.0f) {
                    const V o = *(const V *)p;
                    OT o2[2];
                    memcpy(o2, &o, sizeof o);
                    v0 = fmaf(beta, c_in<P, OT>(o2[0]), v0), v1 = fmaf(beta, c_in<P, OT>(o2[1]), v1);
                }
                const OT r[2] = {c_out<P, OT>(v0), c_out<P, OT>(v1)};
                V o;
                memcpy(&o, r, sizeof o);
                *(V *)p = o;
                continue;
            }
            if (beta != 0.0f) v0 = fmaf(beta, c_in<P, OT>(p[0]), v0);
            p[0] = c_out<P, OT>(v0);
            if (c + 1 < N) {
                if (beta != 0.0f) v1 = fmaf(beta, c_in<P, OT>(p[cs]), v1);
                p[cs] = c_out<P, OT>(v1);
            }
        }
}

/* P: 1 TF32 (f32 storage, the low 13 bits ignored by the tensor cores), 2 BF16, 3 FP16 */
template <int P, typename OT>
__global__ void __launch_bounds__(THREADS, 1)
    gemm_wgmma(size_t M, size_t N, size_t K, float alpha, const char *__restrict__ A, size_t lda,
               const char *__restrict__ B, size_t ldb, float beta, OT *__restrict__ C, size_t ldc,
               unsigned tiles_m, unsigned tiles_n, size_t sa, size_t sb, size_t sc)
{
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
    __trap(); /* only built for sm_90a */
#else
    extern __shared__ char smem_raw[];
    const unsigned base = (smem_u32(smem_raw) + 1023u) & ~1023u;
    const unsigned bid = blockIdx.x, group = 8, per_group = group * tiles_n;
    const unsigned g0 = bid / per_group * group, gsz = tiles_m - g0 < group ? tiles_m - g0 : group;
    const unsigned tm = g0 + (bid % per_group) % gsz, tn = (bid % per_group) / gsz;
    const size_t m0 = (size_t)tm * BM, n0 = (size_t)tn * BN;
    const int wg = threadIdx.x >> 7;
    constexpr int ESZ = P == 1 ? 4 : 2;
    A += blockIdx.y * sa * ESZ, B += blockIdx.y * sb * ESZ, C += blockIdx.y * sc; /* this grid row's problem */

    float d[128];
#pragma unroll
    for (int i = 0; i < 128; i++) d[i] = 0.0f;

    constexpr int ES = P == 1 ? 4 : 2, BK = 128 / ES;
    /* the ring: tile kt + 2 is copied while tile kt's wgmmas are issued and tile kt - 1's may still run (one group
     * in flight), so the stage being filled, (kt + 2) mod 4, is the one tile kt - 2 used, retired by then */
    constexpr int AHEAD = STAGES - 2;
    const size_t KT = (K + BK - 1) / BK;
#pragma unroll
    for (int s = 0; s < AHEAD; s++) {
        if ((size_t)s < KT) {
            const unsigned st = base + s * STAGE_BYTES;
            load_tile<BM, ES>(st, A, lda, m0, M, (size_t)s * BK, K);
            load_tile<BN, ES>(st + A_BYTES, B, ldb, n0, N, (size_t)s * BK, K);
        }
        asm volatile("cp.async.commit_group;\n" ::);
    }
    for (size_t kt = 0; kt < KT; kt++) {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(AHEAD - 1) : "memory");
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        __syncthreads();
        {
            const size_t nk = kt + AHEAD;
            if (nk < KT) {
                const unsigned st = base + (unsigned)(nk % STAGES) * STAGE_BYTES;
                load_tile<BM, ES>(st, A, lda, m0, M, nk * BK, K);
                load_tile<BN, ES>(st + A_BYTES, B, ldb, n0, N, nk * BK, K);
            }
            asm volatile("cp.async.commit_group;\n" ::);
        }
        const unsigned st = base + (unsigned)(kt % STAGES) * STAGE_BYTES, sa = st + wg * (64 * 128), sb = st + A_BYTES;
        asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
        for (int kk = 0; kk < 4; kk++) { /* 32 bytes of K each: k16 (16-bit) or k8 (TF32) */
            if (P == 1) wgmma_tf32<BN>(d, desc(sa + kk * 32), desc(sb + kk * 32));
            else if (P == 3) wgmma_f16<BN, 0>(d, desc(sa + kk * 32), desc(sb + kk * 32));
            else wgmma_bf16<BN, 0>(d, desc(sa + kk * 32), desc(sb + kk * 32));
        }
        asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");

    store_c<P, OT, BN / 8, 0>(d, C, ldc, 1, M, N, m0, wg, n0, alpha, beta, 0);
#endif
}

/* ---------------------------------------------------------------- TMA + mbarriers, producer / consumer warpgroups */
/* Warpgroup 0 produces: one thread waits for a free stage (its `empty` mbarrier), arms the stage's `full` mbarrier
 * with the stage's bytes and starts two bulk tensor copies (cp.async.bulk.tensor: the copy engine, 128-byte swizzle,
 * zeros past the tensor's edges), the other 127 threads idle with few registers (setmaxnreg 40). Warpgroups 1 and 2
 * consume (setmaxnreg 232): wait on `full`, issue the stage's wgmmas, keep one group in flight, and free the stage of
 * the group that finished (one arrival per warpgroup on `empty`). */
__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count));
}
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity)
{
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "WAIT_%=:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
                 "@!p bra WAIT_%=;\n"
                 "}\n" ::"r"(bar),
                 "r"(parity)
                 : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned bar)
{
    asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.shared::cta.b64 st, [%0];\n}\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(unsigned bar, unsigned bytes)
{
    asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n}\n" ::"r"(bar),
                 "r"(bytes)
                 : "memory");
}
__device__ __forceinline__ void tma_3d(unsigned dst, const CUtensorMap *map, int c0, int c1, int c2, unsigned bar)
{
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, "
                 "%4}], [%5];\n" ::"r"(dst),
                 "l"((unsigned long long)map), "r"(c0), "r"(c1), "r"(c2), "r"(bar)
                 : "memory");
}

__device__ __forceinline__ void tma_3d_mc(unsigned dst, const CUtensorMap *map, int c0, int c1, int c2, unsigned bar,
                                          unsigned short mask)
{
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], "
                 "[%1, {%2, %3, %4}], [%5], %6;\n" ::"r"(dst),
                 "l"((unsigned long long)map), "r"(c0), "r"(c1), "r"(c2), "r"(bar), "h"(mask)
                 : "memory");
}
/* one arrival on the mbarrier at CTA-relative address bar in the cluster's CTA `rank` (this one included); the
 * default semantics (release at CTA scope): the arrival only says this block's wgmmas are done reading the stage,
 * whose completion wgmma.wait_group already guaranteed — a cluster-scope release would fence every arrival */
__device__ __forceinline__ void mbar_arrive_cluster(unsigned bar, unsigned rank)
{
    asm volatile("{\n.reg .b32 ra;\nmapa.shared::cluster.u32 ra, %0, %1;\n"
                 "mbarrier.arrive.shared::cluster.b64 _, [ra];\n}\n" ::"r"(bar),
                 "r"(rank)
                 : "memory");
}
__device__ __forceinline__ void cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}

/* The TMA kernel's shapes: a block tile of 128 x TN — 256: one block per SM, 4 stages, a producer warpgroup that
 * gives its registers to the consumers (setmaxnreg); 128: two blocks per SM, 3 stages each, one producer warp after
 * the two consumer warpgroups (288 threads: 112 registers each, where a producer warpgroup would leave 80, too few
 * for an m64n128 wgmma) —, CL blocks per cluster (2: the pair shares its B tile — each block fetches half of it and the copy
 * engine writes it into both blocks' shared memory) */
template <int TN> struct tma_shape {
    static constexpr int THREADS = TN == 256 ? 384 : 288, STAGES = TN == 256 ? 4 : 3, B_BYTES = TN * 128, STAGE_BYTES = A_BYTES + B_BYTES;
    static constexpr size_t SMEM = (size_t)STAGES * STAGE_BYTES + 1024 + 2 * STAGES * 8; /* ring, slack, mbarriers */
};

/* BT: B MN-major (N-inner in global memory, 16-bit types): TN / 64 boxes of 64 columns x BK rows per stage, read by
 * the wgmma's transpose bit; else K-major like A. vec: C's pairs of columns may be stored as one (store_c). */
template <int P, typename OT, int BT, int TN, int CL, int AM, int PS>
__global__ void __launch_bounds__(tma_shape<TN>::THREADS, TN == 256 ? 1 : 2)
    gemm_tma(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB, size_t M, size_t N,
             size_t K, float alpha, float beta, OT *__restrict__ C, size_t ldc, int ct, unsigned tiles_m,
             unsigned tiles_n, int za, int zb, size_t sc, int vec, unsigned kt_per)
{
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
    __trap(); /* only built for sm_90a */
#else
    static_assert(!AM || (P == 1 && TN == 256 && CL == 1 && !BT), "an MN-major A: TF32, 128 x 256 tiles, no cluster");
    static_assert(!PS || CL == 1, "a persistent grid has no clusters");
    using S = tma_shape<TN>;
    constexpr int ES = P == 1 ? 4 : 2, BK = 128 / ES, STG = S::STAGES, SB = S::STAGE_BYTES;
    extern __shared__ char smem_raw[];
    const unsigned base = (smem_u32(smem_raw) + 1023u) & ~1023u;
    const unsigned bars = base + STG * SB; /* full[s] at bars + 8 s, empty[s] at bars + 8 (STG + s) */
    /* TN 256: warpgroup 0 produces, 1 and 2 consume; TN 128: warpgroups 0 and 1 consume, warp 8 produces */
    const int wg = threadIdx.x >> 7, producer = TN == 256 ? wg == 0 : wg == 2, cw = TN == 256 ? wg - 1 : wg;
    const unsigned lead = TN == 256 ? 0 : 256; /* the producer's one working thread */
    /* split K (kt_per > 0): grid layer z takes k tiles [z kt_per, (z + 1) kt_per) and writes its own C */
    const size_t KA = (K + BK - 1) / BK, kt0 = kt_per ? (size_t)blockIdx.z * kt_per : 0,
                 KT = kt_per ? (KA - kt0 < kt_per ? KA - kt0 : kt_per) : KA;
    unsigned rank = 0;
    if constexpr (CL > 1) asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
    if (threadIdx.x == 0) {
        for (int s = 0; s < STG; s++) {
            mbar_init(bars + 8 * s, 1);
            mbar_init(bars + 8 * (STG + s), 2 * CL); /* both consumer warpgroups of every block the stage feeds */
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    if constexpr (CL > 1) cluster_sync(); /* the peer's barriers exist before anything is sent to them */
    else __syncthreads();
    /* the tiles: blockIdx.x, and with PS every gridDim.x-th after it (a persistent grid of fewer blocks than tiles: the ring
     * runs on from one tile into the next, so the producer fills the next tile's stages while the consumers store
     * this one's C); grouped order — 8 rows of tiles at a time, column by column (tiles_m even when CL = 2, so a
     * cluster's two blocks are vertical neighbours with one B tile) */
    const unsigned ntiles = tiles_m * tiles_n, group = 8, per_group = group * tiles_n;
    if (producer) {
        if constexpr (TN == 256) asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (threadIdx.x == lead) {
            asm volatile("prefetch.tensormap [%0];\n" ::"l"((unsigned long long)&tmA) : "memory");
            asm volatile("prefetch.tensormap [%0];\n" ::"l"((unsigned long long)&tmB) : "memory");
            size_t it = 0; /* k tiles through the ring so far */
            for (unsigned bid = blockIdx.x, once = 1; PS ? bid < ntiles : once; bid += gridDim.x, it += KT, once = 0) {
                const unsigned g0 = bid / per_group * group, gsz = tiles_m - g0 < group ? tiles_m - g0 : group;
                const unsigned tm = g0 + (bid % per_group) % gsz, tn = (bid % per_group) / gsz;
                const size_t m0 = (size_t)tm * BM, n0 = (size_t)tn * TN;
                for (size_t kt = 0; kt < KT; kt++) {
                    const int s = (int)((it + kt) % STG);
                    const unsigned ph = (unsigned)(((it + kt) / STG) & 1), full = bars + 8 * s, st = base + s * SB;
                    /* a fresh barrier passes parity 1 at once; with CL = 2 the stage is free in both blocks */
                    mbar_wait(bars + 8 * (STG + s), ph ^ 1);
                    mbar_expect_tx(full, SB);
                    const int k0 = (int)((kt0 + kt) * BK), z = zb * (int)blockIdx.y;
                    if constexpr (AM) { /* four boxes of 32 rows (128 bytes of M) x 32 k */
#pragma unroll
                        for (int j = 0; j < 4; j++)
                            tma_3d(st + j * 4096, &tmA, (int)m0 + 32 * j, k0, za * (int)blockIdx.y, full);
                    } else {
                        tma_3d(st, &tmA, k0, (int)m0, za * (int)blockIdx.y, full);
                    }
                    if constexpr (BT) {
                        constexpr int NB = TN / 64 / CL; /* boxes of 64 columns this block fetches */
#pragma unroll
                        for (int j = 0; j < NB; j++) {
                            const int box = (int)rank * NB + j;
                            if constexpr (CL > 1)
                                tma_3d_mc(st + A_BYTES + box * 8192, &tmB, (int)n0 + 64 * box, k0, z, full, 3);
                            else tma_3d(st + A_BYTES + box * 8192, &tmB, (int)n0 + 64 * box, k0, z, full);
                        }
                    } else if constexpr (CL > 1) { /* K-major B: half the tile's rows each */
                        tma_3d_mc(st + A_BYTES + rank * (TN / 2) * 128, &tmB, k0, (int)n0 + (int)rank * (TN / 2), z,
                                  full, 3);
                    } else {
                        tma_3d(st + A_BYTES, &tmB, k0, (int)n0, z, full);
                    }
                }
            }
        }
    } else { /* consumers */
        if constexpr (TN == 256) asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
        /* free the stage of ring position q (one arrival per warpgroup, in every block it feeds) */
        auto release = [&](size_t q) {
            if ((threadIdx.x & 127) == 0) {
                const unsigned e = bars + 8 * (STG + (int)(q % STG));
                if constexpr (CL > 1)
#pragma unroll
                    for (int r = 0; r < CL; r++) mbar_arrive_cluster(e, (unsigned)r);
                else mbar_arrive(e);
            }
        };
        size_t it = 0;
        for (unsigned bid = blockIdx.x, once = 1; PS ? bid < ntiles : once; bid += gridDim.x, it += KT, once = 0) {
            const unsigned g0 = bid / per_group * group, gsz = tiles_m - g0 < group ? tiles_m - g0 : group;
            const unsigned tm = g0 + (bid % per_group) % gsz, tn = (bid % per_group) / gsz;
            const size_t m0 = (size_t)tm * BM, n0 = (size_t)tn * TN;
            float d[TN / 2];
#pragma unroll
            for (int i = 0; i < TN / 2; i++) d[i] = 0.0f;
            if constexpr (AM) {
                /* A's tile is MN-major (k rows of 128 bytes of M, 128-byte swizzle, four boxes of 32 rows of M): each
                 * thread reads its m64nNk8 fragments itself (the order of tile_row, free of bank conflicts) and the
                 * wgmma takes them from registers; two sets, as a set may be read by the group still in flight while
                 * the next is loaded */
                const int lane = threadIdx.x & 31, w = (threadIdx.x >> 5) & 3, g = lane >> 2, t = lane & 3,
                          wp = 4 * cw + w;
                unsigned off[4];
#pragma unroll
                for (int r = 0; r < 4; r++) { /* a0: (g, t), a1: (g + 8, t), a2: (g, t + 4), a3: (g + 8, t + 4) */
                    const int h = r & 1, kr = t + 4 * (r >> 1), chunk = (g >> 2) * 4 + h * 2 + (wp & 1);
                    off[r] = (unsigned)((wp >> 1) * 4096 + kr * 128 + ((chunk ^ kr) << 4) + (g & 3) * 4);
                }
                unsigned fa[2][4][4];
                auto step = [&](size_t kt, unsigned (&f)[4][4]) {
                    const int s = (int)((it + kt) % STG);
                    mbar_wait(bars + 8 * s, (unsigned)(((it + kt) / STG) & 1));
                    const unsigned st = base + s * SB, sb = st + A_BYTES;
#pragma unroll
                    for (int kk = 0; kk < 4; kk++)
#pragma unroll
                        for (int r = 0; r < 4; r++)
                            /* TF32: the top 19 bits, as the wgmma takes them from shared memory (in the same asm:
                             * nothing may define a wgmma's input registers after the fence) */
                            asm volatile("{\nld.shared.b32 %0, [%1];\nand.b32 %0, %0, 0xffffe000;\n}\n"
                                         : "=r"(f[kk][r])
                                         : "r"(st + kk * 1024 + off[r]));
                    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
                    for (int kk = 0; kk < 4; kk++) wgmma_tf32_rs<TN>(d, f[kk], desc(sb + kk * 32));
                    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
                    asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
                    if (kt > 0) release(it + kt - 1);
                };
                /* (no path back to step(., fa[0]) without step(., fa[1]) between: ptxas would see fa[0] rewritten
                 * under the group in flight and serialize every wgmma) KT >= 1 */
                for (size_t kt = 0;; kt += 2) {
                    step(kt, fa[0]);
                    if (kt + 1 >= KT) break;
                    step(kt + 1, fa[1]);
                    if (kt + 2 >= KT) break;
                }
            } else {
                for (size_t kt = 0; kt < KT; kt++) {
                    const int s = (int)((it + kt) % STG);
                    mbar_wait(bars + 8 * s, (unsigned)(((it + kt) / STG) & 1));
                    const unsigned st = base + s * SB, sa = st + cw * (64 * 128), sb = st + A_BYTES;
                    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
                    for (int kk = 0; kk < 4; kk++) {
                        if constexpr (P == 1) wgmma_tf32<TN>(d, desc(sa + kk * 32), desc(sb + kk * 32));
                        else if constexpr (BT) { /* 16 rows of K per step: two 1024-byte groups */
                            if constexpr (P == 3) wgmma_f16<TN, 1>(d, desc(sa + kk * 32), desc_mn(sb + kk * 2048));
                            else wgmma_bf16<TN, 1>(d, desc(sa + kk * 32), desc_mn(sb + kk * 2048));
                        } else if constexpr (P == 3) wgmma_f16<TN, 0>(d, desc(sa + kk * 32), desc(sb + kk * 32));
                        else wgmma_bf16<TN, 0>(d, desc(sa + kk * 32), desc(sb + kk * 32));
                    }
                    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
                    asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
                    /* the group of tile kt - 1 is done: its stage is free */
                    if (kt > 0) release(it + kt - 1);
                }
            }
            asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
            if (PS) release(it + KT - 1); /* the tile's last stage, for the next tile */
            store_c<P, OT, TN / 8, AM>(d, C + ((size_t)blockIdx.z * gridDim.y + blockIdx.y) * sc, ct ? 1 : ldc,
                                       ct ? ldc : 1, M, N, m0, cw, n0, alpha, beta, vec);
        }
    }
    /* no block leaves while its peer may still arrive on its barriers */
    if constexpr (CL > 1) cluster_sync();
#endif
}

typedef CUresult (*encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                              const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                              CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

/* a batch of nb K-major operands (rows x K, ld elements, stride elements apart) as a 3D tensor map: boxes of 128
 * bytes of K x box_rows x 1, 128-byte swizzle */
gp_status_t tensor_map(CUtensorMap *map, int P, const void *X, size_t rows, size_t K, size_t ld, size_t stride,
                       size_t nb, unsigned box_rows, int mn = 0)
{
    static encode_fn encode = NULL;
    if (encode == NULL) {
        void *fn = NULL;
        cudaDriverEntryPointQueryResult q;
        const cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q);
        if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || fn == NULL)
            return gp__error(GP_ERR_UNSUPPORTED, "gp_gemm_ex: the driver has no cuTensorMapEncodeTiled");
        encode = (encode_fn)fn;
    }
    const size_t es = P == 1 ? 4 : 2;
    if (nb <= 1 || stride == 0) nb = 1, stride = (mn ? K : rows) * ld; /* one matrix (the stride: a formality) */
    /* mn: an MN-major operand (K rows of `rows` elements): boxes of 128 bytes of MN x box_rows rows of K */
    const cuuint64_t dims[3] = {mn ? rows : K, mn ? K : rows, nb}, strides[2] = {ld * es, stride * es};
    const cuuint32_t box[3] = {(cuuint32_t)(128 / es), box_rows, 1}, estr[3] = {1, 1, 1};
    const CUtensorMapDataType dt = P == 1 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                                   : P == 3 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                            : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    const CUresult r = encode(map, dt, 3, const_cast<void *>(X), dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                              CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        return gp__error(GP_ERR_INTERNAL, "gp_gemm_ex: cuTensorMapEncodeTiled (%zu x %zu, ld %zu): error %d", rows, K, ld,
                         (int)r);
    return GP_OK;
}

/* c = alpha * (the splits' partial sums, in order) + beta * c, as OT: the same arithmetic as store_c's */
template <int P, typename OT>
__global__ void splitk_finish(const float *__restrict__ ws, unsigned splits, size_t count, size_t M, size_t N,
                              float alpha, float beta, OT *__restrict__ C, size_t ldc, size_t sc)
{
    const size_t mn = M * N, total = count * mn;
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += (size_t)gridDim.x * blockDim.x) {
        const size_t p = e / mn, r = e - p * mn, i = r / N, j = r - i * N;
        float acc = ws[e];
        for (unsigned z = 1; z < splits; z++) acc += ws[(size_t)z * total + e];
        OT *c = C + p * sc + i * ldc + j;
        float v = alpha * acc;
        if (beta != 0.0f) v = fmaf(beta, c_in<P, OT>(*c), v);
        *c = c_out<P, OT>(v);
    }
}

/* one launch of gemm_tma<P, OT, BT, TN, CL, AM, PS>: grid tiles (PS: at most `persist` blocks) x problems x splits;
 * ct: C transposed (element (i, j) at C + j ldc + i) */
template <int P, typename OT, int BT, int TN, int CL, int AM, int PS>
gp_status_t launch_grid(const CUtensorMap &ma, const CUtensorMap &mb, const gp__gemm_t *g, size_t K, float alpha,
                        float beta, OT *C, size_t ldc, int ct, size_t sc, const gp__batch_t *b, unsigned splits,
                        unsigned kt_per, size_t tm, size_t tn, unsigned persist, cudaStream_t s)
{
    using S = tma_shape<TN>;
    const int vec = !ct && ldc % 2 == 0 && (uintptr_t)C % (2 * sizeof(OT)) == 0 && (b->count * splits <= 1 || sc % 2 == 0);
    gp_status_t st = GP_OK;
    auto kern = gemm_tma<P, OT, BT, TN, CL, AM, PS>;
    GP_CUDA_TRY(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)S::SMEM));
    {
        cudaLaunchConfig_t cfg = {};
        /* PS: at most `persist` blocks, each taking every persist-th tile (else a block per tile) */
        cfg.gridDim = dim3((unsigned)(PS && persist < tm * tn ? persist : tm * tn), (unsigned)b->count, splits);
        cfg.blockDim = dim3(S::THREADS);
        cfg.dynamicSmemBytes = S::SMEM;
        cfg.stream = s;
        cudaLaunchAttribute at[1];
        at[0].id = cudaLaunchAttributeClusterDimension;
        at[0].val.clusterDim.x = CL, at[0].val.clusterDim.y = 1, at[0].val.clusterDim.z = 1;
        cfg.attrs = at;
        cfg.numAttrs = CL > 1 ? 1 : 0;
        GP_CUDA_TRY(cudaLaunchKernelEx(&cfg, kern, ma, mb, g->M, g->N, K, alpha, beta, C, ldc, ct, (unsigned)tm,
                                       (unsigned)tn, (int)(b->sa != 0), (int)(b->sb != 0), sc, vec, kt_per));
    }
    return GP_CHECK_LAUNCH("gemm_tma");
fail:
    return st;
}

/* splits > 1 (and ws): K cut into that many ranges of whole k tiles, each range's f32 product into ws (splits x
 * count x M x N floats), then summed in order by splitk_finish (deterministic; other bits than one chain over K).
 * AM: A MN-major (TF32). ct: g is the swapped problem of C^T = B^T A^T, C stored transposed (never split). PS: a
 * persistent grid of `persist` blocks */
template <int P, typename OT, int BT, int TN, int CL, int AM, int PS>
gp_status_t launch_tma(const gp__gemm_t *g, size_t K, const gp__batch_t *b, unsigned splits, float *ws, int ct,
                       unsigned persist, cudaStream_t s)
{
    constexpr size_t BKE = 128 / (P == 1 ? 4 : 2); /* elements of K per k tile */
    size_t tm = (g->M + BM - 1) / BM;
    const size_t tn = (g->N + TN - 1) / TN;
    if (CL > 1) tm += tm & 1; /* a cluster is two vertical neighbours: an odd last row of tiles gets a partner whose
                                 rows are all past M (TMA fills them with zeros, nothing is stored) */
    if (tm * tn > 0x7fffffffu)
        return gp__error(GP_ERR_UNSUPPORTED, "gp_gemm_ex: %zu x %zu is more than 2^31 tiles of 128 x %d", g->M, g->N, TN);
    CUtensorMap ma, mb;
    if (AM) GP_TRY_RET(tensor_map(&ma, P, g->A, g->M, K, g->lda, b->sa, b->count, BKE, 1));
    else GP_TRY_RET(tensor_map(&ma, P, g->A, g->M, K, g->lda, b->sa, b->count, BM));
    if (BT) GP_TRY_RET(tensor_map(&mb, P, g->B, g->N, K, g->ldb, b->sb, b->count, BKE, 1));
    else GP_TRY_RET(tensor_map(&mb, P, g->B, g->N, K, g->ldb, b->sb, b->count, TN / CL));
    const size_t KA = (K + BKE - 1) / BKE;
    const unsigned kt_per = splits > 1 && ws ? (unsigned)((KA + splits - 1) / splits) : 0;
    if (kt_per == 0)
        return launch_grid<P, OT, BT, TN, CL, AM, PS>(ma, mb, g, K, (float)g->alpha, (float)g->beta, (OT *)g->C, g->ldc,
                                                  ct, b->sc, b, 1, 0, tm, tn, persist, s);
    /* (the launcher never splits K for the register-fed operand: tc_gpu takes it only unsplit) */
    if (ct) return gp__error(GP_ERR_INTERNAL, "gp_gemm_ex: a split K reached the swapped TF32 problem");
    const unsigned ns = (unsigned)((KA + kt_per - 1) / kt_per); /* every range non-empty */
    GP_TRY_RET((launch_grid<P, float, BT, TN, CL, AM, PS>(ma, mb, g, K, 1.0f, 0.0f, ws, g->N, 0, g->M * g->N, b, ns,
                                                      kt_per, tm, tn, persist, s)));
    const size_t total = b->count * g->M * g->N;
    const unsigned blocks = (unsigned)(total / 256 + 1 < 4096 ? total / 256 + 1 : 4096);
    splitk_finish<P, OT><<<blocks, 256, 0, s>>>(ws, ns, b->count, g->M, g->N, (float)g->alpha, (float)g->beta,
                                                (OT *)g->C, g->ldc, b->sc);
    return GP_CHECK_LAUNCH("gp_gemm_ex: summing the split-K partials");
}

/* kind (GP__WG_*): the tile and cluster shape (sms: the persistent grid's size) */
template <int P, typename OT, int BT>
gp_status_t tma_kind(const gp__gemm_t *g, size_t K, const gp__batch_t *b, int kind, unsigned splits, float *ws,
                     int sms, cudaStream_t s)
{
    switch (kind) {
    case GP__WG_TMA_128x128: return launch_tma<P, OT, BT, 128, 1, 0, 0>(g, K, b, splits, ws, 0, 0, s);
    case GP__WG_TMA_128x256_C2: return launch_tma<P, OT, BT, 256, 2, 0, 0>(g, K, b, splits, ws, 0, 0, s);
    case GP__WG_TMA_128x128_C2: return launch_tma<P, OT, BT, 128, 2, 0, 0>(g, K, b, splits, ws, 0, 0, s);
    case GP__WG_TMA_128x256_P: return launch_tma<P, OT, BT, 256, 1, 0, 1>(g, K, b, splits, ws, 0, (unsigned)sms, s);
    default: return launch_tma<P, OT, BT, 256, 1, 0, 0>(g, K, b, splits, ws, 0, 0, s);
    }
}

template <int P, typename OT> gp_status_t launch(const gp__gemm_t *g, size_t K, const gp__batch_t *b, cudaStream_t s)
{
    const unsigned tm = (unsigned)((g->M + BM - 1) / BM), tn = (unsigned)((g->N + BN - 1) / BN);
    gp_status_t st = GP_OK;
    GP_CUDA_TRY(cudaFuncSetAttribute(gemm_wgmma<P, OT>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM));
    gemm_wgmma<P, OT><<<dim3(tm * tn, (unsigned)b->count), THREADS, SMEM, s>>>(
        g->M, g->N, K, (float)g->alpha, (const char *)g->A, g->lda, (const char *)g->B, g->ldb, (float)g->beta,
        (OT *)g->C, g->ldc, tm, tn, b->sa, b->sb, b->sc);
    return GP_CHECK_LAUNCH("gemm_wgmma");
fail:
    return st;
}

} // namespace

extern "C" int gp__gemm_wgmma_tma_ok(const gp__gemm_t *g, size_t K, int kind)
{
    return kind != GP__WG_CPASYNC && K > 0 && K < 0x7fffffffu && g->M < 0x7fffffffu && g->N < 0x7fffffffu;
}

/* g: A K-major, B K-major or (TMA kernel, 16-bit) N-inner, rows 16-byte aligned (TF32: as stored); K = 0 when
 * alpha is 0 */
extern "C" gp_status_t gp__gemm_wgmma(gp_gemm_precision_t prec, gp_dtype_t cdt, const gp__gemm_t *g, size_t K,
                                      const gp__batch_t *bt, int kind, int sms, unsigned splits, float *ws,
                                      cudaStream_t stream)
{
    const gp__batch_t one = {1, 0, 0, 0};
    const gp__batch_t *b = bt && bt->count > 1 ? bt : &one;
    /* the TMA kernel unless told otherwise (GP__WG_CPASYNC) or past its 32-bit coordinates, or K = 0 (nothing to
     * copy) */
    if (gp__gemm_wgmma_tma_ok(g, K, kind)) {
        /* the tile shape counts the whole batch's tiles (every shape gives the same bits; the split of K, which
         * changes them, was chosen for one problem alone) */
        const int k = kind == GP__WG_AUTO ? gp__gemm_wgmma_pick_batch(g->M, g->N, b->count, sms) : kind;
        if (prec == GP_GEMM_TF32 && !g->b_kin) { /* C^T = B^T A^T: B^T is an MN-major A (the launcher checked
                                                     that B is aligned and A K-major) */
            if (!g->a_kin) return gp__error(GP_ERR_INTERNAL, "gp_gemm_ex: TF32 with both operands MN-major");
            gp__gemm_t q = *g;
            q.M = g->N, q.N = g->M, q.A = g->B, q.lda = g->ldb, q.B = g->A, q.ldb = g->lda, q.a_kin = 0, q.b_kin = 1;
            const gp__batch_t sb = {b->count, b->sb, b->sa, b->sc};
            return launch_tma<1, float, 0, 256, 1, 1, 0>(&q, K, &sb, splits, ws, 1, 0, stream);
        }
        if (prec == GP_GEMM_TF32 && !g->a_kin) return launch_tma<1, float, 0, 256, 1, 1, 0>(g, K, b, splits, ws, 0, 0, stream);
        if (prec == GP_GEMM_TF32) return tma_kind<1, float, 0>(g, K, b, k, splits, ws, sms, stream);
        if (!g->b_kin) { /* B N-inner, read by the transpose bit (the launcher checked 16-bit rows and strides) */
            if (prec == GP_GEMM_FP16)
                return cdt == GP_F32 ? tma_kind<3, float, 1>(g, K, b, k, splits, ws, sms, stream) : tma_kind<3, uint16_t, 1>(g, K, b, k, splits, ws, sms, stream);
            return cdt == GP_F32 ? tma_kind<2, float, 1>(g, K, b, k, splits, ws, sms, stream) : tma_kind<2, uint16_t, 1>(g, K, b, k, splits, ws, sms, stream);
        }
        if (prec == GP_GEMM_FP16)
            return cdt == GP_F32 ? tma_kind<3, float, 0>(g, K, b, k, splits, ws, sms, stream) : tma_kind<3, uint16_t, 0>(g, K, b, k, splits, ws, sms, stream);
        return cdt == GP_F32 ? tma_kind<2, float, 0>(g, K, b, k, splits, ws, sms, stream) : tma_kind<2, uint16_t, 0>(g, K, b, k, splits, ws, sms, stream);
    }
    if (!g->a_kin || !g->b_kin)
        return gp__error(GP_ERR_INTERNAL, "gp_gemm_ex: an MN-major operand reached the cp.async wgmma kernel");
    /* (the TMA kernel checks its own tile count, launch_tma) */
    if ((g->M + BM - 1) / BM * ((g->N + BN - 1) / BN) > 0x7fffffffu)
        return gp__error(GP_ERR_UNSUPPORTED, "gp_gemm_ex: %zu x %zu is more than 2^31 tiles of 128 x 256", g->M, g->N);
    if (prec == GP_GEMM_TF32) return launch<1, float>(g, K, b, stream);
    if (prec == GP_GEMM_FP16) return cdt == GP_F32 ? launch<3, float>(g, K, b, stream) : launch<3, uint16_t>(g, K, b, stream);
    return cdt == GP_F32 ? launch<2, float>(g, K, b, stream) : launch<2, uint16_t>(g, K, b, stream);
}
