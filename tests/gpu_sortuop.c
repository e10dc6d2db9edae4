/*
 * gpu_sortuop.c — gp_sort_uop on the GPU (NVRTC): the cases of sortuop_common.h on the device, GPU == CPU backend
 * bit for bit on larger inputs (keys with values, a 3-component key), the asynchronous form on a stream, and (not
 * quick) n > 2^31 u8 keys checked by their counts and order. Exit 77 without a GPU. GP_TEST_QUICK=1
 * (compute-sanitizer): small sizes.
 */
#include "sortuop_common.h"

static void same_bits(gp_ctx_t *g, gp_ctx_t *c, gp_dtype_t dt, int arity, const char *src, size_t n, size_t vb)
{
    gp_uop_t *og = su_less(g, dt, arity, src), *oc = su_less(c, dt, arity, src);
    if (!og || !oc) goto out;
    const size_t es = (size_t)arity * gp_dtype_size(dt);
    unsigned char *k = malloc(n * es + 1), *v = malloc(n * vb + 1);
    unsigned char *kg = malloc(n * es + 1), *vg = malloc(n * vb + 1), *kc = malloc(n * es + 1), *vc = malloc(n * vb + 1);
    su_fill(k, n * (size_t)arity, dt);
    for (size_t i = 0; i < n * (size_t)arity; i++) /* repeats: a third of the keys copy an earlier one */
        if (i >= (size_t)arity && tc_next() % 3 == 0) memcpy(k + i * gp_dtype_size(dt), k + (i - (size_t)arity) * gp_dtype_size(dt), gp_dtype_size(dt));
    for (size_t i = 0; i < n * vb; i++) v[i] = (unsigned char)(tc_next() >> 50);
    su_run(g, og, n, k, es, v, vb, 0, kg, vg);
    su_run(c, oc, n, k, es, v, vb, 0, kc, vc);
    CHECK(memcmp(kg, kc, n * es) == 0 && (!vb || memcmp(vg, vc, n * vb) == 0),
          "'%s' over %d x %s, n = %zu, values %zu: GPU and CPU bits differ", src, arity, gp_dtype_name(dt), n, vb);
    free(k), free(v), free(kg), free(vg), free(kc), free(vc);
out:
    gp_uop_destroy(og);
    gp_uop_destroy(oc);
}

/* asynchronous on a stream, twice on two streams: the sync form's bits */
static void async_streams(gp_ctx_t *g, size_t n)
{
    gp_uop_t *op = su_less(g, GP_F32, 1, "a > b || (b == b && a != a)");
    if (!op) return;
    float *x = malloc(n * 4), *want = malloc(n * 4), *got = malloc(n * 4);
    tc_fill(x, n, GP_F32);
    su_run(g, op, n, x, 4, NULL, 0, 0, want, NULL);
    gp_buffer_t b, o1, o2;
    gp_stream_t s1, s2;
    OK(gp_mem_alloc(g, GP_MEM_DEVICE, n * 4, &b));
    OK(gp_mem_alloc(g, GP_MEM_DEVICE, n * 4, &o1));
    OK(gp_mem_alloc(g, GP_MEM_DEVICE, n * 4, &o2));
    OK(gp_memcpy_sync(g, b.device, x, n * 4));
    OK(gp_stream_create(g, &s1));
    OK(gp_stream_create(g, &s2));
    OK(gp_sort_uop(g, op, n, b.device, o1.device, 0, NULL, NULL, s1));
    OK(gp_stream_sync(g, s1));
    OK(gp_sort_uop(g, op, n, b.device, o2.device, 0, NULL, NULL, s2));
    OK(gp_stream_sync(g, s2));
    OK(gp_memcpy_sync(g, got, o1.device, n * 4));
    CHECK(memcmp(got, want, n * 4) == 0, "stream 1: the sync form's bits");
    OK(gp_memcpy_sync(g, got, o2.device, n * 4));
    CHECK(memcmp(got, want, n * 4) == 0, "stream 2: the sync form's bits");
    for (size_t i = 1; i < n; i++)
        if (!(want[i - 1] >= want[i] || want[i - 1] != want[i - 1])) {
            CHECK(0, "descending with NaN first: out of order at %zu", i);
            break;
        }
    gp_stream_destroy(g, s1), gp_stream_destroy(g, s2);
    gp_mem_free(g, &b), gp_mem_free(g, &o1), gp_mem_free(g, &o2);
    free(x), free(want), free(got);
    gp_uop_destroy(op);
}

/* n > 2^31 u8 keys: nondecreasing, with the input's count of every value */
static void huge(gp_ctx_t *g)
{
    const size_t n = ((size_t)1 << 31) + 4099;
    gp_buffer_t b;
    if (gp_mem_alloc(g, GP_MEM_DEVICE, n, &b) != GP_OK) {
        printf("gpu_sortuop: n > 2^31 SKIPPED: %s\n", gp_last_error());
        return;
    }
    gp_uop_t *op = su_less(g, GP_U8, 1, "a < b");
    const size_t ch = (size_t)1 << 26;
    unsigned char *chunk = malloc(ch);
    uint64_t cnt[256] = {0}, got[256] = {0};
    for (size_t o = 0; o < n; o += ch) {
        const size_t m = n - o < ch ? n - o : ch;
        for (size_t i = 0; i < m; i++) chunk[i] = (unsigned char)(tc_next() >> 56), cnt[chunk[i]]++;
        OK(gp_memcpy_sync(g, (char *)b.device + o, chunk, m));
    }
    OK(gp_sort_uop_sync(g, op, n, b.device, b.device, 0, NULL, NULL));
    int prev = 0, sorted = 1;
    for (size_t o = 0; o < n; o += ch) {
        const size_t m = n - o < ch ? n - o : ch;
        OK(gp_memcpy_sync(g, chunk, (char *)b.device + o, m));
        for (size_t i = 0; i < m; i++) {
            sorted &= chunk[i] >= prev;
            prev = chunk[i];
            got[chunk[i]]++;
        }
    }
    CHECK(sorted && memcmp(cnt, got, sizeof cnt) == 0, "n = %zu u8 keys: sorted %d, counts kept %d", n, sorted,
          memcmp(cnt, got, sizeof cnt) == 0);
    free(chunk);
    gp_mem_free(g, &b);
    gp_uop_destroy(op);
}

int main(void)
{
    tc_require_gpu("gpu_sortuop");
    tc_seed("gpu_sortuop");
    const int quick = getenv("GP_TEST_QUICK") != NULL;
    gp_ctx_t *g, *c;
    OK(gp_ctx_create(&g, 0));
    OK(gp_ctx_create(&c, GP_DEVICE_CPU));
    su_all(g, quick);
    const size_t n = quick ? 20000 : (1u << 22) + 777;
    same_bits(g, c, GP_U32, 1, "a < b", n, 4);
    same_bits(g, c, GP_F64, 1, "a > b || (a == a && b != b)", n, 8);
    same_bits(g, c, GP_I16, 3, "a[2] < b[2] || (a[2] == b[2] && a[0] > b[0])", n, 16);
    same_bits(g, c, GP_BF16, 1, "fabsf(a) < fabsf(b) || (a == a && b != b)", n, 2);
    async_streams(g, quick ? 10000 : (1u << 21) + 5);
    if (!quick) huge(g);
    gp_ctx_destroy(g);
    gp_ctx_destroy(c);
    return tc_finish("gpu_sortuop");
}
